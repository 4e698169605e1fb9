//! A compiled stream ([`GateStream`], from `mixgc_compile`) cut into batches of a bounded
//! number of AND gates, the unit both n-party protocols work in: memory is the stream's
//! wire slots plus one batch, never the whole circuit (the bounded-memory rule;
//! TinyGarble2 §3.3.2: memory bounded by what is in flight).
//!
//! Every chunk is checked as it is read (slots in range, run lengths, constants), so a
//! malformed stream is an error, never an out-of-bounds access. Each batch comes out as a
//! list of [`Op`]s with plain sequential semantics: an op reads its operands, then writes
//! its output. An AND run of the stream reads all its inputs before writing any output;
//! where one of its outputs lands in a slot a later gate of the run reads, the run is
//! rewritten to write scratch slots first and copy them after, so a batch may end
//! anywhere inside a run.

use mixgc_compile::{Chunk, GateStream, RunKind, StreamError, StreamHeader, MAX_AND_RUN};

use crate::NpartyError;

/// Most wire slots a stream may ask for: each costs a party up to 2·(n + 1) blocks in BMR,
/// so a header asking for more is refused before anything is allocated.
pub const MAX_SLOTS: u32 = 1 << 26;

/// Most ops in one batch, whatever its AND count: a long run of free gates is cut too.
pub(crate) const MAX_BATCH_OPS: usize = 1 << 18;

/// One instruction of a batch; operands and outputs are slot indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// slot[out] = slot[a] ⊕ slot[b] (NOT is XOR with the constant-1 slot 0).
    Xor { a: u32, b: u32, out: u32 },
    /// slot[out] = slot[a] ∧ slot[b].
    And { a: u32, b: u32, out: u32 },
    /// slot[out] = the constant `value`.
    Const { value: bool, out: u32 },
    /// slot[out] = slot[a].
    Copy { a: u32, out: u32 },
}

/// The slots a run over `header` needs: the stream's own, then [`MAX_AND_RUN`] scratch
/// slots for rewritten AND runs. Refuses a header that breaks its own rules or asks for
/// more than [`MAX_SLOTS`].
pub(crate) fn slot_count(header: &StreamHeader) -> Result<usize, NpartyError> {
    header
        .check()
        .map_err(|e| StreamError::Malformed(format!("bad header: {e}")))?;
    if header.num_slots() > MAX_SLOTS {
        return Err(StreamError::Malformed(format!(
            "the stream asks for {} wire slots, more than the {MAX_SLOTS} an n-party run allows",
            header.num_slots()
        ))
        .into());
    }
    Ok(header.num_slots() as usize + MAX_AND_RUN)
}

/// Reads `stream` from its start and hands `batch` the ops of every batch in order: at most
/// `batch_ands` ANDs (≥ 1) and [`MAX_BATCH_OPS`] ops each, always at least one batch (the
/// first may be empty). Returns the AND gates read; checks that the gate and AND counts
/// match the header.
pub(crate) fn for_each_batch(
    stream: &mut dyn GateStream,
    batch_ands: usize,
    mut batch: impl FnMut(&[Op]) -> Result<(), NpartyError>,
) -> Result<u64, NpartyError> {
    assert!(batch_ands > 0, "a batch holds at least one AND");
    let header = stream.header().clone();
    let mut cutter = Cutter {
        ops: Vec::new(),
        ands: 0,
        batch_ands,
        batches: 0,
    };
    let (mut gates, mut ands) = (0u64, 0u64);
    stream.rewind()?;
    while let Some(chunk) = stream.next_chunk()? {
        let (g, a) = read_chunk(chunk, &header, |op| cutter.push(op, &mut batch))?;
        gates += g;
        ands += a;
    }
    if cutter.batches == 0 || !cutter.ops.is_empty() {
        batch(&cutter.ops)?;
    }
    if gates != header.num_gates() || ands != header.num_ands() {
        return Err(StreamError::Malformed(format!(
            "the header announces {} gates and {} ANDs, the body holds {gates} and {ands}",
            header.num_gates(),
            header.num_ands()
        ))
        .into());
    }
    Ok(ands)
}

/// The batch being filled.
struct Cutter {
    ops: Vec<Op>,
    ands: usize,
    batch_ands: usize,
    batches: u64,
}

impl Cutter {
    /// Adds `op`, handing the batch over first if `op` would overfill it.
    fn push(
        &mut self,
        op: Op,
        batch: &mut impl FnMut(&[Op]) -> Result<(), NpartyError>,
    ) -> Result<(), NpartyError> {
        let is_and = matches!(op, Op::And { .. });
        if (is_and && self.ands == self.batch_ands) || self.ops.len() == MAX_BATCH_OPS {
            batch(&self.ops)?;
            self.ops.clear();
            self.ands = 0;
            self.batches += 1;
        }
        self.ops.push(op);
        self.ands += usize::from(is_and);
        Ok(())
    }
}

/// Checks `chunk` against `header` and emits its ops in order; returns the chunk's gates
/// and ANDs.
fn read_chunk(
    chunk: &Chunk,
    header: &StreamHeader,
    mut emit: impl FnMut(Op) -> Result<(), NpartyError>,
) -> Result<(u64, u64), NpartyError> {
    let n = header.num_slots();
    let bad = |msg: String| -> NpartyError { StreamError::Malformed(msg).into() };
    if chunk.num_slots() != n {
        return Err(bad(format!(
            "a chunk is over {} slots, the header over {n}",
            chunk.num_slots()
        )));
    }
    let slot = |s: u32| {
        if s < n {
            Ok(s)
        } else {
            Err(bad(format!("slot {s} out of range (< {n})")))
        }
    };
    let all = chunk.gates();
    let (mut next, mut ands) = (0usize, 0u64);
    for run in chunk.runs() {
        let count = run.kind.gates_in(run.len);
        let gates = next
            .checked_add(count)
            .and_then(|end| all.get(next..end))
            .ok_or_else(|| bad(format!("a run of {count} gates overruns its chunk")))?;
        next += count;
        match run.kind {
            RunKind::Parallel => {}
            RunKind::Xor => {
                for g in gates {
                    emit(Op::Xor {
                        a: slot(g.a)?,
                        b: slot(g.b)?,
                        out: slot(g.out)?,
                    })?;
                }
            }
            RunKind::Const => {
                for g in gates {
                    if g.a > 1 {
                        return Err(bad(format!("constant {} is not a bit", g.a)));
                    }
                    emit(Op::Const {
                        value: g.a == 1,
                        out: slot(g.out)?,
                    })?;
                }
            }
            RunKind::And => {
                if gates.is_empty() || gates.len() > MAX_AND_RUN {
                    return Err(bad(format!("an AND run of {} gates", gates.len())));
                }
                for g in gates {
                    slot(g.a)?;
                    slot(g.b)?;
                    slot(g.out)?;
                }
                ands += gates.len() as u64;
                // Does an output land where a later gate of the run reads?
                let hazard = gates
                    .iter()
                    .enumerate()
                    .any(|(i, g)| gates[i + 1..].iter().any(|h| h.a == g.out || h.b == g.out));
                if hazard {
                    for (k, g) in gates.iter().enumerate() {
                        emit(Op::And {
                            a: g.a,
                            b: g.b,
                            out: n + k as u32,
                        })?;
                    }
                    for (k, g) in gates.iter().enumerate() {
                        emit(Op::Copy {
                            a: n + k as u32,
                            out: g.out,
                        })?;
                    }
                } else {
                    for g in gates {
                        emit(Op::And {
                            a: g.a,
                            b: g.b,
                            out: g.out,
                        })?;
                    }
                }
            }
        }
    }
    if next != all.len() {
        return Err(bad(format!(
            "the runs cover {next} gates, the chunk holds {}",
            all.len()
        )));
    }
    Ok((all.len() as u64, ands))
}

/// Runs `ops` on plaintext slots (the model the protocols are tested against).
#[cfg(test)]
pub(crate) fn eval_plain(ops: &[Op], slots: &mut [bool]) {
    for op in ops {
        match *op {
            Op::Xor { a, b, out } => slots[out as usize] = slots[a as usize] ^ slots[b as usize],
            Op::And { a, b, out } => slots[out as usize] = slots[a as usize] & slots[b as usize],
            Op::Const { value, out } => slots[out as usize] = value,
            Op::Copy { a, out } => slots[out as usize] = slots[a as usize],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mixgc_circuit::Circuit;
    use mixgc_compile::{compile, eval_stream_plain, NOT_SLOT};
    use mixgc_core::Rng;
    use rand::{Rng as _, SeedableRng};

    /// Every batch's ops, run in order on plaintext slots, give what the stream gives.
    #[test]
    fn batches_of_any_size_replay_the_stream() {
        let mut rng = Rng::seed_from_u64(1);
        for gates in [0, 1, 40, 400] {
            let c = Circuit::random(&mut rng, &[7, 9], gates, 10);
            let compiled = compile(&c);
            let bits: Vec<bool> = (0..16).map(|_| rng.gen()).collect();
            let want = eval_stream_plain(&mut compiled.stream(), &bits).unwrap();
            for batch_ands in [1, 3, 16, 1 << 20] {
                let h = compiled.header().clone();
                let mut slots = vec![false; slot_count(&h).unwrap()];
                slots[NOT_SLOT as usize] = true;
                for (&s, &b) in h.input_slots().iter().zip(&bits) {
                    slots[s as usize] = b;
                }
                let mut batches = 0;
                let ands = for_each_batch(&mut compiled.stream(), batch_ands, |ops| {
                    let in_batch = ops.iter().filter(|o| matches!(o, Op::And { .. })).count();
                    assert!(in_batch <= batch_ands);
                    batches += 1;
                    eval_plain(ops, &mut slots);
                    Ok(())
                })
                .unwrap();
                assert_eq!(ands, h.num_ands());
                assert!(batches >= ands.div_ceil(batch_ands as u64).max(1));
                let got: Vec<bool> = h.output_slots().iter().map(|&s| slots[s as usize]).collect();
                assert_eq!(got, want, "{gates} gates, batches of {batch_ands}");
            }
        }
    }

    #[test]
    fn an_and_run_that_overwrites_its_own_inputs_is_rewritten() {
        use mixgc_compile::{Gate, Run};
        // Three inputs, no gates: slots 0 (NOT) and 1..=3.
        let header = compile(&Circuit::random(&mut Rng::seed_from_u64(2), &[3], 0, 1))
            .header()
            .clone();
        assert_eq!(header.num_slots(), 4);
        // Two ANDs in one run: the first writes slot 2, which the second reads.
        let run = vec![Run {
            kind: RunKind::And,
            len: 2,
        }];
        let gates = vec![Gate { a: 1, b: 2, out: 2 }, Gate { a: 2, b: 1, out: 3 }];
        let chunk = Chunk::new(4, run.clone(), gates.clone()).unwrap();
        let mut slots = [true, true, false, false];
        let mut with_scratch = slots.to_vec();
        with_scratch.extend([false; MAX_AND_RUN]);
        chunk.eval_plain(&mut slots);
        let mut emitted = Vec::new();
        read_chunk(&chunk, &header, |op| {
            emitted.push(op);
            Ok(())
        })
        .unwrap();
        assert!(emitted.iter().any(|o| matches!(o, Op::Copy { .. })));
        eval_plain(&emitted, &mut with_scratch);
        assert_eq!(&with_scratch[..4], &slots);
        // A chunk over another slot count is refused.
        let other = Chunk::new(5, run, gates).unwrap();
        let e = read_chunk(&other, &header, |_| Ok(())).unwrap_err();
        assert!(e.to_string().contains("over 5 slots"), "{e}");
    }

    #[test]
    fn a_header_asking_for_too_many_slots_is_refused() {
        let huge = StreamHeader::new(vec![1], vec![1], MAX_SLOTS + 1, vec![1], vec![1]).unwrap();
        let e = slot_count(&huge).unwrap_err();
        assert!(e.to_string().contains("wire slots"), "{e}");
        let fine = StreamHeader::new(vec![1], vec![1], 2, vec![1], vec![1]).unwrap();
        assert_eq!(slot_count(&fine).unwrap(), 2 + MAX_AND_RUN);
    }
}
