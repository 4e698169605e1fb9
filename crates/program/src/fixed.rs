//! Signed fixed-point numbers: a two's-complement [`SInt`] of `width` bits read as
//! `integer / 2^frac`.
//!
//! **This is where mixgc's fixed-point rules are written down**; every backend follows them
//! (they are computed by the circuit itself), and the arithmetic garbling work reuses them.
//! Below, a value of format (w, f) has raw integer X, −2^(w−1) ≤ X < 2^(w−1), and means X / 2^f.
//!
//! | What | Rule |
//! |---|---|
//! | Format | 1 ≤ w ≤ 128, 0 ≤ f ≤ w ([`FixedFormat::new`]); range −2^(w−f−1) ..= 2^(w−f−1) − 2^−f, step 2^−f |
//! | Encoding a host `f64` v (inputs, constants) | X = round(v · 2^f), **round to nearest, ties away from zero** (`f64::round`) |
//! | Encoding overflow | **an error** ([`FixedError::Overflow`]) when the rounded X is outside the range, [`FixedError::NotFinite`] for NaN / ±∞; never saturates, never wraps |
//! | Decoding ([`to_f64`], [`Fixed::reveal`]) | X / 2^f as the nearest `f64` (exact while X fits 53 bits) |
//! | `+`, `−`, unary `−` | exact, then wrap modulo 2^w (like [`SInt`]); w − 1 ANDs |
//! | `×` — **the rounding rule** | P = X·Y exact (frac 2f), result = ⌊(P + 2^(f−1)) / 2^f⌋, i.e. add half an ulp then shift right arithmetically: **round to nearest, ties toward +∞** (2.5 ulp → 3, −2.5 ulp → −2); f = 0: P itself |
//! | `×` overflow | the rounded result wraps modulo 2^w (two's complement, like `SInt`) |
//! | Fewer fraction bits ([`Fixed::rescale`], dot products) | the same rule: ⌊(X + 2^(d−1)) / 2^d⌋ for a drop of d bits, then wrap to the new width |
//! | Mixed formats (w₁, f₁) ∘ (w₂, f₂) | both are first converted, exactly and for free, to the common format f = max(f₁, f₂), w = max(w₁ − f₁, w₂ − f₂) + f (capped at 128 bits, where the integer part then wraps): sign extension plus a left shift of the fraction; the result has the common format |
//! | Comparisons, `select`, ReLU | exact on the common format; return a [`Bit`] / a value of the common format |
//!
//! The product is computed as the exact product modulo 2^(w+f) (operands sign-extended to
//! w + f bits, truncated Booth multiplier): the result depends on no higher bit, and this is
//! cheaper than a 2w-bit full product whenever f < w (32-bit Q16: 1,500 + 31 ANDs).

use std::ops::{Add, Mul, Neg, Sub};

use crate::gadgets;
use crate::value::to_i128;
use crate::{Backend, Bit, Ctx, PartyId, ProgramError, SInt, Selectable};

/// Why a fixed-point value could not be made.
#[derive(Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum FixedError {
    #[error(
        "a fixed-point format needs 1 <= width <= 128 and fraction bits <= width; got width {width} \
         with {frac} fraction bits"
    )]
    Format { width: u32, frac: u32 },
    #[error("{value} is not a finite number and has no fixed-point encoding")]
    NotFinite { value: f64 },
    #[error(
        "{value} does not fit a fixed-point number of {width} bits with {frac} fraction bits \
         (range {min} ..= {max})"
    )]
    Overflow {
        value: f64,
        width: u32,
        frac: u32,
        min: f64,
        max: f64,
    },
    #[error(transparent)]
    Program(#[from] ProgramError),
}

/// Width and fraction bits of a fixed-point number (the module docs give the rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FixedFormat {
    width: u32,
    frac: u32,
}

impl FixedFormat {
    /// `width` bits in all, `frac` of them after the binary point: 1 ≤ width ≤ 128, frac ≤ width.
    pub fn new(width: u32, frac: u32) -> Result<Self, FixedError> {
        if (1..=128).contains(&width) && frac <= width {
            Ok(FixedFormat { width, frac })
        } else {
            Err(FixedError::Format { width, frac })
        }
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn frac(&self) -> u32 {
        self.frac
    }

    /// The smallest value, −2^(w−f−1).
    pub fn min(&self) -> f64 {
        -pow2(self.width as i32 - 1 - self.frac as i32)
    }

    /// The largest value, 2^(w−f−1) − 2^−f (as the nearest `f64`).
    pub fn max(&self) -> f64 {
        self.decode(raw_max(self.width))
    }

    /// The raw integer of `value`: round(value · 2^f), ties away from zero; an error when it
    /// is not finite or the rounded integer does not fit `width` bits.
    pub fn encode(&self, value: f64) -> Result<i128, FixedError> {
        if !value.is_finite() {
            return Err(FixedError::NotFinite { value });
        }
        // Scaling by a power of two is exact; `round` is to nearest, ties away from zero.
        let r = (value * pow2(self.frac as i32)).round();
        let limit = pow2(self.width as i32 - 1);
        if r < -limit || r >= limit {
            return Err(FixedError::Overflow {
                value,
                width: self.width,
                frac: self.frac,
                min: self.min(),
                max: self.max(),
            });
        }
        Ok(r as i128)
    }

    /// The value of raw integer `raw`: raw / 2^f as the nearest `f64`.
    pub fn decode(&self, raw: i128) -> f64 {
        raw as f64 * pow2(-(self.frac as i32))
    }

    /// The format both operands of a mixed operation are converted to (module docs).
    pub fn common(&self, other: &Self) -> Self {
        let frac = self.frac.max(other.frac);
        let int = (self.width - self.frac).max(other.width - other.frac);
        FixedFormat {
            width: (int + frac).min(128),
            frac,
        }
    }
}

fn pow2(e: i32) -> f64 {
    2f64.powi(e)
}

fn raw_max(width: u32) -> i128 {
    if width >= 128 {
        i128::MAX
    } else {
        (1i128 << (width - 1)) - 1
    }
}

/// Cleartext value of revealed fixed-point bits (least significant first) with `frac`
/// fraction bits: two's complement integer / 2^frac, as the nearest `f64`.
pub fn to_f64(bits: &[bool], frac: u32) -> f64 {
    to_i128(bits) as f64 * pow2(-(frac as i32))
}

/// A secret signed fixed-point number (module docs: encoding, rounding and overflow rules).
pub struct Fixed<B: Backend> {
    raw: SInt<B>,
    frac: u32,
}

impl<B: Backend> Clone for Fixed<B> {
    fn clone(&self) -> Self {
        Fixed {
            raw: self.raw.clone(),
            frac: self.frac,
        }
    }
}

impl<B: Backend> Ctx<B> {
    /// A secret fixed-point input owned by `owner`; `value` is the owner's secret (needed by
    /// the plaintext backend). A value that does not fit `format` is an error.
    pub fn input_fixed(
        &self,
        owner: PartyId,
        format: FixedFormat,
        value: Option<f64>,
    ) -> Result<Fixed<B>, FixedError> {
        let raw = value.map(|v| format.encode(v)).transpose()?;
        Ok(Fixed {
            raw: self.input_sint(owner, format.width, raw)?,
            frac: format.frac,
        })
    }

    /// A public fixed-point constant (free). A value that does not fit `format` is an error.
    pub fn fixed(&self, format: FixedFormat, value: f64) -> Result<Fixed<B>, FixedError> {
        Ok(Fixed {
            raw: self.sint(format.width, format.encode(value)?),
            frac: format.frac,
        })
    }
}

/// `((p + 2^(d−1)) >> d)` over all of p's bits but the low d: the rounding rule. The carry
/// into bit d is p[d−1] (free); the incrementer costs p.len() − d − 1 ANDs.
fn round_shift<B: Backend>(b: &mut B, p: &[B::Wire], d: usize) -> Vec<B::Wire> {
    if d == 0 {
        return p.to_vec();
    }
    let mut c = p[d - 1];
    let mut out = Vec::with_capacity(p.len() - d);
    for i in d..p.len() {
        out.push(b.xor(p[i], c));
        if i + 1 < p.len() {
            c = b.and(p[i], c);
        }
    }
    out
}

impl<B: Backend> Fixed<B> {
    /// Reads the bits of `raw` as a fixed-point number with `frac` fraction bits (free).
    pub fn from_raw(raw: SInt<B>, frac: u32) -> Result<Self, FixedError> {
        FixedFormat::new(raw.width(), frac)?;
        Ok(Fixed { raw, frac })
    }

    /// The raw two's-complement integer X (value X / 2^frac).
    pub fn raw(&self) -> &SInt<B> {
        &self.raw
    }

    pub fn format(&self) -> FixedFormat {
        FixedFormat {
            width: self.raw.width(),
            frac: self.frac,
        }
    }

    pub fn width(&self) -> u32 {
        self.raw.width()
    }

    pub fn frac(&self) -> u32 {
        self.frac
    }

    fn ctx(&self) -> &Ctx<B> {
        self.raw.ctx()
    }

    fn make(&self, wires: Vec<B::Wire>, frac: u32) -> Self {
        Fixed {
            raw: SInt::from_wires(self.ctx(), wires),
            frac,
        }
    }

    /// This value in `format`. More fraction bits: a left shift (free); fewer: the rounding
    /// rule of the module docs (width − 1 ANDs). Then sign extension, or wrapping to a
    /// narrower width.
    pub fn rescale(&self, format: FixedFormat) -> Self {
        let (w, f) = (format.width as usize, format.frac);
        if f >= self.frac {
            let raw = &self.raw.resize(format.width) << (f - self.frac);
            return Fixed { raw, frac: f };
        }
        let d = (self.frac - f) as usize;
        let out = self.ctx().with(|b| {
            let x = gadgets::extend(b, self.raw.wires(), w + d, true);
            round_shift(b, &x, d)
        });
        self.make(out, f)
    }

    /// Both operands in their common format.
    fn aligned(&self, other: &Self) -> (Self, Self, FixedFormat) {
        let common = self.format().common(&other.format());
        let align = |x: &Self| {
            if x.format() == common {
                x.clone()
            } else {
                x.rescale(common)
            }
        };
        (align(self), align(other), common)
    }

    /// Marks this value as an output; its value where this party learns it (the nearest
    /// `f64`; see [`Fixed::reveal_raw`] for the exact integer).
    pub fn reveal(&self) -> Result<Option<f64>, ProgramError> {
        Ok(self.raw.reveal()?.map(|bits| to_f64(&bits, self.frac)))
    }

    /// Marks this value as an output; its raw integer X where this party learns it.
    pub fn reveal_raw(&self) -> Result<Option<i128>, ProgramError> {
        Ok(self.raw.reveal()?.map(|bits| to_i128(&bits)))
    }

    /// `[self == other]`: w − 1 ANDs.
    pub fn equals(&self, other: &Self) -> Bit<B> {
        let (x, y, _) = self.aligned(other);
        x.raw.equals(&y.raw)
    }

    /// `[self < other]`: w ANDs.
    pub fn less_than(&self, other: &Self) -> Bit<B> {
        let (x, y, _) = self.aligned(other);
        x.raw.less_than(&y.raw)
    }

    /// `[self > other]`: w ANDs.
    pub fn greater_than(&self, other: &Self) -> Bit<B> {
        other.less_than(self)
    }

    /// `[self <= other]`: w ANDs.
    pub fn at_most(&self, other: &Self) -> Bit<B> {
        !&self.greater_than(other)
    }

    /// `[self >= other]`: w ANDs.
    pub fn at_least(&self, other: &Self) -> Bit<B> {
        !&self.less_than(other)
    }

    /// max(self, 0): exactly w − 1 ANDs.
    pub fn relu(&self) -> Self {
        let out = self.ctx().with(|b| gadgets::select::relu(b, self.raw.wires()));
        self.make(out, self.frac)
    }

    /// |self|, wrapping like `wrapping_abs` (|min| = min): w − 1 ANDs.
    pub fn abs(&self) -> Self {
        let out = self.ctx().with(|b| gadgets::select::abs(b, self.raw.wires()));
        self.make(out, self.frac)
    }

    /// The larger of two values (common format): 2w ANDs.
    pub fn max(&self, other: &Self) -> Self {
        self.less_than(other).select(other, self)
    }

    /// The smaller of two values (common format): 2w ANDs.
    pub fn min(&self, other: &Self) -> Self {
        self.less_than(other).select(self, other)
    }

    /// `Σ xs[i]·ys[i]` with each exact product kept and **one** rounding at the end (the rule
    /// of the module docs, applied to the exact sum): more accurate than adding rounded
    /// products and cheaper (n products at w + f bits, n − 1 additions at w + f bits, one
    /// rounding). All operands are converted to their common format, which the result has;
    /// the sum wraps modulo 2^w. `None` for empty or unequal-length inputs.
    pub fn dot(xs: &[&Self], ys: &[&Self]) -> Option<Self> {
        if xs.is_empty() || xs.len() != ys.len() {
            return None;
        }
        let fmt = xs
            .iter()
            .chain(ys)
            .skip(1)
            .fold(xs[0].format(), |acc, x| acc.common(&x.format()));
        let conv = |x: &Self| {
            if x.format() == fmt {
                x.clone()
            } else {
                x.rescale(fmt)
            }
        };
        let xs: Vec<Self> = xs.iter().map(|x| conv(x)).collect();
        let ys: Vec<Self> = ys.iter().map(|y| conv(y)).collect();
        let n = (fmt.width + fmt.frac) as usize;
        let out = xs[0].ctx().with(|b| {
            let mut acc: Option<Vec<B::Wire>> = None;
            for (x, y) in xs.iter().zip(&ys) {
                let xe = gadgets::extend(b, x.raw.wires(), n, true);
                let ye = gadgets::extend(b, y.raw.wires(), n, true);
                let p = gadgets::mul::mul(b, &xe, &ye);
                acc = Some(match acc {
                    None => p,
                    Some(a) => gadgets::add(b, &a, &p),
                });
            }
            round_shift(b, &acc.expect("non-empty"), fmt.frac as usize)
        });
        Some(xs[0].make(out, fmt.frac))
    }
}

impl<B: Backend> Add for &Fixed<B> {
    type Output = Fixed<B>;
    /// Exact sum wrapped to the common width: w − 1 ANDs.
    fn add(self, rhs: Self) -> Fixed<B> {
        let (x, y, f) = self.aligned(rhs);
        Fixed {
            raw: &x.raw + &y.raw,
            frac: f.frac,
        }
    }
}

impl<B: Backend> Sub for &Fixed<B> {
    type Output = Fixed<B>;
    /// Exact difference wrapped to the common width: w − 1 ANDs.
    fn sub(self, rhs: Self) -> Fixed<B> {
        let (x, y, f) = self.aligned(rhs);
        Fixed {
            raw: &x.raw - &y.raw,
            frac: f.frac,
        }
    }
}

impl<B: Backend> Neg for &Fixed<B> {
    type Output = Fixed<B>;
    /// Wrapping negation (−min = min): w − 1 ANDs.
    fn neg(self) -> Fixed<B> {
        Fixed {
            raw: -&self.raw,
            frac: self.frac,
        }
    }
}

impl<B: Backend> Mul for &Fixed<B> {
    type Output = Fixed<B>;
    /// Product rounded by the rule of the module docs (round to nearest, ties toward +∞),
    /// wrapped to the common width w. Cost: a truncated multiplier at w + f bits plus w − 1
    /// ANDs for the rounding (f > 0).
    fn mul(self, rhs: Self) -> Fixed<B> {
        Fixed::dot(&[self], &[rhs]).expect("one product")
    }
}

impl<B: Backend> Selectable<B> for Fixed<B> {
    /// `if s { yes } else { no }` in the common format: w ANDs.
    fn select(s: &Bit<B>, yes: &Self, no: &Self) -> Self {
        let (y, n, f) = yes.aligned(no);
        Fixed {
            raw: s.select(&y.raw, &n.raw),
            frac: f.frac,
        }
    }
}
