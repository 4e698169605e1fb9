//! What a HAAC program holds, as `mixgc info F.haac` prints it: its shape (instructions by
//! op, window, GEs, schedule), the live wires spent-wire elimination kept (HAAC §4.2.3), and
//! each gate engine's queue streams (instruction, table and OoRW queues, §3.1, §4.3) with
//! their off-chip bytes.

use serde::Serialize;

use crate::io::HaacCircuit;
use crate::isa::{
    address_bits, in_window, instruction_bits, Op, Schedule, LABEL_BYTES, OORW_ADDRESS_BYTES, TABLE_BYTES,
};

/// One gate engine's queue streams.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EngineQueues {
    /// Instructions in its instruction queue.
    pub instructions: u64,
    /// Half-gates tables in its table queue (its AND instructions).
    pub tables: u64,
    /// Entries of its out-of-range wire queue.
    pub oorw: u64,
    /// Bytes of its packed instruction stream.
    pub instruction_bytes: u64,
}

/// A HAAC program's summary ([`summarize`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProgramSummary {
    pub ges: u16,
    /// The SWW window in wires.
    pub window: u32,
    /// SWW address bits (17 for 131,072 wires) and bits per instruction (3 + 2 of them).
    pub address_bits: u32,
    pub instruction_bits: u32,
    pub schedule: Schedule,
    /// Input wires (the circuit's input bits, then the public constant wires).
    pub input_wires: u32,
    pub constant_wires: u64,
    /// Input values, and how many of them the garbler owns.
    pub input_values: u64,
    pub garbler_values: u32,
    pub output_wires: u64,
    pub instructions: u64,
    pub ands: u64,
    pub xors: u64,
    pub nots: u64,
    pub nops: u64,
    /// Instructions whose live bit is set (written back to memory).
    pub live_wires: u64,
    /// Reads served by the OoRW queues.
    pub oorw_reads: u64,
    /// Off-chip bytes of the streams: tables, instructions, OoRW labels and addresses.
    pub table_bytes: u64,
    pub instruction_bytes: u64,
    pub oorw_bytes: u64,
    /// Per GE, in engine order.
    pub engines: Vec<EngineQueues>,
}

/// Counts everything [`ProgramSummary`] reports in one pass over the program (which the
/// caller has validated, e.g. by reading it with [`crate::file::read`]).
pub fn summarize(hc: &HaacCircuit) -> ProgramSummary {
    let p = &hc.program;
    let mut engines = vec![EngineQueues::default(); usize::from(p.ges)];
    let (mut ands, mut xors, mut nots, mut nops, mut live, mut oorw) = (0, 0, 0, 0, 0, 0);
    for (i, ins) in p.instructions.iter().enumerate() {
        let out = p.output_wire(i);
        let oor = ins.reads().filter(|&w| !in_window(w, out, p.window)).count() as u64;
        oorw += oor;
        live += u64::from(ins.live);
        match ins.op {
            Op::And => ands += 1,
            Op::Xor => xors += 1,
            Op::Not => nots += 1,
            Op::Nop => nops += 1,
        }
        if let Some(e) = p.engine.get(i).and_then(|&e| engines.get_mut(usize::from(e))) {
            e.instructions += 1;
            e.tables += u64::from(ins.op == Op::And);
            e.oorw += oor;
        }
    }
    let ibits = instruction_bits(p.window);
    for e in &mut engines {
        e.instruction_bytes = (e.instructions * u64::from(ibits)).div_ceil(8);
    }
    ProgramSummary {
        ges: p.ges,
        window: p.window,
        address_bits: address_bits(p.window),
        instruction_bits: ibits,
        schedule: p.schedule,
        input_wires: p.inputs,
        constant_wires: hc.io.constants.len() as u64,
        input_values: hc.io.input_widths.len() as u64,
        garbler_values: hc.io.garbler_values,
        output_wires: p.outputs.len() as u64,
        instructions: p.instructions.len() as u64,
        ands,
        xors,
        nots,
        nops,
        live_wires: live,
        oorw_reads: oorw,
        table_bytes: ands * TABLE_BYTES,
        instruction_bytes: engines.iter().map(|e| e.instruction_bytes).sum(),
        oorw_bytes: oorw * (LABEL_BYTES + OORW_ADDRESS_BYTES),
        engines,
    }
}
