use std::time::{Duration, Instant};

use mixgc_arith::ArithEvaluator;
use mixgc_compile::{CompiledCircuit, GateStream, RunKind, StreamError, StreamHeader};
use mixgc_core::{new_rng, AnyHash, Block, HashKind, Reporter, Rng, Unit};
use mixgc_garble::{three_halves_group_bytes, Evaluator, Scheme, BLOCKS_PER_AND};
use mixgc_net::{send_frame, Channel, PeerMisbehaved, Tag};
use mixgc_ot::OtReceiver;
use rand::RngCore;

use crate::bits::{pack, per_instance, split, unpack};
use crate::handshake::{abort_on_bad_input, agree_on_circuit, recv_hello, send_hello};
use crate::pipe::{receive_all, stream_failed, EvaluatorPlan, Inbox};
use crate::terms::{bits_of, check_batch, phase, threads_failed};
use crate::{Outcome, PartyId, SessionConfig, SessionError, Terms};

/// The evaluator's side of a connection: the OT-extension receiver and the evaluation core.
pub struct EvaluatorSession<C> {
    pub(crate) ch: C,
    pub(crate) ot: OtReceiver,
    pub(crate) core: Evaluator<AnyHash>,
    base_ot_time: Duration,
    /// Receive through an I/O thread (see [`SessionConfig::io_thread`]).
    pub(crate) io_thread: bool,
    /// The gate hash and its per-session seed (kept for preprocessed garblings).
    pub(crate) hash: (HashKind, Block),
    pub(crate) rng: Rng,
    /// The arithmetic evaluator of CRT values in programs, created when the garbler's key
    /// arrives (the first CRT value of the session) and kept for the session.
    pub(crate) arith: Option<ArithEvaluator>,
    /// Garbler-private projections evaluated in the session (the garbler's counter).
    pub(crate) private_projections: u64,
    /// Where progress goes (see [`SessionConfig::progress`]).
    pub(crate) progress: Reporter,
}

impl<C: Channel> EvaluatorSession<C> {
    /// Says hello, agrees on the session id and runs the base OTs.
    pub fn setup(mut ch: C, cfg: &SessionConfig) -> Result<Self, SessionError> {
        let threads = cfg.checked_threads()?;
        let mut rng = new_rng(cfg.insecure_seed, 2);
        let mut nonce = [0u8; 32];
        rng.fill_bytes(&mut nonce);
        let sent = send_hello(
            &mut ch,
            PartyId::EVALUATOR,
            cfg.hash,
            cfg.garbling,
            cfg.command,
            nonce,
        )?;
        // The base-OT sender's S needs neither the session id nor the peer: it travels with
        // the hello, saving the round trip it would take after it (same bytes, same order).
        let start = Instant::now();
        let ot_start = OtReceiver::start(&mut rng);
        ch.send(ot_start.message())?;
        ch.flush()?;
        let prepared = start.elapsed();
        let agreed = recv_hello(&mut ch, &sent)?;
        let start = Instant::now();
        let ot = phase(&cfg.progress, "base OT", None, Unit::Time, || {
            ot_start.finish(&mut ch, &agreed.session_id)
        })?;
        let base_ot_time = prepared + start.elapsed();
        let mut core = Evaluator::with_scheme(AnyHash::new(cfg.hash, agreed.hash_seed), cfg.garbling, 0);
        core.set_threads(threads)
            .map_err(|e| threads_failed(threads, e))?;
        Ok(EvaluatorSession {
            ch,
            ot,
            core,
            base_ot_time,
            io_thread: cfg.io_thread,
            hash: (cfg.hash, agreed.hash_seed),
            rng,
            arith: None,
            private_projections: 0,
            progress: cfg.progress.clone(),
        })
    }

    /// Time spent in the base OTs during setup.
    pub fn base_ot_time(&self) -> Duration {
        self.base_ot_time
    }

    /// Threads that run the parallel blocks of a stream (`SessionConfig::threads`).
    pub fn threads(&self) -> usize {
        self.core.threads()
    }

    pub fn channel(&self) -> &C {
        &self.ch
    }

    /// Evaluates `circuit` once with the evaluator's `inputs` (one bit vector per value it
    /// owns, least significant bit first), streaming tables from the garbler.
    pub fn execute(
        &mut self,
        circuit: &CompiledCircuit,
        terms: &Terms,
        inputs: &[Vec<bool>],
    ) -> Result<Outcome, SessionError> {
        let mut all = self.execute_batch(circuit, terms, std::slice::from_ref(&inputs.to_vec()))?;
        Ok(all.pop().expect("one instance"))
    }

    /// The evaluator's half of [`crate::GarblerSession::execute_batch`]. The labels of all
    /// its input bits (16 bytes each) are held for the whole batch.
    pub fn execute_batch(
        &mut self,
        circuit: &CompiledCircuit,
        terms: &Terms,
        batch: &[Vec<Vec<bool>>],
    ) -> Result<Vec<Outcome>, SessionError> {
        self.execute_stream(&mut circuit.stream(), terms, batch)
    }

    /// [`EvaluatorSession::execute_batch`] on any [`GateStream`] (see
    /// [`crate::GarblerSession::execute_stream`]).
    pub fn execute_stream(
        &mut self,
        circuit: &mut dyn GateStream,
        terms: &Terms,
        batch: &[Vec<Vec<bool>>],
    ) -> Result<Vec<Outcome>, SessionError> {
        let result = self.execute_inner(circuit, terms, batch);
        abort_on_bad_input(&mut self.ch, result)
    }

    fn execute_inner(
        &mut self,
        circuit: &mut dyn GateStream,
        terms: &Terms,
        batch: &[Vec<Vec<bool>>],
    ) -> Result<Vec<Outcome>, SessionError> {
        let header = circuit.header().clone();
        let widths = header.input_widths();
        let (_, mine) = terms.owners(widths).map_err(SessionError::Input)?;
        check_batch("evaluator", &mine, widths, batch).map_err(SessionError::Input)?;
        agree_on_circuit(&mut self.ch, &header, terms, batch.len())?;

        // Our input labels for every instance by correlated OT.
        let my_bits = bits_of(&mine, widths);
        let choices: Vec<bool> = batch.iter().flatten().flatten().copied().collect();
        let ot_labels = self.ot.receive_correlated(&mut self.ch, &choices)?;

        let outputs = header.output_slots().len();
        let plan = EvaluatorPlan {
            instances: batch.len(),
            labels_bytes: (header.input_slots().len() - my_bits + 2) * 16,
            table_bytes: table_bytes(self.core.scheme(), circuit, &header)?,
            decoding_bytes: terms
                .reveal
                .contains(PartyId::EVALUATOR)
                .then_some(outputs.div_ceil(8)),
        };
        let mut consumer = Consumer {
            core: &mut self.core,
            circuit,
            header: &header,
            mine: &mine,
            plan,
            progress: &self.progress,
        };
        let decoding_bytes = plan.decoding_bytes;
        let evaluate_all = |inbox: &mut dyn Inbox| {
            let mut results = Vec::with_capacity(batch.len());
            for ot_labels in per_instance(&ot_labels, my_bits, batch.len()) {
                let first_and = consumer.core.ands_evaluated();
                consumer.instance(ot_labels, inbox)?;
                let c: Vec<bool> = consumer
                    .core
                    .output_labels(&header)
                    .iter()
                    .map(|l| l.lsb())
                    .collect();
                let outputs = match decoding_bytes {
                    Some(len) => {
                        let frame = inbox.recv(Tag::OutputDecoding, len)?;
                        let d = unpack(&frame, c.len()).ok_or(PeerMisbehaved::WrongLength {
                            tag: Tag::OutputDecoding,
                            len: frame.len(),
                            expected: c.len().div_ceil(8),
                        })?;
                        let bits: Vec<bool> = c.iter().zip(&d).map(|(c, d)| c ^ d).collect();
                        Some(split(&bits, header.output_widths()))
                    }
                    None => None,
                };
                let ands = consumer.core.ands_evaluated() - first_and;
                results.push((c, Outcome { outputs, ands }));
            }
            Ok(results)
        };
        let total = header.num_ands() * batch.len() as u64;
        let results = phase(&self.progress, "evaluating", Some(total), Unit::Ands, || {
            receive_all(&mut self.ch, self.io_thread, plan, evaluate_all)
        })?;

        // Colours go back only at the end, so the garbler never stops streaming to read them.
        if terms.reveal.contains(PartyId::GARBLER) {
            let colours: Vec<bool> = results.iter().flat_map(|(c, _)| c.iter().copied()).collect();
            send_frame(&mut self.ch, Tag::OutputColours, &pack(&colours))?;
            self.ch.flush()?;
        }
        Ok(results.into_iter().map(|(_, o)| o).collect())
    }
}

/// Evaluates the instances of one batch from the frames of an [`Inbox`].
pub(crate) struct Consumer<'a> {
    pub(crate) core: &'a mut Evaluator<AnyHash>,
    pub(crate) circuit: &'a mut dyn GateStream,
    pub(crate) header: &'a StreamHeader,
    pub(crate) mine: &'a [usize],
    pub(crate) plan: EvaluatorPlan,
    /// Told the ANDs evaluated after each call into the core (a frame or a chunk at a time).
    pub(crate) progress: &'a Reporter,
}

impl Consumer<'_> {
    /// Receives one instance's garbler labels, then evaluates it chunk by chunk as table
    /// frames arrive (a frame may end inside an AND group; the rest waits for the next).
    pub(crate) fn instance(
        &mut self,
        ot_labels: &[Block],
        inbox: &mut dyn Inbox,
    ) -> Result<(), SessionError> {
        let frame = inbox.recv(Tag::GarblerLabels, self.plan.labels_bytes)?;
        let mut garbler_labels = frame
            .chunks_exact(16)
            .map(|c| Block::from_bytes(c.try_into().unwrap()));
        let mut ot_labels = ot_labels.iter().copied();
        let mut labels = Vec::with_capacity(self.header.input_slots().len());
        for (v, &w) in self.header.input_widths().iter().enumerate() {
            let source: &mut dyn Iterator<Item = Block> = if self.mine.contains(&v) {
                &mut ot_labels
            } else {
                &mut garbler_labels
            };
            labels.extend(source.take(w as usize));
        }
        let consts = [garbler_labels.next().unwrap(), garbler_labels.next().unwrap()];
        let table_bytes = self.plan.table_bytes;
        self.evaluate(&labels, consts, table_bytes, inbox)
    }

    /// Evaluates the stream once from the given active labels of the input bits and the
    /// constants, as table frames of `table_bytes` in all arrive.
    pub(crate) fn evaluate(
        &mut self,
        labels: &[Block],
        consts: [Block; 2],
        table_bytes: usize,
        inbox: &mut dyn Inbox,
    ) -> Result<(), SessionError> {
        let mut feed = TableFeed::new(table_bytes);
        self.evaluate_from(labels, consts, &mut feed, inbox)?;
        feed.finish()?;
        // The last frame's buffer serves the next instance's first frame.
        inbox.recycle(std::mem::take(&mut feed.blocks));
        Ok(())
    }

    /// Evaluates the stream once, taking its tables from `feed` (rows left over from an
    /// earlier evaluation first, then frames from `inbox` while `feed` has bytes left), so
    /// several evaluations may share frames; rows past this evaluation's stay in `feed`.
    pub(crate) fn evaluate_from(
        &mut self,
        labels: &[Block],
        consts: [Block; 2],
        feed: &mut TableFeed,
        inbox: &mut dyn Inbox,
    ) -> Result<(), SessionError> {
        self.core.start(self.header, labels, consts);
        let three_halves = self.core.scheme() == Scheme::ThreeHalves;
        self.circuit.rewind().map_err(stream_failed)?;
        while let Some(chunk) = self.circuit.next_chunk().map_err(stream_failed)? {
            loop {
                let before = self.core.ands_evaluated();
                let done = if three_halves {
                    let (used, done) = self.core.evaluate_bytes(chunk, &feed.bytes[feed.at..]);
                    feed.at += used;
                    done
                } else {
                    let (used, done) = self.core.evaluate(chunk, &feed.blocks[feed.at..]);
                    feed.at += used;
                    done
                };
                self.progress.advance(self.core.ands_evaluated() - before);
                if done {
                    break;
                }
                feed.refill(inbox, three_halves)?;
            }
        }
        Ok(())
    }
}

/// Table rows on their way from the frames to the evaluation core: the rows received and
/// not yet used (from `at`), and the bytes still to come.
pub(crate) struct TableFeed {
    left: usize,
    blocks: Vec<Block>,
    bytes: Vec<u8>,
    at: usize,
}

impl TableFeed {
    /// A feed of `table_bytes` bytes in all.
    pub(crate) fn new(table_bytes: usize) -> TableFeed {
        TableFeed {
            left: table_bytes,
            blocks: Vec::new(),
            bytes: Vec::new(),
            at: 0,
        }
    }

    /// Appends the next table frame (the rows not yet used move to the front first).
    fn refill(&mut self, inbox: &mut dyn Inbox, three_halves: bool) -> Result<(), SessionError> {
        if self.left == 0 {
            return Err(stream_failed(StreamError::Malformed(
                "the stream has more AND gates than its header says".into(),
            )));
        }
        let tables = inbox.recv_tables(self.left)?;
        let bytes = (tables.len() * 16).min(self.left);
        self.left -= bytes;
        if three_halves {
            self.bytes.drain(..self.at);
            self.bytes
                .extend_from_slice(&Block::slice_as_bytes(&tables)[..bytes]);
            inbox.recycle(tables);
        } else if self.at == self.blocks.len() {
            let spent = std::mem::replace(&mut self.blocks, tables);
            if spent.capacity() > 0 {
                inbox.recycle(spent);
            }
        } else {
            self.blocks.drain(..self.at);
            self.blocks.extend_from_slice(&tables);
            inbox.recycle(tables);
        }
        self.at = 0;
        Ok(())
    }

    /// Checks that every byte arrived and every row was used.
    pub(crate) fn finish(&self) -> Result<(), SessionError> {
        let unused = if self.bytes.is_empty() {
            self.blocks.len() - self.at
        } else {
            self.bytes.len() - self.at
        };
        if self.left != 0 || unused != 0 {
            return Err(stream_failed(StreamError::Malformed(
                "the stream has fewer AND gates than its header says".into(),
            )));
        }
        Ok(())
    }
}

/// Table bytes of one instance of `circuit` under `scheme`. Three-halves garbles each AND
/// run as one group, so this reads the stream's runs once.
pub(crate) fn table_bytes(
    scheme: Scheme,
    circuit: &mut dyn GateStream,
    header: &StreamHeader,
) -> Result<usize, SessionError> {
    if scheme == Scheme::HalfGates {
        return Ok(header.num_ands() as usize * BLOCKS_PER_AND * 16);
    }
    let mut bytes = 0;
    circuit.rewind().map_err(stream_failed)?;
    while let Some(chunk) = circuit.next_chunk().map_err(stream_failed)? {
        bytes += chunk
            .runs()
            .iter()
            .filter(|r| r.kind == RunKind::And)
            .map(|r| three_halves_group_bytes(r.len as usize))
            .sum::<usize>();
    }
    Ok(bytes)
}
