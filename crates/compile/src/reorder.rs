//! The gate orders HAAC §4.2 studies: program order, full reorder (all gates sorted by
//! dependence level, program order within a level) and segment reorder (program order cut
//! into segments of half the window, each sorted by level).

use mixgc_circuit::{Circuit, GateKind};

use crate::schedule::{canonical_wires, Schedule};

/// A gate order HAAC §4.2 studies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reorder {
    Program,
    Full,
    Segment,
}

/// Dependence level of every gate: 1 + the deepest of its inputs (circuit inputs are 0).
pub(crate) fn gate_levels(c: &Circuit, canon: &[u32]) -> Vec<u32> {
    let mut wire_level = vec![0u32; c.num_wires as usize];
    let mut levels = vec![0u32; c.num_gates()];
    for g in 0..c.num_gates() {
        // Only the wires a gate reads: a Const gate's `a` is its value, and one-input gates
        // ignore `b`.
        let read = |w: u32| wire_level[canon[w as usize] as usize];
        let level = match c.kind[g] {
            GateKind::Xor | GateKind::And => 1 + read(c.a[g]).max(read(c.b[g])),
            GateKind::Not => 1 + read(c.a[g]),
            GateKind::Copy => read(c.a[g]),
            GateKind::Const => 1,
        };
        levels[g] = level;
        wire_level[c.out[g] as usize] = level;
    }
    levels
}

/// The gate order of `reorder` with the given window.
pub(crate) fn order(c: &Circuit, levels: &[u32], reorder: Reorder, window: usize) -> Vec<u32> {
    let mut gates: Vec<u32> = (0..c.num_gates() as u32).collect();
    match reorder {
        Reorder::Program => {}
        Reorder::Full => gates.sort_by_key(|&g| levels[g as usize]),
        Reorder::Segment => {
            for segment in gates.chunks_mut((window / 2).max(1)) {
                segment.sort_by_key(|&g| levels[g as usize]);
            }
        }
    }
    gates
}

/// The gate order HAAC §4.2 studies under `reorder` with a window of `window` wires: gate
/// indices of a validated circuit, each gate after the gates it reads (program order; full
/// reorder: all gates stably sorted by dependence level; segment reorder: program order cut
/// into segments of half the window, each stably sorted by level).
pub fn gate_order(c: &Circuit, reorder: Reorder, window: usize) -> Vec<u32> {
    let levels = gate_levels(c, &canonical_wires(c));
    order(c, &levels, reorder, window)
}

/// The schedule [`crate::compile_with`] runs under `reorder`: program order gate by gate;
/// full and segment orders level by level, in parallel blocks that several threads may
/// share (each level's gates are mutually independent).
pub(crate) fn reordered_schedule(c: &Circuit, reorder: Reorder, window: usize) -> Schedule {
    let levels = gate_levels(c, &canonical_wires(c));
    let order = order(c, &levels, reorder, window);
    match reorder {
        Reorder::Program => Schedule::in_order(c, order),
        Reorder::Full | Reorder::Segment => Schedule::in_parallel_blocks(c, &order, &levels),
    }
}
