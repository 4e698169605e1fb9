//! `mixgc run`: one party of a two-party computation.

use std::path::PathBuf;

use clap::Args;
use mixgc_session::Reveal;

use crate::load::{load_file, parse_inputs};
use crate::party::{
    default_terms, execute, open, owned_values, print_report, Connection, Role, SessionOptions,
};
use crate::CliError;

#[derive(Args, Debug)]
#[command(
    after_help = "The garbler owns the first K input values (default ⌈n/2⌉ of the values of \
nonzero width), the evaluator the rest. Each party that learns the output prints one line per \
output value on stdout (⌈width/4⌉ lowercase hex digits, bit 0 = least significant) and a \
summary on stderr. Example:\n  mixgc run --circuit circuits/aes_128.txt --role garbler --listen 127.0.0.1:7000 --input 000102030405060708090a0b0c0d0e0f\n  mixgc run --circuit circuits/aes_128.txt --role evaluator --connect 127.0.0.1:7000 --input 00112233445566778899aabbccddeeff"
)]
pub struct RunArgs {
    /// Circuit file (Bristol Fashion or the older Bristol Format).
    #[arg(long, value_name = "FILE")]
    circuit: PathBuf,
    /// This party's role.
    #[arg(long, value_enum)]
    role: Role,
    #[command(flatten)]
    connection: Connection,
    /// This party's input values in circuit order, hex without 0x (either case).
    #[arg(long, value_name = "HEX[,HEX...]")]
    input: Option<String>,
    /// Who learns the outputs.
    #[arg(long, default_value = "both", value_parser = parse_reveal)]
    reveal: Reveal,
    /// Number of input values the garbler owns (default ⌈n/2⌉).
    #[arg(long, value_name = "K")]
    garbler_values: Option<usize>,
    #[command(flatten)]
    session: SessionOptions,
}

pub fn parse_reveal(s: &str) -> Result<Reveal, String> {
    s.parse()
}

pub fn run(args: RunArgs) -> Result<(), CliError> {
    let loaded = load_file(&args.circuit)?;
    let widths = loaded.compiled.input_widths();
    let terms = default_terms(args.garbler_values, args.reveal);
    let owned = owned_values(args.role, &terms, widths)?;
    let inputs = parse_inputs(args.role.name(), args.input.as_deref(), &owned, widths)?;
    // Connect first: a listener's first stderr line must be `listening on ADDR`, so the
    // --insecure-seed warning that `config` prints comes after it.
    let ch = open(&args.connection, args.session.timeout())?;
    let cfg = args.session.config();
    let report = execute(ch, args.role, &cfg, &loaded.compiled, &terms, &[inputs])?;
    print_report(&report)
}
