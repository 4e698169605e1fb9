//! Base oblivious transfer over the Ristretto group, the seed of OT extension.
//!
//! The protocol is the "simplest OT" of Chou–Orlandi (LATINCRYPT 2015, ePrint 2015/267)
//! with a hardened key derivation (`docs/security.md`, "Base OT"), in a prime-order group:
//!
//! ```text
//! sender:    y ← Z_ℓ fresh,  S = y·B                               ──S──►
//! receiver:  x_i ← Z_ℓ,      R_i = c_i·S + x_i·B                  ◄──R_i──
//! sender:    k_{i,b} = H(dom ‖ session ‖ i ‖ b ‖ S ‖ R_i ‖ enc(2·y·(R_i − b·S)))   b ∈ {0,1}
//! receiver:  k_i     = H(dom ‖ session ‖ i ‖ c_i ‖ S ‖ R_i ‖ enc(2·x_i·S))   (= k_{i,c_i})
//! ```
//!
//! H is BLAKE3 in key-derivation mode with context `"mixgc/base-ot/v2"`, truncated to
//! 128 bits; every field has a fixed length, so the encoding is unambiguous. The shared
//! point P enters as the Ristretto encoding of 2·P: doubling is a bijection of the
//! prime-order group, so this names P exactly as enc(P) would, and it lets both sides
//! encode a whole batch with one field inversion (`double_and_compress_batch`, ~1 µs a
//! point instead of ~5 µs). The batch inversion needs nonzero points: y, x_i ≠ 0 and the
//! sender rejects R_i ∈ {identity, S}, so y·R_i, y·(R_i − S) and x_i·S never vanish. An
//! honest receiver sends R_i = S with probability ≈ 2⁻²⁵².
//!
//! Why the index `i`, the bit `b` and the transcript `S ‖ R_i` are inside H: in the 2025
//! "NIL-CIRC" attack on a Chou–Orlandi variant, a receiver sent R = S/2, which makes
//! y·R and y·(R − S) = −y·R related so that k₀ = k₁ under that variant's derivation; it
//! then read Δ from the first correlated OT. Here the two keys hash different bits `b` (and
//! different points), so they are unrelated random-oracle outputs whatever R is. Point
//! validation (canonical encoding, not the identity) is done too, but does not by itself
//! stop that attack.
//!
//! The receiver's choice bits are hidden perfectly (R_i is uniform for either bit); the
//! sender's other key is hidden under CDH in the random-oracle model.

use std::convert::Infallible;

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_TABLE;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoBasepointTable, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::IsIdentity;
use mixgc_core::{Block, Rng};
use mixgc_net::Channel;
use subtle::{Choice, ConditionallySelectable};
use zeroize::Zeroize;

use crate::parallel::in_parallel;
use crate::OtError;

/// BLAKE3 key-derivation context of the base-OT keys.
const DOMAIN: &str = "mixgc/base-ot/v2";

/// Most R_i points read per `recv` by the sender (its buffer stays small whatever the count).
const READ_POINTS: usize = 1024;

/// Bytes of a compressed Ristretto point.
const POINT: usize = 32;

/// The sender's first message S = y·B and its secrets, made before the session id is known,
/// so that S can travel with the session's hello (it depends on nothing but y).
pub struct SenderStart {
    y: Scalar,
    /// y·S, so that y·(R_i − S) = y·R_i − y·S costs one variable-base multiplication.
    ys: RistrettoPoint,
    s_enc: CompressedRistretto,
}

impl Drop for SenderStart {
    fn drop(&mut self) {
        self.y.zeroize();
        self.ys.zeroize();
    }
}

impl SenderStart {
    /// Draws y and computes S = y·B (fixed-base table) and y·S.
    pub fn new(rng: &mut Rng) -> SenderStart {
        let y = nonzero_scalar(rng);
        let s = RISTRETTO_BASEPOINT_TABLE * &y;
        SenderStart {
            ys: y * s,
            s_enc: s.compress(),
            y,
        }
    }

    /// The encoding of S, the sender's only message.
    pub fn message(&self) -> &[u8; POINT] {
        self.s_enc.as_bytes()
    }

    /// Reads the receiver's `count` points R_i (S must have been sent) and derives the key
    /// pairs. Rejects an R_i that is not a canonical encoding, is the identity or equals S
    /// with [`OtError::InvalidPoint`]. The work is split over two threads.
    pub fn finish<C: Channel + ?Sized>(
        self,
        ch: &mut C,
        session: &[u8; 32],
        count: usize,
    ) -> Result<Vec<(Block, Block)>, OtError> {
        ch.set_phase("the base oblivious transfers");
        let mut encs = Vec::with_capacity(count.min(READ_POINTS));
        let mut buf = vec![0u8; READ_POINTS.min(count) * POINT];
        while encs.len() < count {
            let n = READ_POINTS.min(count - encs.len());
            ch.recv(&mut buf[..n * POINT])?;
            encs.extend(
                buf[..n * POINT]
                    .chunks_exact(POINT)
                    .map(|c| CompressedRistretto(c.try_into().expect("32-byte chunk"))),
            );
        }
        let prefix = KeyPrefix::new(session);
        in_parallel(&encs, |first, part| self.keys(&prefix, first, part))
    }

    /// The key pairs of the OTs `first..first + r_encs.len()`.
    fn keys(
        &self,
        prefix: &KeyPrefix,
        first: usize,
        r_encs: &[CompressedRistretto],
    ) -> Result<Vec<(Block, Block)>, OtError> {
        // Shared points, [y·R_i, y·R_i − y·S] per OT, encoded together.
        let mut shared = Vec::with_capacity(2 * r_encs.len());
        for (k, r_enc) in r_encs.iter().enumerate() {
            let i = first + k;
            let r =
                decode(r_enc).map_err(|why| OtError::InvalidPoint(format!("the receiver's R_{i} {why}")))?;
            if *r_enc == self.s_enc {
                shared.zeroize();
                return Err(OtError::InvalidPoint(format!("the receiver's R_{i} equals S")));
            }
            let yr = self.y * r;
            shared.extend([yr, yr - self.ys]);
        }
        let mut encoded = RistrettoPoint::double_and_compress_batch(&shared);
        shared.zeroize();
        let keys = r_encs
            .iter()
            .zip(encoded.chunks_exact(2))
            .enumerate()
            .map(|(k, (r_enc, pair))| {
                let i = first + k;
                (
                    prefix.key(i, false, &self.s_enc, r_enc, &pair[0]),
                    prefix.key(i, true, &self.s_enc, r_enc, &pair[1]),
                )
            })
            .collect();
        encoded.iter_mut().for_each(|p| p.0.zeroize());
        Ok(keys)
    }
}

/// Base-OT sender: returns the key pairs (k_{i,0}, k_{i,1}) for `count` OTs.
///
/// Sends S, then reads the receiver's `count` points R_i ([`SenderStart`] in one call).
/// Rejects an R_i that is not a canonical encoding or is the identity with
/// [`OtError::InvalidPoint`]. `count == 0` exchanges no messages.
pub fn send<C: Channel + ?Sized>(
    ch: &mut C,
    session: &[u8; 32],
    count: usize,
    rng: &mut Rng,
) -> Result<Vec<(Block, Block)>, OtError> {
    ch.set_phase("the base oblivious transfers");
    if count == 0 {
        return Ok(Vec::new());
    }
    let start = SenderStart::new(rng);
    ch.send(start.message())?;
    ch.flush()?;
    start.finish(ch, session, count)
}

/// The receiver's secrets x_i and points x_i·B, made before S arrives (they depend on
/// nothing the sender says), so that answering S costs one addition and one encoding per OT.
pub struct ReceiverStart {
    choices: Vec<bool>,
    xs: Vec<Scalar>,
    xbs: Vec<RistrettoPoint>,
}

impl Drop for ReceiverStart {
    fn drop(&mut self) {
        self.xs.zeroize();
        self.xbs.zeroize();
        self.choices.zeroize();
    }
}

impl ReceiverStart {
    /// Draws x_i for every choice and computes x_i·B (fixed-base table, two threads).
    pub fn new(choices: &[bool], rng: &mut Rng) -> ReceiverStart {
        let xs: Vec<Scalar> = choices.iter().map(|_| nonzero_scalar(rng)).collect();
        let xbs = match in_parallel(&xs, |_, part| {
            Ok::<_, Infallible>(part.iter().map(|x| RISTRETTO_BASEPOINT_TABLE * x).collect())
        }) {
            Ok(xbs) => xbs,
            Err(never) => match never {},
        };
        ReceiverStart {
            choices: choices.to_vec(),
            xs,
            xbs,
        }
    }

    /// Reads S, rejecting a non-canonical encoding or the identity with
    /// [`OtError::InvalidPoint`], sends every R_i = c_i·S + x_i·B in one message (the
    /// selection is constant-time) and derives k_{i,c_i}. Empty choices exchange nothing.
    pub fn finish<C: Channel + ?Sized>(
        mut self,
        ch: &mut C,
        session: &[u8; 32],
    ) -> Result<Vec<Block>, OtError> {
        ch.set_phase("the base oblivious transfers");
        if self.choices.is_empty() {
            return Ok(Vec::new());
        }
        let mut s_bytes = [0u8; POINT];
        ch.recv(&mut s_bytes)?;
        let s_enc = CompressedRistretto(s_bytes);
        let s = decode(&s_enc).map_err(|why| OtError::InvalidPoint(format!("the sender's S {why}")))?;

        let mut buf = Vec::with_capacity(self.choices.len() * POINT);
        let mut r_encs: Vec<CompressedRistretto> = Vec::with_capacity(self.choices.len());
        for (&c, xb) in self.choices.iter().zip(&self.xbs) {
            let r = RistrettoPoint::conditional_select(xb, &(xb + s), Choice::from(c as u8));
            let r_enc = r.compress();
            buf.extend_from_slice(r_enc.as_bytes());
            r_encs.push(r_enc);
        }
        ch.send(&buf)?;
        ch.flush()?;

        // x_i·S through one precomputed table for S (fixed-base speed), encoded as
        // enc(2·x_i·S) in one batch per thread.
        let s_table = RistrettoBasepointTable::create(&s);
        let choices = std::mem::take(&mut self.choices);
        let prefix = KeyPrefix::new(session);
        let keys = in_parallel(&self.xs, |first, xs| {
            let mut shared: Vec<RistrettoPoint> = xs.iter().map(|x| &s_table * x).collect();
            let mut encoded = RistrettoPoint::double_and_compress_batch(&shared);
            shared.zeroize();
            let keys = encoded
                .iter()
                .enumerate()
                .map(|(k, p)| {
                    let i = first + k;
                    prefix.key(i, choices[i], &s_enc, &r_encs[i], p)
                })
                .collect();
            encoded.iter_mut().for_each(|p| p.0.zeroize());
            Ok::<_, OtError>(keys)
        });
        self.choices = choices;
        keys
    }
}

/// Base-OT receiver: returns k_{i,c_i} for each choice bit c_i.
///
/// Reads S, rejecting a non-canonical encoding or the identity with
/// [`OtError::InvalidPoint`], then sends R_i = c_i·S + x_i·B ([`ReceiverStart`] in one
/// call). Empty `choices` exchange no messages.
pub fn receive<C: Channel + ?Sized>(
    ch: &mut C,
    session: &[u8; 32],
    choices: &[bool],
    rng: &mut Rng,
) -> Result<Vec<Block>, OtError> {
    ch.set_phase("the base oblivious transfers");
    if choices.is_empty() {
        return Ok(Vec::new());
    }
    ReceiverStart::new(choices, rng).finish(ch, session)
}

/// Decompresses a point from the peer, rejecting non-canonical encodings and the identity;
/// the error says why.
fn decode(enc: &CompressedRistretto) -> Result<RistrettoPoint, &'static str> {
    let p = enc.decompress().ok_or("is not a canonical Ristretto encoding")?;
    if p.is_identity() {
        return Err("is the identity");
    }
    Ok(p)
}

/// A uniformly random nonzero scalar (zero has probability 2⁻²⁵², but costs nothing to
/// exclude, and a zero y or x would make S or R_i the identity).
fn nonzero_scalar(rng: &mut Rng) -> Scalar {
    loop {
        let x = Scalar::random(rng);
        if x != Scalar::ZERO {
            return x;
        }
    }
}

/// BLAKE3 in key-derivation mode with the domain and the session already absorbed.
struct KeyPrefix(blake3::Hasher);

impl KeyPrefix {
    fn new(session: &[u8; 32]) -> Self {
        let mut h = blake3::Hasher::new_derive_key(DOMAIN);
        h.update(session);
        KeyPrefix(h)
    }

    /// k = H(dom ‖ session ‖ i ‖ b ‖ S ‖ R_i ‖ P), truncated to 128 bits.
    fn key(
        &self,
        i: usize,
        b: bool,
        s: &CompressedRistretto,
        r: &CompressedRistretto,
        p: &CompressedRistretto,
    ) -> Block {
        let mut h = self.0.clone();
        h.update(&(i as u64).to_le_bytes());
        h.update(&[b as u8]);
        h.update(s.as_bytes());
        h.update(r.as_bytes());
        h.update(p.as_bytes());
        let mut out = [0u8; 16];
        h.finalize_xof().fill(&mut out);
        Block::from_bytes(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mixgc_core::new_rng;
    use mixgc_net::{memory_pair, ChannelExt, MemoryChannel};
    use std::collections::HashSet;
    use std::thread;

    const SESSION: [u8; 32] = [7; 32];

    fn run(count: usize, seed: Option<u64>) -> (Vec<(Block, Block)>, Vec<Block>, Vec<bool>) {
        let (mut a, mut b) = memory_pair();
        let mut crng = new_rng(seed, 99);
        let choices: Vec<bool> = (0..count).map(|_| rand::Rng::gen(&mut crng)).collect();
        let ch = choices.clone();
        let t = thread::spawn(move || {
            let mut rng = new_rng(seed, 1);
            send(&mut a, &SESSION, count, &mut rng).unwrap()
        });
        let mut rng = new_rng(seed, 2);
        let got = receive(&mut b, &SESSION, &ch, &mut rng).unwrap();
        (t.join().unwrap(), got, choices)
    }

    #[test]
    fn receiver_gets_the_chosen_key_only() {
        for count in [1usize, 15, 16, 17, 128, 200] {
            let (pairs, got, choices) = run(count, Some(5));
            assert_eq!(pairs.len(), count);
            for ((&(k0, k1), &k), &c) in pairs.iter().zip(&got).zip(&choices) {
                assert_eq!(k, if c { k1 } else { k0 });
                assert_ne!(k, if c { k0 } else { k1 });
            }
        }
    }

    #[test]
    fn zero_count_sends_nothing() {
        let (mut a, mut b) = memory_pair();
        let mut rng = new_rng(Some(1), 0);
        assert!(send(&mut a, &SESSION, 0, &mut rng).unwrap().is_empty());
        assert!(receive(&mut b, &SESSION, &[], &mut rng).unwrap().is_empty());
        assert_eq!(a.bytes_sent() + b.bytes_sent(), 0);
    }

    /// Every OT index gives a distinct key: no two of the 2·count keys are equal.
    #[test]
    fn every_key_is_distinct() {
        let (pairs, _, _) = run(128, Some(11));
        let all: HashSet<Block> = pairs.iter().flat_map(|&(k0, k1)| [k0, k1]).collect();
        assert_eq!(all.len(), 256);
    }

    #[test]
    fn seeded_runs_repeat_and_unseeded_runs_differ() {
        assert_eq!(run(8, Some(3)).0, run(8, Some(3)).0);
        let (p1, _, _) = run(8, None);
        let (p2, _, _) = run(8, None);
        let a: HashSet<Block> = p1.iter().flat_map(|&(k0, k1)| [k0, k1]).collect();
        assert!(p2.iter().all(|(k0, k1)| !a.contains(k0) && !a.contains(k1)));
    }

    #[test]
    fn session_separates_keys() {
        let (mut a, mut b) = memory_pair();
        let t = thread::spawn(move || {
            let mut rng = new_rng(Some(1), 1);
            send(&mut a, &[1; 32], 4, &mut rng).unwrap()
        });
        let mut rng = new_rng(Some(1), 2);
        let got = receive(&mut b, &[2; 32], &[false, true, false, true], &mut rng).unwrap();
        let pairs = t.join().unwrap();
        for (k, (k0, k1)) in got.iter().zip(&pairs) {
            assert!(k != k0 && k != k1);
        }
    }

    /// NIL-CIRC regression: a malicious receiver sends R = S/2 for every OT. Under a
    /// derivation without the choice bit, y·R and y·(R − S) = −y·R would give k₀ = k₁.
    /// Here the keys of each pair differ, no key repeats across indices, and k₀ ⊕ k₁ is
    /// not a fixed correlation.
    #[test]
    fn receiver_sending_half_of_s_gets_unrelated_keys() {
        let (mut a, mut b) = memory_pair();
        let t = thread::spawn(move || {
            let mut rng = new_rng(None, 1);
            send(&mut a, &SESSION, 64, &mut rng).unwrap()
        });
        let mut s_bytes = [0u8; 32];
        b.recv(&mut s_bytes).unwrap();
        let s = CompressedRistretto(s_bytes).decompress().unwrap();
        let half = Scalar::from(2u8).invert() * s;
        assert_eq!(half + half, s);
        let enc = half.compress();
        for _ in 0..64 {
            b.send(enc.as_bytes()).unwrap();
        }
        b.flush().unwrap();
        let pairs = t.join().unwrap();
        let keys: HashSet<Block> = pairs.iter().flat_map(|&(k0, k1)| [k0, k1]).collect();
        assert_eq!(keys.len(), 128, "k0 = k1 or a key repeated across indices");
        let diffs: HashSet<Block> = pairs.iter().map(|&(k0, k1)| k0 ^ k1).collect();
        assert_eq!(diffs.len(), 64, "k0 ⊕ k1 repeats: a fixed correlation");
        // The attacker's natural guesses for the points it cannot compute do not appear.
        let prefix = KeyPrefix::new(&SESSION);
        for (i, &(k0, k1)) in pairs.iter().enumerate() {
            for b in [false, true] {
                for p in [s, half, -half, RistrettoPoint::mul_base(&Scalar::ONE)] {
                    let guess = prefix.key(i, b, &CompressedRistretto(s_bytes), &enc, &p.compress());
                    assert!(guess != k0 && guess != k1);
                }
            }
        }
    }

    fn expect_invalid_point<T: std::fmt::Debug>(r: Result<T, OtError>) {
        match r {
            Err(OtError::InvalidPoint(msg)) => {
                assert!(msg.contains("identity") || msg.contains("canonical"), "{msg}")
            }
            other => panic!("expected InvalidPoint, got {other:?}"),
        }
    }

    /// A non-canonical encoding (2²⁵⁵ − 1 is not a reduced field element; a negative
    /// field element is rejected by Ristretto decoding too) and the identity.
    fn bad_encodings() -> Vec<[u8; 32]> {
        let mut negative = [0u8; 32];
        negative[0] = 1; // s = 1 is "negative" (odd) and therefore not canonical
        vec![[0xff; 32], negative, [0u8; 32]]
    }

    #[test]
    fn receiver_rejects_invalid_or_identity_s() {
        for bad in bad_encodings() {
            let (mut a, mut b): (MemoryChannel, MemoryChannel) = memory_pair();
            a.send(&bad).unwrap();
            a.flush().unwrap();
            let mut rng = new_rng(Some(1), 2);
            expect_invalid_point(receive(&mut b, &SESSION, &[true, false], &mut rng));
        }
    }

    /// R_i = S would make y·(R_i − S) the identity (and break the batched encoding):
    /// the sender refuses it instead of deriving a key from a known point.
    #[test]
    fn sender_rejects_r_equal_to_s() {
        let (mut a, mut b) = memory_pair();
        let t = thread::spawn(move || {
            let mut rng = new_rng(Some(1), 1);
            send(&mut a, &SESSION, 1, &mut rng)
        });
        let mut s = [0u8; 32];
        b.recv(&mut s).unwrap();
        b.send(&s).unwrap();
        b.flush().unwrap();
        let err = t.join().unwrap().unwrap_err();
        assert!(
            matches!(&err, OtError::InvalidPoint(m) if m.contains("equals S")),
            "{err}"
        );
    }

    #[test]
    fn sender_rejects_invalid_or_identity_r() {
        for bad in bad_encodings() {
            let (mut a, mut b) = memory_pair();
            let t = thread::spawn(move || {
                let mut rng = new_rng(Some(1), 1);
                send(&mut a, &SESSION, 3, &mut rng)
            });
            let _s = b.recv_blocks(2).unwrap();
            // One honest-looking point, then the bad one.
            let ok = RistrettoPoint::mul_base(&Scalar::from(5u8)).compress();
            b.send(ok.as_bytes()).unwrap();
            b.send(&bad).unwrap();
            b.send(ok.as_bytes()).unwrap();
            b.flush().unwrap();
            expect_invalid_point(t.join().unwrap());
        }
    }

    /// With enough OTs for two threads, a bad point in the second thread's half is still
    /// refused and named by its index, and the halves' keys line up with a run on one
    /// thread (the first half's keys do not depend on the split).
    #[test]
    fn the_two_threads_name_a_bad_point_and_agree_with_one() {
        let (mut a, mut b) = memory_pair();
        let t = thread::spawn(move || {
            let mut rng = new_rng(Some(1), 1);
            send(&mut a, &SESSION, 64, &mut rng)
        });
        let _s = b.recv_blocks(2).unwrap();
        let ok = RistrettoPoint::mul_base(&Scalar::from(5u8)).compress();
        for i in 0..64 {
            b.send(if i == 40 { &[0u8; 32] } else { ok.as_bytes() }).unwrap();
        }
        b.flush().unwrap();
        match t.join().unwrap() {
            Err(OtError::InvalidPoint(m)) => assert!(m.contains("R_40 is the identity"), "{m}"),
            other => panic!("expected InvalidPoint, got {other:?}"),
        }

        // 64 OTs (two threads) against the first 16 of them run alone (one thread): the
        // same seeds give the same S, R_i and keys.
        let (pairs, got, choices) = run(64, Some(21));
        for ((&(k0, k1), &k), &c) in pairs.iter().zip(&got).zip(&choices) {
            assert_eq!(k, if c { k1 } else { k0 });
        }
        let (few, _, _) = run(16, Some(21));
        assert_eq!(&pairs[..16], &few[..]);
    }

    #[test]
    fn disconnect_is_an_error_on_both_sides() {
        // Receiver vanishes after reading S.
        let (mut a, b) = memory_pair();
        let t = thread::spawn(move || {
            let mut rng = new_rng(Some(1), 1);
            send(&mut a, &SESSION, 128, &mut rng)
        });
        let mut b = b;
        let mut s = [0u8; 32];
        b.recv(&mut s).unwrap();
        let ok = RistrettoPoint::mul_base(&Scalar::from(5u8)).compress();
        b.send(ok.as_bytes()).unwrap();
        b.send(&ok.as_bytes()[..16]).unwrap(); // half a point, then gone
        b.flush().unwrap();
        drop(b);
        assert!(matches!(t.join().unwrap(), Err(OtError::Net(_))));

        // Sender vanishes before S.
        let (a, mut b) = memory_pair();
        drop(a);
        let mut rng = new_rng(Some(1), 2);
        assert!(matches!(
            receive(&mut b, &SESSION, &[true], &mut rng),
            Err(OtError::Net(_))
        ));
    }
}
