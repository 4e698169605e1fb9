//! What one simulated run reports.

use super::config::Role;
use serde::Serialize;

/// GE cycles in which an engine issued nothing into its execution units, by the cause that
/// blocked (or emptied) the stage in front of them. Summed over engines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Stalls {
    /// An operand was still being computed (waiting on forwarding).
    pub dependency: u64,
    /// An SWW bank had no free port this cycle.
    pub bank_conflict: u64,
    /// The instruction queue was empty.
    pub instruction_queue: u64,
    /// Evaluator: no table had arrived; Garbler: the outgoing table queue was full.
    pub table_queue: u64,
    /// The out-of-range wire had not arrived.
    pub oorw_queue: u64,
    /// The live-wire write buffer was full.
    pub write_buffer: u64,
    /// The front end was still filling (the first instructions).
    pub pipeline_fill: u64,
}

impl Stalls {
    pub fn total(&self) -> u64 {
        self.dependency
            + self.bank_conflict
            + self.instruction_queue
            + self.table_queue
            + self.oorw_queue
            + self.write_buffer
            + self.pipeline_fill
    }
}

/// Off-chip bytes by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Bytes {
    /// Half-gate tables: read by the Evaluator, written by the Garbler (32 B per AND).
    pub tables: u64,
    /// Instruction words (HAAC §3.1.3: op, two SWW addresses, live bit).
    pub instructions: u64,
    /// Live wires written back (not counting program outputs).
    pub live_writebacks: u64,
    /// Program outputs written back.
    pub outputs: u64,
    /// Out-of-range wire labels read back.
    pub oorw_reads: u64,
    /// Their 32-bit addresses streamed in (HAAC §3.1.4).
    pub oorw_addresses: u64,
    /// Input labels loaded into the SWW at the start.
    pub inputs: u64,
    pub total: u64,
}

/// Whether run time is set by the engines or by the memory bandwidth.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Bound {
    Compute,
    Memory,
}

/// The model's result for one program, configuration and role.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimReport {
    pub role: Role,
    pub ges: u16,
    pub window: u32,
    pub memory_gbps: f64,
    pub instructions: u64,
    pub ands: u64,
    /// Instructions with the live bit set (HAAC Table 3 "Live").
    pub live_wires: u64,
    /// Operand reads served by the OoRW queue (HAAC Table 3 "OoRW").
    pub oorw_reads: u64,
    /// Cycles until the last instruction has written back and the last write reached DRAM.
    pub cycles: u64,
    /// `cycles` at the GE clock.
    pub seconds: f64,
    /// The same run with unlimited, zero-latency memory: the GE-only bound.
    pub compute_cycles: u64,
    /// Total off-chip bytes over bytes per cycle: the bandwidth-only bound.
    pub memory_cycles: u64,
    /// Off-chip wire traffic alone (live write-backs, outputs, OoR wires and their
    /// addresses) over bytes per cycle: HAAC Figure 7's "wire traffic" bars.
    pub wire_traffic_cycles: u64,
    pub bound: Bound,
    pub stalls: Stalls,
    /// Instructions issued (equals `instructions`).
    pub issued: u64,
    /// GE cycles after an engine ran out of instructions while others still ran.
    pub drained: u64,
    /// SWW reads that found their slot already overwritten by a later wire (the static
    /// window assumes program order; a far-behind engine can break it). Should be 0.
    pub sww_overruns: u64,
    pub bytes: Bytes,
}
