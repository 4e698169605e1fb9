//! HAAC (Mo et al., "HAAC: A Hardware-Software Co-Design to Accelerate Garbled Circuits",
//! ISCA 2023): the accelerator's instruction streams for mixgc circuits and a cycle-level
//! model of the accelerator that runs them.
//!
//! [`isa`] is the in-memory program every other part shares: the compiler ([`compile`])
//! writes it, the `.haac` file ([`file`]) stores it, the software engine ([`to_circuit`])
//! and the model run it; [`eval_windowed`] checks it in plaintext, window and all.

mod auto;
mod bits;
pub mod compile;
mod convert;
pub mod engines;
mod eval;
pub mod file;
mod io;
pub mod isa;
pub mod sim;
pub mod summary;

pub use auto::{compile_auto, AutoChoice};
pub use compile::{compile, CompileError, CompileOptions};
pub use convert::to_circuit;
pub use engines::assign_round_robin;
pub use eval::{eval_windowed, EvalError};
pub use file::FileError;
pub use io::{HaacCircuit, HaacIo, IoError};
pub use isa::{in_window, HaacError, HaacProgram, Instruction, Op, Schedule};
pub use summary::{summarize, EngineQueues, ProgramSummary};
