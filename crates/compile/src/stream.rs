//! The compiled stream: what garbler, evaluator and plaintext engines execute.
//!
//! Gates are 12-byte slot triples in execution order; a short list of runs says how they
//! group: runs of free XORs, single AND groups, runs of constants. Engines branch once
//! per run instead of once per gate (a per-gate `match` mispredicts on nearly every gate
//! of a real circuit), and the gate array stays dense (AES-128's fits in L2).

use mixgc_circuit::Circuit;

use crate::schedule::Schedule;
use crate::slots::allocate;
use crate::MAX_AND_GROUP;

/// What the gates of a run compute. Operands are slot indices, except where noted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum RunKind {
    /// slot[out] = slot[a] ⊕ slot[b], gate after gate in order. NOT gates are XORs with
    /// [`NOT_SLOT`].
    Xor,
    /// slot[out] = slot[a] ∧ slot[b] for up to [`MAX_AND_GROUP`] independent gates: all
    /// inputs of the run are read before any output is written.
    And,
    /// slot[out] = the constant `a` (0 or 1; `a` is a value, not a slot; `b` unused).
    Const,
}

/// `len` consecutive gates of one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub kind: RunKind,
    pub len: u32,
}

/// One gate: input slots `a`, `b` and output slot `out`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Gate {
    pub a: u32,
    pub b: u32,
    pub out: u32,
}

/// The slot that turns XOR into NOT: it holds the label of the constant 1 under free-XOR
/// (Δ for the garbler, 0 for the evaluator, `true` in plaintext), so ¬x = x ⊕ slot[0].
pub const NOT_SLOT: u32 = 0;

/// A circuit compiled for execution: gates over a fixed set of wire slots.
///
/// Invariant (relied on by the engines' unchecked slot accesses): every slot operand,
/// input slot and output slot is `< num_slots`, `num_slots > NOT_SLOT`, the runs' lengths
/// add up to the number of gates, AND runs hold 1..=[`MAX_AND_GROUP`] gates and constant
/// gates have `a ∈ {0, 1}`. Only [`compile`] builds values of this type, and it upholds the
/// invariant by construction ([`CompiledCircuit::check`] verifies it in tests).
#[derive(Clone, Debug)]
pub struct CompiledCircuit {
    input_widths: Vec<u32>,
    output_widths: Vec<u32>,
    digest: [u8; 32],
    num_slots: u32,
    input_slots: Vec<u32>,
    output_slots: Vec<u32>,
    runs: Vec<Run>,
    gates: Vec<Gate>,
    num_ands: u64,
}

impl CompiledCircuit {
    /// Width in bits of each input value, in order.
    pub fn input_widths(&self) -> &[u32] {
        &self.input_widths
    }

    /// Width in bits of each output value, in order.
    pub fn output_widths(&self) -> &[u32] {
        &self.output_widths
    }

    /// Digest of the source circuit ([`Circuit::digest`]); parties compare it.
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    /// Working memory in labels: the maximum number of live wires in this schedule, plus
    /// [`NOT_SLOT`].
    pub fn num_slots(&self) -> u32 {
        self.num_slots
    }

    /// Slot of each input bit, values in order, least significant bit first.
    pub fn input_slots(&self) -> &[u32] {
        &self.input_slots
    }

    /// Slot holding each output bit at the end.
    pub fn output_slots(&self) -> &[u32] {
        &self.output_slots
    }

    /// The runs, in execution order; run `i` covers the next `runs[i].len` gates.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// All gates in execution order.
    pub fn gates(&self) -> &[Gate] {
        &self.gates
    }

    pub fn num_ands(&self) -> u64 {
        self.num_ands
    }

    /// Working memory of one engine's wire slots in bytes (16-byte labels).
    pub fn working_set_bytes(&self) -> u64 {
        self.num_slots as u64 * 16
    }

    /// Verifies the type invariant; returns the first violation.
    pub fn check(&self) -> Result<(), String> {
        let n = self.num_slots;
        let in_range = |s: u32, what: &str| {
            if s < n {
                Ok(())
            } else {
                Err(format!("{what} slot {s} >= {n}"))
            }
        };
        if n == NOT_SLOT {
            return Err("no NOT slot".into());
        }
        self.input_slots.iter().try_for_each(|&s| in_range(s, "input"))?;
        self.output_slots
            .iter()
            .try_for_each(|&s| in_range(s, "output"))?;
        let total: u64 = self.runs.iter().map(|r| r.len as u64).sum();
        if total != self.gates.len() as u64 {
            return Err(format!(
                "runs cover {total} gates, the stream has {}",
                self.gates.len()
            ));
        }
        let mut next = 0;
        for (i, run) in self.runs.iter().enumerate() {
            if run.kind == RunKind::And && !(1..=MAX_AND_GROUP as u32).contains(&run.len) {
                return Err(format!("AND run {i} has {} gates", run.len));
            }
            for g in &self.gates[next..next + run.len as usize] {
                in_range(g.out, "output")?;
                match run.kind {
                    RunKind::Const if g.a > 1 => return Err(format!("constant {} in run {i}", g.a)),
                    RunKind::Const => {}
                    RunKind::Xor | RunKind::And => {
                        in_range(g.a, "operand")?;
                        in_range(g.b, "operand")?;
                    }
                }
            }
            next += run.len as usize;
        }
        Ok(())
    }

    /// Runs the stream on plaintext bits; the reference the garbled engines are tested against.
    pub fn eval_plain(&self, input_bits: &[bool]) -> Vec<bool> {
        assert_eq!(input_bits.len(), self.input_slots.len(), "one bit per input wire");
        let mut slots = vec![false; self.num_slots as usize];
        slots[NOT_SLOT as usize] = true;
        for (&s, &v) in self.input_slots.iter().zip(input_bits) {
            slots[s as usize] = v;
        }
        let mut next = 0;
        for run in &self.runs {
            let gates = &self.gates[next..next + run.len as usize];
            next += gates.len();
            match run.kind {
                RunKind::Xor => {
                    for g in gates {
                        slots[g.out as usize] = slots[g.a as usize] ^ slots[g.b as usize];
                    }
                }
                RunKind::And => {
                    let vals: Vec<bool> = gates
                        .iter()
                        .map(|g| slots[g.a as usize] & slots[g.b as usize])
                        .collect();
                    for (g, v) in gates.iter().zip(vals) {
                        slots[g.out as usize] = v;
                    }
                }
                RunKind::Const => gates.iter().for_each(|g| slots[g.out as usize] = g.a == 1),
            }
        }
        self.output_slots.iter().map(|&s| slots[s as usize]).collect()
    }
}

/// Compiles a validated circuit with the batched schedule.
pub fn compile(c: &Circuit) -> CompiledCircuit {
    let schedule = Schedule::batched(c);
    let a = allocate(c, &schedule);
    CompiledCircuit {
        input_widths: c.input_widths.clone(),
        output_widths: c.output_widths.clone(),
        digest: c.digest(),
        num_slots: a.num_slots,
        input_slots: a.input_slots,
        output_slots: a.output_slots,
        num_ands: a
            .runs
            .iter()
            .filter(|r| r.kind == RunKind::And)
            .map(|r| r.len as u64)
            .sum(),
        runs: a.runs,
        gates: a.gates,
    }
}
