//! GF(2^128) arithmetic for the KOS15 consistency check (Keller–Orsini–Scholl, CRYPTO 2015,
//! ePrint 2015/546, Fig. 7, "Check correlation"): the field F_2[x]/(x^128 + x^7 + x^2 + x + 1),
//! bit `i` of a block's little-endian `u128` being the coefficient of x^i.
//!
//! The check sums m products χ_j·q_j; [`inner_product`] accumulates the unreduced 255-bit
//! products and reduces once at the end. Carry-less multiplication uses 512-bit `vpclmulqdq`
//! (four products per instruction, AVX-512) or `pclmulqdq` (std::arch) when the CPU has
//! them, else a portable shift-and-add; all are tested against a bit-by-bit schoolbook model.

use mixgc_core::Block;

/// An unreduced carry-less product (or sum of products): `lo + hi·x^128`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Wide {
    lo: u128,
    hi: u128,
}

impl Wide {
    /// Reduces modulo x^128 + x^7 + x^2 + x + 1: hi·x^128 ≡ hi·(x^7 + x^2 + x + 1), applied
    /// twice since hi·(x^7 + …) spills up to 7 bits past x^127.
    pub(crate) fn reduce(self) -> u128 {
        let hi = self.hi;
        let spill = (hi >> 127) ^ (hi >> 126) ^ (hi >> 121);
        let folded = hi ^ (hi << 1) ^ (hi << 2) ^ (hi << 7);
        self.lo ^ folded ^ spill ^ (spill << 1) ^ (spill << 2) ^ (spill << 7)
    }
}

/// Portable 64×64 → 128 carry-less multiplication.
fn clmul64_portable(a: u64, b: u64) -> u128 {
    let mut r = 0u128;
    let a = a as u128;
    for i in 0..64 {
        // Branch-free: b's bits may be secret (Δ).
        let mask = 0u128.wrapping_sub((b >> i & 1) as u128);
        r ^= (a << i) & mask;
    }
    r
}

/// Portable 128×128 carry-less product.
fn mul_wide_portable(a: u128, b: u128) -> Wide {
    let (a0, a1) = (a as u64, (a >> 64) as u64);
    let (b0, b1) = (b as u64, (b >> 64) as u64);
    let lo = clmul64_portable(a0, b0);
    let hi = clmul64_portable(a1, b1);
    let mid = clmul64_portable(a0, b1) ^ clmul64_portable(a1, b0);
    Wide {
        lo: lo ^ (mid << 64),
        hi: hi ^ (mid >> 64),
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::Wide;
    use mixgc_core::Block;
    use std::arch::x86_64::*;

    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    unsafe fn to_m128(v: u128) -> __m128i {
        _mm_set_epi64x((v >> 64) as i64, v as i64)
    }

    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    unsafe fn to_u128(v: __m128i) -> u128 {
        let lo = _mm_cvtsi128_si64(v) as u64 as u128;
        let hi = _mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v)) as u64 as u128;
        lo | hi << 64
    }

    /// Σ a_j·b_j unreduced, four `pclmulqdq` per product (Karatsuba does not pay here:
    /// the extra XORs cost as much as the multiplication saved).
    ///
    /// # Safety
    /// The CPU must support `pclmulqdq`.
    #[target_feature(enable = "pclmulqdq,sse2")]
    pub(super) unsafe fn sum_of_products(a: &[u128], b: &[u128]) -> Wide {
        let mut lo = _mm_setzero_si128();
        let mut mid = _mm_setzero_si128();
        let mut hi = _mm_setzero_si128();
        for (&x, &y) in a.iter().zip(b) {
            let (x, y) = (to_m128(x), to_m128(y));
            lo = _mm_xor_si128(lo, _mm_clmulepi64_si128(x, y, 0x00));
            mid = _mm_xor_si128(mid, _mm_clmulepi64_si128(x, y, 0x10));
            mid = _mm_xor_si128(mid, _mm_clmulepi64_si128(x, y, 0x01));
            hi = _mm_xor_si128(hi, _mm_clmulepi64_si128(x, y, 0x11));
        }
        let (lo, mid, hi) = (to_u128(lo), to_u128(mid), to_u128(hi));
        Wide {
            lo: lo ^ (mid << 64),
            hi: hi ^ (mid >> 64),
        }
    }

    /// Σ a_j·b_j unreduced over blocks, four products per 512-bit `vpclmulqdq` (one
    /// block per 128-bit lane, the lanes' partial sums added at the end), the last
    /// `len % 4` through [`sum_of_products`]. Reads the blocks in place (a block's bytes
    /// are its little-endian `u128`), so no copy into `u128`s.
    ///
    /// # Safety
    /// The CPU must support `avx512f`, `vpclmulqdq` and `pclmulqdq`, and `a` and `b` must
    /// have the same length (the loads of `b` are bounded by `a`'s; [`super::inner_product`]
    /// asserts it).
    #[target_feature(enable = "avx512f,vpclmulqdq,pclmulqdq,sse2")]
    pub(super) unsafe fn sum_of_products_x4(a: &[Block], b: &[Block]) -> Wide {
        debug_assert_eq!(a.len(), b.len());
        let whole = a.len() / 4 * 4;
        let mut lo = _mm512_setzero_si512();
        let mut mid = _mm512_setzero_si512();
        let mut hi = _mm512_setzero_si512();
        for j in (0..whole).step_by(4) {
            // SAFETY: j + 4 ≤ whole ≤ len, and Block is 16 bytes without padding.
            let x = _mm512_loadu_si512(a.as_ptr().add(j).cast());
            let y = _mm512_loadu_si512(b.as_ptr().add(j).cast());
            lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128(x, y, 0x00));
            mid = _mm512_xor_si512(mid, _mm512_clmulepi64_epi128(x, y, 0x10));
            mid = _mm512_xor_si512(mid, _mm512_clmulepi64_epi128(x, y, 0x01));
            hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128(x, y, 0x11));
        }
        let lanes = |v: __m512i| {
            let mut out = [0u128; 4];
            _mm512_storeu_si512(out.as_mut_ptr().cast(), v);
            out.iter().fold(0u128, |acc, &l| acc ^ l)
        };
        let (lo, mid, hi) = (lanes(lo), lanes(mid), lanes(hi));
        let (mut ra, mut rb) = ([0u128; 3], [0u128; 3]);
        let rest = a.len() - whole;
        for (k, (x, y)) in a[whole..].iter().zip(&b[whole..]).enumerate() {
            (ra[k], rb[k]) = (x.to_u128(), y.to_u128());
        }
        let tail = sum_of_products(&ra[..rest], &rb[..rest]);
        Wide {
            lo: lo ^ (mid << 64) ^ tail.lo,
            hi: hi ^ (mid >> 64) ^ tail.hi,
        }
    }
}

fn has_clmul() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("pclmulqdq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

fn has_clmul512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("vpclmulqdq")
            && has_clmul()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

fn sum_of_products_u128(a: &[u128], b: &[u128]) -> Wide {
    assert_eq!(a.len(), b.len(), "inner product of unequal lengths");
    #[cfg(target_arch = "x86_64")]
    if has_clmul() {
        // SAFETY: the CPU supports pclmulqdq (checked just above).
        return unsafe { x86::sum_of_products(a, b) };
    }
    sum_of_products_portable(a, b)
}

fn sum_of_products_portable(a: &[u128], b: &[u128]) -> Wide {
    a.iter().zip(b).fold(Wide::default(), |acc, (&x, &y)| {
        let p = mul_wide_portable(x, y);
        Wide {
            lo: acc.lo ^ p.lo,
            hi: acc.hi ^ p.hi,
        }
    })
}

/// The field product a·b.
pub(crate) fn mul(a: Block, b: Block) -> Block {
    Block::from_u128(sum_of_products_u128(&[a.to_u128()], &[b.to_u128()]).reduce())
}

/// Σ_j a_j·b_j in GF(2^128), reduced once. Panics if the lengths differ (a bug, never
/// input from the peer).
pub(crate) fn inner_product(a: &[Block], b: &[Block]) -> Block {
    assert_eq!(a.len(), b.len(), "inner product of unequal lengths");
    #[cfg(target_arch = "x86_64")]
    if has_clmul512() {
        // SAFETY: the CPU supports avx512f, vpclmulqdq and pclmulqdq (checked just above).
        return Block::from_u128(unsafe { x86::sum_of_products_x4(a, b) }.reduce());
    }
    inner_product_u128(a, b)
}

/// [`inner_product`] through `u128` copies of the blocks (the 128-bit and portable paths).
fn inner_product_u128(a: &[Block], b: &[Block]) -> Block {
    // Blocks are 16 bytes; convert in stack-sized runs to avoid an allocation.
    const RUN: usize = 256;
    let (mut xs, mut ys) = ([0u128; RUN], [0u128; RUN]);
    let mut acc = Wide::default();
    for (ca, cb) in a.chunks(RUN).zip(b.chunks(RUN)) {
        for (k, (&x, &y)) in ca.iter().zip(cb).enumerate() {
            xs[k] = x.to_u128();
            ys[k] = y.to_u128();
        }
        let p = sum_of_products_u128(&xs[..ca.len()], &ys[..ca.len()]);
        acc.lo ^= p.lo;
        acc.hi ^= p.hi;
    }
    Block::from_u128(acc.reduce())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// Schoolbook model: shift-and-add with reduction at every step.
    fn mul_model(a: u128, b: u128) -> u128 {
        let (mut a, mut r) = (a, 0u128);
        for i in 0..128 {
            if b >> i & 1 == 1 {
                r ^= a;
            }
            let carry = a >> 127 == 1;
            a <<= 1;
            if carry {
                a ^= 0x87; // x^128 = x^7 + x^2 + x + 1
            }
        }
        r
    }

    fn edge_values() -> Vec<u128> {
        vec![
            0,
            1,
            2,
            0x87,
            1 << 63,
            1 << 64,
            1 << 127,
            u128::MAX,
            u64::MAX as u128,
            u128::MAX << 64,
        ]
    }

    #[test]
    fn mul_matches_the_schoolbook_model_on_edge_and_random_inputs() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        let mut values = edge_values();
        values.extend((0..40).map(|_| rng.gen::<u128>()));
        for &a in &values {
            for &b in &values {
                let want = mul_model(a, b);
                let got = mul(Block::from_u128(a), Block::from_u128(b)).to_u128();
                assert_eq!(got, want, "{a:#x} · {b:#x}");
                assert_eq!(mul_wide_portable(a, b).reduce(), want, "portable {a:#x} · {b:#x}");
            }
        }
    }

    #[test]
    fn field_laws_hold() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(4);
        for _ in 0..200 {
            let (a, b, c) = (rng.gen::<u128>(), rng.gen::<u128>(), rng.gen::<u128>());
            let m = |x, y| mul(Block::from_u128(x), Block::from_u128(y)).to_u128();
            assert_eq!(m(a, b), m(b, a));
            assert_eq!(m(a, b ^ c), m(a, b) ^ m(a, c));
            assert_eq!(m(m(a, b), c), m(a, m(b, c)));
            assert_eq!(m(a, 1), a);
        }
    }

    #[test]
    fn inner_product_matches_the_sum_of_model_products() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(5);
        for n in [0usize, 1, 255, 256, 257, 1000] {
            let a: Vec<u128> = (0..n).map(|_| rng.gen()).collect();
            let b: Vec<u128> = (0..n).map(|_| rng.gen()).collect();
            let want = a.iter().zip(&b).fold(0, |acc, (&x, &y)| acc ^ mul_model(x, y));
            let ab: Vec<Block> = a.iter().map(|&v| Block::from_u128(v)).collect();
            let bb: Vec<Block> = b.iter().map(|&v| Block::from_u128(v)).collect();
            assert_eq!(inner_product(&ab, &bb).to_u128(), want, "n = {n}");
            assert_eq!(inner_product_u128(&ab, &bb).to_u128(), want, "u128 path n = {n}");
            assert_eq!(
                sum_of_products_portable(&a, &b).reduce(),
                want,
                "portable n = {n}"
            );
        }
    }

    /// The 512-bit path on every tail length (0–3 left after the groups of four) and on
    /// edge values in every lane, against the model (skipped where the CPU lacks it).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_512_bit_path_matches_the_model_on_every_tail_and_edge_lane() {
        if !has_clmul512() {
            eprintln!("no avx512f + vpclmulqdq here: the 512-bit path is not tested");
            return;
        }
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(6);
        let edges = edge_values();
        for n in 0usize..=13 {
            let a: Vec<u128> = (0..n)
                .map(|j| {
                    if j % 2 == 0 {
                        rng.gen()
                    } else {
                        edges[j % edges.len()]
                    }
                })
                .collect();
            let b: Vec<u128> = (0..n)
                .map(|j| {
                    if j % 3 == 0 {
                        rng.gen()
                    } else {
                        edges[(j + 3) % edges.len()]
                    }
                })
                .collect();
            let want = a.iter().zip(&b).fold(0, |acc, (&x, &y)| acc ^ mul_model(x, y));
            let ab: Vec<Block> = a.iter().map(|&v| Block::from_u128(v)).collect();
            let bb: Vec<Block> = b.iter().map(|&v| Block::from_u128(v)).collect();
            // SAFETY: the CPU supports the path (checked above).
            let got = unsafe { x86::sum_of_products_x4(&ab, &bb) }.reduce();
            assert_eq!(got, want, "n = {n}");
        }
    }
}
