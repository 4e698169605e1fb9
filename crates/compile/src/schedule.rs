//! List scheduling: which gate runs when.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use mixgc_circuit::{Circuit, GateKind};

use crate::MAX_AND_RUN;

/// Most gates in one parallel block: a wider dependence level is cut into several blocks,
/// so an evaluator running a block on several threads never waits for (and buffers) more
/// than 8192 AND gates' tables (256 KiB).
pub const MAX_PARALLEL_GATES: usize = 8192;

/// How far (in gates of program order) the scheduler may look ahead for independent
/// work. Bounds how much the schedule can stretch wire lifetimes.
const WINDOW: usize = 4096;

/// One step of execution: a free gate, or a group of mutually independent AND gates
/// whose inputs are all read before any of their outputs is written, or the start of a
/// parallel block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Free(u32),
    Ands(Vec<u32>),
    /// The next `n` steps form a parallel block: their gates are mutually independent, so
    /// slot allocation keeps every output apart from every slot the block reads (see
    /// [`crate::RunKind::Parallel`]).
    Parallel(u32),
}

/// The execution order of a circuit's gates, with `Copy` (EQW) gates aliased away.
#[derive(Clone, Debug)]
pub struct Schedule {
    pub steps: Vec<Step>,
    /// `canon[w]`: the wire whose value `w` carries (differs from `w` only for EQW outputs).
    pub canon: Vec<u32>,
}

impl Schedule {
    /// Program order: every gate alone, in file order (used for `max_live_wires`).
    pub fn program_order(c: &Circuit) -> Schedule {
        Schedule::in_order(c, 0..c.num_gates() as u32)
    }

    /// Every gate alone, in the given order (which must be topological).
    pub fn in_order(c: &Circuit, order: impl IntoIterator<Item = u32>) -> Schedule {
        let canon = canonical_wires(c);
        let steps = order
            .into_iter()
            .filter(|&g| c.kind[g as usize] != GateKind::Copy)
            .map(|g| {
                if c.kind[g as usize] == GateKind::And {
                    Step::Ands(vec![g])
                } else {
                    Step::Free(g)
                }
            })
            .collect();
        Schedule { steps, canon }
    }

    /// Level by level: `order` (topological, gates of one dependence level next to each
    /// other, as full and segment reordering leave them) cut into parallel blocks where the
    /// level changes and every [`MAX_PARALLEL_GATES`] gates. Gates of one level never depend
    /// on each other (a gate's level exceeds its inputs'), wherever they sit in `order`.
    ///
    /// A block lists its constants, then its AND groups with the free gates spread evenly
    /// between them, so a split of the block at run boundaries balanced by AND count also
    /// balances the free gates.
    pub(crate) fn in_parallel_blocks(c: &Circuit, order: &[u32], levels: &[u32]) -> Schedule {
        let canon = canonical_wires(c);
        let gates: Vec<u32> = order
            .iter()
            .copied()
            .filter(|&g| c.kind[g as usize] != GateKind::Copy)
            .collect();
        let mut steps = Vec::with_capacity(gates.len() + gates.len() / 8);
        for level in gates.chunk_by(|&x, &y| levels[x as usize] == levels[y as usize]) {
            for block in level.chunks(MAX_PARALLEL_GATES) {
                push_block(c, block, &mut steps);
            }
        }
        Schedule { steps, canon }
    }

    /// Batched order: free gates as soon as their inputs are ready, AND gates in groups of
    /// up to [`MAX_AND_RUN`] ready ANDs, never looking more than a window ahead.
    /// The circuit must be valid (topologically ordered).
    pub fn batched(c: &Circuit) -> Schedule {
        let canon = canonical_wires(c);
        let steps = ListScheduler::new(c, &canon).run();
        Schedule { steps, canon }
    }
}

/// State of the batched list scheduler.
struct ListScheduler<'c> {
    c: &'c Circuit,
    /// Unfinished input wires per gate.
    pending: Vec<u8>,
    /// CSR: gates reading wire `w` are `readers[starts[w]..starts[w + 1]]`.
    starts: Vec<u32>,
    readers: Vec<u32>,
    done: Vec<bool>,
    /// Ready free gates, first-ready first: independent XOR chains interleave, which
    /// hides the latency of each gate's store from the next gate that reads it.
    ready_free: VecDeque<u32>,
    ready_and: BinaryHeap<Reverse<u32>>,
    /// Gates `< high` have been admitted to the window.
    high: usize,
}

impl<'c> ListScheduler<'c> {
    fn new(c: &'c Circuit, canon: &[u32]) -> Self {
        let n = c.num_gates();
        let wires = c.num_wires as usize;
        // A `Const` gate's `a` is its value, not a wire: only gates that read wires look
        // them up (a one-wire circuit `EQ 1` would index past the wires otherwise).
        let inputs_of = |g: usize| -> ([u32; 2], usize) {
            let wire = |w: u32| canon[w as usize];
            match c.kind[g] {
                GateKind::Xor | GateKind::And if wire(c.a[g]) != wire(c.b[g]) => {
                    ([wire(c.a[g]), wire(c.b[g])], 2)
                }
                GateKind::Xor | GateKind::And | GateKind::Not => ([wire(c.a[g]), wire(c.a[g])], 1),
                GateKind::Copy | GateKind::Const => ([0, 0], 0),
            }
        };
        let input_bits = c.total_input_bits() as usize;
        let mut pending = vec![0u8; n];
        let mut starts = vec![0u32; wires + 1];
        for (g, pending) in pending.iter_mut().enumerate() {
            let (ins, k) = inputs_of(g);
            for &w in &ins[..k] {
                starts[w as usize + 1] += 1;
                *pending += (w as usize >= input_bits) as u8;
            }
        }
        for w in 0..wires {
            starts[w + 1] += starts[w];
        }
        let mut fill = starts.clone();
        let mut readers = vec![0u32; starts[wires] as usize];
        for g in 0..n {
            let (ins, k) = inputs_of(g);
            for &w in &ins[..k] {
                readers[fill[w as usize] as usize] = g as u32;
                fill[w as usize] += 1;
            }
        }
        ListScheduler {
            c,
            pending,
            starts,
            readers,
            done: vec![false; n],
            ready_free: VecDeque::new(),
            ready_and: BinaryHeap::new(),
            high: 0,
        }
    }

    fn make_ready(&mut self, g: usize) {
        if self.c.kind[g] == GateKind::And {
            self.ready_and.push(Reverse(g as u32));
        } else {
            self.ready_free.push_back(g as u32);
        }
    }

    fn complete(&mut self, g: usize) {
        self.done[g] = true;
        let w = self.c.out[g] as usize;
        for i in self.starts[w] as usize..self.starts[w + 1] as usize {
            let r = self.readers[i] as usize;
            self.pending[r] -= 1;
            if self.pending[r] == 0 && r < self.high {
                self.make_ready(r);
            }
        }
    }

    fn run(mut self) -> Vec<Step> {
        let n = self.c.num_gates();
        let is_copy = |g: usize| self.c.kind[g] == GateKind::Copy;
        let mut low = 0;
        let mut steps = Vec::new();
        loop {
            while low < n && (self.done[low] || is_copy(low)) {
                low += 1;
            }
            if low == n {
                return steps;
            }
            while self.high < n && self.high < low + WINDOW {
                let g = self.high;
                self.high += 1;
                if !is_copy(g) && self.pending[g] == 0 {
                    self.make_ready(g);
                }
            }
            if let Some(g) = self.ready_free.pop_front() {
                steps.push(Step::Free(g));
                self.complete(g as usize);
                continue;
            }
            let mut group = Vec::with_capacity(MAX_AND_RUN);
            while group.len() < MAX_AND_RUN {
                match self.ready_and.pop() {
                    Some(Reverse(g)) => group.push(g),
                    None => break,
                }
            }
            // The lowest unfinished gate reads only finished gates, so it is always ready
            // inside the window: a valid circuit never stalls here.
            assert!(!group.is_empty(), "scheduler stalled: circuit was not validated");
            for &g in &group {
                self.complete(g as usize);
            }
            steps.push(Step::Ands(group));
        }
    }
}

/// Appends the steps of one parallel block of mutually independent gates (no copies).
fn push_block(c: &Circuit, block: &[u32], steps: &mut Vec<Step>) {
    let marker = steps.len();
    steps.push(Step::Parallel(0));
    let kind = |g: &u32| c.kind[*g as usize];
    steps.extend(
        block
            .iter()
            .filter(|g| kind(g) == GateKind::Const)
            .map(|&g| Step::Free(g)),
    );
    let ands: Vec<u32> = block
        .iter()
        .copied()
        .filter(|g| kind(g) == GateKind::And)
        .collect();
    let free: Vec<u32> = block
        .iter()
        .copied()
        .filter(|g| matches!(kind(g), GateKind::Xor | GateKind::Not))
        .collect();
    let groups = ands.len().div_ceil(MAX_AND_RUN);
    if groups == 0 {
        steps.extend(free.iter().map(|&g| Step::Free(g)));
    }
    for (i, group) in ands.chunks(MAX_AND_RUN).enumerate() {
        steps.push(Step::Ands(group.to_vec()));
        let share = free.len() * i / groups..free.len() * (i + 1) / groups;
        steps.extend(free[share].iter().map(|&g| Step::Free(g)));
    }
    steps[marker] = Step::Parallel((steps.len() - marker - 1) as u32);
}

/// Resolves EQW copies: `canon[w]` is the wire that really carries `w`'s value.
pub(crate) fn canonical_wires(c: &Circuit) -> Vec<u32> {
    let mut canon: Vec<u32> = (0..c.num_wires).collect();
    for g in 0..c.num_gates() {
        if c.kind[g] == GateKind::Copy {
            canon[c.out[g] as usize] = canon[c.a[g] as usize];
        }
    }
    canon
}
