use std::time::{Duration, Instant};

use mixgc_compile::CompiledCircuit;
use mixgc_core::{new_rng, AnyHash, Block};
use mixgc_garble::{Evaluator, BLOCKS_PER_AND};
use mixgc_net::{recv_frame, recv_frame_header, send_frame, Channel, NetError, Tag};
use mixgc_ot::OtReceiver;
use rand::RngCore;

use crate::bits::{pack, per_instance, split, unpack};
use crate::frames::MAX_TABLE_FRAME_BYTES;
use crate::handshake::{abort_on_bad_input, agree_on_circuit, hello, Role};
use crate::terms::check_batch;
use crate::{Outcome, SessionConfig, SessionError, Terms};

/// The evaluator's side of a connection: the OT-extension receiver and the evaluation core.
pub struct EvaluatorSession<C> {
    pub(crate) ch: C,
    pub(crate) ot: OtReceiver,
    pub(crate) core: Evaluator<AnyHash>,
    base_ot_time: Duration,
    tables: Vec<Block>,
}

impl<C: Channel> EvaluatorSession<C> {
    /// Says hello, agrees on the session id and runs the base OTs.
    pub fn setup(mut ch: C, cfg: &SessionConfig) -> Result<Self, SessionError> {
        let mut rng = new_rng(cfg.insecure_seed, 2);
        let mut nonce = [0u8; 32];
        rng.fill_bytes(&mut nonce);
        let agreed = hello(&mut ch, Role::Evaluator, cfg.hash, nonce)?;
        let start = Instant::now();
        let ot = OtReceiver::setup(&mut ch, &agreed.session_id, &mut rng)?;
        let base_ot_time = start.elapsed();
        let core = Evaluator::new(AnyHash::new(cfg.hash, agreed.hash_seed));
        Ok(EvaluatorSession {
            ch,
            ot,
            core,
            base_ot_time,
            tables: Vec::new(),
        })
    }

    /// Time spent in the base OTs during setup.
    pub fn base_ot_time(&self) -> Duration {
        self.base_ot_time
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
        let (_, mine) = terms.owners(widths).map_err(SessionError::Input)?;
        check_batch("evaluator", &mine, widths, batch).map_err(SessionError::Input)?;
        agree_on_circuit(&mut self.ch, circuit, terms, batch.len())?;

        // Our input labels for every instance by correlated OT.
        let my_bits: usize = mine.iter().map(|&v| widths[v] as usize).sum();
        let choices: Vec<bool> = batch.iter().flatten().flatten().copied().collect();
        let ot_labels = self.ot.receive_correlated(&mut self.ch, &choices)?;

        let mut outcomes = Vec::with_capacity(batch.len());
        let mut colours = Vec::new();
        for ot_labels in per_instance(&ot_labels, my_bits, batch.len()) {
            let first_and = self.core.ands_evaluated();
            self.evaluate_instance(circuit, &mine, ot_labels)?;
            let c: Vec<bool> = self.core.output_labels(circuit).iter().map(|l| l.lsb()).collect();
            let outputs = if terms.reveal.evaluator_learns() {
                let n = c.len();
                let d = recv_frame(&mut self.ch, Tag::OutputDecoding, n.div_ceil(8))?;
                let d = unpack(&d, n).ok_or_else(|| {
                    NetError::Protocol(format!("output decoding of wrong length for {n} bits"))
                })?;
                let bits: Vec<bool> = c.iter().zip(&d).map(|(c, d)| c ^ d).collect();
                Some(split(&bits, circuit.output_widths()))
            } else {
                None
            };
            colours.extend(c);
            outcomes.push(Outcome {
                outputs,
                ands: self.core.ands_evaluated() - first_and,
            });
        }
        // Colours go back only at the end, so the garbler never stops streaming to read them.
        if terms.reveal.garbler_learns() {
            send_frame(&mut self.ch, Tag::OutputColours, &pack(&colours))?;
            self.ch.flush()?;
        }
        Ok(outcomes)
    }

    /// Receives one instance's garbler labels and evaluates it frame by frame; each frame
    /// must hold whole AND groups.
    fn evaluate_instance(
        &mut self,
        circuit: &CompiledCircuit,
        mine: &[usize],
        ot_labels: &[Block],
    ) -> Result<(), SessionError> {
        let widths = circuit.input_widths();
        let their_bits = widths.iter().sum::<u32>() as usize - ot_labels.len();
        let expected = (their_bits + 2) * 16;
        let frame = recv_frame(&mut self.ch, Tag::GarblerLabels, expected)?;
        if frame.len() != expected {
            return Err(NetError::Protocol("garbler labels frame of wrong length".into()).into());
        }
        let mut garbler_labels = frame
            .chunks_exact(16)
            .map(|c| Block::from_bytes(c.try_into().unwrap()));
        let mut ot_labels = ot_labels.iter().copied();
        let mut labels = Vec::with_capacity(circuit.input_slots().len());
        for (v, &w) in widths.iter().enumerate() {
            let source: &mut dyn Iterator<Item = Block> = if mine.contains(&v) {
                &mut ot_labels
            } else {
                &mut garbler_labels
            };
            labels.extend(source.take(w as usize));
        }
        let consts = [garbler_labels.next().unwrap(), garbler_labels.next().unwrap()];

        self.core.start(circuit, &labels, consts);
        self.core.evaluate(circuit, &[]);
        while !self.core.is_done(circuit) {
            let len = recv_frame_header(&mut self.ch, Tag::Tables, MAX_TABLE_FRAME_BYTES)?;
            if len == 0 || len % (16 * BLOCKS_PER_AND) != 0 {
                return Err(
                    NetError::Protocol(format!("table frame of {len} bytes is not whole AND gates")).into(),
                );
            }
            self.tables.resize(len / 16, Block::ZERO);
            self.ch.recv(Block::slice_as_bytes_mut(&mut self.tables))?;
            if self.core.evaluate(circuit, &self.tables) != self.tables.len() {
                return Err(NetError::Protocol("table frame does not end at an AND group".into()).into());
            }
        }
        Ok(())
    }
}
