//! `mixgc compile`: write a circuit's compiled stream to a file (`--out`), its HAAC
//! instruction streams (`--isa haac --out F.haac`), or report HAAC Table 2's view of it
//! under a gate schedule (`--report`).

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
    /// With --isa haac: segment or full, whichever HAAC's cycle-level model (the seed's
    /// parameters, DDR4, the evaluator) runs in fewer cycles.
    Auto,
}

/// What `--out` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Isa {
    /// mixgc's compiled stream (docs/compiled-stream.md).
    Stream,
    /// HAAC's per-gate-engine instruction, table and OoRW queue streams (docs/haac.md).
    Haac,
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
live wires and label memory of that order.\n\n\
With --isa haac --out F.haac (default schedule: segment), the HAAC compiler (HAAC §4): the gates in \
the schedule's order (auto: segment or full, whichever the cycle-level model runs faster with \
DDR4), outputs renamed in execution order, Copy gates and constants folded (constants \
become public input wires), SWW addresses of WINDOW wires or 0 for an out-of-range read served by the \
OoRW queue, the live bit after spent-wire elimination, and the instructions assigned to G gate engines \
by the model, as the seed does (format: docs/haac.md). `mixgc run --circuit F.haac` runs the file on the software engine; the file \
records which input values are the garbler's (--garbler-values, default ⌈n/2⌉; a --vip workload's \
own split). The summary on stderr gives instructions, ANDs, live %, and OoRW reads per \
kilo-instruction.\n\nExamples:\n  \
mixgc compile circuits/aes_128.txt --out aes.mgcs\n  \
mixgc compile circuits/aes_128.txt --schedule full --window 64 --report\n  \
mixgc compile --vip dotprod --isa haac --ges 16 --schedule segment --out dotprod.haac"
)]
pub struct CompileArgs {
    /// Circuit file (Bristol Fashion or the older Bristol Format).
    #[arg(required_unless_present = "vip")]
    file: Option<PathBuf>,
    /// Compile a VIP-Bench workload (bubbst, dotprod, merse, triangle, hamm, matmult, relu,
    /// graddesc) recorded as a circuit instead of a file.
    #[arg(long, value_name = "NAME", conflicts_with = "file")]
    vip: Option<String>,
    /// What --out writes: mixgc's compiled stream, or HAAC instruction streams.
    #[arg(long, value_enum, default_value = "stream")]
    isa: Isa,
    /// With --isa haac: gate engines the instructions are assigned to.
    #[arg(long, value_name = "G", default_value_t = 16)]
    ges: u16,
    /// With --isa haac on a circuit file: how many input values (of nonzero width) the
    /// garbler owns (default ⌈n/2⌉), recorded in the file for `mixgc run`.
    #[arg(long, value_name = "K")]
    garbler_values: Option<usize>,
    /// Gate order (default: batched with --out, program with --report).
    #[arg(long, value_enum)]
    schedule: Option<ScheduleArg>,
    /// Window in wires for the full and segment orders, and with --isa haac the sliding
    /// wire window (HAAC's 2 MB window holds 131,072 labels).
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
            ScheduleArg::Batched | ScheduleArg::Auto => None,
        }
    }
}

/// The error for `--schedule auto` anywhere but `compile --isa haac`.
pub const AUTO_NEEDS_HAAC: &str =
    "--schedule auto picks a HAAC order with the cycle-level model: it goes with `mixgc compile --isa haac`";

pub fn compile(args: CompileArgs) -> Result<(), CliError> {
    if args.isa == Isa::Haac {
        return compile_haac(args);
    }
    if args.garbler_values.is_some() {
        return Err("--garbler-values is recorded in a .haac file: it goes with --isa haac".into());
    }
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
    if schedule == ScheduleArg::Auto {
        return Err(AUTO_NEEDS_HAAC.into());
    }
    let window = args.window.max(1);
    let report_order = match (report, schedule.reorder()) {
        (false, _) => None,
        (true, Some(r)) => Some(r),
        (true, None) => {
            return Err("--report analyses the program, full and segment orders: give --schedule".into())
        }
    };
    let (name, loaded) = match (&args.file, &args.vip) {
        (_, Some(vip)) => (format!("vip {vip}"), Loaded::new(crate::haac::record_vip(vip)?.0)),
        (Some(file), None) => (file.display().to_string(), read_circuit(file, &args.feedback)?),
        (None, None) => return Err("give a circuit FILE or --vip NAME".into()),
    };
    let progress = args.feedback.reporter();
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
        name,
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

/// Reads and compiles a Bristol file, refusing compiled files with a clear error.
fn read_circuit(file: &std::path::Path, feedback: &Feedback) -> Result<Loaded, CliError> {
    if is_stream_file(file).unwrap_or(false) {
        return Err(format!(
            "{} is already a compiled stream (`mixgc info` describes it); compile its Bristol circuit",
            file.display()
        )
        .into());
    }
    if mixgc_haac::file::is_haac_file(file) {
        return Err(format!(
            "{} is already a .haac file; compile its Bristol circuit",
            file.display()
        )
        .into());
    }
    let progress = feedback.reporter();
    progress.begin(&format!("reading {}", file.display()), None, Unit::Time);
    let loaded = Loaded::read_file(file);
    progress.end();
    Ok(loaded?)
}

/// `--isa haac`: the circuit or workload to a `.haac` file (see `mixgc compile --help`).
fn compile_haac(args: CompileArgs) -> Result<(), CliError> {
    let Some(out) = &args.out else {
        return Err("--isa haac writes a .haac file: give --out F.haac".into());
    };
    if args.report || args.json {
        return Err("--report analyses a gate order; leave it out with --isa haac".into());
    }
    let window = u32::try_from(args.window).map_err(|_| format!("--window {} is too large", args.window))?;
    let (circuit, garbler_values) = match (&args.file, &args.vip) {
        (_, Some(vip)) => {
            if args.garbler_values.is_some() {
                return Err(
                    "a VIP-Bench workload's inputs name their owners: leave out --garbler-values".into(),
                );
            }
            crate::haac::record_vip(vip)?
        }
        (Some(file), None) => {
            let circuit = read_circuit(file, &args.feedback)?.circuit;
            let terms = mixgc_session::Terms {
                garbler_values: args.garbler_values,
                reveal: mixgc_session::Audience::BOTH,
            };
            let k = terms.owners(&circuit.input_widths)?.0.len();
            (circuit, k)
        }
        (None, None) => return Err("give a circuit FILE or --vip NAME".into()),
    };
    let progress = args.feedback.reporter();
    progress.begin("compiling for HAAC", None, Unit::Time);
    let line = match args.schedule.unwrap_or(ScheduleArg::Segment) {
        ScheduleArg::Auto => {
            crate::haac::compile_auto_to_file(&circuit, garbler_values, window, args.ges, out)
        }
        arg => crate::haac::schedule(arg).and_then(|schedule| {
            let opts = mixgc_haac::CompileOptions {
                schedule,
                window,
                ges: args.ges,
            };
            crate::haac::compile_to_file(&circuit, garbler_values, opts, out)
        }),
    };
    progress.end();
    args.feedback.summary(&line?);
    Ok(())
}
