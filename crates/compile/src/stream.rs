//! The compiled instruction stream: what garbler, evaluator and plaintext engines execute.

use mixgc_circuit::Circuit;

use crate::schedule::Schedule;
use crate::slots::allocate;

/// An instruction opcode. Operands are slot indices, except where noted.
///
/// The stream alternates runs of free gates and groups of AND gates, each under a header
/// giving its length, so engines branch once per run instead of once per gate (a
/// per-gate `match` mispredicts on nearly every gate of a real circuit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Op {
    /// Header of a run of `a` [`Op::Xor`] instructions that follow it, executed in order.
    Xors,
    /// slot[out] = slot[a] ⊕ slot[b]; appears only inside an `Xors` run. NOT gates are
    /// XORs with [`NOT_SLOT`].
    Xor,
    /// Header of a group of `a` independent [`Op::And`] instructions that follow it.
    /// All inputs of the group are read before any output is written.
    Ands,
    /// slot[out] = slot[a] ∧ slot[b]; appears only inside an `Ands` group.
    And,
    /// slot[out] = the constant `a` (0 or 1; `a` is a value, not a slot).
    Const,
}

/// The slot that turns XOR into NOT: it holds the label of the constant 1 under free-XOR
/// (Δ for the garbler, 0 for the evaluator, `true` in plaintext), so ¬x = x ⊕ slot[0].
pub const NOT_SLOT: u32 = 0;

/// One instruction: 16 bytes, no pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Instr {
    pub op: Op,
    pub a: u32,
    pub b: u32,
    pub out: u32,
}

/// A circuit compiled for execution: instructions over a fixed set of wire slots.
///
/// Invariant (relied on by the engines' unchecked slot accesses): every slot operand,
/// input slot and output slot is `< num_slots`, `num_slots > NOT_SLOT`, every run header's
/// count fits in the stream, and gates appear only inside runs of their kind. Only
/// [`compile`] builds values of this type, and it upholds the invariant by construction
/// ([`CompiledCircuit::check`] verifies it in tests).
#[derive(Clone, Debug)]
pub struct CompiledCircuit {
    input_widths: Vec<u32>,
    output_widths: Vec<u32>,
    digest: [u8; 32],
    num_slots: u32,
    input_slots: Vec<u32>,
    output_slots: Vec<u32>,
    instrs: Vec<Instr>,
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

    /// The instruction stream.
    pub fn instrs(&self) -> &[Instr] {
        &self.instrs
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
        let mut pc = 0;
        while pc < self.instrs.len() {
            let i = self.instrs[pc];
            pc += 1;
            let entry = match i.op {
                Op::Xors => Op::Xor,
                Op::Ands => Op::And,
                Op::Const if i.a <= 1 => {
                    in_range(i.out, "const output")?;
                    continue;
                }
                _ => return Err(format!("instruction {} ({:?}) outside a run", pc - 1, i.op)),
            };
            let run = self
                .instrs
                .get(pc..pc + i.a as usize)
                .ok_or("run past the end of the stream")?;
            for g in run {
                if g.op != entry {
                    return Err(format!("{:?} inside a {:?} run", g.op, i.op));
                }
                in_range(g.a, "operand")?;
                in_range(g.b, "operand")?;
                in_range(g.out, "output")?;
            }
            pc += run.len();
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
        let mut pc = 0;
        while pc < self.instrs.len() {
            let i = self.instrs[pc];
            pc += 1;
            match i.op {
                Op::Xors => {
                    for g in &self.instrs[pc..pc + i.a as usize] {
                        slots[g.out as usize] = slots[g.a as usize] ^ slots[g.b as usize];
                    }
                    pc += i.a as usize;
                }
                Op::Ands => {
                    let group = &self.instrs[pc..pc + i.a as usize];
                    let vals: Vec<bool> = group
                        .iter()
                        .map(|g| slots[g.a as usize] & slots[g.b as usize])
                        .collect();
                    for (g, v) in group.iter().zip(vals) {
                        slots[g.out as usize] = v;
                    }
                    pc += i.a as usize;
                }
                Op::Const => slots[i.out as usize] = i.a == 1,
                Op::Xor | Op::And => unreachable!("gate outside its run"),
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
        num_ands: a.instrs.iter().filter(|i| i.op == Op::And).count() as u64,
        instrs: a.instrs,
    }
}
