//! Maliciously secure base OT: the endemic OT of Masny–Rindal ("Endemic Oblivious Transfer",
//! CCS 2019, ePrint 2019/706: OT from a programmable-once public function, POPF, with the
//! POPF built from a random oracle into the group), over Ristretto.
//!
//! With H_i a hash onto the group (`RistrettoPoint::from_uniform_bytes` of a BLAKE3 output,
//! the session and the OT index i inside the hash) and the POPF
//! F_i(b, (r_0, r_1)) = r_b + H_i(r_{1−b}):
//!
//! ```text
//! sender:    a ← Z_ℓ \ {0}, A = a·B                                     ──A──►
//! receiver:  s_i ← Z_ℓ \ {0};  r_{i,1−c_i} ← uniform point;
//!            r_{i,c_i} = s_i·B − H_i(r_{i,1−c_i})   (so F_i(c_i, r_i) = s_i·B)   ◄──r_{i,0}, r_{i,1}──
//! sender:    k_{i,b} = KDF(session ‖ i ‖ b ‖ A ‖ r_{i,0} ‖ r_{i,1} ‖ a·F_i(b, r_i))   b ∈ {0,1}
//! receiver:  k_i     = KDF(session ‖ i ‖ c_i ‖ A ‖ r_{i,0} ‖ r_{i,1} ‖ s_i·A)       (= k_{i,c_i})
//! ```
//!
//! Masny–Rindal prove this UC-secure against a malicious sender or receiver in the random
//! oracle model under CDH (with the random-oracle POPF); it is an
//! *endemic* OT (a corrupt party may fix its own outputs), which is what OT extension needs:
//! KOS15 (ePrint 2015/546) uses the base OTs only as random seeds. The POPF hides the
//! choice bit perfectly (both r's are uniform points); a receiver that wants both keys must
//! know the discrete logarithms of F_i(0, ·) and F_i(1, ·), whose difference involves a
//! random-oracle output it cannot program.
//!
//! Hardening beyond the paper, as in [`crate::base`]: every point from the peer is checked
//! for canonical encoding and rejected if it is the identity, and the key derivation hashes
//! the OT index, the bit and the whole transcript of that OT.

use std::convert::Infallible;

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_TABLE;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoBasepointTable, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::IsIdentity;
use mixgc_core::{Block, Rng};
use mixgc_net::Channel;
use rand::RngCore;
use zeroize::Zeroize;

use crate::parallel::in_parallel;
use crate::OtError;

/// BLAKE3 key-derivation context of the random oracle onto the group (the POPF's H).
const HASH_TO_GROUP: &str = "mixgc/endemic-ot/popf/v1";
/// BLAKE3 key-derivation context of the output keys.
const KDF: &str = "mixgc/endemic-ot/kdf/v1";
/// Bytes of a compressed Ristretto point.
const POINT: usize = 32;
/// Most OTs whose points the sender reads per `recv` (its buffer stays small whatever the
/// count).
const READ_OTS: usize = 512;

/// H_i(r): the random oracle onto the Ristretto group, separated by session and index.
fn hash_to_group(session: &[u8; 32], i: usize, r: &CompressedRistretto) -> RistrettoPoint {
    let mut h = blake3::Hasher::new_derive_key(HASH_TO_GROUP);
    h.update(session);
    h.update(&(i as u64).to_le_bytes());
    h.update(r.as_bytes());
    let mut wide = [0u8; 64];
    h.finalize_xof().fill(&mut wide);
    RistrettoPoint::from_uniform_bytes(&wide)
}

/// k = KDF(session ‖ i ‖ b ‖ A ‖ r_0 ‖ r_1 ‖ P), 128 bits.
fn derive_key(
    session: &[u8; 32],
    i: usize,
    b: bool,
    a: &CompressedRistretto,
    r: &[CompressedRistretto; 2],
    p: &RistrettoPoint,
) -> Block {
    let mut h = blake3::Hasher::new_derive_key(KDF);
    h.update(session);
    h.update(&(i as u64).to_le_bytes());
    h.update(&[b as u8]);
    h.update(a.as_bytes());
    h.update(r[0].as_bytes());
    h.update(r[1].as_bytes());
    let mut enc = p.compress();
    h.update(enc.as_bytes());
    enc.0.zeroize();
    let mut out = [0u8; 16];
    h.finalize_xof().fill(&mut out);
    Block::from_bytes(out)
}

/// Decompresses a point from the peer, rejecting non-canonical encodings and the identity.
fn decode(enc: &CompressedRistretto, what: impl FnOnce() -> String) -> Result<RistrettoPoint, OtError> {
    match enc.decompress() {
        None => Err(OtError::InvalidPoint(format!(
            "{} is not a canonical Ristretto encoding",
            what()
        ))),
        Some(p) if p.is_identity() => Err(OtError::InvalidPoint(format!("{} is the identity", what()))),
        Some(p) => Ok(p),
    }
}

fn nonzero_scalar(rng: &mut Rng) -> Scalar {
    loop {
        let x = Scalar::random(rng);
        if x != Scalar::ZERO {
            return x;
        }
    }
}

fn random_point(rng: &mut Rng) -> RistrettoPoint {
    let mut wide = [0u8; 64];
    rng.fill_bytes(&mut wide);
    RistrettoPoint::from_uniform_bytes(&wide)
}

/// Endemic-OT sender: returns (k_{i,0}, k_{i,1}) for `count` OTs. Sends A, then reads
/// the receiver's 2·`count` points, rejecting any that is non-canonical or the identity
/// with [`OtError::InvalidPoint`]. `count == 0` exchanges nothing. The OTs are independent
/// given a, so they are split over two threads.
pub fn send<C: Channel + ?Sized>(
    ch: &mut C,
    session: &[u8; 32],
    count: usize,
    rng: &mut Rng,
) -> Result<Vec<(Block, Block)>, OtError> {
    ch.set_phase("the base oblivious transfers (endemic OT)");
    if count == 0 {
        return Ok(Vec::new());
    }
    let mut a = nonzero_scalar(rng);
    let a_enc = (RISTRETTO_BASEPOINT_TABLE * &a).compress();
    ch.send(a_enc.as_bytes())?;
    ch.flush()?;
    let result = (|| {
        let mut transcripts: Vec<[CompressedRistretto; 2]> = Vec::with_capacity(count.min(READ_OTS));
        let mut buf = vec![0u8; 2 * POINT * READ_OTS.min(count)];
        while transcripts.len() < count {
            let n = READ_OTS.min(count - transcripts.len());
            ch.recv(&mut buf[..2 * POINT * n])?;
            transcripts.extend(buf[..2 * POINT * n].chunks_exact(2 * POINT).map(|pair| {
                [
                    CompressedRistretto(pair[..POINT].try_into().expect("32 bytes")),
                    CompressedRistretto(pair[POINT..].try_into().expect("32 bytes")),
                ]
            }));
        }
        in_parallel(&transcripts, |first, part| {
            part.iter()
                .enumerate()
                .map(|(k, r)| {
                    let i = first + k;
                    let p0 = decode(&r[0], || format!("the receiver's r_{{{i},0}}"))?;
                    let p1 = decode(&r[1], || format!("the receiver's r_{{{i},1}}"))?;
                    // F_i(b, r) = r_b + H_i(r_{1−b}); the keys hash a·F_i(b, r).
                    let f0 = p0 + hash_to_group(session, i, &r[1]);
                    let f1 = p1 + hash_to_group(session, i, &r[0]);
                    let mut shared = [a * f0, a * f1];
                    let keys = (
                        derive_key(session, i, false, &a_enc, r, &shared[0]),
                        derive_key(session, i, true, &a_enc, r, &shared[1]),
                    );
                    shared.zeroize();
                    Ok(keys)
                })
                .collect()
        })
    })();
    a.zeroize();
    result
}

/// Endemic-OT receiver: returns k_{i,c_i} for each choice bit. Reads A (rejected if
/// non-canonical or the identity), sends (r_{i,0}, r_{i,1}) of every OT in one message.
/// Empty `choices` exchange nothing.
///
/// The r's depend on neither A nor anything else from the sender, so they are computed
/// first (while A is on the way; they are still sent after A arrives, as in Masny–Rindal's
/// protocol), and s_i·A goes through one table built for A (fixed-base speed, constant
/// time in s_i) on two threads.
pub fn receive<C: Channel + ?Sized>(
    ch: &mut C,
    session: &[u8; 32],
    choices: &[bool],
    rng: &mut Rng,
) -> Result<Vec<Block>, OtError> {
    ch.set_phase("the base oblivious transfers (endemic OT)");
    if choices.is_empty() {
        return Ok(Vec::new());
    }
    // The same draws, in the same order, as one OT at a time: s_i, then r_{i,1−c_i}.
    let mut secrets: Vec<Scalar> = Vec::with_capacity(choices.len());
    let mut others = Vec::with_capacity(choices.len());
    for _ in choices {
        secrets.push(nonzero_scalar(rng));
        others.push(random_point(rng).compress());
    }
    let indexed: Vec<usize> = (0..choices.len()).collect();
    let chosen = match in_parallel(&indexed, |_, part| {
        Ok::<_, Infallible>(
            part.iter()
                .map(|&i| {
                    // r_c = s·B − H_i(r_{1−c}), so that F_i(c, r) = s·B.
                    (RISTRETTO_BASEPOINT_TABLE * &secrets[i] - hash_to_group(session, i, &others[i]))
                        .compress()
                })
                .collect(),
        )
    }) {
        Ok(chosen) => chosen,
        Err(never) => match never {},
    };
    let transcripts: Vec<[CompressedRistretto; 2]> = choices
        .iter()
        .zip(others.into_iter().zip(chosen))
        .map(|(&c, (other, chosen))| if c { [other, chosen] } else { [chosen, other] })
        .collect();

    let result = (|| {
        let mut a_bytes = [0u8; POINT];
        ch.recv(&mut a_bytes)?;
        let a_enc = CompressedRistretto(a_bytes);
        let a = decode(&a_enc, || "the sender's A".to_string())?;
        let mut buf = Vec::with_capacity(2 * POINT * choices.len());
        for r in &transcripts {
            buf.extend_from_slice(r[0].as_bytes());
            buf.extend_from_slice(r[1].as_bytes());
        }
        ch.send(&buf)?;
        ch.flush()?;
        let a_table = RistrettoBasepointTable::create(&a);
        in_parallel(&indexed, |_, part| {
            Ok(part
                .iter()
                .map(|&i| {
                    let mut shared = &a_table * &secrets[i];
                    let key = derive_key(session, i, choices[i], &a_enc, &transcripts[i], &shared);
                    shared.zeroize();
                    key
                })
                .collect())
        })
    })();
    secrets.zeroize();
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use mixgc_core::new_rng;
    use mixgc_net::{memory_pair, ChannelExt};
    use std::collections::HashSet;
    use std::thread;

    const SESSION: [u8; 32] = [9; 32];

    fn run(choices: Vec<bool>, seed: Option<u64>) -> (Vec<(Block, Block)>, Vec<Block>) {
        let (mut a, mut b) = memory_pair();
        let count = choices.len();
        let t = thread::spawn(move || send(&mut a, &SESSION, count, &mut new_rng(seed, 1)).unwrap());
        let got = receive(&mut b, &SESSION, &choices, &mut new_rng(seed, 2)).unwrap();
        (t.join().unwrap(), got)
    }

    #[test]
    fn receiver_gets_exactly_the_chosen_key() {
        let mut rng = new_rng(Some(8), 0);
        for count in [1usize, 31, 32, 33, 128] {
            let choices: Vec<bool> = (0..count).map(|_| rng.next_u32() & 1 == 1).collect();
            let (pairs, got) = run(choices.clone(), Some(count as u64));
            assert_eq!((pairs.len(), got.len()), (count, count));
            for ((&(k0, k1), &k), &c) in pairs.iter().zip(&got).zip(&choices) {
                assert_eq!(k, if c { k1 } else { k0 });
                assert_ne!(k0, k1);
            }
            let all: HashSet<Block> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
            assert_eq!(all.len(), 2 * count, "a key repeats");
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

    /// A malicious receiver that sends r_0 = r_1 (the natural try at a symmetric POPF
    /// value) still gets two unrelated keys: F_i(0, r) = F_i(1, r) but the KDF hashes b.
    #[test]
    fn equal_r_points_give_unrelated_keys() {
        let (mut a, mut b) = memory_pair();
        let t = thread::spawn(move || send(&mut a, &SESSION, 4, &mut new_rng(Some(2), 1)).unwrap());
        let mut a_enc = [0u8; 32];
        b.recv(&mut a_enc).unwrap();
        let p = RistrettoPoint::mul_base(&Scalar::from(7u8)).compress();
        for _ in 0..4 {
            b.send(p.as_bytes()).unwrap();
            b.send(p.as_bytes()).unwrap();
        }
        b.flush().unwrap();
        let pairs = t.join().unwrap();
        let all: HashSet<Block> = pairs.iter().flat_map(|&(k0, k1)| [k0, k1]).collect();
        assert_eq!(all.len(), 8);
    }

    #[test]
    fn invalid_points_are_rejected_on_both_sides() {
        for bad in [[0xffu8; 32], [0u8; 32]] {
            // Bad A.
            let (mut a, mut b) = memory_pair();
            a.send(&bad).unwrap();
            a.flush().unwrap();
            let r = receive(&mut b, &SESSION, &[true], &mut new_rng(Some(1), 2));
            assert!(
                matches!(r, Err(OtError::InvalidPoint(ref m)) if m.contains("sender's A")),
                "{r:?}"
            );
            // Bad r_{0,1}.
            let (mut a, mut b) = memory_pair();
            let t = thread::spawn(move || send(&mut a, &SESSION, 1, &mut new_rng(Some(1), 1)));
            let _ = b.recv_blocks(2).unwrap();
            let ok = RistrettoPoint::mul_base(&Scalar::from(5u8)).compress();
            b.send(ok.as_bytes()).unwrap();
            b.send(&bad).unwrap();
            b.flush().unwrap();
            let r = t.join().unwrap();
            assert!(
                matches!(r, Err(OtError::InvalidPoint(ref m)) if m.contains("r_{0,1}")),
                "{r:?}"
            );
        }
    }

    #[test]
    fn a_dead_peer_is_a_net_error() {
        let (mut a, b) = memory_pair();
        drop(b);
        assert!(matches!(
            send(&mut a, &SESSION, 3, &mut new_rng(Some(1), 1)),
            Err(OtError::Net(_))
        ));
        let (a, mut b) = memory_pair();
        drop(a);
        assert!(matches!(
            receive(&mut b, &SESSION, &[false], &mut new_rng(Some(1), 2)),
            Err(OtError::Net(_))
        ));
    }
}
