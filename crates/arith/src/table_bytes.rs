//! The garbled-table bytes of each CRT gadget, known to both parties before it runs: the
//! evaluator of a streamed program reads exactly this many bytes for a gadget, so a
//! gadget's rows may span frames and a wrong count is an error, not a misread.
//!
//! Products, powers, BC and the evaluator-input lifts follow from their row counts
//! (BMR16 §4–6, ABLE Fig. 3); BD is counted by running the decomposition on a side that
//! only adds up row sizes (its constant-folded reduction mod N makes a formula fragile).

use mixgc_core::Block;

use crate::codec::label_bytes;
use crate::convert;
use crate::cost::protocol::residue_bits;
use crate::ring::{check_bits, row_bytes, RingLabel};
use crate::side::{Side, Term};
use crate::{ArithError, CrtBundle, Label, Modulus, PrimeSet};

/// Bytes of `rows` rows mod `m`.
fn rows(m: Modulus, rows: u64) -> usize {
    rows as usize * label_bytes(m)
}

/// (p − 1) rows of each prime's modulus, times `per_prime`.
fn per_prime_rows(set: &PrimeSet, per_prime: u64) -> usize {
    set.moduli()
        .iter()
        .zip(set.primes())
        .map(|(&m, &p)| rows(m, per_prime * (p - 1)))
        .sum()
}

/// [`crate::ArithGarbler::mul_bundle`]: 2(p − 1) rows per prime.
pub fn mul_bundle(set: &PrimeSet) -> usize {
    per_prime_rows(set, 2)
}

/// [`crate::ArithGarbler::pow_bundle`]: p − 1 rows per prime.
pub fn pow_bundle(set: &PrimeSet) -> usize {
    per_prime_rows(set, 1)
}

/// [`crate::ArithGarbler::crt_compose`] of `bits` bits: one row per bit and odd prime.
pub fn crt_compose(bits: usize, set: &PrimeSet) -> usize {
    let odd = set.moduli().iter().filter(|m| !m.is_boolean());
    odd.map(|&m| rows(m, bits as u64)).sum()
}

/// [`crate::ArithGarbler::mux_bundle`]: a one-bit BC and a product.
pub fn mux_bundle(set: &PrimeSet) -> usize {
    crt_compose(1, set) + mul_bundle(set)
}

/// [`crate::ArithGarbler::residues_from_bits`]: one row per bit of each odd residue.
pub fn residues_from_bits(set: &PrimeSet) -> usize {
    let odd = set
        .moduli()
        .iter()
        .zip(set.primes())
        .filter(|(m, _)| !m.is_boolean());
    odd.map(|(&m, &p)| rows(m, u64::from(residue_bits(p)))).sum()
}

/// [`crate::ArithGarbler::crt_decompose`] over `set`; fails where the decomposition does.
/// Counted once per set (shared by its clones), as every BD over it has the same rows.
pub fn crt_decompose(set: &PrimeSet) -> Result<usize, ArithError> {
    set.decompose_bytes(|| {
        let wires = set.moduli().iter().map(|&m| Label::zero(m)).collect();
        let bundle = CrtBundle::new(set, wires)?;
        let mut side = CountSide { bytes: 0 };
        convert::crt_decompose(&mut side, &bundle)?;
        Ok(side.bytes)
    })
}

/// A conversion side that garbles nothing: each primitive adds its table bytes, as the
/// garbler's side would emit them, and returns all-zero labels.
struct CountSide {
    bytes: usize,
}

impl Side for CountSide {
    fn lift(&mut self, bit: Block, bits: u32) -> Result<RingLabel, ArithError> {
        if bits == 1 {
            return Ok(RingLabel::from_block(bit));
        }
        check_bits(bits)?;
        self.bytes += row_bytes(bits - 1);
        Ok(RingLabel::zero(bits))
    }

    fn project_to_bit(&mut self, _wire: &Label, table: &[u64]) -> Result<Block, ArithError> {
        self.bytes += rows(Modulus::BOOLEAN, table.len() as u64 - 1);
        Ok(Block::ZERO)
    }

    fn compose_powers(&mut self, terms: &[Term]) -> Result<Vec<Label>, ArithError> {
        self.bytes += terms
            .iter()
            .map(|&(bits, out)| rows(out, bits.len() as u64))
            .sum::<usize>();
        Ok(terms.iter().map(|&(_, out)| Label::zero(out)).collect())
    }

    fn and(&mut self, _a: Block, _b: Block) -> Result<Block, ArithError> {
        self.bytes += rows(Modulus::BOOLEAN, 2);
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

    /// Every count equals the bytes the garbler actually emits.
    #[test]
    fn counts_match_garbling() {
        let mut rng = new_rng(Some(3), 0);
        let delta = Block::random(&mut rng).with_lsb_set();
        let mut g = ArithGarbler::new(new_rng(Some(3), 1), delta).unwrap();
        let mut sets: Vec<PrimeSet> = [1u32, 2, 3, 5, 8, 16, 31, 64, 100]
            .iter()
            .flat_map(|&w| [min_sum_primes(w).unwrap(), first_primes(w).unwrap()])
            .collect();
        sets.extend([[3].as_slice(), &[2], &[5, 7], &[65_521]].map(|p| PrimeSet::new(p).unwrap()));
        for set in sets {
            let a = g.new_bundle(&set);
            let b = g.new_bundle(&set);
            let bits: Vec<Block> = (0..7).map(|_| Block::random(&mut rng)).collect();
            let mut measure = |f: &mut dyn FnMut(&mut ArithGarbler, &mut Vec<u8>)| {
                let mut out = Vec::new();
                f(&mut g, &mut out);
                out.len()
            };
            let p = set.primes();
            assert_eq!(
                measure(&mut |g, r| drop(g.mul_bundle(&a, &b, r).unwrap())),
                mul_bundle(&set),
                "{p:?}"
            );
            assert_eq!(
                measure(&mut |g, r| drop(g.pow_bundle(&a, 3, r).unwrap())),
                pow_bundle(&set),
                "{p:?}"
            );
            assert_eq!(
                measure(&mut |g, r| drop(g.crt_compose(&bits, &set, r).unwrap())),
                crt_compose(7, &set)
            );
            assert_eq!(
                measure(&mut |g, r| drop(g.mux_bundle(bits[0], &a, &b, r).unwrap())),
                mux_bundle(&set)
            );
            let n: u32 = crate::inputs::residue_bit_counts(&set).sum();
            let ot: Vec<Block> = (0..n).map(|_| Block::random(&mut rng)).collect();
            assert_eq!(
                measure(&mut |g, r| drop(g.residues_from_bits(&ot, &set, r).unwrap())),
                residues_from_bits(&set)
            );
            if set.product() < 1 << 120 {
                assert_eq!(
                    measure(&mut |g, r| drop(g.crt_decompose(&a, r).unwrap())),
                    crt_decompose(&set).unwrap(),
                    "{p:?}"
                );
            }
        }
        // Where BD fails, its count fails alike.
        let wide = first_primes(127).unwrap();
        let bundle = g.new_bundle(&wide);
        assert_eq!(
            g.crt_decompose(&bundle, &mut Vec::new()).map(drop),
            crt_decompose(&wide).map(drop)
        );
    }
}
