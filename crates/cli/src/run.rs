//! `mixgc run`: one party of a two-party computation.

use std::path::PathBuf;

use clap::Args;
use mixgc_session::{run_party, Audience, PartyId};

use crate::load::{parse_inputs, ScheduleOptions};
use crate::memory::{session_frame_buffers, MemoryLimit, SESSION_FRAMES_HELP};
use crate::party::{default_terms, owned_values, print_report, role_parser, Connection, SessionOptions};
use crate::progress::Feedback;
use crate::CliError;

#[derive(Args, Debug)]
#[command(after_help = after_help())]
pub struct RunArgs {
    /// Circuit file: Bristol Fashion, the older Bristol Format, or a compiled stream
    /// written by `mixgc compile FILE --out OUT` (read chunk by chunk from disk).
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
    /// Number of input values the garbler owns (default ⌈n/2⌉).
    #[arg(long, value_name = "K")]
    garbler_values: Option<usize>,
    #[command(flatten)]
    session: SessionOptions,
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
Memory (--memory-limit), estimated before connecting: wire slots (16 B each) + input labels \
(16 B an input bit) + frame buffers, plus, for a Bristol file run whole in memory, the circuit IR \
(13 B a gate) and the compiled stream (12 B a gate, 8 B a run), or, for a stream file, its header \
and one chunk with the read buffer (under 2 MiB). {SESSION_FRAMES_HELP} A Bristol file also \
needs, while it is parsed and compiled, its whole text and the scheduler's tables: the process's \
peak can be a few times the estimate (a stream file has no such step).\n\n\
Example:\n  mixgc run --circuit circuits/aes_128.txt --role garbler --listen 127.0.0.1:7000 --input 000102030405060708090a0b0c0d0e0f\n  \
mixgc run --circuit circuits/aes_128.txt --role evaluator --connect 127.0.0.1:7000 --input 00112233445566778899aabbccddeeff"
    )
}

pub fn parse_reveal(s: &str) -> Result<Audience, String> {
    s.parse()
}

pub fn run(mut args: RunArgs) -> Result<(), CliError> {
    let mut runnable = args.schedule.open(&args.circuit)?;
    let widths = runnable.header().input_widths().to_vec();
    let terms = default_terms(args.garbler_values, args.reveal);
    let owned = owned_values(args.role, &terms, &widths)?;
    let inputs = parse_inputs(args.role, args.input.as_deref(), &owned, &widths)?;
    let (estimate, advice) =
        crate::load::estimate(&runnable, session_frame_buffers(!args.session.single_threaded));
    let fit = args
        .memory
        .fit(&estimate, args.session.batch_bytes, args.role, advice)?;
    // Connect first: a listener's first stderr line must be `listening on ADDR`, so the
    // --insecure-seed warning that `config` prints comes after it.
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
    let batch = [inputs];
    let report = runnable.with_stream(|stream| run_party(ch, args.role, &cfg, stream, &terms, &batch))?;
    print_report(&report, &args.feedback)
}
