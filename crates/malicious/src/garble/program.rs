//! A malicious backend of `mixgc_program::Backend`: every Boolean program runs unchanged
//! under authenticated garbling (TinyGarble2 thesis §3.4.1: the same program in either
//! security model).
//!
//! Gates are recorded into a pending batch over wire slots. Slots are counted holders
//! ([`SlotTable`]: the values holding a wire, the scope of the gadget that made it) and
//! reused once free, so the per-wire state (⟨λ⟩ with its MAC and key, the zero label, the
//! masked bit) is O(live wires), not O(gates); the batch is preprocessed, garbled and evaluated when it holds
//! `batch_ands` AND gates, and before every input and output (an input's new slots may
//! reuse slots the pending gates still read). Both parties run the same program, so they
//! cut the same batches. A failure inside a gate call is kept and reported at the next
//! input or output, as `Backend` asks.

use mixgc_circuit::{Audience, PartyId};
use mixgc_compile::{Gate, Run, RunKind, MAX_AND_RUN, NOT_SLOT};
use mixgc_net::Channel;
use mixgc_program::{checked_input, Backend, PeerError, ProgramError, SlotTable};

use super::batch::Batch;
use super::evaluator::Evaluator;
use super::garbler::Garbler;
use super::terms::{Settings, MAX_BATCH_ANDS, MAX_SLOTS};
use crate::auth::{Preprocessor, Role};
use crate::MaliciousError;

enum Side {
    Garbler(Box<Garbler>),
    Evaluator(Box<Evaluator>),
}

/// One party of a Boolean program under authenticated garbling: build it on both sides
/// with the same `batch_ands`, then run the same program on it.
pub struct MaliciousProgram<'a, C: Channel + ?Sized, P: Preprocessor> {
    ch: &'a mut C,
    prep: &'a mut P,
    side: Side,
    pending: Batch,
    batch_ands: usize,
    slots: SlotTable,
    inputs: usize,
    failed: Option<PeerError>,
}

impl<'a, C: Channel + ?Sized, P: Preprocessor> MaliciousProgram<'a, C, P> {
    /// The party `prep.role()` says, over `ch`; both parties must pass the same
    /// `batch_ands` (compared here, before anything else is sent).
    pub fn new(
        ch: &'a mut C,
        prep: &'a mut P,
        batch_ands: usize,
        settings: &Settings,
    ) -> Result<Self, MaliciousError> {
        if !(1..=MAX_BATCH_ANDS).contains(&batch_ands) {
            return Err(MaliciousError::Input(format!(
                "a batch must have 1 to {MAX_BATCH_ANDS} AND gates, got {batch_ands}"
            )));
        }
        let delta = prep.delta().0;
        let role = prep.role();
        if role == Role::Garbler && !delta.lsb() {
            return Err(MaliciousError::Input("the garbler's Δ_A must have lsb 1".into()));
        }
        agree_batch(ch, batch_ands, role)?;
        let side = match role {
            Role::Garbler => {
                let mut g = Garbler::new(delta, settings, 1);
                g.start(ch)?;
                Side::Garbler(Box::new(g))
            }
            Role::Evaluator => {
                let mut e = Evaluator::new(delta, settings, 1);
                e.start(ch)?;
                Side::Evaluator(Box::new(e))
            }
        };
        Ok(MaliciousProgram {
            ch,
            prep,
            side,
            pending: Batch::default(),
            batch_ands,
            slots: SlotTable::new(NOT_SLOT + 1, MAX_SLOTS),
            inputs: 0,
            failed: None,
        })
    }

    /// AND gates preprocessed, garbled and evaluated so far.
    pub fn ands(&self) -> u64 {
        match &self.side {
            Side::Garbler(g) => g.ands_done(),
            Side::Evaluator(e) => e.ands_done(),
        }
    }

    /// Wire slots alive now (the NOT slot included): what the per-wire state holds.
    pub fn live_slots(&self) -> usize {
        self.slots.live()
    }

    /// The most wire slots alive at once so far; the per-wire state is this many slots
    /// (about 64 bytes each per party).
    pub fn peak_live_slots(&self) -> usize {
        self.slots.peak()
    }

    fn role(&self) -> Role {
        match self.side {
            Side::Garbler(_) => Role::Garbler,
            Side::Evaluator(_) => Role::Evaluator,
        }
    }

    fn fail(&mut self, e: MaliciousError) {
        if self.failed.is_none() {
            self.failed = Some(PeerError::new(e));
        }
    }

    fn check_failed(&self) -> Result<(), ProgramError> {
        match &self.failed {
            Some(e) => Err(ProgramError::Peer(e.clone())),
            None => Ok(()),
        }
    }

    /// A free slot (a reused one first); at the cap, the failure is kept and NOT_SLOT
    /// returned.
    fn alloc(&mut self) -> u32 {
        match self.slots.alloc() {
            Ok(slot) => {
                let n = self.slots.len();
                match &mut self.side {
                    Side::Garbler(g) => g.ensure_slots(n),
                    Side::Evaluator(e) => e.ensure_slots(n),
                }
                slot
            }
            Err(full) => {
                self.fail(MaliciousError::Input(full.to_string()));
                NOT_SLOT
            }
        }
    }

    fn push(&mut self, kind: RunKind, a: u32, b: u32) -> u32 {
        if self.failed.is_some() {
            return NOT_SLOT;
        }
        let out = self.alloc();
        match self.pending.runs.last_mut() {
            Some(run) if run.kind == kind && kind != RunKind::And => run.len += 1,
            _ => self.pending.runs.push(Run { kind, len: 1 }),
        }
        self.pending.gates.push(Gate { a, b, out });
        out
    }

    /// Preprocesses, garbles and evaluates the pending gates.
    fn flush(&mut self) {
        if self.failed.is_some() || self.pending.runs.is_empty() {
            return;
        }
        let batch = std::mem::take(&mut self.pending);
        let r = match &mut self.side {
            Side::Garbler(g) => g.batch(self.ch, self.prep, batch),
            Side::Evaluator(e) => e.batch(self.ch, self.prep, batch),
        };
        if let Err(e) = r {
            self.fail(e);
        }
    }
}

/// Both parties compare their batch size (the garbler first).
fn agree_batch<C: Channel + ?Sized>(ch: &mut C, batch_ands: usize, role: Role) -> Result<(), MaliciousError> {
    ch.set_phase("the malicious program's header");
    let mut ours = *b"mixgc malicious program\0\0\0\0\0\0\0\0\0";
    ours[24..].copy_from_slice(&(batch_ands as u64).to_le_bytes());
    let mut theirs = [0u8; 32];
    if role == Role::Garbler {
        ch.send(&ours)?;
        ch.flush()?;
        ch.recv(&mut theirs)?;
    } else {
        ch.recv(&mut theirs)?;
        ch.send(&ours)?;
        ch.flush()?;
    }
    if theirs[..24] != ours[..24] {
        return Err(MaliciousError::Protocol(
            "the peer does not run a malicious program".into(),
        ));
    }
    if theirs != ours {
        return Err(MaliciousError::Protocol(
            "the parties disagree on the batch size (AND gates per batch)".into(),
        ));
    }
    Ok(())
}

impl<C: Channel + ?Sized, P: Preprocessor> Backend for MaliciousProgram<'_, C, P> {
    type Wire = u32;

    fn xor(&mut self, a: u32, b: u32) -> u32 {
        self.push(RunKind::Xor, a, b)
    }

    fn and(&mut self, a: u32, b: u32) -> u32 {
        self.and_many(&[(a, b)])[0]
    }

    fn and_many(&mut self, pairs: &[(u32, u32)]) -> Vec<u32> {
        if self.failed.is_some() {
            return vec![NOT_SLOT; pairs.len()];
        }
        let mut outs = Vec::with_capacity(pairs.len());
        for group in pairs.chunks(MAX_AND_RUN) {
            self.pending.runs.push(Run {
                kind: RunKind::And,
                len: group.len() as u32,
            });
            for &(a, b) in group {
                let out = self.alloc();
                self.pending.gates.push(Gate { a, b, out });
                outs.push(out);
            }
            self.pending.ands += group.len();
        }
        if self.pending.ands >= self.batch_ands {
            self.flush();
        }
        outs
    }

    /// ¬a = a ⊕ 1, the NOT slot holding the constant 1.
    fn not(&mut self, a: u32) -> u32 {
        self.push(RunKind::Xor, a, NOT_SLOT)
    }

    fn constant(&mut self, value: bool) -> u32 {
        self.push(RunKind::Const, u32::from(value), 0)
    }

    fn input(
        &mut self,
        owner: PartyId,
        width: u32,
        value: Option<&[bool]>,
    ) -> Result<Vec<u32>, ProgramError> {
        self.check_failed()?;
        let role = match owner {
            PartyId::GARBLER => Role::Garbler,
            PartyId::EVALUATOR => Role::Evaluator,
            other => return Err(ProgramError::NoSuchParty(other)),
        };
        let index = self.inputs;
        self.inputs += 1;
        let mine = if role == self.role() {
            checked_input(index, owner, width, value)?.to_vec()
        } else {
            Vec::new()
        };
        self.flush();
        self.check_failed()?;
        let slots: Vec<u32> = (0..width).map(|_| self.alloc()).collect();
        let garbler_bits = if role == Role::Garbler { width as usize } else { 0 };
        let r = match &mut self.side {
            Side::Garbler(g) => g.inputs(self.ch, self.prep, &slots, garbler_bits, &mine),
            Side::Evaluator(e) => e.inputs(self.ch, self.prep, &slots, garbler_bits, &mine),
        };
        if let Err(e) = r {
            self.fail(e);
        }
        self.check_failed()?;
        Ok(slots)
    }

    fn output(&mut self, wires: &[u32]) -> Result<Option<Vec<bool>>, ProgramError> {
        self.output_to(wires, Audience::BOTH)
    }

    fn output_to(&mut self, wires: &[u32], to: Audience) -> Result<Option<Vec<bool>>, ProgramError> {
        self.check_failed()?;
        let known = [
            Audience::BOTH,
            Audience::only(PartyId::GARBLER),
            Audience::only(PartyId::EVALUATOR),
        ];
        if !known.contains(&to) {
            return Err(ProgramError::Unsupported(
                "a two-party run reveals to both, the garbler or the evaluator",
            ));
        }
        self.flush();
        self.check_failed()?;
        let r = match &mut self.side {
            Side::Garbler(g) => g.outputs(self.ch, wires, to),
            Side::Evaluator(e) => e.outputs(self.ch, wires, to),
        };
        r.map_err(|e| {
            self.fail(e);
            self.check_failed().unwrap_err()
        })
    }

    /// A slot is freed once no value and no open scope holds it (the NOT slot never).
    /// Its state is overwritten when the slot is handed out again; pending gates that read
    /// it were recorded before the gate that reuses it, and run in order.
    fn release(&mut self, wires: &[u32]) {
        self.slots.release(wires);
    }

    fn retain(&mut self, wires: &[u32]) {
        self.slots.retain(wires);
    }

    fn open_scope(&mut self) {
        self.slots.open_scope();
    }

    fn close_scope(&mut self, keep: &[u32]) {
        self.slots.close_scope(keep);
    }
}
