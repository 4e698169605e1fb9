//! Cutting a compiled gate stream (`mixgc_compile`: gates over wire *slots*, so the
//! per-wire state is O(live wires)) into batches of whole runs holding at least
//! `batch_ands` AND gates (TinyGarble2 thesis §3.3.2). A batch owns a copy of its runs and
//! gates, so both walks over it (masks, then garbling or evaluation) see the same gates
//! whatever chunks the stream arrives in; memory is O(batch + one chunk).

use mixgc_compile::{Gate, GateStream, Run, RunKind};

use crate::MaliciousError;

/// Runs and gates of one batch (no parallel markers).
#[derive(Default)]
pub(crate) struct Batch {
    pub runs: Vec<Run>,
    pub gates: Vec<Gate>,
    pub ands: usize,
}

impl Batch {
    /// The runs with their gates, in order.
    pub fn runs(&self) -> impl Iterator<Item = (RunKind, &[Gate])> {
        let mut next = 0;
        self.runs.iter().map(move |r| {
            let gates = &self.gates[next..next + r.len as usize];
            next += gates.len();
            (r.kind, gates)
        })
    }
}

/// Reads batches off a stream (rewound first).
pub(crate) struct Batches<'s> {
    stream: &'s mut dyn GateStream,
    batch_ands: usize,
    /// The current chunk's runs and gates not yet handed out.
    runs: Vec<Run>,
    gates: Vec<Gate>,
    run_at: usize,
    gate_at: usize,
    done: bool,
    /// The last batch's run and gate counts: the next batch's vectors start at that
    /// capacity (batches are alike), not grown by doubling (each growth a copy).
    last_len: (usize, usize),
}

impl<'s> Batches<'s> {
    pub fn new(stream: &'s mut dyn GateStream, batch_ands: usize) -> Result<Self, MaliciousError> {
        stream.rewind().map_err(stream_error)?;
        Ok(Batches {
            stream,
            batch_ands,
            runs: Vec::new(),
            gates: Vec::new(),
            run_at: 0,
            gate_at: 0,
            done: false,
            last_len: (0, 0),
        })
    }

    /// The next batch, or `None` at the end of the stream.
    pub fn next_batch(&mut self) -> Result<Option<Batch>, MaliciousError> {
        let mut batch = Batch {
            runs: Vec::with_capacity(self.last_len.0),
            gates: Vec::with_capacity(self.last_len.1),
            ands: 0,
        };
        while batch.ands < self.batch_ands {
            if self.run_at == self.runs.len() && !self.refill()? {
                break;
            }
            let run = self.runs[self.run_at];
            self.run_at += 1;
            let n = run.kind.gates_in(run.len);
            if run.kind == RunKind::Parallel {
                continue;
            }
            batch
                .gates
                .extend_from_slice(&self.gates[self.gate_at..self.gate_at + n]);
            self.gate_at += n;
            if run.kind == RunKind::And {
                batch.ands += n;
            }
            batch.runs.push(run);
        }
        self.last_len = (batch.runs.len(), batch.gates.len());
        Ok((!batch.runs.is_empty()).then_some(batch))
    }

    /// Copies the next chunk in; false at the end of the stream.
    fn refill(&mut self) -> Result<bool, MaliciousError> {
        if self.done {
            return Ok(false);
        }
        match self.stream.next_chunk().map_err(stream_error)? {
            Some(chunk) => {
                self.runs.clear();
                self.runs.extend_from_slice(chunk.runs());
                self.gates.clear();
                self.gates.extend_from_slice(chunk.gates());
                self.run_at = 0;
                self.gate_at = 0;
                Ok(true)
            }
            None => {
                self.done = true;
                Ok(false)
            }
        }
    }
}

fn stream_error(e: mixgc_compile::StreamError) -> MaliciousError {
    MaliciousError::Input(format!("cannot read the gate stream: {e}"))
}
