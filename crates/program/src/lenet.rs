//! The convolution layer of ABLE's machine-learning case study (§6, Table 2): a LeNet
//! Conv2D layer (28×28×1 input, 32 filters of 3×3, stride 1, no padding → 26×26×32
//! outputs), each output followed by a ReLU, in ABLE's four garbled realizations:
//!
//! - **pure Boolean**: products, sums and ReLU on w-bit two's-complement integers;
//! - **full convert**: the convolution on CRT values, bit decomposition (BD) for the
//!   ReLU, bit composition (BC) back to CRT;
//! - **smart convert**: as full convert, without the BC (the next layer, e.g. max
//!   pooling, wants Boolean values);
//! - **pure arithmetic**: the ReLU replaced by a polynomial with Table 2's operation counts
//!   (54 public powers, 57 public products, 57 additions, 1 product).
//!
//! The evaluator (a client) owns the image, the garbler (a server) the filters; every
//! output is revealed. Values are signed: w-bit two's complement in Boolean, the offset
//! convention of [`crate::crt`] in Z_N. Both wrap: Boolean arithmetic is modulo 2^w, CRT
//! arithmetic modulo N ≥ 2^w, and the ReLU reads a value as negative when its residue is
//! ≥ ⌈M/2⌉ for the modulus M in use (for M = 2^w that is the sign bit). [`reference`]
//! computes exactly that in the clear, so every realization is checked against it; with
//! inputs small enough that no sum wraps, all realizations agree with integer arithmetic.
//!
//! The polynomial of the pure-arithmetic realization is the *shape* of Lattigo's ReLU
//! approximation that ABLE costs (its coefficients act on reals in [−1, 1] after scaling,
//! which ABLE leaves out of scope). Ours has public integer coefficients mod N, so it costs
//! exactly what Table 2 says but is not a ReLU at integer scale; [`reference`] evaluates
//! the same polynomial mod N.

use crate::crt::{residue_to_signed, ArithBackend, Crt, PrimeSet};
use crate::modular::{add_mod, mul_mod};
use crate::value::{to_i128, to_u128, Ctx, SInt};
use crate::{gadgets, PartyId, ProgramError};

/// How the layer is garbled (ABLE §6's four realizations).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Realization {
    PureBoolean,
    FullConvert,
    SmartConvert,
    PureArithmetic,
}

impl Realization {
    pub const ALL: [Realization; 4] = [
        Realization::PureBoolean,
        Realization::FullConvert,
        Realization::SmartConvert,
        Realization::PureArithmetic,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Realization::PureBoolean => "pure-boolean",
            Realization::FullConvert => "full-convert",
            Realization::SmartConvert => "smart-convert",
            Realization::PureArithmetic => "pure-arithmetic",
        }
    }

    pub fn parse(name: &str) -> Option<Realization> {
        Realization::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Whether the convolution runs on CRT values.
    pub fn is_arithmetic(self) -> bool {
        self != Realization::PureBoolean
    }
}

/// A square single-channel convolution: `input`×`input` image, `filters` kernels of
/// `kernel`×`kernel`, stride 1, no padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConvShape {
    pub input: usize,
    pub kernel: usize,
    pub filters: usize,
}

impl ConvShape {
    /// ABLE Table 2.
    pub const LENET: ConvShape = ConvShape {
        input: 28,
        kernel: 3,
        filters: 32,
    };

    /// Output side: input − kernel + 1.
    pub fn side(&self) -> usize {
        self.input + 1 - self.kernel
    }

    /// Outputs (= ReLUs): side² · filters (21,632 for LeNet).
    pub fn outputs(&self) -> usize {
        self.side() * self.side() * self.filters
    }

    /// Products: kernel² per output (194,688 for LeNet).
    pub fn products(&self) -> usize {
        self.outputs() * self.kernel * self.kernel
    }

    /// Image pixels (the evaluator's input).
    pub fn pixels(&self) -> usize {
        self.input * self.input
    }

    /// Filter weights (the garbler's input).
    pub fn weights(&self) -> usize {
        self.filters * self.kernel * self.kernel
    }

    /// Shapes must hold at least one output.
    pub fn check(&self) -> Result<(), ProgramError> {
        if self.kernel == 0 || self.filters == 0 || self.kernel > self.input {
            return Err(ProgramError::OutOfRange(format!(
                "a {0}×{0} kernel does not fit a {1}×{1} image (or no filters)",
                self.kernel, self.input
            )));
        }
        Ok(())
    }

    /// Each output's (pixel index, weight index) pairs, filter-major.
    fn taps(&self) -> impl Iterator<Item = Vec<(usize, usize)>> + '_ {
        let (side, k) = (self.side(), self.kernel);
        (0..self.filters).flat_map(move |f| {
            (0..side * side).map(move |o| {
                let (row, col) = (o / side, o % side);
                (0..k * k)
                    .map(|t| ((row + t / k) * self.input + col + t % k, f * k * k + t))
                    .collect()
            })
        })
    }
}

/// The layer at a value width: `width`-bit Boolean values, or CRT values over `set`
/// (N ≥ 2^width).
#[derive(Clone, Debug)]
pub struct ConvLayer {
    pub shape: ConvShape,
    pub width: u32,
    pub set: PrimeSet,
}

/// Number of polynomial terms x^k (Table 2: 54 public powers).
const POLY_DEGREE: u64 = 54;

/// The public coefficients of the pure-arithmetic polynomial, in Z_N: c_1..c_54, then the
/// constant c_0 and the three output weights (a, b, d). Fixed and public; see the module
/// docs.
fn poly_coefficients(n: u128) -> (Vec<u128>, u128, [u128; 3]) {
    let c = |i: u64| u128::from(i.wrapping_mul(0x9e37_79b9) % 1_000_003) % n;
    let terms = (1..=POLY_DEGREE).map(c).collect();
    (terms, c(101), [c(102), c(103), c(104)])
}

/// Outputs of the layer in the clear, for inputs given as signed integers, computed
/// modulo `modulus` (2^w for the Boolean realization, N for the CRT ones) as the module
/// docs say. Panics on input lengths that do not fit `shape` (test helper).
pub fn reference(
    shape: &ConvShape,
    realization: Realization,
    modulus: u128,
    image: &[i64],
    filters: &[i64],
) -> Vec<i128> {
    assert_eq!((image.len(), filters.len()), (shape.pixels(), shape.weights()));
    let m = modulus;
    let reduce = |v: i128| v.rem_euclid(m as i128) as u128;
    let mul = |a: u128, b: u128| mul_mod(a, b, m);
    shape
        .taps()
        .map(|taps| {
            let acc = taps.iter().fold(0u128, |acc, &(p, w)| {
                add_mod(acc, mul(reduce(image[p].into()), reduce(filters[w].into())), m)
            });
            match realization {
                Realization::PureArithmetic => {
                    let (terms, c0, [a, b, d]) = poly_coefficients(m);
                    let mut power = 1;
                    let mut p = c0;
                    for c in terms {
                        power = mul(power, acc);
                        p = add_mod(p, mul(c, power), m);
                    }
                    let t = mul(acc, p);
                    let y = [mul(b, t), mul(d, p), c0]
                        .into_iter()
                        .fold(mul(a, acc), |y, v| add_mod(y, v, m));
                    residue_to_signed(m, y)
                }
                _ => residue_to_signed(m, acc).max(0),
            }
        })
        .collect()
}

/// The layer's inputs on a backend: Boolean integers or CRT values.
pub enum LayerInputs<B: ArithBackend> {
    Boolean {
        image: Vec<SInt<B>>,
        filters: Vec<SInt<B>>,
    },
    Crt {
        image: Vec<Crt<B>>,
        filters: Vec<Crt<B>>,
    },
}

/// Declares the layer's inputs (the interactive part of a two-party run: the garbler's
/// labels and the evaluator's OTs). Each party passes its own values, `image` for the
/// evaluator and `filters` for the garbler, signed.
pub fn inputs<B: ArithBackend>(
    ctx: &Ctx<B>,
    layer: &ConvLayer,
    realization: Realization,
    image: Option<&[i64]>,
    filters: Option<&[i64]>,
) -> Result<LayerInputs<B>, ProgramError> {
    layer.shape.check()?;
    let image = checked_len(PartyId::EVALUATOR, image, layer.shape.pixels())?;
    let filters = checked_len(PartyId::GARBLER, filters, layer.shape.weights())?;
    let value = |v: Option<&[i64]>, i: usize| v.map(|v| i128::from(v[i]));
    Ok(if realization.is_arithmetic() {
        let input = |owner, v, n| {
            (0..n)
                .map(|i| ctx.input_crt_signed(owner, &layer.set, value(v, i)))
                .collect::<Result<Vec<_>, _>>()
        };
        LayerInputs::Crt {
            image: input(PartyId::EVALUATOR, image, layer.shape.pixels())?,
            filters: input(PartyId::GARBLER, filters, layer.shape.weights())?,
        }
    } else {
        let input = |owner, v, n| {
            (0..n)
                .map(|i| ctx.input_sint(owner, layer.width, value(v, i)))
                .collect::<Result<Vec<_>, _>>()
        };
        LayerInputs::Boolean {
            image: input(PartyId::EVALUATOR, image, layer.shape.pixels())?,
            filters: input(PartyId::GARBLER, filters, layer.shape.weights())?,
        }
    })
}

/// The convolution and ReLUs on declared inputs (non-interactive for the garbler when the
/// outputs go to the evaluator only). Reveals every output; returns each one's signed
/// value where this party learns it, in [`reference`]'s order.
pub fn compute<B: ArithBackend>(
    ctx: &Ctx<B>,
    layer: &ConvLayer,
    realization: Realization,
    inputs: &LayerInputs<B>,
) -> Result<Vec<Option<i128>>, ProgramError> {
    let n = layer.set.product();
    let half = n - n / 2;
    let mut outputs = Vec::with_capacity(layer.shape.outputs());
    for taps in layer.shape.taps() {
        let value = match inputs {
            LayerInputs::Boolean { image, filters } => {
                let acc = dot(&taps, image, filters);
                let relu = ctx.with(|b| gadgets::select::relu(b, acc.wires()));
                SInt::from_wires(ctx, relu).reveal()?.map(|bits| to_i128(&bits))
            }
            LayerInputs::Crt { image, filters } => {
                let acc = dot(&taps, image, filters);
                if realization == Realization::PureArithmetic {
                    poly_relu(ctx, &acc).reveal_signed()?
                } else {
                    // BD, then ReLU on x ∈ [0, N): x is negative when x ≥ ⌈N/2⌉.
                    let x = acc.to_uint();
                    let negative = !&x.less_than(&ctx.uint(x.width(), half));
                    let relu = negative.select(&ctx.uint(x.width(), 0), &x);
                    if realization == Realization::FullConvert {
                        Crt::from_uint(&relu, &layer.set).reveal_signed()?
                    } else {
                        relu.reveal()?.map(|bits| to_u128(&bits) as i128)
                    }
                }
            }
        };
        outputs.push(value);
    }
    Ok(outputs)
}

/// [`inputs`], then [`compute`].
pub fn run<B: ArithBackend>(
    ctx: &Ctx<B>,
    layer: &ConvLayer,
    realization: Realization,
    image: Option<&[i64]>,
    filters: Option<&[i64]>,
) -> Result<Vec<Option<i128>>, ProgramError> {
    let declared = inputs(ctx, layer, realization, image, filters)?;
    compute(ctx, layer, realization, &declared)
}

/// Σ image[p]·filters[w] over one output's taps.
fn dot<T>(taps: &[(usize, usize)], image: &[T], filters: &[T]) -> T
where
    for<'a> &'a T: std::ops::Mul<&'a T, Output = T> + std::ops::Add<&'a T, Output = T>,
{
    taps.iter()
        .map(|&(p, w)| &image[p] * &filters[w])
        .reduce(|a, b| &a + &b)
        .expect("a kernel has taps")
}

/// The pure-arithmetic ReLU stand-in: p = c_0 + Σ c_k·x^k (k = 1..54), then
/// a·x + b·(x·p) + d·p + c_0 — 54 public powers, 57 public products, 57 additions and one
/// product, as ABLE Table 2 counts them.
fn poly_relu<B: ArithBackend>(ctx: &Ctx<B>, x: &Crt<B>) -> Crt<B> {
    let (terms, c0, [a, b, d]) = poly_coefficients(x.set().product());
    let constant = ctx.crt_constant(x.set(), c0);
    let mut p = constant.clone();
    for (k, c) in (1..=POLY_DEGREE).zip(terms) {
        p = &p + &x.pow(k).scale(c);
    }
    let t = x * &p;
    let y = &(&x.scale(a) + &t.scale(b)) + &p.scale(d);
    &y + &constant
}

fn checked_len(owner: PartyId, values: Option<&[i64]>, count: usize) -> Result<Option<&[i64]>, ProgramError> {
    match values {
        Some(v) if v.len() != count => Err(ProgramError::OutOfRange(format!(
            "the {owner} supplies {} values, the layer needs {count}",
            v.len()
        ))),
        v => Ok(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lenet_counts_match_table_2() {
        let s = ConvShape::LENET;
        assert_eq!((s.side(), s.outputs(), s.products()), (26, 21_632, 194_688));
        // Additions: kernel² − 1 per output.
        assert_eq!(s.outputs() * (s.kernel * s.kernel - 1), 173_056);
    }
}
