//! Tweakable correlation-robust hashes from AES (Guo–Katz–Wang–Yu, ePrint 2019/074 and
//! Guo–Katz–Wang–Weng–Yu, ePrint 2019/1168). These hash every garbled row and every OT pad.

use std::fmt;
use std::mem::MaybeUninit;
use std::str::FromStr;

use crate::{fill_prefix, AesKernel, Block, RoundKeys};

/// Public key of the fixed-key permutation π: the first 128 bits of the fraction of π
/// (nothing up the sleeve). π being public is what the TCCR construction assumes.
const FIXED_KEY: [u8; 16] = 0x243f6a8885a308d313198a2e03707344u128.to_be_bytes();

/// A hash H(x, tweak) → 128 bits, evaluated on many independent inputs at once.
///
/// Pass 8 or more inputs per call: the AES kernels keep 8 to 32 blocks in flight; a lone
/// block waits out the full AES latency.
pub trait TweakableHash: Send + Sync {
    /// Replaces each `xs[k]` by H(xs[k], tweaks[k]). `tweaks.len() == xs.len()`.
    /// `tweaks` is used as scratch space and holds garbage afterwards (this saves a copy
    /// of every block on the hot path).
    fn hash_many(&self, xs: &mut [Block], tweaks: &mut [Block]);

    /// Replaces `xs[2i]` and `xs[2i+1]` by their hashes under `tweaks[i]`;
    /// `xs.len() == 2 · tweaks.len()`.
    fn hash_pairs(&self, xs: &mut [Block], tweaks: &[Block]) {
        assert_eq!(xs.len(), 2 * tweaks.len(), "one tweak per pair of blocks");
        const PAIRS: usize = 64;
        let mut scratch = [Block::ZERO; 2 * PAIRS];
        for (xs, tweaks) in xs.chunks_mut(2 * PAIRS).zip(tweaks.chunks(PAIRS)) {
            for (s, &t) in scratch.chunks_exact_mut(2).zip(tweaks) {
                s.copy_from_slice(&[t, t]);
            }
            self.hash_many(xs, &mut scratch[..xs.len()]);
        }
    }

    /// `h0[k] = H(xs[k], tweaks[k])` and `h1[k] = H(xs[k] ⊕ offset, tweaks[k])`: both labels
    /// of a wire under one tweak, as a half-gates garbler hashes them (ZRE15 Fig. 2). All
    /// four slices have one length. The same values as [`TweakableHash::hash_pairs`] on the
    /// pairs (x, x ⊕ offset); a hash may compute them without building the pairs.
    fn hash_offset_pairs(
        &self,
        xs: &[Block],
        offset: Block,
        tweaks: &[Block],
        h0: &mut [Block],
        h1: &mut [Block],
    ) {
        offset_pairs_by_pairs(xs, offset, tweaks, h0, h1, |pairs, tweaks| {
            self.hash_pairs(pairs, tweaks)
        });
    }

    /// `xs[k] = H(xs[k], first + k)`: tweaks counting up from `first` (wrapping in `u128`),
    /// as the half-gates hashes of consecutive AND gates are tweaked (`j = 2g, j' = 2g + 1`,
    /// ZRE15 Fig. 2). The same values as [`TweakableHash::hash_many`] on those tweaks; a
    /// hash may make the tweaks in registers instead of storing and loading them.
    fn hash_counter(&self, xs: &mut [Block], first: u128) {
        let mut room = tweak_room();
        for (xs, first) in counter_chunks_mut(xs, first) {
            self.hash_many(xs, counter_tweaks(&mut room, xs.len(), first));
        }
    }

    /// [`TweakableHash::hash_offset_pairs`] with tweaks `first + k` (wrapping in `u128`), as
    /// [`TweakableHash::hash_counter`]: `h0[k] = H(xs[k], first + k)`,
    /// `h1[k] = H(xs[k] ⊕ offset, first + k)`.
    fn hash_offset_pairs_counter(
        &self,
        xs: &[Block],
        offset: Block,
        first: u128,
        h0: &mut [Block],
        h1: &mut [Block],
    ) {
        offset_pairs_counter_chunks(xs, first, h0, h1, |xs, first, h0, h1| {
            let mut room = tweak_room();
            let tweaks = counter_tweaks(&mut room, xs.len(), first);
            self.hash_offset_pairs(xs, offset, tweaks, h0, h1)
        });
    }

    /// The half-gates evaluator (Zahur–Rosulek–Evans, ePrint 2014/756, Fig. 2) on gates k
    /// with active labels (A, B) = `labels[2k..2k + 2]` and rows (T_G, T_E) =
    /// `rows[2k..2k + 2]`, tweaks j = `first` + 2k, j' = j + 1 (wrapping in `u128`), where
    /// a hash has a fused kernel for it: writes `out[k]` = H(A, j) ⊕ s_a·T_G ⊕ H(B, j') ⊕
    /// s_b·(T_E ⊕ A), s = lsb, and returns `true`; otherwise returns `false` and writes
    /// nothing (the caller hashes with [`TweakableHash::hash_counter`] and combines).
    fn try_half_gates_eval_counter(
        &self,
        labels: &[Block],
        rows: &[Block],
        first: u128,
        out: &mut [Block],
    ) -> bool {
        let _ = (labels, rows, first, out);
        false
    }

    /// The half-gates garbler (ZRE15 Fig. 2) on gates k with zero-labels (A⁰, B⁰) =
    /// `labels[2k..2k + 2]`, offset Δ, tweaks j = `first` + 2k, j' = j + 1, where a hash has
    /// a fused kernel for it: writes the rows (T_G, T_E) to `rows[2k..2k + 2]` and C⁰ to
    /// `out[k]` and returns `true`; otherwise returns `false` and writes nothing (the caller
    /// hashes with [`TweakableHash::hash_offset_pairs_counter`] and combines). With
    /// p = lsb of the zero-label and A¹ = A⁰ ⊕ Δ:
    /// T_G = H(A⁰, j) ⊕ H(A¹, j) ⊕ p_b·Δ, T_E = H(B⁰, j') ⊕ H(B¹, j') ⊕ A⁰,
    /// C⁰ = H(A⁰, j) ⊕ p_a·T_G ⊕ H(B⁰, j') ⊕ p_b·(T_E ⊕ A⁰).
    fn try_half_gates_garble_counter(
        &self,
        labels: &[Block],
        delta: Block,
        first: u128,
        rows: &mut [MaybeUninit<Block>],
        out: &mut [Block],
    ) -> bool {
        let _ = (labels, delta, first, rows, out);
        false
    }

    /// One hash; prefer [`TweakableHash::hash_many`] on hot paths.
    fn hash(&self, x: Block, tweak: Block) -> Block {
        let mut v = [x];
        self.hash_many(&mut v, &mut [tweak]);
        v[0]
    }
}

/// Blocks per chunk when counter tweaks are written out.
pub(crate) const COUNTER_CHUNK: usize = 64;

/// `xs` in chunks of at most [`COUNTER_CHUNK`] blocks, each with its first tweak
/// `first + offset of the chunk` (wrapping in `u128`).
pub(crate) fn counter_chunks_mut(
    xs: &mut [Block],
    first: u128,
) -> impl Iterator<Item = (&mut [Block], u128)> {
    xs.chunks_mut(COUNTER_CHUNK)
        .enumerate()
        .map(move |(c, xs)| (xs, first.wrapping_add((c * COUNTER_CHUNK) as u128)))
}

/// Room for one chunk's counter tweaks, not zeroed ([`counter_tweaks`] writes what it uses).
pub(crate) type TweakRoom = [MaybeUninit<Block>; COUNTER_CHUNK];

/// Room for [`counter_tweaks`].
pub(crate) fn tweak_room() -> TweakRoom {
    [MaybeUninit::uninit(); COUNTER_CHUNK]
}

/// The `n` counter tweaks `first + i` (wrapping in `u128`), written into `room`.
pub(crate) fn counter_tweaks(room: &mut TweakRoom, n: usize, first: u128) -> &mut [Block] {
    fill_prefix(room, n, |i| Block::from_u128(first.wrapping_add(i as u128)))
}

/// `hash(xs, first, h0, h1)` on chunks of at most [`COUNTER_CHUNK`] blocks of `xs` and the
/// same chunks of `h0` and `h1`, `first` advanced to each chunk's first tweak. The one
/// length check of [`TweakableHash::hash_offset_pairs_counter`]: every implementation
/// goes through it, and the kernels under it trust it. Panics unless `h0` and `h1` are as
/// long as `xs`.
pub(crate) fn offset_pairs_counter_chunks(
    xs: &[Block],
    first: u128,
    h0: &mut [Block],
    h1: &mut [Block],
    mut hash: impl FnMut(&[Block], u128, &mut [Block], &mut [Block]),
) {
    assert!(
        h0.len() == xs.len() && h1.len() == xs.len(),
        "two outputs per block"
    );
    for (c, ((xs, h0), h1)) in xs
        .chunks(COUNTER_CHUNK)
        .zip(h0.chunks_mut(COUNTER_CHUNK))
        .zip(h1.chunks_mut(COUNTER_CHUNK))
        .enumerate()
    {
        hash(xs, first.wrapping_add((c * COUNTER_CHUNK) as u128), h0, h1);
    }
}

/// `h0[k] = f(x_k)`, `h1[k] = f(x_k ⊕ offset)` through a hash of interleaved pairs:
/// `hash_pairs(pairs, tweaks)` hashes pairs (x, x ⊕ offset) in place, one tweak per pair,
/// in batches of 32 pairs built on the stack. Panics unless the four slices have one length.
pub(crate) fn offset_pairs_by_pairs(
    xs: &[Block],
    offset: Block,
    tweaks: &[Block],
    h0: &mut [Block],
    h1: &mut [Block],
    mut hash_pairs: impl FnMut(&mut [Block], &[Block]),
) {
    assert!(
        tweaks.len() == xs.len() && h0.len() == xs.len() && h1.len() == xs.len(),
        "one tweak and two outputs per block"
    );
    const PAIRS: usize = 32;
    let mut pairs = [Block::ZERO; 2 * PAIRS];
    for (((xs, tweaks), h0), h1) in xs
        .chunks(PAIRS)
        .zip(tweaks.chunks(PAIRS))
        .zip(h0.chunks_mut(PAIRS))
        .zip(h1.chunks_mut(PAIRS))
    {
        let pairs = &mut pairs[..2 * xs.len()];
        for (p, &x) in pairs.chunks_exact_mut(2).zip(xs) {
            p.copy_from_slice(&[x, x ^ offset]);
        }
        hash_pairs(pairs, tweaks);
        for ((p, y0), y1) in pairs.chunks_exact(2).zip(h0).zip(h1) {
            (*y0, *y1) = (p[0], p[1]);
        }
    }
}

/// π: AES-128 under the fixed public key [`FIXED_KEY`].
#[derive(Clone)]
pub struct FixedKeyAes {
    kernel: AesKernel,
    keys: RoundKeys,
}

impl Default for FixedKeyAes {
    fn default() -> Self {
        FixedKeyAes::with_public_key(FIXED_KEY)
    }
}

impl FixedKeyAes {
    /// π under another public key: a per-session key chosen at random and sent in the
    /// clear gives each session its own permutation, so work precomputed against one
    /// permutation does not carry over to other sessions (the multi-instance concern of
    /// GKWWY 2019/1168). Security still only assumes π is a public random permutation.
    pub fn with_public_key(key: [u8; 16]) -> FixedKeyAes {
        FixedKeyAes::on_kernel(AesKernel::active(), key)
    }

    /// π under `key`, computed by `kernel` (which this CPU must run).
    pub fn on_kernel(kernel: AesKernel, key: [u8; 16]) -> FixedKeyAes {
        FixedKeyAes {
            kernel,
            keys: kernel.expand(Block::from_bytes(key)),
        }
    }

    /// Applies π to every block in place.
    #[inline]
    pub fn permute_many(&self, blocks: &mut [Block]) {
        self.kernel.encrypt_many(&self.keys, blocks);
    }
}

/// The TCCR hash H(x, i) = π(π(x) ⊕ i) ⊕ π(x) (GKWY 2019, §7.4): two fixed-key AES calls,
/// tweakable circular correlation robust, safe for half-gates, OT extension and every
/// other use in mixgc (gates hash with it under `--hash tccr`).
#[derive(Clone, Default)]
pub struct Tccr {
    pi: FixedKeyAes,
}

impl Tccr {
    /// TCCR computed by `kernel` (which this CPU must run).
    pub fn on_kernel(kernel: AesKernel) -> Tccr {
        Tccr {
            pi: FixedKeyAes::on_kernel(kernel, FIXED_KEY),
        }
    }
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

    /// Both offsets of a batch in one [`TweakableHash::hash_many`] call (one π pipeline over
    /// all 2n blocks), no interleaved pairs built.
    fn hash_offset_pairs(
        &self,
        xs: &[Block],
        offset: Block,
        tweaks: &[Block],
        h0: &mut [Block],
        h1: &mut [Block],
    ) {
        assert!(
            tweaks.len() == xs.len() && h0.len() == xs.len() && h1.len() == xs.len(),
            "one tweak and two outputs per block"
        );
        const BATCH: usize = 32;
        let (mut both, mut scratch) = ([Block::ZERO; 2 * BATCH], [Block::ZERO; 2 * BATCH]);
        for (((xs, tweaks), h0), h1) in xs
            .chunks(BATCH)
            .zip(tweaks.chunks(BATCH))
            .zip(h0.chunks_mut(BATCH))
            .zip(h1.chunks_mut(BATCH))
        {
            let n = xs.len();
            let (both, scratch) = (&mut both[..2 * n], &mut scratch[..2 * n]);
            for (k, (&x, &t)) in xs.iter().zip(tweaks).enumerate() {
                (both[k], both[n + k]) = (x, x ^ offset);
                (scratch[k], scratch[n + k]) = (t, t);
            }
            self.hash_many(both, scratch);
            h0.copy_from_slice(&both[..n]);
            h1.copy_from_slice(&both[n..]);
        }
    }
}

/// The re-keyed multi-instance hash H(x, j) = AES_{S⊕j}(σ(x)) ⊕ σ(x) with
/// σ(x_L‖x_R) = (x_L⊕x_R)‖x_L (GKWWY 2019/1168, MITCCR). `S` is a random public seed
/// chosen per session, so precomputation against one fixed key does not carry over
/// between sessions. Every block gets its own key schedule, expanded round by round
/// beside the encryption (no schedule is stored).
#[derive(Clone)]
pub struct Rekeyed {
    seed: Block,
    kernel: AesKernel,
}

impl Rekeyed {
    pub fn new(seed: Block) -> Self {
        Rekeyed::on_kernel(seed, AesKernel::active())
    }

    /// The hash computed by `kernel` (which this CPU must run).
    pub fn on_kernel(seed: Block, kernel: AesKernel) -> Self {
        Rekeyed { seed, kernel }
    }
}

impl TweakableHash for Rekeyed {
    #[inline]
    fn hash_many(&self, xs: &mut [Block], tweaks: &mut [Block]) {
        self.kernel.sigma_mmo_each_under(self.seed, xs, tweaks);
    }

    #[inline]
    fn hash_pairs(&self, xs: &mut [Block], tweaks: &[Block]) {
        self.kernel.sigma_mmo_pairs_under(self.seed, xs, tweaks);
    }

    #[inline]
    fn hash_offset_pairs(
        &self,
        xs: &[Block],
        offset: Block,
        tweaks: &[Block],
        h0: &mut [Block],
        h1: &mut [Block],
    ) {
        self.kernel
            .sigma_mmo_offset_pairs(self.seed, offset, xs, tweaks, h0, h1);
    }

    #[inline]
    fn hash_counter(&self, xs: &mut [Block], first: u128) {
        self.kernel.sigma_mmo_counter(self.seed, xs, first);
    }

    #[inline]
    fn hash_offset_pairs_counter(
        &self,
        xs: &[Block],
        offset: Block,
        first: u128,
        h0: &mut [Block],
        h1: &mut [Block],
    ) {
        self.kernel
            .sigma_mmo_offset_pairs_counter(self.seed, offset, xs, first, h0, h1);
    }

    #[inline]
    fn try_half_gates_eval_counter(
        &self,
        labels: &[Block],
        rows: &[Block],
        first: u128,
        out: &mut [Block],
    ) -> bool {
        self.kernel
            .half_gates_eval_counter(self.seed, labels, rows, first, out)
    }

    #[inline]
    fn try_half_gates_garble_counter(
        &self,
        labels: &[Block],
        delta: Block,
        first: u128,
        rows: &mut [MaybeUninit<Block>],
        out: &mut [Block],
    ) -> bool {
        self.kernel
            .half_gates_garble_counter(self.seed, delta, labels, first, rows, out)
    }
}

/// Which gate hash a session uses; both parties must agree (checked in the handshake).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum HashKind {
    /// Fixed-key TCCR, [`Tccr`].
    Tccr,
    /// Re-keyed multi-instance hash with a per-session public seed, [`Rekeyed`]; the
    /// default (no fixed key to precompute against across sessions).
    #[default]
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

    #[inline]
    fn hash_pairs(&self, xs: &mut [Block], tweaks: &[Block]) {
        match self {
            AnyHash::Tccr(h) => h.hash_pairs(xs, tweaks),
            AnyHash::Rekeyed(h) => h.hash_pairs(xs, tweaks),
        }
    }

    #[inline]
    fn hash_offset_pairs(
        &self,
        xs: &[Block],
        offset: Block,
        tweaks: &[Block],
        h0: &mut [Block],
        h1: &mut [Block],
    ) {
        match self {
            AnyHash::Tccr(h) => h.hash_offset_pairs(xs, offset, tweaks, h0, h1),
            AnyHash::Rekeyed(h) => h.hash_offset_pairs(xs, offset, tweaks, h0, h1),
        }
    }

    #[inline]
    fn hash_counter(&self, xs: &mut [Block], first: u128) {
        match self {
            AnyHash::Tccr(h) => h.hash_counter(xs, first),
            AnyHash::Rekeyed(h) => h.hash_counter(xs, first),
        }
    }

    #[inline]
    fn hash_offset_pairs_counter(
        &self,
        xs: &[Block],
        offset: Block,
        first: u128,
        h0: &mut [Block],
        h1: &mut [Block],
    ) {
        match self {
            AnyHash::Tccr(h) => h.hash_offset_pairs_counter(xs, offset, first, h0, h1),
            AnyHash::Rekeyed(h) => h.hash_offset_pairs_counter(xs, offset, first, h0, h1),
        }
    }

    #[inline]
    fn try_half_gates_eval_counter(
        &self,
        labels: &[Block],
        rows: &[Block],
        first: u128,
        out: &mut [Block],
    ) -> bool {
        match self {
            AnyHash::Tccr(h) => h.try_half_gates_eval_counter(labels, rows, first, out),
            AnyHash::Rekeyed(h) => h.try_half_gates_eval_counter(labels, rows, first, out),
        }
    }

    #[inline]
    fn try_half_gates_garble_counter(
        &self,
        labels: &[Block],
        delta: Block,
        first: u128,
        rows: &mut [MaybeUninit<Block>],
        out: &mut [Block],
    ) -> bool {
        match self {
            AnyHash::Tccr(h) => h.try_half_gates_garble_counter(labels, delta, first, rows, out),
            AnyHash::Rekeyed(h) => h.try_half_gates_garble_counter(labels, delta, first, rows, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::aes::cipher::{BlockEncrypt, KeyInit};
    use ::aes::Aes128;

    use crate::aes::sigma;

    fn pi(x: Block) -> Block {
        let mut v = [x];
        FixedKeyAes::default().permute_many(&mut v);
        v[0]
    }

    #[test]
    fn fixed_key_aes_matches_fips197_style_vector() {
        // AES-128 known answer with our public key, computed independently of the batch path.
        let aes = Aes128::new(&FIXED_KEY.into());
        let mut one = ::aes::Block::from([7u8; 16]);
        aes.encrypt_block(&mut one);
        assert_eq!(pi(Block::from_bytes([7u8; 16])).to_bytes(), <[u8; 16]>::from(one));
    }

    #[test]
    fn offset_pairs_by_pairs_equals_the_hash_of_each_offset() {
        let h = Tccr::default();
        let offset = Block::from_u128(0x5bd1_e995 << 64 | 1);
        for n in [0usize, 1, 31, 32, 33, 70] {
            let xs: Vec<Block> = (0..n as u128)
                .map(|i| Block::from_u128(i * 0x9e37_79b9))
                .collect();
            let ts: Vec<Block> = (0..n as u128).map(|i| Block::from_u128(i + 77)).collect();
            let (mut h0, mut h1) = (vec![Block::ZERO; n], vec![Block::ZERO; n]);
            offset_pairs_by_pairs(&xs, offset, &ts, &mut h0, &mut h1, |p, t| h.hash_pairs(p, t));
            for k in 0..n {
                let one = |x: Block| {
                    let mut v = [x];
                    h.hash_many(&mut v, &mut [ts[k]]);
                    v[0]
                };
                assert_eq!(
                    (h0[k], h1[k]),
                    (one(xs[k]), one(xs[k] ^ offset)),
                    "n = {n}, k = {k}"
                );
            }
        }
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
            let mut b = ::aes::Block::from(s.to_bytes());
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

#[cfg(test)]
mod kernel_tests {
    use super::*;

    fn inputs(n: usize) -> (Vec<Block>, Vec<Block>) {
        let xs = (0..n as u128)
            .map(|i| Block::from_u128(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 77))
            .collect();
        let ts = (0..n as u128).map(|i| Block::from_u128(i / 3 + 1000)).collect();
        (xs, ts)
    }

    fn check_pairs(h: &dyn TweakableHash, n: usize, tweaks: &[Block]) {
        let (xs, _) = inputs(2 * n);
        let mut dup: Vec<Block> = tweaks[..n].iter().flat_map(|&t| [t, t]).collect();
        let mut want = xs.clone();
        h.hash_many(&mut want, &mut dup);
        let mut got = xs;
        h.hash_pairs(&mut got, &tweaks[..n]);
        assert_eq!(got, want, "{n} pairs");
    }

    /// `hash_offset_pairs` is `hash_many` on x and on x ⊕ Δ under the same tweak.
    fn check_offset_pairs(h: &dyn TweakableHash, n: usize, tweaks: &[Block]) {
        let (xs, _) = inputs(n);
        let delta = Block::from_u128(0xd17a_0000_0000_0000_0000_0000_0000_0001);
        let mut want0 = xs.clone();
        h.hash_many(&mut want0, &mut tweaks[..n].to_vec());
        let mut want1: Vec<Block> = xs.iter().map(|&x| x ^ delta).collect();
        h.hash_many(&mut want1, &mut tweaks[..n].to_vec());
        let (mut h0, mut h1) = (vec![Block::ZERO; n], vec![Block::ZERO; n]);
        h.hash_offset_pairs(&xs, delta, &tweaks[..n], &mut h0, &mut h1);
        assert_eq!((h0, h1), (want0, want1), "{n} offset pairs");
    }

    /// The counter forms are the tweak-list forms on the tweaks `first + k`: on every
    /// kernel, batch sizes around the kernels' passes, and first tweaks where the low 64
    /// bits carry within the batch (the kernels' fallback) and where `u128` wraps.
    #[test]
    fn counter_tweaks_are_the_tweak_list_on_every_kernel() {
        let seed = Block::from_u128(0x5eed_c0de);
        let delta = Block::from_u128(0xd17a_0000_0000_0000_0000_0000_0000_0001);
        let firsts = [
            0u128,
            (1 << 64) | 12_345,
            (1 << 64) | (u64::MAX as u128 - 40),
            (7 << 64) | (u64::MAX as u128 - 2),
            u128::MAX - 5,
        ];
        for n in [0, 1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 130] {
            let (xs, _) = inputs(n);
            for first in firsts {
                let tweaks: Vec<Block> = (0..n as u128)
                    .map(|k| Block::from_u128(first.wrapping_add(k)))
                    .collect();
                for kernel in AesKernel::available() {
                    let hashes: [&dyn TweakableHash; 4] = [
                        &Tccr::on_kernel(kernel),
                        &Rekeyed::on_kernel(seed, kernel),
                        &AnyHash::Tccr(Tccr::on_kernel(kernel)),
                        &AnyHash::Rekeyed(Rekeyed::on_kernel(seed, kernel)),
                    ];
                    for h in hashes {
                        let mut want = xs.clone();
                        h.hash_many(&mut want, &mut tweaks.clone());
                        let mut got = xs.clone();
                        h.hash_counter(&mut got, first);
                        assert_eq!(
                            got, want,
                            "hash_counter on {kernel}, {n} blocks, first {first:#x}"
                        );
                        let (mut w0, mut w1) = (vec![Block::ZERO; n], vec![Block::ZERO; n]);
                        h.hash_offset_pairs(&xs, delta, &tweaks, &mut w0, &mut w1);
                        let (mut g0, mut g1) = (vec![Block::ZERO; n], vec![Block::ZERO; n]);
                        h.hash_offset_pairs_counter(&xs, delta, first, &mut g0, &mut g1);
                        assert_eq!(
                            (g0, g1),
                            (w0, w1),
                            "offset pairs on {kernel}, {n} blocks, first {first:#x}"
                        );
                    }
                }
            }
        }
    }

    /// Runs `case(h, labels, more, first)` on every kernel and hash, for gate counts around
    /// the fused kernels' passes (8 gates each), first tweaks where the low 64 bits carry
    /// (the kernels' fallback) and where `u128` wraps, with random `labels` (two per gate,
    /// both point-and-permute bits) and as many random blocks `more`. `case` checks one
    /// call and says whether a fused kernel ran; one must have on VAES-512.
    fn each_gate_case(mut case: impl FnMut(&dyn TweakableHash, &[Block], &[Block], u128) -> bool) {
        use rand::{rngs::StdRng, SeedableRng};
        let mut rng = StdRng::seed_from_u64(2014756);
        let seed = Block::from_u128(0x5eed_e7a1);
        let firsts = [0u128, 1 << 65, (1 << 65) | (u64::MAX as u128 - 9), u128::MAX - 6];
        let mut fused = 0;
        for gates in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 31, 32, 33, 70] {
            let labels: Vec<Block> = (0..2 * gates).map(|_| Block::random(&mut rng)).collect();
            let more: Vec<Block> = (0..2 * gates).map(|_| Block::random(&mut rng)).collect();
            for first in firsts {
                for kernel in AesKernel::available() {
                    let hashes: [&dyn TweakableHash; 4] = [
                        &Tccr::on_kernel(kernel),
                        &Rekeyed::on_kernel(seed, kernel),
                        &AnyHash::Tccr(Tccr::on_kernel(kernel)),
                        &AnyHash::Rekeyed(Rekeyed::on_kernel(seed, kernel)),
                    ];
                    for h in hashes {
                        fused += usize::from(case(h, &labels, &more, first));
                    }
                }
            }
        }
        if AesKernel::available().contains(&AesKernel::Vaes512) {
            assert!(fused > 0, "VAES-512 runs the fused kernel");
        }
    }

    const MARKER: Block = Block::from_u128(0xdead);

    /// The half-gates evaluator's fused form is ZRE15 Fig. 2's formula, gate by gate with
    /// single hashes and `and_bit(lsb)`, where a hash has one (the re-keyed hash on
    /// VAES-512); where it returns `false` it wrote nothing.
    #[test]
    fn half_gates_eval_counter_is_the_formula_where_fused() {
        each_gate_case(|h, labels, rows, first| {
            let gates = labels.len() / 2;
            let want: Vec<Block> = (0..gates)
                .map(|k| {
                    let (a, b) = (labels[2 * k], labels[2 * k + 1]);
                    let (tg, te) = (rows[2 * k], rows[2 * k + 1]);
                    let j = first.wrapping_add(2 * k as u128);
                    h.hash(a, Block::from_u128(j))
                        ^ tg.and_bit(a.lsb())
                        ^ h.hash(b, Block::from_u128(j.wrapping_add(1)))
                        ^ (te ^ a).and_bit(b.lsb())
                })
                .collect();
            let mut got = vec![MARKER; gates];
            let fused = h.try_half_gates_eval_counter(labels, rows, first, &mut got);
            let want = if fused { want } else { vec![MARKER; gates] };
            assert_eq!(got, want, "{gates} gates, first {first:#x}, fused: {fused}");
            fused
        });
    }

    /// The half-gates garbler's fused form is ZRE15 Fig. 2's formula gate by gate (single
    /// hashes, `and_bit(lsb)`), where a hash has one; where it returns `false` it wrote
    /// nothing.
    #[test]
    fn half_gates_garble_counter_is_the_formula_where_fused() {
        each_gate_case(|h, labels, more, first| {
            let gates = labels.len() / 2;
            let delta = Block::from_u128(more.first().map_or(1, |d| d.to_u128() | 1));
            let (mut want_rows, mut want) = (Vec::new(), Vec::new());
            for k in 0..gates {
                let (a0, b0) = (labels[2 * k], labels[2 * k + 1]);
                let j = first.wrapping_add(2 * k as u128);
                let (tj, tj1) = (Block::from_u128(j), Block::from_u128(j.wrapping_add(1)));
                let (ha0, hb0) = (h.hash(a0, tj), h.hash(b0, tj1));
                let tg = ha0 ^ h.hash(a0 ^ delta, tj) ^ delta.and_bit(b0.lsb());
                let te = hb0 ^ h.hash(b0 ^ delta, tj1) ^ a0;
                want_rows.extend([tg, te]);
                want.push(ha0 ^ tg.and_bit(a0.lsb()) ^ hb0 ^ (te ^ a0).and_bit(b0.lsb()));
            }
            let mut rows = vec![MaybeUninit::new(MARKER); 2 * gates];
            let mut got = vec![MARKER; gates];
            let fused = h.try_half_gates_garble_counter(labels, delta, first, &mut rows, &mut got);
            // SAFETY: every row was initialised above (and overwritten or not).
            let rows: Vec<Block> = rows.iter().map(|r| unsafe { r.assume_init() }).collect();
            if !fused {
                (want_rows, want) = (vec![MARKER; 2 * gates], vec![MARKER; gates]);
            }
            assert_eq!(
                (rows, got),
                (want_rows, want),
                "{gates} gates, first {first:#x}, fused: {fused}"
            );
            fused
        });
    }

    #[test]
    fn every_kernel_computes_the_same_hashes() {
        let seed = Block::from_u128(0x5eed);
        for n in [0, 1, 2, 3, 5, 15, 16, 17, 31, 32, 33, 64, 65, 300] {
            let (xs, ts) = inputs(n);
            let run = |h: &dyn TweakableHash| {
                let mut v = xs.clone();
                h.hash_many(&mut v, &mut ts.clone());
                v
            };
            let tccr = run(&Tccr::on_kernel(AesKernel::Portable));
            let rekeyed = run(&Rekeyed::on_kernel(seed, AesKernel::Portable));
            for kernel in AesKernel::available() {
                assert_eq!(
                    run(&Tccr::on_kernel(kernel)),
                    tccr,
                    "tccr on {kernel}, {n} blocks"
                );
                assert_eq!(
                    run(&Rekeyed::on_kernel(seed, kernel)),
                    rekeyed,
                    "rekeyed on {kernel}, {n} blocks"
                );
                check_pairs(&Tccr::on_kernel(kernel), n, &ts);
                check_pairs(&Rekeyed::on_kernel(seed, kernel), n, &ts);
                check_pairs(&AnyHash::Rekeyed(Rekeyed::on_kernel(seed, kernel)), n, &ts);
                check_offset_pairs(&Tccr::on_kernel(kernel), n, &ts);
                check_offset_pairs(&AnyHash::Tccr(Tccr::on_kernel(kernel)), n, &ts);
                check_offset_pairs(&Rekeyed::on_kernel(seed, kernel), n, &ts);
                check_offset_pairs(&AnyHash::Rekeyed(Rekeyed::on_kernel(seed, kernel)), n, &ts);
            }
        }
    }
}
