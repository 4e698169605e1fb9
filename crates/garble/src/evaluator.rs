use mixgc_compile::{CompiledCircuit, Gate, RunKind, MAX_AND_GROUP};
use mixgc_core::{Block, TweakableHash};

use crate::half_gates::HalfGateEvaluator;
use crate::BLOCKS_PER_AND;
use crate::{free_run, read, write};

/// Evaluator core: the half-gates evaluator (hash, global AND index), the active label of
/// every live wire and the position in the stream.
pub struct Evaluator<H> {
    gates: HalfGateEvaluator<H>,
    slots: Vec<Block>,
    const_labels: [Block; 2],
    /// Position in the stream: the next run, and the index of its first gate.
    run: usize,
    gate: usize,
}

impl<H: TweakableHash> Evaluator<H> {
    pub fn new(hash: H) -> Self {
        Evaluator {
            gates: HalfGateEvaluator::new(hash),
            slots: Vec::new(),
            const_labels: [Block::ZERO; 2],
            run: 0,
            gate: 0,
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

    /// The half-gates evaluator, for evaluating gates outside a compiled stream (programs)
    /// with the same never-restarting AND index.
    pub fn half_gates(&mut self) -> &mut HalfGateEvaluator<H> {
        &mut self.gates
    }

    /// Global index of the next AND gate (the number evaluated so far in this session).
    pub fn ands_evaluated(&self) -> u64 {
        self.gates.ands_evaluated()
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

    /// Evaluates one AND group: gathers the input labels (all read before any output is
    /// written, as outputs may reuse input slots), evaluates, scatters the outputs.
    #[inline]
    fn evaluate_group(&mut self, group: &[Gate], tables: &[Block]) {
        let n = group.len();
        let mut inputs = [(Block::ZERO, Block::ZERO); MAX_AND_GROUP];
        for (k, g) in group.iter().enumerate() {
            // SAFETY: operands < num_slots == slots.len() (asserted in `evaluate`).
            inputs[k] = unsafe { (read(&self.slots, g.a), read(&self.slots, g.b)) };
        }
        let mut outputs = [Block::ZERO; MAX_AND_GROUP];
        self.gates.evaluate(&inputs[..n], tables, &mut outputs[..n]);
        for (g, &c) in group.iter().zip(&outputs[..n]) {
            // SAFETY: as above.
            unsafe { write(&mut self.slots, g.out, c) };
        }
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
