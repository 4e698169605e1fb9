//! Typed secret values: unsigned and signed integers of any width, and bits, with
//! operators. Host code cannot branch on them: the only way to a `bool` is an output.
//!
//! Width rules (written once, used by every backend): an operation on two values of
//! different widths first extends the narrower one to the wider width, with zeros for
//! [`UInt`] and copies of the sign bit for [`SInt`]; the result has that width and wraps
//! modulo 2^width. Comparisons give a [`Bit`]. Shifts by public amounts are free.

use std::cell::RefCell;
use std::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Neg, Not, Rem, Shl, Shr, Sub};
use std::rc::Rc;

use crate::gadgets;
use crate::{Audience, Backend, PartyId, ProgramError};

/// The backend a program runs on, shared by all its values.
pub struct Ctx<B: Backend>(Rc<Shared<B>>);

struct Shared<B: Backend> {
    backend: RefCell<B>,
    /// Wires of values made while the backend was borrowed (inside [`Ctx::with`]), to
    /// retain at its next borrow, before any release.
    deferred: RefCell<Vec<B::Wire>>,
}

impl<B: Backend> Clone for Ctx<B> {
    fn clone(&self) -> Self {
        Ctx(Rc::clone(&self.0))
    }
}

impl<B: Backend> Ctx<B> {
    pub fn new(backend: B) -> Self {
        Ctx(Rc::new(Shared {
            backend: RefCell::new(backend),
            deferred: RefCell::new(Vec::new()),
        }))
    }

    /// The backend back, once every value of the program has been dropped.
    pub fn into_inner(self) -> Option<B> {
        Rc::try_unwrap(self.0).ok().map(|s| {
            let mut b = s.backend.into_inner();
            b.retain(&s.deferred.into_inner());
            b
        })
    }

    /// Runs `f` on the backend (for gadgets that have no typed wrapper yet).
    pub fn with<R>(&self, f: impl FnOnce(&mut B) -> R) -> R {
        let mut b = self.0.backend.borrow_mut();
        self.retain_deferred(&mut b);
        f(&mut b)
    }

    /// Runs gadget `f` on the backend in a scope ([`crate::scoped`]): the wires it makes
    /// and does not return are freed at its end.
    pub fn gadget(&self, f: impl FnOnce(&mut B) -> Vec<B::Wire>) -> Vec<B::Wire> {
        self.with(|b| crate::scoped(b, f))
    }

    fn retain_deferred(&self, b: &mut B) {
        if let Ok(mut d) = self.0.deferred.try_borrow_mut() {
            if !d.is_empty() {
                b.retain(&d);
                d.clear();
            }
        }
    }

    /// A value over `wires`, which it holds (retained on the backend).
    fn wrap(&self, wires: Vec<B::Wire>) -> Bits<B> {
        match self.0.backend.try_borrow_mut() {
            Ok(mut b) => {
                self.retain_deferred(&mut b);
                b.retain(&wires);
            }
            // Made inside `with`: retained at the next borrow, before any release.
            Err(_) => {
                if let Ok(mut d) = self.0.deferred.try_borrow_mut() {
                    d.extend_from_slice(&wires);
                }
            }
        }
        Bits {
            wires,
            ctx: self.clone(),
        }
    }

    /// An unsigned input of `width` bits owned by `owner`; `value` is the owner's secret
    /// (needed by the plaintext backend, ignored by the recorder and counter).
    pub fn input_uint(
        &self,
        owner: PartyId,
        width: u32,
        value: Option<u128>,
    ) -> Result<UInt<B>, ProgramError> {
        let bits = value.map(|v| (0..width).map(|i| i < 128 && v >> i & 1 == 1).collect::<Vec<_>>());
        let wires = self.with(|b| b.input(owner, width, bits.as_deref()))?;
        Ok(UInt(self.wrap(wires)))
    }

    /// A signed (two's complement) input of `width` bits.
    pub fn input_sint(
        &self,
        owner: PartyId,
        width: u32,
        value: Option<i128>,
    ) -> Result<SInt<B>, ProgramError> {
        Ok(SInt(self.input_uint(owner, width, value.map(|v| v as u128))?.0))
    }

    /// A public unsigned constant (free).
    pub fn uint(&self, width: u32, value: u128) -> UInt<B> {
        let wires = self.with(|b| {
            (0..width)
                .map(|i| b.constant(i < 128 && value >> i & 1 == 1))
                .collect()
        });
        UInt(self.wrap(wires))
    }

    /// A public signed constant (free).
    pub fn sint(&self, width: u32, value: i128) -> SInt<B> {
        SInt(self.uint(width, value as u128).0)
    }
}

/// Wires of one value; dropping it tells the backend they are free.
struct Bits<B: Backend> {
    wires: Vec<B::Wire>,
    ctx: Ctx<B>,
}

impl<B: Backend> Clone for Bits<B> {
    fn clone(&self) -> Self {
        self.ctx.wrap(self.wires.clone())
    }
}

impl<B: Backend> Drop for Bits<B> {
    fn drop(&mut self) {
        // try_borrow: never panic in drop, even while unwinding from inside a gadget (the
        // wires then stay held: a leak, never a slot freed under another value).
        if let Ok(mut b) = self.ctx.0.backend.try_borrow_mut() {
            self.ctx.retain_deferred(&mut b);
            b.release(&self.wires);
        }
    }
}

impl<B: Backend> Bits<B> {
    fn binary(
        &self,
        other: &Self,
        signed: bool,
        f: impl FnOnce(&mut B, &[B::Wire], &[B::Wire]) -> Vec<B::Wire>,
    ) -> Self {
        let w = self.wires.len().max(other.wires.len());
        let out = self.ctx.gadget(|b| {
            let x = gadgets::extend(b, &self.wires, w, signed);
            let y = gadgets::extend(b, &other.wires, w, signed);
            f(b, &x, &y)
        });
        self.ctx.wrap(out)
    }

    /// `f` over this value's wires in a scope: its temporaries are freed at its end.
    fn unary(&self, f: impl FnOnce(&mut B, &[B::Wire]) -> Vec<B::Wire>) -> Self {
        let out = self.ctx.gadget(|b| f(b, &self.wires));
        self.ctx.wrap(out)
    }

    /// Marks this value as an output; returns its bits where this party learns them.
    fn reveal(&self) -> Result<Option<Vec<bool>>, ProgramError> {
        self.ctx.with(|b| b.output(&self.wires))
    }

    fn reveal_to(&self, to: Audience) -> Result<Option<Vec<bool>>, ProgramError> {
        self.ctx.with(|b| b.output_to(&self.wires, to))
    }
}

/// One secret bit.
pub struct Bit<B: Backend>(Bits<B>);

/// A secret unsigned integer of any width.
pub struct UInt<B: Backend>(Bits<B>);

/// A secret two's-complement integer of any width.
pub struct SInt<B: Backend>(Bits<B>);

macro_rules! common {
    ($t:ident, $signed:expr) => {
        impl<B: Backend> Clone for $t<B> {
            fn clone(&self) -> Self {
                $t(self.0.clone())
            }
        }

        impl<B: Backend> $t<B> {
            pub fn width(&self) -> u32 {
                self.0.wires.len() as u32
            }

            /// The wires, least significant bit first (to call gadgets directly).
            pub fn wires(&self) -> &[B::Wire] {
                &self.0.wires
            }

            /// The context this value belongs to (for typed wrappers in this crate).
            pub(crate) fn ctx(&self) -> &Ctx<B> {
                &self.0.ctx
            }

            /// A value over `wires` (least significant bit first) computed by a gadget.
            pub(crate) fn from_wires(ctx: &Ctx<B>, wires: Vec<B::Wire>) -> Self {
                $t(ctx.wrap(wires))
            }

            /// Marks this value as an output of the program. The plaintext backend returns
            /// its bits; two-party backends reveal it as the agreed terms say, `None` to a
            /// party that does not learn it.
            pub fn reveal(&self) -> Result<Option<Vec<bool>>, ProgramError> {
                self.0.reveal()
            }

            /// Reveals this value only to `to` (`None` to the other party).
            pub fn reveal_to(&self, to: Audience) -> Result<Option<Vec<bool>>, ProgramError> {
                self.0.reveal_to(to)
            }

            /// This value resized to `width` bits by the extension rule of its type
            /// (or truncated).
            pub fn resize(&self, width: u32) -> Self {
                $t(self
                    .0
                    .unary(|b, x| gadgets::extend(b, x, width as usize, $signed)))
            }

            /// `[self == other]`: w − 1 ANDs.
            pub fn equals(&self, other: &Self) -> Bit<B> {
                Bit(self.0.binary(&other.0, $signed, gadgets::eq))
            }

            /// `[self < other]`: w ANDs.
            pub fn less_than(&self, other: &Self) -> Bit<B> {
                let lt = if $signed {
                    gadgets::lt_signed::<B>
                } else {
                    gadgets::lt_unsigned::<B>
                };
                Bit(self.0.binary(&other.0, $signed, lt))
            }

            /// `[self > other]`: w ANDs.
            pub fn greater_than(&self, other: &Self) -> Bit<B> {
                other.less_than(self)
            }

            /// `[self <= other]`: w ANDs.
            pub fn at_most(&self, other: &Self) -> Bit<B> {
                !&self.greater_than(other)
            }
        }

        impl<B: Backend> Add for &$t<B> {
            type Output = $t<B>;
            /// Wrapping addition: w − 1 ANDs.
            fn add(self, rhs: Self) -> $t<B> {
                $t(self.0.binary(&rhs.0, $signed, gadgets::add))
            }
        }

        impl<B: Backend> Sub for &$t<B> {
            type Output = $t<B>;
            /// Wrapping subtraction: w − 1 ANDs.
            fn sub(self, rhs: Self) -> $t<B> {
                $t(self.0.binary(&rhs.0, $signed, gadgets::sub))
            }
        }

        impl<B: Backend> Mul for &$t<B> {
            type Output = $t<B>;
            /// Wrapping product (the low w bits; identical for signed and unsigned):
            /// Booth radix-4, about 5w²/8 ANDs.
            fn mul(self, rhs: Self) -> $t<B> {
                $t(self.0.binary(&rhs.0, $signed, gadgets::mul::mul))
            }
        }

        impl<B: Backend> Div for &$t<B> {
            type Output = $t<B>;
            /// Quotient, rounded toward zero. Division by zero gives all ones (unsigned) or
            /// −1 / +1 for a non-negative / negative dividend (signed); MIN / −1 = MIN.
            /// About w² ANDs.
            fn div(self, rhs: Self) -> $t<B> {
                let f = if $signed {
                    gadgets::div::div_signed::<B>
                } else {
                    gadgets::div::div_unsigned::<B>
                };
                $t(self.0.binary(&rhs.0, $signed, f))
            }
        }

        impl<B: Backend> Rem for &$t<B> {
            type Output = $t<B>;
            /// Remainder with the sign of the dividend; x % 0 = x. About w² ANDs.
            fn rem(self, rhs: Self) -> $t<B> {
                let f = if $signed {
                    gadgets::div::rem_signed::<B>
                } else {
                    gadgets::div::rem_unsigned::<B>
                };
                $t(self.0.binary(&rhs.0, $signed, f))
            }
        }

        impl<B: Backend> Neg for &$t<B> {
            type Output = $t<B>;
            /// Wrapping negation: w − 1 ANDs.
            fn neg(self) -> $t<B> {
                $t(self.0.unary(gadgets::neg))
            }
        }

        impl<B: Backend> BitXor for &$t<B> {
            type Output = $t<B>;
            fn bitxor(self, rhs: Self) -> $t<B> {
                $t(self.0.binary(&rhs.0, $signed, gadgets::xor))
            }
        }

        impl<B: Backend> BitAnd for &$t<B> {
            type Output = $t<B>;
            /// w ANDs.
            fn bitand(self, rhs: Self) -> $t<B> {
                $t(self.0.binary(&rhs.0, $signed, |b, x, y| {
                    x.iter().zip(y).map(|(&p, &q)| b.and(p, q)).collect()
                }))
            }
        }

        impl<B: Backend> BitOr for &$t<B> {
            type Output = $t<B>;
            /// x ∨ y = x ⊕ y ⊕ (x ∧ y): w ANDs.
            fn bitor(self, rhs: Self) -> $t<B> {
                $t(self.0.binary(&rhs.0, $signed, |b, x, y| {
                    x.iter()
                        .zip(y)
                        .map(|(&p, &q)| {
                            let t = b.and(p, q);
                            let s = b.xor(p, q);
                            b.xor(s, t)
                        })
                        .collect()
                }))
            }
        }

        impl<B: Backend> Not for &$t<B> {
            type Output = $t<B>;
            fn not(self) -> $t<B> {
                $t(self.0.unary(|b, x| x.iter().map(|&v| b.not(v)).collect()))
            }
        }

        impl<B: Backend> Shl<u32> for &$t<B> {
            type Output = $t<B>;
            /// Shift left by a public amount, keeping the width (free).
            fn shl(self, n: u32) -> $t<B> {
                $t(self.0.unary(|b, x| {
                    let zero = b.constant(false);
                    let n = (n as usize).min(x.len());
                    std::iter::repeat_n(zero, n)
                        .chain(x[..x.len() - n].iter().copied())
                        .collect()
                }))
            }
        }

        impl<B: Backend> Shr<u32> for &$t<B> {
            type Output = $t<B>;
            /// Shift right by a public amount: logical for unsigned, arithmetic for signed (free).
            fn shr(self, n: u32) -> $t<B> {
                $t(self.0.unary(|b, x| {
                    let fill = if $signed && !x.is_empty() {
                        x[x.len() - 1]
                    } else {
                        b.constant(false)
                    };
                    let n = (n as usize).min(x.len());
                    x[n..]
                        .iter()
                        .copied()
                        .chain(std::iter::repeat_n(fill, n))
                        .collect()
                }))
            }
        }
    };
}

common!(UInt, false);
common!(SInt, true);

impl<B: Backend> Clone for Bit<B> {
    fn clone(&self) -> Self {
        Bit(self.0.clone())
    }
}

impl<B: Backend> Bit<B> {
    pub fn wire(&self) -> B::Wire {
        self.0.wires[0]
    }

    /// Marks this bit as an output (see [`UInt::reveal`]).
    pub fn reveal(&self) -> Result<Option<bool>, ProgramError> {
        Ok(self.0.reveal()?.map(|v| v[0]))
    }

    /// Reveals this bit only to `to` (`None` to the other party).
    pub fn reveal_to(&self, to: Audience) -> Result<Option<bool>, ProgramError> {
        Ok(self.0.reveal_to(to)?.map(|v| v[0]))
    }

    /// `if self { yes } else { no }` without branching: w ANDs. The values are extended
    /// to a common width first.
    pub fn select<T: Selectable<B>>(&self, yes: &T, no: &T) -> T {
        T::select(self, yes, no)
    }
}

impl<B: Backend> Not for &Bit<B> {
    type Output = Bit<B>;
    fn not(self) -> Bit<B> {
        Bit(self.0.unary(|b, x| vec![b.not(x[0])]))
    }
}

impl<B: Backend> BitAnd for &Bit<B> {
    type Output = Bit<B>;
    fn bitand(self, rhs: Self) -> Bit<B> {
        Bit(self.0.binary(&rhs.0, false, |b, x, y| vec![b.and(x[0], y[0])]))
    }
}

impl<B: Backend> BitXor for &Bit<B> {
    type Output = Bit<B>;
    fn bitxor(self, rhs: Self) -> Bit<B> {
        Bit(self.0.binary(&rhs.0, false, gadgets::xor))
    }
}

/// Values a secret bit can choose between.
pub trait Selectable<B: Backend>: Sized {
    fn select(s: &Bit<B>, yes: &Self, no: &Self) -> Self;
}

impl<B: Backend> Selectable<B> for UInt<B> {
    fn select(s: &Bit<B>, yes: &Self, no: &Self) -> Self {
        UInt(no.0.binary(&yes.0, false, |b, x, y| gadgets::mux(b, s.wire(), x, y)))
    }
}

impl<B: Backend> Selectable<B> for SInt<B> {
    fn select(s: &Bit<B>, yes: &Self, no: &Self) -> Self {
        SInt(no.0.binary(&yes.0, true, |b, x, y| gadgets::mux(b, s.wire(), x, y)))
    }
}

impl<B: Backend> UInt<B> {
    /// Reinterprets the bits as a signed value of the same width (free).
    pub fn as_signed(&self) -> SInt<B> {
        SInt(self.0.clone())
    }

    /// The larger of two values: w ANDs for the comparison plus w for the selection.
    pub fn max(&self, other: &Self) -> Self {
        self.less_than(other).select(other, self)
    }

    /// The smaller of two values.
    pub fn min(&self, other: &Self) -> Self {
        self.less_than(other).select(self, other)
    }
}

impl<B: Backend> SInt<B> {
    /// Reinterprets the bits as an unsigned value of the same width (free).
    pub fn as_unsigned(&self) -> UInt<B> {
        UInt(self.0.clone())
    }
}

/// Cleartext value of revealed bits, for host code (least significant bit first).
pub fn to_u128(bits: &[bool]) -> u128 {
    bits.iter()
        .take(128)
        .enumerate()
        .map(|(i, &b)| (b as u128) << i)
        .sum()
}

/// Cleartext two's-complement value of revealed bits.
pub fn to_i128(bits: &[bool]) -> i128 {
    let w = bits.len().min(128);
    let v = to_u128(bits);
    match (w, bits.last()) {
        (1..=127, Some(true)) => v as i128 - (1i128 << w),
        _ => v as i128,
    }
}
