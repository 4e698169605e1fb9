//! `mixgc example`: one party of a library example, with the inputs and outputs of
//! `mixgc run` on the circuit `mixgc export NAME` writes, executed gate by gate (memory is
//! the program's live labels, never the circuit).

use clap::Args;
use mixgc_circuit::values;
use mixgc_program::PartyId;
use mixgc_session::Scheme;
use mixgc_studies::common::{random_values, LibraryRun, MaliciousSession, ModelOptions};

use crate::load::parse_inputs;
use crate::memory::{Estimate, MemoryLimit};
use crate::party::{print_report, role_parser, Connection, SessionOptions};
use crate::progress::Feedback;
use crate::CliError;
use mixgc_compile::LABEL_BYTES;

#[derive(Args, Debug)]
#[command(
    after_help = "Inputs, outputs and flags are those of `mixgc run` on the circuit \
`mixgc export NAME` writes; input values left out are drawn at random and shown on stderr.\n\n\
Memory (--memory-limit), estimated before connecting by running the op on the cost counter: \
the most wires alive at once × 16 B (every wire the op's gadgets create counts until the end, \
so this is an upper bound) + one frame buffer of --batch-bytes (a program run sends and receives \
one table frame at a time; the evaluator's frames have the garbler's size). Over the limit, the \
run is refused before connecting; when only the frame buffer is in the way, --batch-bytes is \
lowered (not below 64 KiB) and a note says so.\n\n\
Examples:\n  mixgc example millionaires --role garbler --listen 127.0.0.1:7000 --input 2540be400\n  \
mixgc example millionaires --role evaluator --connect 127.0.0.1:7000"
)]
pub struct ExampleArgs {
    /// Example or library op (see `mixgc ops`).
    name: String,
    /// This party's role.
    #[arg(long, value_parser = role_parser())]
    role: PartyId,
    #[command(flatten)]
    connection: Connection,
    /// This party's input values, hex as for `mixgc run`; random if left out.
    #[arg(long, value_name = "HEX[,HEX...]")]
    input: Option<String>,
    /// Size for examples that take one (matrix side, string length).
    #[arg(long)]
    size: Option<usize>,
    /// Operand width in bits (default: the example's).
    #[arg(long)]
    width: Option<u32>,
    #[command(flatten)]
    session: SessionOptions,
    #[command(flatten)]
    model: ModelOptions,
    #[command(flatten)]
    memory: MemoryLimit,
    #[command(flatten)]
    feedback: Feedback,
}

pub fn example(mut args: ExampleArgs) -> Result<(), CliError> {
    if args.model.malicious() && args.session.garbling != Scheme::HalfGates {
        return Err("--garbling does not apply to --security malicious (authenticated garbling has its own tables): leave it out".into());
    }
    let op = LibraryRun::new(&args.name, args.width, args.size)?;
    let (owned, widths) = op.owned(args.role);
    let (inputs, note) = match args.input.as_deref() {
        Some(hex) => (parse_inputs(args.role, Some(hex), &owned, &widths)?, None),
        None => {
            let inputs = random_values(&owned, &widths);
            let shown: Vec<String> = inputs.iter().map(|v| values::to_hex(v)).collect();
            (
                inputs,
                Some(format!("{} input (random): {}", args.role, shown.join(","))),
            )
        }
    };
    let estimate = Estimate::new(1).with("live wire labels", op.peak_live_wires * LABEL_BYTES);
    let advice = "give a smaller --size or --width, or raise the limit";
    let fit = args
        .memory
        .fit(&estimate, args.session.batch_bytes, args.role, advice)?;
    // Connect first: a listener's first stderr line must be `listening on ADDR`.
    args.connection.quiet = args.feedback.quiet;
    let ch = args.session.open(&args.connection)?;
    if args.model.malicious() {
        // The --insecure-seed warning.
        let _ = args.session.config();
        if let Some(note) = note {
            args.feedback.summary(&note);
        }
        let seed = args.session.insecure_seed;
        let mut s = MaliciousSession::setup(ch, args.role, mixgc_session::Command::Example, seed)?;
        let report = op.run_malicious(&mut s, args.model.batch_ands, seed, inputs)?;
        return print_report(&report, &args.feedback);
    }
    let mut cfg = args
        .session
        .config()
        .for_command(mixgc_session::Command::Example)
        .with_progress(args.feedback.reporter());
    if let Some(note) = note {
        args.feedback.summary(&note);
    }
    if let Some(note) = fit.note {
        eprintln!("{note}");
    }
    cfg.batch_bytes = fit.batch_bytes;
    let report = op.run(ch, args.role, &cfg, inputs)?;
    print_report(&report, &args.feedback)
}
