use std::time::{Duration, Instant};

use mixgc_compile::CompiledCircuit;
use mixgc_core::{new_rng, AnyHash, Block, Rng};
use mixgc_garble::Garbler;
use mixgc_net::{recv_frame, send_frame, Channel, NetError, Tag};
use mixgc_ot::OtSender;
use rand::RngCore;

use crate::bits::{pack, per_instance, split, unpack};
use crate::frames::{FrameSchedule, FIRST_FRAME_BYTES, MAX_TABLE_FRAME_BYTES};
use crate::handshake::{abort_on_bad_input, agree_on_circuit, hello, Role};
use crate::terms::check_batch;
use crate::{Outcome, SessionConfig, SessionError, Terms};

/// The garbler's side of a connection: Δ, the OT-extension sender and the garbling core.
pub struct GarblerSession<C> {
    pub(crate) ch: C,
    pub(crate) rng: Rng,
    pub(crate) ot: OtSender,
    pub(crate) core: Garbler<AnyHash>,
    base_ot_time: Duration,
    tables: Vec<Block>,
    /// Target size of table frames (see [`SessionConfig::batch_bytes`]).
    pub(crate) batch_bytes: usize,
}

impl<C: Channel> GarblerSession<C> {
    /// Says hello, agrees on the session id and runs the base OTs.
    pub fn setup(mut ch: C, cfg: &SessionConfig) -> Result<Self, SessionError> {
        if !(FIRST_FRAME_BYTES..=MAX_TABLE_FRAME_BYTES).contains(&cfg.batch_bytes) {
            return Err(SessionError::Input(format!(
                "the batch size must be between {FIRST_FRAME_BYTES} and {MAX_TABLE_FRAME_BYTES} bytes, got {}",
                cfg.batch_bytes
            )));
        }
        let mut rng = new_rng(cfg.insecure_seed, 1);
        let mut nonce = [0u8; 32];
        rng.fill_bytes(&mut nonce);
        let agreed = hello(&mut ch, Role::Garbler, cfg.hash, nonce)?;
        let start = Instant::now();
        let ot = OtSender::setup(&mut ch, &agreed.session_id, &mut rng)?;
        let base_ot_time = start.elapsed();
        let delta = Block::random(&mut rng).with_lsb_set();
        let core = Garbler::new(AnyHash::new(cfg.hash, agreed.hash_seed), delta);
        let tables = Vec::new();
        Ok(GarblerSession {
            ch,
            rng,
            ot,
            core,
            base_ot_time,
            tables,
            batch_bytes: cfg.batch_bytes,
        })
    }

    /// Time spent in the base OTs during setup.
    pub fn base_ot_time(&self) -> Duration {
        self.base_ot_time
    }

    pub fn channel(&self) -> &C {
        &self.ch
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
        let result = self.execute_inner(circuit, terms, batch);
        abort_on_bad_input(&mut self.ch, result)
    }

    fn execute_inner(
        &mut self,
        circuit: &CompiledCircuit,
        terms: &Terms,
        batch: &[Vec<Vec<bool>>],
    ) -> Result<Vec<Outcome>, SessionError> {
        let widths = circuit.input_widths();
        let (mine, theirs) = terms.owners(widths).map_err(SessionError::Input)?;
        check_batch("garbler", &mine, widths, batch).map_err(SessionError::Input)?;
        agree_on_circuit(&mut self.ch, circuit, terms, batch.len())?;

        // Zero-labels of the evaluator's input bits for every instance, by correlated OT.
        let delta = self.core.delta();
        let their_bits: usize = theirs.iter().map(|&v| widths[v] as usize).sum();
        let ot_labels = self
            .ot
            .send_correlated(&mut self.ch, delta, their_bits * batch.len())?;

        let mut frames = FrameSchedule::new(self.batch_bytes);
        let mut decodings = Vec::with_capacity(batch.len());
        let mut outcomes = Vec::with_capacity(batch.len());
        for (inputs, ot_labels) in batch
            .iter()
            .zip(per_instance(&ot_labels, their_bits, batch.len()))
        {
            let first_and = self.core.ands_garbled();
            self.garble_instance(circuit, &mine, inputs, ot_labels, &mut frames)?;
            // Output decoding: d = lsb(zero-label); value = lsb(active label) ⊕ d.
            let decoding: Vec<bool> = self
                .core
                .output_zero_labels(circuit)
                .iter()
                .map(|l| l.lsb())
                .collect();
            if terms.reveal.evaluator_learns() {
                send_frame(&mut self.ch, Tag::OutputDecoding, &pack(&decoding))?;
            }
            decodings.push(decoding);
            outcomes.push(Outcome {
                outputs: None,
                ands: self.core.ands_garbled() - first_and,
            });
        }
        self.ch.flush()?;

        if terms.reveal.garbler_learns() {
            let n = decodings.iter().map(Vec::len).sum::<usize>();
            let colours = recv_frame(&mut self.ch, Tag::OutputColours, n.div_ceil(8))?;
            let colours = unpack(&colours, n)
                .ok_or_else(|| NetError::Protocol(format!("output colours of wrong length for {n} bits")))?;
            let per = per_instance(&colours, n / batch.len(), batch.len());
            for ((outcome, decoding), c) in outcomes.iter_mut().zip(&decodings).zip(per) {
                let bits: Vec<bool> = c.iter().zip(decoding).map(|(c, d)| c ^ d).collect();
                outcome.outputs = Some(split(&bits, circuit.output_widths()));
            }
        }
        Ok(outcomes)
    }

    /// Sends one instance's garbler input labels (and the constants' labels), then streams
    /// its garbled tables in frames of whole AND groups, sized by `frames`.
    fn garble_instance(
        &mut self,
        circuit: &CompiledCircuit,
        mine: &[usize],
        inputs: &[Vec<bool>],
        ot_labels: &[Block],
        frames: &mut FrameSchedule,
    ) -> Result<(), SessionError> {
        let delta = self.core.delta();
        let mut ot_labels = ot_labels.iter().copied();
        let mut zero_labels = Vec::with_capacity(circuit.input_slots().len());
        let mut active = Vec::new();
        let mut my_values = inputs.iter();
        for (v, &w) in circuit.input_widths().iter().enumerate() {
            if mine.contains(&v) {
                for &bit in my_values.next().expect("checked") {
                    let w0 = Block::random(&mut self.rng);
                    zero_labels.push(w0);
                    active.push(w0 ^ delta.and_bit(bit));
                }
            } else {
                zero_labels.extend(ot_labels.by_ref().take(w as usize));
            }
        }
        let consts = [Block::random(&mut self.rng), Block::random(&mut self.rng)];
        active.extend([consts[0], consts[1] ^ delta]);
        send_frame(&mut self.ch, Tag::GarblerLabels, Block::slice_as_bytes(&active))?;

        self.core.start(circuit, &zero_labels, consts);
        loop {
            self.tables.clear();
            let done = self.core.garble(circuit, &mut self.tables, frames.request());
            if !self.tables.is_empty() {
                send_frame(&mut self.ch, Tag::Tables, Block::slice_as_bytes(&self.tables))?;
                frames.advance();
            }
            if done {
                return Ok(());
            }
        }
    }
}
