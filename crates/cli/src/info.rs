//! `mixgc info`: what a circuit costs before anyone runs it.

use std::path::PathBuf;

use clap::Args;
use mixgc_compile::circuit_info;

use crate::load::load_file;
use crate::summary::{bytes, thousands};
use crate::{write_stdout, CliError};

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// Circuit file (Bristol Fashion or the older Bristol Format).
    file: PathBuf,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

/// Appends one formatted line to a `String`.
macro_rules! add {
    ($s:ident, $($fmt:tt)*) => {
        $s.push_str(&format!("{}\n", format_args!($($fmt)*)))
    };
}

pub fn info(args: InfoArgs) -> Result<(), CliError> {
    let loaded = load_file(&args.file)?;
    let i = circuit_info(&loaded.circuit, &loaded.compiled);
    if args.json {
        return write_stdout(&format!("{}\n", serde_json::to_string(&i)?));
    }
    // Built whole, then written once: a closed stdout is an error, not a panic.
    let mut s = String::new();
    let list = |v: &[u32]| v.iter().map(|w| w.to_string()).collect::<Vec<_>>().join(", ");
    add!(s, "{}", args.file.display());
    add!(
        s,
        "  inputs           {} value(s): {} bits",
        i.inputs.len(),
        list(&i.inputs)
    );
    add!(
        s,
        "  outputs          {} value(s): {} bits",
        i.outputs.len(),
        list(&i.outputs)
    );
    add!(s, "  gates            {}", thousands(i.gates));
    add!(
        s,
        "  ANDs             {}  ({} of garbled tables)",
        thousands(i.ands),
        bytes(i.ands * 32)
    );
    add!(s, "  XORs             {}", thousands(i.xors));
    add!(s, "  NOTs             {}", thousands(i.nots));
    if i.copies + i.constants > 0 {
        add!(
            s,
            "  EQW / EQ         {} / {}",
            thousands(i.copies),
            thousands(i.constants)
        );
    }
    add!(s, "  AND depth        {}", thousands(i.and_depth));
    add!(
        s,
        "  max live wires   {}  (program order)",
        thousands(i.max_live_wires)
    );
    add!(
        s,
        "  working set      {} slots × 16 B = {}  (compiled, AND-batched schedule)",
        thousands(i.compiled_slots),
        bytes(i.working_set_bytes)
    );
    write_stdout(&s)
}
