//! CRT values (ABLE §2–3, BMR16): secret integers in Z_N, N a product of distinct primes
//! (a [`PrimeSet`]), held as one residue per prime. Addition, subtraction and public
//! multiplication are free; a product costs Σ 2(p − 1) rows, a public power Σ (p − 1).
//! Programs mix them with Boolean values through explicit conversions:
//! [`Crt::from_uint`] (bit composition, BC) and [`Crt::to_uint`] (bit decomposition, BD).
//!
//! Arithmetic is modulo N. Signed values use the offset convention: x ∈ [−⌊N/2⌋, ⌈N/2⌉)
//! is held as x mod N, so a value is negative exactly when its residue is ≥ ⌈N/2⌉
//! ([`Crt::reveal_signed`], [`Crt::to_sint`]).
//!
//! Mixing values over different prime sets is a program bug, like adding tensors of
//! different shapes: the operators panic with a message naming both sets.
//!
//! Backends: CRT programs run on [`crate::Plain`] (the reference, computing on the integer
//! mod N rather than per residue), on [`crate::Counter`] (exact table rows and bytes, split
//! as ABLE Fig. 4; per-op tally in [`crate::Counter::crt_ops`]) and on the two-party
//! backends of `mixgc-session`. [`crate::Recorder`] emits Boolean IR only and does not
//! implement [`CrtBackend`].

use std::ops::{Add, Mul, Neg, Sub};

pub use mixgc_arith::PrimeSet;

use crate::value::{Bit, Ctx, SInt, UInt};
use crate::{Audience, Backend, PartyId, ProgramError};

/// A backend that also computes on CRT values. `Bundle` is one value's residues (labels in
/// two-party backends, numbers in plaintext, sizes in the counter).
pub trait CrtBackend: Backend {
    type Bundle: Clone + std::fmt::Debug;

    /// A new input x ∈ Z_N over `set`, owned by `owner`; `value` is the owner's secret
    /// (needed where the backend computes on it). Values ≥ N are an input error.
    fn crt_input(
        &mut self,
        owner: PartyId,
        set: &PrimeSet,
        value: Option<u128>,
    ) -> Result<Self::Bundle, ProgramError>;

    /// The public constant `value mod N` (free).
    fn crt_constant(&mut self, set: &PrimeSet, value: u128) -> Self::Bundle;

    /// a + b mod N (free). Both over the same set.
    fn crt_add(&mut self, a: &Self::Bundle, b: &Self::Bundle) -> Self::Bundle;

    /// a − b mod N (free).
    fn crt_sub(&mut self, a: &Self::Bundle, b: &Self::Bundle) -> Self::Bundle;

    /// c·a mod N for a public c (free).
    fn crt_scale(&mut self, a: &Self::Bundle, c: u128) -> Self::Bundle;

    /// a·b mod N: one BMR16 product per prime.
    fn crt_mul(&mut self, a: &Self::Bundle, b: &Self::Bundle) -> Self::Bundle;

    /// a^e mod N for a public e: one projection per prime.
    fn crt_pow(&mut self, a: &Self::Bundle, e: u64) -> Self::Bundle;

    /// `yes` where the Boolean `select` is 1, else `no`: no + BC(s)·(yes − no), a one-bit
    /// composition then a product (ABLE §4's Mux).
    fn crt_mux(&mut self, select: Self::Wire, yes: &Self::Bundle, no: &Self::Bundle) -> Self::Bundle;

    /// Bit composition (BC): Σ 2^j·bits_j mod N over `set`, bits least significant first.
    fn crt_from_bits(&mut self, bits: &[Self::Wire], set: &PrimeSet) -> Self::Bundle;

    /// Bit decomposition (BD): the bits of x ∈ [0, N), bitlen(N − 1) of them, least
    /// significant first.
    fn crt_to_bits(&mut self, a: &Self::Bundle) -> Vec<Self::Wire>;

    /// Marks `a` as an output value; its value in [0, N) where this party learns it (as
    /// [`Backend::output`]: two-party backends reveal to the run's default audience).
    fn crt_output(&mut self, a: &Self::Bundle) -> Result<Option<u128>, ProgramError>;

    /// Like [`CrtBackend::crt_output`], revealing the value only to `to` on two-party
    /// backends. Backends without parties ignore `to`.
    fn crt_output_to(&mut self, a: &Self::Bundle, to: Audience) -> Result<Option<u128>, ProgramError> {
        let _ = to;
        self.crt_output(a)
    }
}

impl<B: CrtBackend> Ctx<B> {
    /// A secret x ∈ Z_N over `set`, owned by `owner` (`value` is the owner's secret).
    pub fn input_crt(
        &self,
        owner: PartyId,
        set: &PrimeSet,
        value: Option<u128>,
    ) -> Result<Crt<B>, ProgramError> {
        let bundle = self.with(|b| b.crt_input(owner, set, value))?;
        Ok(self.crt(set, bundle))
    }

    /// A signed secret x ∈ [−⌊N/2⌋, ⌈N/2⌉), held as x mod N.
    pub fn input_crt_signed(
        &self,
        owner: PartyId,
        set: &PrimeSet,
        value: Option<i128>,
    ) -> Result<Crt<B>, ProgramError> {
        let value = value.map(|v| signed_to_residue(set, v)).transpose()?;
        self.input_crt(owner, set, value)
    }

    /// The public constant `value mod N` (free).
    pub fn crt_constant(&self, set: &PrimeSet, value: u128) -> Crt<B> {
        let bundle = self.with(|b| b.crt_constant(set, value));
        self.crt(set, bundle)
    }

    fn crt(&self, set: &PrimeSet, bundle: B::Bundle) -> Crt<B> {
        Crt {
            set: set.clone(),
            bundle,
            ctx: self.clone(),
        }
    }
}

/// x mod N for a signed x in range for the offset convention.
fn signed_to_residue(set: &PrimeSet, x: i128) -> Result<u128, ProgramError> {
    let n = set.product();
    let (low, high) = signed_range(n);
    if x < low || x > high {
        return Err(ProgramError::OutOfRange(format!(
            "{x} is outside [{low}, {high}], the signed range of N = {n}"
        )));
    }
    // Not `x.rem_euclid(n as i128)`: N may exceed i128::MAX. Here |x| ≤ ⌊N/2⌋ < N.
    Ok(if x < 0 { n - x.unsigned_abs() } else { x as u128 })
}

/// The signed values of Z_N: [−⌊N/2⌋, ⌈N/2⌉ − 1]. N < 2^128 always fits i128 after halving.
fn signed_range(n: u128) -> (i128, i128) {
    let low = -((n / 2) as i128);
    (low, (n - n / 2) as i128 - 1)
}

/// The signed value of a residue r ∈ [0, N) under the offset convention.
pub fn residue_to_signed(n: u128, r: u128) -> i128 {
    if r >= n - n / 2 {
        -((n - r) as i128)
    } else {
        r as i128
    }
}

/// A secret value in Z_N; see the module docs.
pub struct Crt<B: CrtBackend> {
    set: PrimeSet,
    bundle: B::Bundle,
    ctx: Ctx<B>,
}

impl<B: CrtBackend> Clone for Crt<B> {
    fn clone(&self) -> Self {
        self.ctx.crt(&self.set, self.bundle.clone())
    }
}

impl<B: CrtBackend> Crt<B> {
    pub fn set(&self) -> &PrimeSet {
        &self.set
    }

    /// The backend's residues.
    pub fn bundle(&self) -> &B::Bundle {
        &self.bundle
    }

    fn same_set(&self, other: &Crt<B>) {
        assert!(
            self.set == other.set,
            "CRT values over different prime sets: {:?} and {:?}",
            self.set.primes(),
            other.set.primes()
        );
    }

    fn binary(&self, other: &Crt<B>, f: impl FnOnce(&mut B, &B::Bundle, &B::Bundle) -> B::Bundle) -> Crt<B> {
        self.same_set(other);
        let bundle = self.ctx.with(|b| f(b, &self.bundle, &other.bundle));
        self.ctx.crt(&self.set, bundle)
    }

    fn unary(&self, f: impl FnOnce(&mut B, &B::Bundle) -> B::Bundle) -> Crt<B> {
        let bundle = self.ctx.with(|b| f(b, &self.bundle));
        self.ctx.crt(&self.set, bundle)
    }

    /// c·self mod N for a public c (free).
    pub fn scale(&self, c: u128) -> Crt<B> {
        self.unary(|b, a| b.crt_scale(a, c))
    }

    /// self^e mod N for a public e.
    pub fn pow(&self, e: u64) -> Crt<B> {
        self.unary(|b, a| b.crt_pow(a, e))
    }

    /// Bit composition (BC): the CRT value of `x mod N`.
    pub fn from_uint(x: &UInt<B>, set: &PrimeSet) -> Crt<B> {
        let ctx = x.ctx();
        let bundle = ctx.with(|b| b.crt_from_bits(x.wires(), set));
        ctx.crt(set, bundle)
    }

    /// Bit decomposition (BD): self as an unsigned integer in [0, N) of bitlen(N − 1) bits.
    pub fn to_uint(&self) -> UInt<B> {
        let wires = self.ctx.with(|b| b.crt_to_bits(&self.bundle));
        UInt::from_wires(&self.ctx, wires)
    }

    /// Bit decomposition under the signed convention: a two's-complement value one bit
    /// wider than [`Crt::to_uint`], x − N where x ≥ ⌈N/2⌉.
    pub fn to_sint(&self) -> SInt<B> {
        let n = self.set.product();
        let x = self.to_uint();
        let w = x.width() + 1;
        let x = x.resize(w).as_signed();
        // N and ⌈N/2⌉ as w-bit constants (w ≤ 129 bits; N itself may exceed i128::MAX).
        let half = self.ctx.uint(w, n - n / 2).as_signed();
        let negative = !&x.less_than(&half);
        let wrapped = &x - &self.ctx.uint(w, n).as_signed();
        negative.select(&wrapped, &x)
    }

    /// Reveals self (to the run's default audience); its value in [0, N) where this party
    /// learns it.
    pub fn reveal(&self) -> Result<Option<u128>, ProgramError> {
        self.ctx.with(|b| b.crt_output(&self.bundle))
    }

    /// Reveals self only to `to` (both parties' programs name the same audience).
    pub fn reveal_to(&self, to: Audience) -> Result<Option<u128>, ProgramError> {
        self.ctx.with(|b| b.crt_output_to(&self.bundle, to))
    }

    /// Reveals self as a signed value (offset convention).
    pub fn reveal_signed(&self) -> Result<Option<i128>, ProgramError> {
        let n = self.set.product();
        Ok(self.reveal()?.map(|r| residue_to_signed(n, r)))
    }
}

impl<B: CrtBackend> Bit<B> {
    /// `yes` where this bit is 1, else `no` (both over the same set).
    pub fn select_crt(&self, yes: &Crt<B>, no: &Crt<B>) -> Crt<B> {
        yes.binary(no, |b, y, n| b.crt_mux(self.wire(), y, n))
    }
}

impl<B: CrtBackend> Add for &Crt<B> {
    type Output = Crt<B>;
    fn add(self, other: &Crt<B>) -> Crt<B> {
        self.binary(other, |b, x, y| b.crt_add(x, y))
    }
}

impl<B: CrtBackend> Sub for &Crt<B> {
    type Output = Crt<B>;
    fn sub(self, other: &Crt<B>) -> Crt<B> {
        self.binary(other, |b, x, y| b.crt_sub(x, y))
    }
}

impl<B: CrtBackend> Mul for &Crt<B> {
    type Output = Crt<B>;
    fn mul(self, other: &Crt<B>) -> Crt<B> {
        self.binary(other, |b, x, y| b.crt_mul(x, y))
    }
}

impl<B: CrtBackend> Neg for &Crt<B> {
    type Output = Crt<B>;
    fn neg(self) -> Crt<B> {
        let n = self.set.product();
        self.scale(n - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_offset_convention() {
        for n in [2u128, 3, 30, 330, 510_510] {
            let (low, high) = signed_range(n);
            assert_eq!(high - low + 1, n as i128);
            for x in low..=high.min(low + 1000) {
                let set_free = x.rem_euclid(n as i128) as u128;
                assert_eq!(residue_to_signed(n, set_free), x, "n = {n}");
            }
            assert_eq!(residue_to_signed(n, 0), 0);
        }
    }
}
