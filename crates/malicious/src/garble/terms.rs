//! What both parties agree on for a run (checked in a header exchange before any
//! preprocessing), and the test-only deviations that make a party cheat.

use mixgc_circuit::{Audience, Circuit, PartyId};
use mixgc_compile::StreamHeader;
use mixgc_net::Channel;

use crate::MaliciousError;

/// AND gates preprocessed and garbled per batch unless the caller says otherwise.
pub const DEFAULT_BATCH_ANDS: usize = 1 << 16;
/// The largest batch: about 0.85 KB per AND gate per party, two batches in flight
/// (3.5 GiB here).
pub const MAX_BATCH_ANDS: usize = 1 << 22;
/// Most wire slots (live wires) a run may hold: about 64 bytes of state each per party.
pub const MAX_SLOTS: u32 = 1 << 26;

/// The terms of one run, the same on both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Terms {
    /// The garbler owns input values `0..garbler_values`, the evaluator the rest.
    pub garbler_values: usize,
    /// Who learns the outputs.
    pub reveal: Audience,
    /// AND gates preprocessed, garbled and evaluated per batch (TinyGarble2 thesis §3.3.2):
    /// the garbled tables and triples of one batch are freed before the next is made.
    pub batch_ands: usize,
}

impl Terms {
    /// The terms where the garbler owns the first `garbler_values` inputs, everyone learns
    /// the outputs, and batches have [`DEFAULT_BATCH_ANDS`] AND gates.
    pub fn new(garbler_values: usize) -> Terms {
        Terms {
            garbler_values,
            reveal: Audience::BOTH,
            batch_ands: DEFAULT_BATCH_ANDS,
        }
    }

    /// Checks the terms against the stream's `header`; returns the number of the
    /// garbler's input bits.
    pub(crate) fn check(&self, header: &StreamHeader) -> Result<usize, MaliciousError> {
        header
            .check()
            .map_err(|e| MaliciousError::Input(format!("the gate stream is invalid: {e}")))?;
        if !(1..=MAX_BATCH_ANDS).contains(&self.batch_ands) {
            return Err(MaliciousError::Input(format!(
                "a batch must have 1 to {MAX_BATCH_ANDS} AND gates, got {}",
                self.batch_ands
            )));
        }
        if header.num_slots() > MAX_SLOTS {
            return Err(MaliciousError::Input(format!(
                "the gate stream needs {} wire slots, more than the {MAX_SLOTS} a run may hold",
                header.num_slots()
            )));
        }
        let widths = header.input_widths();
        if self.garbler_values > widths.len() {
            return Err(MaliciousError::Input(format!(
                "the garbler cannot own {} input values: the circuit has {}",
                self.garbler_values,
                widths.len()
            )));
        }
        let known = [
            Audience::BOTH,
            Audience::only(PartyId::GARBLER),
            Audience::only(PartyId::EVALUATOR),
        ];
        if !known.contains(&self.reveal) {
            return Err(MaliciousError::Input(format!(
                "a two-party run reveals to both, the garbler or the evaluator, not to {}",
                self.reveal
            )));
        }
        Ok(widths[..self.garbler_values].iter().map(|&w| w as usize).sum())
    }

    /// The header both parties send: stream digest, ownership, audience, batch size.
    fn header(&self, stream: &StreamHeader) -> [u8; 49] {
        let mut h = [0u8; 49];
        h[..32].copy_from_slice(&stream.stream_digest());
        h[32..40].copy_from_slice(&(self.garbler_values as u64).to_le_bytes());
        h[40..48].copy_from_slice(&(self.batch_ands as u64).to_le_bytes());
        h[48] = u8::from(self.reveal.contains(PartyId::GARBLER))
            | u8::from(self.reveal.contains(PartyId::EVALUATOR)) << 1;
        h
    }

    /// Exchanges headers (the garbler first) and fails, naming what differs, unless the
    /// peer runs the same circuit under the same terms.
    pub(crate) fn agree<C: Channel + ?Sized>(
        &self,
        ch: &mut C,
        stream: &StreamHeader,
        garbler: bool,
    ) -> Result<(), MaliciousError> {
        ch.set_phase("the malicious run's header");
        let ours = self.header(stream);
        let mut theirs = [0u8; 49];
        if garbler {
            ch.send(&ours)?;
            ch.flush()?;
            ch.recv(&mut theirs)?;
        } else {
            ch.recv(&mut theirs)?;
            ch.send(&ours)?;
            ch.flush()?;
        }
        let what = if ours[..32] != theirs[..32] {
            "the peer runs another circuit or schedule (stream digests differ)"
        } else if ours[32..40] != theirs[32..40] {
            "the parties disagree on which input values the garbler owns"
        } else if ours[40..48] != theirs[40..48] {
            "the parties disagree on the batch size (AND gates per batch)"
        } else if ours[48] != theirs[48] {
            "the parties disagree on who learns the outputs"
        } else {
            return Ok(());
        };
        Err(MaliciousError::Protocol(what.to_string()))
    }
}

/// Checks this party's input values against the widths of the values it owns.
pub(crate) fn check_inputs(
    widths: &[u32],
    owned: std::ops::Range<usize>,
    inputs: &[Vec<bool>],
) -> Result<Vec<bool>, MaliciousError> {
    let widths = &widths[owned.clone()];
    if inputs.len() != widths.len() {
        return Err(MaliciousError::Input(format!(
            "this party owns {} input value(s) (values {}..{}), got {}",
            widths.len(),
            owned.start,
            owned.end,
            inputs.len()
        )));
    }
    for (i, (v, &w)) in inputs.iter().zip(widths).enumerate() {
        if v.len() != w as usize {
            return Err(MaliciousError::Input(format!(
                "input value {} has {} bits, the circuit wants {w}",
                owned.start + i,
                v.len()
            )));
        }
    }
    Ok(inputs.concat())
}

/// Validates `circuit` and compiles it into the gate stream both parties run (the
/// default batched schedule, so both sides compile the same stream).
pub(crate) fn compiled(circuit: &Circuit) -> Result<mixgc_compile::CompiledCircuit, MaliciousError> {
    circuit
        .validate()
        .map_err(|e| MaliciousError::Input(format!("the circuit is invalid: {e}")))?;
    Ok(mixgc_compile::compile(circuit))
}

/// Settings each party picks for itself.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// Tests only: a seed that makes this party's labels predictable (never in real use).
    pub insecure_seed: Option<u64>,
    /// Tests only: make this party deviate from the protocol.
    #[doc(hidden)]
    pub deviation: Deviation,
}

/// Ways a test makes a party cheat (each the subject of a "cheating caught" test).
#[doc(hidden)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Deviation {
    #[default]
    Honest,
    /// Garbler: corrupts AND gate `gate` (numbered in the run): `parts` bit 0 flips its bit
    /// b_γ, bit 1 the lsb of G_0 (used when ẑ_α = 1), bit 2 the lsb of G_1 (when ẑ_β = 1).
    FlipGarbledGate { gate: u64, parts: u8 },
    /// Evaluator: reports the masked output of AND gate `gate` flipped.
    FlipMaskedAndOutput { gate: u64 },
    /// Garbler: sends a wrong label for its own input bit `bit`.
    WrongGarblerInputLabel { bit: usize },
    /// Garbler: sends a wrong label for the evaluator's input bit `bit` when its masked
    /// value is 0 (a selective-failure attempt).
    WrongEvaluatorLabelOnZero { bit: usize },
    /// Either party: a wrong MAC hash in the Beaver opening of the AND masks.
    WrongAndMaskMac,
    /// Garbler: a wrong MAC on its share of the mask of the evaluator's input bit `bit`.
    /// Evaluator: a wrong MAC on its share of the mask of the garbler's input bit `bit`.
    WrongInputMaskMac { bit: usize },
    /// Either party: a wrong MAC on its share of the mask of output bit `bit`.
    WrongOutputMaskMac { bit: usize },
    /// Evaluator: a wrong label for output bit `bit` (to the garbler).
    WrongOutputLabel { bit: usize },
}
