//! The evaluator's side of a sequential run (see the [module docs](super)).

use mixgc_core::Block;
use mixgc_net::{recv_frame, send_frame, Channel, PeerMisbehaved, Tag};

use super::garble::initial_secret_state;
use super::specialize::{Source, Specializer, Specializers};
use super::{checked_value, per_cycle, CycleOutput, PortInput, SequentialRun, Shape, StageRun};
use crate::bits::{pack, split, unpack};
use crate::evaluator::{table_bytes, Consumer, TableFeed};
use crate::handshake::{abort_on_bad_input, agree_on_program};
use crate::pipe::{receive_all, EvaluatorPlan, Inbox};
use crate::{EvaluatorSession, PartyId, SessionError};

/// Blocks of a labels frame of exactly `n` labels.
fn blocks(frame: &[u8], n: usize) -> Result<Vec<Block>, SessionError> {
    if frame.len() != n * 16 {
        return Err(PeerMisbehaved::WrongLength {
            tag: Tag::GarblerLabels,
            len: frame.len(),
            expected: n * 16,
        }
        .into());
    }
    Ok(frame
        .chunks_exact(16)
        .map(|c| Block::from_bytes(c.try_into().expect("16 bytes")))
        .collect())
}

/// Output bits from colours and the garbler's decoding frame.
fn decode(colours: &[bool], frame: &[u8]) -> Result<Vec<bool>, SessionError> {
    let d = unpack(frame, colours.len()).ok_or(PeerMisbehaved::WrongLength {
        tag: Tag::OutputDecoding,
        len: frame.len(),
        expected: colours.len().div_ceil(8),
    })?;
    Ok(colours.iter().zip(&d).map(|(c, d)| c ^ d).collect())
}

impl<C: Channel> EvaluatorSession<C> {
    /// The evaluator's half of [`crate::GarblerSession::run_sequential`].
    pub fn run_sequential(
        &mut self,
        run: &SequentialRun<'_>,
        input: &mut PortInput<'_>,
        output: &mut CycleOutput<'_>,
    ) -> Result<u64, SessionError> {
        self.run_sequential_prepared(run, &mut Specializers::new(), input, output)
    }

    /// The evaluator's half of [`crate::GarblerSession::run_sequential_prepared`].
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
        Ok(self.evaluate_stage(stage, specs.of(run.net), input, output)?.0)
    }

    /// Evaluates one run (or a chain's stage) after the handshake. Returns the ANDs
    /// evaluated and the active labels of the last cycle's output ports.
    pub(super) fn evaluate_stage(
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
        let learns = stage.reveals && run.reveal.contains(PartyId::EVALUATOR);
        let tells = stage.reveals && run.reveal.contains(PartyId::GARBLER);
        specs.restart();
        let mut held: Vec<Vec<Block>> = stage.fed;
        held.resize(net.inputs.len(), Vec::new());
        let mut state: Vec<Block> = Vec::new();
        let mut last_out = Vec::new();
        let mut consts = [Block::ZERO; 2];
        let mut ands = 0;
        let mut t0 = 0;
        while t0 < run.cycles {
            let len = shape.per_segment.min(run.cycles - t0);
            let first = t0 == 0;
            let mut choices = Vec::with_capacity(len as usize * shape.e_cycle_bits);
            let mine = |port: usize| net.inputs[port].owner == PartyId::EVALUATOR;
            if first {
                for port in (fed..net.inputs.len()).filter(|&p| mine(p) && !per_cycle(net, fed, p)) {
                    choices.extend(checked_value(net, port, 0, input(port, 0))?);
                }
            }
            for t in t0..t0 + len {
                for port in (0..net.inputs.len()).filter(|&p| mine(p) && per_cycle(net, fed, p)) {
                    choices.extend(checked_value(net, port, t, input(port, t))?);
                }
            }
            let mut ot = self.ot.receive_correlated(&mut self.ch, &choices)?.into_iter();
            drop(choices);
            if first {
                let n = shape.g_first_bits + 2;
                let frame = recv_frame(&mut self.ch, Tag::GarblerLabels, n * 16)?;
                let mut g = blocks(&frame, n)?.into_iter();
                for (port, p) in net.inputs.iter().enumerate().skip(fed) {
                    if !per_cycle(net, fed, port) {
                        let source: &mut dyn Iterator<Item = Block> =
                            if mine(port) { &mut ot } else { &mut g };
                        held[port] = source.take(p.width as usize).collect();
                    }
                }
                consts = [g.next().expect("n labels"), g.next().expect("n labels")];
                state = initial_secret_state(net, &held);
            }
            let segment = (0..len)
                .map(|_| specs.next_spec())
                .collect::<Result<Vec<_>, _>>()?;
            // The garbler's per-cycle labels of the whole segment, in one frame.
            let n = len as usize * shape.g_cycle_bits;
            let mut theirs = if n > 0 {
                blocks(&recv_frame(&mut self.ch, Tag::GarblerLabels, n * 16)?, n)?
            } else {
                Vec::new()
            }
            .into_iter();
            let scheme = self.core.scheme();
            let mut total = 0usize;
            for s in &segment {
                total += table_bytes(scheme, &mut s.compiled.stream(), s.compiled.header())?;
            }
            let revealed = if run.every_cycle {
                len as usize
            } else {
                usize::from(t0 + len == run.cycles)
            };
            let plan = EvaluatorPlan {
                instances: 1,
                labels_bytes: 0,
                table_bytes: total,
                decoding_bytes: (learns && revealed > 0).then_some((revealed * shape.out_bits).div_ceil(8)),
            };
            let mut colours = Vec::with_capacity(revealed * shape.out_bits);
            let mut cycles = Vec::with_capacity(revealed);
            let (core, progress, io_thread) = (&mut self.core, &self.progress, self.io_thread);
            receive_all(&mut self.ch, io_thread, plan, |inbox: &mut dyn Inbox| {
                let mut feed = TableFeed::new(total);
                let mut labels = Vec::new();
                for (i, spec) in segment.iter().enumerate() {
                    let t = t0 + i as u64;
                    let header = spec.compiled.header();
                    let mut cycle_ot = ot.by_ref().take(shape.e_cycle_bits);
                    labels.clear();
                    for source in &spec.values {
                        match *source {
                            Source::State => labels.extend_from_slice(&state),
                            Source::Port(p) if !per_cycle(net, fed, p) => labels.extend_from_slice(&held[p]),
                            Source::Port(p) => {
                                let w = net.inputs[p].width as usize;
                                if mine(p) {
                                    labels.extend(cycle_ot.by_ref().take(w));
                                } else {
                                    labels.extend(theirs.by_ref().take(w));
                                }
                            }
                        }
                    }
                    let before = core.ands_evaluated();
                    let mut consumer = Consumer {
                        core: &mut *core,
                        circuit: &mut spec.compiled.stream(),
                        header,
                        mine: &[],
                        plan,
                        progress,
                    };
                    consumer.evaluate_from(&labels, consts, &mut feed, inbox)?;
                    ands += core.ands_evaluated() - before;
                    let out = core.output_labels(header);
                    state.clear();
                    state.extend(spec.next_secret_outputs().map(|k| out[k]));
                    if run.every_cycle || t + 1 == run.cycles {
                        colours.extend(out[..shape.out_bits].iter().map(|l| l.lsb()));
                        cycles.push(t);
                    }
                    if t + 1 == run.cycles {
                        last_out = out[..shape.out_bits].to_vec();
                    }
                }
                feed.finish()?;
                if let Some(len) = plan.decoding_bytes {
                    let bits = decode(&colours, &inbox.recv(Tag::OutputDecoding, len)?)?;
                    for (&t, cycle) in cycles.iter().zip(bits.chunks(shape.out_bits.max(1))) {
                        output(t, split(cycle, &shape.out_widths));
                    }
                }
                Ok(())
            })?;
            t0 += len;
            if tells && !colours.is_empty() {
                send_frame(&mut self.ch, Tag::OutputColours, &pack(&colours))?;
                self.ch.flush()?;
            }
        }
        Ok((ands, last_out))
    }
}
