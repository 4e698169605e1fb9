//! `mixgc compile --report`: HAAC Table 2's view of a circuit under a gate schedule.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use mixgc_compile::{schedule_report, Reorder, DEFAULT_WINDOW};

use crate::load::load_file;
use crate::summary::{bytes, thousands};
use crate::{write_stdout, CliError};

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ScheduleArg {
    /// File order.
    Program,
    /// All gates sorted by dependence level.
    Full,
    /// Segments of half the window, each sorted by level.
    Segment,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Columns as in HAAC Table 2: dependence levels over all gates, wires, gates, \
AND share, ILP (gates per level), spent wires (gate outputs whose every read lies within WINDOW \
gates of the producer, so they never leave a WINDOW-wire buffer), then the maximum live wires and \
label memory of that order. Saving compiled streams comes with the streaming work."
)]
pub struct CompileArgs {
    /// Circuit file (Bristol Fashion or the older Bristol Format).
    file: PathBuf,
    /// Gate order to analyse.
    #[arg(long, value_enum, default_value = "program")]
    schedule: ScheduleArg,
    /// Window in wires (HAAC's 2 MB window holds 131,072 labels).
    #[arg(long, default_value_t = DEFAULT_WINDOW)]
    window: usize,
    /// Print the report (the only output for now).
    #[arg(long)]
    report: bool,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn compile(args: CompileArgs) -> Result<(), CliError> {
    if !args.report && !args.json {
        return Err("nothing to do: give --report (or --json)".into());
    }
    let loaded = load_file(&args.file)?;
    let reorder = match args.schedule {
        ScheduleArg::Program => Reorder::Program,
        ScheduleArg::Full => Reorder::Full,
        ScheduleArg::Segment => Reorder::Segment,
    };
    let r = schedule_report(&loaded.circuit, reorder, args.window.max(1));
    if args.json {
        return write_stdout(&format!("{}\n", serde_json::to_string(&r)?));
    }
    let mut out = format!(
        "{} ({} schedule, window {} wires)\n",
        args.file.display(),
        r.schedule,
        thousands(r.window as u64)
    );
    out += &format!("  levels           {}\n", thousands(r.levels));
    out += &format!("  wires            {}\n", thousands(r.wires));
    out += &format!("  gates            {}\n", thousands(r.gates));
    out += &format!("  AND              {:.1} %\n", r.and_percent);
    out += &format!("  ILP              {:.1} gates/level\n", r.ilp);
    out += &format!("  spent wires      {:.1} %\n", r.spent_wire_percent);
    out += &format!(
        "  max live wires   {}  ({} of labels)\n",
        thousands(r.max_live_wires),
        bytes(r.working_set_bytes)
    );
    write_stdout(&out)
}
