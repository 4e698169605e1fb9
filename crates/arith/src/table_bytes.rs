//! The garbled-table bytes of each primitive gadget, known to both parties before it runs:
//! the evaluator of a streamed program reads exactly this many bytes for a primitive, so
//! its rows may span frames and a wrong count is an error, not a misread.
//!
//! These formulas are the one source of table sizes: the garbler reserves with them, the
//! evaluator reads by them, and the program cost counter counts with them (a composite
//! gadget's table, such as BD's, is its primitives' run on the counter). A test garbles
//! every primitive and compares.

use crate::codec::label_bytes;
use crate::composition::Term;
use crate::cost::protocol::residue_bits;
use crate::cost::TableCost;
use crate::ring::row_bytes;
use crate::{Modulus, PrimeSet};

/// `n` rows mod `m` (one packed label each).
pub fn rows(m: Modulus, n: u64) -> TableCost {
    TableCost {
        rows: n,
        bytes: n as usize * label_bytes(m),
    }
}

/// One row per bit of each term ([`crate::ArithGarbler::compose_powers`]).
pub fn compose_powers(terms: &[Term]) -> TableCost {
    terms
        .iter()
        .map(|&(bits, out)| rows(out, bits.len() as u64))
        .sum()
}

/// A projection of a wire mod p (`input`) to Z_`out`: p − 1 rows mod `out`
/// ([`crate::ArithGarbler::project`]).
pub fn projection(input: Modulus, out: Modulus) -> TableCost {
    rows(out, input.value() as u64 - 1)
}

/// A product of two wires mod p: 2(p − 1) rows mod p ([`crate::ArithGarbler::mul`]).
pub fn product(m: Modulus) -> TableCost {
    rows(m, 2 * (m.value() as u64 - 1))
}

/// A lift of a Boolean wire to Z_{2^`bits`}: one ring row of `bits` − 1 bits per digit,
/// counted as `bits` − 1 rows ([`crate::ArithGarbler::lift`]).
pub fn lift(bits: u32) -> TableCost {
    match bits {
        0 | 1 => TableCost::default(),
        _ => TableCost {
            rows: u64::from(bits - 1),
            bytes: row_bytes(bits - 1),
        },
    }
}

/// One Boolean AND: two rows mod 2 (the half-gates T_G and T_E, and the mod-2 product
/// inside a conversion alike).
pub fn and() -> TableCost {
    rows(Modulus::BOOLEAN, 2)
}

fn residues(set: &PrimeSet) -> TableCost {
    let odd = set
        .moduli()
        .iter()
        .zip(set.primes())
        .filter(|(m, _)| !m.is_boolean());
    odd.map(|(&m, &p)| rows(m, u64::from(residue_bits(p)))).sum()
}

/// [`crate::ArithGarbler::residues_from_bits`]: one row per bit of each odd residue.
pub fn residues_from_bits(set: &PrimeSet) -> usize {
    residues(set).bytes
}

#[cfg(test)]
mod tests {
    use mixgc_core::{new_rng, Block};

    use super::*;
    use crate::primes::{first_primes, min_sum_primes};
    use crate::ArithGarbler;

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
            assert_eq!(cost, compose_powers(&terms), "{p}");
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
            let n: u32 = crate::inputs::residue_bit_counts(&set).sum();
            let ot = random_bits(n as usize);
            let cost = garbled(&mut g, &mut |g, r| {
                drop(g.residues_from_bits(&ot, &set, r).unwrap())
            });
            assert_eq!(cost, residues(&set), "{:?}", set.primes());
            assert_eq!(residues(&set).bytes, residues_from_bits(&set));
        }
    }
}
