//! Liveness analysis and wire-slot allocation over a schedule.

use mixgc_circuit::{Circuit, GateKind};

use crate::schedule::{Schedule, Step};
use crate::stream::{Gate, Run, RunKind, NOT_SLOT};

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
/// outputs to the end; a gate's
/// output may take the slot of an input whose last use is that gate (an AND group reads all
/// its inputs before writing any output). The number of slots is the maximum number of
/// live wires under this schedule.
pub(crate) fn allocate(c: &Circuit, s: &Schedule) -> Allocation {
    assert!(
        s.steps.len() < NEVER as usize,
        "circuit too large for u32 step indices"
    );
    let canon = &s.canon;
    let mut last_use = vec![NEVER; c.num_wires as usize];
    for (i, step) in s.steps.iter().enumerate() {
        for_each_read(c, canon, step, |w| last_use[w as usize] = i as u32);
    }
    for &w in &c.output_wires {
        last_use[canon[w as usize] as usize] = FOREVER;
    }

    let n_in = c.total_input_bits();
    let mut slot_of = vec![u32::MAX; c.num_wires as usize];
    let mut free: Vec<u32> = Vec::new();
    for w in (0..n_in).rev() {
        slot_of[w as usize] = w + 1;
        if last_use[w as usize] == NEVER {
            free.push(w + 1);
        }
    }
    let mut num_slots = NOT_SLOT + 1 + n_in;
    let mut alloc = |free: &mut Vec<u32>| {
        free.pop().unwrap_or_else(|| {
            num_slots += 1;
            num_slots - 1
        })
    };

    let mut stream = Stream::default();
    for (i, step) in s.steps.iter().enumerate() {
        let i = i as u32;
        let (kind, gates) = match step {
            Step::Free(g) if c.kind[*g as usize] == GateKind::Const => {
                (RunKind::Const, std::slice::from_ref(g))
            }
            Step::Free(g) => (RunKind::Xor, std::slice::from_ref(g)),
            Step::Ands(group) => (RunKind::And, group.as_slice()),
        };
        // One AND group is one run; consecutive free gates of a kind share a run.
        let first = stream.gates.len();
        stream.open_run(kind, kind == RunKind::And);
        for &g in gates {
            stream.push(gate_for(c, canon, &slot_of, g as usize));
        }
        // Release inputs whose last use is this step (each wire once), then give outputs
        // slots, then release outputs nobody reads.
        for_each_read(c, canon, step, |w| {
            let w = w as usize;
            if last_use[w] == i && slot_of[w] != u32::MAX {
                free.push(slot_of[w]);
                slot_of[w] = u32::MAX;
            }
        });
        for (k, &g) in gates.iter().enumerate() {
            let w = c.out[g as usize] as usize;
            let slot = alloc(&mut free);
            slot_of[w] = slot;
            stream.gates[first + k].out = slot;
        }
        for &g in gates {
            let w = c.out[g as usize] as usize;
            if last_use[w] == NEVER {
                free.push(slot_of[w]);
            }
        }
    }
    let input_slots = (1..=n_in).collect();
    let output_slots = c
        .output_wires
        .iter()
        .map(|&w| slot_of[canon[w as usize] as usize])
        .collect();
    Allocation {
        runs: stream.runs,
        gates: stream.gates,
        num_slots,
        input_slots,
        output_slots,
    }
}

/// Runs and gates under construction.
#[derive(Default)]
struct Stream {
    runs: Vec<Run>,
    gates: Vec<Gate>,
}

impl Stream {
    /// Makes the last run one of `kind` that can take another gate: a new run if the last
    /// one is of another kind or `fresh` is asked for.
    fn open_run(&mut self, kind: RunKind, fresh: bool) {
        match self.runs.last() {
            Some(r) if r.kind == kind && !fresh => {}
            _ => self.runs.push(Run { kind, len: 0 }),
        }
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
    }
}
