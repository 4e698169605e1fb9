//! `mixgc compile --report`: the columns of HAAC's Table 2 (HAAC §4, Table 2) for a circuit
//! under a gate schedule, plus the memory the schedule needs.
//!
//! Schedules (HAAC §4.2): program order; full reorder (all gates sorted by dependence
//! level, program order within a level); segment reorder (program order cut into segments
//! of half the window, each sorted by level). Renaming numbers outputs in execution order,
//! so a wire's position is its producer's position. A wire is *spent* when every read of it
//! falls within `window` gates after its producer (or it is never read): it never has to
//! leave a window of `window` wires (HAAC §4.2.2's spent-wire elimination).

use mixgc_circuit::{Circuit, GateKind};

use crate::reorder::{gate_levels, order, reordered_schedule, Reorder};
use crate::schedule::canonical_wires;
use crate::slots::allocate;

/// HAAC's default window: 2 MB of 16-byte labels.
pub const DEFAULT_WINDOW: usize = 131_072;

/// One row of the report.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ScheduleReport {
    pub schedule: String,
    pub window: usize,
    /// Dependence levels over all gates (XOR included).
    pub levels: u64,
    pub wires: u64,
    pub gates: u64,
    pub and_percent: f64,
    /// Gates per level.
    pub ilp: f64,
    /// Gate outputs whose every read lies within `window` gates of the producer, in %.
    pub spent_wire_percent: f64,
    /// Maximum live wires of the stream compiled in this order, and the labels' bytes.
    pub max_live_wires: u64,
    pub working_set_bytes: u64,
}

/// The report of `c` (a validated circuit) under `reorder` and `window`.
pub fn schedule_report(c: &Circuit, reorder: Reorder, window: usize) -> ScheduleReport {
    let canon = canonical_wires(c);
    let levels = gate_levels(c, &canon);
    let order = order(c, &levels, reorder, window);
    // Position of each wire's producer after renaming; inputs sit before the first gate.
    let mut produced_at = vec![0usize; c.num_wires as usize];
    let mut last_read = vec![None::<usize>; c.num_wires as usize];
    for (pos, &g) in order.iter().enumerate() {
        let g = g as usize;
        let reads: &[u32] = match c.kind[g] {
            GateKind::Xor | GateKind::And => &[c.a[g], c.b[g]],
            GateKind::Not | GateKind::Copy => std::slice::from_ref(&c.a[g]),
            GateKind::Const => &[],
        };
        for &w in reads {
            let w = canon[w as usize] as usize;
            last_read[w] = Some(last_read[w].map_or(pos, |p: usize| p.max(pos)));
        }
        produced_at[c.out[g] as usize] = pos;
    }
    let gate_outputs: Vec<usize> = (0..c.num_gates())
        .filter(|&g| c.kind[g] != GateKind::Copy)
        .map(|g| c.out[g] as usize)
        .collect();
    let spent = gate_outputs
        .iter()
        .filter(|&&w| last_read[w].is_none_or(|r| r - produced_at[w] <= window))
        .count();
    let stats = c.stats();
    let max_level = levels.iter().copied().max().unwrap_or(0) as u64;
    let live = allocate(c, &reordered_schedule(c, reorder, window)).num_slots as u64 - 1;
    let gates = c.num_gates() as u64;
    ScheduleReport {
        schedule: format!("{reorder:?}").to_lowercase(),
        window,
        levels: max_level,
        wires: c.num_wires as u64,
        gates,
        and_percent: 100.0 * stats.ands as f64 / gates.max(1) as f64,
        ilp: gates as f64 / max_level.max(1) as f64,
        spent_wire_percent: 100.0 * spent as f64 / gate_outputs.len().max(1) as f64,
        max_live_wires: live,
        working_set_bytes: live * 16,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain_and_pair() -> Circuit {
        // in: a, b. g0 = a^b (L1), g1 = a&b (L1), g2 = g0^g1 (L2), g3 = g2&a (L3). Out: g3.
        let text = "4 6\n2 1 1\n1 1\n\n2 1 0 1 2 XOR\n2 1 0 1 3 AND\n2 1 2 3 4 XOR\n2 1 4 0 5 AND\n";
        mixgc_circuit::bristol::parse(text, "tiny").unwrap()
    }

    #[test]
    fn levels_ilp_and_percent_are_hand_checked() {
        let r = schedule_report(&chain_and_pair(), Reorder::Program, 8);
        assert_eq!((r.levels, r.gates, r.wires), (3, 4, 6));
        assert_eq!(r.and_percent, 50.0);
        assert!((r.ilp - 4.0 / 3.0).abs() < 1e-9);
        assert_eq!(r.spent_wire_percent, 100.0, "a window of 8 holds every wire");
        let r = schedule_report(&chain_and_pair(), Reorder::Program, 0);
        // Window 0: only never-read outputs (g3, the output) count as spent.
        assert_eq!(r.spent_wire_percent, 25.0);
    }

    #[test]
    fn reorders_keep_circuit_figures_and_trade_locality_for_parallelism() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits/aes_128.txt");
        let c = mixgc_circuit::bristol::read_file(&path).unwrap();
        let p = schedule_report(&c, Reorder::Program, 64);
        assert_eq!((p.levels, p.gates, p.wires), (308, 36_663, 36_919));
        for reorder in [Reorder::Program, Reorder::Full, Reorder::Segment] {
            let spent: Vec<f64> = [16, 64, 4096, DEFAULT_WINDOW]
                .iter()
                .map(|&w| schedule_report(&c, reorder, w).spent_wire_percent)
                .collect();
            assert!(
                spent.windows(2).all(|s| s[0] <= s[1]),
                "{reorder:?}: spent % must grow with the window: {spent:?}"
            );
            assert_eq!(
                spent[3], 100.0,
                "a window larger than the circuit holds every wire"
            );
            let r = schedule_report(&c, reorder, 64);
            assert_eq!(
                (r.levels, r.gates, r.wires),
                (p.levels, p.gates, p.wires),
                "circuit figures do not depend on the order"
            );
        }
        // Sorting the whole circuit by level separates producers from consumers: at a small
        // window almost no wire is spent, unlike program order (HAAC §4.2's motivation for
        // segment reordering).
        let full = schedule_report(&c, Reorder::Full, 64);
        assert!(
            full.spent_wire_percent < 10.0 && p.spent_wire_percent > 50.0,
            "{full:?} vs {p:?}"
        );
    }
}
