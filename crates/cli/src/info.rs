//! `mixgc info`: what a circuit costs before anyone runs it.

use std::path::{Path, PathBuf};

use clap::Args;
use mixgc_compile::{circuit_info, is_stream_file, GateStream, StreamFile, FORMAT_VERSION};

use crate::summary::{bytes, thousands};
use crate::{write_stdout, CliError};
use mixgc_compile::Loaded;
use mixgc_core::{cpu_features, AesKernel, AES_KERNEL_ENV};
use mixgc_studies::bench::cpu_model;

#[derive(Args, Debug)]
pub struct InfoArgs {
    /// Circuit file (Bristol Fashion or the older Bristol Format), or a compiled-stream file
    /// (its header is described).
    #[arg(required_unless_present = "cpu")]
    file: Option<PathBuf>,
    /// Print one JSON object instead of a table.
    #[arg(long)]
    json: bool,
    /// Instead: this CPU's model and AES flags, the AES kernels it runs and the one chosen
    /// (the widest, unless the environment variable MIXGC_AES_KERNEL names another:
    /// portable, aes-ni, vaes-256 or vaes-512).
    #[arg(long, conflicts_with = "file")]
    cpu: bool,
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
fn stream_info(file: &Path, json: bool) -> Result<(), CliError> {
    let f = StreamFile::open(file)?;
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
    if json {
        return write_stdout(&format!("{}\n", serde_json::to_string(&i)?));
    }
    let mut s = String::new();
    add!(
        s,
        "{} (compiled stream, format version {}, {})",
        file.display(),
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

/// What `mixgc info --cpu` reports.
#[derive(serde::Serialize)]
struct CpuInfo {
    model: String,
    flags: Vec<&'static str>,
    missing_flags: Vec<&'static str>,
    aes_kernels: Vec<&'static str>,
    aes_kernel: Option<&'static str>,
    aes_kernel_error: Option<String>,
}

/// ", family F model M" from /proc/cpuinfo (x86), or nothing.
fn cpu_family_and_model() -> String {
    let text = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |name: &str| {
        text.lines().find_map(|l| {
            let (key, value) = l.split_once(':')?;
            (key.trim() == name).then(|| value.trim().to_string())
        })
    };
    match (field("cpu family"), field("model")) {
        (Some(family), Some(model)) => format!(", family {family} model {model}"),
        _ => String::new(),
    }
}

fn cpu_info(json: bool) -> Result<(), CliError> {
    let features = cpu_features();
    let pick = |has: bool| {
        features
            .iter()
            .filter(|f| f.1 == has)
            .map(|f| f.0)
            .collect::<Vec<_>>()
    };
    let chosen = AesKernel::current();
    let i = CpuInfo {
        model: cpu_model() + &cpu_family_and_model(),
        flags: pick(true),
        missing_flags: pick(false),
        aes_kernels: AesKernel::available().into_iter().map(AesKernel::name).collect(),
        aes_kernel: chosen.as_ref().ok().map(|k| k.name()),
        aes_kernel_error: chosen.as_ref().err().map(|e| e.to_string()),
    };
    if json {
        return write_stdout(&format!("{}\n", serde_json::to_string(&i)?));
    }
    let none = |v: &[&str]| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join(" ")
        }
    };
    let mut s = String::new();
    add!(s, "CPU              {}", i.model);
    add!(s, "  AES flags      {}", none(&i.flags));
    add!(s, "  lacking        {}", none(&i.missing_flags));
    add!(s, "AES kernels      {}", i.aes_kernels.join(", "));
    match &chosen {
        Ok(k) => add!(s, "  chosen         {k}"),
        Err(e) => add!(s, "  chosen         none: {e}"),
    }
    add!(
        s,
        "  to force one   {AES_KERNEL_ENV}=<name> (one of {})",
        AesKernel::ALL.map(AesKernel::name).join(", ")
    );
    write_stdout(&s)
}

pub fn info(args: InfoArgs) -> Result<(), CliError> {
    let Some(file) = &args.file else {
        return cpu_info(args.json);
    };
    if is_stream_file(file).unwrap_or(false) {
        return stream_info(file, args.json);
    }
    let loaded = Loaded::read_file(file)?;
    let i = circuit_info(&loaded.circuit, &loaded.compiled);
    if args.json {
        return write_stdout(&format!("{}\n", serde_json::to_string(&i)?));
    }
    // Built whole, then written once: a closed stdout is an error, not a panic.
    let mut s = String::new();
    add!(s, "{}", file.display());
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
