//! Sequential garbling on the compiled-stream path (TinyGarble, thesis §3.3.1 Eq. 3.1: the
//! same function for C cycles).
//!
//! Each cycle runs the netlist's combinational core as a compiled stream, specialized to
//! what is public at the start of the cycle ([`specialize`]: the registers' public values
//! folded, so a round counter and what it selects cost no AND); the labels of cycle t's
//! next-state outputs are cycle t + 1's state input labels, never decoded. The cycles go
//! out back to back on the table stream, cut into segments of at most
//! [`MAX_SEGMENT_CYCLES`] cycles and [`MAX_SEGMENT_OT_BITS`] evaluator input bits: one OT
//! extension per segment covers the evaluator's inputs of all its cycles (one for a whole
//! AES run), so memory is the core's slots and one segment's labels, whatever C.
//!
//! Frames: the program handshake binds `sequential netlist=… cycles=C reveal-every-cycle=B
//! engine=compiled-stream`; per segment the OT extension, then (first segment only) one
//! `GarblerLabels` frame with the garbler's `once` and `init` port labels and the constants',
//! one `GarblerLabels` frame with the garbler's per-cycle labels of all the segment's cycles
//! (if it has per-cycle ports), the tables of all its cycles as one stream cut by size alone
//! (so a frame spans cycles and a cycle costs no frame of its own; frames of at most
//! [`MAX_SEQUENTIAL_FRAME_BYTES`]), and, if the evaluator
//! learns outputs and the segment has revealed cycles, one `OutputDecoding` frame for them.
//! A garbler that learns outputs gets the `OutputColours` of a segment's revealed cycles at
//! the segment's end.

mod chain;
mod evaluate;
mod garble;
pub mod specialize;

use mixgc_circuit::sequential::{InputMode, Sequential};

use crate::{Audience, PartyId, SessionError};

pub use chain::{ChainInput, ChainOutput, ChainStage, MAX_CHAIN_STAGES};
pub use specialize::Specializers;

/// Most cycles in one segment.
pub const MAX_SEGMENT_CYCLES: u64 = 1 << 16;
/// Most per-cycle input bits of either party in one segment (the evaluator's in one OT
/// extension, the garbler's in one labels frame).
pub const MAX_SEGMENT_OT_BITS: usize = 1 << 16;
/// Most output bits revealed to the garbler in one segment (its colours frame).
const MAX_SEGMENT_OUTPUT_BITS: usize = 1 << 20;
/// Largest table frame of a sequential run (the session's target, if smaller, wins). A
/// batch of a combinational circuit ends each instance's tables with a shorter frame (an
/// unrolled AES-128's frames are at most its 200 KiB of tables), but the cycles' tables are
/// one stream with no such end: capped here, the evaluator starts on rows as early as it
/// does on the unrolled circuit's (on 2 loaded cores, 3,000 AES cycles took a median
/// 325 ms with 256 KiB frames against 976–1,019 ms with 512 KiB and 1 MiB; `docs/hdl.md`).
pub const MAX_SEQUENTIAL_FRAME_BYTES: usize = 256 << 10;

/// A sequential run both parties agree on.
#[derive(Clone, Copy, Debug)]
pub struct SequentialRun<'a> {
    pub net: &'a Sequential,
    /// Clock cycles, at least 1.
    pub cycles: u64,
    /// Reveal every cycle's outputs (else the last cycle's only).
    pub every_cycle: bool,
    pub reveal: Audience,
}

/// A party's values for its ports: `value(port, cycle)`, asked at cycle 0 only for `once`
/// and `init` ports; each the port's width.
pub type PortInput<'a> = dyn FnMut(usize, u64) -> Vec<bool> + 'a;
/// Receives each revealed cycle's outputs this party learns: the cycle, one bit vector per
/// output port.
pub type CycleOutput<'a> = dyn FnMut(u64, Vec<Vec<bool>>) + 'a;

impl SequentialRun<'_> {
    /// What the parties must agree on, as `key=value` words (a mismatch names each).
    pub fn description(&self) -> String {
        let digest: String = self.net.digest()[..12]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!(
            "sequential netlist={digest} cycles={} reveal-every-cycle={} engine=compiled-stream",
            self.cycles, self.every_cycle
        )
    }

    fn check(&self) -> Result<(), SessionError> {
        self.net
            .validate()
            .map_err(|e| SessionError::Input(format!("sequential netlist: {e}")))?;
        if self.cycles == 0 {
            return Err(SessionError::Input(
                "a sequential run needs at least one cycle".into(),
            ));
        }
        Ok(())
    }
}

/// One run of the engine after the handshake: a whole `--cycles` run, or a chain's stage.
pub(crate) struct StageRun<'r, 'n> {
    pub run: &'r SequentialRun<'n>,
    /// Labels of the first ports (one vector per port, its width), carried from the
    /// previous stage (garbler: zero-labels; evaluator: active labels) and held for every
    /// cycle; empty for a run of its own.
    pub fed: Vec<Vec<mixgc_core::Block>>,
    /// Whether the outputs are revealed (else they stay labels, for the next stage).
    pub reveals: bool,
}

/// How the bits of a run are laid out, derived by both parties from the netlist alone.
pub(crate) struct Shape {
    /// Bits of the garbler's per-cycle ports (its labels frame each cycle).
    pub g_cycle_bits: usize,
    /// Bits of the evaluator's per-cycle ports (OT'd each cycle).
    pub e_cycle_bits: usize,
    /// Bits of the garbler's and evaluator's `once` and `init` ports (sent or OT'd once).
    pub g_first_bits: usize,
    pub e_first_bits: usize,
    /// Output port widths and their total.
    pub out_widths: Vec<u32>,
    pub out_bits: usize,
    /// Cycles per segment.
    pub per_segment: u64,
}

impl Shape {
    /// The shape of `run` whose first `fed` ports take labels carried in (a chain's
    /// previous stage's outputs): those take no party input.
    pub(crate) fn new(run: &SequentialRun<'_>, fed: usize) -> Shape {
        let net = run.net;
        let bits = |owner: PartyId, per_cycle: bool| -> usize {
            net.inputs
                .iter()
                .enumerate()
                .filter(|(i, p)| {
                    *i >= fed && p.owner == owner && (p.mode == InputMode::PerCycle) == per_cycle
                })
                .map(|(_, p)| p.width as usize)
                .sum()
        };
        let out_widths: Vec<u32> = net.outputs.iter().map(|p| p.width).collect();
        let out_bits = out_widths.iter().map(|&w| w as usize).sum::<usize>();
        let e_cycle_bits = bits(PartyId::EVALUATOR, true);
        let g_cycle_bits = bits(PartyId::GARBLER, true);
        let mut per_segment = MAX_SEGMENT_CYCLES
            .min((MAX_SEGMENT_OT_BITS / e_cycle_bits.max(1)) as u64)
            .min((MAX_SEGMENT_OT_BITS / g_cycle_bits.max(1)) as u64);
        if run.every_cycle {
            per_segment = per_segment.min((MAX_SEGMENT_OUTPUT_BITS / out_bits.max(1)) as u64);
        }
        Shape {
            g_cycle_bits,
            e_cycle_bits,
            g_first_bits: bits(PartyId::GARBLER, false),
            e_first_bits: bits(PartyId::EVALUATOR, false),
            out_widths,
            out_bits,
            per_segment: per_segment.max(1),
        }
    }
}

/// `value` checked against port `port`'s width.
pub(crate) fn checked_value(
    net: &Sequential,
    port: usize,
    cycle: u64,
    value: Vec<bool>,
) -> Result<Vec<bool>, SessionError> {
    let p = &net.inputs[port];
    if value.len() != p.width as usize {
        return Err(SessionError::Input(format!(
            "input port `{}` is {} bits, but cycle {cycle}'s value has {}",
            p.name,
            p.width,
            value.len()
        )));
    }
    Ok(value)
}

/// Whether a port takes a party's value every cycle (else once, before or at cycle 0, or
/// it is one of the first `fed` ports, whose labels are carried in and held).
pub(crate) fn per_cycle(net: &Sequential, fed: usize, port: usize) -> bool {
    port >= fed && net.inputs[port].mode == InputMode::PerCycle
}
