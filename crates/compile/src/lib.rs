//! The compile step every engine consumes: circuit IR → scheduled, slot-allocated
//! instruction stream.
//!
//! 1. [`schedule`]: a topological list schedule that groups independent AND gates so
//!    the garbler can hash 8+ blocks at a time, while keeping gates within a bounded
//!    window of program order so memory stays bounded.
//! 2. [`slots`]: liveness analysis and wire-slot allocation; working memory is the
//!    maximum number of live wires × 16 bytes, not the circuit size.
//! 3. [`stream`]: the compact instruction stream engines execute.
//! 4. [`file`]: that stream on disk, read back in bounded chunks.
//! 5. [`Runnable`]: what a party runs, a circuit in memory or a stream file, and its memory.

mod file;
mod free_slots;
mod info;
mod instr;
mod reorder;
mod report;
mod runnable;
mod schedule;
mod slots;
mod stream;

pub use file::{
    is_stream_file, reseal_header, save, save_reporting, sniff, write_stream, write_stream_reporting,
    FileKind, StreamFile, StreamWriter, CHUNK_GATES, FORMAT_VERSION, MAGIC,
};
pub use info::{circuit_info, CircuitInfo};
pub use instr::{Gate, Run, RunKind, MAX_AND_RUN, NOT_SLOT};
pub use reorder::{gate_order, Reorder};
pub use report::{schedule_report, ScheduleReport, DEFAULT_WINDOW};
pub use runnable::{LoadError, Loaded, MemoryRemedy, MemoryUse, Runnable, LABEL_BYTES};
pub use schedule::{Schedule, Step, MAX_PARALLEL_GATES};
pub use stream::{
    compile, compile_with, eval_stream_plain, Chunk, CompiledCircuit, GateStream, InMemory, Layout,
    StreamError, StreamHasher, StreamHeader,
};
