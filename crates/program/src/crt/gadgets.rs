//! The CRT gadgets, written once over the primitives of [`ArithBackend`] (ABLE, Mo et al.,
//! §2–3; BMR16 "Garbling gadgets"): every backend that implements the primitives runs
//! them, and the provided methods of [`ArithBackend`] call them.
//!
//! - Free: constants, +, −, public scaling, residue by residue.
//! - Product: one BMR16 product per odd prime ([`ArithBackend::mod_mul`]), and the AND of
//!   the Boolean core for a mod-2 residue.
//! - Power: one projection x ↦ x^e per prime.
//! - Multiplexer: no + BC(s)·(yes − no), a one-bit composition then a product (ABLE §4).
//! - Bit composition (BC, ABLE Fig. 3): x mod p = Σ 2^j·x_j mod p, one projection
//!   Z_2 → Z_p per bit and odd prime; x mod 2 is bit 0.
//! - Bit decomposition (BD, ABLE Fig. 2, with the mod-2^k conversions of Li–Liu
//!   EUROCRYPT 2024): each residue x_i goes to the bits of t_i = x_i·(N/p_i)^{-1} mod p_i
//!   by projections Z_p → Z_2; a weighted composition mod 2^k gives S = Σ t_i·(N/p_i) <
//!   Σ (p_i − 1)·N/p_i (no wrap: 2^k > S), S ≡ x (mod N); a mod-2^k decomposition gives S's
//!   bits (bit i of x is the slice i of A − Σ_{j<i} 2^j·X_j, X_j bit j lifted mod
//!   2^(k−j)); and a Boolean circuit on the Boolean core subtracts 2^j·N where S ≥ 2^j·N,
//!   for j = ⌊log2 q_max⌋ … 0 (q_max = ⌊S_max/N⌋ < number of primes), leaving x = S mod N
//!   in bitlen(N − 1) bits. ABLE reduces mod N with further mod-2^k gadgets; the Boolean
//!   comparison costs two AND gates per bit and step instead.

use super::{ArithBackend, Modulus, PrimeSet};
use crate::modular::pow_mod;
use crate::ProgramError;

/// One wire per prime of a set, in the set's order.
type Residues<B> = Vec<<B as ArithBackend>::ModWire>;

/// 2^bits − 1 for bits in 1..=128.
fn mask(bits: u32) -> u128 {
    u128::MAX >> (128 - bits)
}

/// The number of bits of `v` (0 for 0).
pub(crate) fn bit_len(v: u128) -> u32 {
    u128::BITS - v.leading_zeros()
}

/// bitlen(N − 1): the width of a bit decomposition over `set`.
pub fn decomposition_width(set: &PrimeSet) -> u32 {
    bit_len(set.product() - 1)
}

/// p of a modulus of a prime set (primes are below 2^16).
fn prime(m: Modulus) -> u64 {
    m.value() as u64
}

/// The public constant `value mod N` (free).
pub fn constant<B: ArithBackend + ?Sized>(b: &mut B, set: &PrimeSet, value: u128) -> Residues<B> {
    let moduli = set.moduli().iter();
    moduli
        .map(|&m| b.mod_constant(m, (value % m.value()) as u64))
        .collect()
}

/// x + y mod N (free).
pub fn add<B: ArithBackend + ?Sized>(b: &mut B, x: &[B::ModWire], y: &[B::ModWire]) -> Residues<B> {
    x.iter().zip(y).map(|(x, y)| b.mod_add(x, y)).collect()
}

/// x − y mod N (free).
pub fn sub<B: ArithBackend + ?Sized>(b: &mut B, x: &[B::ModWire], y: &[B::ModWire]) -> Residues<B> {
    x.iter().zip(y).map(|(x, y)| b.mod_sub(x, y)).collect()
}

/// c·x mod N for a public c (free).
pub fn scale<B: ArithBackend + ?Sized>(b: &mut B, set: &PrimeSet, x: &[B::ModWire], c: u128) -> Residues<B> {
    let residues = set.moduli().iter().zip(x);
    residues
        .map(|(&m, x)| b.mod_scale(x, (c % m.value()) as u64))
        .collect()
}

/// x·y mod N: the products of the odd residues in one [`ArithBackend::mod_mul`], then an
/// AND of the Boolean core for the mod-2 residue.
pub fn mul<B: ArithBackend + ?Sized>(
    b: &mut B,
    set: &PrimeSet,
    x: &[B::ModWire],
    y: &[B::ModWire],
) -> Residues<B> {
    let residues = || set.moduli().iter().zip(x.iter().zip(y));
    let odd: Vec<_> = residues()
        .filter(|(m, _)| !m.is_boolean())
        .map(|(_, p)| p)
        .collect();
    let mut products = b.mod_mul(&odd).into_iter();
    residues()
        .map(|(m, (x, y))| match m.is_boolean() {
            false => products.next().expect("one product per odd prime"),
            true => {
                let (x, y) = (b.mod2_to_bit(x), b.mod2_to_bit(y));
                let product = b.and(x, y);
                b.bit_to_mod2(product)
            }
        })
        .collect()
}

/// x^e mod N for a public e (0^0 = 1): one projection x ↦ x^e per prime.
pub fn pow<B: ArithBackend + ?Sized>(b: &mut B, set: &PrimeSet, x: &[B::ModWire], e: u64) -> Residues<B> {
    let residues = set.moduli().iter().zip(x);
    residues
        .map(|(&m, x)| {
            let p = prime(m);
            let table: Vec<u64> = (0..p).map(|v| pow_mod(v.into(), e, p.into()) as u64).collect();
            b.mod_project(x, m, &table)
        })
        .collect()
}

/// `yes` where the Boolean `select` is 1, else `no`: no + BC(s)·(yes − no).
pub fn mux<B: ArithBackend + ?Sized>(
    b: &mut B,
    set: &PrimeSet,
    select: B::Wire,
    yes: &[B::ModWire],
    no: &[B::ModWire],
) -> Residues<B> {
    let s = from_bits(b, &[select], set);
    let difference = sub(b, yes, no);
    let product = mul(b, set, &s, &difference);
    add(b, &product, no)
}

/// Bit composition (BC): Σ 2^j·bits_j mod N over `set`, bits least significant first; a
/// composition of no bits is a gadget error.
pub fn from_bits<B: ArithBackend + ?Sized>(b: &mut B, bits: &[B::Wire], set: &PrimeSet) -> Residues<B> {
    if bits.is_empty() {
        b.gadget_error(ProgramError::Arith("no bits to compose".into()));
        return constant(b, set, 0);
    }
    let terms: Vec<(&[B::Wire], Modulus)> = set
        .moduli()
        .iter()
        .filter(|m| !m.is_boolean())
        .map(|&m| (bits, m))
        .collect();
    let mut composed = b.bits_to_mod(&terms).into_iter();
    set.moduli()
        .iter()
        .map(|m| match m.is_boolean() {
            true => b.bit_to_mod2(bits[0]),
            false => composed.next().expect("one composition per odd prime"),
        })
        .collect()
}

/// The composition plan of a CRT bit decomposition: for each residue bit, its weight
/// 2^j·N/p_i; and S_max, the largest composed sum.
struct CrtSum {
    weights: Vec<u128>,
    max: u128,
}

impl CrtSum {
    fn new(set: &PrimeSet) -> Result<CrtSum, ProgramError> {
        let n = set.product();
        let too_wide = || ProgramError::Arith(format!("the CRT sum for N = {n} needs more than 128 bits"));
        let mut max = 0u128;
        let mut weights = Vec::new();
        for &p in set.primes() {
            let cofactor = n / p as u128;
            let term = cofactor.checked_mul(p as u128 - 1).ok_or_else(too_wide)?;
            max = max.checked_add(term).ok_or_else(too_wide)?;
            // 2^j ≤ p − 1 for every bit j of a residue, so the weights are at most `term`.
            weights.extend((0..bit_len(p as u128 - 1)).map(|j| cofactor << j));
        }
        Ok(CrtSum { weights, max })
    }
}

/// Bit decomposition (BD): the bits of x ∈ [0, N), bitlen(N − 1) of them, least
/// significant first. Where the CRT sum exceeds 128 bits, a gadget error.
pub fn to_bits<B: ArithBackend + ?Sized>(b: &mut B, set: &PrimeSet, x: &[B::ModWire]) -> Vec<B::Wire> {
    let plan = match CrtSum::new(set) {
        Ok(plan) => plan,
        Err(e) => {
            b.gadget_error(e);
            let zero = b.constant(false);
            return vec![zero; decomposition_width(set) as usize];
        }
    };
    let bits = residue_bits(b, set, x);
    let k = bit_len(plan.max);
    let sum = compose_ring(b, &bits, &plan.weights, k);
    let sum_bits = decompose_ring(b, &sum, k);
    reduce_mod(b, sum_bits, set.product(), plan.max)
}

/// The bits of t_i = x_i·(N/p_i)^{-1} mod p_i for every residue, in the order of
/// [`CrtSum`]'s weights: the mod-2 residue is its own bit, each odd residue gives
/// bitlen(p − 1) projections Z_p → Z_2.
fn residue_bits<B: ArithBackend + ?Sized>(b: &mut B, set: &PrimeSet, x: &[B::ModWire]) -> Vec<B::Wire> {
    let mut bits = Vec::new();
    for (wire, &m) in x.iter().zip(set.moduli()) {
        if m.is_boolean() {
            bits.push(b.mod2_to_bit(wire));
            continue;
        }
        let p = prime(m);
        let cofactor = (set.product() / p as u128 % p as u128) as u64;
        let inverse = m
            .inverse(cofactor)
            .expect("N/p is invertible mod p for distinct primes");
        for j in 0..bit_len(p as u128 - 1) {
            let table: Vec<u64> = (0..p).map(|v| ((v * inverse % p) >> j) & 1).collect();
            bits.push(b.mod_to_bit(wire, &table));
        }
    }
    bits
}

/// Σ w_j·x_j mod 2^k from the Boolean wires of the x_j: bit j lifted mod 2^(k − tz(w_j))
/// (w_j·Z mod 2^k only depends on Z mod 2^(k − tz(w_j))), then shifted into the sum.
fn compose_ring<B: ArithBackend + ?Sized>(
    b: &mut B,
    bits: &[B::Wire],
    weights: &[u128],
    k: u32,
) -> B::RingWire {
    let mut sum = b.ring_zero(k);
    for (&bit, &weight) in bits.iter().zip(weights) {
        let weight = weight & mask(k);
        if weight == 0 {
            continue;
        }
        let shift = weight.trailing_zeros();
        let lifted = b.ring_lift(bit, k - shift);
        b.ring_add_shifted(&mut sum, &lifted, weight >> shift, shift);
    }
    sum
}

/// The Boolean wires of the k bits of the ring wire `a` mod 2^k.
fn decompose_ring<B: ArithBackend + ?Sized>(b: &mut B, a: &B::RingWire, k: u32) -> Vec<B::Wire> {
    let mut rest = a.clone();
    let mut out = Vec::with_capacity(k as usize);
    for i in 0..k {
        // rest carries x − (x mod 2^i), a multiple of 2^i: its slice i is bit i.
        let bit = b.ring_slice(&rest, i);
        out.push(bit);
        if i + 1 < k {
            let lifted = b.ring_lift(bit, k - i);
            b.ring_add_shifted(&mut rest, &lifted, u128::MAX, i);
        }
    }
    out
}

/// s mod n for the Boolean wires of s ≤ s_max: conditional subtractions of 2^j·n, largest
/// j first, each leaving s < 2^j·n.
fn reduce_mod<B: ArithBackend + ?Sized>(
    b: &mut B,
    mut s: Vec<B::Wire>,
    n: u128,
    s_max: u128,
) -> Vec<B::Wire> {
    for j in (0..bit_len(s_max / n)).rev() {
        let c = n << j; // ≤ (s_max / n)·n ≤ s_max: no overflow
        s = subtract_if_at_least(b, &s, c);
        s.truncate(bit_len(c - 1) as usize);
    }
    s.truncate(bit_len(n - 1).max(1) as usize);
    s
}

/// A Boolean value inside the reduction: a public constant or a wire. Gates on constants
/// are folded, so the bits of N cost nothing.
#[derive(Clone, Copy)]
enum Bit<W> {
    Const(bool),
    Wire(W),
}

impl<W: Copy> Bit<W> {
    fn and<B: ArithBackend<Wire = W> + ?Sized>(self, other: Bit<W>, b: &mut B) -> Bit<W> {
        match (self, other) {
            (Bit::Const(false), _) | (_, Bit::Const(false)) => Bit::Const(false),
            (Bit::Const(true), x) | (x, Bit::Const(true)) => x,
            (Bit::Wire(x), Bit::Wire(y)) => Bit::Wire(b.and(x, y)),
        }
    }

    fn not<B: ArithBackend<Wire = W> + ?Sized>(self, b: &mut B) -> Bit<W> {
        match self {
            Bit::Const(v) => Bit::Const(!v),
            Bit::Wire(x) => Bit::Wire(b.not(x)),
        }
    }

    /// self ⊕ c for a public c.
    fn xor_const<B: ArithBackend<Wire = W> + ?Sized>(self, c: bool, b: &mut B) -> Bit<W> {
        if c {
            self.not(b)
        } else {
            self
        }
    }
}

/// s − c if s ≥ c, else s, for a public c < 2^len(s). One borrow chain of s − c (an AND per
/// bit once the borrow is no longer constant), then one multiplexer AND per bit where s and
/// s − c can differ, all in one [`crate::Backend::and_many`].
fn subtract_if_at_least<B: ArithBackend + ?Sized>(b: &mut B, s: &[B::Wire], c: u128) -> Vec<B::Wire> {
    let mut borrow = Bit::Const(false);
    let mut differs = Vec::with_capacity(s.len()); // (s − c)_i ⊕ s_i = c_i ⊕ borrow_i
    for (i, &s_i) in s.iter().enumerate() {
        let c_i = (c >> i) & 1 == 1;
        differs.push(borrow.xor_const(c_i, b));
        let s_i = Bit::Wire(s_i);
        borrow = if c_i {
            // borrow out of s_i − 1 − b: ¬s_i ∨ b = ¬(s_i ∧ ¬b)
            s_i.and(borrow.not(b), b).not(b)
        } else {
            // borrow out of s_i − b: ¬s_i ∧ b
            s_i.not(b).and(borrow, b)
        };
    }
    let at_least = borrow.not(b);
    // at_least ∧ differs_i, folded where either is constant; the rest in one batch.
    let mut pairs = Vec::new();
    let mut masked = Vec::with_capacity(s.len());
    for &d in &differs {
        masked.push(match (at_least, d) {
            (Bit::Wire(a), Bit::Wire(d)) => {
                pairs.push((a, d));
                None
            }
            _ => Some(at_least.and(d, b)),
        });
    }
    let mut products = b.and_many(&pairs).into_iter();
    s.iter()
        .zip(masked)
        .map(
            |(&s_i, m)| match m.unwrap_or_else(|| Bit::Wire(products.next().expect("one AND per pair"))) {
                Bit::Const(false) => s_i,
                Bit::Const(true) => b.not(s_i),
                Bit::Wire(x) => b.xor(s_i, x),
            },
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use mixgc_moduli::primes::{first_primes, min_sum_primes};

    use super::*;
    use crate::Plain;

    /// The BD gadget on plaintext residues gives the bits of x wherever its CRT sum fits
    /// 128 bits ([`Plain`] itself decomposes the integer), and refuses wider sets.
    #[test]
    fn decomposition_gives_the_bits_of_x() {
        for w in (2..=64).chain([80, 100, 120]) {
            for set in [min_sum_primes(w).unwrap(), first_primes(w).unwrap()] {
                let n = set.product();
                for x in [0, 1, n / 3, n / 2, n - 1] {
                    let mut plain = Plain::default();
                    let residues = plain.crt_input(crate::PartyId::GARBLER, &set, Some(x)).unwrap();
                    let bits = to_bits(&mut plain, &set, &residues);
                    assert_eq!(bits.len() as u32, decomposition_width(&set));
                    let value = bits.iter().rev().fold(0u128, |v, &b| v << 1 | u128::from(b));
                    assert_eq!(value, x, "{:?}", set.primes());
                    assert_eq!(plain.crt_output(&set, &residues), Ok(Some(x)));
                }
            }
        }
        let wide = first_primes(127).unwrap();
        let mut plain = Plain::default();
        let residues = plain.crt_constant(&wide, 5);
        to_bits(&mut plain, &wide, &residues);
        assert!(matches!(
            plain.crt_output(&wide, &residues),
            Err(ProgramError::Arith(_))
        ));
    }
}
