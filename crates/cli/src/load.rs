//! Loading circuits and parsing the inputs a party supplies.

use std::path::Path;

use mixgc_circuit::{bristol, values, Circuit, PartyId};
use mixgc_compile::{
    compile, compile_with, is_stream_file, CompiledCircuit, GateStream, StreamFile, StreamHeader,
    DEFAULT_WINDOW,
};

use clap::Args;

use crate::compile::ScheduleArg;
use crate::memory::{Estimate, LABEL_BYTES};
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

/// What `mixgc run` executes: a Bristol circuit compiled in memory, or a compiled-stream
/// file read chunk by chunk.
// One per run: the size of the reader's BLAKE3 state (about 2 KiB) does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Runnable {
    Whole(Loaded),
    File(StreamFile),
}

/// How a party compiles a Bristol circuit before running it (both parties must agree).
#[derive(Args, Clone, Debug)]
pub struct ScheduleOptions {
    /// Gate schedule for a Bristol circuit: batched (default; fastest on one thread), or
    /// HAAC's program, full or segment order (full and segment mark parallel blocks, which
    /// `--threads` splits across threads). A stream file keeps the schedule it was
    /// compiled with.
    #[arg(long, value_enum)]
    pub schedule: Option<ScheduleArg>,
    /// Window in wires for the full and segment orders.
    #[arg(long, default_value_t = DEFAULT_WINDOW)]
    pub window: usize,
}

impl ScheduleOptions {
    /// Opens `path` as a compiled-stream file if it starts with the stream magic, else as
    /// a Bristol circuit compiled with the chosen schedule.
    pub fn open(&self, path: &Path) -> Result<Runnable, CliError> {
        // A file that cannot be opened is reported by the Bristol reader, path included.
        if is_stream_file(path).unwrap_or(false) {
            if self.schedule.is_some() {
                return Err(format!(
                    "{} is a compiled stream: its schedule was fixed by `mixgc compile`; drop --schedule",
                    path.display()
                )
                .into());
            }
            return Ok(Runnable::File(StreamFile::open(path)?));
        }
        let mut loaded = load_file(path)?;
        if let Some(schedule) = self.schedule {
            loaded.compiled = compile_with(&loaded.circuit, schedule.layout(self.window));
        }
        Ok(Runnable::Whole(loaded))
    }
}

impl Runnable {
    /// Runs `f` on the circuit as a [`GateStream`].
    pub fn with_stream<T>(&mut self, f: impl FnOnce(&mut dyn GateStream) -> T) -> T {
        match self {
            Runnable::Whole(l) => f(&mut l.compiled.stream()),
            Runnable::File(file) => f(file),
        }
    }

    pub fn header(&self) -> &StreamHeader {
        match self {
            Runnable::Whole(l) => l.compiled.header(),
            Runnable::File(f) => f.header(),
        }
    }

    /// This party's memory besides the frame buffers (`frame_buffers` of them), and what
    /// to do when it is too much. See `mixgc run --help`.
    pub fn estimate(&self, frame_buffers: u64) -> (Estimate, &'static str) {
        let h = self.header();
        let words = |v: &[u32]| v.len() as u64 * 4;
        let header = words(h.input_widths())
            + words(h.output_widths())
            + words(h.input_slots())
            + words(h.output_slots());
        let est = Estimate::new(frame_buffers)
            .with("wire slots", h.num_slots() as u64 * LABEL_BYTES)
            .with("input labels", h.input_slots().len() as u64 * LABEL_BYTES);
        match self {
            Runnable::Whole(l) => {
                let c = &l.circuit;
                let ir = c.num_gates() as u64 * 13
                    + words(&c.input_widths)
                    + words(&c.output_widths)
                    + words(&c.output_wires);
                let stream = header + h.num_gates() * 12 + l.compiled.runs().len() as u64 * 8;
                (
                    est.with("circuit IR", ir).with("compiled stream", stream),
                    "stream the circuit from disk instead, which holds one chunk of gates at a time \
                     (`mixgc compile FILE --out FILE.mgcs`, then `mixgc run --circuit FILE.mgcs`), \
                     or raise the limit",
                )
            }
            Runnable::File(f) => (
                est.with("header", header)
                    .with("chunk and read buffer", f.buffer_bytes()),
                "the wire slots of this schedule need that much: compile with a schedule that keeps \
                 fewer wires live (`mixgc compile CIRCUIT --report` compares them), or raise the limit",
            ),
        }
    }
}

/// Parses `--input HEX[,HEX...]` for the values `owned` (indices into `widths`).
pub fn parse_inputs(
    role: PartyId,
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
