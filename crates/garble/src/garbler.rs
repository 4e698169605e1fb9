use mixgc_compile::{Chunk, Gate, Run, RunKind, StreamHeader, NOT_SLOT};
use mixgc_core::{Block, TweakableHash};

use crate::half_gates::{garble_rows, HalfGateGarbler, Scratch};
use crate::parallel::{Plan, Threads};
use crate::runs::{and_run, execute_runs, free_run, BlockPtr, SharedSlice};
use crate::three_halves::{self, byte_offsets, group_bytes, ControlBits};
use crate::{Scheme, BLOCKS_PER_AND};

/// Garbler core: the half-gates garbler (Δ, hash, global AND index), the wire slots
/// (zero-labels) of the circuit in progress, the position in the stream and the threads
/// that share parallel blocks. A three-halves garbler also holds its control-bit PRG.
pub struct Garbler<H> {
    gates: HalfGateGarbler<H>,
    three_halves: Option<Box<ThreeHalvesParts>>,
    slots: Vec<Block>,
    /// Zero-labels of the constant-0 and constant-1 wires of the current circuit.
    const_labels: [Block; 2],
    /// Position in the current chunk: the next run, and the index of its first gate.
    run: usize,
    gate: usize,
    threads: Threads,
}

/// What a three-halves garbler adds: the control bits' PRG, hashing scratch space, and the
/// table bytes before each run of the parallel block at hand.
struct ThreeHalvesParts {
    control: ControlBits,
    scratch: three_halves::Scratch,
    offsets: Vec<usize>,
}

/// The zero-labels of the wires (every slot up to the vector's capacity, Δ among them in
/// [`NOT_SLOT`]) and of the constants do not outlive the garbler; Δ itself and the control
/// key are wiped by the gate garblers' own destructors. Once per garbler, nothing per gate.
impl<H> Drop for Garbler<H> {
    fn drop(&mut self) {
        self.wipe_labels();
    }
}

impl<H> Garbler<H> {
    /// Overwrites the wire slots (their whole capacity, then empties them) and the
    /// constants' labels with zeros.
    fn wipe_labels(&mut self) {
        use zeroize::Zeroize;
        self.slots.zeroize();
        self.const_labels.zeroize();
    }
}

impl<H: TweakableHash> Garbler<H> {
    /// A half-gates garbler with offset `delta`; its least significant bit must be 1.
    pub fn new(hash: H, delta: Block) -> Self {
        Garbler {
            gates: HalfGateGarbler::new(hash, delta),
            three_halves: None,
            slots: Vec::new(),
            const_labels: [Block::ZERO; 2],
            run: 0,
            gate: 0,
            threads: Threads::new(),
        }
    }

    /// A three-halves garbler ([`Scheme::ThreeHalves`]) with offset `delta` (lsb(Δ) = 1 and a
    /// nonzero high half) whose control bits come from `control_key`: secret, uniformly
    /// random and never given to another garbler. Tables come from
    /// [`Garbler::garble_bytes`].
    pub fn three_halves(hash: H, delta: Block, control_key: Block) -> Self {
        three_halves::check_delta(delta);
        let mut garbler = Garbler::new(hash, delta);
        garbler.three_halves = Some(Box::new(ThreeHalvesParts {
            control: ControlBits::new(control_key),
            scratch: three_halves::Scratch::new(),
            offsets: Vec::new(),
        }));
        garbler
    }

    pub fn scheme(&self) -> Scheme {
        match self.three_halves {
            None => Scheme::HalfGates,
            Some(_) => Scheme::ThreeHalves,
        }
    }

    pub fn delta(&self) -> Block {
        self.gates.delta()
    }

    /// Global index of the next AND gate (the number garbled so far in this session).
    pub fn ands_garbled(&self) -> u64 {
        self.gates.ands_garbled()
    }

    /// Garbles the [`RunKind::Parallel`] blocks of the stream on `threads` threads (the
    /// caller's and `threads - 1` workers kept until the garbler is dropped or this is
    /// called again). The tables and labels do not depend on the thread count. Fails if
    /// the system cannot start the threads.
    ///
    /// # Panics
    /// If `threads` is 0.
    pub fn set_threads(&mut self, threads: usize) -> std::io::Result<()> {
        self.threads.set(threads)
    }

    /// Threads garbling parallel blocks (1 unless [`Garbler::set_threads`] said otherwise).
    pub fn threads(&self) -> usize {
        self.threads.count()
    }

    /// Blocks with less work than `ands` AND gates run on the calling thread
    /// (default [`crate::DEFAULT_SPLIT_ANDS`]; 0 splits every block, as tests do).
    pub fn set_split_ands(&mut self, ands: usize) {
        self.threads.set_split_ands(ands);
    }

    /// The half-gates garbler, for garbling gates outside a compiled stream (programs)
    /// under the same Δ and the same never-restarting AND index.
    /// A three-halves core garbles a program's ANDs with [`Garbler::garble_group_bytes`]
    /// and uses this for the garbler-private half gates of CRT gadgets only.
    pub fn half_gates(&mut self) -> &mut HalfGateGarbler<H> {
        &mut self.gates
    }

    /// Garbles up to [`MAX_AND_GROUP`](crate::MAX_AND_GROUP) independent ANDs outside a
    /// compiled stream (programs) with three-halves (Rosulek–Roy 2021, §5), under the core's
    /// Δ, control bits and never-restarting AND index: zero-labels `inputs[k] = (A⁰, B⁰)`,
    /// C⁰ into `outputs[k]`, the group's [`crate::three_halves_group_bytes`] bytes appended
    /// to `tables`.
    ///
    /// # Panics
    /// On a half-gates garbler (it garbles such groups with [`Garbler::half_gates`]).
    pub fn garble_group_bytes(
        &mut self,
        inputs: &[(Block, Block)],
        outputs: &mut [Block],
        tables: &mut Vec<u8>,
    ) {
        let parts = self
            .three_halves
            .as_deref_mut()
            .expect("a half-gates garbler garbles groups with half_gates()");
        let (hash, delta, first) = (self.gates.hash(), self.gates.delta(), self.gates.ands_garbled());
        let start = tables.len();
        tables.resize(start + group_bytes(inputs.len()), 0);
        let rows = &mut tables[start..];
        three_halves::garble_rows(
            hash,
            delta,
            &parts.control,
            first,
            inputs,
            outputs,
            rows,
            &mut parts.scratch,
        );
        self.gates.advance(inputs.len());
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
    /// `tables` or the chunk ends; stops only between AND groups (and never inside a
    /// parallel block spread over threads). Returns true when the chunk is done (the next
    /// call starts on the next chunk of the stream).
    ///
    /// # Panics
    /// On a three-halves garbler (its tables are bytes: [`Garbler::garble_bytes`]).
    pub fn garble(&mut self, chunk: &Chunk, tables: &mut Vec<Block>, min_blocks: usize) -> bool {
        assert!(
            self.three_halves.is_none(),
            "a three-halves garbler's tables are bytes: call garble_bytes()"
        );
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
            let mut run_gates = &gates[self.gate..self.gate + run.kind.gates_in(run.len)];
            let garbled = match run.kind {
                RunKind::Parallel => match self.threads.plan(&runs[self.run..]) {
                    Some(plan) => {
                        let block = self.run + 1..self.run + 1 + plan.runs;
                        run_gates = &gates[self.gate..self.gate + plan.gates];
                        self.garble_block(&runs[block], run_gates, plan, tables);
                        self.run += plan.runs;
                        true
                    }
                    None => false,
                },
                RunKind::And => {
                    let slots = BlockPtr::new(&mut self.slots);
                    let g = &mut self.gates;
                    // SAFETY: operands < num_slots == slots.len() (asserted above); one thread.
                    unsafe { and_run(slots, run_gates, |ins, outs| g.garble(ins, outs, tables)) };
                    true
                }
                kind => {
                    let slots = BlockPtr::new(&mut self.slots);
                    // SAFETY: as above.
                    unsafe { free_run(slots, &self.const_labels, kind, run_gates) };
                    false
                }
            };
            self.run += 1;
            self.gate += run_gates.len();
            if garbled && tables.len() >= target && self.run < runs.len() {
                return false;
            }
        }
        (self.run, self.gate) = (0, 0);
        true
    }

    /// Garbles a parallel block on the threads: piece by piece, each piece's rows go where one
    /// thread would have appended them.
    fn garble_block(&mut self, runs: &[Run], gates: &[Gate], plan: Plan, tables: &mut Vec<Block>) {
        let len = plan.ands * BLOCKS_PER_AND;
        tables.reserve(len);
        let rows = SharedSlice::new(&mut tables.spare_capacity_mut()[..len]);
        let slots = BlockPtr::new(&mut self.slots);
        let (hash, delta, first_and) = (self.gates.hash(), self.gates.delta(), self.gates.ands_garbled());
        let consts = &self.const_labels;
        self.threads.run(|from, to| {
            // SAFETY: the cuts are increasing and each piece runs once, so its rows are its own.
            let rows = unsafe { rows.slice_mut(from.and * BLOCKS_PER_AND..to.and * BLOCKS_PER_AND) };
            let mut scratch = Scratch::new();
            let first = first_and + from.and as u64;
            // SAFETY: operands < num_slots == slots.len() (asserted in `garble`). The block's
            // gates are independent and none writes a slot another reads or writes (the
            // invariant of a parallel block, part of the chunk's), so the threads' slot
            // accesses never conflict.
            unsafe {
                execute_runs(
                    slots,
                    consts,
                    &runs[from.run..to.run],
                    &gates[from.gate..to.gate],
                    |k, ins, outs| {
                        let rows = &mut rows[k * BLOCKS_PER_AND..(k + ins.len()) * BLOCKS_PER_AND];
                        garble_rows(hash, delta, first + k as u64, ins, outs, rows, &mut scratch);
                    },
                )
            };
        });
        // SAFETY: the pieces cover the block's ANDs and each wrote all rows of its ANDs (a
        // panic would not have come this far), within the capacity reserved above.
        unsafe { tables.set_len(tables.len() + len) };
        self.gates.advance(plan.ands);
    }

    /// [`Garbler::garble`] for a three-halves garbler: appends table bytes (each AND group's
    /// [`crate::three_halves_group_bytes`]) until at least `min_bytes` were appended or the
    /// chunk ends.
    ///
    /// # Panics
    /// On a half-gates garbler.
    pub fn garble_bytes(&mut self, chunk: &Chunk, tables: &mut Vec<u8>, min_bytes: usize) -> bool {
        assert!(
            self.three_halves.is_some(),
            "a half-gates garbler's tables are blocks: call garble()"
        );
        let target = tables.len().saturating_add(min_bytes);
        let (runs, gates) = (chunk.runs(), chunk.gates());
        // With this, the chunk's invariant bounds every slot operand by `slots.len()`.
        assert_eq!(
            self.slots.len(),
            chunk.num_slots() as usize,
            "garble_bytes() called with another circuit than start()"
        );
        while self.run < runs.len() {
            let run = runs[self.run];
            let mut run_gates = &gates[self.gate..self.gate + run.kind.gates_in(run.len)];
            let garbled = match run.kind {
                RunKind::Parallel => match self.threads.plan(&runs[self.run..]) {
                    Some(plan) => {
                        let block = self.run + 1..self.run + 1 + plan.runs;
                        run_gates = &gates[self.gate..self.gate + plan.gates];
                        self.garble_block_bytes(&runs[block], run_gates, plan, tables);
                        self.run += plan.runs;
                        true
                    }
                    None => false,
                },
                RunKind::And => {
                    let parts = self.three_halves.as_deref_mut().expect("checked above");
                    let (hash, delta, first) =
                        (self.gates.hash(), self.gates.delta(), self.gates.ands_garbled());
                    let start = tables.len();
                    tables.resize(start + group_bytes(run_gates.len()), 0);
                    let rows = &mut tables[start..];
                    let slots = BlockPtr::new(&mut self.slots);
                    // SAFETY: operands < num_slots == slots.len() (asserted above); one thread.
                    unsafe {
                        and_run(slots, run_gates, |ins, outs| {
                            three_halves::garble_rows(
                                hash,
                                delta,
                                &parts.control,
                                first,
                                ins,
                                outs,
                                rows,
                                &mut parts.scratch,
                            )
                        })
                    };
                    self.gates.advance(run_gates.len());
                    true
                }
                kind => {
                    let slots = BlockPtr::new(&mut self.slots);
                    // SAFETY: as above.
                    unsafe { free_run(slots, &self.const_labels, kind, run_gates) };
                    false
                }
            };
            self.run += 1;
            self.gate += run_gates.len();
            if garbled && tables.len() >= target && self.run < runs.len() {
                return false;
            }
        }
        (self.run, self.gate) = (0, 0);
        true
    }

    /// [`Garbler::garble_block`] for three-halves: each piece's bytes go where one thread
    /// would have appended them.
    fn garble_block_bytes(&mut self, runs: &[Run], gates: &[Gate], plan: Plan, tables: &mut Vec<u8>) {
        let parts = self.three_halves.as_deref_mut().expect("a three-halves garbler");
        byte_offsets(runs, &mut parts.offsets);
        let (offsets, control) = (&parts.offsets, &parts.control);
        let start = tables.len();
        tables.resize(start + offsets[runs.len()], 0);
        let rows = SharedSlice::new(&mut tables[start..]);
        let slots = BlockPtr::new(&mut self.slots);
        let (hash, delta, first_and) = (self.gates.hash(), self.gates.delta(), self.gates.ands_garbled());
        let consts = &self.const_labels;
        self.threads.run(|from, to| {
            // SAFETY: the cuts are increasing and each piece runs once, so its bytes are its own.
            let rows = unsafe { rows.slice_mut(offsets[from.run]..offsets[to.run]) };
            let mut scratch = three_halves::Scratch::new();
            let first = first_and + from.and as u64;
            let mut at = 0;
            // SAFETY: as in `garble_block`.
            unsafe {
                execute_runs(
                    slots,
                    consts,
                    &runs[from.run..to.run],
                    &gates[from.gate..to.gate],
                    |k, ins, outs| {
                        let rows = &mut rows[at..at + group_bytes(ins.len())];
                        at += rows.len();
                        let first = first + k as u64;
                        three_halves::garble_rows(hash, delta, control, first, ins, outs, rows, &mut scratch);
                    },
                )
            };
        });
        self.gates.advance(plan.ands);
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

#[cfg(test)]
mod tests {
    use mixgc_core::{new_rng, Tccr};

    use super::*;

    /// What the destructor runs leaves no label behind: the slots, up to their capacity
    /// (labels of an earlier, larger circuit included), and the constants.
    #[test]
    fn wiping_zeroes_every_slot_and_constant() {
        let mut rng = new_rng(None, 0);
        let delta = Block::random(&mut rng).with_lsb_set();
        let mut g = Garbler::new(Tccr::default(), delta);
        g.slots = (0..1000).map(|_| Block::random(&mut rng)).collect();
        g.slots.truncate(10); // the rest stays in the spare capacity
        g.const_labels = [Block::random(&mut rng), Block::random(&mut rng)];
        let capacity = g.slots.capacity();
        g.wipe_labels();
        assert!(g.slots.is_empty());
        assert_eq!(g.slots.capacity(), capacity);
        // SAFETY: `zeroize` wrote a zero block to every element of the capacity, so each is
        // initialised.
        let spare = g.slots.spare_capacity_mut();
        assert!(spare.iter().all(|b| unsafe { b.assume_init() } == Block::ZERO));
        assert_eq!(g.const_labels, [Block::ZERO; 2]);
        assert_eq!(
            g.delta(),
            delta,
            "Δ is the gate garbler's to wipe, when it is dropped"
        );
    }
}
