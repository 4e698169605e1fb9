//! Multi-party lookup tables of size 2 (seed §4): the masked-table preprocessing of
//! Figure 6 (functionality of Figure 4) and the online lookup of Figure 8 (functionality of
//! Figure 5), vectorized over the N slots of the packed ciphertexts.
//!
//! **Layout (the rotation-free variant the issue asks for).** Table j (j < k ≤ N) is the
//! pair (T_j[0], T_j[1]); entry b of every table lives in slot j of ciphertext c_b. Figure 6
//! keeps both entries in one ciphertext and swaps them by rotations, which need collective
//! Galois keys that `fhe` 0.1.1 lacks; here party i swaps the two ciphertexts slot-wise by
//! its mask bits s = r_i with plaintext products: d = c_1 − c_0, c_0' = c_0 + s·d,
//! c_1' = c_1 − s·d.
//!
//! **Preprocessing (Figure 6), a chain 0 → 1 → … → n−1.**
//! 1. Every party samples its mask bits r_i ∈ {0,1}^k (step 1: r = ⊕ r_i is XOR-shared).
//! 2. Case 1 (public T): party 0 encrypts the tables already swapped by its own r_0 (it
//!    knows T and r_0, so its swap costs no noise). Case 2 (private, additively shared T):
//!    every party encrypts its shares, the encryptions are summed along the chain into
//!    party 0 ([`crate::chain`]), and party 0 swaps homomorphically like the others.
//! 3. Party i (i ≥ 1) receives (c_0, c_1) from party i − 1, swaps them by r_i, adds a fresh
//!    encryption of zero to each (step 3(d), the figure's CP) and passes them on; party
//!    n − 1 passes the second polynomials along the chain to every party and the first
//!    ones to party 0, E2A's root.
//! 4. E2A (Figure 15, [`ThresholdKeys::to_shares`]) of both ciphertexts: every party holds
//!    additive shares of T'_j[b] = T_j[r_j ⊕ b] and its XOR share of r_j (step 5).
//!
//! **Why the next party learns nothing of r_i (step 3(d)).** After the re-randomization
//! c_b' = (swap of c) + Enc_pk(0) with fresh randomness, so under RLWE (the CPA security of
//! the collective key, whose secret no coalition of n − 1 parties holds) c_b' is
//! indistinguishable from a fresh encryption of its plaintext for every coalition without
//! the honest party: in particular from the pair with r_i flipped. Without it, c_0' − c_0 =
//! s·d would reveal s by a division in R_q. What re-randomization by public-key encryption
//! does not hide is the noise, which depends on s; the noise is only ever exposed by a
//! decryption, and the only decryptions of these ciphertexts are the E2A's (here and in a
//! refresh), whose flooding hides noise up to 2^([`MAX_NOISE_BITS`]) at 40 bits
//! ([`crate::conversions::flooding_hides`], checked by a test). That plays the role of the
//! seed's circuit privacy.
//!
//! **Noise and refreshes (deviation, argued).** Each homomorphic swap multiplies the noise
//! by the mask polynomial, whose coefficients are uniform mod p: measured +42 bits per swap
//! (fresh ≈ 2^13, one swap ≈ 2^50, two ≈ 2^91, three ≈ 2^135, four ≈ 2^178) against
//! q ≈ 2^218. The seed refreshes by bootstrapping (§4.1, §7.1), which `fhe` 0.1.1 does not
//! have; here, after [`SWAPS_PER_REFRESH`] homomorphic swaps, the pair is refreshed by
//! E2A then a re-encryption of the shares under a common random polynomial (fresh noise;
//! Mouchet et al.'s collective refresh). So with n ≤ 3 (Case 1) the chain
//! needs no refresh and every party's traffic is constant; beyond it every party takes part
//! in about (n − 1)/2 − 1 refreshes, and its traffic grows linearly in n (measured in
//! `docs/mixed-mode.md`). Larger parameters (N = 16384, log q ≈ 438) would allow about 9
//! swaps between refreshes.
//!
//! **Online lookup (Figure 8).** With XOR shares x_i of index bits x, every party sends
//! u_i = x_i ⊕ r_i; u = ⊕ u_i is aggregated along the chain into party 0 and passed back
//! (one packed bit vector out and in per party), and every party outputs its share of
//! T'[u] = T[r ⊕ x ⊕ r] = T[x].

use std::sync::Arc;

use fhe::bfv::{BfvParameters, Ciphertext};
use fhe_math::rq::{Poly, Representation};
use fhe_rand::{CryptoRng, Rng, RngCore};
use fhe_traits::Serialize;
use mixgc_net::Tag;
use mixgc_nparty::Mesh;

use crate::chain::{pass_from_root, sum_to_root};
use crate::conversions::scaled_plaintext;
use crate::keygen::{malformed, recv_poly};
use crate::ops::{encode, mul_plain, recv_ciphertext, send_ciphertext};
use crate::wire::{encode_ciphertext, zero_secret_key};
use crate::{MixedError, ThresholdKeys};

/// Domain separation of the refresh's common random polynomials.
const REFRESH_CRP_CONTEXT: &str = "mixgc-mixed 2026-11 lookup-table refresh common random polynomial";

/// Homomorphic swaps a ciphertext pair may take before it is refreshed (see the module
/// docs: two swaps leave the noise near 2^91, below [`MAX_NOISE_BITS`]).
pub const SWAPS_PER_REFRESH: usize = 2;

/// The noise (bits per coefficient) this module lets a ciphertext reach before a
/// decryption: two swaps (measured ≈ 91 bits) with margin. E2A's flooding hides it for
/// every n ≤ 2^20 (a test checks `flooding_hides` at this width).
pub const MAX_NOISE_BITS: u64 = 100;

/// The tables to mask: entry b of table j is `entries[b][j]` (both vectors of one length
/// k ≤ N, every value < p).
#[derive(Clone, Copy, Debug)]
pub enum Tables<'a> {
    /// Case 1: public tables, the same at every party.
    Public { entries: [&'a [u64]; 2] },
    /// Case 2: private tables; each party passes its additive shares mod p.
    Private { entry_shares: [&'a [u64]; 2] },
}

impl Tables<'_> {
    fn entries(&self) -> [&[u64]; 2] {
        match *self {
            Tables::Public { entries } => entries,
            Tables::Private { entry_shares } => entry_shares,
        }
    }
}

/// This party's part of k masked size-2 tables (the output of Figure 6): its XOR share of
/// every mask bit r_j and its additive shares of T'_j[b] = T_j[r_j ⊕ b]. Each table serves
/// one lookup ([`lookup`] consumes them).
#[derive(Clone, Debug)]
pub struct MaskedTables {
    mask: Vec<u8>,
    entries: [Vec<u64>; 2],
}

impl MaskedTables {
    /// The number of tables.
    pub fn len(&self) -> usize {
        self.mask.len()
    }

    /// Whether there are no tables.
    pub fn is_empty(&self) -> bool {
        self.mask.is_empty()
    }

    /// This party's XOR shares r_i of the mask bits (each 0 or 1).
    pub fn mask_share(&self) -> &[u8] {
        &self.mask
    }

    /// This party's additive shares of T'[0] and T'[1] (mod p).
    pub fn entry_shares(&self) -> [&[u64]; 2] {
        [&self.entries[0], &self.entries[1]]
    }
}

/// `s` ∈ {0,1}^k as a plaintext mask, applied to the pair: (c_0 + s·d, c_1 − s·d) with
/// d = c_1 − c_0 swaps the slots where s is 1.
fn swap(par: &Arc<BfvParameters>, pair: [Ciphertext; 2], s: &[u8]) -> Result<[Ciphertext; 2], MixedError> {
    let mask: Vec<u64> = s.iter().map(|&b| u64::from(b)).collect();
    let sd = mul_plain(par, &(&pair[1] - &pair[0]), &mask)?;
    Ok([&pair[0] + &sd, &pair[1] - &sd])
}

impl ThresholdKeys {
    /// `ct` plus a fresh encryption of zero under the collective key (Figure 6, step 3(d)).
    fn rerandomize<R: RngCore + CryptoRng>(
        &self,
        ct: &Ciphertext,
        rng: &mut R,
    ) -> Result<Ciphertext, MixedError> {
        Ok(ct + &self.encrypt(&[], rng)?)
    }

    /// Masked size-2 tables (seed Figure 6, Case 1 or 2; see the module docs): every party
    /// calls it at once with tables of the same length k ≤ N.
    pub fn masked_tables<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        tables: Tables<'_>,
        rng: &mut R,
    ) -> Result<MaskedTables, MixedError> {
        let par = self.parameters().clone();
        let [t0, t1] = tables.entries();
        if t0.len() != t1.len() {
            return Err(MixedError::Usage(format!(
                "the two entry vectors of the tables differ in length: {} and {}",
                t0.len(),
                t1.len()
            )));
        }
        // encode() checks k ≤ N and every value < p before anything is sent.
        encode(&par, t0)?;
        encode(&par, t1)?;
        let k = t0.len();
        let (me, n) = (mesh.me(), mesh.parties());
        let mask: Vec<u8> = (0..k).map(|_| rng.random_range(0..2u8)).collect();

        mesh.set_phase("masked tables: the first party's tables");
        let mut swaps = 0;
        let mut pair: Option<[Ciphertext; 2]> = match tables {
            Tables::Public { .. } => (me == 0)
                .then(|| {
                    let (m0, m1): (Vec<u64>, Vec<u64>) = (0..k)
                        .map(|j| {
                            if mask[j] == 1 {
                                (t1[j], t0[j])
                            } else {
                                (t0[j], t1[j])
                            }
                        })
                        .unzip();
                    Ok::<_, MixedError>([self.encrypt(&m0, rng)?, self.encrypt(&m1, rng)?])
                })
                .transpose()?,
            Tables::Private { .. } => {
                let mine = [self.encrypt(t0, rng)?, self.encrypt(t1, rng)?];
                let sum = self.sum_pair_to_root(mesh, mine)?;
                // Party 0's swap is homomorphic here: it counts towards the refresh at
                // every party.
                swaps = 1;
                match sum {
                    Some(pair) => {
                        let [a, b] = swap(&par, pair, &mask)?;
                        Some([self.rerandomize(&a, rng)?, self.rerandomize(&b, rng)?])
                    }
                    None => None,
                }
            }
        };

        mesh.set_phase("masked tables: the permutation chain");
        // `everyone` is true right after a refresh, when every party holds the pair.
        let mut everyone = false;
        for i in 1..n {
            if swaps == SWAPS_PER_REFRESH {
                pair = Some(self.refresh_pair(mesh, i - 1, pair.take(), rng)?);
                mesh.set_phase("masked tables: the permutation chain");
                everyone = true;
                swaps = 0;
            }
            if !everyone {
                if me == i - 1 {
                    let [a, b] = pair.take().ok_or_else(|| holder_lost(i - 1))?;
                    send_ciphertext(mesh, i, &a)?;
                    send_ciphertext(mesh, i, &b)?;
                    mesh.flush()?;
                } else if me == i {
                    pair = Some([
                        recv_ciphertext(mesh, i - 1, &par)?,
                        recv_ciphertext(mesh, i - 1, &par)?,
                    ]);
                }
            }
            if me == i {
                let swapped = swap(&par, pair.take().ok_or_else(|| holder_lost(i))?, &mask)?;
                pair = Some([
                    self.rerandomize(&swapped[0], rng)?,
                    self.rerandomize(&swapped[1], rng)?,
                ]);
            } else {
                pair = None;
            }
            everyone = false;
            swaps += 1;
        }

        mesh.set_phase("masked tables: the result passed on");
        let [c0, c1] = self.spread_for_e2a(mesh, n - 1, pair)?;
        let mut entries = [self.to_shares(mesh, &c0, rng)?, self.to_shares(mesh, &c1, rng)?];
        for e in &mut entries {
            e.truncate(k);
        }
        Ok(MaskedTables { mask, entries })
    }

    /// The pair held by `holder` (its `Some`) refreshed: passed to every party, turned into
    /// additive shares (E2A, flooded) and re-encrypted ([`Self::reencrypt`]): the same
    /// plaintexts with fresh noise, at every party. The seed refreshes by bootstrapping
    /// instead (§7.1).
    fn refresh_pair<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        holder: usize,
        pair: Option<[Ciphertext; 2]>,
        rng: &mut R,
    ) -> Result<[Ciphertext; 2], MixedError> {
        mesh.set_phase("masked tables: refresh");
        let [c0, c1] = self.spread_for_e2a(mesh, holder, pair)?;
        let s0 = self.to_shares(mesh, &c0, rng)?;
        let s1 = self.to_shares(mesh, &c1, rng)?;
        Ok([
            self.reencrypt(mesh, &s0, &c0, rng)?,
            self.reencrypt(mesh, &s1, &c1, rng)?,
        ])
    }

    /// A2E with a common random second polynomial (Mouchet et al.'s collective refresh,
    /// its re-encryption half): for a' drawn from the session's CRP seed and `old`'s c1
    /// (the same at every party, fresh for every refreshed ciphertext), party i sends
    /// h_i = −s_i·a' + Δ·M_i + e_i (M_i its share); (Σ h_i, a') decrypts to Σ M_i with
    /// noise Σ e_i, since c0 + s·a' = Δ·Σ M_i + Σ e_i. h_i is an RLWE sample in a' under
    /// s_i, so it hides M_i. The h_i are summed along the chain into party 0 and the sum
    /// passed back: one polynomial out and in per party, against two ciphertexts for
    /// [`ThresholdKeys::from_shares`].
    fn reencrypt<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        share: &[u64],
        old: &Ciphertext,
        rng: &mut R,
    ) -> Result<Ciphertext, MixedError> {
        let par = self.parameters().clone();
        let ctx = par.context_at_level(0)?;
        let mut seed = blake3::Hasher::new_derive_key(REFRESH_CRP_CONTEXT);
        seed.update(self.crp_seed());
        seed.update(&old[1].to_bytes());
        let a = Poly::random_from_seed(ctx, Representation::Ntt, *seed.finalize().as_bytes());
        let mut h = scaled_plaintext(&par, &zero_secret_key(&par)?, share, rng)?;
        let mut sa = (*self.secret_poly()?).clone();
        sa *= &a;
        h -= &sa;
        let total = self.sum_polys_to(mesh, 0, h, "refresh share")?;
        let c0 = pass_from_root(
            mesh,
            0,
            total,
            |mesh, from| recv_poly(mesh, from, &par, "refreshed ciphertext"),
            |p| Ok(p.to_bytes()),
        )?;
        Ok(Ciphertext::new(vec![c0, a], &par)?)
    }

    /// Gives every party what E2A ([`ThresholdKeys::to_shares`]) needs of `holder`'s pair
    /// (its `Some`): the second polynomials c1 travel along the chain from `holder` (every
    /// party's decryption share needs them), the first ones c0 go from `holder` to party 0
    /// alone (E2A's root, the only party that uses them). Elsewhere c0 is returned as zero,
    /// which E2A at a non-root party never reads. This halves the pass of whole
    /// ciphertexts.
    fn spread_for_e2a(
        &self,
        mesh: &mut Mesh,
        holder: usize,
        pair: Option<[Ciphertext; 2]>,
    ) -> Result<[Ciphertext; 2], MixedError> {
        let par = self.parameters().clone();
        let (c0s, c1s) = match pair {
            Some([a, b]) => (
                Some([a[0].clone(), b[0].clone()]),
                [Some(a[1].clone()), Some(b[1].clone())],
            ),
            None => (None, [None, None]),
        };
        let mut c1 = Vec::with_capacity(2);
        for c in c1s {
            c1.push(pass_from_root(
                mesh,
                holder,
                c,
                |mesh, from| recv_poly(mesh, from, &par, "table ciphertext"),
                |p| Ok(p.to_bytes()),
            )?);
        }
        let me = mesh.me();
        let c0: [Poly; 2] = match c0s {
            Some(c0) if me == 0 => c0,
            Some(c0) => {
                for p in &c0 {
                    mesh.send(0, Tag::Openings, &p.to_bytes())?;
                }
                mesh.flush()?;
                zero_pair(&par)?
            }
            None if me == 0 => [
                recv_poly(mesh, holder, &par, "table ciphertext")?,
                recv_poly(mesh, holder, &par, "table ciphertext")?,
            ],
            None => zero_pair(&par)?,
        };
        let [c0a, c0b] = c0;
        let mut c1 = c1.into_iter();
        let (c1a, c1b) = (c1.next(), c1.next());
        match (c1a, c1b) {
            (Some(c1a), Some(c1b)) => Ok([
                Ciphertext::new(vec![c0a, c1a], &par)?,
                Ciphertext::new(vec![c0b, c1b], &par)?,
            ]),
            _ => Err(holder_lost(holder)),
        }
    }

    /// Sums every party's pair along the chain into party 0 (Case 2, Figure 6 step 2).
    fn sum_pair_to_root(
        &self,
        mesh: &mut Mesh,
        mine: [Ciphertext; 2],
    ) -> Result<Option<[Ciphertext; 2]>, MixedError> {
        let par = self.parameters().clone();
        let [a, b] = mine;
        let recv = |mesh: &mut Mesh, from: usize| recv_ciphertext(mesh, from, &par);
        let encode = |ct: &Ciphertext| encode_ciphertext(ct).map_err(MixedError::Usage);
        let add = |x: Ciphertext, y: &Ciphertext| &x + y;
        let a = sum_to_root(mesh, 0, a, recv, add, encode)?;
        let b = sum_to_root(mesh, 0, b, recv, add, encode)?;
        Ok(a.zip(b).map(|(a, b)| [a, b]))
    }
}

/// Two zero polynomials (NTT form, full modulus): the c0 a non-root party never reads.
fn zero_pair(par: &Arc<BfvParameters>) -> Result<[Poly; 2], MixedError> {
    let ctx = par.context_at_level(0)?;
    Ok([
        Poly::zero(ctx, Representation::Ntt),
        Poly::zero(ctx, Representation::Ntt),
    ])
}

/// An internal invariant broke: the chain's current holder has no pair.
fn holder_lost(party: usize) -> MixedError {
    MixedError::Usage(format!(
        "internal: party {party} should hold the tables in the permutation chain"
    ))
}

/// The online lookup (seed Figure 8) of `index` (this party's XOR shares of one index bit
/// per table, each 0 or 1; at most as many as tables) in `tables`: every party calls it at
/// once and gets its additive share of T_j[x_j] mod p for every j < `index.len()`.
pub fn lookup(mesh: &mut Mesh, tables: MaskedTables, index: &[u8]) -> Result<Vec<u64>, MixedError> {
    if index.len() > tables.len() {
        return Err(MixedError::Usage(format!(
            "{} index bits for {} masked tables",
            index.len(),
            tables.len()
        )));
    }
    if let Some(j) = index.iter().position(|&b| b > 1) {
        return Err(MixedError::Usage(format!(
            "index share {j} is {}, not a bit",
            index[j]
        )));
    }
    mesh.set_phase("table lookup: opening x ⊕ r");
    let mine: Vec<u8> = index.iter().zip(&tables.mask).map(|(x, r)| x ^ r).collect();
    let u = open_bits(mesh, mine)?;
    Ok(u.iter()
        .enumerate()
        .map(|(j, &b)| tables.entries[usize::from(b)][j])
        .collect())
}

/// Opens XOR-shared bits: the shares are XORed along the chain into party 0, which passes
/// the result back ([`crate::chain`]); every party returns ⊕ of all `mine`.
pub(crate) fn open_bits(mesh: &mut Mesh, mine: Vec<u8>) -> Result<Vec<u8>, MixedError> {
    let k = mine.len();
    let bytes = k.div_ceil(8);
    let recv = move |mesh: &mut Mesh, from: usize| {
        let packed = mesh.recv_exact(from, Tag::Openings, bytes)?;
        unpack_bits(&packed, k).map_err(|why| malformed(mesh, from, "packed bits", why))
    };
    let encode = |bits: &Vec<u8>| Ok(pack_bits(bits));
    let xor = |mut a: Vec<u8>, b: &Vec<u8>| {
        a.iter_mut().zip(b).for_each(|(x, y)| *x ^= y);
        a
    };
    let total = sum_to_root(mesh, 0, mine, recv, xor, encode)?;
    pass_from_root(mesh, 0, total, recv, encode)
}

/// Bits (each 0 or 1) packed eight to a byte, least significant first.
fn pack_bits(bits: &[u8]) -> Vec<u8> {
    bits.chunks(8)
        .map(|c| c.iter().enumerate().fold(0u8, |a, (i, &b)| a | (b << i)))
        .collect()
}

/// `k` bits from [`pack_bits`]'s bytes; the padding bits of the last byte must be 0.
fn unpack_bits(packed: &[u8], k: usize) -> Result<Vec<u8>, String> {
    if packed.len() != k.div_ceil(8) {
        return Err(format!("{} bytes for {k} bits", packed.len()));
    }
    if !k.is_multiple_of(8) && packed[k / 8] >> (k % 8) != 0 {
        return Err("padding bits set past the last bit".into());
    }
    Ok((0..k).map(|j| (packed[j / 8] >> (j % 8)) & 1).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversions::{flooding_bound, flooding_hides};
    use crate::params::parameters;

    #[test]
    fn bits_pack_and_unpack() {
        for k in [0, 1, 7, 8, 9, 100] {
            let bits: Vec<u8> = (0..k).map(|j| ((j * 7 + 3) % 5 % 2) as u8).collect();
            assert_eq!(unpack_bits(&pack_bits(&bits), k).unwrap(), bits);
        }
        assert!(unpack_bits(&[0b1000_0000], 7).is_err());
        assert!(unpack_bits(&[0, 0], 7).is_err());
    }

    #[test]
    fn flooding_hides_the_noise_allowed_between_refreshes() {
        let par = parameters();
        for n in [2, 5, 16, 1 << 20] {
            let bound = flooding_bound(&par, n).unwrap();
            assert!(flooding_hides(&par, &bound, MAX_NOISE_BITS), "n = {n}");
        }
    }
}
