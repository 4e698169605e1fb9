//! The garbler's side of a sequential run (see the [module docs](super)).

use mixgc_circuit::sequential::FlopInit;
use mixgc_core::Block;
use mixgc_net::{recv_frame, Channel, PeerMisbehaved, Tag};

use super::specialize::{Source, Specializer, Specializers};
use super::{
    checked_value, per_cycle, CycleOutput, PortInput, SequentialRun, Shape, StageRun,
    MAX_SEQUENTIAL_FRAME_BYTES,
};
use crate::bits::{pack, split, unpack};
use crate::garbler::Producer;
use crate::handshake::{abort_on_bad_input, agree_on_program};
use crate::outlet::Outbox;
use crate::rows::RowWriter;
use crate::{GarblerSession, PartyId, SessionError};

impl<C: Channel + 'static> GarblerSession<C> {
    /// Garbles `run.net` for `run.cycles` cycles on the compiled-stream path with this
    /// party's port values from `input`; `output` gets each revealed cycle's outputs if the
    /// garbler learns them. Returns the ANDs garbled.
    pub fn run_sequential(
        &mut self,
        run: &SequentialRun<'_>,
        input: &mut PortInput<'_>,
        output: &mut CycleOutput<'_>,
    ) -> Result<u64, SessionError> {
        self.run_sequential_prepared(run, &mut Specializers::new(), input, output)
    }

    /// [`GarblerSession::run_sequential`] with specs compiled ahead
    /// ([`Specializers::prepare`], e.g. before connecting) or kept from an earlier run.
    pub fn run_sequential_prepared<'n>(
        &mut self,
        run: &SequentialRun<'n>,
        specs: &mut Specializers<'n>,
        input: &mut PortInput<'_>,
        output: &mut CycleOutput<'_>,
    ) -> Result<u64, SessionError> {
        let result = self.sequential_inner(run, specs, input, output);
        abort_on_bad_input(&mut self.ch, result)
    }

    fn sequential_inner<'n>(
        &mut self,
        run: &SequentialRun<'n>,
        specs: &mut Specializers<'n>,
        input: &mut PortInput<'_>,
        output: &mut CycleOutput<'_>,
    ) -> Result<u64, SessionError> {
        run.check()?;
        agree_on_program(&mut self.ch, &run.description(), run.reveal)?;
        let stage = StageRun {
            run,
            fed: Vec::new(),
            reveals: true,
        };
        Ok(self.garble_stage(stage, specs.of(run.net), input, output)?.0)
    }

    /// Garbles one run (or a chain's stage) after the handshake. Returns the ANDs garbled
    /// and the zero-labels of the last cycle's output ports (all of them, port after port).
    pub(super) fn garble_stage(
        &mut self,
        stage: StageRun<'_, '_>,
        specs: &mut Specializer<'_>,
        input: &mut PortInput<'_>,
        output: &mut CycleOutput<'_>,
    ) -> Result<(u64, Vec<Block>), SessionError> {
        let run = stage.run;
        let net = run.net;
        let fed = stage.fed.len();
        let shape = Shape::new(run, fed);
        let delta = self.core.delta();
        let learns = stage.reveals && run.reveal.contains(PartyId::GARBLER);
        let tells = stage.reveals && run.reveal.contains(PartyId::EVALUATOR);
        specs.restart();
        // Zero-labels of the `once` and `init` ports (either party's) and of the ports fed
        // by a previous stage, and of the state's secret bits.
        let mut held: Vec<Vec<Block>> = stage.fed;
        held.resize(net.inputs.len(), Vec::new());
        let mut state: Vec<Block> = Vec::new();
        let mut last_out = Vec::new();
        let consts = [Block::random(&mut self.rng), Block::random(&mut self.rng)];
        let mut rows = Some(RowWriter::new(self.batch_bytes.min(MAX_SEQUENTIAL_FRAME_BYTES)));
        let mut ands = 0;
        let mut t0 = 0;
        while t0 < run.cycles {
            let len = shape.per_segment.min(run.cycles - t0);
            let first = t0 == 0;
            let n_ot = if first { shape.e_first_bits } else { 0 } + len as usize * shape.e_cycle_bits;
            let mut ot = self.ot.send_correlated(&mut self.ch, delta, n_ot)?.into_iter();
            if first {
                let mut active = Vec::with_capacity(shape.g_first_bits + 2);
                for (port, p) in net.inputs.iter().enumerate().skip(fed) {
                    if per_cycle(net, fed, port) {
                        continue;
                    }
                    held[port] = if p.owner == PartyId::GARBLER {
                        let bits = checked_value(net, port, 0, input(port, 0))?;
                        self.fresh_labels(&bits, &mut active)
                    } else {
                        ot.by_ref().take(p.width as usize).collect()
                    };
                }
                active.extend([consts[0], consts[1] ^ delta]);
                self.ch
                    .push_frame(Tag::GarblerLabels, Block::slice_as_bytes(&active).to_vec())?;
                state = initial_secret_state(net, &held);
            }
            // The garbler's per-cycle labels of the whole segment, in one frame.
            let mut mine = Vec::with_capacity(len as usize * shape.g_cycle_bits);
            let mut active = Vec::with_capacity(mine.capacity());
            for t in t0..t0 + len {
                for port in (0..net.inputs.len())
                    .filter(|&p| per_cycle(net, fed, p) && net.inputs[p].owner == PartyId::GARBLER)
                {
                    let bits = checked_value(net, port, t, input(port, t))?;
                    mine.extend(self.fresh_labels(&bits, &mut active));
                }
            }
            if !active.is_empty() {
                self.ch
                    .push_frame(Tag::GarblerLabels, Block::slice_as_bytes(&active).to_vec())?;
            }
            drop(active);
            let mut mine = mine.into_iter();
            let mut decodings = Vec::new();
            let mut revealed = Vec::new();
            let mut zero = Vec::new();
            for t in t0..t0 + len {
                let spec = specs.next_spec()?;
                let header = spec.compiled.header();
                zero.clear();
                let mut cycle_ot = ot.by_ref().take(shape.e_cycle_bits);
                for source in &spec.values {
                    match *source {
                        Source::State => zero.extend_from_slice(&state),
                        Source::Port(p) if !per_cycle(net, fed, p) => zero.extend_from_slice(&held[p]),
                        Source::Port(p) => {
                            let w = net.inputs[p].width as usize;
                            if net.inputs[p].owner == PartyId::GARBLER {
                                zero.extend(mine.by_ref().take(w));
                            } else {
                                zero.extend(cycle_ot.by_ref().take(w));
                            }
                        }
                    }
                }
                let before = self.core.ands_garbled();
                let mut producer = Producer {
                    core: &mut self.core,
                    rng: &mut self.rng,
                    circuit: &mut spec.compiled.stream(),
                    header,
                    mine: &[],
                    rows: rows.take().expect("the row writer is back after each cycle"),
                    progress: &self.progress,
                };
                let garbled = producer.garble_open(&zero, consts, &mut self.ch);
                rows = Some(producer.rows);
                garbled?;
                ands += self.core.ands_garbled() - before;
                let out = self.core.output_zero_labels(header);
                state.clear();
                state.extend(spec.next_secret_outputs().map(|k| out[k]));
                if run.every_cycle || t + 1 == run.cycles {
                    decodings.extend(out[..shape.out_bits].iter().map(|l| l.lsb()));
                    revealed.push(t);
                }
                if t + 1 == run.cycles {
                    last_out = out[..shape.out_bits].to_vec();
                }
            }
            rows.as_mut()
                .expect("the row writer is back")
                .flush(&mut self.ch)?;
            if tells && !revealed.is_empty() {
                self.ch.push_frame(Tag::OutputDecoding, pack(&decodings))?;
            }
            self.ch.flush()?;
            if learns && !revealed.is_empty() {
                let n = decodings.len();
                let frame = recv_frame(&mut self.ch, Tag::OutputColours, n.div_ceil(8))?;
                let colours = unpack(&frame, n).ok_or(PeerMisbehaved::WrongLength {
                    tag: Tag::OutputColours,
                    len: frame.len(),
                    expected: n.div_ceil(8),
                })?;
                let bits: Vec<bool> = colours.iter().zip(&decodings).map(|(c, d)| c ^ d).collect();
                for (t, cycle) in revealed.into_iter().zip(bits.chunks(shape.out_bits.max(1))) {
                    output(t, split(cycle, &shape.out_widths));
                }
            }
            t0 += len;
        }
        Ok((ands, last_out))
    }

    /// Fresh zero-labels for `bits`; their active labels are appended to `active`.
    fn fresh_labels(&mut self, bits: &[bool], active: &mut Vec<Block>) -> Vec<Block> {
        let delta = self.core.delta();
        bits.iter()
            .map(|&b| {
                let zero = Block::random(&mut self.rng);
                active.push(zero ^ delta.and_bit(b));
                zero
            })
            .collect()
    }
}

/// The labels of cycle 0's secret state bits (those a party initializes), in state order,
/// from the `init` ports' labels.
pub(super) fn initial_secret_state(
    net: &mixgc_circuit::sequential::Sequential,
    held: &[Vec<Block>],
) -> Vec<Block> {
    net.initial_state()
        .iter()
        .filter_map(|init| match init {
            FlopInit::Input { port, bit } => Some(held[*port][*bit as usize]),
            FlopInit::Value(_) => None,
        })
        .collect()
}
