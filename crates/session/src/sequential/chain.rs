//! Chains of sequential netlists on the compiled-stream engine: thesis §3.3.1's
//! composition of different functions, F = f_n(… f_2(f_1(x))) (Eq. 3.2), and of one
//! function repeated (Eq. 3.3).
//!
//! Each stage runs as a sequential run of its own (its cycles as compiled streams, one OT
//! extension per segment), without a handshake of its own: the program handshake binds
//! the whole chain (`chain stages=N digest=… engine=compiled-stream`). The output labels of
//! a stage's last cycle become the labels of the next stage's first input ports, held for
//! every cycle of that stage, never decoded; only the last stage's outputs (of its last
//! cycle) are revealed. The chain is checked right after the handshake.

use mixgc_circuit::sequential::{InputMode, Sequential};
use mixgc_core::Block;
use mixgc_net::Channel;

use super::specialize::Specializers;
use super::{SequentialRun, StageRun};
use crate::handshake::{abort_on_bad_input, agree_on_program};
use crate::{Audience, EvaluatorSession, GarblerSession, SessionError};

/// Most stages in one chain.
pub const MAX_CHAIN_STAGES: usize = 1 << 16;

/// One stage of a chain: a netlist run for `cycles` cycles. Its first input ports (as
/// many as the previous stage has output ports) take the previous stage's outputs.
#[derive(Clone, Copy, Debug)]
pub struct ChainStage<'n> {
    pub net: &'n Sequential,
    pub cycles: u64,
}

/// A party's values for a chain: `value(stage, port, cycle)`, asked only for the ports it
/// owns that the previous stage does not feed (at cycle 0 only for `once` and `init` ports).
pub type ChainInput<'a> = dyn FnMut(usize, usize, u64) -> Vec<bool> + 'a;
/// Receives the last stage's outputs of its last cycle (one bit vector per output port), if
/// this party learns them.
pub type ChainOutput<'a> = dyn FnMut(Vec<Vec<bool>>) + 'a;

/// How many of stage `k`'s first ports the previous stage feeds.
fn fed(stages: &[ChainStage<'_>], k: usize) -> usize {
    k.checked_sub(1).map_or(0, |j| stages[j].net.outputs.len())
}

/// Checks a chain: 1 … [`MAX_CHAIN_STAGES`] stages of at least one cycle, valid netlists,
/// and each stage's outputs fitting the next stage's first ports (same widths, no `init`
/// port fed).
pub(crate) fn check_chain(stages: &[ChainStage<'_>]) -> Result<(), SessionError> {
    let bad = |why: String| Err(SessionError::Input(why));
    if stages.is_empty() || stages.len() > MAX_CHAIN_STAGES {
        return bad(format!(
            "a chain has 1 to {MAX_CHAIN_STAGES} stages, not {}",
            stages.len()
        ));
    }
    for (k, s) in stages.iter().enumerate() {
        let first_use = stages[..k].iter().all(|p| !std::ptr::eq(p.net, s.net));
        if first_use {
            s.net.validate().map_err(|e| {
                SessionError::Input(format!("chain stage {}: sequential netlist: {e}", k + 1))
            })?;
        }
        if s.cycles == 0 {
            return bad(format!("chain stage {}: a stage needs at least one cycle", k + 1));
        }
        if k == 0 {
            continue;
        }
        let prev = stages[k - 1].net;
        if prev.outputs.len() > s.net.inputs.len() {
            return bad(format!(
                "chain stage {}: {} output port(s) of stage {k} feed its {} input port(s)",
                k + 1,
                prev.outputs.len(),
                s.net.inputs.len()
            ));
        }
        for (o, p) in prev.outputs.iter().zip(&s.net.inputs) {
            if p.mode == InputMode::Init || o.width != p.width {
                return bad(format!(
                    "chain stage {}: stage {k}'s output `{}` ({} bits) cannot feed input port `{}` ({} bits{})",
                    k + 1,
                    o.name,
                    o.width,
                    p.name,
                    p.width,
                    if p.mode == InputMode::Init { ", an init port" } else { "" }
                ));
            }
        }
    }
    Ok(())
}

/// What both parties must agree on: every stage's netlist digest and cycles, hashed.
pub(crate) fn chain_description(stages: &[ChainStage<'_>]) -> String {
    let mut h = blake3::Hasher::new();
    h.update(b"mixgc-chain-v1\n");
    let mut digests: Vec<(&Sequential, [u8; 32])> = Vec::new();
    for s in stages {
        let digest = match digests.iter().find(|(n, _)| std::ptr::eq(*n, s.net)) {
            Some((_, d)) => *d,
            None => {
                let d = s.net.digest();
                digests.push((s.net, d));
                d
            }
        };
        h.update(&digest);
        h.update(&s.cycles.to_le_bytes());
    }
    let d: String = h.finalize().as_bytes()[..12]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("chain stages={} digest={d} engine=compiled-stream", stages.len())
}

/// Cuts a stage's output labels into one vector per output port.
fn per_port(labels: Vec<Block>, net: &Sequential) -> Vec<Vec<Block>> {
    let mut rest = labels.into_iter();
    net.outputs
        .iter()
        .map(|o| rest.by_ref().take(o.width as usize).collect())
        .collect()
}

/// Runs the stages in turn with `stage_run(k, run, fed labels, reveals, input, output)`,
/// carrying each stage's output labels into the next. Returns the ANDs.
fn run_stages<'n>(
    stages: &[ChainStage<'n>],
    reveal: Audience,
    input: &mut ChainInput<'_>,
    output: &mut ChainOutput<'_>,
    mut stage_run: impl FnMut(
        StageRun<'_, 'n>,
        &mut super::PortInput<'_>,
        &mut super::CycleOutput<'_>,
    ) -> Result<(u64, Vec<Block>), SessionError>,
) -> Result<u64, SessionError> {
    let mut carried = Vec::new();
    let mut ands = 0;
    for (k, s) in stages.iter().enumerate() {
        let run = SequentialRun {
            net: s.net,
            cycles: s.cycles,
            every_cycle: false,
            reveal,
        };
        debug_assert_eq!(carried.len(), fed(stages, k));
        let stage = StageRun {
            run: &run,
            fed: std::mem::take(&mut carried),
            reveals: k + 1 == stages.len(),
        };
        let mut stage_input = |port: usize, t: u64| input(k, port, t);
        let mut stage_output = |_t: u64, ports: Vec<Vec<bool>>| output(ports);
        let (n, last) = stage_run(stage, &mut stage_input, &mut stage_output)?;
        ands += n;
        carried = per_port(last, s.net);
    }
    Ok(ands)
}

impl<C: Channel + 'static> GarblerSession<C> {
    /// Garbles a chain (see the [module docs](self)) with this party's values from
    /// `input`; `output` gets the last stage's outputs if the garbler learns them. `specs`
    /// may hold specs compiled ahead ([`Specializers::prepare`] for each stage's netlist and
    /// cycles). Returns the ANDs garbled.
    pub fn run_chain<'n>(
        &mut self,
        stages: &[ChainStage<'n>],
        reveal: Audience,
        specs: &mut Specializers<'n>,
        input: &mut ChainInput<'_>,
        output: &mut ChainOutput<'_>,
    ) -> Result<u64, SessionError> {
        agree_on_program(&mut self.ch, &chain_description(stages), reveal)?;
        // The handshake bound both parties to the same chain, so both find the same fault
        // in it: neither waits on the other to hear about it.
        check_chain(stages)?;
        let result = run_stages(stages, reveal, input, output, |stage, input, output| {
            let net = stage.run.net;
            self.garble_stage(stage, specs.of(net), input, output)
        });
        abort_on_bad_input(&mut self.ch, result)
    }
}

impl<C: Channel> EvaluatorSession<C> {
    /// The evaluator's half of [`GarblerSession::run_chain`].
    pub fn run_chain<'n>(
        &mut self,
        stages: &[ChainStage<'n>],
        reveal: Audience,
        specs: &mut Specializers<'n>,
        input: &mut ChainInput<'_>,
        output: &mut ChainOutput<'_>,
    ) -> Result<u64, SessionError> {
        agree_on_program(&mut self.ch, &chain_description(stages), reveal)?;
        // The handshake bound both parties to the same chain, so both find the same fault
        // in it: neither waits on the other to hear about it.
        check_chain(stages)?;
        let result = run_stages(stages, reveal, input, output, |stage, input, output| {
            let net = stage.run.net;
            self.evaluate_stage(stage, specs.of(net), input, output)
        });
        abort_on_bad_input(&mut self.ch, result)
    }
}
