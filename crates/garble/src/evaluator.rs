use mixgc_compile::{CompiledCircuit, Gate, RunKind};
use mixgc_core::{Block, TweakableHash};

use crate::tweak::half_gate_tweaks;
use crate::BLOCKS_PER_AND;
use crate::{free_run, read, write};

use mixgc_compile::MAX_AND_GROUP;

/// Most ANDs per group, times the 2 hashes each AND needs when evaluating.
const MAX_HASHES: usize = MAX_AND_GROUP * 2;

/// Evaluator core: the active label of every live wire, the global AND counter and the
/// position in the instruction stream.
pub struct Evaluator<H> {
    hash: H,
    slots: Vec<Block>,
    const_labels: [Block; 2],
    next_and: u64,
    /// Position in the stream: the next run, and the index of its first gate.
    run: usize,
    gate: usize,
    /// Hash inputs and tweaks of one AND group (kept here so nothing is zeroed per group).
    hashes: [Block; MAX_HASHES],
    tweaks: [Block; MAX_HASHES],
}

impl<H: TweakableHash> Evaluator<H> {
    pub fn new(hash: H) -> Self {
        Evaluator {
            hash,
            slots: Vec::new(),
            const_labels: [Block::ZERO; 2],
            next_and: 0,
            run: 0,
            gate: 0,
            hashes: [Block::ZERO; MAX_HASHES],
            tweaks: [Block::ZERO; MAX_HASHES],
        }
    }

    /// Starts evaluating `circuit` with the active labels of its input bits and of the
    /// constant-0 / constant-1 wires.
    pub fn start(&mut self, circuit: &CompiledCircuit, input_labels: &[Block], const_labels: [Block; 2]) {
        assert_eq!(
            input_labels.len(),
            circuit.input_slots().len(),
            "one label per input bit"
        );
        self.slots.clear();
        self.slots.resize(circuit.num_slots() as usize, Block::ZERO);
        // NOT_SLOT stays zero: the evaluator's ¬x is x's label itself.
        for (&s, &l) in circuit.input_slots().iter().zip(input_labels) {
            self.slots[s as usize] = l;
        }
        self.const_labels = const_labels;
        (self.run, self.gate) = (0, 0);
    }

    /// Global index of the next AND gate (the number evaluated so far in this session).
    pub fn ands_evaluated(&self) -> u64 {
        self.next_and
    }

    /// True once every instruction has run.
    pub fn is_done(&self, circuit: &CompiledCircuit) -> bool {
        self.run == circuit.runs().len()
    }

    /// Evaluates as far as the given table blocks allow; returns how many blocks it used.
    /// It stops at the first AND group whose tables are not (all) in `tables`, so frames
    /// must hold whole groups — the garbler cuts them that way.
    pub fn evaluate(&mut self, circuit: &CompiledCircuit, tables: &[Block]) -> usize {
        let (runs, gates) = (circuit.runs(), circuit.gates());
        // With this, the circuit's invariant bounds every slot operand by `slots.len()`.
        assert_eq!(
            self.slots.len(),
            circuit.num_slots() as usize,
            "evaluate() called with another circuit than start()"
        );
        let mut used = 0;
        while self.run < runs.len() {
            let run = runs[self.run];
            let run_gates = &gates[self.gate..self.gate + run.len as usize];
            if run.kind == RunKind::And {
                let need = run_gates.len() * BLOCKS_PER_AND;
                if tables.len() - used < need {
                    return used;
                }
                self.evaluate_group(run_gates, &tables[used..used + need]);
                used += need;
            } else {
                // SAFETY: operands < num_slots == slots.len() (asserted above).
                unsafe { free_run(&mut self.slots, &self.const_labels, run.kind, run_gates) };
            }
            self.run += 1;
            self.gate += run_gates.len();
        }
        used
    }

    /// Half-gates evaluation (ZRE15 Fig. 2): C = H(A,j) ⊕ s_a·T_G ⊕ H(B,j') ⊕ s_b·(T_E ⊕ A),
    /// s_a = lsb(A), s_b = lsb(B).
    #[inline]
    fn evaluate_group(&mut self, group: &[Gate], tables: &[Block]) {
        let n = group.len();
        let Evaluator {
            hash,
            slots,
            hashes,
            tweaks,
            next_and,
            ..
        } = self;
        let (h, t) = (&mut hashes[..2 * n], &mut tweaks[..2 * n]);
        // Inputs are read before any output is written (outputs may reuse input slots).
        let mut ab = [(Block::ZERO, Block::ZERO); MAX_AND_GROUP];
        for (k, g) in group.iter().enumerate() {
            // SAFETY: operands < num_slots == slots.len() (asserted in `evaluate`).
            let (a, b) = unsafe { (read(slots, g.a), read(slots, g.b)) };
            let (j, j1) = half_gate_tweaks(*next_and + k as u64);
            ab[k] = (a, b);
            h[2 * k..2 * k + 2].copy_from_slice(&[a, b]);
            t[2 * k..2 * k + 2].copy_from_slice(&[j, j1]);
        }
        hash.hash_many(h, t);
        for (k, g) in group.iter().enumerate() {
            let (a, b) = ab[k];
            let (tg, te) = (tables[2 * k], tables[2 * k + 1]);
            let c = h[2 * k] ^ tg.and_bit(a.lsb()) ^ h[2 * k + 1] ^ (te ^ a).and_bit(b.lsb());
            // SAFETY: as above.
            unsafe { write(slots, g.out, c) };
        }
        *next_and += n as u64;
    }

    /// Active labels of the output bits; valid once [`Evaluator::is_done`].
    pub fn output_labels(&self, circuit: &CompiledCircuit) -> Vec<Block> {
        circuit
            .output_slots()
            .iter()
            .map(|&s| self.slots[s as usize])
            .collect()
    }
}
