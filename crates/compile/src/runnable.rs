//! What a party runs: a Bristol circuit compiled in memory, or a compiled-stream file read
//! chunk by chunk (told apart by the file's magic), and the memory each needs.

use std::path::{Path, PathBuf};

use mixgc_circuit::{bristol, Circuit, ParseError};

use crate::file::{sniff, FileKind};
use crate::{compile, compile_with, CompiledCircuit, GateStream, Layout, StreamError};
use crate::{StreamFile, StreamHeader};

/// Bytes of one wire label (one slot).
pub const LABEL_BYTES: u64 = 16;

/// A circuit in memory: its IR (for statistics and plaintext checks) and its compiled stream.
pub struct Loaded {
    pub circuit: Circuit,
    pub compiled: CompiledCircuit,
}

impl Loaded {
    /// `circuit` compiled with the default (batched) schedule.
    pub fn new(circuit: Circuit) -> Loaded {
        let compiled = compile(&circuit);
        Loaded { circuit, compiled }
    }

    /// Reads and compiles a Bristol file; a compiled-stream file (whole or damaged) is an
    /// error naming it as such, not a text that fails to parse.
    pub fn read_file(path: &Path) -> Result<Loaded, LoadError> {
        match sniff(path) {
            Ok(FileKind::Stream) => return Err(LoadError::NotBristol(path.to_path_buf())),
            Ok(FileKind::DamagedStream) => return Err(LoadError::DamagedStream(path.to_path_buf())),
            // A file that cannot be opened is reported by the Bristol reader, path included.
            Ok(FileKind::Other) | Err(_) => {}
        }
        Ok(Loaded::new(bristol::read_file(path)?))
    }

    /// Parses and compiles Bristol text; `source` names it in errors.
    pub fn parse(text: &str, source: &str) -> Result<Loaded, ParseError> {
        Ok(Loaded::new(bristol::parse(text, source)?))
    }
}

/// Why a circuit could not be opened.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    #[error(transparent)]
    Circuit(#[from] ParseError),
    #[error(transparent)]
    Stream(#[from] StreamError),
    #[error("{} is a compiled stream: its schedule was fixed by `mixgc compile`; drop --schedule", .0.display())]
    ScheduleOfStream(PathBuf),
    #[error("{} is a compiled stream, not a Bristol circuit", .0.display())]
    NotBristol(PathBuf),
    #[error(
        "{}: its first bytes are nearly the compiled-stream magic `MIXGCCS`: a damaged stream file \
         (compile the circuit again with `mixgc compile`)",
        .0.display()
    )]
    DamagedStream(PathBuf),
}

/// A circuit ready to run.
// One per run: the size of the reader's BLAKE3 state (about 2 KiB) does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Runnable {
    Whole(Loaded),
    File(StreamFile),
}

/// What would lower a run's memory when it is too much.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryRemedy {
    /// Compile the circuit to a stream file and run that: it holds one chunk of gates.
    StreamFromDisk,
    /// The wire slots dominate: pick a schedule that keeps fewer wires live.
    FewerLiveWires,
}

/// A party's memory for a circuit, by part, besides the session's frame buffers.
pub struct MemoryUse {
    pub parts: Vec<(&'static str, u64)>,
    pub remedy: MemoryRemedy,
}

impl Runnable {
    /// Opens `path` as a compiled-stream file if it starts with the stream magic, else as a
    /// Bristol circuit compiled with `layout` (the default schedule when `None`). A stream
    /// file keeps the schedule it was compiled with, so a layout for one is an error.
    pub fn open(path: &Path, layout: Option<Layout>) -> Result<Runnable, LoadError> {
        if sniff(path).is_ok_and(|kind| kind == FileKind::Stream) {
            if layout.is_some() {
                return Err(LoadError::ScheduleOfStream(path.to_path_buf()));
            }
            return Ok(Runnable::File(StreamFile::open(path)?));
        }
        let mut loaded = Loaded::read_file(path)?;
        if let Some(layout) = layout {
            loaded.compiled = compile_with(&loaded.circuit, layout);
        }
        Ok(Runnable::Whole(loaded))
    }

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

    /// This party's memory for the circuit: wire slots and input labels, plus the IR and
    /// the compiled stream in memory, or the header and one chunk for a stream file.
    pub fn memory(&self) -> MemoryUse {
        let h = self.header();
        let words = |v: &[u32]| v.len() as u64 * 4;
        let header = words(h.input_widths())
            + words(h.output_widths())
            + words(h.input_slots())
            + words(h.output_slots());
        let mut parts = vec![
            ("wire slots", h.num_slots() as u64 * LABEL_BYTES),
            ("input labels", h.input_slots().len() as u64 * LABEL_BYTES),
        ];
        let remedy = match self {
            Runnable::Whole(l) => {
                let c = &l.circuit;
                let ir = c.num_gates() as u64 * 13
                    + words(&c.input_widths)
                    + words(&c.output_widths)
                    + words(&c.output_wires);
                let stream = header + h.num_gates() * 12 + l.compiled.runs().len() as u64 * 8;
                parts.extend([("circuit IR", ir), ("compiled stream", stream)]);
                MemoryRemedy::StreamFromDisk
            }
            Runnable::File(f) => {
                parts.extend([("header", header), ("chunk and read buffer", f.buffer_bytes())]);
                MemoryRemedy::FewerLiveWires
            }
        };
        MemoryUse { parts, remedy }
    }
}
