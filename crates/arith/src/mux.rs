//! The CRT multiplexer: yes where a Boolean select bit s is 1, else no, as
//! no + BC₁(s)·(yes − no) (ABLE §2.2 builds selection from BC and a product; BMR16 §6
//! products per prime). BC of the single bit costs one row per odd prime (ABLE Fig. 3,
//! row-reduced; the mod-2 residue is s itself), the product Σ 2(p − 1) rows, the rest is free.

use mixgc_core::Block;

use crate::codec::TableReader;
use crate::{ArithError, ArithEvaluator, ArithGarbler, CrtBundle};

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
        let difference = yes.sub(no)?;
        let s = self.crt_compose(&[select], no.set(), rows)?;
        no.add(&self.mul_bundle(&s, &difference, rows)?)
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
        let difference = yes.sub(no)?;
        let s = self.crt_compose(&[select], no.set(), tables)?;
        no.add(&self.mul_bundle(&s, &difference, tables)?)
    }
}
