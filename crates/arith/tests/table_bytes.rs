//! The table sizes of `mixgc_moduli::table_bytes` against the garbler: every primitive
//! emits exactly the bytes (and counts exactly the rows) of its formula.

use mixgc_arith::cost::TableCost;
use mixgc_arith::primes::{first_primes, min_sum_primes};
use mixgc_arith::table_bytes::{compose_powers, lift, product, projection, residues, residues_from_bits};
use mixgc_arith::{residue_bit_counts, term_sizes, ArithGarbler, Modulus, PrimeSet, Term};
use mixgc_core::{new_rng, Block};

/// Every primitive garbled for real, over many moduli and sets, emits exactly the bytes
/// (and counts exactly the rows) of its formula.
#[test]
fn formulas_match_garbling() {
    let mut rng = new_rng(Some(3), 0);
    let delta = Block::random(&mut rng).with_lsb_set();
    let mut g = ArithGarbler::new(new_rng(Some(3), 1), delta).unwrap();
    let mut random_bits = |n: usize| -> Vec<Block> { (0..n).map(|_| Block::random(&mut rng)).collect() };
    let garbled = |g: &mut ArithGarbler, f: &mut dyn FnMut(&mut ArithGarbler, &mut Vec<u8>)| {
        let (before, mut out) = (g.table_rows(), Vec::new());
        f(g, &mut out);
        TableCost {
            rows: g.table_rows() - before,
            bytes: out.len(),
        }
    };
    for p in [3u64, 5, 7, 11, 17, 251, 65_521] {
        let m = Modulus::new(p).unwrap();
        let (a, b) = (g.new_wire(m), g.new_wire(m));
        let table: Vec<u64> = (0..p).map(|x| x % 3).collect();
        for out in [Modulus::new(3).unwrap(), m] {
            let cost = garbled(&mut g, &mut |g, r| drop(g.project(&a, out, &table, r).unwrap()));
            assert_eq!(cost, projection(m, out), "{p}");
        }
        let bits: Vec<u64> = (0..p).map(|x| x & 1).collect();
        let cost = garbled(&mut g, &mut |g, r| {
            g.project_to_bit(&a, &bits, r).unwrap();
        });
        assert_eq!(cost, projection(m, Modulus::BOOLEAN), "{p}");
        let cost = garbled(&mut g, &mut |g, r| drop(g.mul(&a, &b, r).unwrap()));
        assert_eq!(cost, product(m), "{p}");
        let terms_bits = random_bits(9);
        let terms: [Term; 2] = [(&terms_bits[..4], m), (&terms_bits[4..], m)];
        let cost = garbled(&mut g, &mut |g, r| drop(g.compose_powers(&terms, r).unwrap()));
        assert_eq!(cost, compose_powers(term_sizes(&terms)), "{p}");
    }
    for bits in [1, 2, 7, 64, 65, 128] {
        let bit = random_bits(1)[0];
        let cost = garbled(&mut g, &mut |g, r| drop(g.lift(bit, bits, r).unwrap()));
        assert_eq!(cost, lift(bits), "{bits} bits");
    }
    let mut sets: Vec<PrimeSet> = [1u32, 2, 3, 5, 8, 16, 31, 64, 100]
        .iter()
        .flat_map(|&w| [min_sum_primes(w).unwrap(), first_primes(w).unwrap()])
        .collect();
    sets.extend([[3].as_slice(), &[2], &[5, 7], &[65_521]].map(|p| PrimeSet::new(p).unwrap()));
    for set in sets {
        let n: u32 = residue_bit_counts(&set).sum();
        let ot = random_bits(n as usize);
        let cost = garbled(&mut g, &mut |g, r| {
            drop(g.residues_from_bits(&ot, &set, r).unwrap())
        });
        assert_eq!(cost, residues(&set), "{:?}", set.primes());
        assert_eq!(residues(&set).bytes, residues_from_bits(&set));
    }
}
