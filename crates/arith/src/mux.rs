//! The CRT multiplexer: yes where a Boolean select bit s is 1, else no, as
//! no + BC₁(s)·(yes − no) (ABLE §2.2 builds selection from BC and a product; BMR16 §6
//! products per prime). BC of the single bit costs one row per odd prime (ABLE Fig. 3,
//! row-reduced; the mod-2 residue is s itself), the product Σ 2(p − 1) rows, the rest is free.

use mixgc_core::Block;

use crate::codec::TableReader;
use crate::{ArithError, ArithEvaluator, ArithGarbler, CrtBundle, Label, Modulus, PrimeSet};

/// BC₁(s) wire by wire: s itself on the mod-2 wire, `lift(m)` (the one-row projection of s
/// to Z_m, value s) on each odd prime's, in the set's order — the wires and rows of a
/// one-bit [`ArithGarbler::crt_compose`].
fn select_wires(
    set: &PrimeSet,
    select: Block,
    mut lift: impl FnMut(Modulus) -> Result<Label, ArithError>,
) -> Result<Vec<Label>, ArithError> {
    let lifted = |&m: &Modulus| match m.is_boolean() {
        true => Ok(Label::from_block(select)),
        false => lift(m),
    };
    set.moduli().iter().map(lifted).collect()
}

/// no + s·(yes − no) wire by wire, the products by `mul` after all of BC₁(s)'s rows.
fn mux_wires(
    select: Vec<Label>,
    yes: &CrtBundle,
    no: &CrtBundle,
    mut mul: impl FnMut(&Label, &Label) -> Result<Label, ArithError>,
) -> Result<CrtBundle, ArithError> {
    let difference = yes.sub(no)?;
    let wires = select
        .iter()
        .zip(difference.wires())
        .zip(no.wires())
        .map(|((s, d), n)| {
            let mut out = mul(s, d)?;
            out.add_scaled_assign(n, 1);
            Ok(out)
        })
        .collect::<Result<_, ArithError>>()?;
    Ok(CrtBundle::from_wires(no.set(), wires))
}

impl ArithGarbler {
    /// The zero-labels of `yes` where the bit with Boolean zero-label `select` is 1, else of
    /// `no` (both over one prime set). Appends the rows of a one-bit [`Self::crt_compose`]
    /// and of a [`Self::mul_bundle`].
    pub fn mux_bundle(
        &mut self,
        select: Block,
        yes: &CrtBundle,
        no: &CrtBundle,
        rows: &mut Vec<u8>,
    ) -> Result<CrtBundle, ArithError> {
        if yes.set() != no.set() {
            return Err(ArithError::BundleMismatch);
        }
        let s = select_wires(no.set(), select, |m| self.project_bit(select, m, [0, 1], rows))?;
        mux_wires(s, yes, no, |a, b| self.mul(a, b, rows))
    }
}

impl ArithEvaluator {
    /// Evaluates [`ArithGarbler::mux_bundle`] on active labels.
    pub fn mux_bundle(
        &mut self,
        select: Block,
        yes: &CrtBundle,
        no: &CrtBundle,
        tables: &mut TableReader,
    ) -> Result<CrtBundle, ArithError> {
        if yes.set() != no.set() {
            return Err(ArithError::BundleMismatch);
        }
        let s = select_wires(no.set(), select, |m| self.project_bit(select, m, tables))?;
        mux_wires(s, yes, no, |a, b| self.mul(a, b, tables))
    }
}

#[cfg(test)]
mod tests {
    use mixgc_core::new_rng;

    use super::*;
    use crate::primes::{first_primes, min_sum_primes};

    /// The mux is exactly its documented construction: the rows and output labels of
    /// no + BC₁(s)·(yes − no), at the garbler and at the evaluator.
    #[test]
    fn mux_is_one_bit_compose_then_product() {
        let delta = Block::from_u128(0x1234_5678_9abc_def1);
        for set in [min_sum_primes(16).unwrap(), first_primes(9).unwrap()] {
            let garbler = || ArithGarbler::new(new_rng(Some(7), 1), delta).unwrap();
            let (mut g, mut reference) = (garbler(), garbler());
            let (yes, no) = (g.new_bundle(&set), g.new_bundle(&set));
            let _ = (reference.new_bundle(&set), reference.new_bundle(&set));
            let s0 = Block::from_u128(0x5eed);
            let (mut rows, mut expected_rows) = (Vec::new(), Vec::new());
            let out = g.mux_bundle(s0, &yes, &no, &mut rows).unwrap();
            let s = reference.crt_compose(&[s0], &set, &mut expected_rows).unwrap();
            let product = reference
                .mul_bundle(&s, &yes.sub(&no).unwrap(), &mut expected_rows)
                .unwrap();
            assert_eq!(rows, expected_rows);
            assert_eq!(out, no.add(&product).unwrap());

            // The evaluator on the labels of yes = 3, no = 5, s = 1 gets the labels of 3.
            let mut ev = ArithEvaluator::new(g.session_key());
            let (a, b) = (
                g.encode_bundle(&yes, 3).unwrap(),
                g.encode_bundle(&no, 5).unwrap(),
            );
            let s1 = s0 ^ delta;
            let got = ev.mux_bundle(s1, &a, &b, &mut TableReader::new(&rows)).unwrap();
            assert_eq!(got, g.encode_bundle(&out, 3).unwrap());
        }
    }
}
