//! Programs on n parties by BMR, gate by gate in bounded memory (the item 5).
//!
//! [`ProgramBackend`] runs a program written on [`Backend`] as one party of a mesh, without
//! recording it: a wire is a slot of the BMR state, taken from a free list (slots come back
//! on [`Backend::release`]); gates append [`Op`]s to the current batch. A batch is garbled
//! jointly and evaluated ([`Engine::run_batch`], the machinery of the stream path, BLO16
//! §3–4) when it holds [`BmrOptions::batch_ands`] ANDs, before an input is declared after
//! gates, and at an output. Memory is the live wires plus one batch, whatever the
//! program's length; the online phase stays a constant number of rounds per batch.
//!
//! Every party runs the same program, so the batches line up and every party counts the
//! same AND indices. A program that diverges is caught: before every step that talks to
//! the other parties (a batch, an output, the end) each party sends a digest of everything
//! its program did so far (ops, inputs' owners and widths, outputs' audiences) and
//! compares the others' with its own, so a divergence is a [`NpartyError::Mismatch`]
//! naming the party, never a hang or a wrong output.

use std::time::{Duration, Instant};

use mixgc_circuit::{Audience, PartyId};
use mixgc_core::Rng;
use mixgc_net::Tag;
use mixgc_program::{checked_input, Backend, PeerError, ProgramError};

use super::engine::Engine;
use super::io::{exchange_input_bits, open_bits, InputShares};
use super::BmrOptions;
use crate::batches::{Op, MAX_BATCH_OPS};
use crate::{Mesh, NpartyError, MAX_SLOTS};

/// Slots the state starts with (it doubles as the live wires need).
const INITIAL_SLOTS: usize = 1 << 10;

/// The slot of the constant 1 (NOT is XOR with it).
const ONE: u32 = 0;

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

/// What a program run gave one party: the program's own result and the run's counts.
#[derive(Debug)]
pub struct ProgramRun<T> {
    pub value: T,
    /// AND gates garbled and evaluated.
    pub ands: u64,
    /// Batches garbled.
    pub batches: u64,
    /// Rounds of the online phase (input steps and output openings).
    pub online_rounds: u64,
    /// Time in the setup and the joint garbling of the batches.
    pub offline: Duration,
    /// Time in the input steps, the evaluation and the openings.
    pub online: Duration,
    /// Bytes (sent, received) per party during the setup (base OTs).
    pub setup_bytes: Vec<(u64, u64)>,
}

/// One party's side of a program run by BMR (see the module docs). Wires are slot
/// handles; a released wire must not be used again.
pub struct ProgramBackend<'a> {
    mesh: &'a mut Mesh,
    rng: &'a mut Rng,
    engine: Engine,
    batch_ands: usize,
    ops: Vec<Op>,
    ands_in_batch: usize,
    /// Slots in use so far (the state has room for at least this many).
    slots: u32,
    /// Whether each slot holds a live wire.
    live: Vec<bool>,
    free: Vec<u32>,
    pending: PendingInputs,
    /// Running digest of the program's steps, compared with the others' at each sync.
    transcript: blake3::Hasher,
    syncs: u64,
    inputs: usize,
    /// The first failure of the protocol; every later input or output reports it.
    error: Option<ProgramError>,
}

/// Runs `program` by BMR as this party of `mesh` (`session`: the id every party agreed on)
/// and returns its result once every party's program has ended the same way. Every party
/// must run the same program (their own input values aside); a party whose program
/// diverges is named in a [`NpartyError::Mismatch`].
pub fn run_program<T>(
    mesh: &mut Mesh,
    session: &[u8; 32],
    rng: &mut Rng,
    options: &BmrOptions,
    program: impl FnOnce(&mut ProgramBackend<'_>) -> T,
) -> Result<ProgramRun<T>, ProgramError> {
    let mut backend = ProgramBackend::new(mesh, session, rng, options)?;
    let value = program(&mut backend);
    let engine = backend.finish()?;
    Ok(ProgramRun {
        value,
        ands: engine.next_and,
        batches: engine.batches,
        online_rounds: engine.online_rounds,
        offline: engine.offline,
        online: engine.online,
        setup_bytes: engine.setup_bytes,
    })
}

fn peer_error(e: NpartyError) -> ProgramError {
    ProgramError::Peer(PeerError::new(e))
}

impl<'a> ProgramBackend<'a> {
    /// Sets up this party's side (Δ, base OTs with every party); [`run_program`] is the
    /// way in, as it also checks the end.
    fn new(
        mesh: &'a mut Mesh,
        session: &[u8; 32],
        rng: &'a mut Rng,
        options: &BmrOptions,
    ) -> Result<ProgramBackend<'a>, ProgramError> {
        let engine = Engine::setup(mesh, session, rng, options, INITIAL_SLOTS).map_err(peer_error)?;
        let mut live = vec![false; INITIAL_SLOTS];
        live[ONE as usize] = true;
        Ok(ProgramBackend {
            mesh,
            rng,
            engine,
            batch_ands: options.batch_ands,
            ops: Vec::new(),
            ands_in_batch: 0,
            slots: 1,
            live,
            free: Vec::new(),
            pending: PendingInputs::default(),
            transcript: blake3::Hasher::new_derive_key("mixgc nparty BMR program steps"),
            syncs: 0,
            inputs: 0,
            error: None,
        })
    }

    /// Ends the run: checks with every party that all programs ended alike. Gates after
    /// the last output are never garbled: nobody could learn anything from them.
    fn finish(mut self) -> Result<Engine, ProgramError> {
        self.check()?;
        if let Err(e) = self.sync(b"end", &[]).and_then(|()| self.mesh.flush()) {
            return Err(self.fail(peer_error(e)));
        }
        Ok(self.engine)
    }

    /// Wire slots taken so far: the most wires the program held at once (plus the
    /// constant 1), what this party's state grows with.
    pub fn slots(&self) -> u32 {
        self.slots
    }

    /// The error of an earlier step, if any.
    fn check(&self) -> Result<(), ProgramError> {
        self.error.clone().map_or(Ok(()), Err)
    }

    /// Keeps the first failure; reports it.
    fn fail(&mut self, e: ProgramError) -> ProgramError {
        self.mesh.abort_all(&e.to_string());
        self.error.get_or_insert(e).clone()
    }

    /// A free slot for a new wire (slot 0 on failure, reported at the next input/output).
    fn alloc(&mut self) -> u32 {
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
                if self.error.is_none() {
                    self.fail(ProgramError::OutOfRange(format!(
                        "the program holds more than {MAX_SLOTS} live wires at once"
                    )));
                }
                return ONE;
            }
        };
        self.live[s as usize] = true;
        s
    }

    /// Appends `op`, running the batch first if it is full.
    fn push(&mut self, op: Op) {
        if self.error.is_some() {
            return;
        }
        let is_and = matches!(op, Op::And { .. });
        if (is_and && self.ands_in_batch == self.batch_ands)
            || self.ops.len() + self.pending.slots.len() >= MAX_BATCH_OPS
        {
            if let Err(e) = self.flush() {
                self.fail(e);
                return;
            }
        }
        self.ops.push(op);
        self.ands_in_batch += usize::from(is_and);
    }

    /// A gate: its output in a fresh slot.
    fn gate(&mut self, make: impl FnOnce(u32) -> Op) -> u32 {
        let out = self.alloc();
        self.push(make(out));
        out
    }

    /// Garbles and evaluates what is pending, after checking that every party is at the
    /// same point.
    fn flush(&mut self) -> Result<(), ProgramError> {
        if self.ops.is_empty() && self.pending.slots.is_empty() {
            return Ok(());
        }
        self.sync(b"batch", &[]).map_err(peer_error)?;
        self.run_pending().map_err(peer_error)
    }

    /// Runs the pending batch with the pending inputs' step (the caller synced first).
    fn run_pending(&mut self) -> Result<(), NpartyError> {
        if self.ops.is_empty() && self.pending.slots.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.pending);
        let n = self.mesh.parties();
        let mut owned = vec![Vec::new(); n];
        for (i, &p) in pending.owners.iter().enumerate() {
            owned[p].push(i);
        }
        self.engine.run_batch(
            self.mesh,
            &self.ops,
            &pending.slots,
            self.rng,
            |mesh, active, delta| {
                exchange_input_bits(
                    mesh,
                    &owned,
                    &pending.slots,
                    &pending.shares,
                    delta,
                    active,
                    &pending.mine,
                )
            },
        )?;
        self.ops.clear();
        self.ands_in_batch = 0;
        Ok(())
    }

    /// Adds the pending ops and the step `what` (with its `detail`) to the transcript and
    /// checks with every party that its transcript is the same.
    fn sync(&mut self, what: &[u8], detail: &[u8]) -> Result<(), NpartyError> {
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
        self.mesh.set_phase("the digests of the program's steps");
        self.mesh.send_all(Tag::ProgramHeader, &digest)?;
        for p in self.mesh.peers() {
            let theirs = self.mesh.recv_exact(p, Tag::ProgramHeader, digest.len())?;
            if theirs != digest {
                return Err(NpartyError::Mismatch {
                    party: p,
                    what: format!(
                        "its program diverged from this party's before step #{} (a {}): \
                         different gates, inputs or outputs",
                        self.syncs,
                        String::from_utf8_lossy(what)
                    ),
                });
            }
        }
        Ok(())
    }

    /// Opens `wires` to the parties `members` (every party names the same ones).
    fn open(&mut self, wires: &[u32], members: &[usize]) -> Result<Option<Vec<bool>>, ProgramError> {
        self.check()?;
        let mut detail = Vec::with_capacity(8 + members.len());
        detail.extend_from_slice(&(wires.len() as u64).to_le_bytes());
        detail.extend(members.iter().map(|&p| p as u8));
        let result = (|| {
            self.sync(b"output", &detail)?;
            self.run_pending()?;
            let t = Instant::now();
            let (bits, rounds) = open_bits(
                self.mesh,
                members,
                wires,
                &self.engine.shares,
                &self.engine.active,
            )?;
            self.engine.online_rounds += rounds;
            self.engine.online += t.elapsed();
            Ok(bits)
        })();
        result.map_err(|e| {
            let e = peer_error(e);
            self.fail(e)
        })
    }
}

impl Backend for ProgramBackend<'_> {
    type Wire = u32;

    fn xor(&mut self, a: u32, b: u32) -> u32 {
        self.gate(|out| Op::Xor { a, b, out })
    }

    fn and(&mut self, a: u32, b: u32) -> u32 {
        self.gate(|out| Op::And { a, b, out })
    }

    fn not(&mut self, a: u32) -> u32 {
        self.gate(|out| Op::Xor { a, b: ONE, out })
    }

    fn constant(&mut self, value: bool) -> u32 {
        self.gate(|out| Op::Const { value, out })
    }

    fn input(
        &mut self,
        owner: PartyId,
        width: u32,
        value: Option<&[bool]>,
    ) -> Result<Vec<u32>, ProgramError> {
        self.check()?;
        let (me, n) = (self.mesh.me(), self.mesh.parties());
        if owner.index() >= n {
            return Err(ProgramError::NoSuchParty(owner));
        }
        let index = self.inputs;
        let mine = if owner.index() == me {
            Some(checked_input(index, owner, width, value)?)
        } else {
            None
        };
        if self.slots as u64 - self.free.len() as u64 + u64::from(width) > u64::from(MAX_SLOTS) {
            return Err(ProgramError::OutOfRange(format!(
                "input #{index} of {width} bits would hold more than {MAX_SLOTS} live wires"
            )));
        }
        self.inputs += 1;
        // Inputs start a batch: a slot reused by an earlier op of the batch would be
        // overwritten when the batch is replayed.
        if !self.ops.is_empty() {
            if let Err(e) = self.flush() {
                return Err(self.fail(e));
            }
        }
        let mut record = [0u8; 12];
        record[..8].copy_from_slice(&(owner.index() as u64).to_le_bytes());
        record[8..].copy_from_slice(&width.to_le_bytes());
        self.transcript.update(b"input");
        self.transcript.update(&record);
        let mut wires = Vec::with_capacity(width as usize);
        for bit in 0..width as usize {
            if self.pending.slots.len() >= MAX_BATCH_OPS {
                if let Err(e) = self.flush() {
                    return Err(self.fail(e));
                }
            }
            let s = self.alloc();
            self.engine.shares.fresh(s as usize, self.rng);
            let p = &mut self.pending;
            p.slots.push(s);
            p.owners.push(owner.index());
            p.shares.lambda.push(self.engine.shares.lambda[s as usize]);
            p.shares.key0.push(self.engine.shares.key0[s as usize]);
            if let Some(bits) = mine {
                p.mine.push(bits[bit]);
            }
            wires.push(s);
        }
        self.check()?;
        Ok(wires)
    }

    fn output(&mut self, wires: &[u32]) -> Result<Option<Vec<bool>>, ProgramError> {
        let all: Vec<usize> = (0..self.mesh.parties()).collect();
        self.open(wires, &all)
    }

    fn output_to(&mut self, wires: &[u32], to: Audience) -> Result<Option<Vec<bool>>, ProgramError> {
        let n = self.mesh.parties();
        if let Some(p) = to.parties().find(|p| p.index() >= n) {
            return Err(ProgramError::NoSuchParty(p));
        }
        let members: Vec<usize> = to.parties().map(|p| p.index()).collect();
        self.open(wires, &members)
    }

    fn release(&mut self, wires: &[u32]) {
        for &w in wires {
            if w != ONE && self.live.get(w as usize).copied().unwrap_or(false) {
                self.live[w as usize] = false;
                self.free.push(w);
            }
        }
    }
}
