//! [`Labels`]: one party's BMR wire state for programs built gate by gate — the engine
//! (Δ, correlations, per-slot shares and active keys), the slot allocator, the pending
//! batch and the digest of every step — driven by both fronts: the gate-level
//! [`super::ProgramBackend`] and the Y form of the mixed programs (`mixgc_mixed::program`).
//!
//! Wires are slot handles. XOR and NOT are free; ANDs are appended to the pending batch,
//! which is garbled jointly (a constant number of rounds, BLO16 §3–4) and evaluated when it
//! is full, when an input or a B→Y conversion starts a new batch, and when a value leaves
//! the Y form (an opening or Y→B). Before every such step each party compares a digest of
//! everything its program did so far with every other party's, so a divergence is a
//! [`NpartyError::Mismatch`] naming the party.
//!
//! Besides the usual inputs (BLO16 §3's input step, 3 rounds), a value already XOR-shared
//! among the parties (the B form) enters with no message at all ([`Labels::from_shares`]):
//! each party's λ share of the new wire is its own XOR share, so the masked value is
//! Λ = x ⊕ λ = 0, and every party's 0-key is derived from the session id (docs/security.md,
//! "The Y form"). Back to XOR shares ([`Labels::to_shares`]) is local once the batch is
//! evaluated: Λ ⊕ λ^0 at party 0, λ^i elsewhere (seed §6.2, Figure 12 step 9).

use std::time::Instant;

use mixgc_core::{Block, Rng};
use mixgc_net::Tag;

use super::engine::Engine;
use super::io::{exchange_input_bits, open_bits, InputShares};
use super::BmrOptions;
use crate::batches::{Op, MAX_BATCH_OPS};
use crate::{Mesh, NpartyError, MAX_SLOTS};

/// Slots the state starts with (it doubles as the live wires need).
const INITIAL_SLOTS: usize = 1 << 10;

/// The slot of the constant 1 (NOT is XOR with it).
pub const ONE: u32 = 0;

/// Input bits declared and not yet through the input step, with this party's λ share and
/// 0-key of each as drawn (the next batch may reuse a slot before the step).
#[derive(Default)]
struct PendingInputs {
    slots: Vec<u32>,
    /// The owner of each bit.
    owners: Vec<usize>,
    shares: InputShares,
    /// This party's own values of the bits it owns, in order.
    mine: Vec<bool>,
}

/// One party's BMR wire state between the steps of a program (module docs). Every party
/// makes the same calls in the same order; each method that may talk takes the mesh and
/// this party's RNG.
pub struct Labels {
    pub(super) engine: Engine,
    session: [u8; 32],
    batch_ands: usize,
    ops: Vec<Op>,
    ands_in_batch: usize,
    /// Slots in use so far (the state has room for at least this many).
    slots: u32,
    /// Whether each slot holds a live wire.
    live: Vec<bool>,
    free: Vec<u32>,
    pending: PendingInputs,
    /// Slots made by B→Y since the last batch: fresh wires of the next one.
    shared: Vec<u32>,
    /// B→Y wires made so far (numbers their public 0-keys).
    shared_count: u64,
    /// Running digest of the program's steps, compared with the others' at each sync.
    transcript: blake3::Hasher,
    syncs: u64,
}

impl Labels {
    /// Sets up this party's side (Δ, base OTs with every party); `session` is the id every
    /// party agreed on.
    pub fn setup(
        mesh: &mut Mesh,
        session: &[u8; 32],
        rng: &mut Rng,
        options: &BmrOptions,
    ) -> Result<Labels, NpartyError> {
        let engine = Engine::setup(mesh, session, rng, options, INITIAL_SLOTS)?;
        let mut live = vec![false; INITIAL_SLOTS];
        live[ONE as usize] = true;
        Ok(Labels {
            engine,
            session: *session,
            batch_ands: options.batch_ands,
            ops: Vec::new(),
            ands_in_batch: 0,
            slots: 1,
            live,
            free: Vec::new(),
            pending: PendingInputs::default(),
            shared: Vec::new(),
            shared_count: 0,
            transcript: blake3::Hasher::new_derive_key("mixgc nparty BMR program steps"),
            syncs: 0,
        })
    }

    /// Wire slots taken so far: the most wires the program held at once (plus the
    /// constant 1), what this party's state grows with.
    pub fn slots(&self) -> u32 {
        self.slots
    }

    /// AND gates garbled and evaluated so far.
    pub fn ands(&self) -> u64 {
        self.engine.next_and
    }

    /// Batches garbled so far.
    pub fn batches(&self) -> u64 {
        self.engine.batches
    }

    /// Time so far in the setup and the joint garbling of batches (offline), and in the
    /// input steps, evaluations and openings (online).
    pub fn times(&self) -> (std::time::Duration, std::time::Duration) {
        (self.engine.offline, self.engine.online)
    }

    /// Slots taken and not released.
    pub fn live_wires(&self) -> u64 {
        u64::from(self.slots) - self.free.len() as u64
    }

    /// A free slot for a new wire.
    fn alloc(&mut self) -> Result<u32, NpartyError> {
        let s = match self.free.pop() {
            Some(s) => s,
            None if self.slots < MAX_SLOTS => {
                self.slots += 1;
                let need = self.slots as usize;
                if need > self.live.len() {
                    let room = (2 * self.live.len()).min(MAX_SLOTS as usize);
                    self.engine.resize(room);
                    self.live.resize(room, false);
                }
                self.slots - 1
            }
            None => {
                return Err(NpartyError::Usage(format!(
                    "the program holds more than {MAX_SLOTS} live wires at once"
                )))
            }
        };
        self.live[s as usize] = true;
        Ok(s)
    }

    /// Appends `op`, running the batch first if it is full.
    fn push(&mut self, mesh: &mut Mesh, rng: &mut Rng, op: Op) -> Result<(), NpartyError> {
        let is_and = matches!(op, Op::And { .. });
        if (is_and && self.ands_in_batch == self.batch_ands)
            || self.ops.len() + self.pending.slots.len() + self.shared.len() >= MAX_BATCH_OPS
        {
            self.flush(mesh, rng)?;
        }
        self.ops.push(op);
        self.ands_in_batch += usize::from(is_and);
        Ok(())
    }

    /// A gate: its output in a fresh slot.
    fn gate(
        &mut self,
        mesh: &mut Mesh,
        rng: &mut Rng,
        make: impl FnOnce(u32) -> Op,
    ) -> Result<u32, NpartyError> {
        let out = self.alloc()?;
        self.push(mesh, rng, make(out))?;
        Ok(out)
    }

    /// a ⊕ b (free).
    pub fn xor(&mut self, mesh: &mut Mesh, rng: &mut Rng, a: u32, b: u32) -> Result<u32, NpartyError> {
        self.gate(mesh, rng, |out| Op::Xor { a, b, out })
    }

    /// a ∧ b (one AND of the pending batch).
    pub fn and(&mut self, mesh: &mut Mesh, rng: &mut Rng, a: u32, b: u32) -> Result<u32, NpartyError> {
        self.gate(mesh, rng, |out| Op::And { a, b, out })
    }

    /// ¬a = a ⊕ 1 (free).
    pub fn not(&mut self, mesh: &mut Mesh, rng: &mut Rng, a: u32) -> Result<u32, NpartyError> {
        self.gate(mesh, rng, |out| Op::Xor { a, b: ONE, out })
    }

    /// A public constant (free).
    pub fn constant(&mut self, mesh: &mut Mesh, rng: &mut Rng, value: bool) -> Result<u32, NpartyError> {
        self.gate(mesh, rng, |out| Op::Const { value, out })
    }

    /// Frees the slots of `wires` (never the constant 1); a released wire must not be used
    /// again.
    pub fn release(&mut self, wires: &[u32]) {
        for &w in wires {
            if w != ONE && self.live.get(w as usize).copied().unwrap_or(false) {
                self.live[w as usize] = false;
                self.free.push(w);
            }
        }
    }

    /// Ends the pending batch if it holds gates: a fresh wire (input or B→Y) gets its λ
    /// share and 0-key before the next batch's garbling, so its slot must not be one that
    /// an earlier gate of the same batch writes.
    fn start_batch(&mut self, mesh: &mut Mesh, rng: &mut Rng) -> Result<(), NpartyError> {
        if self.ops.is_empty() {
            Ok(())
        } else {
            self.flush(mesh, rng)
        }
    }

    /// Declares `width` input bits of `owner` (checked by the caller), `mine` this party's
    /// values where it is the owner. They go through BLO16's input step with the next batch.
    pub fn input(
        &mut self,
        mesh: &mut Mesh,
        rng: &mut Rng,
        owner: usize,
        width: u32,
        mine: Option<&[bool]>,
    ) -> Result<Vec<u32>, NpartyError> {
        self.start_batch(mesh, rng)?;
        let mut record = [0u8; 12];
        record[..8].copy_from_slice(&(owner as u64).to_le_bytes());
        record[8..].copy_from_slice(&width.to_le_bytes());
        self.transcript.update(b"input");
        self.transcript.update(&record);
        let mut wires = Vec::with_capacity(width as usize);
        for bit in 0..width as usize {
            if self.pending.slots.len() + self.shared.len() >= MAX_BATCH_OPS {
                self.flush(mesh, rng)?;
            }
            let s = self.alloc()?;
            self.engine.shares.fresh(s as usize, rng);
            let p = &mut self.pending;
            p.slots.push(s);
            p.owners.push(owner);
            p.shares.lambda.push(self.engine.shares.lambda[s as usize]);
            p.shares.key0.push(self.engine.shares.key0[s as usize]);
            if let Some(bits) = mine {
                p.mine.push(bits[bit]);
            }
            wires.push(s);
        }
        Ok(wires)
    }

    /// B→Y: new wires holding the bits XOR-shared among the parties, `shares` this party's
    /// shares. No message: this party's λ share of each wire is its share, so Λ = 0, and
    /// every party's 0-key is public ([`Labels::public_key0`]); the wires' Δ-products come
    /// with the next batch, as for any fresh wire. Starts a new batch if gates are pending.
    pub fn from_shares(
        &mut self,
        mesh: &mut Mesh,
        rng: &mut Rng,
        shares: &[bool],
    ) -> Result<Vec<u32>, NpartyError> {
        self.start_batch(mesh, rng)?;
        self.transcript.update(b"from shares");
        self.transcript.update(&(shares.len() as u64).to_le_bytes());
        let (me, n) = (mesh.me(), mesh.parties());
        let mut wires = Vec::with_capacity(shares.len());
        for &share in shares {
            if self.pending.slots.len() + self.shared.len() >= MAX_BATCH_OPS {
                self.flush(mesh, rng)?;
            }
            let s = self.alloc()?;
            let w = s as usize;
            let number = self.shared_count;
            self.shared_count += 1;
            let keys: Vec<Block> = (0..n).map(|j| self.public_key0(j, number)).collect();
            let sh = &mut self.engine.shares;
            sh.lambda[w] = share;
            sh.key0[w] = keys[me];
            self.engine.active.masked[w] = false;
            self.engine.active.keys_of_mut(w).copy_from_slice(&keys);
            self.shared.push(s);
            wires.push(s);
        }
        Ok(wires)
    }

    /// Party `party`'s 0-key of the `number`-th B→Y wire: public (every party derives it
    /// from the session id), pseudorandom and independent of every other wire's, lsb 0.
    /// Its 1-key k ⊕ Δ_party stays secret like any inactive key.
    fn public_key0(&self, party: usize, number: u64) -> Block {
        let mut input = [0u8; 16];
        input[..8].copy_from_slice(&(party as u64).to_le_bytes());
        input[8..].copy_from_slice(&number.to_le_bytes());
        let mut hasher = blake3::Hasher::new_keyed(&self.session);
        hasher.update(b"mixgc BMR public 0-key of a B->Y wire");
        hasher.update(&input);
        let bytes: [u8; 16] = hasher.finalize().as_bytes()[..16]
            .try_into()
            .expect("16 of 32 bytes");
        let k = Block::from_bytes(bytes);
        k ^ Block::from_u128(u128::from(k.lsb()))
    }

    /// Y→B: this party's XOR shares of `wires`, once the pending batch is evaluated:
    /// Λ_w ⊕ λ^0_w at party 0, λ^i_w at party i (seed §6.2, Figure 12 step 9). No message
    /// beyond the batch's own.
    pub fn to_shares(
        &mut self,
        mesh: &mut Mesh,
        rng: &mut Rng,
        wires: &[u32],
    ) -> Result<Vec<bool>, NpartyError> {
        self.transcript.update(b"to shares");
        self.transcript.update(&(wires.len() as u64).to_le_bytes());
        self.flush(mesh, rng)?;
        let first = mesh.me() == 0;
        Ok(wires
            .iter()
            .map(|&w| {
                let w = w as usize;
                self.engine.shares.lambda[w] ^ (first & self.engine.active.masked[w])
            })
            .collect())
    }

    /// Garbles and evaluates what is pending, after checking that every party is at the
    /// same point.
    pub fn flush(&mut self, mesh: &mut Mesh, rng: &mut Rng) -> Result<(), NpartyError> {
        if self.is_idle() {
            return Ok(());
        }
        self.sync(mesh, b"batch", &[])?;
        self.run_pending(mesh, rng)
    }

    fn is_idle(&self) -> bool {
        self.ops.is_empty() && self.pending.slots.is_empty() && self.shared.is_empty()
    }

    /// Runs the pending batch with the pending inputs' step (the caller synced first).
    fn run_pending(&mut self, mesh: &mut Mesh, rng: &mut Rng) -> Result<(), NpartyError> {
        if self.is_idle() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let mut fresh = pending.slots.clone();
        fresh.append(&mut self.shared);
        let mut owned = vec![Vec::new(); mesh.parties()];
        for (i, &p) in pending.owners.iter().enumerate() {
            owned[p].push(i);
        }
        self.engine
            .run_batch(mesh, &self.ops, &fresh, rng, |mesh, active, delta| {
                exchange_input_bits(
                    mesh,
                    &owned,
                    &pending.slots,
                    &pending.shares,
                    delta,
                    active,
                    &pending.mine,
                )
            })?;
        self.ops.clear();
        self.ands_in_batch = 0;
        Ok(())
    }

    /// Adds the pending ops and the step `what` (with its `detail`) to the transcript and
    /// checks with every party that its transcript is the same.
    fn sync(&mut self, mesh: &mut Mesh, what: &[u8], detail: &[u8]) -> Result<(), NpartyError> {
        let mut bytes = Vec::with_capacity(self.ops.len() * 13);
        for op in &self.ops {
            let (kind, a, b, out) = match *op {
                Op::Xor { a, b, out } => (0u8, a, b, out),
                Op::And { a, b, out } => (1, a, b, out),
                Op::Const { value, out } => (2, u32::from(value), 0, out),
                Op::Copy { a, out } => (3, a, 0, out),
            };
            bytes.push(kind);
            for x in [a, b, out] {
                bytes.extend_from_slice(&x.to_le_bytes());
            }
        }
        self.transcript.update(&bytes);
        self.transcript.update(&(what.len() as u64).to_le_bytes());
        self.transcript.update(what);
        self.transcript.update(&(detail.len() as u64).to_le_bytes());
        self.transcript.update(detail);
        self.syncs += 1;
        let digest = *self.transcript.finalize().as_bytes();
        mesh.set_phase("the digests of the program's steps");
        mesh.send_all(Tag::ProgramHeader, &digest)?;
        for p in mesh.peers() {
            let theirs = mesh.recv_exact(p, Tag::ProgramHeader, digest.len())?;
            if theirs != digest {
                return Err(NpartyError::Mismatch {
                    party: p,
                    what: format!(
                        "its program diverged from this party's before step #{} (a {}): \
                         different gates, inputs, conversions or outputs",
                        self.syncs,
                        String::from_utf8_lossy(what)
                    ),
                });
            }
        }
        Ok(())
    }

    /// Opens `wires` to the parties `members` (every party names the same ones).
    pub fn open(
        &mut self,
        mesh: &mut Mesh,
        rng: &mut Rng,
        wires: &[u32],
        members: &[usize],
    ) -> Result<Option<Vec<bool>>, NpartyError> {
        let mut detail = Vec::with_capacity(8 + members.len());
        detail.extend_from_slice(&(wires.len() as u64).to_le_bytes());
        detail.extend(members.iter().map(|&p| p as u8));
        self.sync(mesh, b"output", &detail)?;
        self.run_pending(mesh, rng)?;
        let t = Instant::now();
        let (bits, rounds) = open_bits(mesh, members, wires, &self.engine.shares, &self.engine.active)?;
        self.engine.online_rounds += rounds;
        self.engine.online += t.elapsed();
        Ok(bits)
    }

    /// Ends the run: checks with every party that all programs ended alike. Gates after
    /// the last output are never garbled: nobody could learn anything from them.
    pub fn finish(&mut self, mesh: &mut Mesh) -> Result<(), NpartyError> {
        self.sync(mesh, b"end", &[])?;
        mesh.flush()
    }
}
