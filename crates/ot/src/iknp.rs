//! IKNP OT extension (Ishai–Kilian–Nissim–Petrank, "Extending Oblivious Transfers
//! Efficiently", CRYPTO 2003, §3) with the optimisations of Asharov–Lindell–Schneider–Zohner
//! ("More Efficient Oblivious Transfer and Extensions for Faster Secure Computation",
//! CCS 2013, ePrint 2013/552): PRG-expanded base OTs (§5.1), correlated OT (§5.3, C-OT)
//! and random OT (§5.4, R-OT). Semi-honest.
//!
//! With m OTs, receiver choices r ∈ {0,1}^m, κ = 128:
//!
//! ```text
//! setup:    the extension sender picks s ∈ {0,1}^κ and, as base-OT *receiver* with choices
//!           s_i, learns k_{i,s_i}; the extension receiver learns both k_{i,0}, k_{i,1}.
//!           G_{i,b} = PRG(k_{i,b}), created once, never restarted.
//! receiver: t^i = G_{i,0}(m),  u^i = t^i ⊕ G_{i,1}(m) ⊕ r        (columns, i < κ)  ──u──►
//! sender:   q^i = G_{i,s_i}(m) ⊕ s_i·u^i = t^i ⊕ s_i·r
//!           transposed into rows:   q_j = t_j ⊕ r_j·s                      (IKNP eq. (1))
//! outputs:  sender  x_{j,0} = H(q_j, j),  x_{j,1} = H(q_j ⊕ s, j)
//!           receiver x_{j,r_j} = H(t_j, j)
//! C-OT:     sender W0_j = x_{j,0}, sends d_j = x_{j,0} ⊕ x_{j,1} ⊕ Δ               ◄──d──
//!           receiver W_j = x_{j,r_j} ⊕ r_j·d_j = W0_j ⊕ r_j·Δ
//! ```
//!
//! H is the tweakable circular-correlation-robust hash [`Tccr`] (Guo–Katz–Wang–Yu,
//! ePrint 2019/074), H(x, i) = π(π(x) ⊕ i) ⊕ π(x). Its tweak is the *global* OT index j,
//! counted from the setup and never restarted across calls, tagged in the high 64 bits
//! (`"mixgc-ot"`) so it never equals a half-gates tweak 2g or 2g+1. The OT correlation s is
//! independent of the garbling Δ, and Δ is only ever masked by TCCR outputs
//! (`docs/security.md`, "OT extension (IKNP)"). There is one lane (no parallel OT
//! streams), so no per-lane salt is needed.
//!
//! Counts that are not multiples of 128 are padded (choice bit 0) inside each matrix
//! chunk; the padding rows are never hashed. Every call starts with a 16-byte header from
//! the receiver (global index, count, kind) that the sender checks, so a mismatch between
//! the parties is an error instead of silently wrong labels.

use std::fmt;

use mixgc_core::{Block, Rng, Tccr, TweakableHash};
use mixgc_net::{peer_abort, Channel, ChannelExt};
use zeroize::Zeroize;

use crate::base;
use crate::prg::Prg;
use crate::transpose::columns_to_rows;
use crate::OtError;

/// κ: the number of base OTs, columns of the extension matrix, bits of s.
const KAPPA: usize = 128;

/// OTs per matrix chunk: bounds the working memory (2·128·CHUNK/8 bytes) and lets the
/// sender process one chunk while the receiver produces the next.
const CHUNK_ROWS: usize = 1 << 14;

/// High 64 bits of every OT hash tweak: ASCII "mixgc-ot".
const TWEAK_DOMAIN: u128 = (u64::from_be_bytes(*b"mixgc-ot") as u128) << 64;

/// BLAKE3 context deriving the base-OT session of an extension from the caller's session.
const SETUP_DOMAIN: &str = "mixgc/iknp-setup/v1";

/// Header kinds.
const KIND_CORRELATED: u8 = 1;
const KIND_RANDOM: u8 = 2;
const KIND_DELTA: u8 = 3;

/// Largest count a header can carry (56 bits).
const MAX_COUNT: u64 = (1 << 56) - 1;

#[inline]
fn tweak(j: u64) -> Block {
    Block::from_u128(TWEAK_DOMAIN | j as u128)
}

/// Sets `tweaks` to the tweaks of OTs `first .. first + n`.
fn fill_tweaks(tweaks: &mut Vec<Block>, first: u64, n: usize) {
    tweaks.clear();
    tweaks.extend((0..n as u64).map(|k| tweak(first + k)));
}

fn base_session(session: &[u8; 32]) -> [u8; 32] {
    blake3::derive_key(SETUP_DOMAIN, session)
}

/// The receiver's per-call header: global index (8 bytes), count (7 bytes), kind (1 byte).
fn header(index: u64, count: usize, kind: u8) -> [u8; 16] {
    let count = count as u64;
    assert!(count <= MAX_COUNT, "too many OTs in one call");
    let mut h = [0u8; 16];
    h[..8].copy_from_slice(&index.to_le_bytes());
    h[8..].copy_from_slice(&(count | (kind as u64) << 56).to_le_bytes());
    h
}

fn kind_name(kind: u8) -> &'static str {
    match kind {
        KIND_CORRELATED => "correlated",
        KIND_RANDOM => "random",
        KIND_DELTA => "Δ-correlated",
        _ => "unknown",
    }
}

/// Rows of one matrix chunk and the bytes of each of its columns.
fn chunk_shape(n: usize) -> (usize, usize) {
    let padded = n.next_multiple_of(KAPPA);
    (padded, padded / 8)
}

/// Working buffers of one extension, kept between calls so that their pages are touched
/// once per instance rather than once per call (large fresh allocations are page-faulted
/// in again every time). Their contents are wiped after every call.
#[derive(Default)]
struct Scratch {
    /// The matrix being built: q (sender) or t (receiver), column-major.
    matrix: Vec<u8>,
    /// u, the receiver's correction columns.
    u: Vec<u8>,
    /// The receiver's choices packed as a column.
    r: Vec<u8>,
    rows: Vec<Block>,
    tweaks: Vec<Block>,
}

/// An [`OtSender`] whose base OTs are prepared but not run ([`OtSender::start`]).
pub struct OtSenderStart {
    s: Block,
    /// `None` only once `finish` took it.
    base: Option<base::ReceiverStart>,
}

impl Drop for OtSenderStart {
    fn drop(&mut self) {
        self.s.as_bytes_mut().zeroize();
    }
}

impl OtSenderStart {
    /// Runs the κ = 128 base OTs (reads S, sends the R_i) and seeds the PRG streams.
    pub fn finish<C: Channel + ?Sized>(
        mut self,
        ch: &mut C,
        session: &[u8; 32],
    ) -> Result<OtSender, OtError> {
        let base = self.base.take().expect("present until finish");
        let mut keys = base.finish(ch, &base_session(session))?;
        let sender = OtSender::from_base_keys(self.s, &keys);
        for k in &mut keys {
            k.as_bytes_mut().zeroize();
        }
        Ok(sender)
    }
}

/// An [`OtReceiver`] whose base-OT message S is made but not yet answered
/// ([`OtReceiver::start`]).
pub struct OtReceiverStart {
    base: base::SenderStart,
}

impl OtReceiverStart {
    /// The base-OT sender's message S, to send before [`OtReceiverStart::finish`].
    pub fn message(&self) -> &[u8; 32] {
        self.base.message()
    }

    /// Reads the peer's R_i (S must have been sent), derives the κ = 128 base-OT key pairs
    /// and seeds the PRG streams.
    pub fn finish<C: Channel + ?Sized>(self, ch: &mut C, session: &[u8; 32]) -> Result<OtReceiver, OtError> {
        let keys = self.base.finish(ch, &base_session(session), KAPPA)?;
        Ok(OtReceiver::from_base_pairs_zeroized(keys))
    }
}

/// Garbler side of OT: the IKNP *sender*, which acts as base-OT receiver in the setup.
pub struct OtSender {
    /// The secret correlation s (bit i = base-OT choice i).
    s: Block,
    /// G_{i,s_i}, i < κ.
    streams: Vec<Prg>,
    /// Global index of the next OT (hash tweak).
    index: u64,
    hash: Tccr,
    poisoned: bool,
    scratch: Scratch,
}

impl fmt::Debug for OtSender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OtSender")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl Drop for OtSender {
    fn drop(&mut self) {
        self.s.as_bytes_mut().zeroize();
    }
}

impl OtSender {
    /// Runs the κ = 128 base OTs (as their receiver, with random choices s) and seeds the
    /// PRG streams. `session` must be the same on both sides and unique per session.
    pub fn setup<C: Channel + ?Sized>(
        ch: &mut C,
        session: &[u8; 32],
        rng: &mut Rng,
    ) -> Result<OtSender, OtError> {
        OtSender::start(rng).finish(ch, session)
    }

    /// [`OtSender::setup`] in two steps: this draws s and the base-OT receiver's secrets and
    /// does its fixed-base multiplications, before anything arrives from the peer (so it
    /// may overlap the wait for the peer's hello); [`OtSenderStart::finish`] runs the base
    /// OTs. The same random draws, messages and keys as `setup`.
    pub fn start(rng: &mut Rng) -> OtSenderStart {
        let s = Block::random(rng);
        let base = base::ReceiverStart::new(&OtSender::base_choices(s), rng);
        OtSenderStart { s, base: Some(base) }
    }

    /// [`OtSender::setup`] with a chosen correlation `s` instead of a random one: a party
    /// that extends OT to several peers with the same `s` gets Δ-correlated OT
    /// ([`OtSender::send_delta_cot`]) under one global Δ = `s` with all of them (as
    /// multiparty garbling needs, where `s` is the party's free-XOR offset).
    pub fn setup_with_secret<C: Channel + ?Sized>(
        ch: &mut C,
        session: &[u8; 32],
        s: Block,
        rng: &mut Rng,
    ) -> Result<OtSender, OtError> {
        let bits = s.to_u128();
        let choices: Vec<bool> = (0..KAPPA).map(|i| bits >> i & 1 == 1).collect();
        let mut keys = base::receive(ch, &base_session(session), &choices, rng)?;
        let sender = OtSender::from_base_keys(s, &keys);
        for k in &mut keys {
            k.as_bytes_mut().zeroize();
        }
        Ok(sender)
    }

    /// The extension sender from κ = 128 base OTs already run: `keys[i]` = k_{i,s_i} for
    /// choices s_i = bit i of `s`. The keys may be random OTs of an extension in the other
    /// direction (the receiver there choosing with s), so one set of base OTs serves both
    /// directions between two parties.
    ///
    /// # Panics
    /// If `keys` does not hold 128 keys.
    pub fn from_base_keys(s: Block, keys: &[Block]) -> OtSender {
        assert_eq!(keys.len(), KAPPA, "IKNP needs 128 base OTs");
        OtSender {
            s,
            streams: keys.iter().enumerate().map(|(i, &k)| Prg::new(k, i)).collect(),
            index: 0,
            hash: Tccr::default(),
            poisoned: false,
            scratch: Scratch::default(),
        }
    }

    /// The choices of the base OTs behind an extension sender with correlation `s` (for
    /// [`OtSender::from_base_keys`]).
    pub fn base_choices(s: Block) -> Vec<bool> {
        let bits = s.to_u128();
        (0..KAPPA).map(|i| bits >> i & 1 == 1).collect()
    }

    /// Correlated OT for garbled-circuit input labels (ALSZ C-OT): returns `count`
    /// pseudorandom zero-labels W0_j; the receiver learns W0_j ⊕ c_j·`delta`. The sender
    /// sends 16 bytes per OT (d_j), after reading the receiver's matrix (16 bytes per OT,
    /// rounded up to 128 OTs per chunk). `count == 0` exchanges nothing.
    pub fn send_correlated<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        delta: Block,
        count: usize,
    ) -> Result<Vec<Block>, OtError> {
        ch.set_phase("the oblivious-transfer extension");
        self.guarded(|me| {
            if count == 0 {
                return Ok(Vec::new());
            }
            let (mut w0, mut d) = (Vec::new(), Vec::new());
            me.extend(ch, count, KIND_CORRELATED, &mut w0, &mut d)?;
            for (dj, &w) in d.iter_mut().zip(&w0) {
                *dj ^= w ^ delta; // d_j = x_{j,0} ⊕ x_{j,1} ⊕ Δ
            }
            ch.send_blocks(&d)?;
            ch.flush()?;
            Ok(w0)
        })
    }

    /// Random OT (ALSZ R-OT): returns `count` pairs (r0_j, r1_j); the receiver learns
    /// r_{c_j, j}. Only the receiver sends (its matrix). `count == 0` exchanges nothing.
    pub fn send_random<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        count: usize,
    ) -> Result<Vec<(Block, Block)>, OtError> {
        ch.set_phase("the oblivious-transfer extension");
        self.guarded(|me| {
            if count == 0 {
                return Ok(Vec::new());
            }
            let (mut x0, mut x1) = (Vec::new(), Vec::new());
            me.extend(ch, count, KIND_RANDOM, &mut x0, &mut x1)?;
            Ok(x0.into_iter().zip(x1).collect())
        })
    }

    /// Δ-correlated OT, unhashed (IKNP eq. (1) as the COT functionality, Δ = s, as in
    /// KOS15 §2 and emp-ot's `send_cot`): returns q_j; the receiver's
    /// [`OtReceiver::receive_delta_cot`] gets t_j = q_j ⊕ c_j·s. Only the receiver sends
    /// (16 bytes per OT). The outputs are raw correlations, not random strings: use them
    /// only as XOR shares of c_j·s. `count == 0` exchanges nothing.
    pub fn send_delta_cot<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        count: usize,
    ) -> Result<Vec<Block>, OtError> {
        ch.set_phase("the oblivious-transfer extension");
        self.guarded(|me| {
            if count == 0 {
                return Ok(Vec::new());
            }
            let mut q = Vec::new();
            me.extend(ch, count, KIND_DELTA, &mut q, &mut Vec::new())?;
            Ok(q)
        })
    }

    /// [`OtSender::send_delta_cot`] into `out` (replacing its contents), so that a caller
    /// extending many times reuses one allocation.
    pub fn send_delta_cot_into<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        count: usize,
        out: &mut Vec<Block>,
    ) -> Result<(), OtError> {
        ch.set_phase("the oblivious-transfer extension");
        // Not cleared otherwise: `extend` overwrites every element it keeps.
        if count == 0 || self.poisoned {
            out.clear();
        }
        self.guarded(|me| {
            if count == 0 {
                return Ok(());
            }
            me.extend(ch, count, KIND_DELTA, out, &mut Vec::new())
        })
    }

    fn guarded<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, OtError>) -> Result<T, OtError> {
        if self.poisoned {
            return Err(OtError::Poisoned);
        }
        let r = f(self);
        self.poisoned = r.is_err();
        r
    }

    /// One extension of `count` > 0 OTs: sets `x0`, `x1` to (H(q_j, j), H(q_j ⊕ s, j)),
    /// or `x0` to q_j and `x1` to nothing for [`KIND_DELTA`].
    fn extend<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        count: usize,
        kind: u8,
        x0: &mut Vec<Block>,
        x1: &mut Vec<Block>,
    ) -> Result<(), OtError> {
        let mut got = [0u8; 16];
        ch.recv(&mut got)?;
        let want = header(self.index, count, kind);
        if got != want {
            if let Some(stopped) = peer_abort(ch, &got) {
                return Err(stopped.into()); // the receiver refused its input instead
            }
            let index = u64::from_le_bytes(got[..8].try_into().expect("8 bytes"));
            let word = u64::from_le_bytes(got[8..].try_into().expect("8 bytes"));
            return Err(OtError::Desync(format!(
                "the receiver asked for {} {} OTs at index {index}, the sender for {count} {} \
                 OTs at index {}",
                word & MAX_COUNT,
                kind_name((word >> 56) as u8),
                kind_name(kind),
                self.index,
            )));
        }

        let s_bits = self.s.to_u128();
        // Δ-correlated OTs are transposed straight into `x0`: room for the last chunk's
        // padding rows (every earlier chunk has a multiple of 128), cut off at the end.
        // Every row is written below (transpose or hash), so the elements `x0` already
        // holds are not zeroed first (a memset of the whole output per extension).
        let delta_rows = if kind == KIND_DELTA {
            count.next_multiple_of(KAPPA)
        } else {
            count
        };
        x0.resize(delta_rows, Block::ZERO);
        x1.clear();
        x1.resize(if kind == KIND_DELTA { 0 } else { count }, Block::ZERO);
        let mut scratch = std::mem::take(&mut self.scratch);
        let Scratch {
            matrix: q,
            u,
            rows,
            tweaks,
            ..
        } = &mut scratch;
        let mut done = 0;
        while done < count {
            let n = CHUNK_ROWS.min(count - done);
            let (padded, col_bytes) = chunk_shape(n);
            let (u, q) = (prefix(u, KAPPA * col_bytes), prefix(q, KAPPA * col_bytes));
            ch.recv(u)?;
            for (i, (qc, uc)) in q
                .chunks_exact_mut(col_bytes)
                .zip(u.chunks_exact(col_bytes))
                .enumerate()
            {
                // q^i = G_{i,s_i} ⊕ s_i·u^i, branch-free in the secret bit s_i.
                self.streams[i].fill(qc);
                let mask = 0u8.wrapping_sub((s_bits >> i & 1) as u8);
                for (a, &b) in qc.iter_mut().zip(uc) {
                    *a ^= b & mask;
                }
            }
            if kind == KIND_DELTA {
                columns_to_rows(q, &mut x0[done..done + padded]);
                done += n;
                continue;
            }
            rows.resize(padded, Block::ZERO);
            columns_to_rows(q, rows);

            let first = self.index + done as u64;
            let (a, b) = (&mut x0[done..done + n], &mut x1[done..done + n]);
            for ((a, b), &q) in a.iter_mut().zip(b.iter_mut()).zip(rows.iter()) {
                *a = q;
                *b = q ^ self.s;
            }
            // `hash_many` consumes its tweaks as scratch: fill them for each call.
            fill_tweaks(tweaks, first, n);
            self.hash.hash_many(a, tweaks);
            fill_tweaks(tweaks, first, n);
            self.hash.hash_many(b, tweaks);
            done += n;
        }
        wipe_bytes(q);
        zeroize_blocks(rows);
        rows.clear();
        zeroize_blocks(&mut x0[count..]);
        x0.truncate(count);
        self.scratch = scratch;
        self.index += count as u64;
        Ok(())
    }
}

/// Evaluator side of OT: the IKNP *receiver*, which acts as base-OT sender in the setup.
pub struct OtReceiver {
    /// (G_{i,0}, G_{i,1}), i < κ.
    streams: Vec<(Prg, Prg)>,
    /// Global index of the next OT (hash tweak).
    index: u64,
    hash: Tccr,
    poisoned: bool,
    scratch: Scratch,
}

impl fmt::Debug for OtReceiver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OtReceiver")
            .field("index", &self.index)
            .finish_non_exhaustive()
    }
}

impl OtReceiver {
    /// Runs the κ = 128 base OTs (as their sender) and seeds the PRG streams.
    /// `session` must be the same on both sides and unique per session.
    pub fn setup<C: Channel + ?Sized>(
        ch: &mut C,
        session: &[u8; 32],
        rng: &mut Rng,
    ) -> Result<OtReceiver, OtError> {
        let start = OtReceiver::start(rng);
        ch.send(start.message())?;
        ch.flush()?;
        start.finish(ch, session)
    }

    /// [`OtReceiver::setup`] in two steps: the base-OT sender's message S (which needs
    /// neither the session id nor anything from the peer, so it may travel with the hello),
    /// then [`OtReceiverStart::finish`] once it is sent. The same random draws, messages and
    /// keys as `setup`.
    pub fn start(rng: &mut Rng) -> OtReceiverStart {
        OtReceiverStart {
            base: base::SenderStart::new(rng),
        }
    }

    /// The extension receiver from the base OTs' key pairs (zeroized after use).
    fn from_base_pairs_zeroized(mut keys: Vec<(Block, Block)>) -> OtReceiver {
        let receiver = OtReceiver::from_base_pairs(&keys);
        for (k0, k1) in &mut keys {
            k0.as_bytes_mut().zeroize();
            k1.as_bytes_mut().zeroize();
        }
        receiver
    }

    /// The extension receiver from κ = 128 base OTs already run, this side their sender:
    /// `pairs[i]` = (k_{i,0}, k_{i,1}) (see [`OtSender::from_base_keys`]).
    ///
    /// # Panics
    /// If `pairs` does not hold 128 pairs.
    pub fn from_base_pairs(pairs: &[(Block, Block)]) -> OtReceiver {
        assert_eq!(pairs.len(), KAPPA, "IKNP needs 128 base OTs");
        OtReceiver {
            streams: pairs
                .iter()
                .enumerate()
                .map(|(i, &(k0, k1))| (Prg::new(k0, i), Prg::new(k1, i)))
                .collect(),
            index: 0,
            hash: Tccr::default(),
            poisoned: false,
            scratch: Scratch::default(),
        }
    }

    /// Correlated OT: returns W0_j ⊕ c_j·Δ for each choice c_j, where the sender's
    /// [`OtSender::send_correlated`] holds W0_j and Δ. Empty `choices` exchange nothing.
    pub fn receive_correlated<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        choices: &[bool],
    ) -> Result<Vec<Block>, OtError> {
        ch.set_phase("the oblivious-transfer extension");
        self.guarded(|me| {
            if choices.is_empty() {
                return Ok(Vec::new());
            }
            let mut out = Vec::new();
            me.extend(ch, choices, KIND_CORRELATED, &mut out)?;
            let mut d = vec![Block::ZERO; CHUNK_ROWS.min(choices.len())];
            for (oc, cc) in out.chunks_mut(CHUNK_ROWS).zip(choices.chunks(CHUNK_ROWS)) {
                let d = &mut d[..oc.len()];
                ch.recv(Block::slice_as_bytes_mut(d))?;
                for ((o, &dj), &c) in oc.iter_mut().zip(d.iter()).zip(cc) {
                    *o ^= dj.and_bit(c); // x_{j,c} ⊕ c·d_j
                }
            }
            Ok(out)
        })
    }

    /// Random OT: returns r_{c_j, j} for each choice c_j, where the sender's
    /// [`OtSender::send_random`] holds (r0_j, r1_j). Empty `choices` exchange nothing.
    pub fn receive_random<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        choices: &[bool],
    ) -> Result<Vec<Block>, OtError> {
        ch.set_phase("the oblivious-transfer extension");
        self.guarded(|me| {
            if choices.is_empty() {
                return Ok(Vec::new());
            }
            let mut out = Vec::new();
            me.extend(ch, choices, KIND_RANDOM, &mut out)?;
            Ok(out)
        })
    }

    /// Δ-correlated OT, unhashed: returns t_j = q_j ⊕ c_j·s for each choice c_j, where
    /// the sender's [`OtSender::send_delta_cot`] holds q_j and s. Empty `choices` exchange
    /// nothing.
    pub fn receive_delta_cot<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        choices: &[bool],
    ) -> Result<Vec<Block>, OtError> {
        ch.set_phase("the oblivious-transfer extension");
        self.guarded(|me| {
            if choices.is_empty() {
                return Ok(Vec::new());
            }
            let mut out = Vec::new();
            me.extend(ch, choices, KIND_DELTA, &mut out)?;
            Ok(out)
        })
    }

    /// [`OtReceiver::receive_delta_cot`] into `out` (replacing its contents), so that a
    /// caller extending many times reuses one allocation.
    pub fn receive_delta_cot_into<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        choices: &[bool],
        out: &mut Vec<Block>,
    ) -> Result<(), OtError> {
        ch.set_phase("the oblivious-transfer extension");
        // Not cleared otherwise: `extend` overwrites every element it keeps.
        if choices.is_empty() || self.poisoned {
            out.clear();
        }
        self.guarded(|me| {
            if choices.is_empty() {
                return Ok(());
            }
            me.extend(ch, choices, KIND_DELTA, out)
        })
    }

    fn guarded<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, OtError>) -> Result<T, OtError> {
        if self.poisoned {
            return Err(OtError::Poisoned);
        }
        let r = f(self);
        self.poisoned = r.is_err();
        r
    }

    /// One extension for non-empty `choices`: sends the header and u, sets `out` to
    /// H(t_j, j) (t_j for [`KIND_DELTA`]).
    fn extend<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        choices: &[bool],
        kind: u8,
        out: &mut Vec<Block>,
    ) -> Result<(), OtError> {
        ch.send(&header(self.index, choices.len(), kind))?;
        // As the sender: Δ-correlated OTs are transposed straight into `out`, every row
        // written (transpose or copy), so its kept elements are not zeroed first.
        let count = choices.len();
        let delta_rows = if kind == KIND_DELTA {
            count.next_multiple_of(KAPPA)
        } else {
            count
        };
        out.resize(delta_rows, Block::ZERO);
        let mut scratch = std::mem::take(&mut self.scratch);
        let Scratch {
            matrix: t,
            u,
            r,
            rows,
            tweaks,
        } = &mut scratch;
        for (chunk_no, chunk) in choices.chunks(CHUNK_ROWS).enumerate() {
            let done = chunk_no * CHUNK_ROWS;
            let n = chunk.len();
            let (padded, col_bytes) = chunk_shape(n);
            // r packed as a column; padding rows choose 0.
            r.clear();
            r.resize(col_bytes, 0u8);
            for (j, &c) in chunk.iter().enumerate() {
                r[j / 8] |= (c as u8) << (j % 8);
            }
            let (t, u) = (prefix(t, KAPPA * col_bytes), prefix(u, KAPPA * col_bytes));
            for ((tc, uc), (g0, g1)) in t
                .chunks_exact_mut(col_bytes)
                .zip(u.chunks_exact_mut(col_bytes))
                .zip(self.streams.iter_mut())
            {
                g0.fill(tc); // t^i = G_{i,0}
                g1.fill(uc);
                for ((u, &t), &r) in uc.iter_mut().zip(tc.iter()).zip(r.iter()) {
                    *u ^= t ^ r; // u^i = t^i ⊕ G_{i,1} ⊕ r
                }
            }
            ch.send(u)?;
            // Out now, not when the send buffer fills: the sender works on this chunk
            // while this side builds the next one (the two parties overlap).
            ch.flush()?;

            if kind == KIND_DELTA {
                columns_to_rows(t, &mut out[done..done + padded]);
                continue;
            }
            rows.resize(padded, Block::ZERO);
            columns_to_rows(t, rows);
            let o = &mut out[done..done + n];
            o.copy_from_slice(&rows[..n]);
            fill_tweaks(tweaks, self.index + done as u64, n);
            self.hash.hash_many(o, tweaks);
        }
        ch.flush()?;
        wipe_bytes(t);
        r.zeroize();
        zeroize_blocks(rows);
        rows.clear();
        zeroize_blocks(&mut out[count..]);
        out.truncate(count);
        self.scratch = scratch;
        self.index += choices.len() as u64;
        Ok(())
    }
}

fn zeroize_blocks(blocks: &mut [Block]) {
    // Block by block (volatile 16-byte writes), not byte by byte: 16 times fewer writes.
    blocks.zeroize();
}

/// The first `len` bytes of `v`, grown (zero-filled) only when it is shorter: the
/// matrices keep their length between chunks and extensions, so a smaller last chunk
/// followed by a full one does not zero-fill the whole matrix again.
fn prefix(v: &mut Vec<u8>, len: usize) -> &mut [u8] {
    if v.len() < len {
        v.resize(len, 0);
    }
    &mut v[..len]
}

/// Wipes a matrix in place, keeping its length and allocation ([`prefix`]): 16 bytes
/// per volatile write (`Vec<u8>::zeroize` wrote byte by byte, the whole capacity, and
/// emptied the vector, so that the next extension zero-filled it again).
fn wipe_bytes(bytes: &mut [u8]) {
    // SAFETY: every bit pattern is a valid `u128`.
    let (head, words, tail) = unsafe { bytes.align_to_mut::<u128>() };
    head.zeroize();
    words.zeroize();
    tail.zeroize();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_tweaks_stay_out_of_the_half_gates_range() {
        let h = header(5, 1000, KIND_RANDOM);
        assert_eq!(u64::from_le_bytes(h[..8].try_into().unwrap()), 5);
        let w = u64::from_le_bytes(h[8..].try_into().unwrap());
        assert_eq!((w & MAX_COUNT, (w >> 56) as u8), (1000, KIND_RANDOM));
        assert_ne!(header(5, 1000, KIND_CORRELATED), h);
        assert!(tweak(0).to_u128() >> 64 != 0);
        assert_ne!(tweak(1), tweak(2));
    }

    #[test]
    fn chunk_shape_pads_to_128() {
        assert_eq!(chunk_shape(1), (128, 16));
        assert_eq!(chunk_shape(128), (128, 16));
        assert_eq!(chunk_shape(129), (256, 32));
    }
}
