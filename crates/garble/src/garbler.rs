use mixgc_compile::{Chunk, Gate, RunKind, StreamHeader, MAX_AND_GROUP, NOT_SLOT};
use mixgc_core::{Block, TweakableHash};

use crate::half_gates::HalfGateGarbler;
use crate::{free_run, read, write};

/// Garbler core: the half-gates garbler (Δ, hash, global AND index), the wire slots
/// (zero-labels) of the circuit in progress and the position in the stream.
pub struct Garbler<H> {
    gates: HalfGateGarbler<H>,
    slots: Vec<Block>,
    /// Zero-labels of the constant-0 and constant-1 wires of the current circuit.
    const_labels: [Block; 2],
    /// Position in the current chunk: the next run, and the index of its first gate.
    run: usize,
    gate: usize,
}

impl<H: TweakableHash> Garbler<H> {
    /// A garbler with offset `delta`; its least significant bit must be 1.
    pub fn new(hash: H, delta: Block) -> Self {
        Garbler {
            gates: HalfGateGarbler::new(hash, delta),
            slots: Vec::new(),
            const_labels: [Block::ZERO; 2],
            run: 0,
            gate: 0,
        }
    }

    pub fn delta(&self) -> Block {
        self.gates.delta()
    }

    /// Global index of the next AND gate (the number garbled so far in this session).
    pub fn ands_garbled(&self) -> u64 {
        self.gates.ands_garbled()
    }

    /// The half-gates garbler, for garbling gates outside a compiled stream (programs)
    /// under the same Δ and the same never-restarting AND index.
    pub fn half_gates(&mut self) -> &mut HalfGateGarbler<H> {
        &mut self.gates
    }

    /// Starts garbling `circuit` with the given zero-labels of its input bits and of the
    /// constant-0 / constant-1 wires.
    pub fn start(&mut self, circuit: &StreamHeader, input_zero_labels: &[Block], const_labels: [Block; 2]) {
        assert_eq!(
            input_zero_labels.len(),
            circuit.input_slots().len(),
            "one label per input bit"
        );
        self.slots.clear();
        self.slots.resize(circuit.num_slots() as usize, Block::ZERO);
        self.slots[NOT_SLOT as usize] = self.delta(); // ¬x = x ⊕ Δ under free-XOR
        for (&s, &l) in circuit.input_slots().iter().zip(input_zero_labels) {
            self.slots[s as usize] = l;
        }
        self.const_labels = const_labels;
        (self.run, self.gate) = (0, 0);
    }

    /// Garbles `chunk` until at least `min_blocks` table blocks have been appended to
    /// `tables` or the chunk ends; stops only between AND groups. Returns true when the
    /// chunk is done (the next call starts on the next chunk of the stream).
    pub fn garble(&mut self, chunk: &Chunk, tables: &mut Vec<Block>, min_blocks: usize) -> bool {
        let target = tables.len().saturating_add(min_blocks);
        let (runs, gates) = (chunk.runs(), chunk.gates());
        // With this, the chunk's invariant bounds every slot operand by `slots.len()`.
        assert_eq!(
            self.slots.len(),
            chunk.num_slots() as usize,
            "garble() called with another circuit than start()"
        );
        while self.run < runs.len() {
            let run = runs[self.run];
            let run_gates = &gates[self.gate..self.gate + run.kind.gates_in(run.len)];
            self.run += 1;
            self.gate += run_gates.len();
            match run.kind {
                RunKind::And => {
                    self.garble_group(run_gates, tables);
                    if tables.len() >= target && self.run < runs.len() {
                        return false;
                    }
                }
                RunKind::Parallel => {}
                // SAFETY: operands < num_slots == slots.len() (asserted above).
                kind => unsafe { free_run(&mut self.slots, &self.const_labels, kind, run_gates) },
            }
        }
        (self.run, self.gate) = (0, 0);
        true
    }

    /// Garbles one AND group: gathers the input zero-labels (all read before any output
    /// is written, as outputs may reuse input slots), garbles, scatters the outputs.
    #[inline]
    fn garble_group(&mut self, group: &[Gate], tables: &mut Vec<Block>) {
        let n = group.len();
        let mut inputs = [(Block::ZERO, Block::ZERO); MAX_AND_GROUP];
        for (k, g) in group.iter().enumerate() {
            // SAFETY: operands < num_slots == slots.len() (asserted in `garble`).
            inputs[k] = unsafe { (read(&self.slots, g.a), read(&self.slots, g.b)) };
        }
        let mut outputs = [Block::ZERO; MAX_AND_GROUP];
        self.gates.garble(&inputs[..n], &mut outputs[..n], tables);
        for (g, &c) in group.iter().zip(&outputs[..n]) {
            // SAFETY: as above.
            unsafe { write(&mut self.slots, g.out, c) };
        }
    }

    /// Zero-labels of the output bits; valid once [`Garbler::garble`] finished the last chunk.
    pub fn output_zero_labels(&self, circuit: &StreamHeader) -> Vec<Block> {
        circuit
            .output_slots()
            .iter()
            .map(|&s| self.slots[s as usize])
            .collect()
    }
}
