//! `--schedule auto`: compile with segment and with full reorder and keep whichever the
//! cycle-level model runs faster (HAAC §6 "Segment Reorder": "we can run both and deploy the
//! best performing optimization, as performance is deterministic").

use mixgc_circuit::Circuit;

use crate::compile::{compile, CompileError, CompileOptions};
use crate::io::HaacCircuit;
use crate::isa::Schedule;
use crate::sim::{simulate, Memory, Role, SimConfig};

/// The faster of the two compilations and the modelled cycles of each (segment, full).
#[derive(Clone, Debug)]
pub struct AutoChoice {
    pub chosen: HaacCircuit,
    pub segment_cycles: u64,
    pub full_cycles: u64,
}

/// Compiles `c` with segment and full reorder (`window`, `ges` as [`CompileOptions`]) and
/// keeps the one the model (the seed's parameters, evaluator, `memory`) runs in fewer
/// cycles; segment on a tie.
pub fn compile_auto(
    c: &Circuit,
    garbler_values: u32,
    window: u32,
    ges: u16,
    memory: Memory,
) -> Result<AutoChoice, CompileError> {
    let cfg = SimConfig::seed_default(ges, memory);
    let build = |schedule| {
        compile(
            c,
            garbler_values,
            CompileOptions {
                schedule,
                window,
                ges,
            },
        )
    };
    let (segment, full) = (build(Schedule::Segment)?, build(Schedule::Full)?);
    let segment_cycles = simulate(&segment.program, &cfg, Role::Evaluator)?.cycles;
    let full_cycles = simulate(&full.program, &cfg, Role::Evaluator)?.cycles;
    let chosen = if full_cycles < segment_cycles {
        full
    } else {
        segment
    };
    Ok(AutoChoice {
        chosen,
        segment_cycles,
        full_cycles,
    })
}
