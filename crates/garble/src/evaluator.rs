use mixgc_compile::{Chunk, Gate, Run, RunKind, StreamHeader};
use mixgc_core::{Block, TweakableHash};

use crate::half_gates::{evaluate_rows, HalfGateEvaluator, Scratch};
use crate::parallel::{Plan, Threads};
use crate::runs::{and_run, execute_runs, free_run, BlockPtr};
use crate::three_halves::{self, byte_offsets, group_bytes};
use crate::{Scheme, BLOCKS_PER_AND};

/// Evaluator core: the half-gates evaluator (hash, global AND index), the active label of
/// every live wire, the position in the stream and the threads that share parallel blocks.
/// A three-halves evaluator also holds its scratch space.
pub struct Evaluator<H> {
    gates: HalfGateEvaluator<H>,
    three_halves: Option<Box<ThreeHalvesParts>>,
    slots: Vec<Block>,
    const_labels: [Block; 2],
    /// Position in the stream: the next run, and the index of its first gate.
    run: usize,
    gate: usize,
    threads: Threads,
}

/// What a three-halves evaluator adds: hashing scratch space and the table bytes before
/// each run of the parallel block at hand.
struct ThreeHalvesParts {
    scratch: three_halves::Scratch,
    offsets: Vec<usize>,
}

impl<H: TweakableHash> Evaluator<H> {
    /// A half-gates evaluator.
    pub fn new(hash: H) -> Self {
        Evaluator::starting_at(hash, 0)
    }

    /// A half-gates evaluator whose first AND gate has global index `next_and` (see
    /// [`HalfGateEvaluator::starting_at`]).
    pub fn starting_at(hash: H, next_and: u64) -> Self {
        Evaluator::with_scheme(hash, Scheme::HalfGates, next_and)
    }

    /// An evaluator of `scheme` whose first AND gate has global index `next_and`. A
    /// three-halves evaluator takes its tables in [`Evaluator::evaluate_bytes`].
    pub fn with_scheme(hash: H, scheme: Scheme, next_and: u64) -> Self {
        let three_halves = match scheme {
            Scheme::HalfGates => None,
            Scheme::ThreeHalves => Some(Box::new(ThreeHalvesParts {
                scratch: three_halves::Scratch::new(),
                offsets: Vec::new(),
            })),
        };
        Evaluator {
            gates: HalfGateEvaluator::starting_at(hash, next_and),
            three_halves,
            slots: Vec::new(),
            const_labels: [Block::ZERO; 2],
            run: 0,
            gate: 0,
            threads: Threads::new(),
        }
    }

    /// Evaluates the [`RunKind::Parallel`] blocks of the stream on `threads` threads (see
    /// [`crate::Garbler::set_threads`]). A block spread over threads is evaluated once all
    /// its tables are there. Fails if the system cannot start the threads.
    ///
    /// # Panics
    /// If `threads` is 0.
    pub fn set_threads(&mut self, threads: usize) -> std::io::Result<()> {
        self.threads.set(threads)
    }

    pub fn scheme(&self) -> Scheme {
        match self.three_halves {
            None => Scheme::HalfGates,
            Some(_) => Scheme::ThreeHalves,
        }
    }

    /// Moves the next AND index past `n` gates this evaluator will not see (a garbling stored
    /// for later), keeping its threads and settings.
    pub fn skip_ands(&mut self, n: u64) {
        self.gates.skip_ands(n);
    }

    /// Threads evaluating parallel blocks.
    pub fn threads(&self) -> usize {
        self.threads.count()
    }

    /// See [`crate::Garbler::set_split_ands`].
    pub fn set_split_ands(&mut self, ands: usize) {
        self.threads.set_split_ands(ands);
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
    /// A three-halves core evaluates a program's ANDs with [`Evaluator::evaluate_group_bytes`]
    /// and uses this for the garbler-private half gates of CRT gadgets only.
    pub fn half_gates(&mut self) -> &mut HalfGateEvaluator<H> {
        &mut self.gates
    }

    /// Evaluates up to [`MAX_AND_GROUP`](crate::MAX_AND_GROUP) independent ANDs outside a
    /// compiled stream (programs) garbled by [`crate::Garbler::garble_group_bytes`]: active
    /// labels `inputs[k] = (A, B)`, the group's [`crate::three_halves_group_bytes`] bytes
    /// `rows`, C into `outputs[k]`.
    ///
    /// # Panics
    /// On a half-gates evaluator (it evaluates such groups with [`Evaluator::half_gates`]),
    /// or if `rows` is not the group's length.
    pub fn evaluate_group_bytes(&mut self, inputs: &[(Block, Block)], rows: &[u8], outputs: &mut [Block]) {
        let parts = self
            .three_halves
            .as_deref_mut()
            .expect("a half-gates evaluator evaluates groups with half_gates()");
        let (hash, first) = (self.gates.hash(), self.gates.ands_evaluated());
        three_halves::evaluate_rows(hash, first, inputs, rows, outputs, &mut parts.scratch);
        self.gates.advance(inputs.len());
    }

    /// Global index of the next AND gate (the number evaluated so far in this session).
    pub fn ands_evaluated(&self) -> u64 {
        self.gates.ands_evaluated()
    }

    /// Evaluates `chunk` as far as the given table blocks allow. Returns how many blocks it
    /// used and whether the chunk is done (the next call starts on the next chunk). It stops
    /// at the first AND group (or parallel block spread over threads) whose tables are not
    /// all in `tables`.
    ///
    /// # Panics
    /// On a three-halves evaluator (its tables are bytes: [`Evaluator::evaluate_bytes`]).
    pub fn evaluate(&mut self, chunk: &Chunk, tables: &[Block]) -> (usize, bool) {
        assert!(
            self.three_halves.is_none(),
            "a three-halves evaluator's tables are bytes: call evaluate_bytes()"
        );
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
            let mut run_gates = &gates[self.gate..self.gate + run.kind.gates_in(run.len)];
            match run.kind {
                RunKind::Parallel => {
                    if let Some(plan) = self.threads.plan(&runs[self.run..]) {
                        let need = plan.ands * BLOCKS_PER_AND;
                        if tables.len() - used < need {
                            return (used, false);
                        }
                        let block = self.run + 1..self.run + 1 + plan.runs;
                        run_gates = &gates[self.gate..self.gate + plan.gates];
                        self.evaluate_block(&runs[block], run_gates, plan, &tables[used..used + need]);
                        used += need;
                        self.run += plan.runs;
                    }
                }
                RunKind::And => {
                    let need = run_gates.len() * BLOCKS_PER_AND;
                    if tables.len() - used < need {
                        return (used, false);
                    }
                    let (slots, g) = (BlockPtr::new(&mut self.slots), &mut self.gates);
                    let rows = &tables[used..used + need];
                    // SAFETY: operands < num_slots == slots.len() (asserted above); one thread.
                    unsafe { and_run(slots, run_gates, |ins, outs| g.evaluate(ins, rows, outs)) };
                    used += need;
                }
                kind => {
                    let slots = BlockPtr::new(&mut self.slots);
                    // SAFETY: as above.
                    unsafe { free_run(slots, &self.const_labels, kind, run_gates) };
                }
            }
            self.run += 1;
            self.gate += run_gates.len();
        }
        (self.run, self.gate) = (0, 0);
        (used, true)
    }

    /// Evaluates a parallel block on the threads, piece by piece, each with its rows.
    fn evaluate_block(&mut self, runs: &[Run], gates: &[Gate], plan: Plan, rows: &[Block]) {
        let slots = BlockPtr::new(&mut self.slots);
        let (hash, first_and) = (self.gates.hash(), self.gates.ands_evaluated());
        let consts = &self.const_labels;
        self.threads.run(|from, to| {
            let rows = &rows[from.and * BLOCKS_PER_AND..to.and * BLOCKS_PER_AND];
            let mut scratch = Scratch::new();
            let first = first_and + from.and as u64;
            // SAFETY: as in `Garbler::garble_block`: operands are in range (asserted in
            // `evaluate`) and the block's invariant keeps the threads' slots apart.
            unsafe {
                execute_runs(
                    slots,
                    consts,
                    &runs[from.run..to.run],
                    &gates[from.gate..to.gate],
                    |k, ins, outs| {
                        let rows = &rows[k * BLOCKS_PER_AND..(k + ins.len()) * BLOCKS_PER_AND];
                        evaluate_rows(hash, first + k as u64, ins, rows, outs, &mut scratch);
                    },
                )
            };
        });
        self.gates.advance(plan.ands);
    }

    /// [`Evaluator::evaluate`] for a three-halves evaluator: returns how many table bytes it
    /// used and whether the chunk is done.
    ///
    /// # Panics
    /// On a half-gates evaluator.
    pub fn evaluate_bytes(&mut self, chunk: &Chunk, tables: &[u8]) -> (usize, bool) {
        assert!(
            self.three_halves.is_some(),
            "a half-gates evaluator's tables are blocks: call evaluate()"
        );
        let (runs, gates) = (chunk.runs(), chunk.gates());
        // With this, the chunk's invariant bounds every slot operand by `slots.len()`.
        assert_eq!(
            self.slots.len(),
            chunk.num_slots() as usize,
            "evaluate_bytes() called with another circuit than start()"
        );
        let mut used = 0;
        while self.run < runs.len() {
            let run = runs[self.run];
            let mut run_gates = &gates[self.gate..self.gate + run.kind.gates_in(run.len)];
            match run.kind {
                RunKind::Parallel => {
                    if let Some(plan) = self.threads.plan(&runs[self.run..]) {
                        let block = &runs[self.run + 1..self.run + 1 + plan.runs];
                        let parts = self.three_halves.as_deref_mut().expect("checked above");
                        byte_offsets(block, &mut parts.offsets);
                        let need = parts.offsets[block.len()];
                        if tables.len() - used < need {
                            return (used, false);
                        }
                        run_gates = &gates[self.gate..self.gate + plan.gates];
                        self.evaluate_block_bytes(block, run_gates, plan, &tables[used..used + need]);
                        used += need;
                        self.run += plan.runs;
                    }
                }
                RunKind::And => {
                    let need = group_bytes(run_gates.len());
                    if tables.len() - used < need {
                        return (used, false);
                    }
                    let parts = self.three_halves.as_deref_mut().expect("checked above");
                    let (hash, first) = (self.gates.hash(), self.gates.ands_evaluated());
                    let rows = &tables[used..used + need];
                    let slots = BlockPtr::new(&mut self.slots);
                    // SAFETY: operands < num_slots == slots.len() (asserted above); one thread.
                    unsafe {
                        and_run(slots, run_gates, |ins, outs| {
                            three_halves::evaluate_rows(hash, first, ins, rows, outs, &mut parts.scratch)
                        })
                    };
                    self.gates.advance(run_gates.len());
                    used += need;
                }
                kind => {
                    let slots = BlockPtr::new(&mut self.slots);
                    // SAFETY: as above.
                    unsafe { free_run(slots, &self.const_labels, kind, run_gates) };
                }
            }
            self.run += 1;
            self.gate += run_gates.len();
        }
        (self.run, self.gate) = (0, 0);
        (used, true)
    }

    /// [`Evaluator::evaluate_block`] for three-halves (the byte offsets of the block's runs
    /// are in place).
    fn evaluate_block_bytes(&mut self, runs: &[Run], gates: &[Gate], plan: Plan, rows: &[u8]) {
        let offsets = &self
            .three_halves
            .as_deref()
            .expect("a three-halves evaluator")
            .offsets;
        let slots = BlockPtr::new(&mut self.slots);
        let (hash, first_and) = (self.gates.hash(), self.gates.ands_evaluated());
        let consts = &self.const_labels;
        self.threads.run(|from, to| {
            let rows = &rows[offsets[from.run]..offsets[to.run]];
            let mut scratch = three_halves::Scratch::new();
            let first = first_and + from.and as u64;
            let mut at = 0;
            // SAFETY: as in `evaluate_block`.
            unsafe {
                execute_runs(
                    slots,
                    consts,
                    &runs[from.run..to.run],
                    &gates[from.gate..to.gate],
                    |k, ins, outs| {
                        let group = &rows[at..at + group_bytes(ins.len())];
                        at += group.len();
                        three_halves::evaluate_rows(hash, first + k as u64, ins, group, outs, &mut scratch);
                    },
                )
            };
        });
        self.gates.advance(plan.ands);
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
