//! The garbled-table bytes of each CRT gadget, known to both parties before it runs: the
//! evaluator of a streamed program reads exactly this many bytes for a gadget, so a
//! gadget's rows may span frames and a wrong count is an error, not a misread.
//!
//! These formulas are the one source of table sizes: the garbler reserves with them, the
//! evaluator reads by them, and [`crate::cost`] and the program cost counter count with
//! them ([`gadget`] also gives the rows as ABLE counts them). A test garbles every gadget
//! and compares.
//!
//! Products, powers, BC and the evaluator-input lifts follow from their row counts
//! (BMR16 §4–6, ABLE Fig. 3); BD is counted by running the decomposition on a side that
//! only adds up row sizes (its constant-folded reduction mod N makes a formula fragile).

use mixgc_core::Block;

use crate::codec::label_bytes;
use crate::convert;
use crate::cost::protocol::residue_bits;
use crate::cost::{Gadget, TableCost};
use crate::ring::{check_bits, row_bytes, RingLabel};
use crate::side::{Side, Term};
use crate::{ArithError, CrtBundle, Label, Modulus, PrimeSet};

/// `n` rows mod `m` (one packed label each).
pub fn rows(m: Modulus, n: u64) -> TableCost {
    TableCost {
        rows: n,
        bytes: n as usize * label_bytes(m),
    }
}

/// (p − 1) rows of each prime's modulus, times `per_prime`.
fn per_prime_rows(set: &PrimeSet, per_prime: u64) -> TableCost {
    let primes = set.moduli().iter().zip(set.primes());
    primes.map(|(&m, &p)| rows(m, per_prime * (p - 1))).sum()
}

/// One row per bit of each term ([`Side::compose_powers`]).
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

fn mul(set: &PrimeSet) -> TableCost {
    per_prime_rows(set, 2)
}

fn pow(set: &PrimeSet) -> TableCost {
    per_prime_rows(set, 1)
}

fn compose(bits: usize, set: &PrimeSet) -> TableCost {
    let odd = set.moduli().iter().filter(|m| !m.is_boolean());
    odd.map(|&m| rows(m, bits as u64)).sum()
}

fn mux(set: &PrimeSet) -> TableCost {
    compose(1, set) + mul(set)
}

fn residues(set: &PrimeSet) -> TableCost {
    let odd = set
        .moduli()
        .iter()
        .zip(set.primes())
        .filter(|(m, _)| !m.is_boolean());
    odd.map(|(&m, &p)| rows(m, u64::from(residue_bits(p)))).sum()
}

/// Counted once per set (shared by its clones), as every BD over it has the same rows.
fn decompose(set: &PrimeSet) -> Result<TableCost, ArithError> {
    set.decompose_table(|| {
        let wires = set.moduli().iter().map(|&m| Label::zero(m)).collect();
        let bundle = CrtBundle::new(set, wires)?;
        let mut side = CountSide::default();
        convert::crt_decompose(&mut side, &bundle)?;
        Ok(side.0)
    })
}

/// [`crate::ArithGarbler::mul_bundle`]: 2(p − 1) rows per prime.
pub fn mul_bundle(set: &PrimeSet) -> usize {
    mul(set).bytes
}

/// [`crate::ArithGarbler::pow_bundle`]: p − 1 rows per prime.
pub fn pow_bundle(set: &PrimeSet) -> usize {
    pow(set).bytes
}

/// [`crate::ArithGarbler::crt_compose`] of `bits` bits: one row per bit and odd prime.
pub fn crt_compose(bits: usize, set: &PrimeSet) -> usize {
    compose(bits, set).bytes
}

/// [`crate::ArithGarbler::mux_bundle`]: a one-bit BC and a product.
pub fn mux_bundle(set: &PrimeSet) -> usize {
    mux(set).bytes
}

/// [`crate::ArithGarbler::residues_from_bits`]: one row per bit of each odd residue.
pub fn residues_from_bits(set: &PrimeSet) -> usize {
    residues(set).bytes
}

/// [`crate::ArithGarbler::crt_decompose`] over `set`; fails where the decomposition does.
pub fn crt_decompose(set: &PrimeSet) -> Result<usize, ArithError> {
    decompose(set).map(|t| t.bytes)
}

/// The table of `gadget` over `set`, rows and bytes; fails where the garbler would (a
/// composition of no bits, a decomposition whose CRT sum exceeds 128 bits).
pub fn gadget(gadget: Gadget, set: &PrimeSet) -> Result<TableCost, ArithError> {
    Ok(match gadget {
        Gadget::Mul => mul(set),
        Gadget::Pow(_) => pow(set),
        Gadget::Mux => mux(set),
        Gadget::Compose { bits } => {
            convert::check_compose_bits(bits as usize)?;
            compose(bits as usize, set)
        }
        Gadget::Decompose => decompose(set)?,
    })
}

/// A conversion side that garbles nothing: each primitive adds its table, as the garbler's
/// side would emit it, and returns all-zero labels.
#[derive(Default)]
struct CountSide(TableCost);

impl Side for CountSide {
    fn lift(&mut self, bit: Block, bits: u32) -> Result<RingLabel, ArithError> {
        if bits == 1 {
            return Ok(RingLabel::from_block(bit));
        }
        check_bits(bits)?;
        // A ring row mod 2^k counts k rows.
        self.0 += TableCost {
            rows: u64::from(bits - 1),
            bytes: row_bytes(bits - 1),
        };
        Ok(RingLabel::zero(bits))
    }

    fn project_to_bit(&mut self, _wire: &Label, table: &[u64]) -> Result<Block, ArithError> {
        self.0 += rows(Modulus::BOOLEAN, table.len() as u64 - 1);
        Ok(Block::ZERO)
    }

    fn compose_powers(&mut self, terms: &[Term]) -> Result<Vec<Label>, ArithError> {
        self.0 += compose_powers(terms);
        Ok(terms.iter().map(|&(_, out)| Label::zero(out)).collect())
    }

    fn and(&mut self, _a: Block, _b: Block) -> Result<Block, ArithError> {
        self.0 += and();
        Ok(Block::ZERO)
    }

    fn not(&mut self, a: Block) -> Block {
        a
    }
}

#[cfg(test)]
mod tests {
    use mixgc_core::new_rng;

    use super::*;
    use crate::primes::{first_primes, min_sum_primes};
    use crate::ArithGarbler;

    /// Every gadget garbled for real, over sets of many widths and shapes, emits exactly
    /// the bytes (and counts exactly the rows) of its formula.
    #[test]
    fn formulas_match_garbling() {
        let mut rng = new_rng(Some(3), 0);
        let delta = Block::random(&mut rng).with_lsb_set();
        let mut g = ArithGarbler::new(new_rng(Some(3), 1), delta).unwrap();
        let mut sets: Vec<PrimeSet> = [1u32, 2, 3, 5, 8, 16, 31, 64, 100]
            .iter()
            .flat_map(|&w| [min_sum_primes(w).unwrap(), first_primes(w).unwrap()])
            .collect();
        sets.extend([[3].as_slice(), &[2], &[5, 7], &[65_521]].map(|p| PrimeSet::new(p).unwrap()));
        let mut random_bits = |n: usize| -> Vec<Block> { (0..n).map(|_| Block::random(&mut rng)).collect() };
        let garbled = |g: &mut ArithGarbler, f: &mut dyn FnMut(&mut ArithGarbler, &mut Vec<u8>)| {
            let (before, mut out) = (g.table_rows(), Vec::new());
            f(g, &mut out);
            TableCost {
                rows: g.table_rows() - before,
                bytes: out.len(),
            }
        };
        let and_bits = random_bits(2);
        assert_eq!(
            garbled(&mut g, &mut |g, r| {
                g.and_blocks(and_bits[0], and_bits[1], r);
            }),
            and()
        );
        for set in sets {
            let p = set.primes();
            let a = g.new_bundle(&set);
            let b = g.new_bundle(&set);
            let of = |gadget| super::gadget(gadget, &set).unwrap();
            assert_eq!(
                garbled(&mut g, &mut |g, r| drop(g.mul_bundle(&a, &b, r).unwrap())),
                of(Gadget::Mul),
                "{p:?}"
            );
            assert_eq!(of(Gadget::Mul).bytes, mul_bundle(&set));
            assert_eq!(
                garbled(&mut g, &mut |g, r| drop(g.pow_bundle(&a, 3, r).unwrap())),
                of(Gadget::Pow(3)),
                "{p:?}"
            );
            assert_eq!(of(Gadget::Pow(3)).bytes, pow_bundle(&set));
            for width in [1, 7, 64] {
                let bits = random_bits(width);
                assert_eq!(
                    garbled(&mut g, &mut |g, r| drop(g.crt_compose(&bits, &set, r).unwrap())),
                    of(Gadget::Compose { bits: width as u32 }),
                    "{p:?}, {width} bits"
                );
                assert_eq!(
                    of(Gadget::Compose { bits: width as u32 }).bytes,
                    crt_compose(width, &set)
                );
            }
            let select = random_bits(1)[0];
            assert_eq!(
                garbled(&mut g, &mut |g, r| drop(g.mux_bundle(select, &a, &b, r).unwrap())),
                of(Gadget::Mux),
                "{p:?}"
            );
            assert_eq!(of(Gadget::Mux).bytes, mux_bundle(&set));
            let n: u32 = crate::inputs::residue_bit_counts(&set).sum();
            let ot = random_bits(n as usize);
            assert_eq!(
                garbled(&mut g, &mut |g, r| drop(
                    g.residues_from_bits(&ot, &set, r).unwrap()
                )),
                residues(&set),
                "{p:?}"
            );
            assert_eq!(residues(&set).bytes, residues_from_bits(&set));
            if set.product() < 1 << 120 {
                assert_eq!(
                    garbled(&mut g, &mut |g, r| drop(g.crt_decompose(&a, r).unwrap())),
                    of(Gadget::Decompose),
                    "{p:?}"
                );
                assert_eq!(of(Gadget::Decompose).bytes, crt_decompose(&set).unwrap());
            }
        }
        // Where BD or BC fails, its count fails alike.
        let wide = first_primes(127).unwrap();
        let bundle = g.new_bundle(&wide);
        assert_eq!(
            g.crt_decompose(&bundle, &mut Vec::new()).map(drop),
            gadget(Gadget::Decompose, &wide).map(drop)
        );
        let set = first_primes(8).unwrap();
        assert_eq!(
            g.crt_compose(&[], &set, &mut Vec::new()).map(drop),
            gadget(Gadget::Compose { bits: 0 }, &set).map(drop)
        );
    }
}
