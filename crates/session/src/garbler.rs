use std::time::{Duration, Instant};

use mixgc_compile::CompiledCircuit;
use mixgc_core::{new_rng, AnyHash, Block, Rng};
use mixgc_garble::Garbler;
use mixgc_net::{recv_frame, send_frame, Channel, Tag};
use mixgc_ot::OtSender;
use rand::RngCore;

use crate::bits::{pack, split, unpack};
use crate::handshake::{abort, agree_on_circuit, hello, Role};
use crate::terms::check_inputs;
use crate::{Outcome, SessionConfig, SessionError, Terms, TABLE_FRAME_BLOCKS};

/// The garbler's side of a connection: Δ, the OT-extension sender and the garbling core.
pub struct GarblerSession<C> {
    ch: C,
    rng: Rng,
    ot: OtSender,
    core: Garbler<AnyHash>,
    base_ot_time: Duration,
    tables: Vec<Block>,
}

impl<C: Channel> GarblerSession<C> {
    /// Says hello, agrees on the session id and runs the base OTs.
    pub fn setup(mut ch: C, cfg: &SessionConfig) -> Result<Self, SessionError> {
        let mut rng = new_rng(cfg.insecure_seed, 1);
        let mut nonce = [0u8; 32];
        rng.fill_bytes(&mut nonce);
        let agreed = hello(&mut ch, Role::Garbler, cfg.hash, nonce)?;
        let start = Instant::now();
        let ot = OtSender::setup(&mut ch, &agreed.session_id, &mut rng)?;
        let base_ot_time = start.elapsed();
        let delta = Block::random(&mut rng).with_lsb_set();
        let core = Garbler::new(AnyHash::new(cfg.hash, agreed.hash_seed), delta);
        Ok(GarblerSession {
            ch,
            rng,
            ot,
            core,
            base_ot_time,
            tables: Vec::with_capacity(TABLE_FRAME_BLOCKS),
        })
    }

    /// Time spent in the base OTs during setup.
    pub fn base_ot_time(&self) -> Duration {
        self.base_ot_time
    }

    pub fn channel(&self) -> &C {
        &self.ch
    }

    /// Garbles `circuit` with the garbler's `inputs` (one bit vector per value it owns,
    /// least significant bit first) and streams it to the evaluator.
    pub fn execute(
        &mut self,
        circuit: &CompiledCircuit,
        terms: &Terms,
        inputs: &[Vec<bool>],
    ) -> Result<Outcome, SessionError> {
        let result = self.execute_inner(circuit, terms, inputs);
        if let Err(e @ SessionError::Input(_)) = &result {
            abort(&mut self.ch, e);
        }
        result
    }

    fn execute_inner(
        &mut self,
        circuit: &CompiledCircuit,
        terms: &Terms,
        inputs: &[Vec<bool>],
    ) -> Result<Outcome, SessionError> {
        let (mine, theirs) = terms
            .owners(circuit.input_widths())
            .map_err(SessionError::Input)?;
        check_inputs("garbler", &mine, circuit.input_widths(), inputs)
            .map_err(SessionError::Input)?;
        agree_on_circuit(&mut self.ch, circuit, terms)?;

        // Zero-labels of every input bit: the evaluator's from correlated OT, ours fresh.
        let delta = self.core.delta();
        let their_bits: usize = theirs
            .iter()
            .map(|&v| circuit.input_widths()[v] as usize)
            .sum();
        let mut ot_labels = self
            .ot
            .send_correlated(&mut self.ch, delta, their_bits)?
            .into_iter();
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
        send_frame(
            &mut self.ch,
            Tag::GarblerLabels,
            Block::slice_as_bytes(&active),
        )?;

        // Stream the garbled tables in frames of whole AND groups.
        let first_and = self.core.ands_garbled();
        self.core.start(circuit, &zero_labels, consts);
        loop {
            self.tables.clear();
            let done = self
                .core
                .garble(circuit, &mut self.tables, TABLE_FRAME_BLOCKS);
            if !self.tables.is_empty() {
                send_frame(
                    &mut self.ch,
                    Tag::Tables,
                    Block::slice_as_bytes(&self.tables),
                )?;
            }
            if done {
                break;
            }
        }

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
        self.ch.flush()?;
        let outputs = if terms.reveal.garbler_learns() {
            let n = decoding.len();
            let colours = recv_frame(&mut self.ch, Tag::OutputColours, n.div_ceil(8))?;
            let colours = unpack(&colours, n).ok_or_else(|| {
                mixgc_net::NetError::Protocol(format!(
                    "output colours of wrong length for {n} output bits"
                ))
            })?;
            let bits: Vec<bool> = colours.iter().zip(&decoding).map(|(c, d)| c ^ d).collect();
            Some(split(&bits, circuit.output_widths()))
        } else {
            None
        };
        Ok(Outcome {
            outputs,
            ands: self.core.ands_garbled() - first_and,
        })
    }
}
