//! Multi-party lookup tables of size 2 and 2^m ≤ 16 (seed §4): the masked-table preprocessing of
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
//! at N = 8192 (fresh ≈ 2^13, one swap ≈ 2^50, two ≈ 2^91) and +51 bits at N = 16384 (a
//! product by a ±1 mask, fresh ≈ 2^15). The seed refreshes by bootstrapping (§4.1, §7.1),
//! which `fhe` 0.1.1 does not have; here, after [`SWAPS_PER_REFRESH`] homomorphic swaps,
//! the pair is refreshed by E2A then a re-encryption of the shares under a common random
//! polynomial (fresh noise; Mouchet et al.'s collective refresh). Every party takes part in
//! a refresh, so a chain of n parties costs each party traffic linear in n. **Public tables
//! of size 2 (B2A) no longer use this chain** where the XOR tree fits (n ≤ 64): see
//! [`crate::xor_tables`] and [`crate::sign_tree`]; private tables and tables of more than
//! two entries still do. (At N = 16384 about five swaps would fit between refreshes; two are
//! kept, so that the refresh stays exercised by the tests at n = 5.)
//!
//! **Tables of M = 2^m entries** (up to [`MAX_TABLE_SIZE`]): the same chain with M
//! ciphertexts (entry v of every table in ciphertext c_v) and masks r_i ∈ [0, M); party i
//! maps c'_v = Σ_w [r_i = w]·c_{v ⊕ w} (M² products by indicator masks, no rotation), so
//! T'[v] = T[r ⊕ v] with r = ⊕ r_i. Each step adds about one product's noise plus
//! log2(M)/2 bits, so [`SWAPS_PER_REFRESH`] stays valid. The seed's Figure 7 does the
//! same with rotations of one packed table; this is its rotation-free variant, with M
//! ciphertexts per batch per party instead of one.
//!
//! **Online lookup (Figure 8).** With XOR shares x_i of m-bit indices x, every party
//! sends u_i = x_i ⊕ r_i; u = ⊕ u_i is aggregated along the chain into party 0 and passed
//! back (one vector packed m bits per index, out and in per party), and every party outputs its share of
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
use crate::sign_tree::tree_fits;
use crate::wire::{encode_ciphertext, zero_secret_key};
use crate::{MixedError, ThresholdKeys};

/// Domain separation of the refresh's common random polynomials.
const REFRESH_CRP_CONTEXT: &str = "mixgc-mixed 2026-11 lookup-table refresh common random polynomial";

/// Homomorphic swaps a ciphertext pair may take before it is refreshed (see the module
/// docs: two swaps leave the noise near 2^117 at N = 16384, below [`MAX_NOISE_BITS`]).
pub const SWAPS_PER_REFRESH: usize = 2;

/// The noise (bits per coefficient) this module lets a ciphertext reach before a
/// decryption: two swaps (≈ 2·51 bits over fresh ≈ 2^15, plus 2 bits for 16-entry tables)
/// with margin. E2A's flooding hides it for every n ≤ 2^20 (a test checks
/// `flooding_hides` at this width).
pub const MAX_NOISE_BITS: u64 = 130;

/// The largest table size M = 2^m [`ThresholdKeys::masked_tables`] takes: a general
/// permutation step costs M² plaintext products and M ciphertexts per party.
pub const MAX_TABLE_SIZE: usize = 16;

/// The tables to mask: entry v of table j is `entries[v][j]` (M = 2^m vectors, 2 ≤ M ≤
/// [`MAX_TABLE_SIZE`], all of one length k ≤ N, every value < p).
#[derive(Clone, Copy, Debug)]
pub enum Tables<'a> {
    /// Case 1: public tables, the same at every party.
    Public { entries: &'a [&'a [u64]] },
    /// Case 2: private tables; each party passes its additive shares mod p.
    Private { entry_shares: &'a [&'a [u64]] },
}

impl<'a> Tables<'a> {
    fn entries(&self) -> &'a [&'a [u64]] {
        match *self {
            Tables::Public { entries } => entries,
            Tables::Private { entry_shares } => entry_shares,
        }
    }
}

/// This party's part of k masked tables of M = 2^m entries (the output of Figure 6, or of
/// Figure 7's functionality for M > 2): its XOR share r_i of every mask r_j ∈ [0, M) and
/// its additive shares of T'_j[v] = T_j[r_j ⊕ v]. Each table serves one lookup ([`lookup`]
/// consumes them).
#[derive(Clone, Debug)]
pub struct MaskedTables {
    mask: Vec<u8>,
    entries: Vec<Vec<u64>>,
}

impl MaskedTables {
    /// Tables from this party's mask shares and entry shares (entry v at `entries[v]`).
    pub(crate) fn from_parts(mask: Vec<u8>, entries: Vec<Vec<u64>>) -> Self {
        MaskedTables { mask, entries }
    }

    /// The number of tables.
    pub fn len(&self) -> usize {
        self.mask.len()
    }

    /// Whether there are no tables.
    pub fn is_empty(&self) -> bool {
        self.mask.is_empty()
    }

    /// M, the entries per table.
    pub fn table_size(&self) -> usize {
        self.entries.len()
    }

    /// This party's XOR shares r_i of the masks (each < M).
    pub fn mask_share(&self) -> &[u8] {
        &self.mask
    }

    /// This party's additive shares of T'[v] (mod p), for v < M.
    pub fn entry_shares(&self) -> &[Vec<u64>] {
        &self.entries
    }
}

/// The ciphertexts c_v (slot j holding T_j[v]) permuted by the masks `r` (one per slot):
/// c'_v = c_{v ⊕ r} slot-wise. For M = 2 it is the swap (c_0 + s·d, c_1 − s·d),
/// d = c_1 − c_0, one plaintext product; for larger M, c'_v = Σ_w [r = w]·c_{v ⊕ w}, M²
/// products by indicator masks, each adding one product's noise (so a step costs the noise
/// of about one swap, plus log2 M bits).
fn permute(par: &Arc<BfvParameters>, cts: Vec<Ciphertext>, r: &[u8]) -> Result<Vec<Ciphertext>, MixedError> {
    let size = cts.len();
    if size == 2 {
        let mask: Vec<u64> = r.iter().map(|&b| u64::from(b)).collect();
        let sd = mul_plain(par, &(&cts[1] - &cts[0]), &mask)?;
        return Ok(vec![&cts[0] + &sd, &cts[1] - &sd]);
    }
    let mut out: Vec<Option<Ciphertext>> = vec![None; size];
    for w in 0..size {
        let select: Vec<u64> = r.iter().map(|&rj| u64::from(usize::from(rj) == w)).collect();
        for (v, acc) in out.iter_mut().enumerate() {
            let term = mul_plain(par, &cts[v ^ w], &select)?;
            *acc = Some(match acc.take() {
                Some(sum) => &sum + &term,
                None => term,
            });
        }
    }
    out.into_iter()
        .map(|c| c.ok_or_else(|| MixedError::Usage("internal: an empty permutation".into())))
        .collect()
}

/// Checks the tables' shape: M = 2^m entry vectors, 2 ≤ M ≤ [`MAX_TABLE_SIZE`], all of one
/// length, each encodable (at most N values, each < p). Returns (M, k).
fn check_tables(par: &Arc<BfvParameters>, entries: &[&[u64]]) -> Result<(usize, usize), MixedError> {
    let size = entries.len();
    if !size.is_power_of_two() || !(2..=MAX_TABLE_SIZE).contains(&size) {
        return Err(MixedError::Usage(format!(
            "tables of {size} entries: the size must be a power of two from 2 to {MAX_TABLE_SIZE}"
        )));
    }
    let k = entries[0].len();
    if let Some(v) = entries.iter().position(|e| e.len() != k) {
        return Err(MixedError::Usage(format!(
            "the entry vectors of the tables differ in length: {k} for entry 0, {} for entry {v}",
            entries[v].len()
        )));
    }
    for e in entries {
        encode(par, e)?;
    }
    Ok((size, k))
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

    /// `cts` permuted by `mask` ([`permute`]) and re-randomized.
    fn permute_and_rerandomize<R: RngCore + CryptoRng>(
        &self,
        cts: Vec<Ciphertext>,
        mask: &[u8],
        rng: &mut R,
    ) -> Result<Vec<Ciphertext>, MixedError> {
        permute(self.parameters(), cts, mask)?
            .iter()
            .map(|c| self.rerandomize(c, rng))
            .collect()
    }

    /// Masked tables (seed Figure 6 for M = 2, and the same chain for M = 2^m ≤
    /// [`MAX_TABLE_SIZE`]; Case 1 or 2; see the module docs): every party calls it at once
    /// with tables of the same shape.
    pub fn masked_tables<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        tables: Tables<'_>,
        rng: &mut R,
    ) -> Result<MaskedTables, MixedError> {
        let par = self.parameters().clone();
        let entries = tables.entries();
        let (size, k) = check_tables(&par, entries)?;
        let (me, n) = (mesh.me(), mesh.parties());
        if let (Tables::Public { entries }, true) = (tables, size == 2 && tree_fits(n, 0)) {
            return self.masked_public_pairs(mesh, entries[0], entries[1], rng);
        }
        let mask: Vec<u8> = (0..k).map(|_| rng.random_range(0..size) as u8).collect();

        mesh.set_phase("masked tables: the first party's tables");
        let mut swaps = 0;
        let mut held: Option<Vec<Ciphertext>> = match tables {
            Tables::Public { .. } if me == 0 => Some(
                (0..size)
                    .map(|v| {
                        let permuted: Vec<u64> =
                            (0..k).map(|j| entries[v ^ usize::from(mask[j])][j]).collect();
                        self.encrypt(&permuted, rng)
                    })
                    .collect::<Result<_, _>>()?,
            ),
            Tables::Public { .. } => None,
            Tables::Private { .. } => {
                let mine = entries
                    .iter()
                    .map(|e| self.encrypt(e, rng))
                    .collect::<Result<Vec<_>, _>>()?;
                let sum = self.sum_all_to_root(mesh, mine)?;
                // Party 0's permutation is homomorphic here: it counts towards the refresh
                // at every party.
                swaps = 1;
                sum.map(|cts| self.permute_and_rerandomize(cts, &mask, rng))
                    .transpose()?
            }
        };

        mesh.set_phase("masked tables: the permutation chain");
        // `everyone` is true right after a refresh, when every party holds the tables.
        let mut everyone = false;
        for i in 1..n {
            if swaps == SWAPS_PER_REFRESH {
                held = Some(self.refresh_all(mesh, i - 1, size, held.take(), rng)?);
                mesh.set_phase("masked tables: the permutation chain");
                everyone = true;
                swaps = 0;
            }
            if !everyone {
                if me == i - 1 {
                    for c in held.take().ok_or_else(|| holder_lost(i - 1))? {
                        send_ciphertext(mesh, i, &c)?;
                    }
                    mesh.flush()?;
                } else if me == i {
                    held = Some(
                        (0..size)
                            .map(|_| recv_ciphertext(mesh, i - 1, &par))
                            .collect::<Result<_, _>>()?,
                    );
                }
            }
            held = if me == i {
                let cts = held.take().ok_or_else(|| holder_lost(i))?;
                Some(self.permute_and_rerandomize(cts, &mask, rng)?)
            } else {
                None
            };
            everyone = false;
            swaps += 1;
        }

        mesh.set_phase("masked tables: the result passed on");
        let cts = self.spread_for_e2a(mesh, n - 1, size, held)?;
        let mut shares = Vec::with_capacity(size);
        for c in &cts {
            let mut share = self.to_shares(mesh, c, rng)?;
            share.truncate(k);
            shares.push(share);
        }
        Ok(MaskedTables {
            mask,
            entries: shares,
        })
    }

    /// The `size` ciphertexts held by `holder` (its `Some`) refreshed: turned into additive
    /// shares (E2A, flooded) and re-encrypted ([`Self::reencrypt`]): the same plaintexts
    /// with fresh noise, at every party. The seed refreshes by bootstrapping instead (§7.1).
    fn refresh_all<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        holder: usize,
        size: usize,
        held: Option<Vec<Ciphertext>>,
        rng: &mut R,
    ) -> Result<Vec<Ciphertext>, MixedError> {
        mesh.set_phase("masked tables: refresh");
        let cts = self.spread_for_e2a(mesh, holder, size, held)?;
        let mut shares = Vec::with_capacity(size);
        for c in &cts {
            shares.push(self.to_shares(mesh, c, rng)?);
        }
        cts.iter()
            .zip(&shares)
            .map(|(c, s)| self.reencrypt(mesh, s, c, rng))
            .collect()
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

    /// Gives every party what E2A ([`ThresholdKeys::to_shares`]) needs of `holder`'s
    /// `size` ciphertexts (its `Some`): the second polynomials c1 travel along the chain
    /// from `holder` (every party's decryption share needs them), the first ones c0 go from
    /// `holder` to party 0 alone (E2A's root, the only party that reads them). Elsewhere c0
    /// is returned as zero, which E2A at a non-root party never reads. This halves the pass
    /// of whole ciphertexts.
    pub(crate) fn spread_for_e2a(
        &self,
        mesh: &mut Mesh,
        holder: usize,
        size: usize,
        held: Option<Vec<Ciphertext>>,
    ) -> Result<Vec<Ciphertext>, MixedError> {
        let par = self.parameters().clone();
        let (c0s, c1s): (Option<Vec<Poly>>, Vec<Option<Poly>>) = match held {
            Some(cts) => (
                Some(cts.iter().map(|c| c[0].clone()).collect()),
                cts.iter().map(|c| Some(c[1].clone())).collect(),
            ),
            None => (None, vec![None; size]),
        };
        let mut c1 = Vec::with_capacity(size);
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
        let ctx = par.context_at_level(0)?;
        let zeros = || vec![Poly::zero(ctx, Representation::Ntt); size];
        let c0: Vec<Poly> = match c0s {
            Some(c0) if me == 0 => c0,
            Some(c0) => {
                for p in &c0 {
                    mesh.send(0, Tag::Openings, &p.to_bytes())?;
                }
                mesh.flush()?;
                zeros()
            }
            None if me == 0 => (0..size)
                .map(|_| recv_poly(mesh, holder, &par, "table ciphertext"))
                .collect::<Result<_, _>>()?,
            None => zeros(),
        };
        if c0.len() != size {
            return Err(holder_lost(holder));
        }
        c0.into_iter()
            .zip(c1)
            .map(|(a, b)| Ok(Ciphertext::new(vec![a, b], &par)?))
            .collect()
    }

    /// Sums every party's ciphertexts along the chain into party 0 (Case 2, Figure 6 step 2).
    fn sum_all_to_root(
        &self,
        mesh: &mut Mesh,
        mine: Vec<Ciphertext>,
    ) -> Result<Option<Vec<Ciphertext>>, MixedError> {
        let par = self.parameters().clone();
        let recv = |mesh: &mut Mesh, from: usize| recv_ciphertext(mesh, from, &par);
        let encode = |ct: &Ciphertext| encode_ciphertext(ct).map_err(MixedError::Usage);
        let add = |x: Ciphertext, y: &Ciphertext| &x + y;
        let mut sums = Vec::with_capacity(mine.len());
        for c in mine {
            sums.push(sum_to_root(mesh, 0, c, recv, add, encode)?);
        }
        Ok(sums.into_iter().collect())
    }
}

/// An internal invariant broke: the chain's current holder has no tables.
fn holder_lost(party: usize) -> MixedError {
    MixedError::Usage(format!(
        "internal: party {party} should hold the tables in the permutation chain"
    ))
}

/// The online lookup (seed Figure 8) of `index` (this party's XOR shares of one index
/// < M per table; at most as many as tables) in `tables`: every party calls it at once and
/// gets its additive share of T_j[x_j] mod p for every j < `index.len()`. The m-bit
/// openings are packed (m bits per index).
pub fn lookup(mesh: &mut Mesh, tables: MaskedTables, index: &[u8]) -> Result<Vec<u64>, MixedError> {
    let size = tables.table_size();
    if index.len() > tables.len() {
        return Err(MixedError::Usage(format!(
            "{} indices for {} masked tables",
            index.len(),
            tables.len()
        )));
    }
    if let Some(j) = index.iter().position(|&x| usize::from(x) >= size) {
        return Err(MixedError::Usage(format!(
            "index share {j} is {}, not below the table size {size}",
            index[j]
        )));
    }
    let bits = size.trailing_zeros() as usize;
    mesh.set_phase("table lookup: opening x ⊕ r");
    let mine: Vec<u8> = index
        .iter()
        .zip(&tables.mask)
        .flat_map(|(x, r)| (0..bits).map(move |b| ((x ^ r) >> b) & 1))
        .collect();
    let opened = open_bits(mesh, mine)?;
    Ok(opened
        .chunks(bits.max(1))
        .enumerate()
        .map(|(j, u)| {
            let u = u
                .iter()
                .enumerate()
                .fold(0usize, |a, (b, &bit)| a | (usize::from(bit) << b));
            tables.entries[u][j]
        })
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

/// Opens XOR-shared bits to party `root` only: the shares are XORed along the chain into
/// it; `root` returns `Some(⊕ of all mine)`, every other party `None`.
pub(crate) fn open_bits_to(
    mesh: &mut Mesh,
    root: usize,
    mine: Vec<u8>,
) -> Result<Option<Vec<u8>>, MixedError> {
    let k = mine.len();
    let bytes = k.div_ceil(8);
    let recv = move |mesh: &mut Mesh, from: usize| {
        let packed = mesh.recv_exact(from, Tag::Openings, bytes)?;
        unpack_bits(&packed, k).map_err(|why| malformed(mesh, from, "packed bits", why))
    };
    let xor = |mut a: Vec<u8>, b: &Vec<u8>| {
        a.iter_mut().zip(b).for_each(|(x, y)| *x ^= y);
        a
    };
    sum_to_root(mesh, root, mine, recv, xor, |bits| Ok(pack_bits(bits)))
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
