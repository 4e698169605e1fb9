//! Off-chip memory and the GE-local queues it feeds (HAAC §3.1.2–3.1.4, Figure 3): one DRAM
//! channel of a fixed bandwidth streams instructions, tables and out-of-range wires ahead
//! into bounded queues and drains live wires (and the Garbler's tables) back out.
//!
//! Bandwidth is a byte budget per GE cycle shared by all streams; items move as a fluid
//! (an item arrives once all its bytes have moved, plus the DRAM latency). Streams are
//! served oldest-first per GE, the GE order rotating each cycle: writes, OoR wires, tables,
//! instructions. Unused budget is not banked beyond the cycle it was offered in.

use std::collections::VecDeque;

/// A prefetched stream into one bounded on-chip queue, consumed in order.
pub(super) struct ReadStream {
    next: usize,
    total: usize,
    partial: f64,
    /// Arrival cycles of the requested, not yet consumed items (queue occupancy).
    arrivals: VecDeque<u64>,
    capacity: usize,
    item_bytes: f64,
}

impl ReadStream {
    pub(super) fn new(total: usize, capacity: usize, item_bytes: f64) -> Self {
        ReadStream {
            next: 0,
            total,
            partial: 0.0,
            arrivals: VecDeque::with_capacity(capacity.min(total)),
            capacity: capacity.max(1),
            item_bytes,
        }
    }

    /// Whether the first `n` queued items have arrived by `now`.
    pub(super) fn ready(&self, now: u64, n: usize) -> bool {
        n == 0 || (self.arrivals.len() >= n && self.arrivals[n - 1] <= now)
    }

    /// Arrival cycle of the `n`-th queued item (1-based), if it has been requested.
    pub(super) fn arrival(&self, n: usize) -> Option<u64> {
        n.checked_sub(1).and_then(|k| self.arrivals.get(k).copied())
    }

    pub(super) fn pop(&mut self, n: usize) {
        self.arrivals.drain(..n);
    }

    fn has_room(&self) -> bool {
        self.next < self.total && self.arrivals.len() < self.capacity
    }

    /// Moves bytes of the next item out of `credit`; returns whether the item completed.
    fn transfer(&mut self, credit: &mut f64, arrival: u64) -> bool {
        let take = credit.min(self.item_bytes - self.partial);
        *credit -= take;
        self.partial += take;
        if self.partial >= self.item_bytes - 1e-9 {
            self.partial = 0.0;
            self.next += 1;
            self.arrivals.push_back(arrival);
            true
        } else {
            false
        }
    }
}

/// A bounded on-chip buffer of labels or tables waiting to be written to DRAM, in order.
pub(super) struct WriteStream {
    /// (cycle the data is computed, wire) of each buffered item.
    pending: VecDeque<(u64, u32)>,
    partial: f64,
    capacity: usize,
    item_bytes: f64,
}

impl WriteStream {
    pub(super) fn new(capacity: usize, item_bytes: f64) -> Self {
        WriteStream {
            pending: VecDeque::new(),
            partial: 0.0,
            capacity: capacity.max(1),
            item_bytes,
        }
    }

    pub(super) fn has_space(&self) -> bool {
        self.pending.len() < self.capacity
    }

    pub(super) fn push(&mut self, ready_at: u64, wire: u32) {
        self.pending.push_back((ready_at, wire));
    }

    fn wants(&self, now: u64) -> bool {
        self.pending.front().is_some_and(|&(at, _)| at <= now)
    }

    /// When the head item becomes writable, if it is not yet.
    fn ready_after(&self, now: u64) -> Option<u64> {
        self.pending.front().map(|&(at, _)| at).filter(|&at| at > now)
    }

    /// Moves bytes of the head item; returns its wire once completely written.
    fn transfer(&mut self, credit: &mut f64) -> Option<u32> {
        let take = credit.min(self.item_bytes - self.partial);
        *credit -= take;
        self.partial += take;
        if self.partial >= self.item_bytes - 1e-9 {
            self.partial = 0.0;
            self.pending.pop_front().map(|(_, w)| w)
        } else {
            None
        }
    }
}

/// The queues of one GE.
pub(super) struct GeQueues {
    pub(super) instructions: ReadStream,
    /// Evaluator: tables streamed in. Empty for the Garbler.
    pub(super) tables: ReadStream,
    pub(super) oorw: ReadStream,
    /// The wires of `oorw`, in queue order (each may be fetched once valid in DRAM).
    pub(super) oorw_wires: Vec<u32>,
    pub(super) live: WriteStream,
    /// Garbler: tables streamed out. Unused by the Evaluator.
    pub(super) tables_out: WriteStream,
}

/// Bytes moved, by kind.
#[derive(Default, Clone, Copy)]
pub(super) struct Moved {
    pub(super) tables: f64,
    pub(super) instructions: f64,
    pub(super) live_writebacks: f64,
    pub(super) outputs: f64,
    pub(super) oorw_labels: f64,
    pub(super) oorw_addresses: f64,
    pub(super) inputs: f64,
}

/// Per-wire state the memory side reads and updates.
pub(super) struct WireFlags {
    /// Bit per wire: its label is valid in DRAM.
    pub(super) in_dram: Vec<u64>,
    /// Bit per wire: it is a program output.
    pub(super) output: Vec<u64>,
}

impl WireFlags {
    pub(super) fn new(wires: usize) -> Self {
        let words = wires / 64 + 1;
        WireFlags {
            in_dram: vec![0; words],
            output: vec![0; words],
        }
    }
    pub(super) fn get(bits: &[u64], w: u32) -> bool {
        bits[(w / 64) as usize] >> (w % 64) & 1 == 1
    }
    pub(super) fn set(bits: &mut [u64], w: u32) {
        bits[(w / 64) as usize] |= 1 << (w % 64);
    }
}

pub(super) struct Dram {
    bytes_per_cycle: f64,
    latency: u64,
    credit: f64,
    /// Input labels loaded into the SWW at the start (HAAC §3.3), highest priority.
    pub(super) preload: ReadStream,
    pub(super) preload_wires: Vec<u32>,
    pub(super) ges: Vec<GeQueues>,
    pub(super) moved: Moved,
    label_bytes: f64,
    address_bytes: f64,
    table_bytes: f64,
    /// Per GE, the earliest cycle a transfer completed this cycle lets it move (an arrival,
    /// or buffer space freed): wakes a sleeping engine.
    pub(super) kicks: Vec<u64>,
}

/// What a DRAM cycle did.
pub(super) struct StepResult {
    pub(super) moved_bytes: bool,
}

impl Dram {
    pub(super) fn new(
        bytes_per_cycle: f64,
        latency: u64,
        preload_wires: Vec<u32>,
        ges: Vec<GeQueues>,
    ) -> Self {
        use crate::isa::{LABEL_BYTES, OORW_ADDRESS_BYTES, TABLE_BYTES};
        Dram {
            bytes_per_cycle,
            latency,
            credit: 0.0,
            preload: ReadStream::new(
                preload_wires.len(),
                preload_wires.len().max(1),
                LABEL_BYTES as f64,
            ),
            preload_wires,
            kicks: vec![u64::MAX; ges.len()],
            ges,
            moved: Moved::default(),
            label_bytes: LABEL_BYTES as f64,
            address_bytes: OORW_ADDRESS_BYTES as f64,
            table_bytes: TABLE_BYTES as f64,
        }
    }

    /// Writes still buffered on chip.
    pub(super) fn writes_pending(&self) -> bool {
        self.ges
            .iter()
            .any(|q| !q.live.pending.is_empty() || !q.tables_out.pending.is_empty())
    }

    /// The first cycle after `now` at which a buffered write becomes writable (the only
    /// DRAM event that needs no engine to act first), if any.
    pub(super) fn next_write(&self, now: u64) -> Option<u64> {
        self.ges
            .iter()
            .flat_map(|q| [q.live.ready_after(now), q.tables_out.ready_after(now)])
            .flatten()
            .min()
    }

    /// One GE cycle of transfers. `loaded` receives (wire, arrival) of preloaded inputs.
    pub(super) fn step(
        &mut self,
        now: u64,
        flags: &mut WireFlags,
        loaded: &mut Vec<(u32, u64)>,
    ) -> StepResult {
        self.credit += self.bytes_per_cycle;
        let start_credit = self.credit;
        let arrival = now + self.latency;
        let mut starved = false;
        while self.preload.has_room() {
            if self.credit <= 0.0 {
                starved = true;
                break;
            }
            let w = self.preload_wires[self.preload.next];
            if self.preload.transfer(&mut self.credit, arrival) {
                self.moved.inputs += self.label_bytes;
                loaded.push((w, arrival));
            }
        }
        let n = self.ges.len();
        let first = (now % n as u64) as usize;
        for k in 0..n {
            if self.credit <= 0.0 {
                starved = true;
                break;
            }
            let g = (first + k) % n;
            let q = &mut self.ges[g];
            let before = self.credit;
            starved |= Self::serve_ge(
                q,
                now,
                arrival,
                &mut self.credit,
                flags,
                &mut self.moved,
                (self.label_bytes, self.address_bytes, self.table_bytes),
            );
            if self.credit < before {
                // Something moved for this GE: an item may have arrived or space been freed.
                self.kicks[g] = self.kicks[g].min(now + 1);
            }
        }
        let moved_bytes = self.credit < start_credit;
        if !starved {
            // Nothing was waiting: bandwidth not used this cycle is lost.
            self.credit = 0.0;
        }
        StepResult { moved_bytes }
    }

    /// Serves one GE's streams; returns whether some stream still wanted bytes.
    fn serve_ge(
        q: &mut GeQueues,
        now: u64,
        arrival: u64,
        credit: &mut f64,
        flags: &mut WireFlags,
        moved: &mut Moved,
        (label, address, table): (f64, f64, f64),
    ) -> bool {
        while q.live.wants(now) {
            if *credit <= 0.0 {
                return true;
            }
            if let Some(w) = q.live.transfer(credit) {
                WireFlags::set(&mut flags.in_dram, w);
                if WireFlags::get(&flags.output, w) {
                    moved.outputs += label;
                } else {
                    moved.live_writebacks += label;
                }
            }
        }
        while q.tables_out.wants(now) {
            if *credit <= 0.0 {
                return true;
            }
            if q.tables_out.transfer(credit).is_some() {
                moved.tables += table;
            }
        }
        while q.oorw.has_room() && WireFlags::get(&flags.in_dram, q.oorw_wires[q.oorw.next]) {
            if *credit <= 0.0 {
                return true;
            }
            if q.oorw.transfer(credit, arrival) {
                moved.oorw_labels += label;
                moved.oorw_addresses += address;
            }
        }
        while q.tables.has_room() {
            if *credit <= 0.0 {
                return true;
            }
            if q.tables.transfer(credit, arrival) {
                moved.tables += table;
            }
        }
        while q.instructions.has_room() {
            if *credit <= 0.0 {
                return true;
            }
            let item = q.instructions.item_bytes;
            if q.instructions.transfer(credit, arrival) {
                moved.instructions += item;
            }
        }
        false
    }
}
