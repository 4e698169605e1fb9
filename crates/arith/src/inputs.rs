//! Bundles entering a two-party computation, sans-IO (the session moves the bytes):
//!
//! - a garbler-owned value: the active label of each residue, packed as table rows
//!   ([`ArithGarbler::bundle_input_bytes`], read back by [`ArithEvaluator::read_bundle`]);
//! - an evaluator-owned value: the bits of each residue x_i mod p_i (bitlen(p_i − 1) of
//!   them) get Boolean labels by correlated OT under the Boolean Δ; each bit b_j is lifted to
//!   Z_p by a one-row projection b ↦ 2^j·b and the lifts are summed (the CRT bit
//!   composition of ABLE Fig. 3 applied per residue, [`ArithGarbler::residues_from_bits`]);
//!   a mod-2 residue is its OT label itself;
//! - a public constant: free. The evaluator's label is the all-zero label and the garbler's
//!   zero-label is −c·Δ_p, so the pair encodes c without a message; the evaluator learns
//!   nothing it did not know (the active label of a public value), and every inactive label
//!   still hides Δ_p.

use mixgc_core::Block;

use crate::codec::{write_label, TableReader};
use crate::composition::Term;
use crate::cost::protocol::residue_bits;
use crate::{ArithError, ArithEvaluator, ArithGarbler, CrtBundle, Label, PrimeSet};

/// The number of bits of each residue an evaluator-owned input sends through OT:
/// bitlen(p − 1) per prime, in the set's order.
pub fn residue_bit_counts(set: &PrimeSet) -> impl Iterator<Item = u32> + '_ {
    set.primes().iter().map(|&p| residue_bits(p))
}

/// The OT choice bits of x ∈ Z_N: each residue's bits, least significant first, residues in
/// the set's order.
pub fn residue_choice_bits(set: &PrimeSet, x: u128) -> Result<Vec<bool>, ArithError> {
    let residues = set.encode(x)?;
    Ok(residues
        .iter()
        .zip(residue_bit_counts(set))
        .flat_map(|(&r, bits)| (0..bits).map(move |j| r >> j & 1 == 1))
        .collect())
}

/// Checks that `bits` holds as many labels as the residues of `set` have bits.
fn check_residue_bits(set: &PrimeSet, bits: &[Block]) -> Result<(), ArithError> {
    let expected: u32 = residue_bit_counts(set).sum();
    if bits.len() != expected as usize {
        return Err(ArithError::Conversion(format!(
            "{} residue bit labels for a set that needs {expected}",
            bits.len()
        )));
    }
    Ok(())
}

/// Splits `bits` into each residue's bits, in the set's order (`bits` holds
/// [`residue_bit_counts`] of them, checked by [`check_residue_bits`]).
fn bits_by_residue<'a>(set: &PrimeSet, bits: &'a [Block]) -> Vec<&'a [Block]> {
    let mut rest = bits;
    residue_bit_counts(set)
        .map(|n| {
            let (mine, tail) = rest.split_at(n as usize);
            rest = tail;
            mine
        })
        .collect()
}

/// The bundle over `set` whose residue mod p_i is Σ_j 2^j·b_j from the Boolean labels
/// `bits` of its bits ([`residue_choice_bits`] order): the compositions of all odd primes in
/// one `compose` (so they share AES batches); a mod-2 residue is the label of its bit.
fn compose_residues(
    set: &PrimeSet,
    bits: &[Block],
    compose: impl FnOnce(&[Term]) -> Result<Vec<Label>, ArithError>,
) -> Result<CrtBundle, ArithError> {
    check_residue_bits(set, bits)?;
    let residue_bits = bits_by_residue(set, bits);
    let residues = || set.moduli().iter().zip(&residue_bits);
    let terms: Vec<Term> = residues()
        .filter(|(m, _)| !m.is_boolean())
        .map(|(&m, &bits)| (bits, m))
        .collect();
    let mut composed = compose(&terms)?.into_iter();
    let wires = residues().map(|(m, bits)| match m.is_boolean() {
        true => Label::from_block(bits[0]),
        false => composed.next().expect("one composition per odd prime"),
    });
    CrtBundle::new(set, wires.collect())
}

impl ArithGarbler {
    /// The packed active labels of x on the bundle with zero-labels `zero` (what a garbler
    /// sends for its own input): one table row per residue.
    pub fn bundle_input_bytes(&mut self, zero: &CrtBundle, x: u128) -> Result<Vec<u8>, ArithError> {
        let active = self.encode_bundle(zero, x)?;
        let mut bytes = Vec::new();
        active.wires().iter().for_each(|w| write_label(w, &mut bytes));
        Ok(bytes)
    }

    /// The bundle of an evaluator-owned value from the Boolean zero-labels of its residue
    /// bits ([`residue_choice_bits`] order, obtained by correlated OT): one row per bit of
    /// each odd residue.
    pub fn residues_from_bits(
        &mut self,
        bits: &[Block],
        set: &PrimeSet,
        rows: &mut Vec<u8>,
    ) -> Result<CrtBundle, ArithError> {
        compose_residues(set, bits, |terms| self.compose_powers(terms, rows))
    }

    /// The zero-labels of the public constant c mod N: −c_i·Δ_{p_i} per residue, so that
    /// the evaluator's label is all zeros ([`ArithEvaluator::constant_bundle`]).
    pub fn constant_bundle(&mut self, set: &PrimeSet, c: u128) -> CrtBundle {
        let wires = set
            .moduli()
            .iter()
            .map(|&m| {
                let residue = m.reduce(c);
                self.delta(m).scale(m.neg(residue))
            })
            .collect();
        CrtBundle::new(set, wires).expect("one label per modulus of the set")
    }
}

impl ArithEvaluator {
    /// The garbler's input labels over `set`, from its [`ArithGarbler::bundle_input_bytes`];
    /// malformed or wrongly sized bytes are errors.
    pub fn read_bundle(set: &PrimeSet, bytes: &[u8]) -> Result<CrtBundle, ArithError> {
        let mut reader = TableReader::new(bytes);
        let wires = set
            .moduli()
            .iter()
            .map(|&m| reader.next_label(m))
            .collect::<Result<_, _>>()?;
        reader.finish()?;
        CrtBundle::new(set, wires)
    }

    /// Evaluates [`ArithGarbler::residues_from_bits`] on the OT'd active bit labels.
    pub fn residues_from_bits(
        &mut self,
        bits: &[Block],
        set: &PrimeSet,
        tables: &mut TableReader,
    ) -> Result<CrtBundle, ArithError> {
        compose_residues(set, bits, |terms| self.compose_powers(terms, tables))
    }

    /// The evaluator's labels of a public constant: all zeros ([`ArithGarbler::constant_bundle`]).
    pub fn constant_bundle(set: &PrimeSet) -> CrtBundle {
        let wires = set.moduli().iter().map(|&m| Label::zero(m)).collect();
        CrtBundle::new(set, wires).expect("one label per modulus of the set")
    }
}

#[cfg(test)]
mod tests {
    use mixgc_core::new_rng;

    use super::*;
    use crate::primes::min_sum_primes;

    /// Garbler inputs, evaluator inputs (with simulated correlated OT) and constants decode
    /// to their values; malformed input bytes are errors.
    #[test]
    fn inputs_and_constants_decode() {
        let mut rng = new_rng(Some(8), 0);
        let delta = Block::random(&mut rng).with_lsb_set();
        let mut g = ArithGarbler::new(new_rng(Some(8), 1), delta).unwrap();
        let mut e = ArithEvaluator::new(g.session_key());
        for width in [3, 8, 17, 40, 64] {
            let set = min_sum_primes(width).unwrap();
            let n = set.product();
            let (x, y, c) = (n - 1 - width as u128, n / 3, (n / 2 + 5) % n);
            let decode = |zero: &CrtBundle, active: &CrtBundle| {
                ArithEvaluator::decode_bundle(active, &ArithGarbler::bundle_decoding(zero)).unwrap()
            };

            let zx = g.new_bundle(&set);
            let bytes = g.bundle_input_bytes(&zx, x).unwrap();
            let ax = ArithEvaluator::read_bundle(&set, &bytes).unwrap();
            assert_eq!(decode(&zx, &ax), x);
            assert!(ArithEvaluator::read_bundle(&set, &bytes[1..]).is_err());

            let choices = residue_choice_bits(&set, y).unwrap();
            let zero_bits: Vec<Block> = choices.iter().map(|_| Block::random(&mut rng)).collect();
            let active_bits: Vec<Block> = zero_bits
                .iter()
                .zip(&choices)
                .map(|(&z, &b)| if b { z ^ delta } else { z })
                .collect();
            let mut rows = Vec::new();
            let zy = g.residues_from_bits(&zero_bits, &set, &mut rows).unwrap();
            let mut reader = TableReader::new(&rows);
            let ay = e.residues_from_bits(&active_bits, &set, &mut reader).unwrap();
            reader.finish().unwrap();
            assert_eq!(decode(&zy, &ay), y);

            let zc = g.constant_bundle(&set, c);
            let ac = ArithEvaluator::constant_bundle(&set);
            assert_eq!(decode(&zc, &ac), c);
            assert_eq!(decode(&zc.add(&zx).unwrap(), &ac.add(&ax).unwrap()), (c + x) % n);
        }
    }
}
