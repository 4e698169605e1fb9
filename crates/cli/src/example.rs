//! `mixgc example`: one party of a library example, run exactly like `mixgc run` on the
//! circuit `mixgc export NAME` writes.

use clap::Args;
use mixgc_circuit::values;
use mixgc_program::library;
use mixgc_session::Reveal;
use rand::Rng;

use crate::load::{from_circuit, parse_inputs};
use crate::party::{default_terms, owned_values, Connection, Role, SessionOptions};
use crate::run::run_party;
use crate::CliError;

#[derive(Args, Debug)]
#[command(
    after_help = "Inputs, outputs and flags are those of `mixgc run` on the circuit \
`mixgc export NAME` writes; input values left out are drawn at random and shown on stderr. \
Examples:\n  mixgc example millionaires --role garbler --listen 127.0.0.1:7000 --input 2540be400\n  \
mixgc example millionaires --role evaluator --connect 127.0.0.1:7000"
)]
pub struct ExampleArgs {
    /// Example or library op (see `mixgc ops`).
    name: String,
    /// This party's role.
    #[arg(long, value_enum)]
    role: Role,
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
}

pub fn example(args: ExampleArgs) -> Result<(), CliError> {
    let recorded = library::record(&args.name, args.width, args.size)?;
    let loaded = from_circuit(recorded.circuit);
    let terms = default_terms(None, Reveal::Both);
    let widths = loaded.compiled.input_widths();
    let owned = owned_values(args.role, &terms, widths)?;
    debug_assert_eq!(terms.owners(widths)?.0.len(), recorded.garbler_values);
    let (inputs, note) = match args.input.as_deref() {
        Some(hex) => (parse_inputs(args.role.name(), Some(hex), &owned, widths)?, None),
        None => {
            let inputs = random_values(&owned, widths);
            let shown: Vec<String> = inputs.iter().map(|v| values::to_hex(v)).collect();
            let note = format!("{} input (random): {}", args.role.name(), shown.join(","));
            (inputs, Some(note))
        }
    };
    run_party(
        &loaded,
        args.role,
        &terms,
        inputs,
        &args.connection,
        &args.session,
        note,
    )
}

/// Uniformly random values for the `owned` input values.
pub fn random_values(owned: &[usize], widths: &[u32]) -> Vec<Vec<bool>> {
    let mut rng = rand::thread_rng();
    owned
        .iter()
        .map(|&v| (0..widths[v]).map(|_| rng.gen()).collect())
        .collect()
}
