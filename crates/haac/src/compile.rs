//! The HAAC compiler (HAAC §4, Figure 5): a mixgc circuit → a [`HaacCircuit`].
//!
//! 1. **Reorder** (§4.2.1): program, segment or full order, as `mixgc compile --report`
//!    studies them ([`mixgc_compile::gate_order`]).
//! 2. **Fold** what HAAC has no instruction for: a Copy gate (Bristol `EQW`) is an alias of
//!    its input; a Const gate is one of at most two public constant input wires (value 0,
//!    value 1), numbered after the circuit's inputs. NOT gates stay `Op::Not` instructions
//!    (free: XOR with the constant-one offset).
//! 3. **Rename** (§4.2.2): inputs are wires `1..=inputs` in circuit order, then the
//!    constants; instruction `i` of the reordered list writes wire `inputs + 1 + i`.
//! 4. **Eliminate spent wires** (§4.2.3): an instruction's output is live iff some read of
//!    it is not [`in_window`] at that read, or it is an output of the program.
//! 5. **Queue streams** (§4.3): the GE of each instruction by the seed's simulator-driven
//!    assignment ([`crate::sim::assign_engines`]: the model maps instructions in program
//!    order to non-stalled GEs each cycle, and the order is replayed); each GE's table queue
//!    is its ANDs in order, its OoRW queue [`HaacProgram::oor_reads`] filtered by GE.

use mixgc_circuit::{Circuit, CircuitError, GateKind};
use mixgc_compile::{gate_order, Reorder};

use crate::io::{HaacCircuit, HaacIo, IoError};
use crate::isa::{in_window, HaacError, HaacProgram, Instruction, Op, Schedule};
use crate::sim::{try_assign_engines, Memory, SimConfig, SimError};

/// What the compiler needs besides the circuit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompileOptions {
    pub schedule: Schedule,
    /// Sliding wire window in wires (even, at least 4).
    pub window: u32,
    /// Gate engines to assign the instructions to (at least 1).
    pub ges: u16,
}

/// Why a circuit could not be compiled.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CompileError {
    #[error("invalid circuit: {0}")]
    Circuit(#[from] CircuitError),
    #[error(transparent)]
    Program(#[from] HaacError),
    #[error(transparent)]
    Io(#[from] IoError),
    #[error("assigning instructions to gate engines: {0}")]
    Assign(#[from] SimError),
}

/// No HAAC wire assigned yet (HAAC wire 0 is reserved, so it never names a real wire).
const UNASSIGNED: u32 = 0;

/// Compiles `c` with `garbler_values` leading input values (of nonzero width) owned by the
/// garbler. The result is validated.
pub fn compile(c: &Circuit, garbler_values: u32, opts: CompileOptions) -> Result<HaacCircuit, CompileError> {
    c.validate()?;
    if opts.window < 4 || !opts.window.is_multiple_of(2) {
        return Err(HaacError::Window(opts.window).into());
    }
    if opts.ges == 0 {
        return Err(HaacError::NoEngines.into());
    }
    let input_bits = c.total_input_bits();
    // HAAC wire of each circuit wire; Copy outputs share their source's, Const outputs are
    // constant wires.
    let mut haac = vec![UNASSIGNED; c.num_wires as usize];
    for (w, id) in haac.iter_mut().enumerate().take(input_bits as usize) {
        *id = w as u32 + 1;
    }
    let constants = constant_wires(c);
    for g in 0..c.num_gates() {
        if c.kind[g] == GateKind::Const {
            let k = constants.iter().position(|&v| v == (c.a[g] == 1));
            haac[c.out[g] as usize] = input_bits + 1 + k.unwrap_or(0) as u32;
        }
    }
    let inputs = input_bits
        .checked_add(constants.len() as u32)
        .ok_or(HaacError::TooManyWires)?;
    let order = gate_order(c, reorder(opts.schedule), opts.window as usize);
    let mut instructions = Vec::with_capacity(c.num_gates());
    for g in order {
        let g = g as usize;
        let op = match c.kind[g] {
            GateKind::Xor => Op::Xor,
            GateKind::And => Op::And,
            GateKind::Not => Op::Not,
            GateKind::Copy => {
                // In every order a gate comes after the gates it reads, so the source has
                // its HAAC wire already.
                haac[c.out[g] as usize] = haac[c.a[g] as usize];
                continue;
            }
            GateKind::Const => continue,
        };
        let a = haac[c.a[g] as usize];
        let b = if op == Op::Not { 0 } else { haac[c.b[g] as usize] };
        let out = u64::from(inputs) + 1 + instructions.len() as u64;
        let out = u32::try_from(out).map_err(|_| HaacError::TooManyWires)?;
        haac[c.out[g] as usize] = out;
        instructions.push(Instruction {
            op,
            a,
            b,
            live: false,
        });
    }
    let outputs: Vec<u32> = c.output_wires.iter().map(|&w| haac[w as usize]).collect();
    let engine = vec![0; instructions.len()];
    let mut program = HaacProgram {
        ges: opts.ges,
        window: opts.window,
        schedule: opts.schedule,
        inputs,
        instructions,
        engine,
        outputs,
    };
    // Validation before marking live wires: an unassigned operand (0) would be an error
    // here, never an index below.
    program.validate()?;
    mark_live(&mut program);
    // The assignment runs the model with unlimited memory, so the memory kind is moot.
    program.engine = try_assign_engines(&program, &SimConfig::seed_default(opts.ges, Memory::Hbm2))?;
    let compiled = HaacCircuit {
        program,
        io: HaacIo {
            input_widths: c.input_widths.clone(),
            garbler_values,
            constants,
            output_widths: c.output_widths.clone(),
        },
    };
    compiled.validate()?;
    Ok(compiled)
}

/// The constant values the circuit's Const gates produce, 0 before 1, each once.
fn constant_wires(c: &Circuit) -> Vec<bool> {
    let mut used = [false; 2];
    for g in 0..c.num_gates() {
        if c.kind[g] == GateKind::Const {
            used[usize::from(c.a[g] == 1)] = true;
        }
    }
    [false, true]
        .into_iter()
        .filter(|&v| used[usize::from(v)])
        .collect()
}

/// The mixgc-compile order of a HAAC schedule.
fn reorder(schedule: Schedule) -> Reorder {
    match schedule {
        Schedule::Program => Reorder::Program,
        Schedule::Segment => Reorder::Segment,
        Schedule::Full => Reorder::Full,
    }
}

/// Sets the live bits (HAAC §4.2.3): an instruction's output is live iff some read of it
/// falls outside the window at that read, or it is an output of the program. Inputs are
/// in memory from the start and have no live bit.
pub fn mark_live(p: &mut HaacProgram) {
    let first = p.inputs + 1;
    let mut live = vec![false; p.instructions.len()];
    for (i, ins) in p.instructions.iter().enumerate() {
        let out = first + i as u32;
        for w in ins.reads() {
            if w >= first && !in_window(w, out, p.window) {
                live[(w - first) as usize] = true;
            }
        }
    }
    for &w in &p.outputs {
        if w >= first {
            live[(w - first) as usize] = true;
        }
    }
    for (ins, live) in p.instructions.iter_mut().zip(live) {
        ins.live = live;
    }
}

/// Share of instructions whose output is live, in percent (HAAC Table 2's "live wires").
pub fn live_percent(p: &HaacProgram) -> f64 {
    let live = p.instructions.iter().filter(|i| i.live).count();
    100.0 * live as f64 / p.instructions.len().max(1) as f64
}
