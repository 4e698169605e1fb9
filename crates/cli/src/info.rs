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
    /// Circuit file (Bristol Fashion or the older Bristol Format), a compiled-stream file
    /// (its header is described), or a `.haac` program (its instructions, window, GEs, live
    /// wires and queues).
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

/// Describes a `.haac` program (read whole and checked by the bounded reader,
/// `mixgc_haac::file::read_file`): its shape, live wires and per-GE queues.
fn haac_info(file: &Path, json: bool) -> Result<(), CliError> {
    let hc = mixgc_haac::file::read_file(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let i = mixgc_haac::summarize(&hc);
    if json {
        return write_stdout(&format!("{}\n", serde_json::to_string(&i)?));
    }
    let pct = |n: u64| 100.0 * n as f64 / i.instructions.max(1) as f64;
    let mut s = String::new();
    add!(
        s,
        "{} (HAAC program, {} schedule)",
        file.display(),
        format!("{:?}", i.schedule).to_lowercase()
    );
    add!(
        s,
        "  window           {} wires ({} of 16 B labels), {}-bit SWW addresses, {}-bit instructions",
        thousands(u64::from(i.window)),
        bytes(u64::from(i.window) * 16),
        i.address_bits,
        i.instruction_bits
    );
    add!(s, "  gate engines     {}", i.ges);
    add!(
        s,
        "  inputs           {} wires ({} value(s), the garbler's {}; {} constant wire(s))",
        thousands(u64::from(i.input_wires)),
        i.input_values,
        i.garbler_values,
        i.constant_wires
    );
    add!(s, "  outputs          {} wires", thousands(i.output_wires));
    add!(
        s,
        "  instructions     {}: {} AND, {} XOR, {} NOT, {} nop",
        thousands(i.instructions),
        thousands(i.ands),
        thousands(i.xors),
        thousands(i.nots),
        thousands(i.nops)
    );
    add!(
        s,
        "  live wires       {} ({:.1} % of the instructions)",
        thousands(i.live_wires),
        pct(i.live_wires)
    );
    add!(
        s,
        "  OoRW reads       {} ({:.1} per kilo-instruction)",
        thousands(i.oorw_reads),
        10.0 * pct(i.oorw_reads)
    );
    add!(
        s,
        "  off-chip streams tables {}, instructions {}, OoRW labels and addresses {}",
        bytes(i.table_bytes),
        bytes(i.instruction_bytes),
        bytes(i.oorw_bytes)
    );
    add!(s, "  queues per GE    instructions / tables / OoRW entries");
    for (g, e) in i.engines.iter().enumerate() {
        add!(
            s,
            "    GE {g:<3}         {} / {} / {}  ({} of instructions)",
            thousands(e.instructions),
            thousands(e.tables),
            thousands(e.oorw),
            bytes(e.instruction_bytes)
        );
    }
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
    if mixgc_haac::file::is_haac_file(file) {
        return haac_info(file, args.json);
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
