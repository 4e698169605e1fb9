//! Wire moduli: odd primes, and the powers of two of the Boolean ↔ arithmetic conversion
//! gadgets. No other modulus can be built, so no composite-modulus wire can exist
//! (`docs/security.md`, "Moduli: primes and powers of two only"; composite values are CRT
//! bundles, see [`crate::PrimeSet`]).

use std::fmt;

use crate::prime::{OddPrime, ODD_GROUPS};
use crate::ArithError;

/// The largest odd prime a wire may use: the largest prime below 2^16. Projection tables
/// have p − 1 rows, so wider single wires would be impractical anyway.
pub const MAX_ODD_PRIME: u64 = 65_521;

/// The largest k of a mod-2^k wire (digits are 64-bit words).
pub const MAX_POWER_OF_TWO_EXPONENT: u32 = 64;

/// Security parameter: every nonzero multiple of a Δ has at least this many bits of
/// min-entropy.
const SECURITY_BITS: u32 = 128;

/// Group values a [`GroupBuffer`] keeps on the stack: every odd prime and mod 2 (at most 3
/// groups, tested in `mixgc_arith`'s hash); mod-2^k labels (k ≥ 2, up to 128 groups) go to the heap.
const SMALL_GROUPS: usize = 3;

/// The largest odd prime whose multiples c·k mod p [`Modulus::add_scaled_sum_digits`]
/// tabulates: up to 31, p stays below a label's ℓ digits, so the table pays for itself.
const MULTIPLES_MAX_P: u64 = 31;

/// Scratch space for the group values of one label ([`Modulus::group_buffer`]), without
/// zeroing a worst-case array on every gate.
pub struct GroupBuffer {
    small: [u64; SMALL_GROUPS],
    large: Vec<u64>,
    len: usize,
}

impl GroupBuffer {
    #[inline]
    pub fn values(&mut self) -> &mut [u64] {
        if self.len <= SMALL_GROUPS {
            &mut self.small[..self.len]
        } else {
            &mut self.large
        }
    }
}

/// The modulus of one wire: an odd prime p, or 2^k (k = 1 is the Boolean wire).
///
/// The representation is private and every constructor checks its argument, so a value of
/// this type is always an odd prime ≤ [`MAX_ODD_PRIME`] or a power of two 2^k with
/// 1 ≤ k ≤ [`MAX_POWER_OF_TWO_EXPONENT`].
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Modulus(Kind);

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Kind {
    /// 2^k, stored as k.
    PowerOfTwo(u32),
    /// A reference into the table of odd primes ([`OddPrime::lookup`]), so a `Modulus` stays
    /// two words.
    OddPrime(&'static OddPrime),
}

/// Runs `$body` with `$op` bound to the digit operation (a, b) ↦ a + c·b of the modulus
/// `$m` (c reduced), the modulus dispatched once: each arm gets its own closure, so a loop
/// in `$body` is compiled (and vectorized) for it. Addition and subtraction (c = 1, −1)
/// need no product.
macro_rules! with_scaled_add {
    ($m:expr, $c:expr, |$op:ident| $body:expr) => {{
        let c: u64 = $c;
        match $m.0 {
            Kind::PowerOfTwo(k) => {
                let mask = Modulus::mask(k);
                let $op = |a: u64, b: u64| a.wrapping_add(b.wrapping_mul(c)) & mask;
                $body
            }
            Kind::OddPrime(p) if c == 1 => {
                let p = p.p();
                let $op = |a: u64, b: u64| Modulus::add_below(a + b, p);
                $body
            }
            Kind::OddPrime(p) if c == p.p() - 1 => {
                let p = p.p();
                let $op = |a: u64, b: u64| Modulus::add_below(a + (p - b), p);
                $body
            }
            Kind::OddPrime(p) => {
                let $op = |a: u64, b: u64| p.rem32(a + b * c);
                $body
            }
        }
    }};
}

impl Modulus {
    /// Z_2: Boolean wires, whose labels are the free-XOR labels.
    pub const BOOLEAN: Modulus = Modulus(Kind::PowerOfTwo(1));

    /// The modulus `m`: an odd prime, or a power of two (2 gives [`Modulus::BOOLEAN`]).
    /// Every other value is refused.
    pub fn new(m: u64) -> Result<Modulus, ArithError> {
        if m < 2 {
            Err(ArithError::TrivialModulus(m))
        } else if m.is_power_of_two() {
            Modulus::power_of_two(m.trailing_zeros())
        } else {
            Modulus::odd_prime(m)
        }
    }

    /// The odd prime `p` (at most [`MAX_ODD_PRIME`]).
    pub fn odd_prime(p: u64) -> Result<Modulus, ArithError> {
        if p < 3 {
            return Err(ArithError::TrivialModulus(p));
        }
        if p > MAX_ODD_PRIME {
            return Err(ArithError::ModulusTooLarge(
                p as u128,
                "odd primes are limited to 65521",
            ));
        }
        match OddPrime::lookup(p) {
            Some(prime) => Ok(Modulus(Kind::OddPrime(prime))),
            None => Err(ArithError::CompositeModulus(p)),
        }
    }

    /// 2^k for 1 ≤ k ≤ [`MAX_POWER_OF_TWO_EXPONENT`].
    pub fn power_of_two(k: u32) -> Result<Modulus, ArithError> {
        match k {
            0 => Err(ArithError::TrivialModulus(1)),
            1..=MAX_POWER_OF_TWO_EXPONENT => Ok(Modulus(Kind::PowerOfTwo(k))),
            _ => Err(ArithError::ModulusTooLarge(
                1u128.checked_shl(k).unwrap_or(0),
                "powers of two are limited to 2^64",
            )),
        }
    }

    /// m itself (2^64 does not fit in a `u64`).
    pub fn value(self) -> u128 {
        match self.0 {
            Kind::PowerOfTwo(k) => 1u128 << k,
            Kind::OddPrime(p) => p.p() as u128,
        }
    }

    /// m as a `u64`, or `None` for 2^64.
    pub fn value_u64(self) -> Option<u64> {
        u64::try_from(self.value()).ok()
    }

    /// p when the modulus is an odd prime p, `None` for 2^k.
    pub fn odd_prime_value(self) -> Option<u64> {
        match self.0 {
            Kind::OddPrime(p) => Some(p.p()),
            Kind::PowerOfTwo(_) => None,
        }
    }

    pub fn is_boolean(self) -> bool {
        self == Modulus::BOOLEAN
    }

    /// Digits ℓ of a label mod m.
    ///
    /// - odd p: ℓ = 1 + ⌈128 / log2 p⌉, computed exactly as 1 + min{n : p^n ≥ 2^128}. The
    ///   colour digit of Δ_p is fixed to 1, so the other ℓ − 1 digits carry the entropy and
    ///   every c·Δ_p with c ≠ 0 (c invertible mod p) keeps ≥ 128 bits (`docs/security.md`,
    ///   "Label lengths").
    /// - 2^k: 128 digits with the colour digit fixed, as free-XOR (127 bits of entropy in
    ///   2^(k−1)·Δ, the weakest nonzero multiple).
    pub fn label_len(self) -> usize {
        match self.0 {
            Kind::PowerOfTwo(_) => SECURITY_BITS as usize,
            Kind::OddPrime(p) => p.label_len(),
        }
    }

    /// Bits per digit, ⌈log2 m⌉.
    pub fn digit_bits(self) -> u32 {
        match self.0 {
            Kind::PowerOfTwo(k) => k,
            Kind::OddPrime(p) => u64::BITS - (p.p() - 1).leading_zeros(),
        }
    }

    /// Digits per group: the largest j with m^j ≤ 2^64, or for an odd prime that j rounded
    /// down to a multiple of 8 where three groups of it still hold the label in as many
    /// packed bytes (whole 8-digit chunks for the garbler's label steps). Hash outputs and
    /// table rows are produced and packed one group (a number below m^j) at a time.
    pub fn group_len(self) -> usize {
        match self.0 {
            Kind::PowerOfTwo(k) => (64 / k) as usize,
            Kind::OddPrime(p) => p.group_len(),
        }
    }

    /// m^j for a group of `j` digits (`j` ≤ [`Modulus::group_len`], so m^j ≤ 2^64).
    #[inline]
    pub fn group_modulus(self, j: usize) -> u128 {
        match self.0 {
            Kind::PowerOfTwo(k) => 1u128 << (k as usize * j),
            Kind::OddPrime(p) => p.group_modulus(j) as u128,
        }
    }

    /// ⌈log2 m^count⌉: the packed bits of a group of `count` ≤ [`Modulus::group_len`]
    /// digits (`mixgc_arith::codec`).
    #[inline]
    pub fn group_bits(self, count: usize) -> u32 {
        match self.0 {
            Kind::PowerOfTwo(k) => k * count as u32,
            Kind::OddPrime(p) => p.group_bits(count),
        }
    }

    /// Bytes of one packed label mod m, for odd primes (precomputed); `None` for 2^k.
    #[inline]
    pub fn odd_label_bytes(self) -> Option<usize> {
        match self.0 {
            Kind::PowerOfTwo(_) => None,
            Kind::OddPrime(p) => Some(p.label_bytes()),
        }
    }

    /// r mod m^j for j = [`Modulus::group_len`]: one digit group of a hash output.
    #[inline]
    pub fn reduce_group(self, r: u128) -> u64 {
        match self.0 {
            Kind::PowerOfTwo(_) => (r & (self.group_modulus(self.group_len()) - 1)) as u64,
            Kind::OddPrime(p) => p.reduce_group(r),
        }
    }

    /// Writes the base-m digits of `group` (< m^digits.len() ≤ 2^64) into `digits`, least
    /// significant first.
    #[inline]
    pub fn split_group(self, group: u64, digits: &mut [u64]) {
        match self.0 {
            // Independent shifts (k·i < 64 within a group), so the loop vectorizes.
            Kind::PowerOfTwo(k) => {
                for (i, digit) in digits.iter_mut().enumerate() {
                    *digit = (group >> (k as usize * i)) & Modulus::mask(k);
                }
            }
            Kind::OddPrime(p) => p.split(group, digits),
        }
    }

    /// The number Σ digits\[i\]·m^i (< m^len ≤ 2^64): the inverse of [`Modulus::split_group`].
    #[inline]
    pub fn join_group(self, digits: &[u64]) -> u64 {
        match self.0 {
            Kind::PowerOfTwo(k) => digits
                .iter()
                .enumerate()
                .fold(0, |v, (i, &d)| v | d << (k as usize * i)),
            Kind::OddPrime(p) => p.join(digits),
        }
    }

    /// Reduces `v` into Z_m.
    #[inline]
    pub fn reduce(self, v: u128) -> u64 {
        match self.0 {
            Kind::OddPrime(p) if v < 1 << 32 => p.rem32(v as u64),
            _ => (v % self.value()) as u64,
        }
    }

    /// 2^k − 1, the digit mask of a power-of-two modulus.
    #[inline]
    fn mask(k: u32) -> u64 {
        u64::MAX >> (64 - k)
    }

    // The digit operations below run once per label digit in every gadget, so they avoid
    // division: odd primes are below 2^16 (a + b·c fits in 32 bits and is reduced by a
    // precomputed reciprocal, [`OddPrime::rem32`]), powers of two are masks.

    #[inline]
    pub fn add(self, a: u64, b: u64) -> u64 {
        debug_assert!((a as u128) < self.value() && (b as u128) < self.value());
        match self.0 {
            Kind::PowerOfTwo(k) => a.wrapping_add(b) & Modulus::mask(k),
            Kind::OddPrime(p) => {
                let s = a + b;
                if s >= p.p() {
                    s - p.p()
                } else {
                    s
                }
            }
        }
    }

    #[inline]
    pub fn sub(self, a: u64, b: u64) -> u64 {
        self.add(a, self.neg(b))
    }

    #[inline]
    pub fn neg(self, a: u64) -> u64 {
        debug_assert!((a as u128) < self.value());
        match self.0 {
            Kind::PowerOfTwo(k) => a.wrapping_neg() & Modulus::mask(k),
            Kind::OddPrime(p) => {
                if a == 0 {
                    0
                } else {
                    p.p() - a
                }
            }
        }
    }

    #[inline]
    pub fn mul(self, a: u64, b: u64) -> u64 {
        debug_assert!((a as u128) < self.value() && (b as u128) < self.value());
        match self.0 {
            Kind::PowerOfTwo(k) => a.wrapping_mul(b) & Modulus::mask(k),
            Kind::OddPrime(p) => p.rem32(a * b),
        }
    }

    /// s mod p for s < 2p, without a branch (the mask of the sign of s − p), so that loops
    /// over digits vectorize.
    #[inline]
    fn add_below(s: u64, p: u64) -> u64 {
        let d = s.wrapping_sub(p);
        d.wrapping_add(p & (d >> 63).wrapping_neg())
    }

    /// acc\[i\] ← acc\[i\] + c·other\[i\] for every digit (c reduced; slices of equal length):
    /// the one linear operation of every gadget, with the modulus dispatched once per label.
    #[inline]
    pub fn add_scaled_digits(self, acc: &mut [u64], other: &[u64], c: u64) {
        debug_assert!(acc.len() == other.len() && (c as u128) < self.value());
        with_scaled_add!(self, c, |op| acc
            .iter_mut()
            .zip(other)
            .for_each(|(a, &b)| *a = op(*a, b)))
    }

    /// base\[i\] + c·other\[i\] for every digit (c reduced; slices of equal length), as a new
    /// digit vector built in one pass ([`Modulus::add_scaled_digits`] in place).
    pub fn scaled_sum(self, base: &[u64], other: &[u64], c: u64) -> Vec<u64> {
        debug_assert!(base.len() == other.len() && (c as u128) < self.value());
        with_scaled_add!(self, c, |op| base
            .iter()
            .zip(other)
            .map(|(&a, &b)| op(a, b))
            .collect())
    }

    /// acc\[i\] ← base\[i\] + c·offset\[i\] for every digit (c reduced; slices of equal length).
    /// For odd p the sum is below p² < 2^32 before its one reduction.
    #[inline]
    pub fn set_scaled_sum(self, acc: &mut [u64], base: &[u64], offset: &[u64], c: u64) {
        debug_assert!(acc.len() == base.len() && acc.len() == offset.len());
        let digits = acc.iter_mut().zip(base.iter().zip(offset));
        match self.0 {
            Kind::PowerOfTwo(k) => {
                let mask = Modulus::mask(k);
                digits.for_each(|(a, (&b, &o))| *a = b.wrapping_add(o.wrapping_mul(c)) & mask);
            }
            Kind::OddPrime(p) => digits.for_each(|(a, (&b, &o))| *a = p.rem32(b + o * c)),
        }
    }

    /// acc\[i\] ← acc\[i\] + base\[i\] + c·offset\[i\] for every digit of a label mod an odd prime
    /// (c and every digit reduced). For p ≤ 31 (`MULTIPLES_MAX_P`, p below a label's ℓ) the multiples c·k mod p are
    /// tabulated first (p − 1 additions) and each digit takes a load and two conditional
    /// subtractions; otherwise the sum stays below 2p + p² < 2^32 for one reduction.
    #[inline]
    pub fn add_scaled_sum_digits(self, acc: &mut [u64], base: &[u64], offset: &[u64], c: u64) {
        debug_assert!(acc.len() == base.len() && acc.len() == offset.len());
        let prime = self
            .odd_constants()
            .expect("one reduction per digit needs an odd prime");
        let p = prime.p();
        debug_assert!(c < p);
        if p <= MULTIPLES_MAX_P {
            let mut multiples = [0u64; MULTIPLES_MAX_P as usize];
            for k in 1..p as usize {
                multiples[k] = Modulus::add_below(multiples[k - 1] + c, p);
            }
            for (a, (&b, &o)) in acc.iter_mut().zip(base.iter().zip(offset)) {
                debug_assert!(*a < p && b < p && o < p);
                let sum = Modulus::add_below(*a + b, p);
                *a = Modulus::add_below(sum + multiples[o as usize], p);
            }
            return;
        }
        for (a, (&b, &o)) in acc.iter_mut().zip(base.iter().zip(offset)) {
            *a = prime.rem32(*a + b + o * c);
        }
    }

    /// Digit groups of a label ([`Modulus::group_len`] digits each, the last maybe fewer).
    #[inline]
    pub fn group_count(self) -> usize {
        match self.0 {
            Kind::PowerOfTwo(_) => self.label_len().div_ceil(self.group_len()),
            Kind::OddPrime(_) => ODD_GROUPS,
        }
    }

    /// The constants of an odd-prime modulus, `None` for 2^k.
    #[inline]
    pub fn odd_constants(self) -> Option<&'static OddPrime> {
        match self.0 {
            Kind::OddPrime(p) => Some(p),
            Kind::PowerOfTwo(_) => None,
        }
    }

    /// Zeroed scratch space for the group values of one label mod m.
    #[inline]
    pub fn group_buffer(self) -> GroupBuffer {
        let len = self.group_count();
        GroupBuffer {
            small: [0; SMALL_GROUPS],
            large: if len > SMALL_GROUPS {
                vec![0; len]
            } else {
                Vec::new()
            },
            len,
        }
    }

    /// (a + b) mod m^len for group values a, b < m^len ≤ 2^64.
    #[inline]
    pub fn add_group(self, a: u64, b: u64, len: usize) -> u64 {
        add_mod(a, b, self.group_modulus(len))
    }

    /// (a − b) mod m^len for group values a, b < m^len ≤ 2^64.
    #[inline]
    pub fn sub_group(self, a: u64, b: u64, len: usize) -> u64 {
        if a >= b {
            a - b
        } else {
            (u128::from(a) + self.group_modulus(len) - u128::from(b)) as u64
        }
    }

    /// Writes the digits of a label from its group values ([`Modulus::split_group`] each).
    #[inline]
    pub fn split_groups(self, groups: &[u64], digits: &mut [u64]) {
        debug_assert_eq!(groups.len(), self.group_count());
        if let Kind::OddPrime(p) = self.0 {
            // Three groups (ODD_GROUPS): two full ones split side by side, then the last.
            let (full, last) = digits.split_at_mut(2 * p.group_len());
            let (first, second) = full.split_at_mut(p.group_len());
            p.split_pair([groups[0], groups[1]], first, second);
            return p.split(groups[2], last);
        }
        for (chunk, &group) in digits.chunks_mut(self.group_len()).zip(groups) {
            self.split_group(group, chunk);
        }
    }

    /// Writes the group values of a label from its digits ([`Modulus::join_group`] each):
    /// the inverse of [`Modulus::split_groups`].
    #[inline]
    pub fn join_groups(self, digits: &[u64], groups: &mut [u64]) {
        debug_assert_eq!(groups.len(), self.group_count());
        if let Kind::OddPrime(p) = self.0 {
            // Three groups (ODD_GROUPS): two full ones joined side by side, then the last.
            let (full, last) = digits.split_at(2 * p.group_len());
            let (first, second) = full.split_at(p.group_len());
            [groups[0], groups[1]] = p.join_pair(first, second);
            groups[2] = p.join(last);
            return;
        }
        for (group, chunk) in groups.iter_mut().zip(digits.chunks(self.group_len())) {
            *group = self.join_group(chunk);
        }
    }

    /// a^e mod m by square-and-multiply (0^0 = 1).
    pub fn pow(self, a: u64, mut e: u64) -> u64 {
        let (mut base, mut acc) = (self.reduce(a as u128), self.reduce(1));
        while e > 0 {
            if e & 1 == 1 {
                acc = self.mul(acc, base);
            }
            base = self.mul(base, base);
            e >>= 1;
        }
        acc
    }

    /// The inverse of `a` mod m, if it exists (a ≠ 0 for odd primes, a odd for 2^k).
    pub fn inverse(self, a: u64) -> Option<u64> {
        let a = self.reduce(a as u128);
        match self.0 {
            Kind::OddPrime(p) => (a != 0).then(|| self.pow(a, p.p() - 2)),
            // a^(2^(k−1) − 1) is a's inverse in the unit group of Z_{2^k} (order 2^(k−1));
            // for k ≤ 64 the exponent fits in a u64.
            Kind::PowerOfTwo(k) => (a & 1 == 1).then(|| self.pow(a, (1u64 << (k - 1)) - 1)),
        }
    }
}

/// (a + b) mod `modulus` for a, b below it (≤ 2^64).
#[inline]
pub fn add_mod(a: u64, b: u64, modulus: u128) -> u64 {
    let sum = u128::from(a) + u128::from(b);
    (if sum >= modulus { sum - modulus } else { sum }) as u64
}

impl fmt::Display for Modulus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Kind::PowerOfTwo(k) if k > 1 => write!(f, "2^{k}"),
            _ => write!(f, "{}", self.value()),
        }
    }
}

impl fmt::Debug for Modulus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Modulus({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primes::is_prime;

    #[test]
    fn only_odd_primes_and_powers_of_two_exist() {
        for m in [3u64, 5, 7, 11, 13, 251, 257, 65_521] {
            assert_eq!(Modulus::new(m).unwrap().value(), m as u128);
        }
        for k in 1..=MAX_POWER_OF_TWO_EXPONENT {
            assert_eq!(Modulus::power_of_two(k).unwrap().value(), 1u128 << k);
        }
        assert_eq!(Modulus::new(2).unwrap(), Modulus::BOOLEAN);
        assert_eq!(Modulus::new(1 << 8).unwrap(), Modulus::power_of_two(8).unwrap());
        // Composites, among them the mod-86 wire of the dicenet break.
        for m in [6u64, 9, 15, 21, 25, 86, 91, 255, 63_001] {
            assert_eq!(Modulus::new(m), Err(ArithError::CompositeModulus(m)));
            assert_eq!(Modulus::odd_prime(m), Err(ArithError::CompositeModulus(m)));
        }
        assert_eq!(Modulus::new(0), Err(ArithError::TrivialModulus(0)));
        assert_eq!(Modulus::new(1), Err(ArithError::TrivialModulus(1)));
        assert_eq!(Modulus::odd_prime(2), Err(ArithError::TrivialModulus(2)));
        assert_eq!(Modulus::power_of_two(0), Err(ArithError::TrivialModulus(1)));
        assert!(matches!(
            Modulus::new(65_537),
            Err(ArithError::ModulusTooLarge(..))
        ));
        assert!(matches!(
            Modulus::power_of_two(65),
            Err(ArithError::ModulusTooLarge(..))
        ));
        assert!(matches!(
            Modulus::power_of_two(200),
            Err(ArithError::ModulusTooLarge(..))
        ));
    }

    #[test]
    fn label_lengths_meet_the_formula() {
        // Known values: 3^81 ≥ 2^128 > 3^80; 251^17 ≥ 2^128 > 251^16; 65521^9 ≥ 2^128 > 65521^8.
        assert_eq!(Modulus::new(3).unwrap().label_len(), 82);
        assert_eq!(Modulus::new(5).unwrap().label_len(), 57);
        assert_eq!(Modulus::new(7).unwrap().label_len(), 47);
        assert_eq!(Modulus::new(251).unwrap().label_len(), 18);
        assert_eq!(Modulus::new(65_521).unwrap().label_len(), 10);
        assert_eq!(Modulus::BOOLEAN.label_len(), 128);
        assert_eq!(Modulus::power_of_two(64).unwrap().label_len(), 128);
        // ℓ ≥ 1 + ⌈128/log2 p⌉ and minimal, for every allowed odd prime.
        for p in (3..=MAX_ODD_PRIME).step_by(2).filter(|&p| is_prime(p)) {
            let n = Modulus::new(p).unwrap().label_len() - 1;
            let bits = |n: usize| n as f64 * (p as f64).log2();
            assert!(bits(n) >= 128.0 && bits(n - 1) < 128.0, "p = {p}, ℓ = {}", n + 1);
        }
    }

    #[test]
    fn groups_fit_in_64_bits() {
        for m in [3u64, 5, 251, 65_521, 2, 4, 1 << 20] {
            let m = Modulus::new(m).unwrap();
            let j = m.group_len();
            assert!(m.group_modulus(j) <= 1u128 << 64);
            // The largest such j, or (an odd prime) a multiple of 8 below it.
            assert!(
                m.group_modulus(j) * m.value() > 1u128 << 64 || (m.value() % 2 == 1 && j.is_multiple_of(8))
            );
        }
        // Mod 3 the largest j is a multiple of 8 already; mod 5, 7, 11 and 13 groups are cut
        // to 24, 16, 16 and 16 digits; mod 17 they keep 15 (16 would not fit, 8 too short).
        for (p, j) in [(3, 40), (5, 24), (7, 16), (11, 16), (13, 16), (17, 15), (251, 8)] {
            assert_eq!(Modulus::new(p).unwrap().group_len(), j, "p = {p}");
        }
        assert_eq!(Modulus::power_of_two(64).unwrap().group_len(), 1);
    }

    /// The tabulated (p ≤ 31) and the reducing path against u128 arithmetic digit by digit:
    /// random digits and every c for the small primes, all-(p − 1) digits (the largest sums)
    /// and all-zero digits.
    #[test]
    fn scaled_sums_of_digits_match_plain_arithmetic() {
        use rand::{Rng as _, SeedableRng as _};
        let mut rng = rand::rngs::StdRng::seed_from_u64(12);
        for p in [3u64, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 251, 65_521] {
            let m = Modulus::new(p).unwrap();
            let len = m.label_len();
            let random =
                |rng: &mut rand::rngs::StdRng| (0..len).map(|_| rng.gen_range(0..p)).collect::<Vec<_>>();
            for c in (0..p.min(40)).chain([p - 1, rng.gen_range(0..p)]) {
                let cases = [
                    [random(&mut rng), random(&mut rng), random(&mut rng)],
                    [vec![p - 1; len], vec![p - 1; len], vec![p - 1; len]],
                    [vec![0; len], vec![0; len], vec![0; len]],
                ];
                for [acc, base, offset] in cases {
                    let mut got = acc.clone();
                    m.add_scaled_sum_digits(&mut got, &base, &offset, c);
                    for i in 0..len {
                        let want =
                            (acc[i] as u128 + base[i] as u128 + offset[i] as u128 * c as u128) % p as u128;
                        assert_eq!(got[i] as u128, want, "p = {p}, c = {c}, digit {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn field_arithmetic() {
        for m in [3u64, 5, 7, 251, 2, 8, 1 << 16] {
            let m = Modulus::new(m).unwrap();
            let v = m.value_u64().unwrap();
            for a in 0..v.min(300) {
                assert_eq!(m.add(a, m.neg(a)), 0);
                assert_eq!(m.sub(a, a), 0);
                if let Some(inv) = m.inverse(a) {
                    assert_eq!(m.mul(a, inv), 1, "{a} mod {m}");
                }
            }
        }
        let big = Modulus::power_of_two(64).unwrap();
        assert_eq!(big.add(u64::MAX, 2), 1);
        assert_eq!(big.mul(u64::MAX, u64::MAX), 1);
        assert_eq!(big.mul(3, big.inverse(3).unwrap()), 1);
        assert_eq!(Modulus::new(7).unwrap().pow(3, 6), 1);
        assert_eq!(Modulus::new(7).unwrap().pow(0, 0), 1);
    }
}
