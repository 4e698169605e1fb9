//! `mixgc run`: one party of a two-party computation.

use std::path::PathBuf;

use clap::Args;
use mixgc_session::{run_party_batch, Audience, PartyId};

use mixgc_circuit::sequential::Sequential;

use crate::load::{parse_inputs, ScheduleOptions};
use crate::memory::{session_frame_buffers, MemoryLimit, SESSION_FRAMES_HELP};
use crate::party::{default_terms, owned_values, print_report, role_parser, Connection, SessionOptions};
use crate::progress::Feedback;
use crate::CliError;
use crate::{chain, cycles};
use mixgc_studies::common::{MaliciousSession, ModelOptions};

#[derive(Args, Debug)]
#[command(after_help = after_help())]
pub struct RunArgs {
    /// Circuit file: Bristol Fashion, the older Bristol Format, a compiled stream
    /// written by `mixgc compile FILE --out OUT` (read chunk by chunk from disk), HAAC
    /// instruction streams written by `mixgc compile --isa haac --out F.haac`, a
    /// sequential netlist written by `mixgc synth` (run with --cycles), or a chain file of
    /// sequential netlists (`mixgc-chain 1`, see below).
    #[arg(long, value_name = "FILE")]
    circuit: PathBuf,
    /// This party's role.
    #[arg(long, value_parser = role_parser())]
    role: PartyId,
    #[command(flatten)]
    connection: Connection,
    /// This party's input values in circuit order, hex without 0x (either case).
    #[arg(long, value_name = "HEX[,HEX...]")]
    input: Option<String>,
    /// Who learns the outputs.
    #[arg(long, default_value = "both", value_parser = parse_reveal)]
    reveal: Audience,
    /// Number of input values the garbler owns (default ⌈n/2⌉; not for a sequential
    /// netlist, whose ports name their owners).
    #[arg(long, value_name = "K")]
    garbler_values: Option<usize>,
    /// Clock cycles to run a sequential netlist (`mixgc synth` of a design with `clk`):
    /// its core is garbled C times, the flip-flops' labels carried from cycle to cycle.
    /// An input value written V0:V1:…:V(C−1) gives that port one value per cycle; a single
    /// value is held for every cycle.
    #[arg(long, value_name = "C")]
    cycles: Option<u64>,
    /// Amortized execution: run K independent instances of the circuit in one session
    /// (one OT extension for all of the evaluator's inputs). --input gives K groups
    /// separated by `;`, or one group used for every instance; outputs are printed per
    /// execution with an empty line between executions, the mean time per execution on
    /// stderr.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = parse_executions)]
    executions: usize,
    /// With --cycles: reveal the outputs of every cycle (for each cycle in turn, one line
    /// per output port), not only those of the last.
    #[arg(long, requires = "cycles")]
    reveal_every_cycle: bool,
    #[command(flatten)]
    session: SessionOptions,
    #[command(flatten)]
    model: ModelOptions,
    #[command(flatten)]
    memory: MemoryLimit,
    #[command(flatten)]
    schedule: ScheduleOptions,
    #[command(flatten)]
    feedback: Feedback,
}

/// The `--help` epilogue: outputs, an example, the memory estimate.
fn after_help() -> String {
    format!(
        "The garbler owns the first K input values (default ⌈n/2⌉ of the values of nonzero width), \
the evaluator the rest. Each party that learns the output prints one line per output value on \
stdout (⌈width/4⌉ lowercase hex digits, bit 0 = least significant) and a summary on stderr. \
Both parties must run the same compiled stream: a Bristol file compiles with the batched \
schedule, so its peer may run the Bristol file or a stream file compiled with --schedule batched.\n\n\
A .haac file (`mixgc compile --isa haac`) runs gate for gate in its instruction order, so the \
stream that is garbled is the stream HAAC's model times; it records which input values are the \
garbler's. Both parties run the same .haac file.\n\n\
Memory (--memory-limit), estimated before connecting: wire slots (16 B each) + input labels \
(16 B an input bit) + frame buffers, plus, for a Bristol file run whole in memory, the circuit IR \
(13 B a gate) and the compiled stream (12 B a gate, 8 B a run), or, for a stream file, its header \
and one chunk with the read buffer (under 2 MiB). {SESSION_FRAMES_HELP} A Bristol file also \
needs, while it is parsed and compiled, its whole text and the scheduler's tables: the process's \
peak can be a few times the estimate (a stream file has no such step).\n\n\
Sequential netlists (`mixgc synth` of a design with a clk input) need --cycles C: the core, \
specialized to the registers' public values and compiled, runs C times as a compiled stream, the \
flip-flops' labels carried from cycle to cycle, memory the core's slots and one segment's input \
labels whatever C. --input gives one value per input port this party owns (the file names the \
owners), held for every cycle, or V0:V1:…:V(C−1), one per cycle; ports synthesized with \
--once-ports take one value, and so do init ports (g_init_R / e_init_R: register R's initial \
value from that party). Outputs: those of the last cycle (cycle C−1, the values just before the C-th rising \
edge), one line per output port; with --reveal-every-cycle, cycle by cycle, one line per port \
each. Both parties must give the same netlist, --cycles and --reveal-every-cycle (the handshake \
names a difference).\n\n\
Chains (thesis Eqs. 3.2, 3.3): a file `mixgc-chain 1` with lines `stage FILE CYCLES [xN]` (paths \
relative to the chain file; xN repeats a stage N times) runs the stages in turn, each stage's \
output ports of its last cycle feeding the next stage's first input ports (same widths, checked \
before connecting) as labels; the last stage's outputs are printed. --input gives one group per \
stage separated by `;`, each this party's values for that stage's other ports.\n\n\
Example:\n  mixgc run --circuit circuits/aes_128.txt --role garbler --listen 127.0.0.1:7000 --input 000102030405060708090a0b0c0d0e0f\n  \
mixgc run --circuit circuits/aes_128.txt --role evaluator --connect 127.0.0.1:7000 --input 00112233445566778899aabbccddeeff"
    )
}

/// Most instances one `run --executions` may batch.
pub const MAX_EXECUTIONS: usize = 1 << 20;

fn parse_executions(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(k) if (1..=MAX_EXECUTIONS).contains(&k) => Ok(k),
        _ => Err(format!(
            "{s}: expected a number of executions from 1 to {MAX_EXECUTIONS}"
        )),
    }
}

/// Parses `--input` for `executions` instances: K groups separated by `;`, or one group for
/// every instance.
fn parse_batch(
    role: PartyId,
    arg: Option<&str>,
    owned: &[usize],
    widths: &[u32],
    executions: usize,
) -> Result<Vec<Vec<Vec<bool>>>, CliError> {
    let groups: Vec<&str> = match arg {
        Some(s) if s.contains(';') => s.split(';').collect(),
        other => vec![other.unwrap_or("")],
    };
    if groups.len() != 1 && groups.len() != executions {
        return Err(format!(
            "--input has {} groups separated by `;` for --executions {executions}: give one group \
             per execution, or one group for all",
            groups.len()
        )
        .into());
    }
    let parsed = groups
        .iter()
        .enumerate()
        .map(|(k, g)| {
            parse_inputs(role, Some(g), owned, widths).map_err(|e| -> CliError {
                if executions > 1 {
                    format!("execution {}: {e}", k + 1).into()
                } else {
                    e
                }
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(if parsed.len() == executions {
        parsed
    } else {
        vec![parsed[0].clone(); executions]
    })
}

pub fn parse_reveal(s: &str) -> Result<Audience, String> {
    s.parse()
}

pub fn run(args: RunArgs) -> Result<(), CliError> {
    if chain::is_chain(&args.circuit) {
        return run_chain(args);
    }
    if cycles::is_sequential(&args.circuit) {
        return run_sequential(args);
    }
    if args.cycles.is_some() {
        return Err(format!(
            "--cycles is for a sequential netlist (`mixgc synth` of a design with a `clk` input); {} is a combinational circuit",
            args.circuit.display()
        )
        .into());
    }
    run_combinational(args)
}

/// `run --cycles` on a sequential netlist (see [`cycles`]).
fn run_sequential(mut args: RunArgs) -> Result<(), CliError> {
    args.model.refuse("a sequential netlist (--cycles)")?;
    let cycles = cycles::checked_cycles(args.cycles, &args.circuit)?;
    if args.executions != 1 {
        return Err(
            "--executions runs a combinational circuit K times; a sequential netlist runs with --cycles"
                .into(),
        );
    }
    if args.garbler_values.is_some() {
        return Err(
            "--garbler-values does not apply to a sequential netlist: its input ports name their owners"
                .into(),
        );
    }
    let net = Sequential::read_file(&args.circuit)?;
    let values = cycles::parse_cycle_inputs(&net, args.role, args.input.as_deref(), cycles, 0)?;
    // Public data only: compiled before connecting, as a combinational circuit is.
    let mut specs = mixgc_session::Specializers::new();
    specs.prepare(&net, cycles)?;
    let fit = args.memory.fit(
        &cycles::estimate(&net),
        args.session.batch_bytes,
        args.role,
        "the core of this netlist needs that much: raise the limit",
    )?;
    args.connection.quiet = args.feedback.quiet;
    let ch = args.session.open(&args.connection)?;
    let mut cfg = args
        .session
        .config()
        .for_command(mixgc_session::Command::Run)
        .with_progress(args.feedback.reporter());
    if let Some(note) = fit.note {
        eprintln!("{note}");
    }
    cfg.batch_bytes = fit.batch_bytes;
    let run = cycles::CycleRun {
        net: &net,
        role: args.role,
        cycles,
        every_cycle: args.reveal_every_cycle,
        reveal: args.reveal,
        values,
        specs,
    };
    let report = cycles::run(ch, &cfg, run)?;
    print_report(&report, &args.feedback)
}

/// A `.haac` file (`mixgc compile --isa haac`): the circuit of its instructions in their
/// order, and the garbler's value count it records (`--garbler-values`, if given, must agree).
fn open_haac(args: &RunArgs) -> Result<(mixgc_compile::Runnable, Option<usize>), CliError> {
    if args.schedule.schedule.is_some() {
        return Err(format!(
            "{} is a .haac file: its schedule was fixed by `mixgc compile --isa haac`; drop --schedule",
            args.circuit.display()
        )
        .into());
    }
    let (runnable, recorded) = crate::haac::open_for_run(&args.circuit)?;
    match args.garbler_values {
        Some(k) if k != recorded => Err(format!(
            "{} records that the garbler owns {recorded} input value(s), not {k}: drop --garbler-values",
            args.circuit.display()
        )
        .into()),
        _ => Ok((runnable, Some(recorded))),
    }
}

/// `run` on a chain file (see [`chain`]).
fn run_chain(mut args: RunArgs) -> Result<(), CliError> {
    args.model.refuse("a chain of sequential netlists")?;
    if args.cycles.is_some() || args.executions != 1 || args.garbler_values.is_some() {
        return Err(
            "a chain file gives each stage's cycles and its netlists name their port owners: leave out \
             --cycles, --executions and --garbler-values"
                .into(),
        );
    }
    let stages = chain::read(&args.circuit)?;
    let values = chain::parse_inputs(&stages, args.role, args.input.as_deref())?;
    let mut specs = chain::prepare(&stages)?;
    args.connection.quiet = args.feedback.quiet;
    let ch = args.session.open(&args.connection)?;
    let cfg = args
        .session
        .config()
        .for_command(mixgc_session::Command::Run)
        .with_progress(args.feedback.reporter());
    let report = chain::run(ch, &cfg, args.role, args.reveal, &stages, &values, &mut specs)?;
    print_report(&report, &args.feedback)
}

fn run_combinational(mut args: RunArgs) -> Result<(), CliError> {
    let (mut runnable, garbler_values) = if mixgc_haac::file::is_haac_file(&args.circuit) {
        open_haac(&args)?
    } else {
        (args.schedule.open(&args.circuit)?, args.garbler_values)
    };
    let widths = runnable.header().input_widths().to_vec();
    let terms = default_terms(garbler_values, args.reveal);
    let owned = owned_values(args.role, &terms, &widths)?;
    let batch = parse_batch(args.role, args.input.as_deref(), &owned, &widths, args.executions)?;
    let (estimate, advice) =
        crate::load::estimate(&runnable, session_frame_buffers(!args.session.single_threaded));
    let fit = args
        .memory
        .fit(&estimate, args.session.batch_bytes, args.role, advice)?;
    // Connect first: a listener's first stderr line must be `listening on ADDR`, so the
    // --insecure-seed warning that `config` prints comes after it.
    args.connection.quiet = args.feedback.quiet;
    let (report, outcomes) = if args.model.malicious() {
        if args.session.garbling != mixgc_session::Scheme::HalfGates {
            return Err("--garbling does not apply to --security malicious (authenticated garbling has its own tables): leave it out".into());
        }
        let garbler_values = terms.owners(&widths)?.0.len();
        let mterms = mixgc_malicious::Terms {
            garbler_values,
            reveal: args.reveal,
            batch_ands: args.model.batch_ands,
        };
        let ch = args.session.open(&args.connection)?;
        // The --insecure-seed warning.
        let _ = args.session.config();
        let seed = args.session.insecure_seed;
        let mut s = MaliciousSession::setup(ch, args.role, mixgc_session::Command::Run, seed)?;
        runnable.with_stream(|stream| s.run_stream(stream, &mterms, &batch, seed))?
    } else {
        let ch = args.session.open(&args.connection)?;
        let mut cfg = args
            .session
            .config()
            .for_command(mixgc_session::Command::Run)
            .with_progress(args.feedback.reporter());
        if let Some(note) = fit.note {
            eprintln!("{note}");
        }
        cfg.batch_bytes = fit.batch_bytes;
        let (report, outcomes) =
            runnable.with_stream(|stream| run_party_batch(ch, args.role, &cfg, stream, &terms, &batch))?;
        let outcomes: Vec<_> = outcomes.into_iter().map(|o| o.outputs).collect();
        (report, outcomes)
    };
    if args.executions == 1 {
        return print_report(&report, &args.feedback);
    }
    let mut text = String::new();
    for (k, outcome) in outcomes.iter().enumerate() {
        if let Some(outputs) = outcome {
            if k > 0 {
                text.push('\n');
            }
            for v in outputs {
                text += &mixgc_circuit::values::to_hex(v);
                text.push('\n');
            }
        }
    }
    crate::write_stdout(&text)?;
    args.feedback.summary(&crate::summary::line(&report));
    args.feedback.summary(&format!(
        "{} executions, mean {:.3} ms per execution",
        args.executions,
        report.elapsed.as_secs_f64() * 1e3 / args.executions as f64
    ));
    Ok(())
}
