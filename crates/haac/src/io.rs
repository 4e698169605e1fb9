//! A HAAC program together with what a two-party run of it needs: the circuit's input values
//! and their owners, the public constant wires, and the output values' widths.

use crate::isa::{HaacError, HaacProgram};

/// The input and output values of a [`HaacProgram`] (HAAC's programs are plain gate lists;
/// a run also needs to know whose input each wire is and how output wires group into values).
///
/// Input wires `1..=inputs` are, in order: the circuit's input values (`input_widths`, each
/// least significant bit first), then the public constant wires (`constants`: a `false`
/// entry is a wire holding 0, a `true` entry one holding 1). Constants are public input
/// wires, never instructions, so every instruction is a gate of the circuit.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HaacIo {
    /// Width in bits of each input value, in circuit order.
    pub input_widths: Vec<u32>,
    /// How many of the input values of nonzero width the garbler owns (the first ones, as
    /// `mixgc run --garbler-values`); the evaluator owns the rest.
    pub garbler_values: u32,
    /// Values of the public constant wires that follow the input values.
    pub constants: Vec<bool>,
    /// Width in bits of each output value; the program's outputs are their wires in order.
    pub output_widths: Vec<u32>,
}

/// A HAAC program and its inputs and outputs: what `mixgc compile --isa haac` writes to a
/// `.haac` file and `mixgc run` runs.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HaacCircuit {
    pub program: HaacProgram,
    pub io: HaacIo,
}

/// Why a [`HaacCircuit`] is inconsistent.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum IoError {
    #[error(transparent)]
    Program(#[from] HaacError),
    #[error("the input values have {value_bits} bits and {constants} constant wires follow them, but the program has {inputs} input wires")]
    InputWires {
        value_bits: u64,
        constants: usize,
        inputs: u32,
    },
    #[error("the garbler owns {garbler} input values, but only {nonzero} have a nonzero width")]
    GarblerValues { garbler: u32, nonzero: usize },
    #[error("the output values have {bits} bits, but the program has {outputs} output wires")]
    OutputWires { bits: u64, outputs: usize },
}

impl HaacIo {
    /// Total bits of the circuit's input values (constants not included).
    pub fn input_bits(&self) -> u64 {
        self.input_widths.iter().map(|&w| u64::from(w)).sum()
    }
}

impl HaacCircuit {
    /// Checks the program ([`HaacProgram::validate`]) and that the values match its wires.
    pub fn validate(&self) -> Result<(), IoError> {
        self.program.validate()?;
        let io = &self.io;
        let value_bits = io.input_bits();
        if value_bits + io.constants.len() as u64 != u64::from(self.program.inputs) {
            return Err(IoError::InputWires {
                value_bits,
                constants: io.constants.len(),
                inputs: self.program.inputs,
            });
        }
        let nonzero = io.input_widths.iter().filter(|&&w| w > 0).count();
        if io.garbler_values as usize > nonzero {
            return Err(IoError::GarblerValues {
                garbler: io.garbler_values,
                nonzero,
            });
        }
        let bits: u64 = io.output_widths.iter().map(|&w| u64::from(w)).sum();
        if bits != self.program.outputs.len() as u64 {
            return Err(IoError::OutputWires {
                bits,
                outputs: self.program.outputs.len(),
            });
        }
        Ok(())
    }
}
