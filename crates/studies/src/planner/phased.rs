//! Programs run in two phases, inputs then compute, so that a two-party run in one
//! process can time garbling and evaluation apart: inputs together (labels and OT), then
//! the garbler garbles the whole compute phase into a buffered channel while the evaluator
//! waits, then the evaluator evaluates it — the preprocessing model of ABLE §5.2.2, over
//! the real session protocol.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use mixgc_net::memory_pair_holding;
use mixgc_program::{ArithBackend, Counter, Ctx, ProgramError};

use mixgc_session::{Audience, EvaluatorSession, GarblerSession, PartyId, SessionConfig, SessionError};

/// Garbled-table bytes a timed run may hold in memory between garbling and evaluation.
pub const MAX_BUFFERED_TABLE_BYTES: u64 = 1 << 30;

/// Why a phased run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    #[error("{0}")]
    Session(#[from] SessionError),
    #[error("{0}")]
    Program(#[from] ProgramError),
    /// A party stopped (its peer's error is the cause), panicked, or both failed.
    #[error("{0}")]
    Party(String),
    /// The program's tables exceed [`MAX_BUFFERED_TABLE_BYTES`].
    #[error("{0}")]
    TooLarge(String),
    /// The outputs differ from the plaintext reference.
    #[error("{0}")]
    Wrong(String),
}

fn party(e: &str) -> RunError {
    RunError::Party(e.into())
}

/// A program with both parties' inputs, each fed only by its owner.
pub trait Phased: Sync {
    /// The values a backend holds after the input phase.
    type Inputs<B: ArithBackend>;

    /// A name both parties agree on.
    fn name(&self) -> String;

    /// Declares every input; feeds the garbler's values where `garbler`, the evaluator's
    /// where `evaluator` (a party knows only its own; the counter neither).
    fn inputs<B: ArithBackend>(
        &self,
        ctx: &Ctx<B>,
        garbler: bool,
        evaluator: bool,
    ) -> Result<Self::Inputs<B>, ProgramError>;

    /// The computation; reveals its outputs and returns them where learned.
    fn compute<B: ArithBackend>(
        &self,
        ctx: &Ctx<B>,
        inputs: &Self::Inputs<B>,
    ) -> Result<Vec<Option<i128>>, ProgramError>;

    /// The outputs the plaintext run must give (the reference the run is checked against).
    fn expected(&self) -> Vec<i128>;

    /// Messages the compute phase sends at most (outputs and table frames), to size the
    /// buffer that lets the garbler run ahead.
    fn messages(&self) -> usize;
}

/// The program on the cost counter.
pub fn count<P: Phased>(p: &P) -> Result<Counter, RunError> {
    let ctx = Ctx::new(Counter::default());
    let inputs = p.inputs(&ctx, false, false)?;
    p.compute(&ctx, &inputs)?;
    drop(inputs);
    ctx.into_inner()
        .ok_or_else(|| party("the counter is still shared"))
}

/// A timed two-party run: garbling and evaluation of the compute phase.
pub struct Timed {
    pub garble: Duration,
    pub eval: Duration,
    /// Outputs checked against the plaintext reference.
    pub checked: usize,
}

/// Both parties in this process (see the module docs); outputs go to the evaluator and
/// are checked against [`Phased::expected`].
pub fn two_party<P: Phased>(p: &P, cfg: &SessionConfig) -> Result<Timed, RunError> {
    // The whole compute phase is buffered before it is evaluated: refuse, up front, what
    // would not fit, rather than run out of memory.
    let tables = count(p)?.cost().table_bytes;
    if tables > MAX_BUFFERED_TABLE_BYTES {
        return Err(RunError::TooLarge(format!(
            "{} holds {} MiB of garbled tables, over the {} MiB a timed run buffers; run a smaller instance",
            p.name(),
            tables >> 20,
            MAX_BUFFERED_TABLE_BYTES >> 20
        )));
    }
    let (gch, ech) = memory_pair_holding(p.messages() + (1 << 12));
    let (garbled, garbler_done) = mpsc::channel::<()>();
    let (inputs_in, evaluator_ready) = mpsc::channel::<()>();
    let name = &p.name();
    let (garbler, evaluator) = std::thread::scope(|s| {
        let garbler = s.spawn(move || -> Result<Duration, RunError> {
            let mut session = GarblerSession::setup(gch, cfg)?;
            let ctx = Ctx::new(session.program(name, Audience::only(PartyId::EVALUATOR))?);
            let inputs = p.inputs(&ctx, true, false)?;
            ctx.with(|b| b.flush())?;
            evaluator_ready
                .recv()
                .map_err(|_| party("the evaluator stopped early"))?;
            let start = Instant::now();
            p.compute(&ctx, &inputs)?;
            drop(inputs);
            ctx.into_inner()
                .ok_or_else(|| party("the program is still shared"))?
                .finish()?;
            let garble = start.elapsed();
            garbled
                .send(())
                .map_err(|_| party("the evaluator stopped early"))?;
            drop(session);
            Ok(garble)
        });
        let evaluator = s.spawn(move || -> Result<(Duration, Vec<Option<i128>>), RunError> {
            let mut session = EvaluatorSession::setup(ech, cfg)?;
            let ctx = Ctx::new(session.program(name, Audience::only(PartyId::EVALUATOR))?);
            let inputs = p.inputs(&ctx, false, true)?;
            inputs_in
                .send(())
                .map_err(|_| party("the garbler stopped early"))?;
            garbler_done
                .recv()
                .map_err(|_| party("the garbler stopped early"))?;
            let start = Instant::now();
            let outputs = p.compute(&ctx, &inputs)?;
            drop(inputs);
            ctx.into_inner()
                .ok_or_else(|| party("the program is still shared"))?
                .finish()?;
            Ok((start.elapsed(), outputs))
        });
        (
            garbler.join().map_err(|_| party("the garbler panicked")),
            evaluator.join().map_err(|_| party("the evaluator panicked")),
        )
    });
    // A party that fails makes the other stop early too: report the first cause.
    let (garble, (eval, outputs)) = match (garbler?, evaluator?) {
        (Ok(g), Ok(e)) => (g, e),
        (Err(g), Err(e)) => return Err(RunError::Party(format!("garbler: {g}; evaluator: {e}"))),
        (Err(e), _) | (_, Err(e)) => return Err(e),
    };
    let checked = check(&outputs, &p.expected())?;
    Ok(Timed {
        garble,
        eval,
        checked,
    })
}

/// [`two_party`] `reps` times (at least once); the medians of the garbling and of the
/// evaluation times.
pub fn two_party_median<P: Phased>(p: &P, cfg: &SessionConfig, reps: usize) -> Result<Timed, RunError> {
    let runs = (0..reps.max(1))
        .map(|_| two_party(p, cfg))
        .collect::<Result<Vec<_>, _>>()?;
    let median = |f: fn(&Timed) -> Duration| {
        let mut v: Vec<Duration> = runs.iter().map(f).collect();
        v.sort();
        v[v.len() / 2]
    };
    Ok(Timed {
        garble: median(|t| t.garble),
        eval: median(|t| t.eval),
        checked: runs.iter().map(|t| t.checked).sum(),
    })
}

/// Compares learned outputs with the reference; returns how many were checked.
pub fn check(outputs: &[Option<i128>], expected: &[i128]) -> Result<usize, RunError> {
    let learned: Vec<i128> = outputs
        .iter()
        .map(|o| o.ok_or_else(|| RunError::Wrong("an output was not learned".into())))
        .collect::<Result<_, _>>()?;
    if learned.len() != expected.len() {
        return Err(RunError::Wrong(format!(
            "{} outputs, the reference has {}",
            learned.len(),
            expected.len()
        )));
    }
    match (0..learned.len()).find(|&i| learned[i] != expected[i]) {
        Some(i) => Err(RunError::Wrong(format!(
            "output #{i} is {} but the plaintext program gives {}",
            learned[i], expected[i]
        ))),
        None => Ok(learned.len()),
    }
}
