//! The cycle loop: per GE an in-order pipeline (HAAC §3.2, Figure 3 right) — front end
//! (fetch, decode), wire reads (address to bank, bank read, data back; the table and the
//! OoR wires are popped on entry), the half-gate (AND) or FreeXOR unit, write-back to the
//! SWW — with forwarding across engines, SWW banks with limited ports, and the queues of
//! [`super::dram`].
//!
//! Every GE cycle that issues nothing into the execution units is charged to the cause at
//! the head of the front end: an instruction blocked there, or the cause that left the
//! bubble there (bubbles carry the cause that created them down the pipeline).

use super::config::{Role, SimConfig};
use super::dram::{Dram, WireFlags};
use super::report::Stalls;
use super::SimError;
use crate::isa::{in_window, HaacProgram, Op};

/// Why a pipeline slot is empty or an instruction cannot leave it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Cause {
    Dependency,
    BankConflict,
    InstructionQueue,
    TableQueue,
    OorwQueue,
    WriteBuffer,
    PipelineFill,
    Drained,
}

#[derive(Clone, Copy)]
enum Slot {
    Empty(Cause),
    Busy(u32),
}

/// Where engines get their instructions.
pub(super) enum Source {
    /// From the program's assignment, each engine's stream in program order.
    Assigned { streams: Vec<Vec<u32>> },
    /// The seed's assignment (HAAC §4.1): each cycle the next instructions in program order
    /// go to the engines whose fetch stage is free, the choice being recorded.
    Dispatch { next: u32, engine: Vec<u16> },
}

struct Ge {
    stages: Vec<Slot>,
    /// The engine cannot change before this cycle (see [`Machine::wake_time`]); until then
    /// each cycle is charged to `sleep_cause`.
    wake_at: u64,
    sleep_cause: Cause,
    /// The instruction in the bank stage has done its SWW reads.
    bank_read: bool,
    /// Next position in this engine's stream (Assigned).
    cursor: usize,
}

pub(super) struct Outcome {
    pub(super) cycles: u64,
    pub(super) stalls: Stalls,
    pub(super) issued: u64,
    pub(super) drained: u64,
    pub(super) sww_overruns: u64,
}

/// Longest stretch without any movement before the model reports itself stuck.
const STUCK_CYCLES: u64 = 1 << 22;

pub(super) struct Machine<'p> {
    program: &'p HaacProgram,
    role: Role,
    and_latency: u64,
    xor_latency: u64,
    writeback: u64,
    read_first: usize,
    bank_stage: usize,
    ges: Vec<Ge>,
    pub(super) source: Source,
    /// `None`: unlimited, zero-latency memory (the compute bound, and the dispatcher).
    pub(super) dram: Option<Dram>,
    flags: WireFlags,
    /// Per instruction, bit k: operand k is out of the window (read from the OoRW queue).
    oor: Vec<u8>,
    /// Cycle each wire's value is available to a consumer (forwarding), `u32::MAX` before.
    done: Vec<u32>,
    /// The wire each SWW slot last received.
    slot_wire: Vec<u32>,
    banks: u32,
    bank_ports: u8,
    bank_used: Vec<u8>,
    /// The SWW addresses each bank reads this cycle (a read serves every engine asking for
    /// the same address: the crossbar multicasts it).
    bank_addresses: Vec<u32>,
    /// Engines whose bank-stage instruction still has to read, oldest first.
    readers: Vec<(u32, usize)>,
    /// SWW writes due at each cycle (ring indexed by cycle), and those a busy bank deferred.
    writes: Vec<Vec<u32>>,
    deferred: Vec<u32>,
    /// Scratch list of this cycle's writes.
    due: Vec<u32>,
    pending_writes: u64,
    remaining: u64,
    in_flight: u64,
    last_end: u64,
    stall_counts: [u64; 8],
    issued: u64,
    sww_overruns: u64,
    /// Skip engines (and cycles) in which nothing can change. Off only to check that
    /// skipping changes nothing.
    pub(super) skip_idle: bool,
}

/// What one engine's cycle did.
struct StepOutcome {
    /// An instruction moved (issued, advanced, fetched).
    moved: bool,
    /// A bubble's cause changed.
    retagged: bool,
    /// The cause charged to this cycle (None: an instruction issued).
    charged: Option<Cause>,
}

impl<'p> Machine<'p> {
    /// A machine for a validated program and configuration.
    pub(super) fn new(
        program: &'p HaacProgram,
        cfg: &SimConfig,
        role: Role,
        source: Source,
        dram: Option<Dram>,
        preloaded: &[u32],
    ) -> Self {
        let wires = program.inputs as usize + program.instructions.len() + 1;
        let stages = (cfg.frontend_stages + cfg.wire_read_stages) as usize;
        let read_first = cfg.frontend_stages as usize;
        let bank_stage = read_first + usize::from(cfg.wire_read_stages >= 2);
        let mut done = vec![u32::MAX; wires];
        let mut flags = WireFlags::new(wires);
        // Only SWW addresses of existing wires are ever used (a window larger than the
        // program allocates no more).
        let mut slot_wire = vec![0; (program.window as usize).min(wires)];
        for w in 1..=program.inputs {
            WireFlags::set(&mut flags.in_dram, w);
        }
        for &w in &program.outputs {
            WireFlags::set(&mut flags.output, w);
        }
        // Inputs never in the SWW come through the OoRW queue; with unlimited memory the
        // preloaded ones are there at once, otherwise when the DRAM delivers them.
        for w in 1..=program.inputs {
            done[w as usize] = 0;
        }
        if dram.is_some() {
            for &w in preloaded {
                done[w as usize] = u32::MAX;
            }
        } else {
            for &w in preloaded {
                slot_wire[(w % program.window) as usize] = w;
            }
        }
        let and_latency = u64::from(cfg.and_latency(role));
        let writeback = u64::from(cfg.writeback_cycles);
        let ring = (and_latency.max(u64::from(cfg.xor_latency)) + writeback + 2).next_power_of_two();
        let ge_count = usize::from(cfg.ges);
        Machine {
            program,
            role,
            and_latency,
            xor_latency: u64::from(cfg.xor_latency),
            writeback,
            read_first,
            bank_stage,
            ges: (0..ge_count)
                .map(|_| Ge {
                    stages: vec![Slot::Empty(Cause::PipelineFill); stages],
                    wake_at: 0,
                    sleep_cause: Cause::PipelineFill,
                    bank_read: false,
                    cursor: 0,
                })
                .collect(),
            source,
            dram,
            flags,
            oor: program
                .instructions
                .iter()
                .enumerate()
                .map(|(i, ins)| {
                    let out = program.output_wire(i);
                    ins.reads()
                        .enumerate()
                        .filter(|&(_, w)| !in_window(w, out, program.window))
                        .fold(0, |bits, (k, _)| bits | 1 << k)
                })
                .collect(),
            done,
            slot_wire,
            banks: cfg.banks(),
            bank_ports: cfg.bank_accesses_per_cycle().min(255) as u8,
            bank_used: vec![0; cfg.banks() as usize],
            bank_addresses: vec![0; cfg.banks() as usize * cfg.bank_accesses_per_cycle().min(255) as usize],
            readers: Vec::with_capacity(usize::from(cfg.ges)),
            writes: vec![Vec::new(); ring as usize],
            deferred: Vec::new(),
            due: Vec::new(),
            pending_writes: 0,
            remaining: program.instructions.len() as u64,
            in_flight: 0,
            last_end: 0,
            stall_counts: [0; 8],
            issued: 0,
            sww_overruns: 0,
            skip_idle: true,
        }
    }

    /// Runs until every instruction has written back and every write reached DRAM.
    pub(super) fn run(&mut self) -> Result<Outcome, SimError> {
        let mut now: u64 = 0;
        let mut last_progress: u64 = 0;
        let mut loaded = Vec::new();
        let ring = self.writes.len() as u64;
        loop {
            let writes_pending = self.dram.as_ref().is_some_and(|d| d.writes_pending());
            if self.remaining == 0
                && self.in_flight == 0
                && self.pending_writes == 0
                && now >= self.last_end
                && !writes_pending
            {
                break;
            }
            if now >= u64::from(u32::MAX) - ring {
                return Err(SimError::TooLong);
            }
            if now - last_progress > STUCK_CYCLES {
                return Err(SimError::Stuck { cycle: now });
            }
            let mut progress = self.sww_writes(now);
            progress |= self.sww_reads();
            let n = self.ges.len();
            let first = (now % n as u64) as usize;
            for k in 0..n {
                let g = (first + k) % n;
                if now < self.ges[g].wake_at {
                    self.stall_counts[self.ges[g].sleep_cause as usize] += 1;
                    continue;
                }
                let step = self.step_ge(g, now);
                progress |= step.moved;
                if let (false, false, Some(cause), true) =
                    (step.moved, step.retagged, step.charged, self.skip_idle)
                {
                    let wake = self.wake_time(g, now);
                    if wake > now + 1 {
                        self.ges[g].wake_at = wake;
                        self.ges[g].sleep_cause = cause;
                    }
                }
            }
            if let Some(dram) = self.dram.as_mut() {
                loaded.clear();
                progress |= dram.step(now, &mut self.flags, &mut loaded).moved_bytes;
                for &(w, at) in &loaded {
                    self.done[w as usize] = at as u32;
                    self.slot_wire[(w % self.program.window) as usize] = w;
                }
                for (ge, kick) in self.ges.iter_mut().zip(&mut dram.kicks) {
                    ge.wake_at = ge.wake_at.min(*kick);
                    *kick = u64::MAX;
                }
            }
            if progress {
                last_progress = now;
            } else if self.skip_idle && self.pending_writes == 0 {
                // Nothing moved and nothing is due: jump to the next cycle anything can.
                let mut next = self.ges.iter().map(|g| g.wake_at).min().unwrap_or(u64::MAX);
                if let Some(dram) = &self.dram {
                    next = next.min(dram.next_write(now).unwrap_or(u64::MAX));
                }
                if self.last_end > now + 1 {
                    next = next.min(self.last_end);
                }
                let finished = self.remaining == 0 && self.in_flight == 0;
                if next == u64::MAX && !finished {
                    return Err(SimError::Stuck { cycle: now });
                }
                if next != u64::MAX && next > now + 1 {
                    let skipped = next - now - 1;
                    for ge in &self.ges {
                        self.stall_counts[ge.sleep_cause as usize] += skipped;
                    }
                    now = next - 1;
                    last_progress = now;
                }
            }
            now += 1;
        }
        let s = &self.stall_counts;
        Ok(Outcome {
            cycles: now,
            stalls: Stalls {
                dependency: s[Cause::Dependency as usize],
                bank_conflict: s[Cause::BankConflict as usize],
                instruction_queue: s[Cause::InstructionQueue as usize],
                table_queue: s[Cause::TableQueue as usize],
                oorw_queue: s[Cause::OorwQueue as usize],
                write_buffer: s[Cause::WriteBuffer as usize],
                pipeline_fill: s[Cause::PipelineFill as usize],
            },
            issued: self.issued,
            drained: s[Cause::Drained as usize],
            sww_overruns: self.sww_overruns,
        })
    }

    fn bank_of(&self, wire: u32) -> usize {
        ((wire % self.program.window) % self.banks) as usize
    }

    /// Write-backs due this cycle take bank ports first (older deferred ones before them).
    fn sww_writes(&mut self, now: u64) -> bool {
        self.bank_used.iter_mut().for_each(|u| *u = 0);
        let ring = self.writes.len() as u64;
        let mut due = std::mem::take(&mut self.due);
        due.clear();
        due.append(&mut self.deferred);
        due.append(&mut self.writes[(now % ring) as usize]);
        let mut progress = false;
        for &w in &due {
            let b = self.bank_of(w);
            if self.bank_used[b] < self.bank_ports {
                self.bank_used[b] += 1;
                self.bank_addresses[b * usize::from(self.bank_ports) + usize::from(self.bank_used[b] - 1)] =
                    u32::MAX;
                self.slot_wire[(w % self.program.window) as usize] = w;
                self.pending_writes -= 1;
                progress = true;
            } else {
                self.deferred.push(w);
            }
        }
        self.due = due;
        progress
    }

    /// Whether operand `k` (0: `a`, 1: `b`) of instruction `i` comes from the OoRW queue.
    fn is_oor(&self, i: u32, k: usize) -> bool {
        self.oor[i as usize] >> k & 1 == 1
    }

    /// This cycle's SWW reads, oldest instruction first (the arbiter grants by output wire,
    /// which is program order).
    fn sww_reads(&mut self) -> bool {
        let mut readers = std::mem::take(&mut self.readers);
        readers.clear();
        for (g, ge) in self.ges.iter().enumerate() {
            if let Slot::Busy(i) = ge.stages[self.bank_stage] {
                if !ge.bank_read {
                    readers.push((i, g));
                }
            }
        }
        readers.sort_unstable();
        let mut progress = false;
        for &(i, g) in &readers {
            if self.bank_read(i) {
                self.ges[g].bank_read = true;
                progress = true;
            }
        }
        self.readers = readers;
        progress
    }

    /// Whether bank `b` already reads SWW address `slot` this cycle.
    fn bank_reads(&self, b: usize, slot: u32) -> bool {
        let ports = usize::from(self.bank_ports);
        self.bank_addresses[b * ports..b * ports + usize::from(self.bank_used[b])].contains(&slot)
    }

    /// SWW reads of the in-window operands, all or none this cycle.
    fn bank_read(&mut self, i: u32) -> bool {
        let ins = self.program.instructions[i as usize];
        let window = self.program.window;
        // (bank, address) of each read needing a port of its own.
        let mut need: [Option<(usize, u32)>; 2] = [None; 2];
        for (k, w) in ins.reads().enumerate() {
            let slot = w % window;
            let b = self.bank_of(w);
            let shared = self.bank_reads(b, slot) || (k == 1 && need[0] == Some((b, slot)));
            if !self.is_oor(i, k) && !shared {
                need[k] = Some((b, slot));
            }
        }
        let ports = self.bank_ports;
        let fits = match need {
            [Some((a, _)), Some((b, _))] if a == b => self.bank_used[a] + 2 <= ports,
            _ => need.iter().flatten().all(|&(b, _)| self.bank_used[b] < ports),
        };
        if !fits {
            return false;
        }
        for (b, slot) in need.into_iter().flatten() {
            self.bank_addresses[b * usize::from(ports) + usize::from(self.bank_used[b])] = slot;
            self.bank_used[b] += 1;
        }
        for (k, w) in ins.reads().enumerate() {
            if !self.is_oor(i, k) && self.slot_wire[(w % window) as usize] > w {
                self.sww_overruns += 1;
            }
        }
        true
    }

    /// On entry to the first wire-read stage: the AND's table and the OoR wires.
    fn pop_queues(&mut self, g: usize, i: u32, now: u64) -> Option<Cause> {
        let dram = self.dram.as_mut()?;
        let ins = self.program.instructions[i as usize];
        let oor = self.oor[i as usize].count_ones() as usize;
        let q = &mut dram.ges[g];
        let table = self.role == Role::Evaluator && ins.op == Op::And;
        if table && !q.tables.ready(now, 1) {
            return Some(Cause::TableQueue);
        }
        if !q.oorw.ready(now, oor) {
            return Some(Cause::OorwQueue);
        }
        if table {
            q.tables.pop(1);
        }
        q.oorw.pop(oor);
        None
    }

    /// Whether instruction `i` can enter its execution unit now.
    fn issue_blocker(&self, g: usize, i: u32, now: u64) -> Option<Cause> {
        let ins = self.program.instructions[i as usize];
        if ins.reads().any(|w| u64::from(self.done[w as usize]) > now) {
            return Some(Cause::Dependency);
        }
        let dram = self.dram.as_ref()?;
        let q = &dram.ges[g];
        if self.role == Role::Garbler && ins.op == Op::And && !q.tables_out.has_space() {
            return Some(Cause::TableQueue);
        }
        if ins.live && !q.live.has_space() {
            return Some(Cause::WriteBuffer);
        }
        None
    }

    fn issue(&mut self, g: usize, i: u32, now: u64) {
        let ins = self.program.instructions[i as usize];
        let out = self.program.output_wire(i as usize);
        let latency = if ins.op == Op::And {
            self.and_latency
        } else {
            self.xor_latency
        };
        let done = now + latency;
        self.done[out as usize] = done as u32;
        self.last_end = self.last_end.max(done + self.writeback);
        if ins.op != Op::Nop {
            let ring = self.writes.len() as u64;
            self.writes[((done + self.writeback - 1) % ring) as usize].push(out);
            self.pending_writes += 1;
        }
        if let Some(dram) = self.dram.as_mut() {
            let q = &mut dram.ges[g];
            if ins.live {
                q.live.push(done, out);
            }
            if self.role == Role::Garbler && ins.op == Op::And {
                q.tables_out.push(done, out);
            }
        }
        self.issued += 1;
        self.in_flight -= 1;
    }

    fn fetch(&mut self, g: usize, now: u64) -> Slot {
        match &mut self.source {
            Source::Assigned { streams } => {
                let ge = &mut self.ges[g];
                let Some(&i) = streams[g].get(ge.cursor) else {
                    return Slot::Empty(Cause::Drained);
                };
                if let Some(dram) = self.dram.as_mut() {
                    let q = &mut dram.ges[g].instructions;
                    if !q.ready(now, 1) {
                        return Slot::Empty(Cause::InstructionQueue);
                    }
                    q.pop(1);
                }
                ge.cursor += 1;
                self.remaining -= 1;
                self.in_flight += 1;
                Slot::Busy(i)
            }
            Source::Dispatch { next, engine } => {
                if *next as usize >= engine.len() {
                    return Slot::Empty(Cause::Drained);
                }
                let i = *next;
                engine[i as usize] = g as u16;
                *next += 1;
                self.remaining -= 1;
                self.in_flight += 1;
                Slot::Busy(i)
            }
        }
    }

    /// One cycle of engine `g`, from the execution units back to fetch.
    fn step_ge(&mut self, g: usize, now: u64) -> StepOutcome {
        let last = self.ges[g].stages.len() - 1;
        let mut progress = false;
        let mut retagged = false;
        let mut charged = None;
        let bank_stage = self.bank_stage;
        match self.ges[g].stages[last] {
            Slot::Busy(i) => {
                let blocked = if last == bank_stage && !self.ges[g].bank_read {
                    Some(Cause::BankConflict)
                } else {
                    self.issue_blocker(g, i, now)
                };
                match blocked {
                    None => {
                        self.issue(g, i, now);
                        self.ges[g].stages[last] = Slot::Empty(Cause::PipelineFill);
                        progress = true;
                    }
                    Some(c) => {
                        self.stall_counts[c as usize] += 1;
                        charged = Some(c);
                    }
                }
            }
            Slot::Empty(c) => {
                self.stall_counts[c as usize] += 1;
                charged = Some(c);
            }
        }
        for s in (0..last).rev() {
            let next_empty = matches!(self.ges[g].stages[s + 1], Slot::Empty(_));
            if !next_empty {
                continue;
            }
            match self.ges[g].stages[s] {
                Slot::Busy(i) => {
                    let blocked = if s == bank_stage && !self.ges[g].bank_read {
                        Some(Cause::BankConflict)
                    } else if s + 1 == self.read_first {
                        self.pop_queues(g, i, now)
                    } else {
                        None
                    };
                    match blocked {
                        None => {
                            let ge = &mut self.ges[g];
                            ge.stages[s + 1] = Slot::Busy(i);
                            ge.stages[s] = Slot::Empty(Cause::PipelineFill);
                            if s + 1 == bank_stage {
                                ge.bank_read = false;
                            }
                            progress = true;
                        }
                        Some(c) => retagged |= self.retag(g, s + 1, c),
                    }
                }
                Slot::Empty(c) => retagged |= self.retag(g, s + 1, c),
            }
        }
        if let Slot::Empty(before) = self.ges[g].stages[0] {
            let slot = self.fetch(g, now);
            match slot {
                Slot::Busy(_) => progress = true,
                Slot::Empty(c) => retagged |= c != before,
            }
            self.ges[g].stages[0] = slot;
        }
        StepOutcome {
            moved: progress,
            retagged,
            charged,
        }
    }

    /// Marks empty stage `s` of engine `g` with `cause`; returns whether that changed it.
    fn retag(&mut self, g: usize, s: usize, cause: Cause) -> bool {
        let slot = &mut self.ges[g].stages[s];
        let changed = !matches!(*slot, Slot::Empty(c) if c == cause);
        *slot = Slot::Empty(cause);
        changed
    }

    /// After a cycle in which engine `g` moved nothing and no bubble changed, the first
    /// cycle its state can change by itself: a blocked issue's operands become available,
    /// or an item already on its way reaches a queue it waits on. Events that are not yet
    /// scheduled (a DRAM transfer for this engine, a producer issuing) wake it through
    /// `kicks` or are waited for cycle by cycle.
    fn wake_time(&self, g: usize, now: u64) -> u64 {
        let ge = &self.ges[g];
        let last = ge.stages.len() - 1;
        if matches!(ge.stages[self.bank_stage], Slot::Busy(_)) && !ge.bank_read {
            return now + 1;
        }
        let mut wake = u64::MAX;
        if let Slot::Busy(i) = ge.stages[last] {
            let ins = self.program.instructions[i as usize];
            let mut ready = 0;
            for w in ins.reads() {
                let d = self.done[w as usize];
                if d == u32::MAX {
                    return now + 1;
                }
                ready = ready.max(u64::from(d));
            }
            if ready > now {
                wake = wake.min(ready);
            }
        }
        let Some(dram) = &self.dram else {
            return wake;
        };
        let q = &dram.ges[g];
        if let Slot::Busy(i) = ge.stages[self.read_first - 1] {
            if matches!(ge.stages[self.read_first], Slot::Empty(_)) {
                let ins = self.program.instructions[i as usize];
                let table = self.role == Role::Evaluator && ins.op == Op::And;
                let oor = self.oor[i as usize].count_ones() as usize;
                // Each arrival may unblock it or change the cause it is charged to; items
                // not yet requested wake it through the DRAM's kick.
                let needed = [
                    if table { q.tables.arrival(1) } else { None },
                    if oor > 0 { q.oorw.arrival(oor) } else { None },
                ];
                for at in needed.into_iter().flatten() {
                    if at > now {
                        wake = wake.min(at);
                    }
                }
            }
        }
        if matches!(ge.stages[0], Slot::Empty(Cause::InstructionQueue)) {
            if let Some(at) = q.instructions.arrival(1) {
                wake = wake.min(at.max(now + 1));
            }
        }
        wake
    }
}
