//! The reference kernel: the `aes` crate (AES-NI or ARMv8 crypto when the crate detects
//! them, bitsliced software otherwise), plus a byte-wise FIPS-197 key schedule.

use ::aes::cipher::{BlockEncrypt, KeyInit};
use ::aes::Aes128Enc;

use super::{sigma, RoundKeys, RCON};
use crate::Block;

const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0;
    while b != 0 {
        if b & 1 == 1 {
            p ^= a;
        }
        a = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
        b >>= 1;
    }
    p
}

/// The AES S-box (FIPS-197 §5.1.1): inversion in GF(2⁸), then the affine map.
const SBOX: [u8; 256] = {
    let mut s = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        // x^254 = x⁻¹ (0 ↦ 0).
        let mut inv = 1u8;
        let mut k = 0;
        while k < 254 {
            inv = gf_mul(inv, x as u8);
            k += 1;
        }
        s[x] = inv ^ inv.rotate_left(1) ^ inv.rotate_left(2) ^ inv.rotate_left(3) ^ inv.rotate_left(4) ^ 0x63;
        x += 1;
    }
    s
};

/// The 11 round keys of `key` (FIPS-197 §5.2).
pub(super) fn expand_keys(key: Block) -> [Block; 11] {
    let mut keys = [key; 11];
    let mut w = key.to_bytes();
    for (round, &rcon) in RCON.iter().enumerate() {
        let last = [w[12], w[13], w[14], w[15]];
        let mut t = [
            SBOX[last[1] as usize],
            SBOX[last[2] as usize],
            SBOX[last[3] as usize],
            SBOX[last[0] as usize],
        ];
        t[0] ^= rcon;
        for col in 0..4 {
            for b in 0..4 {
                w[4 * col + b] ^= t[b];
                t[b] = w[4 * col + b];
            }
        }
        keys[round + 1] = Block::from_bytes(w);
    }
    keys
}

pub(super) fn cipher(key: Block) -> Aes128Enc {
    Aes128Enc::new(&key.to_bytes().into())
}

fn as_aes_blocks(blocks: &mut [Block]) -> &mut [::aes::Block] {
    // SAFETY: `aes::Block` is `GenericArray<u8, U16>`, a transparent wrapper over
    // `[u8; 16]` with alignment 1; `Block` is 16 bytes aligned to 16, so the cast only
    // lowers alignment and every byte pattern is valid for both.
    unsafe { std::slice::from_raw_parts_mut(blocks.as_mut_ptr().cast(), blocks.len()) }
}

pub(super) fn encrypt_many(keys: &RoundKeys, xs: &mut [Block]) {
    keys.cipher.encrypt_blocks(as_aes_blocks(xs));
}

/// `xs` in groups of `per_key` blocks, group i under `seed ⊕ tweaks[i]`; with `mmo`,
/// each x becomes AES(σ(x)) ⊕ σ(x).
pub(super) fn rekeyed(seed: Block, xs: &mut [Block], tweaks: &[Block], per_key: usize, mmo: bool) {
    for (group, &tweak) in xs.chunks_exact_mut(per_key).zip(tweaks) {
        let mut fed = [Block::ZERO; 2];
        if mmo {
            for (x, f) in group.iter_mut().zip(&mut fed) {
                *x = sigma(*x);
                *f = *x;
            }
        }
        cipher(seed ^ tweak).encrypt_blocks(as_aes_blocks(group));
        if mmo {
            for (x, f) in group.iter_mut().zip(fed) {
                *x ^= f;
            }
        }
    }
}
