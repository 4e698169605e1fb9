//! One party's run of a circuit: session setup, one batch, and what it cost.

use std::time::{Duration, Instant};

use mixgc_compile::GateStream;
use mixgc_net::Channel;

use crate::{EvaluatorSession, GarblerSession, Outcome, PartyId, SessionConfig, SessionError, Terms};

/// What one party's run produced and cost.
#[derive(Clone, Debug)]
pub struct PartyReport {
    pub role: PartyId,
    /// Outputs of the first (usually only) instance, if this party learns them.
    pub outputs: Option<Vec<Vec<bool>>>,
    pub ands: u64,
    pub bytes_sent: u64,
    pub bytes_received: u64,
    /// From the established connection to the outputs, base OT included.
    pub elapsed: Duration,
    pub base_ot: Duration,
}

/// Runs `role` on an open channel: session setup (hello, base OT), then one batch that
/// executes `circuit` once per input set in `batch`.
pub fn run_party<C: Channel + 'static>(
    ch: C,
    role: PartyId,
    cfg: &SessionConfig,
    circuit: &mut dyn GateStream,
    terms: &Terms,
    batch: &[Vec<Vec<bool>>],
) -> Result<PartyReport, SessionError> {
    run_party_batch(ch, role, cfg, circuit, terms, batch).map(|(report, _)| report)
}

/// [`run_party`], also returning every instance's [`Outcome`] (TinyGarble's amortized
/// execution, thesis §3.3.1: K independent instances in one session, one OT extension for
/// all of the evaluator's input bits).
pub fn run_party_batch<C: Channel + 'static>(
    ch: C,
    role: PartyId,
    cfg: &SessionConfig,
    circuit: &mut dyn GateStream,
    terms: &Terms,
    batch: &[Vec<Vec<bool>>],
) -> Result<(PartyReport, Vec<Outcome>), SessionError> {
    let start = Instant::now();
    let (outcomes, sent, received, base_ot) = if role == PartyId::GARBLER {
        let mut s = GarblerSession::setup(ch, cfg)?;
        let o = s.execute_stream(circuit, terms, batch)?;
        (
            o,
            s.channel().bytes_sent(),
            s.channel().bytes_received(),
            s.base_ot_time(),
        )
    } else {
        let mut s = EvaluatorSession::setup(ch, cfg)?;
        let o = s.execute_stream(circuit, terms, batch)?;
        (
            o,
            s.channel().bytes_sent(),
            s.channel().bytes_received(),
            s.base_ot_time(),
        )
    };
    let report = PartyReport {
        role,
        ands: outcomes.iter().map(|o| o.ands).sum(),
        outputs: outcomes.first().and_then(|o| o.outputs.clone()),
        bytes_sent: sent,
        bytes_received: received,
        elapsed: start.elapsed(),
        base_ot,
    };
    Ok((report, outcomes))
}
