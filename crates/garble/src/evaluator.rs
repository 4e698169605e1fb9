use mixgc_compile::{Chunk, Gate, RunKind, StreamHeader, MAX_AND_GROUP};
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
        Evaluator::starting_at(hash, 0)
    }

    /// An evaluator whose first AND gate has global index `next_and` (see
    /// [`HalfGateEvaluator::starting_at`]).
    pub fn starting_at(hash: H, next_and: u64) -> Self {
        Evaluator {
            gates: HalfGateEvaluator::starting_at(hash, next_and),
            slots: Vec::new(),
            const_labels: [Block::ZERO; 2],
            run: 0,
            gate: 0,
        }
    }

    /// Starts evaluating `circuit` with the active labels of its input bits and of the
    /// constant-0 / constant-1 wires.
    pub fn start(&mut self, circuit: &StreamHeader, input_labels: &[Block], const_labels: [Block; 2]) {
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

    /// Evaluates `chunk` as far as the given table blocks allow. Returns how many blocks it
    /// used and whether the chunk is done (the next call starts on the next chunk). It stops
    /// at the first AND group whose tables are not all in `tables`.
    pub fn evaluate(&mut self, chunk: &Chunk, tables: &[Block]) -> (usize, bool) {
        let (runs, gates) = (chunk.runs(), chunk.gates());
        // With this, the chunk's invariant bounds every slot operand by `slots.len()`.
        assert_eq!(
            self.slots.len(),
            chunk.num_slots() as usize,
            "evaluate() called with another circuit than start()"
        );
        let mut used = 0;
        while self.run < runs.len() {
            let run = runs[self.run];
            let run_gates = &gates[self.gate..self.gate + run.kind.gates_in(run.len)];
            match run.kind {
                RunKind::And => {
                    let need = run_gates.len() * BLOCKS_PER_AND;
                    if tables.len() - used < need {
                        return (used, false);
                    }
                    self.evaluate_group(run_gates, &tables[used..used + need]);
                    used += need;
                }
                RunKind::Parallel => {}
                // SAFETY: operands < num_slots == slots.len() (asserted above).
                kind => unsafe { free_run(&mut self.slots, &self.const_labels, kind, run_gates) },
            }
            self.run += 1;
            self.gate += run_gates.len();
        }
        (self.run, self.gate) = (0, 0);
        (used, true)
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

    /// Active labels of the output bits; valid once [`Evaluator::evaluate`] finished the
    /// last chunk.
    pub fn output_labels(&self, circuit: &StreamHeader) -> Vec<Block> {
        circuit
            .output_slots()
            .iter()
            .map(|&s| self.slots[s as usize])
            .collect()
    }
}
