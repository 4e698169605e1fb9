//! Correlated randomness between every pair of parties, from OT between their own
//! processes (no dealer: no process ever holds another party's Δ, keys or shares).
//!
//! Each ordered pair (i, j) runs IKNP with i as extension sender whose correlation is i's
//! own Δ_i (`OtSender::setup_with_secret`), so one Δ_i serves all of i's peers. On top:
//!
//! - [`Correlations::delta_products`]: XOR shares of Δ_k · x for every party k and every
//!   XOR-shared bit x (one Δ-COT per ordered pair and bit: 16 bytes);
//! - [`Correlations::and_shares`]: XOR shares of x·y for XOR-shared bits x, y, the cross
//!   terms x^i·y^j by one random OT each plus a one-bit correction (Gilboa's product,
//!   ALSZ13 §5.4 R-OT);
//! - [`Correlations::triples`]: Boolean Beaver triples (a, b, a·b) for GMW.

use mixgc_core::{Block, Rng};
use mixgc_net::{recv_frame, send_frame, Channel, PeerMisbehaved, Tag};
use mixgc_ot::{OtReceiver, OtSender};
use rand::{Rng as _, SeedableRng};
use zeroize::Zeroize;

use crate::bits::{pack, unpack};
use crate::{peer, Mesh, NpartyError};

/// BLAKE3 context deriving each directed pair's OT session from the run's session id.
const PAIR_DOMAIN: &str = "mixgc/nparty/pair-ot/v1";

/// κ: the base OTs an IKNP extension starts from.
const BASE_OTS: usize = 128;

/// This party's OT extension with one peer, in both directions.
struct Pair {
    /// This party as IKNP sender (correlation Δ_me).
    out: OtSender,
    /// This party as IKNP receiver (the peer's correlation).
    inn: OtReceiver,
}

/// This party's correlations with every other party.
pub struct Correlations {
    me: usize,
    delta: Block,
    pairs: Vec<Option<Pair>>,
}

impl std::fmt::Debug for Correlations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Correlations")
            .field("me", &self.me)
            .finish_non_exhaustive()
    }
}

/// The session of the OT extension from `sender` to `receiver`.
fn pair_session(session: &[u8; 32], sender: usize, receiver: usize) -> [u8; 32] {
    let mut input = session.to_vec();
    input.extend_from_slice(&(sender as u64).to_le_bytes());
    input.extend_from_slice(&(receiver as u64).to_le_bytes());
    blake3::derive_key(PAIR_DOMAIN, &input)
}

/// Runs `first` then `second` if this party has the lower id of the pair, else the other
/// way round, so both ends of a pair take the two directions in the same order.
fn in_turn<X: ?Sized, T, U>(
    me: usize,
    peer: usize,
    x: &mut X,
    lower_first: impl FnOnce(&mut X) -> Result<T, NpartyError>,
    higher_first: impl FnOnce(&mut X) -> Result<U, NpartyError>,
) -> Result<(T, U), NpartyError> {
    if me < peer {
        let t = lower_first(x)?;
        Ok((t, higher_first(x)?))
    } else {
        let u = higher_first(x)?;
        Ok((lower_first(x)?, u))
    }
}

impl Correlations {
    /// Runs the base OTs with every peer at once (both directions per pair) and keeps the
    /// extensions. `delta` is this party's Δ (its free-XOR offset in BMR); `session` the
    /// run's session id, the same at every party.
    pub fn setup(
        mesh: &mut Mesh,
        session: &[u8; 32],
        delta: Block,
        rng: &mut Rng,
    ) -> Result<Self, NpartyError> {
        let me = mesh.me();
        let mut seeds: Vec<Option<[u8; 32]>> = (0..mesh.parties())
            .map(|j| (j != me).then(|| rng.gen()))
            .collect();
        mesh.set_phase("the base oblivious transfers");
        let pairs = mesh.pairwise_with(&mut seeds, |j, ch, seed| {
            let mut rng = Rng::from_seed(*seed);
            let ot = |e| NpartyError::Ot { party: j, source: e };
            // One set of base OTs per pair: the lower id extends from them as sender, and
            // 128 random OTs of that extension, the higher id choosing with the bits of its
            // Δ, are the base OTs of the other direction.
            if me < j {
                let session = pair_session(session, me, j);
                let mut out = OtSender::setup_with_secret(ch, &session, delta, &mut rng).map_err(ot)?;
                let mut base = out.send_random(ch, BASE_OTS).map_err(ot)?;
                let inn = OtReceiver::from_base_pairs(&base);
                base.iter_mut().for_each(|(k0, k1)| {
                    k0.as_bytes_mut().zeroize();
                    k1.as_bytes_mut().zeroize();
                });
                Ok(Pair { out, inn })
            } else {
                let session = pair_session(session, j, me);
                let mut inn = OtReceiver::setup(ch, &session, &mut rng).map_err(ot)?;
                let mut base = inn
                    .receive_random(ch, &OtSender::base_choices(delta))
                    .map_err(ot)?;
                let out = OtSender::from_base_keys(delta, &base);
                base.iter_mut().for_each(|k| k.as_bytes_mut().zeroize());
                Ok(Pair { out, inn })
            }
        })?;
        Ok(Correlations { me, delta, pairs })
    }

    /// This party's Δ.
    pub fn delta(&self) -> Block {
        self.delta
    }

    /// XOR shares of Δ_k · x_t for every party k and every bit x_t = ⊕_parties bits_t:
    /// returns `shares[k][t]`. Every party passes its own shares `bits` of the same length.
    ///
    /// Party k's Δ-COT with receiver j gives k q and j q ⊕ bits^j·Δ_k, so
    /// [Δ_k·x]^k = Δ_k·bits^k ⊕ ⊕_j q_j and [Δ_k·x]^j = q ⊕ bits^j·Δ_k.
    pub fn delta_products(&mut self, mesh: &mut Mesh, bits: &[bool]) -> Result<Vec<Vec<Block>>, NpartyError> {
        let me = self.me;
        mesh.set_phase("the Δ-correlated oblivious transfers");
        let got = mesh.pairwise_with(&mut self.pairs, |j, ch, pair| {
            let ot = |e| NpartyError::Ot { party: j, source: e };
            in_turn(
                me,
                j,
                &mut (ch, pair),
                |(ch, pair)| pair.out.send_delta_cot(*ch, bits.len()).map_err(ot),
                |(ch, pair)| pair.inn.receive_delta_cot(*ch, bits).map_err(ot),
            )
        })?;
        let mut own: Vec<Block> = bits.iter().map(|&b| self.delta.and_bit(b)).collect();
        let mut shares = Vec::with_capacity(got.len());
        for g in got {
            match g {
                Some((q, t)) => {
                    for (o, q) in own.iter_mut().zip(q) {
                        *o ^= q;
                    }
                    shares.push(t);
                }
                None => shares.push(Vec::new()),
            }
        }
        shares[me] = own;
        Ok(shares)
    }

    /// This party's XOR shares of x_t·y_t for XOR-shared bits (each party passes its shares
    /// `x`, `y`, all of one length). The cross term x^i·y^j of every ordered pair is one
    /// random OT (i chooses with x^i) and a correction bit e = lsb(r0) ⊕ lsb(r1) ⊕ y^j from
    /// j: i's share lsb(r_x) ⊕ x·e, j's share lsb(r0).
    pub fn and_shares(&mut self, mesh: &mut Mesh, x: &[bool], y: &[bool]) -> Result<Vec<bool>, NpartyError> {
        assert_eq!(x.len(), y.len(), "one y per x");
        let me = self.me;
        let m = x.len();
        mesh.set_phase("the products of shared bits");
        let got = mesh.pairwise_with(&mut self.pairs, |j, ch, pair| {
            let ot = |e| NpartyError::Ot { party: j, source: e };
            let as_sender =
                |(ch, pair): &mut (&mut dyn Channel, &mut Pair)| -> Result<Vec<bool>, NpartyError> {
                    let r = pair.out.send_random(*ch, m).map_err(ot)?;
                    let e: Vec<bool> = r
                        .iter()
                        .zip(y)
                        .map(|((r0, r1), &y)| r0.lsb() ^ r1.lsb() ^ y)
                        .collect();
                    send_frame(*ch, Tag::Openings, &pack(&e)).map_err(peer(j))?;
                    ch.flush().map_err(peer(j))?;
                    Ok(r.iter().map(|(r0, _)| r0.lsb()).collect())
                };
            let as_receiver =
                |(ch, pair): &mut (&mut dyn Channel, &mut Pair)| -> Result<Vec<bool>, NpartyError> {
                    let r = pair.inn.receive_random(*ch, x).map_err(ot)?;
                    let e = recv_bits(*ch, j, m)?;
                    Ok(r.iter()
                        .zip(x)
                        .zip(e)
                        .map(|((r, &x), e)| r.lsb() ^ (x & e))
                        .collect())
                };
            let (s, r) = in_turn(me, j, &mut (ch, pair), as_sender, as_receiver)?;
            Ok(s.into_iter().zip(r).map(|(a, b)| a ^ b).collect::<Vec<bool>>())
        })?;
        let mut z: Vec<bool> = x.iter().zip(y).map(|(&a, &b)| a & b).collect();
        for g in got.into_iter().flatten() {
            for (z, g) in z.iter_mut().zip(g) {
                *z ^= g;
            }
        }
        Ok(z)
    }

    /// `count` Boolean Beaver triples: this party's shares of random a, b and of a·b.
    pub fn triples(&mut self, mesh: &mut Mesh, count: usize, rng: &mut Rng) -> Result<Triples, NpartyError> {
        let a: Vec<bool> = (0..count).map(|_| rng.gen()).collect();
        let b: Vec<bool> = (0..count).map(|_| rng.gen()).collect();
        let c = self.and_shares(mesh, &a, &b)?;
        Ok(Triples { a, b, c })
    }
}

/// This party's shares of Beaver triples: c_t = a_t·b_t once all parties' shares are XORed.
#[derive(Clone, Debug, Default)]
pub struct Triples {
    pub a: Vec<bool>,
    pub b: Vec<bool>,
    pub c: Vec<bool>,
}

/// Exactly `m` packed bits in one frame from `party`.
pub(crate) fn recv_bits(ch: &mut dyn Channel, party: usize, m: usize) -> Result<Vec<bool>, NpartyError> {
    let len = m.div_ceil(8);
    let got = recv_frame(ch, Tag::Openings, len).map_err(peer(party))?;
    if got.len() != len {
        return Err(NpartyError::Peer {
            party,
            source: PeerMisbehaved::WrongLength {
                tag: Tag::Openings,
                len: got.len(),
                expected: len,
            }
            .into(),
        });
    }
    Ok(unpack(&got, m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory_mesh;
    use mixgc_core::new_rng;

    /// Runs `f` as every party of an in-memory mesh of `n`, each on its own thread.
    pub(crate) fn as_parties<T: Send>(n: usize, f: impl Fn(&mut Mesh, &mut Rng) -> T + Sync) -> Vec<T> {
        let f = &f;
        std::thread::scope(|s| {
            let hs: Vec<_> = memory_mesh(n)
                .into_iter()
                .map(|mut m| {
                    s.spawn(move || {
                        let mut rng = new_rng(Some(5), m.me() as u64);
                        f(&mut m, &mut rng)
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    fn xor_all(v: &[Vec<bool>]) -> Vec<bool> {
        (0..v[0].len())
            .map(|t| v.iter().fold(false, |a, s| a ^ s[t]))
            .collect()
    }

    #[test]
    fn products_of_shared_bits_and_deltas_recombine() {
        for n in [2, 3, 5] {
            let m = 300;
            let out = as_parties(n, |mesh, rng| {
                let delta = Block::random(rng);
                let mut c = Correlations::setup(mesh, &[7; 32], delta, rng).unwrap();
                let x: Vec<bool> = (0..m).map(|_| rng.gen()).collect();
                let y: Vec<bool> = (0..m).map(|_| rng.gen()).collect();
                let z = c.and_shares(mesh, &x, &y).unwrap();
                let d = c.delta_products(mesh, &x).unwrap();
                let t = c.triples(mesh, 200, rng).unwrap();
                (delta, x, y, z, d, t)
            });
            let x = xor_all(&out.iter().map(|o| o.1.clone()).collect::<Vec<_>>());
            let y = xor_all(&out.iter().map(|o| o.2.clone()).collect::<Vec<_>>());
            let z = xor_all(&out.iter().map(|o| o.3.clone()).collect::<Vec<_>>());
            assert!((0..m).all(|t| z[t] == x[t] & y[t]), "n = {n}");
            for k in 0..n {
                for (t, &x) in x.iter().enumerate() {
                    let sum = out.iter().fold(Block::ZERO, |a, o| a ^ o.4[k][t]);
                    assert_eq!(sum, out[k].0.and_bit(x), "n = {n}, Δ_{k}, bit {t}");
                }
            }
            let a = xor_all(&out.iter().map(|o| o.5.a.clone()).collect::<Vec<_>>());
            let b = xor_all(&out.iter().map(|o| o.5.b.clone()).collect::<Vec<_>>());
            let c = xor_all(&out.iter().map(|o| o.5.c.clone()).collect::<Vec<_>>());
            assert!((0..200).all(|t| c[t] == a[t] & b[t]));
            assert!(a.iter().any(|&v| v) && a.iter().any(|&v| !v));
        }
    }
}
