//! VAES on 512-bit registers: four blocks per instruction, 32 blocks in flight for a fixed
//! key; re-keyed, 16 blocks and their keys (4 per register) expanded alongside.

use std::arch::x86_64::*;

use super::{aesni, RoundKeys, RCON};
use crate::Block;

/// [`aesni::next_key`] on four keys at once (every step stays within 128-bit lanes).
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
#[inline]
fn next_key(k: __m512i, rcon: __m512i) -> __m512i {
    let sub = _mm512_aesenclast_epi128(_mm512_shuffle_epi8(k, _mm512_set1_epi32(0x0c0f_0e0d)), rcon);
    // The prefix XOR of the four words with one lane shuffle: within each 64-bit half
    // (w0, w0⊕w1 | w2, w2⊕w3) by a shift, then w0⊕w1 copied into the upper half's words.
    let t = _mm512_xor_si512(k, _mm512_slli_epi64::<32>(k));
    let low = _mm512_maskz_shuffle_epi32::<0x50>(0xcccc, t);
    _mm512_ternarylogic_epi64::<0x96>(t, low, sub)
}

#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
#[inline]
fn sigma(x: __m512i) -> __m512i {
    _mm512_xor_si512(_mm512_unpackhi_epi64(x, x), _mm512_bslli_epi128::<8>(x))
}

/// Encrypts the `4 * N` blocks at `p`.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
#[inline]
unsafe fn encrypt<const N: usize>(rk: &[__m512i; 11], p: *mut Block) {
    let mut v = [_mm512_setzero_si512(); N];
    for (i, x) in v.iter_mut().enumerate() {
        *x = _mm512_xor_si512(_mm512_loadu_si512(p.add(4 * i).cast()), rk[0]);
    }
    for k in &rk[1..10] {
        for x in &mut v {
            *x = _mm512_aesenc_epi128(*x, *k);
        }
    }
    for (i, x) in v.into_iter().enumerate() {
        _mm512_storeu_si512(p.add(4 * i).cast(), _mm512_aesenclast_epi128(x, rk[10]));
    }
}

/// For `len` blocks in N registers of four, 4(N − 1) < `len` ≤ 4N: the lane mask of the
/// last register (two 64-bit lanes a block) and whether register i is full.
#[inline(always)]
fn last_register<const N: usize>(len: usize) -> (__mmask8, impl Fn(usize) -> bool) {
    let last = len - 4 * (N - 1);
    let mask = ((1u32 << (2 * last)) - 1) as __mmask8;
    (mask, move |i: usize| i + 1 < N || last == 4)
}

/// Encrypts the `len` blocks at `p`, 4(N − 1) < `len` ≤ 4N, all in flight: the last
/// register's lanes past `len` are masked off (neither read nor written).
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
#[inline]
unsafe fn encrypt_tail<const N: usize>(rk: &[__m512i; 11], p: *mut Block, len: usize) {
    let (mask, _) = last_register::<N>(len);
    let mut v = [_mm512_setzero_si512(); N];
    for (i, x) in v.iter_mut().enumerate() {
        let block = if i + 1 < N {
            _mm512_loadu_si512(p.add(4 * i).cast())
        } else {
            _mm512_maskz_loadu_epi64(mask, p.add(4 * i).cast())
        };
        *x = _mm512_xor_si512(block, rk[0]);
    }
    for k in &rk[1..10] {
        for x in &mut v {
            *x = _mm512_aesenc_epi128(*x, *k);
        }
    }
    for (i, x) in v.into_iter().enumerate() {
        let x = _mm512_aesenclast_epi128(x, rk[10]);
        if i + 1 < N {
            _mm512_storeu_si512(p.add(4 * i).cast(), x);
        } else {
            _mm512_mask_storeu_epi64(p.add(4 * i).cast(), mask, x);
        }
    }
}

/// The blocks of a fixed-key batch: 32 at a time, then the rest (fewer than 32) in one
/// pass with all of them in flight, so a short batch (the arithmetic row hash's 3 blocks
/// per label, 8–96 per call) costs one AES latency chain, not one per 4 blocks.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
pub(super) fn encrypt_many(keys: &RoundKeys, xs: &mut [Block]) {
    let mut rk = [_mm512_setzero_si512(); 11];
    for (w, k) in rk.iter_mut().zip(keys.m128()) {
        *w = _mm512_broadcast_i32x4(k);
    }
    let (n, p) = (xs.len(), xs.as_mut_ptr());
    let mut i = 0;
    // SAFETY: every call reads and writes blocks i..i + 4N ≤ n, the tail only its own
    // (masked lanes are not touched: AVX-512 suppresses their faults).
    unsafe {
        while i + 32 <= n {
            encrypt::<8>(&rk, p.add(i));
            i += 32;
        }
        let (rest, p) = (n - i, p.add(i));
        match rest.div_ceil(4) {
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

/// The tweaks of register `i` of a counter batch: `counter` (the batch's first tweak in
/// every lane) plus 4i, 4i + 1, 4i + 2, 4i + 3 in the lanes' low 64 bits (the caller
/// ensures that the low halves of the used lanes do not wrap).
#[target_feature(enable = "avx512f")]
#[inline]
fn counter_tweaks(counter: __m512i, i: usize) -> __m512i {
    let i = 4 * i as i64;
    _mm512_add_epi64(counter, _mm512_set_epi64(0, i + 3, 0, i + 2, 0, i + 1, 0, i))
}

/// Rounds 1–10 of AES-128 on the states `v` (the input already XORed with the first round
/// key), register i under the four keys `keys[i]`, expanded round by round beside it.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
#[inline]
fn rekeyed_rounds<const N: usize>(mut keys: [__m512i; N], mut v: [__m512i; N]) -> [__m512i; N] {
    for (r, &rcon) in RCON.iter().enumerate() {
        let rcon = _mm512_set1_epi32(rcon as i32);
        for i in 0..N {
            keys[i] = next_key(keys[i], rcon);
            v[i] = if r < 9 {
                _mm512_aesenc_epi128(v[i], keys[i])
            } else {
                _mm512_aesenclast_epi128(v[i], keys[i])
            };
        }
    }
    v
}

/// [`rekeyed_rounds`] on two sets of states under the same keys (each key step serves both).
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
#[inline]
fn rekeyed_rounds_twice<const N: usize>(
    mut keys: [__m512i; N],
    mut v0: [__m512i; N],
    mut v1: [__m512i; N],
) -> ([__m512i; N], [__m512i; N]) {
    for (r, &rcon) in RCON.iter().enumerate() {
        let rcon = _mm512_set1_epi32(rcon as i32);
        for i in 0..N {
            keys[i] = next_key(keys[i], rcon);
            if r < 9 {
                v0[i] = _mm512_aesenc_epi128(v0[i], keys[i]);
                v1[i] = _mm512_aesenc_epi128(v1[i], keys[i]);
            } else {
                v0[i] = _mm512_aesenclast_epi128(v0[i], keys[i]);
                v1[i] = _mm512_aesenclast_epi128(v1[i], keys[i]);
            }
        }
    }
    (v0, v1)
}

/// The `len` blocks at `xs`, 4(N − 1) < `len` ≤ 4N, under keys seed ⊕ tweak from `tweaks`
/// (one tweak per block, or with `PAIR` per two blocks, then `len` = 4N; or with `COUNTER`
/// the tweaks [`counter_tweaks`], `tweaks` unused), schedules
/// computed round by round beside them; with `MMO`, x ↦ AES(σ(x)) ⊕ σ(x). Without `PAIR`
/// the last register's lanes past `len` are masked off (neither read nor written), so a
/// batch of any size is one pass with all its blocks in flight.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
#[inline]
unsafe fn rekeyed_group<const N: usize, const PAIR: bool, const MMO: bool, const COUNTER: bool>(
    seed: __m512i,
    xs: *mut Block,
    tweaks: *const Block,
    counter: __m512i,
    len: usize,
) {
    debug_assert!(!PAIR || len == 4 * N);
    let (mask, full) = last_register::<N>(len);
    let zero = _mm512_setzero_si512();
    let (mut keys, mut fed, mut v) = ([zero; N], [zero; N], [zero; N]);
    for i in 0..N {
        let t = if COUNTER {
            counter_tweaks(counter, i)
        } else if PAIR {
            let two = _mm512_castsi256_si512(_mm256_loadu_si256(tweaks.add(2 * i).cast()));
            _mm512_shuffle_i64x2::<0x50>(two, two) // t₀ t₀ t₁ t₁
        } else if full(i) {
            _mm512_loadu_si512(tweaks.add(4 * i).cast())
        } else {
            _mm512_maskz_loadu_epi64(mask, tweaks.add(4 * i).cast())
        };
        keys[i] = _mm512_xor_si512(seed, t);
        let x = if full(i) {
            _mm512_loadu_si512(xs.add(4 * i).cast())
        } else {
            _mm512_maskz_loadu_epi64(mask, xs.add(4 * i).cast())
        };
        fed[i] = if MMO { sigma(x) } else { x };
        v[i] = _mm512_xor_si512(fed[i], keys[i]);
    }
    let v = rekeyed_rounds(keys, v);
    for i in 0..N {
        let mut x = v[i];
        if MMO {
            x = _mm512_xor_si512(x, fed[i]);
        }
        if full(i) {
            _mm512_storeu_si512(xs.add(4 * i).cast(), x);
        } else {
            _mm512_mask_storeu_epi64(xs.add(4 * i).cast(), mask, x);
        }
    }
}

/// The `8 * K` blocks at `xs` in pairs under keys seed ⊕ tweak, `4 * K` tweaks: each key
/// is expanded once (four per register) and its round key copied to both blocks of its
/// pair by a lane shuffle, instead of expanding it twice; with `MMO`, as above.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
#[inline]
unsafe fn rekeyed_pairs_group<const K: usize, const MMO: bool>(
    seed: __m512i,
    xs: *mut Block,
    tweaks: *const Block,
) {
    let zero = _mm512_setzero_si512();
    let (mut keys, mut fed, mut v) = ([zero; K], [[zero; 2]; K], [[zero; 2]; K]);
    for i in 0..K {
        keys[i] = _mm512_xor_si512(seed, _mm512_loadu_si512(tweaks.add(4 * i).cast()));
        // Blocks 8i..8i + 4 use keys 0, 0, 1, 1 of the register; 8i + 4.. keys 2, 2, 3, 3.
        let spread = [
            _mm512_shuffle_i64x2::<0x50>(keys[i], keys[i]),
            _mm512_shuffle_i64x2::<0xfa>(keys[i], keys[i]),
        ];
        for h in 0..2 {
            let x = _mm512_loadu_si512(xs.add(8 * i + 4 * h).cast());
            fed[i][h] = if MMO { sigma(x) } else { x };
            v[i][h] = _mm512_xor_si512(fed[i][h], spread[h]);
        }
    }
    for (r, &rcon) in RCON.iter().enumerate() {
        let rcon = _mm512_set1_epi32(rcon as i32);
        for i in 0..K {
            keys[i] = next_key(keys[i], rcon);
            let spread = [
                _mm512_shuffle_i64x2::<0x50>(keys[i], keys[i]),
                _mm512_shuffle_i64x2::<0xfa>(keys[i], keys[i]),
            ];
            for h in 0..2 {
                v[i][h] = if r < 9 {
                    _mm512_aesenc_epi128(v[i][h], spread[h])
                } else {
                    _mm512_aesenclast_epi128(v[i][h], spread[h])
                };
            }
        }
    }
    for i in 0..K {
        for h in 0..2 {
            let x = if MMO {
                _mm512_xor_si512(v[i][h], fed[i][h])
            } else {
                v[i][h]
            };
            _mm512_storeu_si512(xs.add(8 * i + 4 * h).cast(), x);
        }
    }
}

/// One key per block (or, with `PAIR`, per pair: [`rekeyed_pairs`]): 16 blocks per pass,
/// the rest (fewer than 16) in one masked pass.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
pub(super) fn rekeyed<const PAIR: bool, const MMO: bool>(seed: Block, xs: &mut [Block], tweaks: &[Block]) {
    if PAIR {
        return rekeyed_pairs::<MMO>(seed, xs, tweaks);
    }
    assert_eq!(xs.len(), tweaks.len());
    let seed4 = _mm512_broadcast_i32x4(seed.into_m128());
    let zero = _mm512_setzero_si512();
    let (n, p, t) = (xs.len(), xs.as_mut_ptr(), tweaks.as_ptr());
    let mut i = 0;
    // SAFETY: every call touches blocks i..i + len <= n and their tweaks (one per block);
    // masked lanes are not touched.
    unsafe {
        while i + 16 <= n {
            rekeyed_group::<4, false, MMO, false>(seed4, p.add(i), t.add(i), zero, 16);
            i += 16;
        }
        let (rest, p, t) = (n - i, p.add(i), t.add(i));
        match rest.div_ceil(4) {
            0 => {}
            1 => rekeyed_group::<1, false, MMO, false>(seed4, p, t, zero, rest),
            2 => rekeyed_group::<2, false, MMO, false>(seed4, p, t, zero, rest),
            3 => rekeyed_group::<3, false, MMO, false>(seed4, p, t, zero, rest),
            _ => rekeyed_group::<4, false, MMO, false>(seed4, p, t, zero, rest),
        }
    }
}

/// [`rekeyed`] in pairs: groups of 16 and 8 blocks with each key expanded once, the rest
/// (fewer than 8 blocks) by the shared path.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
fn rekeyed_pairs<const MMO: bool>(seed: Block, xs: &mut [Block], tweaks: &[Block]) {
    assert_eq!(xs.len(), 2 * tweaks.len());
    let seed4 = _mm512_broadcast_i32x4(seed.into_m128());
    let (n, p, t) = (xs.len(), xs.as_mut_ptr(), tweaks.as_ptr());
    let mut i = 0;
    // SAFETY: every call touches blocks i..i + 8K <= n and tweaks i/2..i/2 + 4K <= n/2.
    unsafe {
        while i + 16 <= n {
            rekeyed_pairs_group::<2, MMO>(seed4, p.add(i), t.add(i / 2));
            i += 16;
        }
        while i + 8 <= n {
            rekeyed_pairs_group::<1, MMO>(seed4, p.add(i), t.add(i / 2));
            i += 8;
        }
        while i + 4 <= n {
            rekeyed_group::<1, true, MMO, false>(seed4, p.add(i), t.add(i / 2), _mm512_setzero_si512(), 4);
            i += 4;
        }
    }
    aesni::rekeyed::<true, MMO>(seed, &mut xs[i..], &tweaks[i / 2..]);
}

/// The hashes x ↦ AES_{seed⊕t}(σ(x)) ⊕ σ(x) of the `len` blocks at `xs` and of the same
/// blocks XORed with the offset, 4(N − 1) < `len` ≤ 4N, one tweak per block of `xs` (or
/// with `COUNTER` the tweaks [`counter_tweaks`], `tweaks` unused):
/// writes H(x) to `h0` and H(x ⊕ Δ) to `h1`. The offset blocks are made in registers
/// (σ(x ⊕ Δ) = σ(x) ⊕ σ(Δ), σ being linear), and each key register serves both hashes
/// as it is (no lane shuffle), so a key step costs 6 instructions per 8 blocks. Lanes
/// past `len` are masked off (neither read nor written).
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
#[inline]
// The kernel's operands are registers and raw pointers; a struct would only rename them.
#[allow(clippy::too_many_arguments)]
unsafe fn offset_pairs_group<const N: usize, const COUNTER: bool>(
    seed: __m512i,
    sigma_delta: __m512i,
    xs: *const Block,
    tweaks: *const Block,
    counter: __m512i,
    h0: *mut Block,
    h1: *mut Block,
    len: usize,
) {
    let (mask, full) = last_register::<N>(len);
    let zero = _mm512_setzero_si512();
    let (mut keys, mut fed, mut v0, mut v1) = ([zero; N], [zero; N], [zero; N], [zero; N]);
    for i in 0..N {
        let x = if full(i) {
            _mm512_loadu_si512(xs.add(4 * i).cast())
        } else {
            _mm512_maskz_loadu_epi64(mask, xs.add(4 * i).cast())
        };
        let t = if COUNTER {
            counter_tweaks(counter, i)
        } else if full(i) {
            _mm512_loadu_si512(tweaks.add(4 * i).cast())
        } else {
            _mm512_maskz_loadu_epi64(mask, tweaks.add(4 * i).cast())
        };
        keys[i] = _mm512_xor_si512(seed, t);
        fed[i] = sigma(x);
        v0[i] = _mm512_xor_si512(fed[i], keys[i]);
        v1[i] = _mm512_ternarylogic_epi64::<0x96>(fed[i], sigma_delta, keys[i]);
    }
    let (v0, v1) = rekeyed_rounds_twice(keys, v0, v1);
    for i in 0..N {
        let y0 = _mm512_xor_si512(v0[i], fed[i]);
        let y1 = _mm512_ternarylogic_epi64::<0x96>(v1[i], fed[i], sigma_delta);
        if full(i) {
            _mm512_storeu_si512(h0.add(4 * i).cast(), y0);
            _mm512_storeu_si512(h1.add(4 * i).cast(), y1);
        } else {
            _mm512_mask_storeu_epi64(h0.add(4 * i).cast(), mask, y0);
            _mm512_mask_storeu_epi64(h1.add(4 * i).cast(), mask, y1);
        }
    }
}

/// [`super::AesKernel::sigma_mmo_offset_pairs`]: 16 blocks (32 hashes) per pass, the
/// rest (fewer than 16 blocks) in one masked pass.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
pub(super) fn sigma_mmo_offset_pairs(
    seed: Block,
    delta: Block,
    xs: &[Block],
    tweaks: &[Block],
    h0: &mut [Block],
    h1: &mut [Block],
) {
    let n = xs.len();
    assert!(
        tweaks.len() == n && h0.len() == n && h1.len() == n,
        "one tweak and two outputs per block"
    );
    // SAFETY: all four slices have length n.
    unsafe { offset_pairs::<false>(seed, delta, xs, tweaks.as_ptr(), 0, h0, h1) }
}

/// [`super::AesKernel::sigma_mmo_offset_pairs_counter`]: as [`sigma_mmo_offset_pairs`] with
/// the tweaks `first + i` made in registers.
///
/// # Safety
/// The CPU runs this kernel; `first`'s low 64 bits plus `xs.len()` do not wrap; `h0` and
/// `h1` are as long as `xs` (checked once, by `hash::offset_pairs_counter_chunks`).
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
pub(super) unsafe fn sigma_mmo_offset_pairs_counter(
    seed: Block,
    delta: Block,
    xs: &[Block],
    first: u128,
    h0: &mut [Block],
    h1: &mut [Block],
) {
    // SAFETY: the three slices have one length (the caller's precondition); `tweaks` is
    // not read with COUNTER.
    unsafe { offset_pairs::<true>(seed, delta, xs, std::ptr::null(), first, h0, h1) }
}

/// The loop of [`sigma_mmo_offset_pairs`]: 16 blocks (32 hashes) per pass, the rest (fewer
/// than 16 blocks) in one masked pass; tweaks from `tweaks` or, with `COUNTER`, `first + i`.
///
/// # Safety
/// `h0`, `h1` and (without `COUNTER`) the `tweaks` array are as long as `xs`; with
/// `COUNTER`, the low 64 bits of `first + i` do not wrap for i < `xs.len()`.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
unsafe fn offset_pairs<const COUNTER: bool>(
    seed: Block,
    delta: Block,
    xs: &[Block],
    tweaks: *const Block,
    first: u128,
    h0: &mut [Block],
    h1: &mut [Block],
) {
    let n = xs.len();
    let seed4 = _mm512_broadcast_i32x4(seed.into_m128());
    let sd = _mm512_broadcast_i32x4(super::sigma(delta).into_m128());
    let counter =
        |i: usize| _mm512_broadcast_i32x4(Block::from_u128(first.wrapping_add(i as u128)).into_m128());
    let (x, o0, o1) = (xs.as_ptr(), h0.as_mut_ptr(), h1.as_mut_ptr());
    let t = |i: usize| if COUNTER { tweaks } else { tweaks.wrapping_add(i) };
    let mut i = 0;
    // SAFETY: every call reads blocks i..i + len ≤ n of `xs` and (without COUNTER) of the
    // tweaks and writes the same range of `h0` and `h1` (all of length n, the caller's
    // precondition); masked lanes are not touched.
    unsafe {
        while i + 16 <= n {
            let (ti, ci) = (t(i), counter(i));
            offset_pairs_group::<4, COUNTER>(seed4, sd, x.add(i), ti, ci, o0.add(i), o1.add(i), 16);
            i += 16;
        }
        let rest = n - i;
        let (x, ti, ci, o0, o1) = (x.add(i), t(i), counter(i), o0.add(i), o1.add(i));
        match rest.div_ceil(4) {
            0 => {}
            1 => offset_pairs_group::<1, COUNTER>(seed4, sd, x, ti, ci, o0, o1, rest),
            2 => offset_pairs_group::<2, COUNTER>(seed4, sd, x, ti, ci, o0, o1, rest),
            3 => offset_pairs_group::<3, COUNTER>(seed4, sd, x, ti, ci, o0, o1, rest),
            _ => offset_pairs_group::<4, COUNTER>(seed4, sd, x, ti, ci, o0, o1, rest),
        }
    }
}

/// [`super::AesKernel::sigma_mmo_counter`]: the re-keyed hash of every block in place under
/// tweak `first + i`, made in registers; 16 blocks per pass, the rest in one masked pass.
///
/// # Safety
/// The CPU runs this kernel; `first`'s low 64 bits plus `xs.len()` do not wrap.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
pub(super) unsafe fn sigma_mmo_counter(seed: Block, xs: &mut [Block], first: u128) {
    let seed4 = _mm512_broadcast_i32x4(seed.into_m128());
    let counter =
        |i: usize| _mm512_broadcast_i32x4(Block::from_u128(first.wrapping_add(i as u128)).into_m128());
    let (n, p, t) = (xs.len(), xs.as_mut_ptr(), std::ptr::null());
    let mut i = 0;
    // SAFETY: every call touches blocks i..i + len <= n; no tweak is read with COUNTER;
    // masked lanes are not touched.
    unsafe {
        while i + 16 <= n {
            rekeyed_group::<4, false, true, true>(seed4, p.add(i), t, counter(i), 16);
            i += 16;
        }
        let (rest, p, c) = (n - i, p.add(i), counter(i));
        match rest.div_ceil(4) {
            0 => {}
            1 => rekeyed_group::<1, false, true, true>(seed4, p, t, c, rest),
            2 => rekeyed_group::<2, false, true, true>(seed4, p, t, c, rest),
            3 => rekeyed_group::<3, false, true, true>(seed4, p, t, c, rest),
            _ => rekeyed_group::<4, false, true, true>(seed4, p, t, c, rest),
        }
    }
}

/// Register `i` of the blocks at `p`: blocks 4i..4i + 4, or unless `full` only the 64-bit
/// lanes in `mask` (the others zero, not read).
///
/// # Safety
/// Those blocks (lanes) are readable.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn load_register(p: *const Block, i: usize, full: bool, mask: __mmask8) -> __m512i {
    // SAFETY: the caller's precondition; masked lanes are not read.
    unsafe {
        if full {
            _mm512_loadu_si512(p.add(4 * i).cast())
        } else {
            _mm512_maskz_loadu_epi64(mask, p.add(4 * i).cast())
        }
    }
}

/// Per 128-bit lane: all ones if bit 0 of the lane's block is set, else zero (the
/// point-and-permute bit as a mask, as [`Block::lsb_mask`]).
#[target_feature(enable = "avx512f")]
#[inline]
fn lsb_masks(x: __m512i) -> __m512i {
    _mm512_srai_epi32::<31>(_mm512_slli_epi32::<31>(_mm512_shuffle_epi32::<_MM_PERM_AAAA>(x)))
}

/// The half-gates evaluator (Zahur–Rosulek–Evans, ePrint 2014/756, Fig. 2) on the `len / 2`
/// gates whose active labels (A, B) are the pairs of blocks at `labels` and whose rows
/// (T_G, T_E) are the pairs at `rows`, 4(N − 1) < `len` ≤ 4N, `len` even: writes
/// C = H(A, j) ⊕ s_a·T_G ⊕ H(B, j') ⊕ s_b·(T_E ⊕ A) to `out`, where j, j' are the tweaks
/// [`counter_tweaks`] of the two blocks and s = lsb. The hashes, as in [`rekeyed_group`]
/// with MMO, stay in registers: each register holds two gates' A, B, and its rows are
/// combined with it there (no hash is stored and reloaded), then two registers' gates are
/// folded into one output register. Lanes past `len` (and outputs past `len / 2`) are
/// masked off.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
#[inline]
unsafe fn half_gates_eval_group<const N: usize>(
    seed: __m512i,
    labels: *const Block,
    rows: *const Block,
    counter: __m512i,
    out: *mut Block,
    len: usize,
) {
    debug_assert!(len.is_multiple_of(2) && len > 4 * (N - 1) && len <= 4 * N);
    let (mask, full) = last_register::<N>(len);
    // SAFETY (of the closure's calls): register i's blocks 4i..4i + 4 (masked past `len`)
    // lie within the caller's arrays.
    let load = |p: *const Block, i: usize| unsafe { load_register(p, i, full(i), mask) };
    let zero = _mm512_setzero_si512();
    let (mut x, mut keys, mut fed, mut v) = ([zero; N], [zero; N], [zero; N], [zero; N]);
    for i in 0..N {
        x[i] = load(labels, i);
        keys[i] = _mm512_xor_si512(seed, counter_tweaks(counter, i));
        fed[i] = sigma(x[i]);
        v[i] = _mm512_xor_si512(fed[i], keys[i]);
    }
    let v = rekeyed_rounds(keys, v);
    // Per register [A, B, A', B']: the rows [T_G, T_E ⊕ A, T_G', T_E' ⊕ A'] masked by the
    // lsb of [A, B, A', B'] and XORed onto the hashes.
    let mut z = [zero; N];
    for i in 0..N {
        let h = _mm512_xor_si512(v[i], fed[i]);
        z[i] = half_gate_lanes(h, load(rows, i), x[i]);
    }
    // SAFETY: the caller's `out` has room for the `len / 2` outputs.
    unsafe { store_gate_outputs(&z, out, len / 2) };
}

/// For a register of two gates' labels `x` = [A, B, A', B'] with their hashes `h` (same
/// lanes) and rows `r` = [T_G, T_E, T_G', T_E']: h ⊕ ([T_G, T_E ⊕ A, …] ∧ [s_a, s_b, …]),
/// s = lsb. The two lanes of a gate XORed are its output label, for the evaluator (active
/// labels) and for the garbler (zero-labels: W_G⁰ and W_E⁰ of ZRE15 Fig. 2).
#[target_feature(enable = "avx512f")]
#[inline]
fn half_gate_lanes(h: __m512i, r: __m512i, x: __m512i) -> __m512i {
    let a_up = _mm512_maskz_shuffle_i64x2::<0x80>(0xcc, x, x); // [0, A, 0, A']
    _mm512_ternarylogic_epi64::<0x78>(h, _mm512_xor_si512(r, a_up), lsb_masks(x))
    // h ⊕ (r′ ∧ m)
}

/// Stores the outputs of the `gates` gates whose [`half_gate_lanes`] are `z` (two per
/// register): gate k is lanes 2k and 2k + 1 XORed, four gates per store; stores past
/// `gates` are masked off.
///
/// # Safety
/// `out` has room for `gates` ≤ 2N blocks.
#[target_feature(enable = "avx512f")]
#[inline]
unsafe fn store_gate_outputs<const N: usize>(z: &[__m512i; N], out: *mut Block, gates: usize) {
    let even = _mm512_set_epi64(13, 12, 9, 8, 5, 4, 1, 0);
    let odd = _mm512_set_epi64(15, 14, 11, 10, 7, 6, 3, 2);
    for p in 0..gates.div_ceil(4) {
        let (z0, z1) = (z[2 * p], if 2 * p + 1 < N { z[2 * p + 1] } else { z[2 * p] });
        let c = _mm512_xor_si512(
            _mm512_permutex2var_epi64(z0, even, z1),
            _mm512_permutex2var_epi64(z0, odd, z1),
        );
        let here = (gates - 4 * p).min(4);
        // SAFETY: outputs 4p..4p + here ≤ gates, within `out` (the caller's precondition).
        unsafe {
            if here == 4 {
                _mm512_storeu_si512(out.add(4 * p).cast(), c);
            } else {
                _mm512_mask_storeu_epi64(out.add(4 * p).cast(), ((1u32 << (2 * here)) - 1) as __mmask8, c);
            }
        }
    }
}

/// The half-gates garbler (ZRE15 Fig. 2) on the `len / 2` gates whose zero-labels
/// (A⁰, B⁰) are the pairs of blocks at `labels`, 4(N − 1) < `len` ≤ 4N, `len` even, with
/// tweaks j, j' the [`counter_tweaks`] of the two blocks: writes the rows
/// (T_G, T_E) = (H(A⁰, j) ⊕ H(A¹, j) ⊕ p_b·Δ, H(B⁰, j') ⊕ H(B¹, j') ⊕ A⁰) to `rows` (two per
/// gate) and C⁰ = W_G⁰ ⊕ W_E⁰ to `out`, p = lsb of the zero-label. The hashes of x and
/// x ⊕ Δ are made as in [`offset_pairs_group`] and stay in registers. Lanes past `len`
/// are masked off.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
#[inline]
// The kernel's operands are registers and raw pointers; a struct would only rename them.
#[allow(clippy::too_many_arguments)]
unsafe fn half_gates_garble_group<const N: usize>(
    seed: __m512i,
    delta: __m512i,
    sigma_delta: __m512i,
    labels: *const Block,
    counter: __m512i,
    rows: *mut Block,
    out: *mut Block,
    len: usize,
) {
    debug_assert!(len.is_multiple_of(2) && len > 4 * (N - 1) && len <= 4 * N);
    let (mask, full) = last_register::<N>(len);
    // SAFETY (of the closure's calls): register i's blocks 4i..4i + 4 (masked past `len`)
    // lie within the caller's `labels`.
    let load = |i: usize| unsafe { load_register(labels, i, full(i), mask) };
    let zero = _mm512_setzero_si512();
    let (mut keys, mut fed, mut v0, mut v1) = ([zero; N], [zero; N], [zero; N], [zero; N]);
    for i in 0..N {
        keys[i] = _mm512_xor_si512(seed, counter_tweaks(counter, i));
        fed[i] = sigma(load(i));
        v0[i] = _mm512_xor_si512(fed[i], keys[i]);
        v1[i] = _mm512_ternarylogic_epi64::<0x96>(fed[i], sigma_delta, keys[i]);
    }
    let (v0, v1) = rekeyed_rounds_twice(keys, v0, v1);
    let mut z = [zero; N];
    for i in 0..N {
        let x = load(i); // [A⁰, B⁰, A⁰', B⁰']
        let h0 = _mm512_xor_si512(v0[i], fed[i]);
        let h1 = _mm512_ternarylogic_epi64::<0x96>(v1[i], fed[i], sigma_delta);
        let swapped = _mm512_shuffle_i64x2::<0xb1>(x, x); // [B⁰, A⁰, B⁰', A⁰']
        let fix = _mm512_mask_blend_epi64(0xcc, _mm512_and_si512(delta, lsb_masks(swapped)), swapped);
        let r = _mm512_ternarylogic_epi64::<0x96>(h0, h1, fix); // [T_G, T_E, T_G', T_E']
                                                                // SAFETY: rows 4i..4i + 4 (masked past `len`) lie within the caller's `rows`.
        unsafe {
            if full(i) {
                _mm512_storeu_si512(rows.add(4 * i).cast(), r);
            } else {
                _mm512_mask_storeu_epi64(rows.add(4 * i).cast(), mask, r);
            }
        }
        z[i] = half_gate_lanes(h0, r, x);
    }
    // SAFETY: the caller's `out` has room for the `len / 2` outputs.
    unsafe { store_gate_outputs(&z, out, len / 2) };
}

/// [`super::AesKernel::half_gates_garble_counter`]: 8 gates (32 hashes) per pass, the
/// rest in one masked pass.
///
/// # Safety
/// The CPU runs this kernel; `labels.len() == rows.len() == 2 * out.len()`; `first`'s low
/// 64 bits plus `labels.len()` do not wrap.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
pub(super) unsafe fn half_gates_garble_counter(
    seed: Block,
    delta: Block,
    labels: &[Block],
    first: u128,
    rows: &mut [std::mem::MaybeUninit<Block>],
    out: &mut [Block],
) {
    let seed4 = _mm512_broadcast_i32x4(seed.into_m128());
    let delta4 = _mm512_broadcast_i32x4(delta.into_m128());
    let sd = _mm512_broadcast_i32x4(super::sigma(delta).into_m128());
    let counter =
        |i: usize| _mm512_broadcast_i32x4(Block::from_u128(first.wrapping_add(i as u128)).into_m128());
    let (n, l) = (labels.len(), labels.as_ptr());
    let (r, o) = (rows.as_mut_ptr().cast::<Block>(), out.as_mut_ptr());
    let mut i = 0;
    // SAFETY: every call reads blocks i..i + len ≤ n of `labels`, writes the same rows and
    // outputs i/2..(i + len)/2 (the caller's lengths); masked lanes are not touched.
    unsafe {
        while i + 16 <= n {
            half_gates_garble_group::<4>(
                seed4,
                delta4,
                sd,
                l.add(i),
                counter(i),
                r.add(i),
                o.add(i / 2),
                16,
            );
            i += 16;
        }
        let rest = n - i;
        let (l, c, r, o) = (l.add(i), counter(i), r.add(i), o.add(i / 2));
        match rest.div_ceil(4) {
            0 => {}
            1 => half_gates_garble_group::<1>(seed4, delta4, sd, l, c, r, o, rest),
            2 => half_gates_garble_group::<2>(seed4, delta4, sd, l, c, r, o, rest),
            3 => half_gates_garble_group::<3>(seed4, delta4, sd, l, c, r, o, rest),
            _ => half_gates_garble_group::<4>(seed4, delta4, sd, l, c, r, o, rest),
        }
    }
}

/// [`super::AesKernel::half_gates_eval_counter`]: 8 gates (16 hashes) per pass, the rest
/// in one masked pass.
///
/// # Safety
/// The CPU runs this kernel; `labels.len() == rows.len() == 2 * out.len()`; `first`'s low
/// 64 bits plus `labels.len()` do not wrap.
#[target_feature(enable = "aes,avx512f,avx512bw,vaes")]
pub(super) unsafe fn half_gates_eval_counter(
    seed: Block,
    labels: &[Block],
    rows: &[Block],
    first: u128,
    out: &mut [Block],
) {
    let seed4 = _mm512_broadcast_i32x4(seed.into_m128());
    let counter =
        |i: usize| _mm512_broadcast_i32x4(Block::from_u128(first.wrapping_add(i as u128)).into_m128());
    let (n, l, r, o) = (labels.len(), labels.as_ptr(), rows.as_ptr(), out.as_mut_ptr());
    let mut i = 0;
    // SAFETY: every call reads blocks i..i + len ≤ n of `labels` and `rows` and writes
    // outputs i/2..(i + len)/2 (the caller's lengths); masked lanes are not touched.
    unsafe {
        while i + 16 <= n {
            half_gates_eval_group::<4>(seed4, l.add(i), r.add(i), counter(i), o.add(i / 2), 16);
            i += 16;
        }
        let rest = n - i;
        let (l, r, c, o) = (l.add(i), r.add(i), counter(i), o.add(i / 2));
        match rest.div_ceil(4) {
            0 => {}
            1 => half_gates_eval_group::<1>(seed4, l, r, c, o, rest),
            2 => half_gates_eval_group::<2>(seed4, l, r, c, o, rest),
            3 => half_gates_eval_group::<3>(seed4, l, r, c, o, rest),
            _ => half_gates_eval_group::<4>(seed4, l, r, c, o, rest),
        }
    }
}
