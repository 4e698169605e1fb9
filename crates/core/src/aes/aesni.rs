//! AES-NI: 8 blocks in flight for a fixed key; re-keyed, 8 keys expanded alongside their
//! blocks, round by round.

use std::arch::x86_64::*;

use super::{as_m128, RoundKeys, RCON};
use crate::Block;

/// One key-schedule step on one key (FIPS-197 §5.2): pshufb broadcasts RotWord(w₃) to
/// every column, so AESENCLAST's ShiftRows is a no-op and it yields SubWord ⊕ rcon in
/// every column; then each word is XORed with all the words before it.
#[target_feature(enable = "aes,ssse3")]
#[inline]
pub(super) fn next_key(k: __m128i, rcon: __m128i) -> __m128i {
    let sub = _mm_aesenclast_si128(_mm_shuffle_epi8(k, _mm_set1_epi32(0x0c0f_0e0d)), rcon);
    let t = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
    _mm_xor_si128(_mm_xor_si128(t, _mm_slli_si128::<8>(t)), sub)
}

/// σ(x_L‖x_R) = (x_L⊕x_R)‖x_L, x_L the high 64 bits.
#[target_feature(enable = "aes,ssse3")]
#[inline]
pub(super) fn sigma(x: __m128i) -> __m128i {
    _mm_xor_si128(_mm_unpackhi_epi64(x, x), _mm_slli_si128::<8>(x))
}

#[target_feature(enable = "aes,ssse3")]
pub(super) fn expand(key: Block) -> [Block; 11] {
    let mut keys = [key; 11];
    let mut k = key.into_m128();
    for (round, &rcon) in RCON.iter().enumerate() {
        k = next_key(k, _mm_set1_epi32(rcon as i32));
        keys[round + 1] = Block::from_m128(k);
    }
    keys
}

#[target_feature(enable = "aes,ssse3")]
#[inline]
fn encrypt<const N: usize>(rk: &[__m128i; 11], xs: &mut [__m128i]) {
    let mut v = [_mm_setzero_si128(); N];
    for (x, &input) in v.iter_mut().zip(xs.iter()) {
        *x = _mm_xor_si128(input, rk[0]);
    }
    for k in &rk[1..10] {
        for x in &mut v {
            *x = _mm_aesenc_si128(*x, *k);
        }
    }
    for (out, x) in xs.iter_mut().zip(v) {
        *out = _mm_aesenclast_si128(x, rk[10]);
    }
}

#[target_feature(enable = "aes,ssse3")]
pub(super) fn encrypt_many(keys: &RoundKeys, xs: &mut [Block]) {
    let rk = keys.m128();
    let mut chunks = as_m128(xs).chunks_exact_mut(8);
    for c in &mut chunks {
        encrypt::<8>(&rk, c);
    }
    // The rest (fewer than 8) in one pass, all in flight.
    let rest = chunks.into_remainder();
    match rest.len() {
        0 => {}
        1 => encrypt::<1>(&rk, rest),
        2 => encrypt::<2>(&rk, rest),
        3 => encrypt::<3>(&rk, rest),
        4 => encrypt::<4>(&rk, rest),
        5 => encrypt::<5>(&rk, rest),
        6 => encrypt::<6>(&rk, rest),
        _ => encrypt::<7>(&rk, rest),
    }
}

/// `N` keys seed ⊕ tweaks[i], each for 1 or (`PAIR`) 2 consecutive blocks of `xs`, key
/// schedules computed round by round beside the blocks; with `MMO`, x ↦ AES(σ(x)) ⊕ σ(x).
#[target_feature(enable = "aes,ssse3")]
#[inline]
pub(super) fn rekeyed_group<const N: usize, const PAIR: bool, const MMO: bool>(
    seed: __m128i,
    xs: &mut [__m128i],
    tweaks: &[__m128i],
) {
    let per = if PAIR { 2 } else { 1 };
    let zero = _mm_setzero_si128();
    let (mut keys, mut fed_a, mut fed_b) = ([zero; N], [zero; N], [zero; N]);
    for i in 0..N {
        keys[i] = _mm_xor_si128(seed, tweaks[i]);
        fed_a[i] = if MMO { sigma(xs[per * i]) } else { xs[per * i] };
        if PAIR {
            fed_b[i] = if MMO {
                sigma(xs[per * i + 1])
            } else {
                xs[per * i + 1]
            };
        }
    }
    let (mut a, mut b) = ([zero; N], [zero; N]);
    for i in 0..N {
        a[i] = _mm_xor_si128(fed_a[i], keys[i]);
        b[i] = _mm_xor_si128(fed_b[i], keys[i]);
    }
    for &rcon in &RCON[..9] {
        let rcon = _mm_set1_epi32(rcon as i32);
        for i in 0..N {
            keys[i] = next_key(keys[i], rcon);
            a[i] = _mm_aesenc_si128(a[i], keys[i]);
            if PAIR {
                b[i] = _mm_aesenc_si128(b[i], keys[i]);
            }
        }
    }
    let rcon = _mm_set1_epi32(RCON[9] as i32);
    for i in 0..N {
        keys[i] = next_key(keys[i], rcon);
        a[i] = _mm_aesenclast_si128(a[i], keys[i]);
        if MMO {
            a[i] = _mm_xor_si128(a[i], fed_a[i]);
        }
        xs[per * i] = a[i];
        if PAIR {
            b[i] = _mm_aesenclast_si128(b[i], keys[i]);
            if MMO {
                b[i] = _mm_xor_si128(b[i], fed_b[i]);
            }
            xs[per * i + 1] = b[i];
        }
    }
}

/// Every key of `tweaks` over its 1 or 2 blocks, 8 keys at a time.
#[target_feature(enable = "aes,ssse3")]
pub(super) fn rekeyed<const PAIR: bool, const MMO: bool>(seed: Block, xs: &mut [Block], tweaks: &[Block]) {
    let per = if PAIR { 2 } else { 1 };
    let seed = seed.into_m128();
    let (xs, tweaks) = (as_m128(xs), super::as_m128_ref(tweaks));
    let groups = tweaks.len() / 8 * 8;
    for (x, t) in xs[..per * groups]
        .chunks_exact_mut(8 * per)
        .zip(tweaks.chunks_exact(8))
    {
        rekeyed_group::<8, PAIR, MMO>(seed, x, t);
    }
    for (x, t) in xs[per * groups..].chunks_exact_mut(per).zip(&tweaks[groups..]) {
        rekeyed_group::<1, PAIR, MMO>(seed, x, std::slice::from_ref(t));
    }
}
