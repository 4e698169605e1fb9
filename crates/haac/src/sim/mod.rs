//! A cycle-level model of the HAAC accelerator (HAAC §3, §5 "Simulator") and the seed's
//! simulator-driven assignment of instructions to gate engines (§4.1).
//!
//! The model steps every GE cycle: per engine an in-order pipeline ([`engine`]), SWW banks
//! with single-port contention, forwarding across engines, and instruction / table / OoRW
//! queues fed by a DRAM of fixed bandwidth ([`dram`]). [`simulate`] runs a program twice:
//! with the configured memory, and with unlimited memory for the GE-only bound.

mod config;
mod dram;
mod engine;
mod report;

pub use config::{ConfigError, Memory, Role, SimConfig};
pub use report::{Bound, Bytes, SimReport, Stalls};

use crate::isa::{
    in_window, instruction_bits, HaacError, HaacProgram, Op, LABEL_BYTES, OORW_ADDRESS_BYTES, TABLE_BYTES,
};
use dram::{Dram, GeQueues, ReadStream, WriteStream};
use engine::{Machine, Source};

/// Why a program cannot be simulated.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum SimError {
    #[error("invalid HAAC program: {0}")]
    Program(#[from] HaacError),
    #[error("invalid accelerator configuration: {0}")]
    Config(#[from] ConfigError),
    #[error("the program was assigned to {program} gate engines, but the model has {config}")]
    Engines { program: u16, config: u16 },
    #[error(
        "instruction {index} reads wire {wire} out of the window, but that wire's live bit is \
         clear, so it never reaches DRAM"
    )]
    DeadWire { index: usize, wire: u32 },
    #[error("the run exceeds 2^32 cycles")]
    TooLong,
    #[error("the model made no progress for 2^22 cycles (at cycle {cycle})")]
    Stuck { cycle: u64 },
}

/// The seed's GE assignment (HAAC §4.1: "mapping instructions from the program to
/// non-stalled GEs each cycle in our simulator, saving the order"): the model runs with
/// unlimited memory, and each cycle every engine whose fetch stage is free (engines in a
/// rotating order) takes the next instruction in program order. Deterministic.
///
/// Only the program's operands, inputs and window are used (its `ges` and `engine` are
/// ignored). A program or configuration [`try_assign_engines`] rejects gets the
/// round-robin assignment, so the caller's validation reports the problem.
pub fn assign_engines(program: &HaacProgram, cfg: &SimConfig) -> Vec<u16> {
    try_assign_engines(program, cfg).unwrap_or_else(|_| {
        let ges = usize::from(cfg.ges.max(1));
        (0..program.instructions.len())
            .map(|i| (i % ges) as u16)
            .collect()
    })
}

/// [`assign_engines`], with the reason when the program or configuration is invalid.
pub fn try_assign_engines(program: &HaacProgram, cfg: &SimConfig) -> Result<Vec<u16>, SimError> {
    cfg.validate()?;
    check_operands(program)?;
    let n = program.instructions.len();
    let source = Source::Dispatch {
        next: 0,
        engine: vec![0; n],
    };
    let mut machine = Machine::new(program, cfg, Role::Evaluator, source, None, &[]);
    machine.run()?;
    match machine.source {
        Source::Dispatch { engine, .. } => Ok(engine),
        Source::Assigned { .. } => unreachable!("the dispatcher's source is kept"),
    }
}

/// Runs `program` on the modelled accelerator as `role`.
pub fn simulate(program: &HaacProgram, cfg: &SimConfig, role: Role) -> Result<SimReport, SimError> {
    simulate_with(program, cfg, role, true)
}

/// [`simulate`]; `skip_idle: false` steps every engine every cycle (to check that skipping
/// idle engines and cycles changes nothing).
fn simulate_with(
    program: &HaacProgram,
    cfg: &SimConfig,
    role: Role,
    skip_idle: bool,
) -> Result<SimReport, SimError> {
    cfg.validate()?;
    program.validate()?;
    if program.ges != cfg.ges {
        return Err(SimError::Engines {
            program: program.ges,
            config: cfg.ges,
        });
    }
    let oor = program.oor_reads();
    for &(index, wire) in &oor {
        if wire > program.inputs && !program.instructions[(wire - program.inputs - 1) as usize].live {
            return Err(SimError::DeadWire { index, wire });
        }
    }
    let streams = engine_streams(program);
    let preload = preloaded_inputs(program);

    let mut compute = Machine::new(
        program,
        cfg,
        role,
        Source::Assigned {
            streams: streams.clone(),
        },
        None,
        &preload,
    );
    compute.skip_idle = skip_idle;
    let compute = compute.run()?;

    let dram = build_dram(program, cfg, role, &streams, &oor, preload.clone());
    let mut machine = Machine::new(
        program,
        cfg,
        role,
        Source::Assigned { streams },
        Some(dram),
        &preload,
    );
    machine.skip_idle = skip_idle;
    let run = machine.run()?;
    let moved = machine.dram.as_ref().map(|d| d.moved).unwrap_or_default();

    let bytes = Bytes {
        tables: moved.tables.round() as u64,
        instructions: moved.instructions.round() as u64,
        live_writebacks: moved.live_writebacks.round() as u64,
        outputs: moved.outputs.round() as u64,
        oorw_reads: moved.oorw_labels.round() as u64,
        oorw_addresses: moved.oorw_addresses.round() as u64,
        inputs: moved.inputs.round() as u64,
        total: (moved.tables
            + moved.instructions
            + moved.live_writebacks
            + moved.outputs
            + moved.oorw_labels
            + moved.oorw_addresses
            + moved.inputs)
            .round() as u64,
    };
    let memory_cycles = (bytes.total as f64 / cfg.bytes_per_cycle()).ceil() as u64;
    let wire_bytes = bytes.live_writebacks + bytes.outputs + bytes.oorw_reads + bytes.oorw_addresses;
    let wire_traffic_cycles = (wire_bytes as f64 / cfg.bytes_per_cycle()).ceil() as u64;
    Ok(SimReport {
        role,
        ges: cfg.ges,
        window: program.window,
        memory_gbps: cfg.memory.gbps(),
        instructions: program.instructions.len() as u64,
        ands: program.instructions.iter().filter(|i| i.op == Op::And).count() as u64,
        live_wires: program.instructions.iter().filter(|i| i.live).count() as u64,
        oorw_reads: oor.len() as u64,
        cycles: run.cycles,
        seconds: run.cycles as f64 / (cfg.ge_clock_ghz * 1e9),
        compute_cycles: compute.cycles,
        memory_cycles,
        wire_traffic_cycles,
        bound: if memory_cycles > compute.cycles {
            Bound::Memory
        } else {
            Bound::Compute
        },
        stalls: run.stalls,
        issued: run.issued,
        drained: run.drained,
        sww_overruns: run.sww_overruns,
        bytes,
    })
}

/// `program` with its instructions (order, wires, live bits unchanged) reassigned to the
/// engines of `cfg` by [`assign_engines`]: how the same stream scales with the GE count.
pub fn reassigned(program: &HaacProgram, cfg: &SimConfig) -> Result<HaacProgram, SimError> {
    let engine = try_assign_engines(program, cfg)?;
    Ok(HaacProgram {
        ges: cfg.ges,
        engine,
        ..program.clone()
    })
}

/// `program` without spent-wire elimination (HAAC §4.2.3 off): every instruction's output
/// is written back, as in the seed's "RO+RN" bars of Figure 6 (nops write nothing).
pub fn all_live(program: &HaacProgram) -> HaacProgram {
    let mut p = program.clone();
    for ins in &mut p.instructions {
        ins.live = ins.op != Op::Nop;
    }
    p
}

/// The checks of [`HaacProgram::validate`] that do not involve the engine assignment.
fn check_operands(program: &HaacProgram) -> Result<(), SimError> {
    let probe = HaacProgram {
        ges: 1,
        window: program.window,
        schedule: program.schedule,
        inputs: program.inputs,
        instructions: Vec::new(),
        engine: Vec::new(),
        outputs: Vec::new(),
    };
    probe.validate()?;
    let last = u64::from(program.inputs) + program.instructions.len() as u64;
    if last >= u64::from(u32::MAX) {
        return Err(HaacError::TooManyWires.into());
    }
    for (index, ins) in program.instructions.iter().enumerate() {
        let out = program.output_wire(index);
        for wire in ins.reads() {
            if wire == 0 || wire >= out {
                return Err(HaacError::Operand { index, wire }.into());
            }
        }
    }
    Ok(())
}

/// Each engine's instructions, in program order (HAAC §4.3).
fn engine_streams(program: &HaacProgram) -> Vec<Vec<u32>> {
    let mut streams = vec![Vec::new(); usize::from(program.ges)];
    for (i, &g) in program.engine.iter().enumerate() {
        streams[usize::from(g)].push(i as u32);
    }
    streams
}

/// Input wires loaded into the SWW before the first instruction (HAAC §3.3): those in the
/// window of the first instruction; every later window holds only later inputs of these.
fn preloaded_inputs(program: &HaacProgram) -> Vec<u32> {
    if program.instructions.is_empty() {
        return Vec::new();
    }
    let first = program.output_wire(0);
    (1..=program.inputs)
        .filter(|&w| in_window(w, first, program.window))
        .collect()
}

fn build_dram(
    program: &HaacProgram,
    cfg: &SimConfig,
    role: Role,
    streams: &[Vec<u32>],
    oor: &[(usize, u32)],
    preload: Vec<u32>,
) -> Dram {
    let instruction_bytes = f64::from(instruction_bits(program.window)) / 8.0;
    let oorw_item = (LABEL_BYTES + OORW_ADDRESS_BYTES) as usize;
    let items = |bytes: u32, item: usize| (bytes as usize / item).max(1);
    let mut oorw_wires = vec![Vec::new(); streams.len()];
    for &(i, w) in oor {
        oorw_wires[usize::from(program.engine[i])].push(w);
    }
    let ges = streams
        .iter()
        .zip(oorw_wires)
        .map(|(stream, oorw_wires)| {
            let ands = stream
                .iter()
                .filter(|&&i| program.instructions[i as usize].op == Op::And)
                .count();
            let tables_in = if role == Role::Evaluator { ands } else { 0 };
            GeQueues {
                instructions: ReadStream::new(
                    stream.len(),
                    (cfg.instruction_queue_bytes as usize * 8 / instruction_bits(program.window) as usize)
                        .max(1),
                    instruction_bytes,
                ),
                tables: ReadStream::new(
                    tables_in,
                    items(cfg.table_queue_bytes, TABLE_BYTES as usize),
                    TABLE_BYTES as f64,
                ),
                oorw: ReadStream::new(
                    oorw_wires.len(),
                    items(cfg.oorw_queue_bytes, oorw_item),
                    oorw_item as f64,
                ),
                oorw_wires,
                live: WriteStream::new(
                    items(cfg.write_buffer_bytes, LABEL_BYTES as usize),
                    LABEL_BYTES as f64,
                ),
                tables_out: WriteStream::new(
                    items(cfg.table_queue_bytes, TABLE_BYTES as usize),
                    TABLE_BYTES as f64,
                ),
            }
        })
        .collect();
    Dram::new(
        cfg.bytes_per_cycle(),
        u64::from(cfg.dram_latency_cycles),
        preload,
        ges,
    )
}

#[cfg(test)]
mod tests;
