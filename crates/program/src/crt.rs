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
//! Backends implement [`ArithBackend`], the arithmetic extension of the Boolean core
//! [`Backend`]: label-level primitives over wires that carry their modulus. The gadgets
//! (products, powers, the multiplexer, BC and BD) are written once over these primitives
//! ([`gadgets`]) and are provided methods of the trait: the two-party backends of
//! `mixgc-session` implement the primitives only. [`crate::Plain`] computes on residues, its
//! BD on the integer mod N (an independent reference, defined for every N); [`crate::Counter`]
//! counts each gadget's table once per prime set by running the gadget on its primitives.
//! [`crate::Recorder`] emits Boolean IR only and does not implement [`ArithBackend`].

pub mod gadgets;

use std::ops::{Add, Mul, Neg, Sub};

pub use mixgc_moduli::{Modulus, PrimeSet};

use crate::value::{Bit, Ctx, SInt, UInt};
use crate::{Audience, Backend, PartyId, ProgramError};

/// The arithmetic extension of the Boolean core: wires mod a prime p ([`Self::ModWire`];
/// mod 2 it is a Boolean wire's label, converted for free) and mod 2^k ([`Self::RingWire`],
/// the intermediate of a bit decomposition), with the primitives a garbling scheme offers
/// on them (BMR16 "Garbling gadgets"): free linear operations, projections by a public
/// table, products, and the lifts of Boolean wires. Row counts are those of the two-party
/// backends (a row is one label of the output modulus; a ring row mod 2^m counts m rows).
///
/// The CRT operations on values in Z_N, N a product of distinct primes (one wire per
/// prime, in the [`PrimeSet`]'s order), are provided methods that run [`gadgets`]. A backend
/// without mod-p projections (an n-party or malicious one) implements [`Backend`] only.
///
/// Primitives do not fail: a backend that cannot run one (the peer failed, a gadget over
/// operands it cannot garble) records the error and reports it at the next input or output,
/// as [`Backend::and`] does.
pub trait ArithBackend: Backend {
    /// A wire mod a prime (a label, a residue in plaintext, its modulus in the counter).
    type ModWire: Clone + std::fmt::Debug;
    /// A wire mod 2^k, 1 ≤ k ≤ 128.
    type RingWire: Clone + std::fmt::Debug;

    /// A new input x ∈ Z_N over `set`, owned by `owner`: one wire per residue. `value` is the
    /// owner's secret (needed where the backend computes on it); values ≥ N are an input
    /// error.
    fn crt_input(
        &mut self,
        owner: PartyId,
        set: &PrimeSet,
        value: Option<u128>,
    ) -> Result<Vec<Self::ModWire>, ProgramError>;

    /// Reveals the value x ∈ [0, N) of the residues `x` over `set` (to the run's default
    /// audience on two-party backends), where this party learns it.
    fn crt_output(&mut self, set: &PrimeSet, x: &[Self::ModWire]) -> Result<Option<u128>, ProgramError>;

    /// Like [`ArithBackend::crt_output`], revealing the value only to `to` on two-party
    /// backends. Backends without parties ignore `to`.
    fn crt_output_to(
        &mut self,
        set: &PrimeSet,
        x: &[Self::ModWire],
        to: Audience,
    ) -> Result<Option<u128>, ProgramError> {
        let _ = to;
        self.crt_output(set, x)
    }

    /// The public constant `value` (< m) on a wire mod `m` (free).
    fn mod_constant(&mut self, m: Modulus, value: u64) -> Self::ModWire;

    /// a + b (free; same modulus).
    fn mod_add(&mut self, a: &Self::ModWire, b: &Self::ModWire) -> Self::ModWire;

    /// a − b (free; same modulus).
    fn mod_sub(&mut self, a: &Self::ModWire, b: &Self::ModWire) -> Self::ModWire;

    /// c·a for a public c below the modulus (free).
    fn mod_scale(&mut self, a: &Self::ModWire, c: u64) -> Self::ModWire;

    /// The projection of `a` (mod p) to a wire mod `out` carrying `table[a]`: p − 1 rows.
    fn mod_project(&mut self, a: &Self::ModWire, out: Modulus, table: &[u64]) -> Self::ModWire;

    /// The projection of `a` (mod p) to Z_2 by `table` (bits), as a Boolean wire: p − 1 rows.
    fn mod_to_bit(&mut self, a: &Self::ModWire, table: &[u64]) -> Self::Wire;

    /// For each term (bits, m), m an odd prime: Σ_j 2^j·bits_j mod m, by one projection
    /// Z_2 → Z_m of each bit (one row each), term by term, bit by bit.
    fn bits_to_mod(&mut self, terms: &[(&[Self::Wire], Modulus)]) -> Vec<Self::ModWire>;

    /// The products a·b of the pairs, each mod an odd prime p (BMR16's generalized half
    /// gate: 2(p − 1) rows each), in order.
    fn mod_mul(&mut self, pairs: &[(&Self::ModWire, &Self::ModWire)]) -> Vec<Self::ModWire>;

    /// The mod-2 wire of a Boolean wire (free: the same label).
    fn bit_to_mod2(&mut self, bit: Self::Wire) -> Self::ModWire;

    /// The Boolean wire of a mod-2 wire (free).
    fn mod2_to_bit(&mut self, a: &Self::ModWire) -> Self::Wire;

    /// The wire mod 2^`bits` of the bit on `bit`: `bits` − 1 rows (none for 1 bit).
    fn ring_lift(&mut self, bit: Self::Wire, bits: u32) -> Self::RingWire;

    /// The constant 0 mod 2^`bits` (free).
    fn ring_zero(&mut self, bits: u32) -> Self::RingWire;

    /// acc ← acc + c·2^shift·x mod 2^k, for acc mod 2^k and x mod 2^(k − shift) (free).
    fn ring_add_shifted(&mut self, acc: &mut Self::RingWire, x: &Self::RingWire, c: u128, shift: u32);

    /// Bit i of the value of `a`, which must be a multiple of 2^i, as a Boolean wire (free).
    fn ring_slice(&mut self, a: &Self::RingWire, i: u32) -> Self::Wire;

    /// The projections Z_2 → Z_2 of the Boolean wire `a` through `tables`, `[t(0), t(1)]`
    /// each, that only the garbler knows (the evaluator and the counter pass zeros): one row
    /// per table, as [`ArithBackend::mod_to_bit`] of `a`'s mod-2 wire, which is the default.
    /// Two-party backends garble them as half gates with the garbler's table (no mod-2 label
    /// conversions), hashed in batches; the row count is the same.
    fn bit_projections(&mut self, a: Self::Wire, tables: &[[bool; 2]]) -> Vec<Self::Wire> {
        let a = self.bit_to_mod2(a);
        tables
            .iter()
            .map(|t| self.mod_to_bit(&a, &[u64::from(t[0]), u64::from(t[1])]))
            .collect()
    }

    /// A gadget cannot run over its operands (e.g. a BD whose CRT sum exceeds 128 bits):
    /// recorded, and reported at the next input or output.
    fn gadget_error(&mut self, e: ProgramError);

    /// The public constant `value mod N` over `set` (free).
    fn crt_constant(&mut self, set: &PrimeSet, value: u128) -> Vec<Self::ModWire> {
        gadgets::constant(self, set, value)
    }

    /// a + b mod N (free). Both over `set`.
    fn crt_add(&mut self, set: &PrimeSet, a: &[Self::ModWire], b: &[Self::ModWire]) -> Vec<Self::ModWire> {
        let _ = set;
        gadgets::add(self, a, b)
    }

    /// a − b mod N (free).
    fn crt_sub(&mut self, set: &PrimeSet, a: &[Self::ModWire], b: &[Self::ModWire]) -> Vec<Self::ModWire> {
        let _ = set;
        gadgets::sub(self, a, b)
    }

    /// c·a mod N for a public c (free).
    fn crt_scale(&mut self, set: &PrimeSet, a: &[Self::ModWire], c: u128) -> Vec<Self::ModWire> {
        gadgets::scale(self, set, a, c)
    }

    /// a·b mod N: Σ 2(p − 1) rows.
    fn crt_mul(&mut self, set: &PrimeSet, a: &[Self::ModWire], b: &[Self::ModWire]) -> Vec<Self::ModWire> {
        gadgets::mul(self, set, a, b)
    }

    /// a^e mod N for a public e: Σ (p − 1) rows.
    fn crt_pow(&mut self, set: &PrimeSet, a: &[Self::ModWire], e: u64) -> Vec<Self::ModWire> {
        gadgets::pow(self, set, a, e)
    }

    /// `yes` where the Boolean `select` is 1, else `no`: no + BC(s)·(yes − no) (ABLE §4's Mux).
    fn crt_mux(
        &mut self,
        set: &PrimeSet,
        select: Self::Wire,
        yes: &[Self::ModWire],
        no: &[Self::ModWire],
    ) -> Vec<Self::ModWire> {
        gadgets::mux(self, set, select, yes, no)
    }

    /// Bit composition (BC): Σ 2^j·bits_j mod N over `set`, bits least significant first.
    fn crt_from_bits(&mut self, bits: &[Self::Wire], set: &PrimeSet) -> Vec<Self::ModWire> {
        gadgets::from_bits(self, bits, set)
    }

    /// Bit decomposition (BD): the bits of x ∈ [0, N), bitlen(N − 1) of them, least
    /// significant first.
    fn crt_to_bits(&mut self, set: &PrimeSet, a: &[Self::ModWire]) -> Vec<Self::Wire> {
        gadgets::to_bits(self, set, a)
    }
}

impl<B: ArithBackend> Ctx<B> {
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

    pub(crate) fn crt(&self, set: &PrimeSet, bundle: Vec<B::ModWire>) -> Crt<B> {
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
pub struct Crt<B: ArithBackend> {
    set: PrimeSet,
    bundle: Vec<B::ModWire>,
    ctx: Ctx<B>,
}

impl<B: ArithBackend> Clone for Crt<B> {
    fn clone(&self) -> Self {
        self.ctx.crt(&self.set, self.bundle.clone())
    }
}

impl<B: ArithBackend> Crt<B> {
    pub fn set(&self) -> &PrimeSet {
        &self.set
    }

    /// The backend's residues, one wire per prime of the set.
    pub fn bundle(&self) -> &[B::ModWire] {
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

    fn binary(
        &self,
        other: &Crt<B>,
        f: impl FnOnce(&mut B, &PrimeSet, &[B::ModWire], &[B::ModWire]) -> Vec<B::ModWire>,
    ) -> Crt<B> {
        self.same_set(other);
        let bundle = self.ctx.with(|b| f(b, &self.set, &self.bundle, &other.bundle));
        self.ctx.crt(&self.set, bundle)
    }

    fn unary(&self, f: impl FnOnce(&mut B, &PrimeSet, &[B::ModWire]) -> Vec<B::ModWire>) -> Crt<B> {
        let bundle = self.ctx.with(|b| f(b, &self.set, &self.bundle));
        self.ctx.crt(&self.set, bundle)
    }

    /// c·self mod N for a public c (free).
    pub fn scale(&self, c: u128) -> Crt<B> {
        self.unary(|b, set, a| b.crt_scale(set, a, c))
    }

    /// self^e mod N for a public e.
    pub fn pow(&self, e: u64) -> Crt<B> {
        self.unary(|b, set, a| b.crt_pow(set, a, e))
    }

    /// Bit composition (BC): the CRT value of `x mod N`.
    pub fn from_uint(x: &UInt<B>, set: &PrimeSet) -> Crt<B> {
        let ctx = x.ctx();
        let bundle = ctx.with(|b| b.crt_from_bits(x.wires(), set));
        ctx.crt(set, bundle)
    }

    /// Bit decomposition (BD): self as an unsigned integer in [0, N) of bitlen(N − 1) bits.
    pub fn to_uint(&self) -> UInt<B> {
        let wires = self.ctx.with(|b| b.crt_to_bits(&self.set, &self.bundle));
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
        self.ctx.with(|b| b.crt_output(&self.set, &self.bundle))
    }

    /// Reveals self only to `to` (both parties' programs name the same audience).
    pub fn reveal_to(&self, to: Audience) -> Result<Option<u128>, ProgramError> {
        self.ctx.with(|b| b.crt_output_to(&self.set, &self.bundle, to))
    }

    /// Reveals self as a signed value (offset convention).
    pub fn reveal_signed(&self) -> Result<Option<i128>, ProgramError> {
        let n = self.set.product();
        Ok(self.reveal()?.map(|r| residue_to_signed(n, r)))
    }
}

impl<B: ArithBackend> Bit<B> {
    /// `yes` where this bit is 1, else `no` (both over the same set).
    pub fn select_crt(&self, yes: &Crt<B>, no: &Crt<B>) -> Crt<B> {
        yes.binary(no, |b, set, y, n| b.crt_mux(set, self.wire(), y, n))
    }
}

impl<B: ArithBackend> Add for &Crt<B> {
    type Output = Crt<B>;
    fn add(self, other: &Crt<B>) -> Crt<B> {
        self.binary(other, |b, set, x, y| b.crt_add(set, x, y))
    }
}

impl<B: ArithBackend> Sub for &Crt<B> {
    type Output = Crt<B>;
    fn sub(self, other: &Crt<B>) -> Crt<B> {
        self.binary(other, |b, set, x, y| b.crt_sub(set, x, y))
    }
}

impl<B: ArithBackend> Mul for &Crt<B> {
    type Output = Crt<B>;
    fn mul(self, other: &Crt<B>) -> Crt<B> {
        self.binary(other, |b, set, x, y| b.crt_mul(set, x, y))
    }
}

impl<B: ArithBackend> Neg for &Crt<B> {
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
