//! Loading circuits and parsing the inputs a party supplies.

use std::path::Path;

use mixgc_circuit::{bristol, values, Circuit};
use mixgc_compile::{compile, CompiledCircuit};

use crate::CliError;

/// A circuit ready to run: the IR (for `info` and plaintext checks) and its compiled stream.
pub struct Loaded {
    pub circuit: Circuit,
    pub compiled: CompiledCircuit,
}

pub fn load_file(path: &Path) -> Result<Loaded, CliError> {
    Ok(from_circuit(bristol::read_file(path)?))
}

pub fn load_text(text: &str, name: &str) -> Result<Loaded, CliError> {
    Ok(from_circuit(bristol::parse(text, name)?))
}

pub fn from_circuit(circuit: Circuit) -> Loaded {
    let compiled = compile(&circuit);
    Loaded { circuit, compiled }
}

/// Parses `--input HEX[,HEX...]` for the values `owned` (indices into `widths`).
pub fn parse_inputs(
    role: &str,
    arg: Option<&str>,
    owned: &[usize],
    widths: &[u32],
) -> Result<Vec<Vec<bool>>, CliError> {
    let given: Vec<&str> = match arg {
        None | Some("") => Vec::new(),
        Some(s) => s.split(',').map(str::trim).collect(),
    };
    if given.len() != owned.len() {
        let w: Vec<String> = owned.iter().map(|&v| format!("{} bits", widths[v])).collect();
        return Err(format!(
            "the {role} owns {} input value(s) ({}) but --input gave {}",
            owned.len(),
            if w.is_empty() {
                "none".to_string()
            } else {
                w.join(", ")
            },
            given.len()
        )
        .into());
    }
    owned
        .iter()
        .zip(given)
        .enumerate()
        .map(|(k, (&v, hex))| {
            values::parse_hex(hex, widths[v]).map_err(|e| format!("--input value #{}: {e}", k + 1).into())
        })
        .collect()
}
