//! A plaintext evaluator of a [`HaacCircuit`] that honours the sliding wire window (HAAC
//! §3.1.4): an in-window read comes from the SWW, an out-of-range read only from "DRAM",
//! which holds the inputs and the outputs of live instructions. A live bit that is missing
//! where a wire is read out of range, or on a program output, is an error, so this checks
//! the compiler's spent-wire elimination as well as its instructions.

use crate::io::{HaacCircuit, IoError};
use crate::isa::{in_window, Op};

/// Why a windowed evaluation failed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EvalError {
    #[error(transparent)]
    Invalid(#[from] IoError),
    #[error("{got} input values given, the program has {expected}")]
    InputCount { expected: usize, got: usize },
    #[error("input value {value} has {got} bits, the program's has {expected}")]
    InputWidth { value: usize, expected: u32, got: usize },
    #[error("instruction {index} reads wire {wire} out of range, but it was never written to memory (its live bit is clear)")]
    NotInMemory { index: usize, wire: u32 },
    #[error("instruction {index} reads wire {wire} from SWW slot {slot}, which holds another wire")]
    Evicted { index: usize, wire: u32, slot: u32 },
    #[error("output {index} is wire {wire}, which was never written to memory (its live bit is clear)")]
    OutputNotInMemory { index: usize, wire: u32 },
}

/// Evaluates `hc` on `inputs` (one value per input value, least significant bit first) and
/// returns the output values read from memory.
pub fn eval_windowed(hc: &HaacCircuit, inputs: &[Vec<bool>]) -> Result<Vec<Vec<bool>>, EvalError> {
    hc.validate()?;
    let widths = &hc.io.input_widths;
    if inputs.len() != widths.len() {
        return Err(EvalError::InputCount {
            expected: widths.len(),
            got: inputs.len(),
        });
    }
    for (value, (bits, &width)) in inputs.iter().zip(widths).enumerate() {
        if bits.len() as u64 != u64::from(width) {
            return Err(EvalError::InputWidth {
                value,
                expected: width,
                got: bits.len(),
            });
        }
    }
    let p = &hc.program;
    let window = p.window;
    // memory[w]: wire w's value once written off-chip; sww[slot]: (wire, value).
    let mut memory = vec![None::<bool>; p.inputs as usize + p.instructions.len() + 1];
    let mut sww = vec![(0u32, false); window as usize];
    let store = |memory: &mut [Option<bool>], sww: &mut [(u32, bool)], wire: u32, value: bool, live: bool| {
        if live {
            memory[wire as usize] = Some(value);
        }
        let slot = wire % window;
        if slot != 0 {
            sww[slot as usize] = (wire, value);
        }
    };
    let input_values = inputs.iter().flatten().chain(&hc.io.constants);
    for (w, &value) in input_values.enumerate() {
        store(&mut memory, &mut sww, w as u32 + 1, value, true);
    }
    for (index, ins) in p.instructions.iter().enumerate() {
        let out = p.output_wire(index);
        let mut operand = [false; 2];
        for (k, wire) in ins.reads().enumerate() {
            operand[k] = if in_window(wire, out, window) {
                let slot = wire % window;
                let (held, value) = sww[slot as usize];
                if held != wire {
                    return Err(EvalError::Evicted { index, wire, slot });
                }
                value
            } else {
                memory[wire as usize].ok_or(EvalError::NotInMemory { index, wire })?
            };
        }
        let value = match ins.op {
            Op::Xor => operand[0] ^ operand[1],
            Op::And => operand[0] & operand[1],
            Op::Not => !operand[0],
            Op::Nop => false,
        };
        store(&mut memory, &mut sww, out, value, ins.live);
    }
    let mut bits = Vec::with_capacity(p.outputs.len());
    for (index, &wire) in p.outputs.iter().enumerate() {
        bits.push(memory[wire as usize].ok_or(EvalError::OutputNotInMemory { index, wire })?);
    }
    let mut rest = bits.as_slice();
    Ok(hc
        .io
        .output_widths
        .iter()
        .map(|&w| {
            let (value, tail) = rest.split_at(w as usize);
            rest = tail;
            value.to_vec()
        })
        .collect())
}
