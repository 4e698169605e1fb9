//! Which free slot a new wire gets (see [`FreeSlots`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::schedule::{Schedule, Step};

/// Lanes of a schedule of parallel blocks (see [`FreeSlots`]).
const LANES: usize = 64;

/// The lane of item `k` of `n`: its share of the way along.
pub(crate) fn lane(k: usize, n: usize) -> usize {
    k * LANES / n.max(1)
}

/// Slots of dead wires, for reuse.
///
/// Gate by gate, the last freed first: it is likely still in cache.
///
/// In a schedule of parallel blocks, each slot belongs to one of [`LANES`] lanes, and a
/// gate's output takes the lowest free slot of the lane of its place in the block (its
/// share of the way along the block), else of the nearest lane with one. The threads of an
/// engine take contiguous stretches of every block (see the garbling cores), so thread t
/// runs the same lanes level after level: in a wide circuit (independent pieces side by
/// side, each level sorted in program order) the wires it writes and reads stay in its
/// core's cache instead of moving between cores, and threads seldom write one cache line.
/// Lowest first keeps each lane's live slots packed. The number of slots is unchanged:
/// a slot is created only when no lane has a free one.
pub(crate) enum FreeSlots {
    LastFirst(Vec<u32>),
    Lanes {
        free: Vec<BinaryHeap<Reverse<u32>>>,
        lane_of: Vec<u8>,
    },
}

impl FreeSlots {
    pub(crate) fn new(s: &Schedule) -> Self {
        if s.steps.iter().any(|s| matches!(s, Step::Parallel(_))) {
            FreeSlots::Lanes {
                free: vec![BinaryHeap::new(); LANES],
                lane_of: Vec::new(),
            }
        } else {
            FreeSlots::LastFirst(Vec::new())
        }
    }

    /// Frees `slot` (into its lane).
    pub(crate) fn push(&mut self, slot: u32) {
        match self {
            FreeSlots::LastFirst(v) => v.push(slot),
            FreeSlots::Lanes { free, lane_of } => free[lane_of[slot as usize] as usize].push(Reverse(slot)),
        }
    }

    /// A free slot for an output of `lane`, if there is one.
    pub(crate) fn take(&mut self, lane: usize) -> Option<u32> {
        match self {
            FreeSlots::LastFirst(v) => v.pop(),
            FreeSlots::Lanes { free, .. } => {
                let nearest = (0..LANES)
                    .flat_map(|d| [lane.checked_sub(d), Some(lane + d)])
                    .flatten()
                    .find(|&l| l < LANES && !free[l].is_empty())?;
                free[nearest].pop().map(|Reverse(s)| s)
            }
        }
    }

    /// Records that `slot` now holds a wire of `lane`.
    pub(crate) fn claim(&mut self, slot: u32, lane: usize) {
        if let FreeSlots::Lanes { lane_of, .. } = self {
            if lane_of.len() <= slot as usize {
                lane_of.resize(slot as usize + 1, 0);
            }
            lane_of[slot as usize] = lane as u8;
        }
    }
}
