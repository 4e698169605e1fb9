//! A clipped dot product, the planner's example of ABLE §5.2's three realizations: each
//! party holds `n` signed values; each value is clipped to [−c, c] (comparisons: Boolean
//! only), then Σ clip(x_i)·clip(y_i) is revealed (products and sums: common to Boolean and
//! arithmetic garbling).
//!
//! - **pure Boolean**: everything on w-bit two's-complement integers;
//! - **Boolean + BC + arithmetic**: clip in Boolean, compose each clipped value into a CRT
//!   value (BC), multiply and add in Z_N;
//! - **arithmetic + BD + Boolean**: inputs as CRT values, decomposed (BD) to Boolean, then
//!   everything in Boolean.
//!
//! Arithmetic wraps modulo the realization's modulus M (2^w or N ≥ 2^w), and signed values
//! read as in [`crate::lenet`]; [`reference`] computes exactly that in the clear. With
//! c² · n < 2^(w−1) nothing wraps and all realizations agree with integer arithmetic.

use crate::crt::{residue_to_signed, ArithBackend, Crt, PrimeSet};
use crate::value::{to_i128, Ctx, SInt};
use crate::{PartyId, ProgramError};

/// Where the dot product runs (ABLE §5.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Realization {
    PureBoolean,
    BooleanBcArithmetic,
    ArithmeticBdBoolean,
}

impl Realization {
    pub const ALL: [Realization; 3] = [
        Realization::PureBoolean,
        Realization::BooleanBcArithmetic,
        Realization::ArithmeticBdBoolean,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Realization::PureBoolean => "pure-boolean",
            Realization::BooleanBcArithmetic => "boolean+bc+arithmetic",
            Realization::ArithmeticBdBoolean => "arithmetic+bd+boolean",
        }
    }
}

/// The problem: `n` values per party of `width` bits, clipped to [−clip, clip]; CRT
/// values over `set`.
#[derive(Clone, Debug)]
pub struct ClipDot {
    pub n: usize,
    pub width: u32,
    pub clip: i64,
    pub set: PrimeSet,
}

impl ClipDot {
    /// The largest clip bound with clip² · n < 2^(width−1) (at least 1).
    pub fn safe_clip(n: usize, width: u32) -> i64 {
        let limit = ((1u128 << (width - 1)) - 1) / n.max(1) as u128;
        (limit as f64).sqrt().floor().max(1.0) as i64
    }

    fn modulus(&self, r: Realization) -> u128 {
        match r {
            Realization::BooleanBcArithmetic => self.set.product(),
            _ => 1 << self.width,
        }
    }
}

/// The value revealed, computed in the clear modulo the realization's modulus.
pub fn reference(p: &ClipDot, r: Realization, x: &[i64], y: &[i64]) -> i128 {
    let m = p.modulus(r) as i128;
    let clip = |v: i64| i128::from(v.clamp(-p.clip, p.clip));
    let sum = x
        .iter()
        .zip(y)
        .fold(0i128, |acc, (&a, &b)| (acc + clip(a) * clip(b)).rem_euclid(m));
    residue_to_signed(m as u128, sum as u128)
}

/// Each party's values as its backend holds them after the input phase.
pub enum DotInputs<B: ArithBackend> {
    Boolean(Vec<SInt<B>>, Vec<SInt<B>>),
    Crt(Vec<Crt<B>>, Vec<Crt<B>>),
}

/// Declares the inputs: `x` is the garbler's, `y` the evaluator's (each party passes its
/// own, `n` values of `width` signed bits).
pub fn inputs<B: ArithBackend>(
    ctx: &Ctx<B>,
    p: &ClipDot,
    r: Realization,
    x: Option<&[i64]>,
    y: Option<&[i64]>,
) -> Result<DotInputs<B>, ProgramError> {
    for (owner, v) in [(PartyId::GARBLER, x), (PartyId::EVALUATOR, y)] {
        if let Some(v) = v.filter(|v| v.len() != p.n) {
            return Err(ProgramError::OutOfRange(format!(
                "the {owner} supplies {} values, the dot product needs {}",
                v.len(),
                p.n
            )));
        }
    }
    let value = |v: Option<&[i64]>, i: usize| v.map(|v| i128::from(v[i]));
    Ok(if r == Realization::ArithmeticBdBoolean {
        let input = |owner, v| {
            (0..p.n)
                .map(|i| ctx.input_crt_signed(owner, &p.set, value(v, i)))
                .collect::<Result<Vec<_>, _>>()
        };
        DotInputs::Crt(input(PartyId::GARBLER, x)?, input(PartyId::EVALUATOR, y)?)
    } else {
        let input = |owner, v| {
            (0..p.n)
                .map(|i| ctx.input_sint(owner, p.width, value(v, i)))
                .collect::<Result<Vec<_>, _>>()
        };
        DotInputs::Boolean(input(PartyId::GARBLER, x)?, input(PartyId::EVALUATOR, y)?)
    })
}

/// Clips, multiplies, adds, reveals; the value where this party learns it.
pub fn compute<B: ArithBackend>(
    ctx: &Ctx<B>,
    p: &ClipDot,
    r: Realization,
    inputs: &DotInputs<B>,
) -> Result<Option<i128>, ProgramError> {
    let clip = |v: &SInt<B>| {
        let (low, high) = (
            ctx.sint(p.width, -i128::from(p.clip)),
            ctx.sint(p.width, p.clip.into()),
        );
        let v = v.less_than(&low).select(&low, v);
        high.less_than(&v).select(&high, &v)
    };
    let boolean_dot = |x: &[SInt<B>], y: &[SInt<B>]| -> Result<Option<i128>, ProgramError> {
        let sum = x
            .iter()
            .zip(y)
            .map(|(a, b)| &clip(a) * &clip(b))
            .reduce(|a, b| &a + &b)
            .unwrap_or_else(|| ctx.sint(p.width, 0));
        Ok(sum.reveal()?.map(|bits| to_i128(&bits)))
    };
    match (r, inputs) {
        (Realization::PureBoolean, DotInputs::Boolean(x, y)) => boolean_dot(x, y),
        (Realization::BooleanBcArithmetic, DotInputs::Boolean(x, y)) => {
            let compose = |v: &SInt<B>| from_sint(&clip(v), &p.set);
            x.iter()
                .zip(y)
                .map(|(a, b)| &compose(a) * &compose(b))
                .reduce(|a, b| &a + &b)
                .unwrap_or_else(|| ctx.crt_constant(&p.set, 0))
                .reveal_signed()
        }
        (Realization::ArithmeticBdBoolean, DotInputs::Crt(x, y)) => {
            let decompose =
                |v: &[Crt<B>]| -> Vec<SInt<B>> { v.iter().map(|c| c.to_sint().resize(p.width)).collect() };
            boolean_dot(&decompose(x), &decompose(y))
        }
        _ => Err(ProgramError::OutOfRange(
            "inputs declared for another realization".into(),
        )),
    }
}

/// Signed bit composition: the CRT value of a two's-complement x (w bits): the unsigned
/// composition of its bits minus 2^w where the sign bit is set (BC of w + 1 bits).
fn from_sint<B: ArithBackend>(x: &SInt<B>, set: &PrimeSet) -> Crt<B> {
    let unsigned = Crt::from_uint(&x.as_unsigned(), set);
    let w = x.width();
    let sign = (&x.as_unsigned() >> (w - 1)).resize(1);
    let n = set.product();
    let wrap = (1u128 << w) % n;
    &unsigned - &Crt::from_uint(&sign, set).scale(wrap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_clip_keeps_sums_in_range() {
        for (n, w) in [(1, 8), (10, 16), (1000, 32)] {
            let c = ClipDot::safe_clip(n, w) as u128;
            assert!(c * c * (n as u128) < 1 << (w - 1), "{n} {w}");
        }
    }
}
