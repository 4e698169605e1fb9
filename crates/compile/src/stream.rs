//! The compiled stream: what garbler, evaluator and plaintext engines execute.
//!
//! Gates are 12-byte slot triples in execution order; a short list of runs says how they
//! group: runs of free XORs, single AND groups, runs of constants. Engines branch once
//! per run instead of once per gate (a per-gate `match` mispredicts on nearly every gate
//! of a real circuit), and the gate array stays dense (AES-128's fits in L2).

use mixgc_circuit::Circuit;

use crate::instr::{Gate, Run, RunKind, NOT_SLOT};
use crate::reorder::{reordered_schedule, Reorder};
use crate::schedule::Schedule;
use crate::slots::allocate;
use crate::MAX_AND_RUN;

/// What an engine needs before the first gate: the interface of the circuit and the
/// memory its stream runs in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamHeader {
    pub(crate) input_widths: Vec<u32>,
    pub(crate) output_widths: Vec<u32>,
    pub(crate) digest: [u8; 32],
    pub(crate) num_slots: u32,
    pub(crate) input_slots: Vec<u32>,
    pub(crate) output_slots: Vec<u32>,
    pub(crate) num_gates: u64,
    pub(crate) num_ands: u64,
    pub(crate) stream_digest: [u8; 32],
}

impl StreamHeader {
    /// The header of a stream built without a [`Circuit`] (see [`crate::StreamWriter`]):
    /// its interface and slots; the circuit digest, gate counts and stream digest are set
    /// by the writer. Checked like any header.
    pub fn new(
        input_widths: Vec<u32>,
        output_widths: Vec<u32>,
        num_slots: u32,
        input_slots: Vec<u32>,
        output_slots: Vec<u32>,
    ) -> Result<StreamHeader, String> {
        let h = StreamHeader {
            input_widths,
            output_widths,
            digest: [0; 32],
            num_slots,
            input_slots,
            output_slots,
            num_gates: 0,
            num_ands: 0,
            stream_digest: [0; 32],
        };
        h.check()?;
        Ok(h)
    }

    /// Width in bits of each input value, in order.
    pub fn input_widths(&self) -> &[u32] {
        &self.input_widths
    }

    /// Width in bits of each output value, in order.
    pub fn output_widths(&self) -> &[u32] {
        &self.output_widths
    }

    /// Digest of the source circuit ([`Circuit::digest`]).
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    /// Digest of the instruction stream itself (schedule and slots included): parties
    /// compare it, since two schedules of one circuit garble to different tables.
    pub fn stream_digest(&self) -> [u8; 32] {
        self.stream_digest
    }

    /// Working memory in labels: the maximum number of live wires in this schedule, plus
    /// [`NOT_SLOT`].
    pub fn num_slots(&self) -> u32 {
        self.num_slots
    }

    /// Slot of each input bit, values in order, least significant bit first.
    pub fn input_slots(&self) -> &[u32] {
        &self.input_slots
    }

    /// Slot holding each output bit at the end.
    pub fn output_slots(&self) -> &[u32] {
        &self.output_slots
    }

    pub fn num_gates(&self) -> u64 {
        self.num_gates
    }

    pub fn num_ands(&self) -> u64 {
        self.num_ands
    }

    /// Working memory of one engine's wire slots in bytes (16-byte labels).
    pub fn working_set_bytes(&self) -> u64 {
        self.num_slots as u64 * 16
    }

    /// Checks the slots against `num_slots`.
    pub fn check(&self) -> Result<(), String> {
        if self.num_slots == NOT_SLOT {
            return Err("no NOT slot".into());
        }
        let n = self.num_slots;
        let bad = |s: &u32| *s >= n;
        if let Some(s) = self.input_slots.iter().find(|s| bad(s)) {
            return Err(format!("input slot {s} >= {n}"));
        }
        if let Some(s) = self.output_slots.iter().find(|s| bad(s)) {
            return Err(format!("output slot {s} >= {n}"));
        }
        let bits = |w: &[u32]| w.iter().map(|&w| w as u64).sum::<u64>();
        if bits(&self.input_widths) != self.input_slots.len() as u64
            || bits(&self.output_widths) != self.output_slots.len() as u64
        {
            return Err("widths and slots disagree".into());
        }
        Ok(())
    }
}

/// A piece of an instruction stream: whole runs over the slots of one [`StreamHeader`].
///
/// Invariant (relied on by the engines' unchecked slot accesses and by parallel
/// execution): every slot operand is `< num_slots`, the runs' gate counts add up to the
/// number of gates, AND runs hold 1..=[`MAX_AND_RUN`] gates, constant gates have
/// `a ∈ {0, 1}`, and every [`RunKind::Parallel`] marker covers runs of this chunk whose
/// gates are independent as the marker says. [`Chunk::new`] checks it; [`compile`] builds
/// chunks that satisfy it by construction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Chunk {
    num_slots: u32,
    runs: Vec<Run>,
    gates: Vec<Gate>,
}

impl Chunk {
    /// A chunk over `num_slots` slots, checked against the invariant (streams read from
    /// files go through here).
    pub fn new(num_slots: u32, runs: Vec<Run>, gates: Vec<Gate>) -> Result<Chunk, String> {
        let chunk = Chunk {
            num_slots,
            runs,
            gates,
        };
        chunk.check()?;
        Ok(chunk)
    }

    /// A chunk built by this crate, correct by construction (checked in debug builds).
    pub(crate) fn trusted(num_slots: u32, runs: Vec<Run>, gates: Vec<Gate>) -> Chunk {
        let chunk = Chunk {
            num_slots,
            runs,
            gates,
        };
        debug_assert_eq!(chunk.check(), Ok(()));
        chunk
    }

    /// The runs and gates back, to reuse their buffers for the next chunk.
    pub(crate) fn into_parts(self) -> (Vec<Run>, Vec<Gate>) {
        (self.runs, self.gates)
    }

    /// The number of slots every operand is bounded by.
    pub fn num_slots(&self) -> u32 {
        self.num_slots
    }

    /// The runs, in execution order; run `i` covers the next `runs[i].kind.gates_in(len)`
    /// gates.
    pub fn runs(&self) -> &[Run] {
        &self.runs
    }

    /// All gates in execution order.
    pub fn gates(&self) -> &[Gate] {
        &self.gates
    }

    /// AND gates in this chunk.
    pub fn num_ands(&self) -> u64 {
        self.runs
            .iter()
            .filter(|r| r.kind == RunKind::And)
            .map(|r| r.len as u64)
            .sum()
    }

    /// Verifies the invariant; returns the first violation.
    pub fn check(&self) -> Result<(), String> {
        let n = self.num_slots;
        let in_range = |s: u32, what: &str| {
            if s < n {
                Ok(())
            } else {
                Err(format!("{what} slot {s} >= {n}"))
            }
        };
        let total: u64 = self.runs.iter().map(|r| r.kind.gates_in(r.len) as u64).sum();
        if total != self.gates.len() as u64 {
            return Err(format!(
                "runs cover {total} gates, the chunk has {}",
                self.gates.len()
            ));
        }
        let mut next = 0;
        for (i, run) in self.runs.iter().enumerate() {
            if run.kind == RunKind::And && !(1..=MAX_AND_RUN as u32).contains(&run.len) {
                return Err(format!("AND run {i} has {} gates", run.len));
            }
            if run.kind == RunKind::Parallel {
                self.check_parallel(i, next)?;
            }
            for g in &self.gates[next..next + run.kind.gates_in(run.len)] {
                in_range(g.out, "output")?;
                match run.kind {
                    RunKind::Const if g.a > 1 => return Err(format!("constant {} in run {i}", g.a)),
                    RunKind::Const | RunKind::Parallel => {}
                    RunKind::Xor | RunKind::And => {
                        in_range(g.a, "operand")?;
                        in_range(g.b, "operand")?;
                    }
                }
            }
            next += run.kind.gates_in(run.len);
        }
        Ok(())
    }

    /// Checks the parallel block announced by marker `i`, whose first gate is `gate`.
    fn check_parallel(&self, i: usize, gate: usize) -> Result<(), String> {
        let block = &self.runs[i + 1..];
        let len = self.runs[i].len as usize;
        if len > block.len() || block[..len].iter().any(|r| r.kind == RunKind::Parallel) {
            return Err(format!("parallel marker {i} covers runs it cannot"));
        }
        let gates: usize = block[..len].iter().map(|r| r.kind.gates_in(r.len)).sum();
        let mut written = std::collections::HashSet::new();
        let mut read = std::collections::HashSet::new();
        let mut g = gate;
        for run in &block[..len] {
            for gate in &self.gates[g..g + run.len as usize] {
                if !written.insert(gate.out) {
                    return Err(format!("parallel block {i} writes slot {} twice", gate.out));
                }
                if run.kind != RunKind::Const {
                    read.extend([gate.a, gate.b]);
                }
            }
            g += run.len as usize;
        }
        debug_assert_eq!(g, gate + gates);
        // NOT_SLOT is never written; every other slot is read or written, not both.
        match written.iter().find(|s| read.contains(s)) {
            Some(s) => Err(format!("parallel block {i} reads and writes slot {s}")),
            None => Ok(()),
        }
    }

    /// Runs the chunk on plaintext slots.
    pub fn eval_plain(&self, slots: &mut [bool]) {
        assert_eq!(slots.len(), self.num_slots as usize, "one value per slot");
        let mut next = 0;
        for run in &self.runs {
            let gates = &self.gates[next..next + run.kind.gates_in(run.len)];
            next += gates.len();
            match run.kind {
                RunKind::Xor => {
                    for g in gates {
                        slots[g.out as usize] = slots[g.a as usize] ^ slots[g.b as usize];
                    }
                }
                RunKind::And => {
                    let vals: Vec<bool> = gates
                        .iter()
                        .map(|g| slots[g.a as usize] & slots[g.b as usize])
                        .collect();
                    for (g, v) in gates.iter().zip(vals) {
                        slots[g.out as usize] = v;
                    }
                }
                RunKind::Const => gates.iter().for_each(|g| slots[g.out as usize] = g.a == 1),
                RunKind::Parallel => {}
            }
        }
    }
}

/// A compiled circuit, chunk by chunk: what the engines of a session consume. A stream
/// held in memory is one chunk; a stream read from a file arrives in bounded chunks.
pub trait GateStream {
    fn header(&self) -> &StreamHeader;
    /// Goes back to the first chunk (to run the circuit again).
    fn rewind(&mut self) -> Result<(), StreamError>;
    /// The next chunk, or `None` after the last.
    fn next_chunk(&mut self) -> Result<Option<&Chunk>, StreamError>;
}

/// Why a stream could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StreamError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Malformed(String),
}

/// A circuit compiled for execution: a header and one chunk holding every gate.
#[derive(Clone, Debug)]
pub struct CompiledCircuit {
    header: StreamHeader,
    body: Chunk,
}

impl std::ops::Deref for CompiledCircuit {
    type Target = StreamHeader;
    fn deref(&self) -> &StreamHeader {
        &self.header
    }
}

impl CompiledCircuit {
    /// Joins a header and the chunk holding all its gates; checks that they fit together.
    pub fn new(header: StreamHeader, body: Chunk) -> Result<CompiledCircuit, String> {
        header.check()?;
        if body.num_slots != header.num_slots
            || body.gates.len() as u64 != header.num_gates
            || body.num_ands() != header.num_ands
        {
            return Err("the gates do not match the header".into());
        }
        Ok(CompiledCircuit { header, body })
    }

    pub fn header(&self) -> &StreamHeader {
        &self.header
    }

    /// All runs and gates.
    pub fn body(&self) -> &Chunk {
        &self.body
    }

    /// The runs, in execution order.
    pub fn runs(&self) -> &[Run] {
        self.body.runs()
    }

    /// All gates in execution order.
    pub fn gates(&self) -> &[Gate] {
        self.body.gates()
    }

    /// Verifies the type invariant; returns the first violation.
    pub fn check(&self) -> Result<(), String> {
        self.header.check()?;
        self.body.check()
    }

    /// The stream as a [`GateStream`] of one chunk.
    pub fn stream(&self) -> InMemory<'_> {
        InMemory {
            circuit: self,
            done: false,
        }
    }

    /// Runs the stream on plaintext bits; the reference the garbled engines are tested against.
    pub fn eval_plain(&self, input_bits: &[bool]) -> Vec<bool> {
        eval_stream_plain(&mut self.stream(), input_bits).expect("in-memory streams cannot fail")
    }
}

/// Runs any stream on plaintext bits, chunk by chunk.
pub fn eval_stream_plain(stream: &mut dyn GateStream, input_bits: &[bool]) -> Result<Vec<bool>, StreamError> {
    let h = stream.header().clone();
    assert_eq!(input_bits.len(), h.input_slots.len(), "one bit per input wire");
    let mut slots = vec![false; h.num_slots as usize];
    slots[NOT_SLOT as usize] = true;
    for (&s, &v) in h.input_slots.iter().zip(input_bits) {
        slots[s as usize] = v;
    }
    stream.rewind()?;
    while let Some(chunk) = stream.next_chunk()? {
        chunk.eval_plain(&mut slots);
    }
    Ok(h.output_slots.iter().map(|&s| slots[s as usize]).collect())
}

/// A [`CompiledCircuit`] read as a [`GateStream`].
pub struct InMemory<'a> {
    circuit: &'a CompiledCircuit,
    done: bool,
}

impl GateStream for InMemory<'_> {
    fn header(&self) -> &StreamHeader {
        &self.circuit.header
    }

    fn rewind(&mut self) -> Result<(), StreamError> {
        self.done = false;
        Ok(())
    }

    fn next_chunk(&mut self) -> Result<Option<&Chunk>, StreamError> {
        if std::mem::replace(&mut self.done, true) {
            Ok(None)
        } else {
            Ok(Some(&self.circuit.body))
        }
    }
}

/// The digest of a stream: BLAKE3 over its header fields and every run and gate, in an
/// encoding that does not depend on how the stream is cut into chunks.
pub struct StreamHasher(blake3::Hasher);

impl StreamHasher {
    /// Starts with everything in `h` but the stream digest itself.
    pub fn new(h: &StreamHeader) -> StreamHasher {
        let mut x = blake3::Hasher::new();
        x.update(b"mixgc/compiled-stream/v1");
        let list = |x: &mut blake3::Hasher, v: &[u32]| {
            x.update(&(v.len() as u64).to_le_bytes());
            v.iter().for_each(|w| {
                x.update(&w.to_le_bytes());
            });
        };
        list(&mut x, &h.input_widths);
        list(&mut x, &h.output_widths);
        x.update(&h.digest);
        x.update(&h.num_slots.to_le_bytes());
        list(&mut x, &h.input_slots);
        list(&mut x, &h.output_slots);
        x.update(&h.num_gates.to_le_bytes());
        x.update(&h.num_ands.to_le_bytes());
        StreamHasher(x)
    }

    pub fn chunk(&mut self, c: &Chunk) {
        let mut next = 0;
        for run in &c.runs {
            self.0.update(&[run.kind as u8]);
            self.0.update(&run.len.to_le_bytes());
            for g in &c.gates[next..next + run.kind.gates_in(run.len)] {
                self.0.update(&g.a.to_le_bytes());
                self.0.update(&g.b.to_le_bytes());
                self.0.update(&g.out.to_le_bytes());
            }
            next += run.kind.gates_in(run.len);
        }
    }

    /// Feeds runs and gates already in `chunk`'s encoding (kind byte and length of each run,
    /// then its gates' `a`, `b`, `out`; all little-endian): the body of a stream file.
    pub(crate) fn encoded(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    pub fn finish(&self) -> [u8; 32] {
        *self.0.finalize().as_bytes()
    }
}

/// The gate order a stream is compiled with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The batched list schedule: independent ANDs in groups, a bounded look-ahead (the
    /// fastest on one thread; the default).
    Batched,
    /// One of HAAC §4.2's orders, with its window in wires. Full and segment orders come
    /// level by level in [`RunKind::Parallel`] blocks of at most
    /// [`crate::MAX_PARALLEL_GATES`] gates, which engines may spread over threads.
    Reordered(Reorder, usize),
}

/// Compiles a validated circuit with the batched schedule.
pub fn compile(c: &Circuit) -> CompiledCircuit {
    compile_with(c, Layout::Batched)
}

/// Compiles a validated circuit in the given gate order, then allocates slots (renaming
/// every wire to a slot of the live set, so spent wires free their slot at once).
pub fn compile_with(c: &Circuit, layout: Layout) -> CompiledCircuit {
    let schedule = match layout {
        Layout::Batched => Schedule::batched(c),
        Layout::Reordered(reorder, window) => reordered_schedule(c, reorder, window),
    };
    let a = allocate(c, &schedule);
    let body = Chunk::trusted(a.num_slots, a.runs, a.gates);
    let mut header = StreamHeader {
        input_widths: c.input_widths.clone(),
        output_widths: c.output_widths.clone(),
        digest: c.digest(),
        num_slots: a.num_slots,
        input_slots: a.input_slots,
        output_slots: a.output_slots,
        num_gates: body.gates.len() as u64,
        num_ands: body.num_ands(),
        stream_digest: [0; 32],
    };
    let mut hasher = StreamHasher::new(&header);
    hasher.chunk(&body);
    header.stream_digest = hasher.finish();
    CompiledCircuit { header, body }
}
