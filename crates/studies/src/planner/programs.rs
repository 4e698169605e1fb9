//! The mixed programs of ABLE's §5.2 and §6 (`mixgc_program::clipdot`, `lenet`) as
//! [`Phased`] programs with both parties' inputs: what `mixgc plan` and `mixgc lenet` run,
//! and what the session tests count against the wire.

use mixgc_program::clipdot::{self, ClipDot};
use mixgc_program::lenet::{self, ConvLayer, Realization};
use mixgc_program::{ArithBackend, Ctx, ProgramError};

use super::Phased;

/// The plaintext layer's outputs for `r`: modulo 2^w in Boolean, N in CRT.
pub fn lenet_expected(layer: &ConvLayer, r: Realization, image: &[i64], filters: &[i64]) -> Vec<i128> {
    let modulus = if r.is_arithmetic() {
        layer.set.product()
    } else {
        1u128 << layer.width
    };
    lenet::reference(&layer.shape, r, modulus, image, filters)
}

/// One realization of the layer with both parties' inputs, as a [`Phased`] program.
pub struct LenetRun<'a> {
    pub layer: &'a ConvLayer,
    pub realization: Realization,
    pub image: &'a [i64],
    pub filters: &'a [i64],
}

impl Phased for LenetRun<'_> {
    type Inputs<B: ArithBackend> = lenet::LayerInputs<B>;

    fn name(&self) -> String {
        format!("lenet/{}/{}", self.realization.name(), self.layer.width)
    }

    fn inputs<B: ArithBackend>(
        &self,
        ctx: &Ctx<B>,
        garbler: bool,
        evaluator: bool,
    ) -> Result<Self::Inputs<B>, ProgramError> {
        let image = evaluator.then_some(self.image);
        let filters = garbler.then_some(self.filters);
        lenet::inputs(ctx, self.layer, self.realization, image, filters)
    }

    fn compute<B: ArithBackend>(
        &self,
        ctx: &Ctx<B>,
        inputs: &Self::Inputs<B>,
    ) -> Result<Vec<Option<i128>>, ProgramError> {
        lenet::compute(ctx, self.layer, self.realization, inputs)
    }

    fn expected(&self) -> Vec<i128> {
        lenet_expected(self.layer, self.realization, self.image, self.filters)
    }

    fn messages(&self) -> usize {
        // An output is one or two flushes; table frames are ≥ 64 KiB.
        self.layer.shape.outputs() * 4 + (1 << 16)
    }
}

/// The clipped dot product with both parties' inputs.
pub struct ClipRun<'a> {
    pub problem: &'a ClipDot,
    pub realization: clipdot::Realization,
    pub x: &'a [i64],
    pub y: &'a [i64],
}

impl Phased for ClipRun<'_> {
    type Inputs<B: ArithBackend> = clipdot::DotInputs<B>;

    fn name(&self) -> String {
        format!("clipdot/{}/{}", self.realization.name(), self.problem.width)
    }

    fn inputs<B: ArithBackend>(
        &self,
        ctx: &Ctx<B>,
        garbler: bool,
        evaluator: bool,
    ) -> Result<Self::Inputs<B>, ProgramError> {
        let x = garbler.then_some(self.x);
        let y = evaluator.then_some(self.y);
        clipdot::inputs(ctx, self.problem, self.realization, x, y)
    }

    fn compute<B: ArithBackend>(
        &self,
        ctx: &Ctx<B>,
        inputs: &Self::Inputs<B>,
    ) -> Result<Vec<Option<i128>>, ProgramError> {
        Ok(vec![clipdot::compute(
            ctx,
            self.problem,
            self.realization,
            inputs,
        )?])
    }

    fn expected(&self) -> Vec<i128> {
        vec![clipdot::reference(self.problem, self.realization, self.x, self.y)]
    }

    fn messages(&self) -> usize {
        1 << 14
    }
}
