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
