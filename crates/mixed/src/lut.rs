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
//! **Pipelining (seed §7.1).** Any number k of tables travels in chunks of N (one packed
//! ciphertext per entry, the last chunk shorter). Party i permutes chunk c, re-randomizes
//! it, sends it to party i + 1 at once and takes chunk c + 1 from party i − 1, so party
//! i + 1 works on chunk c while party i works on chunk c + 1: with B chunks, L permuters
//! between two refreshes and t the time of one permutation step, a segment takes
//! (B + L − 1)·t on the critical path instead of B·L·t when each party waits for the
//! whole batch, which is what calling this once per N tables does. A refresh (below) needs
//! every party, so the pipeline drains before it and refills after: segments of at most
//! [`SWAPS_PER_REFRESH`] permuters, each pipelined. Bytes and outputs per chunk are those of
//! the unpipelined chain (one chunk is exactly the old protocol).
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
//! by the mask polynomial, whose coefficients are uniform mod p: measured at N = 16384 with
//! `SecretKey::measure_noise` (unit test, one-key copy; a key summed from n ≤ 64 shares adds
//! ≤ 2 bits), from fresh ≈ 2^15, steps re-randomized as here: 51, 95, 140, 185, 229, 274 bits
//! after 1..6 steps for M = 2, 52..280 for M = 4, 53..291 for M = 16 (ignored test; ≈ +45–48
//! bits a step). The seed refreshes by
//! bootstrapping (§4.1, §7.1), which `fhe` 0.1.1 does not have; here, after
//! [`SWAPS_PER_REFRESH`] = 6 homomorphic steps (≤ 2^297 with the margin, below
//! [`MAX_NOISE_BITS`] = 320), the batch is refreshed by E2A then a re-encryption of the
//! shares under a common random polynomial (fresh noise; Mouchet et al.'s collective
//! refresh). Every party takes part in a refresh, so beyond 6 (Case 2) or 7 (Case 1)
//! parties each party's traffic grows by one refresh per six parties. **Public tables of
//! size 2 (B2A), private tables and tables of more than two entries take the XOR sum or
//! tree instead** where its noise budget fits ([`crate::xor_tables`],
//! [`crate::tree_tables`]); the chain is the fallback beyond
//! ([`ThresholdKeys::masked_tables_by_chain`] runs it always).
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

use std::ops::Range;
use std::sync::Arc;

use fhe::bfv::{BfvParameters, Ciphertext};
use fhe_math::rq::{Poly, Representation};
use fhe_rand::{CryptoRng, Rng, RngCore};
use fhe_traits::Serialize;
use mixgc_net::Tag;
use mixgc_nparty::Mesh;

use crate::chain::{pass_from_root, sum_to_all, sum_to_root};
use crate::conversions::scaled_plaintext;
use crate::keygen::{malformed, recv_poly};
use crate::ops::{mul_plain, recv_ciphertext, send_ciphertext};
use crate::sign_tree::tree_fits;
use crate::tree_tables::tree_tables_fit;
use crate::wire::{encode_ciphertext, zero_secret_key};
use crate::{MixedError, ThresholdKeys};

/// Domain separation of the refresh's common random polynomials.
const REFRESH_CRP_CONTEXT: &str = "mixgc-mixed 2026-11 lookup-table refresh common random polynomial";

/// Homomorphic permutation steps a batch may take before it is refreshed: six steps leave
/// the noise near 2^280 at N = 16384 (measured, see the module docs and the unit test),
/// below [`MAX_NOISE_BITS`].
pub const SWAPS_PER_REFRESH: usize = 6;

/// Margin (bits) the tests keep between the measured noise and [`MAX_NOISE_BITS`].
#[cfg(test)]
const STEP_MARGIN_BITS: u64 = 4;

/// The noise (bits per coefficient) this module lets a ciphertext reach before a
/// decryption: the XOR tree's bound ([`crate::sign_tree::MAX_TREE_NOISE_BITS`]), which
/// E2A's flooding hides for every n ≤ 2^20 (a test checks `flooding_hides` at this width).
pub const MAX_NOISE_BITS: u64 = crate::sign_tree::MAX_TREE_NOISE_BITS;

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

    /// `other`'s tables appended after these (the same table size).
    pub(crate) fn append(&mut self, other: MaskedTables) {
        self.mask.extend(other.mask);
        for (mine, theirs) in self.entries.iter_mut().zip(other.entries) {
            mine.extend(theirs);
        }
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
    let p = par.plaintext();
    for (v, e) in entries.iter().enumerate() {
        if let Some(j) = e.iter().position(|&x| x >= p) {
            return Err(MixedError::Usage(format!(
                "entry {v} of table {j} is {}, not below the plaintext modulus {p}",
                e[j]
            )));
        }
    }
    Ok((size, k))
}

/// The slot ranges of the chunks k tables travel in: N tables a chunk (one packed
/// ciphertext per entry), the last one shorter; one empty chunk for k = 0.
fn chunk_ranges(k: usize, slots: usize) -> Vec<Range<usize>> {
    if k == 0 {
        return std::iter::once(0..0).collect();
    }
    (0..k.div_ceil(slots))
        .map(|c| c * slots..((c + 1) * slots).min(k))
        .collect()
}

/// Where the first stage of a chain segment takes its chunks from.
enum ChainSource<'a> {
    /// Case 1 at party 0: the public entries, permuted by its mask in the clear and
    /// encrypted chunk by chunk as the pipeline asks for them.
    Encrypt { entries: &'a [&'a [u64]] },
    /// Ciphertexts this party holds (`Some`) per chunk: Case 2's sums, or a refresh's output.
    Held(Vec<Option<Vec<Ciphertext>>>),
}

impl ChainSource<'_> {
    /// Chunk `c` (its slots `r`), taken out.
    fn take<R: RngCore + CryptoRng>(
        &mut self,
        keys: &ThresholdKeys,
        c: usize,
        r: &Range<usize>,
        mask: &[u8],
        rng: &mut R,
    ) -> Result<Vec<Ciphertext>, MixedError> {
        match self {
            ChainSource::Encrypt { entries } => (0..entries.len())
                .map(|v| {
                    let permuted: Vec<u64> =
                        r.clone().map(|j| entries[v ^ usize::from(mask[j])][j]).collect();
                    keys.encrypt(&permuted, rng)
                })
                .collect(),
            ChainSource::Held(chunks) => chunks.get_mut(c).and_then(Option::take).ok_or_else(|| {
                MixedError::Usage(format!("internal: chunk {c} of the table chain is not held here"))
            }),
        }
    }
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

    /// Masked tables (the functionality of seed Figures 4 and 7; Case 1 or 2; 2 ≤ M = 2^m ≤
    /// [`MAX_TABLE_SIZE`] entries): every party calls it at once with tables of the same
    /// shape, any number k of them (N a batch). Public pairs take the XOR sum
    /// ([`crate::xor_tables`]), private tables and larger ones the indicators of the mask
    /// ([`crate::tree_tables`]) where the noise budget fits
    /// ([`crate::tree_tables::tree_tables_fit`]); the rest the table chain of Figure 6,
    /// pipelined (§7; see the module docs and [`Self::masked_tables_by_chain`]).
    pub fn masked_tables<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        tables: Tables<'_>,
        rng: &mut R,
    ) -> Result<MaskedTables, MixedError> {
        let par = self.parameters().clone();
        let (size, k) = check_tables(&par, tables.entries())?;
        let private = matches!(tables, Tables::Private { .. });
        let n = mesh.parties();
        if let (Tables::Public { entries }, true) = (tables, size == 2 && tree_fits(n, 0)) {
            let mut out = MaskedTables::from_parts(
                Vec::with_capacity(k),
                (0..2).map(|_| Vec::with_capacity(k)).collect(),
            );
            for r in chunk_ranges(k, par.degree()) {
                let part =
                    self.masked_public_pairs(mesh, &entries[0][r.clone()], &entries[1][r.clone()], rng)?;
                out.append(part);
            }
            return Ok(out);
        }
        if (private || size > 2) && tree_tables_fit(n, size, private) {
            let mut out = MaskedTables::from_parts(
                Vec::with_capacity(k),
                (0..size).map(|_| Vec::with_capacity(k)).collect(),
            );
            for r in chunk_ranges(k, par.degree()) {
                let part: Vec<&[u64]> = tables.entries().iter().map(|e| &e[r.clone()]).collect();
                let part = match tables {
                    Tables::Public { .. } => Tables::Public { entries: &part },
                    Tables::Private { .. } => Tables::Private { entry_shares: &part },
                };
                out.append(self.masked_tables_by_tree(mesh, part, rng)?);
            }
            return Ok(out);
        }
        self.masked_tables_by_chain(mesh, tables, rng)
    }

    /// [`Self::masked_tables`] through the table chain always (seed Figure 6, pipelined),
    /// even where the XOR sum or tree would fit: what `masked_tables` falls back to.
    pub fn masked_tables_by_chain<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        tables: Tables<'_>,
        rng: &mut R,
    ) -> Result<MaskedTables, MixedError> {
        self.masked_tables_refreshing(mesh, tables, SWAPS_PER_REFRESH, rng)
    }

    /// [`Self::masked_tables`] with a refresh after every `swaps_per_refresh` (≥ 1,
    /// at most [`SWAPS_PER_REFRESH`]) homomorphic permutations: the tests refresh more
    /// often than the noise asks, to exercise the refresh at small n.
    pub(crate) fn masked_tables_refreshing<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        tables: Tables<'_>,
        swaps_per_refresh: usize,
        rng: &mut R,
    ) -> Result<MaskedTables, MixedError> {
        if !(1..=SWAPS_PER_REFRESH).contains(&swaps_per_refresh) {
            return Err(MixedError::Usage(format!(
                "a refresh every {swaps_per_refresh} permutations: it must be 1 to {SWAPS_PER_REFRESH}"
            )));
        }
        let par = self.parameters().clone();
        let entries = tables.entries();
        let (size, k) = check_tables(&par, entries)?;
        let (me, n) = (mesh.me(), mesh.parties());
        let chunks = chunk_ranges(k, par.degree());
        let mask: Vec<u8> = (0..k).map(|_| rng.random_range(0..size) as u8).collect();

        // Who permutes homomorphically (Case 1: party 0 permutes in the clear as it
        // encrypts), and what the first of them starts from.
        let (permuters, mut from, mut source) = match tables {
            Tables::Public { .. } => {
                let source = if me == 0 {
                    ChainSource::Encrypt { entries }
                } else {
                    ChainSource::Held(vec![None; chunks.len()])
                };
                (1..n, 0, source)
            }
            Tables::Private { .. } => {
                mesh.set_phase("masked tables: the shares' encryptions summed");
                let mut sums = Vec::with_capacity(chunks.len());
                for r in &chunks {
                    let mine = entries
                        .iter()
                        .map(|e| self.encrypt(&e[r.clone()], rng))
                        .collect::<Result<Vec<_>, _>>()?;
                    sums.push(self.sum_all_to_root(mesh, mine)?);
                }
                (0..n, 0, ChainSource::Held(sums))
            }
        };

        // Segments of at most `swaps_per_refresh` permuters, a refresh between two.
        let mut start = permuters.start;
        let (holder, mut held) = loop {
            let end = (start + swaps_per_refresh).min(permuters.end);
            let held = self.pipelined_segment(mesh, from, start..end, &chunks, &mask, size, source, rng)?;
            let holder = if end > start { end - 1 } else { from };
            if end == permuters.end {
                break (holder, held);
            }
            let mut refreshed = Vec::with_capacity(chunks.len());
            for c in held {
                refreshed.push(Some(self.refresh_all(mesh, holder, size, c, rng)?));
            }
            (start, from, source) = (end, end, ChainSource::Held(refreshed));
        };

        mesh.set_phase("masked tables: the result passed on");
        let mut shares: Vec<Vec<u64>> = (0..size).map(|_| Vec::with_capacity(k)).collect();
        for (r, c) in chunks.iter().zip(held.iter_mut()) {
            let cts = self.spread_for_e2a(mesh, holder, size, c.take())?;
            for (ct, out) in cts.iter().zip(shares.iter_mut()) {
                let share = self.to_shares(mesh, ct, rng)?;
                out.extend_from_slice(&share[..r.len()]);
            }
        }
        Ok(MaskedTables {
            mask,
            entries: shares,
        })
    }

    /// One segment of the chain (§7's pipelining): every chunk goes from party `from`
    /// (its `source`) through the permuters `stage` in order, each permuting it by its mask
    /// ([`permute`]), re-randomizing it and passing it on at once, so that party i works
    /// on chunk c while party i − 1 works on chunk c + 1. Returns the chunks at the last
    /// permuter (`Some` each; `None` elsewhere), or at `from` for an empty stage.
    #[allow(clippy::too_many_arguments)]
    fn pipelined_segment<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        from: usize,
        stage: Range<usize>,
        chunks: &[Range<usize>],
        mask: &[u8],
        size: usize,
        mut source: ChainSource<'_>,
        rng: &mut R,
    ) -> Result<Vec<Option<Vec<Ciphertext>>>, MixedError> {
        mesh.set_phase("masked tables: the permutation chain");
        let par = self.parameters().clone();
        let me = mesh.me();
        let mut out = vec![None; chunks.len()];
        for (c, r) in chunks.iter().enumerate() {
            let input = if me == from {
                Some(source.take(self, c, r, mask, rng)?)
            } else if stage.contains(&me) {
                let prev = if me == stage.start { from } else { me - 1 };
                Some(
                    (0..size)
                        .map(|_| recv_ciphertext(mesh, prev, &par))
                        .collect::<Result<Vec<_>, _>>()?,
                )
            } else {
                None
            };
            let Some(cts) = input else { continue };
            if stage.is_empty() {
                out[c] = Some(cts);
                continue;
            }
            let cts = if stage.contains(&me) {
                self.permute_and_rerandomize(cts, &mask[r.clone()], rng)?
            } else {
                cts
            };
            let next = if stage.contains(&me) { me + 1 } else { stage.start };
            if next < stage.end {
                for ct in &cts {
                    send_ciphertext(mesh, next, ct)?;
                }
                mesh.flush()?;
            } else {
                out[c] = Some(cts);
            }
        }
        Ok(out)
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
    sum_to_all(mesh, mine, recv, xor, encode)
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
    use crate::ops::encode;
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

    /// The noise (bits) after each of `steps` permutations of `size` fresh encryptions
    /// under a one-key copy of the parameters, re-randomized as in the chain.
    fn noise_after_permutations(size: usize, steps: usize) -> Vec<usize> {
        use fhe::bfv::{Encoding, PublicKey, SecretKey};
        use fhe_rand::SeedableRng;
        use fhe_traits::FheEncrypter;
        let par = parameters();
        let mut rng = fhe_rand_chacha::ChaCha20Rng::seed_from_u64(size as u64);
        let sk = SecretKey::random(&par, &mut rng);
        let pk = PublicKey::new(&sk, &mut rng);
        let p = par.plaintext();
        let fresh = |values: &[u64], rng: &mut fhe_rand_chacha::ChaCha20Rng| {
            let pt = encode(&par, values).unwrap();
            pk.try_encrypt(&pt, rng).unwrap()
        };
        let mut cts: Vec<Ciphertext> = (0..size)
            .map(|_| {
                let v: Vec<u64> = (0..par.degree()).map(|_| rng.random_range(0..p)).collect();
                fresh(&v, &mut rng)
            })
            .collect();
        let _ = Encoding::simd();
        let mut bits = Vec::with_capacity(steps);
        for _ in 0..steps {
            let mask: Vec<u8> = (0..par.degree())
                .map(|_| rng.random_range(0..size) as u8)
                .collect();
            cts = permute(&par, cts, &mask)
                .unwrap()
                .iter()
                .map(|c| c + &fresh(&[], &mut rng))
                .collect();
            // SAFETY: `measure_noise` is `unsafe` only for its variable time; this is a
            // test with a throwaway key.
            let worst = cts
                .iter()
                .map(|c| unsafe { sk.measure_noise(c).unwrap() })
                .max()
                .unwrap();
            bits.push(worst);
        }
        bits
    }

    /// The per-step noise behind [`SWAPS_PER_REFRESH`] and [`MAX_NOISE_BITS`], measured
    /// (a key of one share; a key summed from n shares adds ≤ 2 bits at n = 64).
    #[test]
    fn permutation_noise_stays_below_the_bound_between_refreshes() {
        for size in [2, 4] {
            let bits = noise_after_permutations(size, SWAPS_PER_REFRESH);
            println!("M = {size}: noise bits after each step {bits:?}");
            assert!(
                (*bits.last().unwrap() as u64) + 2 + STEP_MARGIN_BITS <= MAX_NOISE_BITS,
                "M = {size}: {bits:?}"
            );
        }
    }

    /// As above for 16-entry tables (256 products a step: slow).
    #[test]
    #[ignore]
    fn permutation_noise_of_16_entry_tables() {
        let bits = noise_after_permutations(16, SWAPS_PER_REFRESH);
        println!("M = 16: noise bits after each step {bits:?}");
        assert!((*bits.last().unwrap() as u64) + 2 + STEP_MARGIN_BITS <= MAX_NOISE_BITS);
    }

    #[test]
    fn chunks_cover_the_tables_once() {
        assert_eq!(chunk_ranges(0, 8), vec![0..0]);
        assert_eq!(chunk_ranges(8, 8), vec![0..8]);
        assert_eq!(chunk_ranges(9, 8), vec![0..8, 8..9]);
        assert_eq!(chunk_ranges(24, 8), vec![0..8, 8..16, 16..24]);
    }

    /// Three parties, two chunks, a refresh after every permutation: Case 2 (three
    /// homomorphic permutations, two refreshes between segments) and Case 1 with 4 entries
    /// (two permutations, one refresh) against plaintext.
    #[test]
    fn pipelined_chunks_through_refreshes_match_plaintext() {
        use fhe_rand::SeedableRng;
        let n = 3;
        let k = crate::DEGREE + 21;
        let p = crate::PLAINTEXT_MODULUS;
        let mut data = fhe_rand_chacha::ChaCha20Rng::seed_from_u64(5);
        let mut table = |_| -> Vec<u64> {
            let mut t = vec![0, 1, p - 1];
            t.extend((3..k).map(|_| data.random_range(0..p)));
            t
        };
        let private: Vec<Vec<u64>> = (0..2).map(&mut table).collect();
        let public: Vec<Vec<u64>> = (0..4).map(&mut table).collect();
        let meshes = mixgc_nparty::memory_mesh(n);
        let got: Vec<(MaskedTables, MaskedTables)> = std::thread::scope(|s| {
            let handles: Vec<_> = meshes
                .into_iter()
                .map(|mut mesh| {
                    let (private, public) = (&private, &public);
                    s.spawn(move || {
                        let me = mesh.me();
                        let mut rng = fhe_rand_chacha::ChaCha20Rng::seed_from_u64(40 + me as u64);
                        let keys = crate::keygen(&mut mesh, &parameters(), &[3; 32], &mut rng).unwrap();
                        // Party 0 holds the whole private table, the others shares of 0.
                        let zeros = vec![0u64; k];
                        let mine: Vec<&[u64]> = private
                            .iter()
                            .map(|t| if me == 0 { t.as_slice() } else { zeros.as_slice() })
                            .collect();
                        let a = keys
                            .masked_tables_refreshing(
                                &mut mesh,
                                Tables::Private { entry_shares: &mine },
                                1,
                                &mut rng,
                            )
                            .unwrap();
                        let entries: Vec<&[u64]> = public.iter().map(Vec::as_slice).collect();
                        let b = keys
                            .masked_tables_refreshing(
                                &mut mesh,
                                Tables::Public { entries: &entries },
                                1,
                                &mut rng,
                            )
                            .unwrap();
                        (a, b)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (what, tables, t) in [
            ("private", got.iter().map(|g| &g.0).collect::<Vec<_>>(), &private),
            ("public", got.iter().map(|g| &g.1).collect(), &public),
        ] {
            assert!(tables.iter().all(|m| m.len() == k && m.table_size() == t.len()));
            for j in 0..k {
                let r = tables.iter().fold(0, |a, m| a ^ usize::from(m.mask_share()[j]));
                for (v, _) in t.iter().enumerate() {
                    let sum = tables.iter().fold(0, |a, m| (a + m.entry_shares()[v][j]) % p);
                    assert_eq!(sum, t[r ^ v][j], "{what}: table {j}, entry {v}");
                }
            }
        }
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
