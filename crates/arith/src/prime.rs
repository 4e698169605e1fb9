//! An odd prime wire modulus with the constants its digit arithmetic needs, computed once
//! when the [`crate::Modulus`] is built: the label shape (ℓ, group length, group moduli)
//! and reciprocals that replace the per-digit hardware divisions of label arithmetic,
//! hashing and row packing by multiplications, with identical results:
//! - 64-bit quotients by p (splitting a group into digits): Granlund–Montgomery,
//!   "Division by invariant integers using multiplication" (PLDI 1994), Fig. 4.1;
//! - remainders mod p of 32-bit values (a + b·c with a, b, c < p < 2^16): Lemire–Kaser–Kurz,
//!   "Faster remainder by direct computation" (2019), with a 64-bit reciprocal.

/// An odd prime p < 2^16 and its derived constants. Every field after `p` is a function of
/// `p`, so the derived equality and order are those of `p`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(crate) struct OddPrime {
    p: u64,
    /// ℓ = 1 + min{n : p^n ≥ 2^128}.
    label_len: u16,
    /// j = max{j : p^j ≤ 2^64}.
    group_len: u16,
    /// p^j (< 2^64: p is odd).
    group_modulus: u64,
    /// p^(ℓ − (⌈ℓ/j⌉ − 1)·j), the modulus of the last (possibly shorter) group.
    last_group_modulus: u64,
    /// Granlund–Montgomery multiplier m' = ⌊2^64·(2^l − p)/p⌋ + 1, with l = ⌈log2 p⌉.
    div_magic: u64,
    /// l − 1.
    div_shift: u32,
    /// Lemire's ⌈2^64 / p⌉.
    rem_magic: u64,
}

impl OddPrime {
    /// The constants of the odd prime `p` (3 ≤ p < 2^16; primality is the caller's check).
    pub(crate) fn new(p: u64) -> OddPrime {
        debug_assert!(p % 2 == 1 && (3..1 << 16).contains(&p));
        // p^n ≥ 2^128 exactly when p^n no longer fits in a u128.
        let (mut power, mut n) = (1u128, 0u16);
        while let Some(next) = power.checked_mul(p as u128) {
            power = next;
            n += 1;
        }
        let label_len = n + 2;
        let (mut group_modulus, mut group_len) = (p as u128, 1u16);
        while group_modulus * p as u128 <= 1u128 << 64 {
            group_modulus *= p as u128;
            group_len += 1;
        }
        let last_len = label_len - (label_len.div_ceil(group_len) - 1) * group_len;
        let l = u64::BITS - (p - 1).leading_zeros();
        OddPrime {
            p,
            label_len,
            group_len,
            group_modulus: group_modulus as u64,
            last_group_modulus: (p as u128).pow(u32::from(last_len)) as u64,
            div_magic: ((((1u128 << l) - p as u128) << 64) / p as u128 + 1) as u64,
            div_shift: l - 1,
            rem_magic: u64::MAX / p + 1,
        }
    }

    #[inline]
    pub(crate) fn p(self) -> u64 {
        self.p
    }

    #[inline]
    pub(crate) fn label_len(self) -> usize {
        self.label_len as usize
    }

    #[inline]
    pub(crate) fn group_len(self) -> usize {
        self.group_len as usize
    }

    /// p^count for a group of `count` ≤ j digits; the full and the last group are precomputed.
    #[inline]
    pub(crate) fn group_modulus(self, count: usize) -> u64 {
        let last_len =
            self.label_len() - (self.label_len().div_ceil(self.group_len()) - 1) * self.group_len();
        if count == self.group_len() {
            self.group_modulus
        } else if count == last_len {
            self.last_group_modulus
        } else {
            self.p.pow(count as u32)
        }
    }

    /// ⌊n / p⌋ for any 64-bit n (Granlund–Montgomery).
    #[inline]
    pub(crate) fn div(self, n: u64) -> u64 {
        let t1 = ((self.div_magic as u128 * n as u128) >> 64) as u64;
        (t1 + ((n - t1) >> 1)) >> self.div_shift
    }

    /// n mod p for n < 2^32 (Lemire).
    #[inline]
    pub(crate) fn rem32(self, n: u64) -> u64 {
        debug_assert!(n < 1 << 32);
        let low = self.rem_magic.wrapping_mul(n);
        ((low as u128 * self.p as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use mixgc_core::new_rng;
    use rand::Rng as _;

    use super::*;
    use crate::primes::is_prime;

    #[test]
    fn reciprocals_match_division_for_every_prime() {
        let mut rng = new_rng(Some(8), 0);
        for p in (3..=crate::MAX_ODD_PRIME).step_by(2).filter(|&p| is_prime(p)) {
            let prime = OddPrime::new(p);
            let top = u64::MAX / p * p;
            let edges = [0, 1, p - 1, p, p + 1, top - 1, top, u64::MAX - 1, u64::MAX];
            let random = (0..16).map(|_| rng.gen::<u64>() >> rng.gen_range(0..64));
            for n in edges.into_iter().chain(random) {
                assert_eq!(prime.div(n), n / p, "{n} / {p}");
            }
            let max32 = (p - 1) * (p - 1) + (p - 1);
            let small = (0..16).map(|_| rng.gen_range(0..=max32));
            for n in [0, 1, p - 1, p, max32, (1 << 32) - 1].into_iter().chain(small) {
                assert_eq!(prime.rem32(n), n % p, "{n} mod {p}");
            }
        }
    }

    #[test]
    fn group_moduli_are_powers_of_p() {
        for p in [3u64, 5, 17, 251, 65_521] {
            let prime = OddPrime::new(p);
            for count in 1..=prime.group_len() {
                assert_eq!(prime.group_modulus(count), p.pow(count as u32), "{p}^{count}");
            }
        }
    }
}
