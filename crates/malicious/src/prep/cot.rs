//! Maliciously secure correlated OT: IKNP extension (mixgc-ot's `send_delta_cot`) with the
//! consistency check of Keller–Orsini–Scholl ("Actively Secure OT Extension with Optimal
//! Overhead", CRYPTO 2015, ePrint 2015/546, Fig. 7 and §4), seeded by the maliciously
//! secure endemic base OT ([`mixgc_ot::endemic`]).
//!
//! The COT sender holds the global correlation Δ (its base-OT choices are Δ's bits); for
//! choice bits c_j the receiver learns t_j and the sender q_j with t_j = q_j ⊕ c_j·Δ. In
//! WRK17's terms (§3, F_aBit) t_j is the receiver's MAC on c_j and q_j the sender's key.
//!
//! Check (KOS15 Fig. 7, "Check correlation"), per extension of m OTs:
//! 1. The receiver extends m' = m + κ + s OTs (κ = 128, s = 40): the last κ + s choices are
//!    uniform and are sacrificed to hide the others in step 3.
//! 2. Coins χ_1 … χ_m' ∈ GF(2^128) are tossed *after* the receiver's matrix is sent
//!    (the receiver commits first, so neither side fixes χ alone).
//! 3. The receiver sends x = Σ χ_j·c_j and t = Σ χ_j·t_j.
//! 4. The sender checks t = q ⊕ x·Δ with q = Σ χ_j·q_j, else aborts with
//!    `CheckFailed { check: "KOS15 correlation check" }`.
//!
//! A receiver that used inconsistent choices across the κ columns (to learn bits of Δ)
//! passes only with probability ≈ 2^−s per guessed bit (KOS15 Theorem 1 / §4).

use mixgc_core::{Block, Rng};
use mixgc_net::{Channel, ChannelExt};
use mixgc_ot::{endemic, OtError, OtReceiver, OtSender};
use rand::RngCore;

use super::coin;
use super::gf128;
use super::Fault;
use crate::MaliciousError;

/// κ + s: the OTs sacrificed per extension (KOS15 Fig. 7, step 1).
pub(crate) const SACRIFICED: usize = 128 + 40;

/// The name under which the KOS15 check fails.
pub const KOS_CHECK: &str = "KOS15 correlation check";
/// The name under which the receiver's coin commitment fails to open.
pub const KOS_COINS: &str = "KOS15 coin-toss commitment";

const BASE_SESSION: &str = "mixgc/malicious/prep/base-ot/v1";
/// BLAKE3 key-derivation context of the reverse direction's base OTs (KOS15 Fig. 7's
/// output hash H, a random oracle).
const REVERSE_SESSION: &str = "mixgc/malicious/prep/reverse-base-ot/v1";
/// Base OTs per IKNP instance (κ).
const KAPPA: usize = 128;

pub(crate) fn ot_error(e: OtError) -> MaliciousError {
    match e {
        OtError::Net(n) => MaliciousError::Net(n),
        other => MaliciousError::Protocol(other.to_string()),
    }
}

fn base_session(session: &[u8; 32], direction: u8) -> [u8; 32] {
    let mut h = blake3::Hasher::new_derive_key(BASE_SESSION);
    h.update(session);
    h.update(&[direction]);
    *h.finalize().as_bytes()
}

/// H(session ‖ j ‖ v), 128 bits: the random-OT output of KOS15 Fig. 7 ("Output":
/// v_{j,0} = H(j, q_j), v_{j,1} = H(j, q_j ⊕ Δ), and the receiver's H(j, t_j)).
fn reverse_key(session: &[u8; 32], j: usize, v: Block) -> Block {
    let mut h = blake3::Hasher::new_derive_key(REVERSE_SESSION);
    h.update(session);
    h.update(&(j as u64).to_le_bytes());
    let mut bytes = v.to_bytes();
    h.update(&bytes);
    zeroize::Zeroize::zeroize(&mut bytes);
    let mut out = [0u8; 16];
    h.finalize_xof().fill(&mut out);
    Block::from_bytes(out)
}

/// The reverse direction's κ base-OT keys H(j, v_j ⊕ `offset`) from κ checked COT values
/// `v` (KOS15 Fig. 7's output; `offset` = Δ for the keys of the choice 1).
fn reverse_keys(session: &[u8; 32], v: &[Block], offset: Block) -> Vec<Block> {
    v.iter()
        .enumerate()
        .map(|(j, &v)| reverse_key(session, j, v ^ offset))
        .collect()
}

/// (Σ χ_j·c_j, Σ χ_j·v_j) for the χ_j drawn from `coins` (KOS15 Fig. 7, step 3), the
/// first only when `bits` are given; χ is streamed in runs, never held whole.
#[inline(never)]
fn check_sums(coins: &[u8; 32], v: &[Block], bits: Option<&[bool]>) -> (Block, Block) {
    const RUN: usize = 1024;
    let mut stream = coin::BlockStream::new(coins);
    let mut chi = [Block::ZERO; RUN];
    let (mut x, mut sum) = (Block::ZERO, Block::ZERO);
    for (k, run) in v.chunks(RUN).enumerate() {
        let chi = &mut chi[..run.len()];
        stream.fill(chi);
        sum ^= gf128::inner_product(chi, run);
        if let Some(bits) = bits {
            let bits = &bits[k * RUN..k * RUN + run.len()];
            // c_j is a bit, so χ_j·c_j is a masked XOR.
            x = chi.iter().zip(bits).fold(x, |acc, (&c, &b)| acc ^ c.and_bit(b));
        }
    }
    (x, sum)
}

/// The COT sender: holds Δ, outputs keys q_j.
pub(crate) struct CotSender {
    ot: OtSender,
    delta: Block,
}

impl Drop for CotSender {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(self.delta.as_bytes_mut());
    }
}

/// The COT receiver: outputs MACs t_j on its choice bits.
pub(crate) struct CotReceiver {
    ot: OtReceiver,
    /// The choices with the sacrificed ones appended (a buffer reused across calls).
    all: Vec<bool>,
    pub(crate) fault: Fault,
}

impl CotSender {
    /// κ = 128 endemic base OTs as their receiver, choosing with the bits of Δ.
    /// `direction` separates the two COT instances between the same parties.
    pub(crate) fn setup<C: Channel + ?Sized>(
        ch: &mut C,
        session: &[u8; 32],
        direction: u8,
        delta: Block,
        rng: &mut Rng,
    ) -> Result<CotSender, MaliciousError> {
        let choices = OtSender::base_choices(delta);
        let mut keys =
            endemic::receive(ch, &base_session(session, direction), &choices, rng).map_err(ot_error)?;
        let ot = OtSender::from_base_keys(delta, &keys);
        zeroize::Zeroize::zeroize(keys.as_mut_slice());
        Ok(CotSender { ot, delta })
    }

    /// The other direction's IKNP receiver, whose κ base OTs (this party their sender)
    /// come from this extension instead of another κ endemic OTs: κ COTs checked as
    /// always (KOS15 Fig. 7), hashed into random OTs (k_{j,0}, k_{j,1}) =
    /// (H(j, q_j), H(j, q_j ⊕ Δ)), the output of KOS15 Fig. 7 (the random OT it proves
    /// secure against a malicious receiver in the random-oracle model). The peer chose
    /// with the bits of its own Δ ([`CotReceiver::reverse_sender`]).
    pub(crate) fn reverse_receiver<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        session: &[u8; 32],
        rng: &mut Rng,
    ) -> Result<CotReceiver, MaliciousError> {
        let mut q = Vec::new();
        self.extend_into(ch, KAPPA, rng, &mut q)?;
        let session = base_session(session, 1);
        let mut k0 = reverse_keys(&session, &q, Block::ZERO);
        let mut k1 = reverse_keys(&session, &q, self.delta);
        zeroize::Zeroize::zeroize(q.as_mut_slice());
        let mut pairs: Vec<(Block, Block)> = k0.iter().copied().zip(k1.iter().copied()).collect();
        let ot = OtReceiver::from_base_pairs(&pairs);
        for (k0, k1) in &mut pairs {
            zeroize::Zeroize::zeroize(k0.as_bytes_mut());
            zeroize::Zeroize::zeroize(k1.as_bytes_mut());
        }
        zeroize::Zeroize::zeroize(k0.as_mut_slice());
        zeroize::Zeroize::zeroize(k1.as_mut_slice());
        Ok(CotReceiver {
            ot,
            all: Vec::new(),
            fault: Fault::None,
        })
    }

    /// Keys q_j for the receiver's next `n` choices, after the KOS15 check passed.
    #[cfg(test)]
    pub(crate) fn extend<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        n: usize,
        rng: &mut Rng,
    ) -> Result<Vec<Block>, MaliciousError> {
        let mut q = Vec::new();
        self.extend_into(ch, n, rng, &mut q)?;
        Ok(q)
    }

    /// [`CotSender::extend`] into `q` (replacing its contents; reuses its allocation).
    #[inline(never)]
    pub(crate) fn extend_into<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        n: usize,
        rng: &mut Rng,
        q: &mut Vec<Block>,
    ) -> Result<(), MaliciousError> {
        // Not cleared first: the extension overwrites every element it keeps.
        if n == 0 {
            q.clear();
            return Ok(());
        }
        self.ot
            .send_delta_cot_into(ch, n + SACRIFICED, q)
            .map_err(ot_error)?;
        self.check(ch, rng, q, n)
    }

    /// The sender's half of the KOS15 check of `n` + [`SACRIFICED`] keys `q` just
    /// extended (coins, then the receiver's (x, t)); truncates `q` to the `n` kept.
    fn check<C: Channel + ?Sized>(
        &self,
        ch: &mut C,
        rng: &mut Rng,
        q: &mut Vec<Block>,
        n: usize,
    ) -> Result<(), MaliciousError> {
        ch.set_phase("the KOS15 consistency check");
        let coins = coin::toss(ch, false, rng, KOS_COINS)?;
        // Σ χ_j·q_j needs only the coins: summed while the receiver sums its side, before
        // its (x, t) is awaited (no message changes).
        let (_, q_sum) = check_sums(&coins, q, None);
        let mut reply = [Block::ZERO; 2];
        ch.recv(Block::slice_as_bytes_mut(&mut reply))?;
        let [x, t] = reply;
        if t != q_sum ^ gf128::mul(x, self.delta) {
            return Err(MaliciousError::CheckFailed { check: KOS_CHECK });
        }
        q.truncate(n);
        Ok(())
    }
}

impl CotReceiver {
    /// κ = 128 endemic base OTs as their sender.
    pub(crate) fn setup<C: Channel + ?Sized>(
        ch: &mut C,
        session: &[u8; 32],
        direction: u8,
        rng: &mut Rng,
    ) -> Result<CotReceiver, MaliciousError> {
        let mut pairs = endemic::send(ch, &base_session(session, direction), 128, rng).map_err(ot_error)?;
        let ot = OtReceiver::from_base_pairs(&pairs);
        for (k0, k1) in &mut pairs {
            zeroize::Zeroize::zeroize(k0.as_bytes_mut());
            zeroize::Zeroize::zeroize(k1.as_bytes_mut());
        }
        Ok(CotReceiver {
            ot,
            all: Vec::new(),
            fault: Fault::None,
        })
    }

    /// The other direction's IKNP sender with correlation `delta`: its κ base OTs (this
    /// party their receiver, choosing with Δ's bits) are κ COTs of this extension,
    /// hashed: k_j = H(j, t_j) = the peer's k_{j, Δ_j} ([`CotSender::reverse_receiver`]).
    pub(crate) fn reverse_sender<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        session: &[u8; 32],
        delta: Block,
        rng: &mut Rng,
    ) -> Result<CotSender, MaliciousError> {
        let choices = OtSender::base_choices(delta);
        let mut t = Vec::new();
        self.extend_into(ch, &choices, rng, &mut t)?;
        let mut keys = reverse_keys(&base_session(session, 1), &t, Block::ZERO);
        zeroize::Zeroize::zeroize(t.as_mut_slice());
        let ot = OtSender::from_base_keys(delta, &keys);
        zeroize::Zeroize::zeroize(keys.as_mut_slice());
        Ok(CotSender { ot, delta })
    }

    /// MACs t_j on `choices`, proving consistency with the KOS15 check.
    #[cfg(test)]
    pub(crate) fn extend<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        choices: &[bool],
        rng: &mut Rng,
    ) -> Result<Vec<Block>, MaliciousError> {
        let mut t = Vec::new();
        self.extend_into(ch, choices, rng, &mut t)?;
        Ok(t)
    }

    /// [`CotReceiver::extend`] into `t` (replacing its contents; reuses its allocation).
    #[inline(never)]
    pub(crate) fn extend_into<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        choices: &[bool],
        rng: &mut Rng,
        t: &mut Vec<Block>,
    ) -> Result<(), MaliciousError> {
        // Not cleared first: the extension overwrites every element it keeps.
        if choices.is_empty() {
            t.clear();
            return Ok(());
        }
        self.pad(choices, rng);
        self.ot
            .receive_delta_cot_into(ch, &self.all, t)
            .map_err(ot_error)?;
        self.prove(ch, rng, t)
    }

    /// Sets the choices of the next extension: `choices`, then [`SACRIFICED`] uniform
    /// ones (KOS15 Fig. 7, step 1).
    fn pad(&mut self, choices: &[bool], rng: &mut Rng) {
        self.all.clear();
        self.all.extend_from_slice(choices);
        let mut pad = [0u8; SACRIFICED];
        rng.fill_bytes(&mut pad);
        self.all.extend(pad.iter().map(|b| b & 1 == 1));
    }

    /// The receiver's half of the KOS15 check of the MACs `t` just extended on the padded
    /// choices (coins, then (x, t)); truncates `t` to the caller's choices.
    fn prove<C: Channel + ?Sized>(
        &self,
        ch: &mut C,
        rng: &mut Rng,
        t: &mut Vec<Block>,
    ) -> Result<(), MaliciousError> {
        ch.set_phase("the KOS15 consistency check");
        let coins = coin::toss(ch, true, rng, KOS_COINS)?;
        let (mut x, t_sum) = check_sums(&coins, t, Some(&self.all));
        if self.fault == Fault::KosLieInCheck {
            x ^= Block::from_u128(1);
        }
        ch.send_blocks(&[x, t_sum])?;
        ch.flush()?;
        t.truncate(self.all.len() - SACRIFICED);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mixgc_core::new_rng;
    use mixgc_net::{memory_pair, MemoryChannel, NetError};
    use std::thread;

    /// A channel that XORs `mask` into the outgoing byte at stream offset `at` (a
    /// man-in-the-middle, or the sending party itself, changing one message byte).
    struct Tamper<C> {
        inner: C,
        sent: u64,
        at: u64,
        mask: u8,
    }

    impl<C: Channel> Channel for Tamper<C> {
        fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
            let end = self.sent + data.len() as u64;
            if (self.sent..end).contains(&self.at) {
                let mut copy = data.to_vec();
                copy[(self.at - self.sent) as usize] ^= self.mask;
                self.sent = end;
                return self.inner.send(&copy);
            }
            self.sent = end;
            self.inner.send(data)
        }
        fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
            self.inner.recv(buf)
        }
        fn flush(&mut self) -> Result<(), NetError> {
            self.inner.flush()
        }
        fn bytes_sent(&self) -> u64 {
            self.inner.bytes_sent()
        }
        fn bytes_received(&self) -> u64 {
            self.inner.bytes_received()
        }
    }

    type Outcome = (
        Result<Vec<Block>, MaliciousError>,
        Result<Vec<Block>, MaliciousError>,
    );

    /// One setup and two extensions; the receiver's channel is `wrap`ped, `fault` set.
    fn run<W: Channel + 'static>(
        n: usize,
        fault: Fault,
        wrap: impl FnOnce(MemoryChannel) -> W + Send + 'static,
    ) -> (Block, Vec<bool>, Outcome) {
        let (a, b) = memory_pair();
        let delta = Block::random(&mut new_rng(Some(3), 9));
        let sender = thread::spawn(move || {
            let mut a = a;
            let mut rng = new_rng(Some(1), 1);
            let mut s = CotSender::setup(&mut a, &[5; 32], 0, delta, &mut rng)?;
            let _warmup = s.extend(&mut a, 7, &mut rng)?;
            s.extend(&mut a, n, &mut rng)
        });
        let mut rng = new_rng(Some(2), 2);
        let choices: Vec<bool> = (0..n).map(|_| rng.next_u32() & 1 == 1).collect();
        let c = choices.clone();
        let mut b = wrap(b);
        let recv = (|| {
            let mut r = CotReceiver::setup(&mut b, &[5; 32], 0, &mut rng)?;
            let _warmup = r.extend(&mut b, &[true; 7], &mut rng)?;
            r.fault = fault;
            r.extend(&mut b, &c, &mut rng)
        })();
        drop(b);
        (delta, choices, (sender.join().unwrap(), recv))
    }

    #[test]
    fn honest_cot_gives_the_delta_correlation() {
        for n in [1usize, 127, 128, 1000, 20_000] {
            let (delta, choices, (q, t)) = run(n, Fault::None, |c| c);
            let (q, t) = (q.unwrap(), t.unwrap());
            assert_eq!((q.len(), t.len()), (n, n));
            for ((&q, &t), &c) in q.iter().zip(&t).zip(&choices) {
                assert_eq!(t, q ^ delta.and_bit(c));
            }
        }
    }

    /// A receiver that lies about x in the check is caught.
    #[test]
    fn a_receiver_lying_in_the_check_is_caught() {
        let (_, _, (q, _)) = run(500, Fault::KosLieInCheck, |c| c);
        assert!(
            matches!(q, Err(MaliciousError::CheckFailed { check: KOS_CHECK })),
            "{q:?}"
        );
    }

    /// The attack on Δ that the check bounds: the receiver uses another choice bit in one
    /// column of one row (one flipped bit of u) and answers the check from its own view.
    /// Its q_j then differs by Δ_i·e_i: when Δ_i = 1 the sender aborts; when Δ_i = 0 the
    /// change is invisible and the output stays correct — one guessed bit of Δ per abort
    /// risk of 1/2, the leakage KOS15 §4 allows (and F_aBit in WRK17 tolerates).
    #[test]
    fn an_inconsistent_column_is_caught_exactly_when_it_touches_delta() {
        // The receiver's stream: A of the endemic OT (it is the base-OT sender), then per
        // extension a 16-byte header, the matrix u (128 columns), commitment, seed, (x, t).
        let column_bytes = |n: usize| (n + SACRIFICED).div_ceil(128) * 16;
        let extension = |n: usize| 16 + 128 * column_bytes(n) + 32 + 32 + 32;
        let mut seen = [false; 2];
        for column in [0usize, 1, 2, 3, 77, 126, 127] {
            let at = (32 + extension(7) + 16 + column * column_bytes(500) + 3) as u64;
            let (delta, choices, (q, t)) = run(500, Fault::None, move |c| Tamper {
                inner: c,
                sent: 0,
                at,
                mask: 0x10,
            });
            assert!(t.is_ok());
            let bit = delta.to_u128() >> column & 1 == 1;
            seen[bit as usize] = true;
            if bit {
                assert!(
                    matches!(q, Err(MaliciousError::CheckFailed { check: KOS_CHECK })),
                    "{q:?}"
                );
            } else {
                let (q, t) = (q.unwrap(), t.unwrap());
                assert!(q
                    .iter()
                    .zip(&t)
                    .zip(&choices)
                    .all(|((&q, &t), &c)| t == q ^ delta.and_bit(c)));
            }
        }
        assert_eq!(
            seen,
            [true, true],
            "Δ has both bit values among the columns tried"
        );
    }

    /// The reverse direction set up from direction 0's COTs is a working COT under the
    /// other party's Δ (its base OTs agree: k_j = the peer's k_{j, Δ_j}).
    #[test]
    fn the_reverse_direction_from_checked_cots_gives_its_delta_correlation() {
        let (mut a, mut b) = memory_pair();
        let (delta_a, delta_b) = (
            Block::from_u128(0x1234 << 64 | 7),
            Block::from_u128(0xfeed << 70 | 6),
        );
        let n = 3_000;
        let peer = thread::spawn(move || {
            let mut rng = new_rng(Some(1), 1);
            let mut s = CotSender::setup(&mut a, &[5; 32], 0, delta_a, &mut rng)?;
            let mut r = s.reverse_receiver(&mut a, &[5; 32], &mut rng)?;
            let choices: Vec<bool> = (0..n).map(|_| rng.next_u32() & 1 == 1).collect();
            Ok::<_, MaliciousError>((choices.clone(), r.extend(&mut a, &choices, &mut rng)?))
        });
        let mut rng = new_rng(Some(2), 2);
        let mut r = CotReceiver::setup(&mut b, &[5; 32], 0, &mut rng).unwrap();
        let mut s = r.reverse_sender(&mut b, &[5; 32], delta_b, &mut rng).unwrap();
        let q = s.extend(&mut b, n, &mut rng).unwrap();
        let (choices, t) = peer.join().unwrap().unwrap();
        assert_eq!((q.len(), t.len()), (n, n));
        assert!(choices.iter().any(|&c| c) && choices.iter().any(|&c| !c));
        for ((&q, &t), &c) in q.iter().zip(&t).zip(&choices) {
            assert_eq!(t, q ^ delta_b.and_bit(c));
        }
    }

    #[test]
    fn a_dead_peer_is_a_net_error_not_a_hang() {
        let (mut a, b) = memory_pair();
        let t = thread::spawn(move || {
            let mut b = b;
            let mut rng = new_rng(Some(2), 2);
            let _r = CotReceiver::setup(&mut b, &[5; 32], 0, &mut rng).unwrap();
            // and dies before extending
        });
        let mut rng = new_rng(Some(1), 1);
        let mut s = CotSender::setup(&mut a, &[5; 32], 0, Block::from_u128(3), &mut rng).unwrap();
        t.join().unwrap();
        assert!(matches!(
            s.extend(&mut a, 10, &mut rng),
            Err(MaliciousError::Net(_))
        ));
    }
}
