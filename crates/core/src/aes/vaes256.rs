//! VAES on 256-bit registers: two blocks per instruction, 16 blocks in flight for a fixed
//! key; re-keyed, 8 blocks and their keys (2 per register) expanded alongside.

use std::arch::x86_64::*;

use super::{aesni, RoundKeys, RCON};
use crate::Block;

/// [`aesni::next_key`] on two keys at once (every step stays within 128-bit lanes).
#[target_feature(enable = "aes,avx2,vaes")]
#[inline]
fn next_key(k: __m256i, rcon: __m256i) -> __m256i {
    let sub = _mm256_aesenclast_epi128(_mm256_shuffle_epi8(k, _mm256_set1_epi32(0x0c0f_0e0d)), rcon);
    // The words' prefix XOR with one lane shuffle: within each 64-bit half by a shift, then
    // w0⊕w1 copied into the upper half's words (a blend keeps the lower half at zero).
    let t = _mm256_xor_si256(k, _mm256_slli_epi64::<32>(k));
    let low = _mm256_blend_epi32::<0xcc>(_mm256_setzero_si256(), _mm256_shuffle_epi32::<0x50>(t));
    _mm256_xor_si256(_mm256_xor_si256(t, low), sub)
}

#[target_feature(enable = "aes,avx2,vaes")]
#[inline]
fn sigma(x: __m256i) -> __m256i {
    _mm256_xor_si256(_mm256_unpackhi_epi64(x, x), _mm256_bslli_epi128::<8>(x))
}

/// Encrypts the `2 * N` blocks at `p`.
#[target_feature(enable = "aes,avx2,vaes")]
#[inline]
unsafe fn encrypt<const N: usize>(rk: &[__m256i; 11], p: *mut Block) {
    let mut v = [_mm256_setzero_si256(); N];
    for (i, x) in v.iter_mut().enumerate() {
        *x = _mm256_xor_si256(_mm256_loadu_si256(p.add(2 * i).cast()), rk[0]);
    }
    for k in &rk[1..10] {
        for x in &mut v {
            *x = _mm256_aesenc_epi128(*x, *k);
        }
    }
    for (i, x) in v.into_iter().enumerate() {
        _mm256_storeu_si256(p.add(2 * i).cast(), _mm256_aesenclast_epi128(x, rk[10]));
    }
}

/// Encrypts the `len` blocks at `p`, 2(N − 1) < `len` ≤ 2N, all in flight: when `len` is
/// odd the last register's upper lane is masked off (neither read nor written).
#[target_feature(enable = "aes,avx2,vaes")]
#[inline]
unsafe fn encrypt_tail<const N: usize>(rk: &[__m256i; 11], p: *mut Block, len: usize) {
    let high = if len.is_multiple_of(2) { -1 } else { 0 };
    let mask = _mm256_set_epi64x(high, high, -1, -1);
    let mut v = [_mm256_setzero_si256(); N];
    for (i, x) in v.iter_mut().enumerate() {
        let block = if i + 1 < N {
            _mm256_loadu_si256(p.add(2 * i).cast())
        } else {
            _mm256_maskload_epi64(p.add(2 * i).cast(), mask)
        };
        *x = _mm256_xor_si256(block, rk[0]);
    }
    for k in &rk[1..10] {
        for x in &mut v {
            *x = _mm256_aesenc_epi128(*x, *k);
        }
    }
    for (i, x) in v.into_iter().enumerate() {
        let x = _mm256_aesenclast_epi128(x, rk[10]);
        if i + 1 < N {
            _mm256_storeu_si256(p.add(2 * i).cast(), x);
        } else {
            _mm256_maskstore_epi64(p.add(2 * i).cast(), mask, x);
        }
    }
}

/// The blocks of a fixed-key batch: 16 at a time, then the rest (fewer than 16) in one
/// pass with all of them in flight.
#[target_feature(enable = "aes,avx2,vaes")]
pub(super) fn encrypt_many(keys: &RoundKeys, xs: &mut [Block]) {
    let mut rk = [_mm256_setzero_si256(); 11];
    for (w, k) in rk.iter_mut().zip(keys.m128()) {
        *w = _mm256_broadcastsi128_si256(k);
    }
    let (n, p) = (xs.len(), xs.as_mut_ptr());
    let mut i = 0;
    // SAFETY: every call reads and writes blocks i..i + 2N ≤ n, the tail only its own
    // (a masked-off lane is neither loaded nor stored, and cannot fault).
    unsafe {
        while i + 16 <= n {
            encrypt::<8>(&rk, p.add(i));
            i += 16;
        }
        let (rest, p) = (n - i, p.add(i));
        match rest.div_ceil(2) {
            0 => {}
            1 => encrypt_tail::<1>(&rk, p, rest),
            2 => encrypt_tail::<2>(&rk, p, rest),
            3 => encrypt_tail::<3>(&rk, p, rest),
            4 => encrypt_tail::<4>(&rk, p, rest),
            5 => encrypt_tail::<5>(&rk, p, rest),
            6 => encrypt_tail::<6>(&rk, p, rest),
            7 => encrypt_tail::<7>(&rk, p, rest),
            _ => encrypt_tail::<8>(&rk, p, rest),
        }
    }
}

/// The `2 * N` blocks at `xs`, under keys seed ⊕ tweak from `tweaks` (one tweak per
/// block, or with `PAIR` per two blocks), schedules computed round by round beside them;
/// with `MMO`, x ↦ AES(σ(x)) ⊕ σ(x).
#[target_feature(enable = "aes,avx2,vaes")]
#[inline]
unsafe fn rekeyed_group<const N: usize, const PAIR: bool, const MMO: bool>(
    seed: __m256i,
    xs: *mut Block,
    tweaks: *const Block,
) {
    let zero = _mm256_setzero_si256();
    let (mut keys, mut fed, mut v) = ([zero; N], [zero; N], [zero; N]);
    for i in 0..N {
        let t = if PAIR {
            _mm256_broadcastsi128_si256(_mm_loadu_si128(tweaks.add(i).cast()))
        } else {
            _mm256_loadu_si256(tweaks.add(2 * i).cast())
        };
        keys[i] = _mm256_xor_si256(seed, t);
        let x = _mm256_loadu_si256(xs.add(2 * i).cast());
        fed[i] = if MMO { sigma(x) } else { x };
        v[i] = _mm256_xor_si256(fed[i], keys[i]);
    }
    for &rcon in &RCON[..9] {
        let rcon = _mm256_set1_epi32(rcon as i32);
        for i in 0..N {
            keys[i] = next_key(keys[i], rcon);
            v[i] = _mm256_aesenc_epi128(v[i], keys[i]);
        }
    }
    let rcon = _mm256_set1_epi32(RCON[9] as i32);
    for i in 0..N {
        keys[i] = next_key(keys[i], rcon);
        let mut x = _mm256_aesenclast_epi128(v[i], keys[i]);
        if MMO {
            x = _mm256_xor_si256(x, fed[i]);
        }
        _mm256_storeu_si256(xs.add(2 * i).cast(), x);
    }
}

#[target_feature(enable = "aes,avx2,vaes")]
pub(super) fn rekeyed<const PAIR: bool, const MMO: bool>(seed: Block, xs: &mut [Block], tweaks: &[Block]) {
    let per = if PAIR { 2 } else { 1 };
    assert_eq!(xs.len(), per * tweaks.len());
    let seed2 = _mm256_broadcastsi128_si256(seed.into_m128());
    let (n, p, t) = (xs.len(), xs.as_mut_ptr(), tweaks.as_ptr());
    let mut i = 0;
    // SAFETY: every call touches blocks i..i + 2N <= n and their tweaks i/per.. < n/per.
    unsafe {
        while i + 8 <= n {
            rekeyed_group::<4, PAIR, MMO>(seed2, p.add(i), t.add(i / per));
            i += 8;
        }
        while i + 2 <= n {
            rekeyed_group::<1, PAIR, MMO>(seed2, p.add(i), t.add(i / per));
            i += 2;
        }
    }
    aesni::rekeyed::<PAIR, MMO>(seed, &mut xs[i..], &tweaks[i / per..]);
}
