//! `mixgc info`: the numbers a user wants to know about a circuit before running it.

use mixgc_circuit::Circuit;

use crate::schedule::Schedule;
use crate::slots::allocate;
use crate::stream::CompiledCircuit;

/// Gate counts, depth and memory of a circuit.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CircuitInfo {
    pub gates: u64,
    pub ands: u64,
    pub xors: u64,
    pub nots: u64,
    /// EQW (copy) and EQ (constant) gates: free, listed for completeness.
    pub copies: u64,
    pub constants: u64,
    pub and_depth: u64,
    pub inputs: Vec<u32>,
    pub outputs: Vec<u32>,
    /// Maximum live wires in program (file) order: inputs live from the start, outputs to
    /// the end, a gate's output may reuse the slot of an input it reads last.
    pub max_live_wires: u64,
    /// Wire slots of the compiled (batched) stream the engines run.
    pub compiled_slots: u64,
    /// Engine working memory for labels: compiled slots × 16 bytes.
    pub working_set_bytes: u64,
}

/// Computes [`CircuitInfo`] for a validated circuit and its compiled stream.
pub fn circuit_info(c: &Circuit, compiled: &CompiledCircuit) -> CircuitInfo {
    let s = c.stats();
    let program = allocate(c, &Schedule::program_order(c));
    CircuitInfo {
        gates: s.gates as u64,
        ands: s.ands as u64,
        xors: s.xors as u64,
        nots: s.nots as u64,
        copies: s.copies as u64,
        constants: s.consts as u64,
        and_depth: s.and_depth as u64,
        inputs: c.input_widths.clone(),
        outputs: c.output_widths.clone(),
        max_live_wires: program.num_slots as u64 - 1, // not counting NOT_SLOT
        compiled_slots: compiled.num_slots() as u64,
        working_set_bytes: compiled.working_set_bytes(),
    }
}
