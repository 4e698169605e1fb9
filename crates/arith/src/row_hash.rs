//! The hash of mod-p and Boolean rows: a two-block TCCR built on a public random
//! permutation π (AES-128 under a public per-session key). An AES-based hash for labels
//! wider than one block needs a written security argument; this module is that argument
//! and its implementation (summarised in `docs/security.md`, "The AES row hash"). Lifts
//! into Z_{2^k} ([`crate::ring`]) and mod-2^k labels (k ≥ 2, up to 64·128 bits wide) keep
//! the keyed BLAKE3 hash of [`crate::hash`].
//!
//! # Construction
//!
//! A label X (its input modulus m is an odd prime p, or 2) is encoded injectively as a
//! block x and a 32-bit word e:
//! - m = 2 (a free-XOR block B): x = B, e = 0;
//! - m = p, digits d_0 (the colour), d_1 … d_(ℓ−1): the label's base-p value
//!   W = Σ_i d_i·p^i, x = W mod 2^128 and e = ⌊W / 2^128⌋. As ℓ − 1 = min{n : p^n ≥ 2^128},
//!   p^(ℓ−2) < 2^128, so W < p^ℓ < 2^128·p² and e < p² < 2^32. W is what rows pack
//!   ([`crate::codec`]: group values G_k with W = Σ_k G_k·p^(jk)), so a label whose group
//!   values are known ([`crate::grouped`]) is encoded without touching its digits.
//!
//! Output block k (k = 0, 1, 2) under tweak t = (domain, gate) with output modulus q is
//!
//!   H_k(X, t) = π(π(x) ⊕ τ) ⊕ π(x),  τ = e ‖ m ‖ q ‖ k ‖ domain ‖ gate
//!
//! (τ packs, from the top bit down, e in 32 bits, m and q in 16 bits each, k and the
//! domain in 4 bits each and the gate in 56 bits, so τ is injective in all of them). For
//! one block and e = 0 this is the TCCR hash of GKWY 2019/074 §7.4, [`mixgc_core::Tccr`].
//! A label mod q is read from the blocks group by group ([`crate::codec`]): block k gives
//! digit group k (j = [`Modulus::group_len`] digits, the last maybe fewer) as the value
//! ⌊r·q^j / 2^128⌋, whose distance from uniform on [0, q^j) is below q^j / 2^128 ≤ 2^−64
//! (each value has ⌊2^128/q^j⌋ or ⌈2^128/q^j⌉ preimages); 128 ≥ j·log2 q + 64 bits are read
//! per group. Rows are masked with these group values directly, and a label's digits are
//! their base-q digits. A mod-2 output is one block, exactly uniform.
//!
//! # Security argument (ideal-permutation model)
//!
//! What BMR16's garbling proof asks of the hash: for every *hidden* label X = X* + c·Δ_m
//! (c ≠ 0; X* a label the evaluator holds) the garbler's outputs H_k(X, t) are uniform and
//! independent given everything else the evaluator sees — including rows whose plaintexts
//! depend on Δ_m and Δ_q, i.e. circularly.
//!
//! Model π as a random permutation the adversary queries in both directions (q queries);
//! the garbler evaluates H on n hidden inputs. Sample π lazily and consider two events:
//! - B1: the adversary queries π at a hidden x (or π⁻¹ answers one);
//! - B2: an internal point π(x) ⊕ τ of a hidden call coincides with any other point at
//!   which π is evaluated (another call's x or π(x) ⊕ τ, or an adversary query).
//!
//! Without B1 and B2 every hidden π(x) is a fresh uniform block that is never output on its
//! own, and every π(π(x) ⊕ τ) is fresh and uniform, so each hidden output is uniform and
//! independent of the rest of the view, whatever its correlation with Δ: a Δ-dependent
//! plaintext cannot cancel the feed-forward π(x) as it does in the broken π(x) ⊕ x, because
//! π(x) is itself hidden. In that hybrid the rows are one-time padded, so the view is
//! independent of Δ_m beyond the labels the evaluator holds, and:
//! - Pr[B1] ≤ q·n·2^−127. For m = p, the digits 1 … ℓ−1 of c·Δ_p are uniform (Δ_p's are,
//!   and c is invertible mod p), so V = Σ_{i ≥ 1} d_i·p^(i−1) is uniform on [0, p^(ℓ−1))
//!   with p^(ℓ−1) ≥ 2^128, and Pr[V ≡ v mod 2^128] ≤ ⌈p^(ℓ−1) / 2^128⌉ / p^(ℓ−1) ≤ 2^−128 +
//!   p^−(ℓ−1) ≤ 2^−127 for every v. Given the colour d_0 (which the evaluator may know),
//!   x = (d_0 + p·V) mod 2^128 is a bijective image of V mod 2^128 (p is odd, hence a unit
//!   mod 2^128), so Pr[x = r] ≤ 2^−127 too. For m = 2, x = X* ⊕ Δ_2 has Δ_2's 127 random
//!   bits (free-XOR's own bound).
//! - Pr[B2] ≤ (4n + q)²·2^−128: the π(x) are uniform, and τ is injective, so two distinct
//!   (X, t, k, q) never give the same (x, τ) — the gate index never repeats within a session
//!   and the two halves of a product differ in their domain (x·x is safe).
//!
//! So the adversary's advantage is at most q·n·2^−127 + (4n + q)²·2^−128, the bound of the
//! Boolean half-gates with TCCR. The argument needs only unpredictability of x, not any
//! algebraic form of the correlation — which is why the one-call σ form (whose proof is
//! specific to XOR correlations) is not used — and the encoding never truncates a label:
//! the high part e enters τ, so distinct labels never share a hash input (the "dicenet"
//! break packed a label into 128 bits with too few digits). A per-session public AES key,
//! derived from the session's hash key, gives each session its own π.

use mixgc_core::{Block, FixedKeyAes};

use crate::encoding::{Encoded, MAX_BLOCKS};
use crate::tweak::{encodable, encode, Input, Tweak};
use crate::Modulus;

/// Gate indices must stay below 2^56: the tweak keeps 56 bits for them.
pub(crate) const MAX_GATES: u64 = 1 << 56;

/// The BLAKE3 context from which the per-session AES key is derived.
const KEY_CONTEXT: &str = "mixgc 2026 arithmetic row hash: AES-128 public permutation key";

/// H of the module documentation, for one session.
#[derive(Clone)]
pub(crate) struct RowHash {
    pi: FixedKeyAes,
}

impl RowHash {
    /// The hash of the session whose (public) hash key is `session_key`.
    pub(crate) fn new(session_key: &[u8; 32]) -> RowHash {
        let derived = blake3::derive_key(KEY_CONTEXT, session_key);
        let key: [u8; 16] = derived[..16].try_into().expect("16 of 32 bytes");
        RowHash {
            pi: FixedKeyAes::with_public_key(key),
        }
    }

    /// Whether this hash covers a call from `input` to labels mod `out`: inputs mod 2 or an
    /// odd prime, outputs mod 2 or an odd prime.
    pub(crate) fn covers(input: Input, out: Modulus) -> bool {
        encodable(input) && (out.is_boolean() || out.odd_prime_value().is_some())
    }

    /// H(input, tweak) as the group values of a label mod `out` (`covers` must hold).
    pub(crate) fn hash_groups(&self, input: Input, tweak: Tweak, out: Modulus, groups: &mut [u64]) {
        let mut blocks = [0u128; MAX_BLOCKS];
        let blocks = &mut blocks[..blocks_per_label(out)];
        self.hash_blocks(&[encode(input)], |_| tweak, out, blocks);
        blocks_to_groups(blocks, out, groups);
    }

    /// H(input, tweak) to Z_2, as its free-XOR block.
    pub(crate) fn hash_to_block(&self, input: Input, tweak: Tweak) -> Block {
        let mut block = [0u128];
        self.hash_blocks(&[encode(input)], |_| tweak, Modulus::BOOLEAN, &mut block);
        Block::from_u128(block[0])
    }

    /// The output blocks of up to [`BATCH`] encoded inputs, input i under `tweak(i)`, input
    /// by input ([`blocks_per_label`] each), into `blocks`. The inputs share each AES call,
    /// so the run-time AES kernel ([`mixgc_core::AesKernel`]) has them all in flight.
    pub(crate) fn hash_blocks(
        &self,
        inputs: &[Encoded],
        tweak: impl Fn(usize) -> Tweak,
        out: Modulus,
        blocks: &mut [u128],
    ) {
        self.hash_blocks_to(inputs, |i| (tweak(i), out), blocks);
    }

    /// [`RowHash::hash_blocks`] with an output modulus per input (input i to labels mod
    /// `target(i).1` under the tweak `target(i).0`); every output modulus must take as
    /// many blocks (all odd primes take [`MAX_BLOCKS`]).
    pub(crate) fn hash_blocks_to(
        &self,
        inputs: &[Encoded],
        target: impl Fn(usize) -> (Tweak, Modulus),
        blocks: &mut [u128],
    ) {
        // Scratch sized to the call: a one-input hash (an evaluator's projection) does not
        // clear room for a whole batch.
        match inputs.len() {
            0 => assert!(blocks.is_empty(), "no inputs, no output blocks"),
            1 => self.hash_into::<1, MAX_BLOCKS>(inputs, target, blocks),
            2..=8 => self.hash_into::<8, { 8 * MAX_BLOCKS }>(inputs, target, blocks),
            _ => self.hash_into::<BATCH, { BATCH * MAX_BLOCKS }>(inputs, target, blocks),
        }
    }

    /// [`RowHash::hash_blocks_to`] on at most `CAP` inputs, with `PADS` = `CAP` ·
    /// [`MAX_BLOCKS`] blocks of scratch: both AES passes (π(x) of every input, then
    /// π(π(x) ⊕ τ_k) of every output block) are one kernel call each, so the wide kernels
    /// keep the whole batch in flight (up to 32 and 96 blocks).
    fn hash_into<const CAP: usize, const PADS: usize>(
        &self,
        inputs: &[Encoded],
        target: impl Fn(usize) -> (Tweak, Modulus),
        blocks: &mut [u128],
    ) {
        let n = inputs.len();
        let per_input = blocks.len() / n.max(1);
        assert!(n <= CAP && blocks.len() == n * per_input && per_input <= MAX_BLOCKS);
        let mut px = [Block::ZERO; CAP];
        for (px, input) in px.iter_mut().zip(inputs) {
            *px = Block::from_u128(input.x);
        }
        let px = &mut px[..n];
        self.pi.permute_many(px); // π(x)
        let mut pads = [Block::ZERO; PADS];
        let pads = &mut pads[..n * per_input];
        for (i, (pads, (&px, &input))) in pads
            .chunks_exact_mut(per_input)
            .zip(px.iter().zip(inputs))
            .enumerate()
        {
            let (tweak, out) = target(i);
            assert_eq!(blocks_per_label(out), per_input, "one block count per batch");
            let base = tweak_base(input, tweak, out);
            for (k, pad) in pads.iter_mut().enumerate() {
                *pad = px ^ Block::from_u128(with_block(base, k));
            }
        }
        self.pi.permute_many(pads); // π(π(x) ⊕ τ_k)
        for (blocks, (pads, &px)) in blocks
            .chunks_exact_mut(per_input)
            .zip(pads.chunks_exact(per_input).zip(px.iter()))
        {
            for (block, &pad) in blocks.iter_mut().zip(pads.iter()) {
                *block = (pad ^ px).to_u128();
            }
        }
    }
}

/// Inputs hashed together by [`RowHash::hash_blocks`]: 32 first-pass and up to 96
/// second-pass blocks per call, the batch the VAES-512 kernel runs fully in flight (a
/// 16-bit CRT product's 2 × 6 halves on the evaluator, a product half's 17 colours mod 17 on
/// the garbler, in one call).
pub(crate) const BATCH: usize = 32;

/// Output blocks per label mod `out`: one for mod 2, one per digit group otherwise.
#[inline]
pub(crate) fn blocks_per_label(out: Modulus) -> usize {
    if out.is_boolean() {
        1
    } else {
        out.group_count()
    }
}

/// The group values of a label mod `out` read from its output blocks: a mod-2 label is its
/// block (two 64-digit groups, its halves); otherwise block k gives group k of len digits
/// as ⌊r·q^len / 2^128⌋.
#[inline]
pub(crate) fn blocks_to_groups(blocks: &[u128], out: Modulus, groups: &mut [u64]) {
    debug_assert_eq!(groups.len(), out.group_count());
    if out.is_boolean() {
        (groups[0], groups[1]) = (blocks[0] as u64, (blocks[0] >> 64) as u64);
        return;
    }
    let prime = out
        .odd_constants()
        .expect("row hash outputs are mod 2 or odd primes");
    for ((group, &r), (_, modulus, _)) in groups.iter_mut().zip(blocks).zip(prime.group_shapes()) {
        *group = scaled_floor(r, modulus);
    }
}

/// τ = e ‖ m ‖ q ‖ k ‖ domain ‖ gate (32, 16, 16, 4, 4 and 56 bits, top down), for block
/// k = 0; [`with_block`] sets k.
#[inline]
fn tweak_base(encoded: Encoded, tweak: Tweak, out: Modulus) -> u128 {
    assert!(
        tweak.gate < MAX_GATES,
        "gate index {} exceeds the row hash's 2^56",
        tweak.gate
    );
    debug_assert!((tweak.domain as u8) < 16);
    let q = out.value() as u16; // 2 or an odd prime below 2^16 (`covers`)
    u128::from(encoded.e) << 96
        | u128::from(encoded.modulus) << 80
        | u128::from(q) << 64
        | u128::from(tweak.domain as u8) << 56
        | u128::from(tweak.gate)
}

/// τ of output block k from τ of block 0 ([`tweak_base`]): k in its 4 bits.
#[inline]
fn with_block(base: u128, k: usize) -> u128 {
    debug_assert!(k < 16);
    base | (k as u128) << 60
}

/// ⌊r·M / 2^128⌋ for a group modulus M = q^j < 2^64: the top word of the 192-bit product.
#[inline]
fn scaled_floor(r: u128, modulus: u64) -> u64 {
    let low = u128::from(r as u64) * u128::from(modulus);
    let high = (r >> 64) * u128::from(modulus) + (low >> 64);
    (high >> 64) as u64
}

#[cfg(test)]
mod tests {
    use mixgc_core::new_rng;
    use rand::Rng as _;

    use super::*;
    use crate::tweak::Domain;
    use crate::Label;

    /// W of the encoding computed digit by digit in plain u128 arithmetic (with the high
    /// part tracked separately), to check the grouped computation.
    fn reference_encoding(label: &Label) -> (u128, u64) {
        let p = label.modulus().value();
        // Horner over every digit from the top, as (high, low) with low < 2^128.
        let (mut high, mut low) = (0u128, 0u128);
        for &d in label.digits().iter().rev() {
            let lo_lo = (low & u64::MAX as u128) * p + d as u128;
            let lo_hi = (low >> 64) * p + (lo_lo >> 64);
            high = high * p + (lo_hi >> 64);
            low = (lo_hi << 64) | (lo_lo & u64::MAX as u128);
        }
        (low, high as u64)
    }

    #[test]
    fn encoding_is_the_base_p_value_split_at_128_bits() {
        let mut rng = new_rng(Some(21), 0);
        for p in [3u64, 5, 7, 11, 13, 17, 251, 257, 65_521] {
            let m = Modulus::new(p).unwrap();
            for _ in 0..20 {
                let label = Label::random(m, &mut rng);
                let encoded = encode(Input::Label(&label));
                let (low, high) = reference_encoding(&label);
                assert_eq!(encoded.x, low, "p = {p}");
                assert_eq!(u64::from(encoded.e), high);
                assert_eq!(encoded.modulus as u64, p);
            }
            // The largest label: every digit p − 1, so W = p^ℓ − 1 and e is at its largest.
            let top = Label::new(m, vec![p - 1; m.label_len()]).unwrap();
            let (low, high) = reference_encoding(&top);
            let encoded = encode(Input::Label(&top));
            assert_eq!((encoded.x, u64::from(encoded.e)), (low, high));
            assert!(high < p * p, "p = {p}");
        }
    }

    #[test]
    fn encoding_is_injective_on_labels_that_differ_anywhere() {
        let mut rng = new_rng(Some(22), 0);
        for p in [3u64, 13, 65_521] {
            let m = Modulus::new(p).unwrap();
            let label = Label::random(m, &mut rng);
            let base = encode(Input::Label(&label));
            for i in 0..m.label_len() {
                let mut digits = label.digits().to_vec();
                digits[i] = m.add(digits[i], 1 + rng.gen_range(0..p - 1));
                let other = Label::new(m, digits).unwrap();
                assert_ne!(encode(Input::Label(&other)), base, "p = {p}, digit {i}");
            }
        }
    }

    #[test]
    fn boolean_labels_encode_as_their_block() {
        let block = Block::from_u128(0x0123_4567_89ab_cdef_fedc_ba98_7654_3211);
        let label = Label::from_block(block);
        assert_eq!(encode(Input::Label(&label)), encode(Input::Bits(block)));
        assert_eq!(encode(Input::Bits(block)).x, block.to_u128());
    }

    #[test]
    fn scaled_floor_is_the_top_word_of_the_product() {
        let mut rng = new_rng(Some(23), 0);
        for p in [3u64, 7, 251, 65_521] {
            let m = Modulus::new(p).unwrap();
            let modulus = m.group_modulus(m.group_len()) as u64;
            for r in [0, u128::MAX, 1 << 127]
                .into_iter()
                .chain((0..50).map(|_| rng.gen()))
            {
                let g = scaled_floor(r, modulus);
                assert!(g < modulus, "p = {p}");
                // g·2^128 ≤ r·M < (g + 1)·2^128, checked on 64-bit halves of r·M − g·2^128.
                let (lo, hi) = (r & u64::MAX as u128, r >> 64);
                let a = lo * modulus as u128;
                let b = hi * modulus as u128 + (a >> 64);
                assert_eq!((b >> 64) as u64, g);
            }
        }
    }

    /// H of the module documentation for one input and one output block, one AES call at
    /// a time: π(π(x) ⊕ τ_k) ⊕ π(x).
    fn reference_block(hash: &RowHash, input: Encoded, tweak: Tweak, out: Modulus, k: usize) -> u128 {
        let mut px = [Block::from_u128(input.x)];
        hash.pi.permute_many(&mut px);
        let mut pad = [px[0] ^ Block::from_u128(with_block(tweak_base(input, tweak, out), k))];
        hash.pi.permute_many(&mut pad);
        (pad[0] ^ px[0]).to_u128()
    }

    #[test]
    fn batches_of_every_size_equal_the_formula_block_by_block() {
        let hash = RowHash::new(&[7; 32]);
        let mut rng = new_rng(Some(24), 0);
        let moduli = [3u64, 17, 251, 65_521].map(|p| Modulus::new(p).unwrap());
        for n in 0..=BATCH {
            let labels: Vec<Label> = (0..n).map(|i| Label::random(moduli[i % 4], &mut rng)).collect();
            let inputs: Vec<Encoded> = labels.iter().map(|l| encode(Input::Label(l))).collect();
            let target = |i: usize| {
                let domain = [Domain::Projection, Domain::MulGarblerHalf][i % 2];
                let tweak = Tweak {
                    domain,
                    gate: 1_000 + i as u64,
                };
                (tweak, moduli[(i + 1) % 4])
            };
            let mut blocks = vec![0u128; n * MAX_BLOCKS];
            hash.hash_blocks_to(&inputs, target, &mut blocks);
            for (i, blocks) in blocks.chunks_exact(MAX_BLOCKS).enumerate() {
                let (tweak, out) = target(i);
                for (k, &block) in blocks.iter().enumerate() {
                    let want = reference_block(&hash, inputs[i], tweak, out, k);
                    assert_eq!(block, want, "batch of {n}, input {i}, block {k}");
                }
            }
        }
    }

    #[test]
    fn tweak_fields_do_not_overlap() {
        let m = Modulus::new(65_521).unwrap();
        let encoded = Encoded {
            x: 0,
            e: u32::MAX,
            modulus: 65_521,
        };
        let tweak = Tweak {
            domain: Domain::MulEvaluatorHalf,
            gate: MAX_GATES - 1,
        };
        let t = with_block(tweak_base(encoded, tweak, m), 2);
        assert_eq!(t >> 96, u32::MAX as u128);
        assert_eq!((t >> 80) as u16, 65_521);
        assert_eq!((t >> 64) as u16, 65_521);
        assert_eq!((t >> 60) & 0xf, 2);
        assert_eq!((t >> 56) & 0xf, Domain::MulEvaluatorHalf as u128);
        assert_eq!(t & (MAX_GATES as u128 - 1), tweak.gate as u128);
    }

    #[test]
    #[should_panic(expected = "exceeds the row hash")]
    fn gate_indices_beyond_56_bits_are_refused() {
        let hash = RowHash::new(&[0; 32]);
        let tweak = Tweak {
            domain: Domain::Projection,
            gate: MAX_GATES,
        };
        hash.hash_to_block(Input::Bits(Block::ZERO), tweak);
    }
}
