use std::time::{Duration, Instant};

use mixgc_arith::ArithGarbler;
use mixgc_compile::{CompiledCircuit, GateStream, StreamError, StreamHeader};
use mixgc_core::{new_rng, AnyHash, Block, Reporter, Rng, Unit};
use mixgc_garble::{Garbler, Scheme};
use mixgc_net::{recv_frame, Channel, PeerMisbehaved, Tag};
use mixgc_ot::OtSender;
use rand::RngCore;

use crate::bits::{pack, per_instance, split, unpack};
use crate::frames::{FIRST_FRAME_BYTES, MAX_TABLE_FRAME_BYTES};
use crate::handshake::{abort_on_bad_input, agree_on_circuit, recv_hello, send_hello};
use crate::outlet::{Outbox, Outlet};
use crate::pipe::stream_failed;
use crate::rows::RowWriter;
use crate::terms::{bits_of, check_batch, phase, threads_failed};
use crate::{Outcome, PartyId, SessionConfig, SessionError, Terms};

/// The garbler's side of a connection: Δ, the OT-extension sender and the garbling core.
pub struct GarblerSession<C> {
    /// The channel, behind the garbler's one route to it (and its I/O thread).
    pub(crate) ch: Outlet<C>,
    pub(crate) rng: Rng,
    pub(crate) ot: OtSender,
    pub(crate) core: Garbler<AnyHash>,
    base_ot_time: Duration,
    /// Target size of table frames (see [`SessionConfig::batch_bytes`]).
    pub(crate) batch_bytes: usize,
    /// The arithmetic garbler of CRT values in programs: one per session, created on first
    /// use and never restarted, so its gate index (and tweaks) never repeat.
    pub(crate) arith: Option<ArithGarbler>,
    /// Garbler-private projections garbled in the session (their tweaks' counter: one per
    /// session, never restarted).
    pub(crate) private_projections: u64,
    /// Where progress goes (see [`SessionConfig::progress`]).
    pub(crate) progress: Reporter,
}

impl<C: Channel + 'static> GarblerSession<C> {
    /// Says hello, agrees on the session id and runs the base OTs.
    pub fn setup(mut ch: C, cfg: &SessionConfig) -> Result<Self, SessionError> {
        if !(FIRST_FRAME_BYTES..=MAX_TABLE_FRAME_BYTES).contains(&cfg.batch_bytes) {
            return Err(SessionError::Input(format!(
                "the batch size must be between {FIRST_FRAME_BYTES} and {MAX_TABLE_FRAME_BYTES} bytes, got {}",
                cfg.batch_bytes
            )));
        }
        let threads = cfg.checked_threads()?;
        let mut rng = new_rng(cfg.insecure_seed, 1);
        let mut nonce = [0u8; 32];
        rng.fill_bytes(&mut nonce);
        let sent = send_hello(
            &mut ch,
            PartyId::GARBLER,
            cfg.hash,
            cfg.garbling,
            cfg.command,
            nonce,
        )?;
        ch.flush()?;
        // The base OTs' fixed-base work needs nothing from the peer: done while its hello
        // (and the S that comes with it) is on the way.
        let start = Instant::now();
        let ot_start = OtSender::start(&mut rng);
        let prepared = start.elapsed();
        let agreed = recv_hello(&mut ch, &sent)?;
        let start = Instant::now();
        let ot = phase(&cfg.progress, "base OT", None, Unit::Time, || {
            ot_start.finish(&mut ch, &agreed.session_id)
        })?;
        let base_ot_time = prepared + start.elapsed();
        let delta = Block::random(&mut rng).with_lsb_set();
        let hash = AnyHash::new(cfg.hash, agreed.hash_seed);
        let mut core = match cfg.garbling {
            Scheme::HalfGates => Garbler::new(hash, delta),
            Scheme::ThreeHalves => Garbler::three_halves(hash, delta, Block::random(&mut rng)),
        };
        core.set_threads(threads)
            .map_err(|e| threads_failed(threads, e))?;
        Ok(GarblerSession {
            ch: Outlet::new(ch, cfg.io_thread),
            rng,
            ot,
            core,
            base_ot_time,
            batch_bytes: cfg.batch_bytes,
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
        self.ch.get_ref()
    }

    /// Garbles `circuit` once with the garbler's `inputs` (one bit vector per value it
    /// owns, least significant bit first) and streams it to the evaluator.
    pub fn execute(
        &mut self,
        circuit: &CompiledCircuit,
        terms: &Terms,
        inputs: &[Vec<bool>],
    ) -> Result<Outcome, SessionError> {
        let mut all = self.execute_batch(circuit, terms, std::slice::from_ref(&inputs.to_vec()))?;
        Ok(all.pop().expect("one instance"))
    }

    /// Runs `circuit` on every input set of `batch`, back to back in one stream: one header,
    /// one OT extension for all the evaluator's input bits, then each instance's labels and
    /// tables, with outputs revealed at the end. Nobody waits on a round trip between
    /// instances, so garbling, transfer and evaluation overlap.
    pub fn execute_batch(
        &mut self,
        circuit: &CompiledCircuit,
        terms: &Terms,
        batch: &[Vec<Vec<bool>>],
    ) -> Result<Vec<Outcome>, SessionError> {
        self.execute_stream(&mut circuit.stream(), terms, batch)
    }

    /// [`GarblerSession::execute_batch`] on any [`GateStream`], e.g. a compiled stream read
    /// from disk chunk by chunk: memory holds one chunk, never the whole circuit.
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
        let (mine, theirs) = terms.owners(widths).map_err(SessionError::Input)?;
        check_batch("garbler", &mine, widths, batch).map_err(SessionError::Input)?;
        agree_on_circuit(&mut self.ch, &header, terms, batch.len())?;

        // Zero-labels of the evaluator's input bits for every instance, by correlated OT.
        let delta = self.core.delta();
        let their_bits = bits_of(&theirs, widths);
        let ot_labels = self
            .ot
            .send_correlated(&mut self.ch, delta, their_bits * batch.len())?;

        let mut producer = Producer {
            core: &mut self.core,
            rng: &mut self.rng,
            circuit,
            header: &header,
            mine: &mine,
            rows: RowWriter::new(self.batch_bytes),
            progress: &self.progress,
        };
        let mut stream_all = |out: &mut dyn Outbox| {
            let mut decodings = Vec::with_capacity(batch.len());
            for (inputs, ot_labels) in batch
                .iter()
                .zip(per_instance(&ot_labels, their_bits, batch.len()))
            {
                let first_and = producer.core.ands_garbled();
                let decoding = producer.instance(inputs, ot_labels, out)?;
                if terms.reveal.contains(PartyId::EVALUATOR) {
                    out.push_frame(Tag::OutputDecoding, pack(&decoding))?;
                }
                decodings.push((decoding, producer.core.ands_garbled() - first_and));
            }
            Ok::<_, SessionError>(decodings)
        };
        let total = header.num_ands() * batch.len() as u64;
        let decodings = phase(&self.progress, "garbling", Some(total), Unit::Ands, || {
            self.ch.bundle_until_read(); // the producer releases before each instance
            let decodings = stream_all(&mut self.ch)?;
            self.ch.flush()?;
            Ok::<_, SessionError>(decodings)
        })?;

        let mut outcomes: Vec<Outcome> = decodings
            .iter()
            .map(|(_, ands)| Outcome {
                outputs: None,
                ands: *ands,
            })
            .collect();
        if terms.reveal.contains(PartyId::GARBLER) {
            let n = decodings.iter().map(|(d, _)| d.len()).sum::<usize>();
            let colours = recv_frame(&mut self.ch, Tag::OutputColours, n.div_ceil(8))?;
            let colours = unpack(&colours, n).ok_or(PeerMisbehaved::WrongLength {
                tag: Tag::OutputColours,
                len: colours.len(),
                expected: n.div_ceil(8),
            })?;
            let per = per_instance(&colours, n / batch.len(), batch.len());
            for ((outcome, (decoding, _)), c) in outcomes.iter_mut().zip(&decodings).zip(per) {
                let bits: Vec<bool> = c.iter().zip(decoding).map(|(c, d)| c ^ d).collect();
                outcome.outputs = Some(split(&bits, header.output_widths()));
            }
        }
        Ok(outcomes)
    }
}

/// Garbles the instances of one batch and cuts their tables into frames.
pub(crate) struct Producer<'a> {
    pub(crate) core: &'a mut Garbler<AnyHash>,
    pub(crate) rng: &'a mut Rng,
    pub(crate) circuit: &'a mut dyn GateStream,
    pub(crate) header: &'a StreamHeader,
    pub(crate) mine: &'a [usize],
    pub(crate) rows: RowWriter,
    /// Told the ANDs garbled after each call into the core (a frame or a chunk at a time).
    pub(crate) progress: &'a Reporter,
}

impl Producer<'_> {
    /// Sends one instance's garbler input labels (and the constants' labels), then garbles
    /// it ([`Producer::garble`]). Returns the output decoding bits.
    fn instance(
        &mut self,
        inputs: &[Vec<bool>],
        ot_labels: &[Block],
        out: &mut dyn Outbox,
    ) -> Result<Vec<bool>, SessionError> {
        let delta = self.core.delta();
        let mut ot_labels = ot_labels.iter().copied();
        let mut zero_labels = Vec::with_capacity(self.header.input_slots().len());
        let mut active = Vec::new();
        let mut my_values = inputs.iter();
        for (v, &w) in self.header.input_widths().iter().enumerate() {
            if self.mine.contains(&v) {
                for &bit in my_values.next().expect("checked") {
                    let w0 = Block::random(self.rng);
                    zero_labels.push(w0);
                    active.push(w0 ^ delta.and_bit(bit));
                }
            } else {
                zero_labels.extend(ot_labels.by_ref().take(w as usize));
            }
        }
        let consts = [Block::random(self.rng), Block::random(self.rng)];
        active.extend([consts[0], consts[1] ^ delta]);
        out.push_frame(Tag::GarblerLabels, Block::slice_as_bytes(&active).to_vec())?;
        out.release()?;
        self.garble(&zero_labels, consts, out)
    }

    /// Garbles the stream once with the given zero-labels of the input bits and constants,
    /// its rows going out on the table stream ([`RowWriter`]: frames of the schedule's
    /// sizes, the last frame of an instance holding what is left), chunk after chunk.
    /// Returns the output decoding bits.
    pub(crate) fn garble(
        &mut self,
        zero_labels: &[Block],
        consts: [Block; 2],
        out: &mut dyn Outbox,
    ) -> Result<Vec<bool>, SessionError> {
        self.garble_open(zero_labels, consts, out)?;
        self.rows.flush(out)?;
        Ok(self
            .core
            .output_zero_labels(self.header)
            .iter()
            .map(|l| l.lsb())
            .collect())
    }

    /// [`Producer::garble`] without cutting the last frame: the rows left over stay in the
    /// writer, so the next garbling's rows continue the same frame (the cycles of a
    /// sequential run share frames). The output labels are the core's
    /// ([`Garbler::output_zero_labels`]).
    pub(crate) fn garble_open(
        &mut self,
        zero_labels: &[Block],
        consts: [Block; 2],
        out: &mut dyn Outbox,
    ) -> Result<(), SessionError> {
        self.core.start(self.header, zero_labels, consts);
        let mut left = self.header.num_ands();
        let three_halves = self.core.scheme() == Scheme::ThreeHalves;
        self.circuit.rewind().map_err(stream_failed)?;
        while let Some(chunk) = self.circuit.next_chunk().map_err(stream_failed)? {
            loop {
                let before = self.core.ands_garbled();
                let core = &mut *self.core;
                let done = if three_halves {
                    let wanted = self.rows.room() * 16;
                    self.rows
                        .append_bytes(|rows| core.garble_bytes(chunk, rows, wanted))
                } else {
                    let wanted = self.rows.room().min(left as usize * mixgc_garble::BLOCKS_PER_AND);
                    self.rows.append_blocks(|rows| core.garble(chunk, rows, wanted))
                };
                let ands = self.core.ands_garbled() - before;
                self.progress.advance(ands);
                left = left.checked_sub(ands).ok_or_else(|| {
                    stream_failed(StreamError::Malformed(
                        "the stream has more AND gates than its header says".into(),
                    ))
                })?;
                self.rows.send_full(out)?;
                if done {
                    break;
                }
            }
        }
        if left != 0 {
            return Err(stream_failed(StreamError::Malformed(
                "the stream's AND gates do not match its header".into(),
            )));
        }
        Ok(())
    }
}
