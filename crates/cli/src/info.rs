//! `mixgc info`: what a circuit costs before anyone runs it.

use std::path::PathBuf;

use clap::Args;
use mixgc_compile::{circuit_info, is_stream_file, GateStream, StreamFile, FORMAT_VERSION};

use crate::summary::{bytes, thousands};
use crate::{write_stdout, CliError};
use mixgc_compile::Loaded;

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// Circuit file (Bristol Fashion or the older Bristol Format), or a compiled-stream file
    /// (its header is described).
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

/// What the header of a compiled-stream file says.
#[derive(serde::Serialize)]
struct StreamInfo {
    format: &'static str,
    version: u32,
    file_bytes: u64,
    inputs: Vec<u32>,
    outputs: Vec<u32>,
    gates: u64,
    ands: u64,
    slots: u32,
    working_set_bytes: u64,
    circuit_digest: String,
    stream_digest: String,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn list(v: &[u32]) -> String {
    v.iter().map(|w| w.to_string()).collect::<Vec<_>>().join(", ")
}

/// The lines both kinds of file share: input and output widths, gates and ANDs.
fn interface_and_size(s: &mut String, inputs: &[u32], outputs: &[u32], gates: u64, ands: u64) {
    add!(
        s,
        "  inputs           {} value(s): {} bits",
        inputs.len(),
        list(inputs)
    );
    add!(
        s,
        "  outputs          {} value(s): {} bits",
        outputs.len(),
        list(outputs)
    );
    add!(s, "  gates            {}", thousands(gates));
    add!(
        s,
        "  ANDs             {}  ({} of garbled tables)",
        thousands(ands),
        bytes(ands * 32)
    );
}

/// Describes a compiled-stream file from its header (the body is not read).
fn stream_info(args: &InfoArgs) -> Result<(), CliError> {
    let f = StreamFile::open(&args.file)?;
    let h = f.header();
    let i = StreamInfo {
        format: "compiled-stream",
        version: FORMAT_VERSION,
        file_bytes: f.file_len(),
        inputs: h.input_widths().to_vec(),
        outputs: h.output_widths().to_vec(),
        gates: h.num_gates(),
        ands: h.num_ands(),
        slots: h.num_slots(),
        working_set_bytes: h.working_set_bytes(),
        circuit_digest: hex(&h.digest()),
        stream_digest: hex(&h.stream_digest()),
    };
    if args.json {
        return write_stdout(&format!("{}\n", serde_json::to_string(&i)?));
    }
    let mut s = String::new();
    add!(
        s,
        "{} (compiled stream, format version {}, {})",
        args.file.display(),
        i.version,
        bytes(i.file_bytes)
    );
    interface_and_size(&mut s, &i.inputs, &i.outputs, i.gates, i.ands);
    add!(
        s,
        "  working set      {} slots × 16 B = {}",
        thousands(i.slots as u64),
        bytes(i.working_set_bytes)
    );
    add!(s, "  circuit digest   {}", i.circuit_digest);
    add!(s, "  stream digest    {}", i.stream_digest);
    write_stdout(&s)
}

pub fn info(args: InfoArgs) -> Result<(), CliError> {
    if is_stream_file(&args.file).unwrap_or(false) {
        return stream_info(&args);
    }
    let loaded = Loaded::read_file(&args.file)?;
    let i = circuit_info(&loaded.circuit, &loaded.compiled);
    if args.json {
        return write_stdout(&format!("{}\n", serde_json::to_string(&i)?));
    }
    // Built whole, then written once: a closed stdout is an error, not a panic.
    let mut s = String::new();
    add!(s, "{}", args.file.display());
    interface_and_size(&mut s, &i.inputs, &i.outputs, i.gates, i.ands);
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
