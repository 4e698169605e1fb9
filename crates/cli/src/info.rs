//! `mixgc info`: what a circuit costs before anyone runs it.

use std::path::PathBuf;

use clap::Args;
use mixgc_compile::circuit_info;

use crate::load::load_file;
use crate::summary::{bytes, thousands};
use crate::CliError;

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// Circuit file (Bristol Fashion or the older Bristol Format).
    file: PathBuf,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn info(args: InfoArgs) -> Result<(), CliError> {
    let loaded = load_file(&args.file)?;
    let i = circuit_info(&loaded.circuit, &loaded.compiled);
    if args.json {
        println!("{}", serde_json::to_string(&i)?);
        return Ok(());
    }
    let list = |v: &[u32]| {
        v.iter()
            .map(|w| w.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    println!("{}", args.file.display());
    println!(
        "  inputs           {} value(s): {} bits",
        i.inputs.len(),
        list(&i.inputs)
    );
    println!(
        "  outputs          {} value(s): {} bits",
        i.outputs.len(),
        list(&i.outputs)
    );
    println!("  gates            {}", thousands(i.gates));
    println!(
        "  ANDs             {}  ({} bytes of garbled tables)",
        thousands(i.ands),
        bytes(i.ands * 32)
    );
    println!("  XORs             {}", thousands(i.xors));
    println!("  NOTs             {}", thousands(i.nots));
    if i.copies + i.constants > 0 {
        println!(
            "  EQW / EQ         {} / {}",
            thousands(i.copies),
            thousands(i.constants)
        );
    }
    println!("  AND depth        {}", thousands(i.and_depth));
    println!(
        "  max live wires   {}  (program order)",
        thousands(i.max_live_wires)
    );
    println!(
        "  working set      {} slots × 16 B = {}  (compiled, AND-batched schedule)",
        thousands(i.compiled_slots),
        bytes(i.working_set_bytes)
    );
    Ok(())
}
