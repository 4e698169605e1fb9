//! Programs on n parties by BMR, gate by gate in bounded memory (the item 5).
//!
//! [`ProgramBackend`] runs a program written on [`Backend`] as one party of a mesh, without
//! recording it, on the wire state machine [`Labels`] (shared with the Y form of the mixed
//! programs): a wire is a slot of the BMR state, taken from a free list (slots come back
//! on [`Backend::release`]); gates append ops to the current batch. A batch is garbled
//! jointly and evaluated (the machinery of the stream path, BLO16 §3–4) when it holds [`BmrOptions::batch_ands`] ANDs, before an input is declared after
//! gates, and at an output. Memory is the live wires plus one batch, whatever the
//! program's length; the online phase stays a constant number of rounds per batch.
//!
//! Every party runs the same program, so the batches line up and every party counts the
//! same AND indices. A program that diverges is caught: before every step that talks to
//! the other parties (a batch, an output, the end) each party sends a digest of everything
//! its program did so far (ops, inputs' owners and widths, outputs' audiences) and
//! compares the others' with its own, so a divergence is a [`NpartyError::Mismatch`]
//! naming the party, never a hang or a wrong output.

use std::time::Duration;

use mixgc_circuit::{Audience, PartyId};
use mixgc_core::Rng;
use mixgc_program::{checked_input, Backend, PeerError, ProgramError};

use super::labels::{Labels, ONE};
use super::BmrOptions;
use crate::{Mesh, NpartyError, MAX_SLOTS};

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

/// One party's side of a program run by BMR (see the module docs): the [`Labels`] state
/// machine behind the gate-level [`Backend`]. Wires are slot handles; a released wire must
/// not be used again.
pub struct ProgramBackend<'a> {
    mesh: &'a mut Mesh,
    rng: &'a mut Rng,
    labels: Labels,
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
    let labels = Labels::setup(mesh, session, rng, options).map_err(peer_error)?;
    let mut backend = ProgramBackend {
        mesh,
        rng,
        labels,
        inputs: 0,
        error: None,
    };
    let value = program(&mut backend);
    let engine = backend.finish()?.engine;
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
    match e {
        NpartyError::Usage(why) => ProgramError::OutOfRange(why),
        e => ProgramError::Peer(PeerError::new(e)),
    }
}

impl ProgramBackend<'_> {
    /// Ends the run: checks with every party that all programs ended alike.
    fn finish(mut self) -> Result<Labels, ProgramError> {
        self.check()?;
        if let Err(e) = self.labels.finish(self.mesh) {
            return Err(self.fail(peer_error(e)));
        }
        Ok(self.labels)
    }

    /// Wire slots taken so far: the most wires the program held at once (plus the
    /// constant 1), what this party's state grows with.
    pub fn slots(&self) -> u32 {
        self.labels.slots()
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

    /// A gate by `make` (slot 0 on failure, reported at the next input/output).
    fn gate(
        &mut self,
        make: impl FnOnce(&mut Labels, &mut Mesh, &mut Rng) -> Result<u32, NpartyError>,
    ) -> u32 {
        if self.error.is_some() {
            return ONE;
        }
        match make(&mut self.labels, self.mesh, self.rng) {
            Ok(w) => w,
            Err(e) => {
                self.fail(peer_error(e));
                ONE
            }
        }
    }

    /// Opens `wires` to the parties `members` (every party names the same ones).
    fn open(&mut self, wires: &[u32], members: &[usize]) -> Result<Option<Vec<bool>>, ProgramError> {
        self.check()?;
        self.labels
            .open(self.mesh, self.rng, wires, members)
            .map_err(|e| self.fail(peer_error(e)))
    }
}

impl Backend for ProgramBackend<'_> {
    type Wire = u32;

    fn xor(&mut self, a: u32, b: u32) -> u32 {
        self.gate(|l, m, r| l.xor(m, r, a, b))
    }

    fn and(&mut self, a: u32, b: u32) -> u32 {
        self.gate(|l, m, r| l.and(m, r, a, b))
    }

    fn not(&mut self, a: u32) -> u32 {
        self.gate(|l, m, r| l.not(m, r, a))
    }

    fn constant(&mut self, value: bool) -> u32 {
        self.gate(|l, m, r| l.constant(m, r, value))
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
        if self.labels.live_wires() + u64::from(width) > u64::from(MAX_SLOTS) {
            return Err(ProgramError::OutOfRange(format!(
                "input #{index} of {width} bits would hold more than {MAX_SLOTS} live wires"
            )));
        }
        self.inputs += 1;
        self.labels
            .input(self.mesh, self.rng, owner.index(), width, mine)
            .map_err(|e| self.fail(peer_error(e)))
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
        self.labels.release(wires);
    }
}
