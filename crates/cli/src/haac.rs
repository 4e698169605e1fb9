//! `mixgc compile --isa haac` (a circuit or a VIP-Bench workload → a `.haac` file, HAAC §4)
//! and the loading half of `mixgc run --circuit F.haac` (the file → the circuit the software
//! engine garbles, instruction for instruction).

use std::path::Path;

use mixgc_circuit::Circuit;
use mixgc_compile::{compile_with, Layout, Loaded, Reorder, Runnable};
use mixgc_haac::sim::Memory;
use mixgc_haac::{compile::live_percent, file, CompileOptions, HaacCircuit, Op, Schedule};
use mixgc_program::vip::Workload;
use mixgc_program::{Ctx, Recorder};

use crate::summary::{bytes, thousands};
use crate::CliError;

/// A VIP-Bench workload recorded as a circuit, and how many input values the garbler owns.
pub fn record_vip(name: &str) -> Result<(Circuit, usize), CliError> {
    let workload = Workload::from_name(name)?;
    let ctx = Ctx::new(Recorder::default());
    workload.program(&ctx, None, None)?;
    let recorded = ctx.into_inner().ok_or("the recorder is still shared")?.finish();
    Ok((recorded.circuit, recorded.garbler_values))
}

/// Compiles `circuit` to the `.haac` file `out` and returns the summary line.
pub fn compile_to_file(
    circuit: &Circuit,
    garbler_values: usize,
    opts: CompileOptions,
    out: &Path,
) -> Result<String, CliError> {
    let garbler_values = u32::try_from(garbler_values).map_err(|_| "too many garbler input values")?;
    let hc = mixgc_haac::compile(circuit, garbler_values, opts)?;
    file::write_file(out, &hc)?;
    let size = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    Ok(format!(
        "wrote {}: {}, {}",
        out.display(),
        summary(&hc),
        bytes(size)
    ))
}

/// `--schedule auto`: compiles with segment and full reorder, writes the one the model runs
/// faster (DDR4, evaluator) to `out`, and returns the summary line with both cycle counts.
pub fn compile_auto_to_file(
    circuit: &Circuit,
    garbler_values: usize,
    window: u32,
    ges: u16,
    out: &Path,
) -> Result<String, CliError> {
    let garbler_values = u32::try_from(garbler_values).map_err(|_| "too many garbler input values")?;
    let choice = mixgc_haac::compile_auto(circuit, garbler_values, window, ges, Memory::Ddr4)?;
    file::write_file(out, &choice.chosen)?;
    let size = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
    Ok(format!(
        "wrote {}: {}, {}; auto: segment {} cycles, full {} cycles (the model, DDR4)",
        out.display(),
        summary(&choice.chosen),
        bytes(size),
        thousands(choice.segment_cycles),
        thousands(choice.full_cycles)
    ))
}

/// Instructions, ANDs, live share and OoRW reads per kilo-instruction of a program.
pub fn summary(hc: &HaacCircuit) -> String {
    let p = &hc.program;
    let n = p.instructions.len();
    let ands = p.instructions.iter().filter(|i| i.op == Op::And).count();
    let oorw = p.oor_reads().len();
    format!(
        "{} instructions, {} ANDs, {:.1} % live, {:.1} OoRW reads per kilo-instruction ({} schedule, window {} wires, {} GEs)",
        thousands(n as u64),
        thousands(ands as u64),
        live_percent(p),
        1000.0 * oorw as f64 / n.max(1) as f64,
        format!("{:?}", p.schedule).to_lowercase(),
        thousands(u64::from(p.window)),
        p.ges
    )
}

/// What `mixgc run` needs from a `.haac` file: the circuit to garble, compiled in the
/// program's own instruction order (so the garbled stream is the HAAC stream), and the
/// garbler's value count the file records.
pub fn open_for_run(path: &Path) -> Result<(Runnable, usize), CliError> {
    let hc = file::read_file(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let circuit = mixgc_haac::to_circuit(&hc)?;
    let window = hc.program.window as usize;
    let compiled = compile_with(&circuit, Layout::Reordered(Reorder::Program, window));
    let loaded = Loaded { circuit, compiled };
    Ok((Runnable::Whole(loaded), hc.io.garbler_values as usize))
}

/// The HAAC schedule of a `--schedule` value.
pub fn schedule(arg: crate::compile::ScheduleArg) -> Result<Schedule, CliError> {
    use crate::compile::ScheduleArg;
    match arg {
        ScheduleArg::Program => Ok(Schedule::Program),
        ScheduleArg::Segment => Ok(Schedule::Segment),
        ScheduleArg::Full => Ok(Schedule::Full),
        ScheduleArg::Batched | ScheduleArg::Auto => {
            Err("--isa haac compiles HAAC's orders: --schedule program, segment, full or auto".into())
        }
    }
}
