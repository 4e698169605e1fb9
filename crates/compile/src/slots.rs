//! Liveness analysis and wire-slot allocation over a schedule.

use mixgc_circuit::{Circuit, GateKind};

use crate::free_slots::{lane, FreeSlots};
use crate::instr::{Gate, Run, RunKind, NOT_SLOT};
use crate::schedule::{Schedule, Step};

/// Most gates in a run of free gates inside a parallel block: about the work of one AND
/// group (an AND costs some 16 XORs), so blocks are cut into pieces of similar work.
const MAX_BLOCK_FREE_RUN: u32 = 256;

/// `last_use` value of a wire nobody reads.
const NEVER: u32 = u32::MAX - 1;
/// `last_use` value of an output wire: live to the end.
const FOREVER: u32 = u32::MAX;

/// The result of allocating slots: the instruction stream and where values live.
pub(crate) struct Allocation {
    pub runs: Vec<Run>,
    pub gates: Vec<Gate>,
    pub num_slots: u32,
    pub input_slots: Vec<u32>,
    pub output_slots: Vec<u32>,
}

/// Assigns each wire a slot for its lifetime, reusing slots of dead wires.
///
/// Slot 0 is [`NOT_SLOT`]. Inputs are live from the start (input bit `i` in slot `i + 1`),
/// outputs to the end; a gate's output may take the slot of an input whose last use is that
/// gate (an AND group reads all its inputs before writing any output). A parallel block
/// counts as one step, except that its outputs get slots before any slot it reads is
/// released: no output shares a slot with anything the block reads, as
/// [`RunKind::Parallel`] promises. The number of slots is the maximum number of live wires
/// under this schedule.
pub(crate) fn allocate(c: &Circuit, s: &Schedule) -> Allocation {
    assert!(
        s.steps.len() < NEVER as usize,
        "circuit too large for u32 step indices"
    );
    let canon = &s.canon;
    let mut last_use = vec![NEVER; c.num_wires as usize];
    for (i, block) in blocks(&s.steps) {
        for step in block.steps {
            for_each_read(c, canon, step, |w| last_use[w as usize] = i as u32);
        }
    }
    for &w in &c.output_wires {
        last_use[canon[w as usize] as usize] = FOREVER;
    }

    let n_in = c.total_input_bits();
    let mut a = Allocator {
        c,
        canon,
        last_use,
        slot_of: vec![u32::MAX; c.num_wires as usize],
        free: FreeSlots::new(s),
        num_slots: NOT_SLOT + 1 + n_in,
        stream: Stream::default(),
    };
    for w in (0..n_in).rev() {
        a.slot_of[w as usize] = w + 1;
        a.free.claim(w + 1, lane(w as usize, n_in as usize));
        if a.last_use[w as usize] == NEVER {
            a.free.push(w + 1);
        }
    }
    for (i, block) in blocks(&s.steps) {
        a.block(i as u32, block);
    }
    let input_slots = (1..=n_in).collect();
    let output_slots = c
        .output_wires
        .iter()
        .map(|&w| a.slot_of[canon[w as usize] as usize])
        .collect();
    Allocation {
        runs: a.stream.runs,
        gates: a.stream.gates,
        num_slots: a.num_slots,
        input_slots,
        output_slots,
    }
}

/// Steps that get their slots together: one step, or the steps of a parallel block.
struct Block<'s> {
    steps: &'s [Step],
    parallel: bool,
}

/// The schedule as blocks, each with the index of its first step (its time for liveness).
fn blocks(steps: &[Step]) -> impl Iterator<Item = (usize, Block<'_>)> {
    let mut i = 0;
    std::iter::from_fn(move || {
        let start = i;
        let block = match steps.get(i)? {
            Step::Parallel(n) => Block {
                steps: &steps[i + 1..i + 1 + *n as usize],
                parallel: true,
            },
            _ => Block {
                steps: &steps[i..i + 1],
                parallel: false,
            },
        };
        i += block.steps.len() + block.parallel as usize;
        Some((start, block))
    })
}

/// Slot allocation in progress.
struct Allocator<'c> {
    c: &'c Circuit,
    canon: &'c [u32],
    /// Time (block index) of each wire's last read, or [`NEVER`] / [`FOREVER`].
    last_use: Vec<u32>,
    slot_of: Vec<u32>,
    free: FreeSlots,
    num_slots: u32,
    stream: Stream,
}

impl Allocator<'_> {
    /// A slot for an output of `lane` (see [`FreeSlots`]).
    fn alloc(&mut self, lane: usize) -> u32 {
        let slot = self.free.take(lane).unwrap_or_else(|| {
            self.num_slots += 1;
            self.num_slots - 1
        });
        self.free.claim(slot, lane);
        slot
    }

    /// Emits the runs of one block at time `time` and moves the slots of the wires it
    /// reads and writes.
    fn block(&mut self, time: u32, block: Block) {
        let (c, canon) = (self.c, self.canon);
        let marker = self.stream.runs.len();
        if block.parallel {
            self.stream.runs.push(Run {
                kind: RunKind::Parallel,
                len: 0,
            });
        }
        let first = self.stream.gates.len();
        let mut outputs = Vec::new();
        for step in block.steps {
            let (kind, gates) = match step {
                Step::Free(g) if c.kind[*g as usize] == GateKind::Const => {
                    (RunKind::Const, std::slice::from_ref(g))
                }
                Step::Free(g) => (RunKind::Xor, std::slice::from_ref(g)),
                Step::Ands(group) => (RunKind::And, group.as_slice()),
                Step::Parallel(_) => unreachable!("parallel blocks do not nest"),
            };
            // One AND group is one run; consecutive free gates of a kind share a run (in a
            // parallel block, up to MAX_BLOCK_FREE_RUN of them, so that a block of free
            // gates has runs to split between threads too).
            let full = block.parallel && self.stream.last_run_len() >= MAX_BLOCK_FREE_RUN;
            self.stream.open_run(kind, kind == RunKind::And || full);
            for &g in gates {
                self.stream.push(gate_for(c, canon, &self.slot_of, g as usize));
                outputs.push(c.out[g as usize] as usize);
            }
        }
        // Release inputs whose last use is this block (each wire once) and give outputs
        // slots (in a parallel block in the other order), then release outputs nobody reads.
        if !block.parallel {
            self.release_reads(time, block.steps);
        }
        for (k, &w) in outputs.iter().enumerate() {
            let slot = self.alloc(lane(k, outputs.len()));
            self.slot_of[w] = slot;
            self.stream.gates[first + k].out = slot;
        }
        if block.parallel {
            self.release_reads(time, block.steps);
        }
        for &w in &outputs {
            if self.last_use[w] == NEVER {
                self.free.push(self.slot_of[w]);
            }
        }
        if block.parallel {
            // A block of one run is never split: it needs no marker.
            let runs = (self.stream.runs.len() - marker - 1) as u32;
            if runs < 2 {
                self.stream.runs.remove(marker);
            } else {
                self.stream.runs[marker].len = runs;
            }
            self.stream.seal();
        }
    }

    fn release_reads(&mut self, time: u32, steps: &[Step]) {
        for step in steps {
            for_each_read(self.c, self.canon, step, |w| {
                let w = w as usize;
                if self.last_use[w] == time && self.slot_of[w] != u32::MAX {
                    self.free.push(self.slot_of[w]);
                    self.slot_of[w] = u32::MAX;
                }
            });
        }
    }
}

/// Runs and gates under construction.
#[derive(Default)]
struct Stream {
    runs: Vec<Run>,
    gates: Vec<Gate>,
    /// The last run is closed (it ends a parallel block).
    sealed: bool,
}

impl Stream {
    /// Makes the last run one of `kind` that can take another gate: a new run if the last
    /// one is of another kind, is sealed, or `fresh` is asked for.
    fn open_run(&mut self, kind: RunKind, fresh: bool) {
        match self.runs.last() {
            Some(r) if r.kind == kind && !fresh && !self.sealed => {}
            _ => self.runs.push(Run { kind, len: 0 }),
        }
        self.sealed = false;
    }

    /// Gates in the last run (0 if there is none).
    fn last_run_len(&self) -> u32 {
        self.runs.last().map_or(0, |r| r.len)
    }

    /// Closes the last run: the next gate starts a new one.
    fn seal(&mut self) {
        self.sealed = true;
    }

    fn push(&mut self, g: Gate) {
        self.gates.push(g);
        self.runs.last_mut().expect("open_run first").len += 1;
    }
}

/// The gate `g` with its input slots filled in (the output slot is set after allocation).
fn gate_for(c: &Circuit, canon: &[u32], slot_of: &[u32], g: usize) -> Gate {
    let slot = |w: u32| slot_of[canon[w as usize] as usize];
    match c.kind[g] {
        GateKind::Xor | GateKind::And => Gate {
            a: slot(c.a[g]),
            b: slot(c.b[g]),
            out: 0,
        },
        GateKind::Not => Gate {
            a: slot(c.a[g]),
            b: NOT_SLOT,
            out: 0,
        },
        GateKind::Const => Gate {
            a: c.a[g],
            b: 0,
            out: 0,
        },
        GateKind::Copy => unreachable!("EQW gates are aliased away by the scheduler"),
    }
}

fn for_each_read(c: &Circuit, canon: &[u32], step: &Step, mut f: impl FnMut(u32)) {
    let mut gate = |g: usize| match c.kind[g] {
        GateKind::Xor | GateKind::And => {
            f(canon[c.a[g] as usize]);
            f(canon[c.b[g] as usize]);
        }
        GateKind::Not => f(canon[c.a[g] as usize]),
        GateKind::Copy | GateKind::Const => {}
    };
    match step {
        Step::Free(g) => gate(*g as usize),
        Step::Ands(group) => group.iter().for_each(|&g| gate(g as usize)),
        Step::Parallel(_) => {}
    }
}
