//! An odd prime wire modulus with the constants its digit arithmetic needs, computed once
//! when the [`crate::Modulus`] is built: the label shape (ℓ, group length, group moduli)
//! and reciprocals that replace the per-digit hardware divisions of label arithmetic,
//! hashing and row packing by multiplications, with identical results:
//! - 64-bit quotients by p, p² and p⁴ (splitting a group into digits): Granlund–Montgomery,
//!   "Division by invariant integers using multiplication" (PLDI 1994), Fig. 4.1. Digits
//!   are split and joined four at a time (base p⁴ < 2^64), so the dependent chain of
//!   a group is a quarter as long and the rest runs in parallel;
//! - remainders mod p of 32-bit values (a + b·c with a, b, c < p < 2^16): Lemire–Kaser–Kurz,
//!   "Faster remainder by direct computation" (2019), with a 64-bit reciprocal;
//! - for p ≤ [`PAIR_TABLE_MAX_P`], the two digits of every value below p² in a table
//!   ([`OddPrime::split`]'s last step is then a load instead of two quotients by p).

use std::sync::OnceLock;

use crate::MAX_ODD_PRIME;

/// Digit groups of every label mod an odd prime: ℓ·log2 p ≥ 128 + log2 p bits need more
/// than two groups of at most 64 bits, and p^j > 2^64 / p keeps it to three (tested for
/// every prime in `crate::grouped`).
pub const ODD_GROUPS: usize = 3;

/// The largest prime whose digit pairs are tabulated ([`OddPrime::split`]): p² ≤ 3,721
/// entries of two bytes, small enough to stay in L1 beside a product's labels.
pub const PAIR_TABLE_MAX_P: u64 = 61;

/// Exact quotients of 64-bit numbers by a fixed d ≥ 2 (Granlund–Montgomery).
#[derive(Clone, Copy, Debug)]
struct Divisor {
    d: u64,
    /// m' = ⌊2^64·(2^l − d)/d⌋ + 1, with l = ⌈log2 d⌉.
    magic: u64,
    /// l − 1.
    shift: u32,
}

impl Divisor {
    fn new(d: u64) -> Divisor {
        debug_assert!(d >= 2);
        let l = u64::BITS - (d - 1).leading_zeros();
        Divisor {
            d,
            magic: ((((1u128 << l) - d as u128) << 64) / d as u128 + 1) as u64,
            shift: l - 1,
        }
    }

    /// (⌊n / d⌋, n mod d).
    #[inline]
    fn div_rem(self, n: u64) -> (u64, u64) {
        let t1 = ((self.magic as u128 * n as u128) >> 64) as u64;
        let q = (t1 + ((n - t1) >> 1)) >> self.shift;
        (q, n - q * self.d)
    }
}

/// Remainders of 128-bit numbers by a fixed 64-bit d ≥ 2: Möller–Granlund, "Improved
/// division by invariant integers" (IEEE Trans. Computers 2011), Algorithm 4 (2-by-1
/// division with a precomputed reciprocal of the normalized divisor), applied twice.
#[derive(Clone, Copy, Debug)]
struct Reciprocal {
    /// d shifted left until its top bit is set.
    normalized: u64,
    /// ⌊(2^128 − 1)/normalized⌋ − 2^64.
    inverse: u64,
    /// The shift of `normalized`.
    shift: u32,
}

impl Reciprocal {
    fn new(d: u64) -> Reciprocal {
        debug_assert!(d >= 2);
        let shift = d.leading_zeros();
        let normalized = d << shift;
        Reciprocal {
            normalized,
            inverse: (u128::MAX / normalized as u128 - (1u128 << 64)) as u64,
            shift,
        }
    }

    /// (high·2^64 + low) mod `normalized`, for high < `normalized`.
    #[inline]
    fn rem_normalized(self, high: u64, low: u64) -> u64 {
        let d = self.normalized;
        let q = (self.inverse as u128 * high as u128)
            .wrapping_add((u128::from(high) + 1) << 64 | u128::from(low));
        let (q1, q0) = ((q >> 64) as u64, q as u64);
        let mut r = low.wrapping_sub(q1.wrapping_mul(d));
        if r > q0 {
            r = r.wrapping_add(d);
        }
        if r >= d {
            r -= d;
        }
        r
    }

    /// n mod d.
    #[inline]
    fn rem(self, n: u128) -> u64 {
        // n·2^shift as three words (top, middle, bottom); top < 2^shift ≤ normalized.
        let top = if self.shift == 0 {
            0
        } else {
            (n >> (128 - self.shift)) as u64
        };
        let shifted = n << self.shift;
        let middle = self.rem_normalized(top, (shifted >> 64) as u64);
        self.rem_normalized(middle, shifted as u64) >> self.shift
    }
}

/// The pair table of p ([`OddPrime`]'s `pairs`): built once per prime (every [`OddPrime`]
/// in use lives in [`OddPrime::lookup`]'s static table, so the table lives as long), or
/// empty for p > [`PAIR_TABLE_MAX_P`].
fn digit_pairs(p: u64) -> &'static [u16] {
    if p > PAIR_TABLE_MAX_P {
        return &[];
    }
    let pairs: Vec<u16> = (0..p * p).map(|v| ((v % p) | ((v / p) << 8)) as u16).collect();
    Box::leak(pairs.into_boxed_slice())
}

/// The digits (v mod p, ⌊v / p⌋) of v < p² from a pair table.
#[inline(always)]
fn table_pair(pairs: &[u16], v: u64) -> [u64; 2] {
    let entry = pairs[v as usize];
    [u64::from(entry & 0xff), u64::from(entry >> 8)]
}

/// An odd prime p < 2^16 and its derived constants. Every field after `p` is a function of
/// `p`, so equality, order and hash are those of `p` alone (compared without the rest).
#[derive(Clone, Copy, Debug)]
pub struct OddPrime {
    p: Divisor,
    /// p², p⁴ (< 2^64 for p < 2^16).
    p2: Divisor,
    p4: Divisor,
    /// ℓ = 1 + min{n : p^n ≥ 2^128}.
    label_len: u16,
    /// j: the largest j with p^j ≤ 2^64, cut to a multiple of 8 where that packs as tightly
    /// ([`crate::Modulus::group_len`]).
    group_len: u16,
    /// p^j (< 2^64: p is odd).
    group_modulus: u64,
    /// ℓ − (⌈ℓ/j⌉ − 1)·j, the digits of the last (possibly shorter) group.
    last_group_len: u16,
    /// p^(last group length), the modulus of the last group.
    last_group_modulus: u64,
    /// ⌈log2 p^j⌉ and ⌈log2 p^(last group length)⌉: the packed bits of a full and of the
    /// last group (`mixgc_arith::codec`).
    group_bits: u8,
    last_group_bits: u8,
    /// Bytes of one packed label ([`crate::table_bytes::label_bytes`]).
    label_bytes: u16,
    /// (p^j)², the weight of the third digit group in a label's value W = G_0 + p^j·G_1 +
    /// p^(2j)·G_2 (every odd-prime label has exactly [`ODD_GROUPS`] groups).
    group_modulus_squared: u128,
    /// Remainders mod p^j of 128-bit numbers ([`Reciprocal`]).
    group_reciprocal: Reciprocal,
    /// Lemire's ⌈2^64 / p⌉.
    rem_magic: u64,
    /// For p ≤ [`PAIR_TABLE_MAX_P`]: entry v < p² is (v mod p) | ⌊v / p⌋ << 8; empty above.
    pairs: PairTable,
}

/// A pair table ([`OddPrime`]'s `pairs`), debug-printed by its size only.
#[derive(Clone, Copy)]
struct PairTable(&'static [u16]);

impl std::fmt::Debug for PairTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PairTable({} entries)", self.0.len())
    }
}

impl PartialEq for OddPrime {
    #[inline]
    fn eq(&self, other: &OddPrime) -> bool {
        self.p() == other.p()
    }
}

impl Eq for OddPrime {}

impl PartialOrd for OddPrime {
    fn partial_cmp(&self, other: &OddPrime) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OddPrime {
    fn cmp(&self, other: &OddPrime) -> std::cmp::Ordering {
        self.p().cmp(&other.p())
    }
}

impl std::hash::Hash for OddPrime {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.p().hash(state);
    }
}

impl OddPrime {
    /// The constants of the odd prime `p`, from a table of every odd prime up to
    /// [`MAX_ODD_PRIME`] built on first use (a sieve, then `OddPrime::new` for each of the
    /// 6,541 primes); `None` if `p` is not such a prime.
    pub fn lookup(p: u64) -> Option<&'static OddPrime> {
        static TABLE: OnceLock<Vec<OddPrime>> = OnceLock::new();
        let table = TABLE.get_or_init(|| {
            let limit = MAX_ODD_PRIME as usize;
            let mut composite = vec![false; limit + 1];
            let mut primes = Vec::new();
            for n in (3..=limit).step_by(2) {
                if !composite[n] {
                    primes.push(OddPrime::new(n as u64));
                    (n * n..=limit).step_by(2 * n).for_each(|m| composite[m] = true);
                }
            }
            primes
        });
        let index = table.binary_search_by_key(&p, |prime| prime.p()).ok()?;
        Some(&table[index])
    }

    /// The constants of the odd prime `p` (3 ≤ p < 2^16; primality is the caller's check).
    fn new(p: u64) -> OddPrime {
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
        let bits = |modulus: u128| (u128::BITS - (modulus - 1).leading_zeros()) as u8;
        let packed = |j: u16| {
            let last_len = label_len - (ODD_GROUPS as u16 - 1) * j;
            let (full, last) = (
                (p as u128).pow(u32::from(j)),
                (p as u128).pow(u32::from(last_len)),
            );
            u16::from(bits(full)) * (ODD_GROUPS as u16 - 1) + u16::from(bits(last))
        };
        // A multiple of 8 digits per full group when three groups still hold the label in as
        // many bytes: whole 8-digit chunks for the garbler's steps (grouped.rs).
        let aligned = group_len / 8 * 8;
        if aligned > 0
            && ODD_GROUPS as u16 * aligned >= label_len
            && packed(aligned).div_ceil(8) == packed(group_len).div_ceil(8)
        {
            group_len = aligned;
            group_modulus = (p as u128).pow(u32::from(aligned));
        }
        let groups = label_len.div_ceil(group_len);
        debug_assert_eq!(usize::from(groups), ODD_GROUPS);
        let last_len = label_len - (groups - 1) * group_len;
        let last_group_modulus = (p as u128).pow(u32::from(last_len));
        let (group_bits, last_group_bits) = (bits(group_modulus), bits(last_group_modulus));
        let packed_bits = packed(group_len);
        OddPrime {
            p: Divisor::new(p),
            p2: Divisor::new(p.pow(2)),
            p4: Divisor::new(p.pow(4)),
            label_len,
            group_len,
            group_modulus: group_modulus as u64,
            last_group_len: last_len,
            last_group_modulus: last_group_modulus as u64,
            group_bits,
            last_group_bits,
            label_bytes: packed_bits.div_ceil(8),
            group_modulus_squared: group_modulus * group_modulus,
            group_reciprocal: Reciprocal::new(group_modulus as u64),
            rem_magic: u64::MAX / p + 1,
            pairs: PairTable(digit_pairs(p)),
        }
    }

    #[inline]
    pub fn p(self) -> u64 {
        self.p.d
    }

    #[inline]
    pub fn label_len(self) -> usize {
        self.label_len as usize
    }

    #[inline]
    pub fn group_len(self) -> usize {
        self.group_len as usize
    }

    /// p^count for a group of `count` ≤ j digits; the full and the last group are precomputed.
    #[inline]
    pub fn group_modulus(self, count: usize) -> u64 {
        if count == self.group_len() {
            self.group_modulus
        } else if count == usize::from(self.last_group_len) {
            self.last_group_modulus
        } else {
            self.p().pow(count as u32)
        }
    }

    /// ⌈log2 p^count⌉, the packed bits of a group of `count` ≤ j digits.
    #[inline]
    pub fn group_bits(self, count: usize) -> u32 {
        if count == self.group_len() {
            u32::from(self.group_bits)
        } else if count == usize::from(self.last_group_len) {
            u32::from(self.last_group_bits)
        } else {
            u64::BITS - (self.group_modulus(count) - 1).leading_zeros()
        }
    }

    /// Bytes of one packed label mod p.
    #[inline]
    pub fn label_bytes(self) -> usize {
        usize::from(self.label_bytes)
    }

    /// The digit count, modulus and packed bits of each of the [`ODD_GROUPS`] digit groups.
    #[inline]
    pub fn group_shapes(self) -> [(usize, u64, u32); ODD_GROUPS] {
        let full = (self.group_len(), self.group_modulus, u32::from(self.group_bits));
        let last = (
            usize::from(self.last_group_len),
            self.last_group_modulus,
            u32::from(self.last_group_bits),
        );
        [full, full, last]
    }

    /// (p^j)² ([`OddPrime::group_modulus_squared`]'s field).
    #[inline]
    pub fn group_modulus_squared(self) -> u128 {
        self.group_modulus_squared
    }

    /// r mod p^j for a 128-bit r (one digit group of a hash output).
    #[inline]
    pub fn reduce_group(self, r: u128) -> u64 {
        self.group_reciprocal.rem(r)
    }

    /// Writes the base-p digits of `group` (< p^digits.len()) into `digits`, least
    /// significant first: four at a time by p⁴, then p² off the dependent chain, and each
    /// pair of digits by p (from the pair table where p has one).
    #[inline]
    pub fn split(self, group: u64, digits: &mut [u64]) {
        match self.pairs.0 {
            [] => self.split_with(group, digits, |v| self.split_two(v)),
            pairs => self.split_with(group, digits, |v| table_pair(pairs, v)),
        }
    }

    /// [`OddPrime::split`] with `pair` splitting values below p² into two digits.
    #[inline(always)]
    fn split_with(self, mut group: u64, digits: &mut [u64], pair: impl Fn(u64) -> [u64; 2]) {
        let mut quads = digits.chunks_exact_mut(4);
        for quad in &mut quads {
            self.split_quad(&mut group, quad, &pair);
        }
        self.split_rest(group, quads.into_remainder(), &pair);
    }

    /// [`OddPrime::split`] of two groups of equal length (a label's two full groups), their
    /// dependent chains interleaved.
    #[inline]
    pub fn split_pair(self, groups: [u64; 2], first: &mut [u64], second: &mut [u64]) {
        match self.pairs.0 {
            [] => self.split_pair_with(groups, first, second, |v| self.split_two(v)),
            pairs => self.split_pair_with(groups, first, second, |v| table_pair(pairs, v)),
        }
    }

    /// [`OddPrime::split_pair`] with `pair` splitting values below p² into two digits.
    #[inline(always)]
    fn split_pair_with(
        self,
        mut groups: [u64; 2],
        first: &mut [u64],
        second: &mut [u64],
        pair: impl Fn(u64) -> [u64; 2],
    ) {
        debug_assert_eq!(first.len(), second.len());
        let mut quads = first.chunks_exact_mut(4).zip(second.chunks_exact_mut(4));
        for (a, b) in &mut quads {
            self.split_quad(&mut groups[0], a, &pair);
            self.split_quad(&mut groups[1], b, &pair);
        }
        let tail = first.len() / 4 * 4;
        self.split_rest(groups[0], &mut first[tail..], &pair);
        self.split_rest(groups[1], &mut second[tail..], &pair);
    }

    /// The lowest four base-p digits of `group` into `quad`, and `group` ← ⌊group / p⁴⌋.
    #[inline(always)]
    fn split_quad(self, group: &mut u64, quad: &mut [u64], pair: impl Fn(u64) -> [u64; 2]) {
        let (rest, low4) = self.p4.div_rem(*group);
        *group = rest;
        let (high2, low2) = self.p2.div_rem(low4);
        [quad[0], quad[1]] = pair(low2);
        [quad[2], quad[3]] = pair(high2);
    }

    /// (v mod p, ⌊v / p⌋) for v < p²: one quotient by p.
    #[inline(always)]
    fn split_two(self, v: u64) -> [u64; 2] {
        let high = self.div_small(v);
        [v - high * self.p.d, high]
    }

    /// The base-p digits of `group` into `digits` (fewer than four): a pair, then one.
    #[inline(always)]
    fn split_rest(self, group: u64, digits: &mut [u64], pair: impl Fn(u64) -> [u64; 2]) {
        match digits {
            [] => {}
            [d] => {
                debug_assert!(group < self.p.d);
                *d = group;
            }
            [d0, d1] => {
                debug_assert!(group < self.p2.d);
                [*d0, *d1] = pair(group);
            }
            [d0, d1, d2] => {
                let (high, low2) = self.p2.div_rem(group);
                [*d0, *d1] = pair(low2);
                *d2 = high;
            }
            _ => unreachable!("fewer than four digits"),
        }
    }

    /// [`OddPrime::join`] of two groups of equal length, their Horner chains interleaved.
    #[inline]
    pub fn join_pair(self, first: &[u64], second: &[u64]) -> [u64; 2] {
        debug_assert_eq!(first.len(), second.len());
        let tail = first.len() / 4 * 4;
        let mut values = [&first[tail..], &second[tail..]].map(|top| self.join_rest(top));
        for (a, b) in first[..tail]
            .chunks_exact(4)
            .zip(second[..tail].chunks_exact(4))
            .rev()
        {
            values = [self.join_quad(values[0], a), self.join_quad(values[1], b)];
        }
        values
    }

    /// v·p⁴ + the value of the four digits `quad`: one step of Horner's rule in base p⁴.
    #[inline(always)]
    fn join_quad(self, v: u64, q: &[u64]) -> u64 {
        let (p, p2, p4) = (self.p.d, self.p2.d, self.p4.d);
        v * p4 + (q[0] + q[1] * p) + (q[2] + q[3] * p) * p2
    }

    /// The value of a few top digits (fewer than four), Horner's rule in base p.
    #[inline(always)]
    fn join_rest(self, digits: &[u64]) -> u64 {
        digits.iter().rev().fold(0, |v, &d| v * self.p.d + d)
    }

    /// Σ digits\[i\]·p^i (< p^digits.len() ≤ 2^64), the inverse of [`OddPrime::split`]: Horner's
    /// rule in base p⁴ (every partial value is a prefix of the result, so nothing overflows).
    #[inline]
    pub fn join(self, digits: &[u64]) -> u64 {
        let quads = digits.chunks_exact(4);
        let top = self.join_rest(quads.remainder());
        quads.rev().fold(top, |v, q| self.join_quad(v, q))
    }

    /// ⌊n/p⌋ for n < 2^32: one high product with Lemire's ⌈2^64/p⌉ (exact there, Lemire–
    /// Kaser–Kurz 2019 Theorem 1), shorter than the 64-bit [`Divisor::div_rem`].
    #[inline]
    fn div_small(self, n: u64) -> u64 {
        debug_assert!(n < 1 << 32);
        ((self.rem_magic as u128 * n as u128) >> 64) as u64
    }

    /// n mod p for n < 2^32 (Lemire).
    #[inline]
    pub fn rem32(self, n: u64) -> u64 {
        debug_assert!(n < 1 << 32);
        let low = self.rem_magic.wrapping_mul(n);
        ((low as u128 * self.p.d as u128) >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use rand::Rng as _;
    use rand::SeedableRng;

    use super::*;
    use crate::primes::is_prime;

    #[test]
    fn reciprocals_match_division_for_every_prime() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(8);
        for p in (3..=crate::MAX_ODD_PRIME).step_by(2).filter(|&p| is_prime(p)) {
            let prime = OddPrime::new(p);
            let top = u64::MAX / p * p;
            let edges = [0, 1, p - 1, p, p + 1, top - 1, top, u64::MAX - 1, u64::MAX];
            let random = (0..16).map(|_| rng.gen::<u64>() >> rng.gen_range(0..64));
            for n in edges.into_iter().chain(random) {
                for d in [prime.p, prime.p2, prime.p4] {
                    assert_eq!(d.div_rem(n), (n / d.d, n % d.d), "{n} / {}", d.d);
                }
            }
            let max32 = (p - 1) * (p - 1) + (p - 1);
            let small = (0..16).map(|_| rng.gen_range(0..=max32));
            for n in [0, 1, p - 1, p, max32, (1 << 32) - 1].into_iter().chain(small) {
                assert_eq!(prime.rem32(n), n % p, "{n} mod {p}");
                assert_eq!(prime.div_small(n), n / p, "{n} / {p}");
            }
        }
    }

    #[test]
    fn group_remainders_match_division() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(10);
        for p in (3..=crate::MAX_ODD_PRIME).step_by(2).filter(|&p| is_prime(p)) {
            let prime = OddPrime::new(p);
            let m = prime.group_modulus as u128;
            let edges = [
                0,
                1,
                m - 1,
                m,
                m + 1,
                u64::MAX as u128,
                1 << 64,
                u128::MAX - 1,
                u128::MAX,
            ];
            let random = (0..8).map(|_| rng.gen::<u128>() >> rng.gen_range(0..128));
            for r in edges.into_iter().chain(random) {
                assert_eq!(prime.reduce_group(r) as u128, r % m, "{r} mod {m}");
            }
        }
        for d in [2u64, 3, 1 << 63, (1 << 63) + 1, u64::MAX] {
            let reciprocal = Reciprocal::new(d);
            for r in [0, 1, d as u128, u128::MAX, u128::MAX / 3] {
                assert_eq!(reciprocal.rem(r) as u128, r % d as u128, "{r} mod {d}");
            }
        }
    }

    #[test]
    fn pair_tables_hold_both_digits_of_every_value_below_p_squared() {
        for p in (3..=crate::MAX_ODD_PRIME).step_by(2).filter(|&p| is_prime(p)) {
            let prime = OddPrime::new(p);
            if p > PAIR_TABLE_MAX_P {
                assert!(prime.pairs.0.is_empty(), "p = {p}");
                continue;
            }
            assert_eq!(prime.pairs.0.len() as u64, p * p);
            for v in 0..p * p {
                assert_eq!(table_pair(prime.pairs.0, v), [v % p, v / p], "{v} mod {p}");
                assert_eq!(prime.split_two(v), [v % p, v / p]);
            }
        }
    }

    /// Split (with and without a pair table) and join against digit-by-digit division, for
    /// every group length: all tabulated primes, the first untabulated one and larger ones.
    #[test]
    fn digits_split_and_join_as_base_p() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(9);
        let tabulated = (3..=PAIR_TABLE_MAX_P).step_by(2).filter(|&p| is_prime(p));
        for p in tabulated.chain([67u64, 251, 257, 65_521]) {
            let prime = OddPrime::new(p);
            let plain = OddPrime {
                pairs: PairTable(&[]),
                ..prime
            };
            for count in 1..=prime.group_len() {
                let max = prime.group_modulus(count) - 1;
                for group in [0, 1, max, rng.gen_range(0..=max), rng.gen_range(0..=max)] {
                    let mut digits = vec![0; count];
                    prime.split(group, &mut digits);
                    let mut untabulated = vec![0; count];
                    plain.split(group, &mut untabulated);
                    assert_eq!(untabulated, digits, "{group} in base {p}, without the table");
                    let mut rest = group;
                    for &d in &digits {
                        assert_eq!(d, rest % p, "{group} mod {p}^{count}");
                        rest /= p;
                    }
                    assert_eq!(rest, 0);
                    assert_eq!(prime.join(&digits), group);
                    // Side by side with another group of as many digits: the same results.
                    let other = rng.gen_range(0..=max);
                    let (mut first, mut second) = (vec![0; count], vec![0; count]);
                    prime.split_pair([group, other], &mut first, &mut second);
                    assert_eq!(first, digits);
                    let mut alone = vec![0; count];
                    prime.split(other, &mut alone);
                    assert_eq!(second, alone);
                    assert_eq!(prime.join_pair(&first, &second), [group, other]);
                }
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
