//! HAAC (Mo et al., "HAAC: A Hardware-Software Co-Design to Accelerate Garbled Circuits",
//! ISCA 2023): the accelerator's instruction streams for mixgc circuits and a cycle-level
//! model of the accelerator that runs them.
//!
//! [`isa`] is the in-memory program every other part shares: the compiler writes it, the
//! `.haac` file stores it, the software engine and the model run it.

pub mod isa;
pub mod sim;

pub use isa::{in_window, HaacError, HaacProgram, Instruction, Op, Schedule};
