//! Error types of this crate.

use thiserror::Error;

/// Why a [`Circuit`](crate::Circuit) is not well formed, or why it cannot be evaluated on
/// the inputs given. Gate indices are 0-based positions in the gate arrays.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum CircuitError {
    /// The four gate arrays (`kind`, `a`, `b`, `out`) must have one entry per gate.
    #[error("gate arrays differ in length: kind {kind}, a {a}, b {b}, out {out}")]
    LengthMismatch {
        kind: usize,
        a: usize,
        b: usize,
        out: usize,
    },
    /// Gate indices must fit in a `u32`.
    #[error("too many gates: {gates} (at most {max})")]
    TooManyGates { gates: usize, max: usize },
    /// The input values need more wires than the circuit has.
    #[error("the input values need {bits} wires but the circuit has only {num_wires}")]
    InputsExceedWires { bits: u64, num_wires: u32 },
    /// A gate names a wire id `>= num_wires`.
    #[error("gate {gate}: wire {wire} is out of range (the circuit has {num_wires} wires)")]
    WireOutOfRange { gate: usize, wire: u32, num_wires: u32 },
    /// A gate writes one of the circuit's input wires.
    #[error("gate {gate}: writes wire {wire}, which is a circuit input")]
    WritesInput { gate: usize, wire: u32 },
    /// Two gates write the same wire.
    #[error("gate {gate}: writes wire {wire}, which gate {first} already writes")]
    WrittenTwice { gate: usize, wire: u32, first: usize },
    /// A gate reads a wire that nothing defines.
    #[error("gate {gate}: reads wire {wire}, which is neither an input nor written by any gate")]
    UndefinedWire { gate: usize, wire: u32 },
    /// A gate reads a wire that only a later gate (or the gate itself) writes.
    #[error(
        "gate {gate}: reads wire {wire} before gate {writer} writes it \
         (gates must be in topological order)"
    )]
    NotTopological { gate: usize, wire: u32, writer: usize },
    /// A `Const` gate whose constant is not 0 or 1.
    #[error("gate {gate}: a constant must be 0 or 1, found {value}")]
    BadConstant { gate: usize, value: u32 },
    /// An output wire id `>= num_wires`.
    #[error("output bit {index}: wire {wire} is out of range (the circuit has {num_wires} wires)")]
    OutputOutOfRange { index: usize, wire: u32, num_wires: u32 },
    /// An output wire that is neither an input nor written by a gate.
    #[error("output bit {index}: wire {wire} is neither an input nor written by any gate")]
    UndefinedOutput { index: usize, wire: u32 },
    /// `output_widths` does not add up to `output_wires.len()`.
    #[error("the output widths add up to {sum} bits but there are {wires} output wires")]
    OutputWidthMismatch { sum: u64, wires: usize },
    /// [`Circuit::eval_plain`](crate::Circuit::eval_plain) got the wrong number of values.
    #[error("expected {expected} input values, got {got}")]
    InputCount { expected: usize, got: usize },
    /// [`Circuit::eval_plain`](crate::Circuit::eval_plain) got a value of the wrong width.
    #[error("input value {value}: expected {expected} bits, got {got}")]
    InputWidth { value: usize, expected: u32, got: usize },
}

impl CircuitError {
    /// The index of the gate this error is about, if it is about one gate.
    pub fn gate(&self) -> Option<usize> {
        match *self {
            CircuitError::WireOutOfRange { gate, .. }
            | CircuitError::WritesInput { gate, .. }
            | CircuitError::WrittenTwice { gate, .. }
            | CircuitError::UndefinedWire { gate, .. }
            | CircuitError::NotTopological { gate, .. }
            | CircuitError::BadConstant { gate, .. } => Some(gate),
            _ => None,
        }
    }
}

/// A circuit file could not be read: names the file (the `source` given to the parser),
/// the 1-based line, and why.
///
/// Displays as `FILE:LINE: reason`, or `FILE: reason` when the problem is not tied to a
/// line (`line == 0`, e.g. the file could not be opened).
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("{file}{}: {reason}", line_suffix(.line))]
pub struct ParseError {
    /// The file name (or other description of where the text came from).
    pub file: String,
    /// 1-based line number; 0 when the error is not about a particular line.
    pub line: usize,
    /// What is wrong, in words.
    pub reason: String,
}

fn line_suffix(line: &usize) -> String {
    if *line == 0 {
        String::new()
    } else {
        format!(":{line}")
    }
}

impl ParseError {
    pub(crate) fn new(file: &str, line: usize, reason: impl Into<String>) -> Self {
        ParseError {
            file: file.to_string(),
            line,
            reason: reason.into(),
        }
    }
}

/// A textual value (see [`values`](crate::values)) could not be read.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ValueError {
    /// The string has no digits.
    #[error("empty value: expected hex digits")]
    Empty,
    /// A character that is not a hex digit.
    #[error("invalid hex digit {ch:?} at position {position} (expected 0-9, a-f or A-F, no 0x prefix)")]
    BadChar { ch: char, position: usize },
    /// The value is at least `2^width`.
    #[error("value {value} does not fit in {width} bits")]
    TooLarge { value: String, width: u32 },
}
