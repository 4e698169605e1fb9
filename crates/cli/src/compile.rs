//! `mixgc compile`: write a circuit's compiled stream to a file (`--out`), or report HAAC
//! Table 2's view of it under a gate schedule (`--report`).

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use mixgc_compile::{
    compile_with, is_stream_file, save_reporting, schedule_report, Layout, Reorder, DEFAULT_WINDOW,
};
use mixgc_core::Unit;

use crate::progress::Feedback;
use crate::summary::{bytes, thousands};
use crate::{write_stdout, CliError};
use mixgc_compile::Loaded;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ScheduleArg {
    /// File order.
    Program,
    /// All gates sorted by dependence level.
    Full,
    /// Segments of half the window, each sorted by level.
    Segment,
    /// Independent ANDs grouped, a bounded look-ahead (what `mixgc run` compiles a Bristol
    /// file with; the fastest on one thread).
    Batched,
}

#[derive(Args, Debug)]
#[command(
    after_help = "With --out, the circuit is compiled (default schedule: batched) and its stream \
written to OUT (format: docs/compiled-stream.md); `mixgc run --circuit OUT` then reads it chunk by \
chunk, so a party holds its wire slots and one chunk, never the whole circuit. Both parties must run \
the same stream: the same schedule and window (a Bristol file runs with the batched schedule). \
A one-line summary goes to stderr.\n\n\
With --report (default schedule: program), columns as in HAAC Table 2: dependence levels over all \
gates, wires, gates, AND share, ILP (gates per level), spent wires (gate outputs whose every read \
lies within WINDOW gates of the producer, so they never leave a WINDOW-wire buffer), then the maximum \
live wires and label memory of that order.\n\nExamples:\n  \
mixgc compile circuits/aes_128.txt --out aes.mgcs\n  \
mixgc compile circuits/aes_128.txt --schedule full --window 64 --report"
)]
pub struct CompileArgs {
    /// Circuit file (Bristol Fashion or the older Bristol Format).
    file: PathBuf,
    /// Gate order (default: batched with --out, program with --report).
    #[arg(long, value_enum)]
    schedule: Option<ScheduleArg>,
    /// Window in wires for the full and segment orders (HAAC's 2 MB window holds 131,072
    /// labels).
    #[arg(long, default_value_t = DEFAULT_WINDOW)]
    window: usize,
    /// Write the compiled stream to OUT.
    #[arg(long, value_name = "OUT")]
    out: Option<PathBuf>,
    /// Print the report.
    #[arg(long)]
    report: bool,
    /// Print the report as one JSON object.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    feedback: Feedback,
}

impl ScheduleArg {
    /// The layout of this schedule with `window`.
    pub fn layout(self, window: usize) -> Layout {
        self.reorder()
            .map_or(Layout::Batched, |r| Layout::Reordered(r, window.max(1)))
    }

    /// HAAC's order this schedule is, if it is one.
    fn reorder(self) -> Option<Reorder> {
        match self {
            ScheduleArg::Program => Some(Reorder::Program),
            ScheduleArg::Full => Some(Reorder::Full),
            ScheduleArg::Segment => Some(Reorder::Segment),
            ScheduleArg::Batched => None,
        }
    }
}

pub fn compile(args: CompileArgs) -> Result<(), CliError> {
    let report = args.report || args.json;
    if !report && args.out.is_none() {
        return Err("nothing to do: give --out OUT (or --report / --json)".into());
    }
    let default = if args.out.is_some() {
        ScheduleArg::Batched
    } else {
        ScheduleArg::Program
    };
    let schedule = args.schedule.unwrap_or(default);
    let window = args.window.max(1);
    let report_order = match (report, schedule.reorder()) {
        (false, _) => None,
        (true, Some(r)) => Some(r),
        (true, None) => {
            return Err("--report analyses the program, full and segment orders: give --schedule".into())
        }
    };
    if is_stream_file(&args.file).unwrap_or(false) {
        return Err(format!(
            "{} is already a compiled stream (`mixgc info` describes it); compile its Bristol circuit",
            args.file.display()
        )
        .into());
    }
    let progress = args.feedback.reporter();
    progress.begin(&format!("reading {}", args.file.display()), None, Unit::Time);
    let loaded = Loaded::read_file(&args.file);
    progress.end();
    let loaded = loaded?;
    if let Some(out) = &args.out {
        let layout = schedule
            .reorder()
            .map_or(Layout::Batched, |r| Layout::Reordered(r, window));
        progress.begin("compiling", None, Unit::Time);
        let compiled = compile_with(&loaded.circuit, layout);
        progress.end();
        save_reporting(&compiled, out, &progress)?;
        let size = std::fs::metadata(out).map(|m| m.len()).unwrap_or(0);
        let digest: String = compiled.stream_digest()[..4]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        args.feedback.summary(&format!(
            "wrote {}: {} gates, {} ANDs, {} slots ({} working set), {}, stream digest {digest}…",
            out.display(),
            thousands(compiled.num_gates()),
            thousands(compiled.num_ands()),
            thousands(compiled.num_slots() as u64),
            bytes(compiled.working_set_bytes()),
            bytes(size)
        ));
    }
    let Some(reorder) = report_order else {
        return Ok(());
    };
    let r = schedule_report(&loaded.circuit, reorder, window);
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
