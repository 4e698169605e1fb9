//! Tweakable correlation-robust hashes from AES (Guo–Katz–Wang–Yu, ePrint 2019/074 and
//! Guo–Katz–Wang–Weng–Yu, ePrint 2019/1168). These hash every garbled row and every OT pad.

use std::fmt;
use std::str::FromStr;

use aes::cipher::{BlockEncrypt, KeyInit};
use aes::{Aes128, Aes128Enc};

use crate::Block;

/// Public key of the fixed-key permutation π: the first 128 bits of the fraction of π
/// (nothing up the sleeve). π being public is what the TCCR construction assumes.
const FIXED_KEY: [u8; 16] = 0x243f6a8885a308d313198a2e03707344u128.to_be_bytes();

/// A hash H(x, tweak) → 128 bits, evaluated on many independent inputs at once.
///
/// Pass 8 or more inputs per call: AES-NI then has 8 blocks in flight (the `aes` crate's
/// parallel path); a lone block waits out the full AES latency.
pub trait TweakableHash: Send + Sync {
    /// Replaces each `xs[k]` by H(xs[k], tweaks[k]). `tweaks.len() == xs.len()`.
    /// `tweaks` is used as scratch space and holds garbage afterwards (this saves a copy
    /// of every block on the hot path).
    fn hash_many(&self, xs: &mut [Block], tweaks: &mut [Block]);

    /// One hash; prefer [`TweakableHash::hash_many`] on hot paths.
    fn hash(&self, x: Block, tweak: Block) -> Block {
        let mut v = [x];
        self.hash_many(&mut v, &mut [tweak]);
        v[0]
    }
}

/// π: AES-128 under the fixed public key [`FIXED_KEY`].
#[derive(Clone)]
pub struct FixedKeyAes {
    aes: Aes128,
}

impl Default for FixedKeyAes {
    fn default() -> Self {
        FixedKeyAes {
            aes: Aes128::new(&FIXED_KEY.into()),
        }
    }
}

impl FixedKeyAes {
    /// π under another public key: a per-session key chosen at random and sent in the
    /// clear gives each session its own permutation, so work precomputed against one
    /// permutation does not carry over to other sessions (the multi-instance concern of
    /// GKWWY 2019/1168). Security still only assumes π is a public random permutation.
    pub fn with_public_key(key: [u8; 16]) -> FixedKeyAes {
        FixedKeyAes {
            aes: Aes128::new(&key.into()),
        }
    }

    /// Applies π to every block in place, 8 blocks at a time on AES-NI.
    #[inline]
    pub fn permute_many(&self, blocks: &mut [Block]) {
        self.aes.encrypt_blocks(as_aes_blocks(blocks));
    }
}

fn as_aes_blocks(blocks: &mut [Block]) -> &mut [aes::Block] {
    // SAFETY: `aes::Block` is `GenericArray<u8, U16>`, a transparent wrapper over
    // `[u8; 16]` with alignment 1; `Block` is `[u8; 16]` aligned to 16, so the cast only
    // lowers alignment and every byte pattern is valid for both.
    unsafe { std::slice::from_raw_parts_mut(blocks.as_mut_ptr().cast(), blocks.len()) }
}

/// The TCCR hash H(x, i) = π(π(x) ⊕ i) ⊕ π(x) (GKWY 2019, §7.4): two fixed-key AES calls,
/// tweakable circular correlation robust, safe for half-gates, OT extension and every
/// other use in mixgc. The default.
#[derive(Clone, Default)]
pub struct Tccr {
    pi: FixedKeyAes,
}

impl TweakableHash for Tccr {
    #[inline]
    fn hash_many(&self, xs: &mut [Block], tweaks: &mut [Block]) {
        assert_eq!(xs.len(), tweaks.len(), "one tweak per block");
        self.pi.permute_many(xs); // xs = π(x)
        for (t, &px) in tweaks.iter_mut().zip(xs.iter()) {
            *t ^= px; // π(x) ⊕ i
        }
        self.pi.permute_many(tweaks); // π(π(x) ⊕ i)
        for (x, &t) in xs.iter_mut().zip(tweaks.iter()) {
            *x ^= t; // π(π(x) ⊕ i) ⊕ π(x)
        }
    }
}

/// The re-keyed multi-instance hash H(x, j) = AES_{S⊕j}(σ(x)) ⊕ σ(x) with
/// σ(x_L‖x_R) = (x_L⊕x_R)‖x_L (GKWWY 2019/1168, MITCCR). `S` is a random public seed
/// chosen per session, so precomputation against one fixed key does not carry over
/// between sessions. Consecutive inputs under the same tweak share one key schedule.
#[derive(Clone)]
pub struct Rekeyed {
    seed: Block,
}

impl Rekeyed {
    pub fn new(seed: Block) -> Self {
        Rekeyed { seed }
    }
}

/// σ(x_L‖x_R) = (x_L⊕x_R)‖x_L, a linear orthomorphism (x_L the high 64 bits).
#[inline(always)]
fn sigma(x: Block) -> Block {
    let v = x.to_u128();
    let (hi, lo) = (v >> 64, v & u64::MAX as u128);
    Block::from_u128(((hi ^ lo) << 64) | hi)
}

impl TweakableHash for Rekeyed {
    fn hash_many(&self, xs: &mut [Block], tweaks: &mut [Block]) {
        assert_eq!(xs.len(), tweaks.len(), "one tweak per block");
        let mut start = 0;
        while start < xs.len() {
            let tweak = tweaks[start];
            let mut end = start + 1;
            while end < xs.len() && tweaks[end] == tweak {
                end += 1;
            }
            let aes = Aes128Enc::new(&(self.seed ^ tweak).to_bytes().into());
            for k in start..end {
                xs[k] = sigma(xs[k]);
                tweaks[k] = xs[k]; // keep σ(x) for the final XOR
            }
            aes.encrypt_blocks(as_aes_blocks(&mut xs[start..end]));
            for k in start..end {
                xs[k] ^= tweaks[k];
            }
            start = end;
        }
    }
}

/// Which gate hash a session uses; both parties must agree (checked in the handshake).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum HashKind {
    /// Fixed-key TCCR, [`Tccr`].
    #[default]
    Tccr,
    /// Re-keyed multi-instance hash with a per-session public seed, [`Rekeyed`].
    Rekeyed,
}

impl HashKind {
    pub fn code(self) -> u8 {
        match self {
            HashKind::Tccr => 1,
            HashKind::Rekeyed => 2,
        }
    }

    pub fn from_code(c: u8) -> Option<HashKind> {
        match c {
            1 => Some(HashKind::Tccr),
            2 => Some(HashKind::Rekeyed),
            _ => None,
        }
    }
}

impl fmt::Display for HashKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            HashKind::Tccr => "tccr",
            HashKind::Rekeyed => "rekeyed",
        })
    }
}

impl FromStr for HashKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "tccr" => Ok(HashKind::Tccr),
            "rekeyed" => Ok(HashKind::Rekeyed),
            _ => Err(format!("unknown hash '{s}' (expected tccr or rekeyed)")),
        }
    }
}

/// The gate hash a session picked at run time; dispatches once per batch, not per block.
// One per session, so its size does not matter; boxing would add an indirection per batch.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub enum AnyHash {
    Tccr(Tccr),
    Rekeyed(Rekeyed),
}

impl AnyHash {
    /// The hash of `kind`; `seed` is the re-keyed hash's per-session public seed.
    pub fn new(kind: HashKind, seed: Block) -> AnyHash {
        match kind {
            HashKind::Tccr => AnyHash::Tccr(Tccr::default()),
            HashKind::Rekeyed => AnyHash::Rekeyed(Rekeyed::new(seed)),
        }
    }
}

impl TweakableHash for AnyHash {
    #[inline]
    fn hash_many(&self, xs: &mut [Block], tweaks: &mut [Block]) {
        match self {
            AnyHash::Tccr(h) => h.hash_many(xs, tweaks),
            AnyHash::Rekeyed(h) => h.hash_many(xs, tweaks),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pi(x: Block) -> Block {
        let mut v = [x];
        FixedKeyAes::default().permute_many(&mut v);
        v[0]
    }

    #[test]
    fn fixed_key_aes_matches_fips197_style_vector() {
        // AES-128 known answer with our public key, computed independently of the batch path.
        let aes = Aes128::new(&FIXED_KEY.into());
        let mut one = aes::Block::from([7u8; 16]);
        aes.encrypt_block(&mut one);
        assert_eq!(pi(Block::from_bytes([7u8; 16])).to_bytes(), <[u8; 16]>::from(one));
    }

    #[test]
    fn tccr_is_the_documented_formula_in_batches_of_any_size() {
        let h = Tccr::default();
        for n in [1usize, 3, 8, 63, 64, 65, 200] {
            let xs: Vec<Block> = (0..n as u128)
                .map(|i| Block::from_u128(i * 0x9e37_79b9))
                .collect();
            let ts: Vec<Block> = (0..n as u128).map(|i| Block::from_u128(i + 1000)).collect();
            let mut got = xs.clone();
            h.hash_many(&mut got, &mut ts.clone());
            for k in 0..n {
                let want = pi(pi(xs[k]) ^ ts[k]) ^ pi(xs[k]);
                assert_eq!(got[k], want);
            }
        }
    }

    #[test]
    fn tweaks_separate_outputs() {
        let h = Tccr::default();
        let x = Block::from_u128(42);
        assert_ne!(h.hash(x, Block::from_u128(0)), h.hash(x, Block::from_u128(1)));
    }

    #[test]
    fn rekeyed_is_the_documented_formula() {
        let seed = Block::from_u128(0xdead_beef);
        let h = Rekeyed::new(seed);
        let xs = [Block::from_u128(5), Block::from_u128(6), Block::from_u128(7)];
        let ts = [Block::from_u128(2), Block::from_u128(2), Block::from_u128(3)];
        let mut got = xs;
        h.hash_many(&mut got, &mut ts.clone());
        for k in 0..3 {
            let aes = Aes128::new(&(seed ^ ts[k]).to_bytes().into());
            let s = sigma(xs[k]);
            let mut b = aes::Block::from(s.to_bytes());
            aes.encrypt_block(&mut b);
            assert_eq!(got[k], Block::from_bytes(b.into()) ^ s);
        }
    }

    #[test]
    fn sigma_is_linear_and_not_identity() {
        let a = Block::from_u128(0x1234_5678_9abc_def0_0fed_cba9_8765_4321);
        let b = Block::from_u128(0x1111_2222_3333_4444_5555_6666_7777_8888);
        assert_eq!(sigma(a ^ b), sigma(a) ^ sigma(b));
        assert_ne!(sigma(a), a);
        // σ(x) ⊕ x must also be a permutation (orthomorphism): check it is not constant.
        assert_ne!(sigma(a) ^ a, sigma(b) ^ b);
    }
}
