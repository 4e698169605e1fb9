//! Programs run in two phases, inputs then compute, so that a two-party run in this
//! process can time garbling and evaluation apart (`mixgc lenet`, `mixgc plan`): inputs
//! together (labels and OT), then the garbler garbles the whole compute phase into a
//! buffered channel while the evaluator waits, then the evaluator evaluates it — the
//! preprocessing model of ABLE §5.2.2, over the real session protocol.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use mixgc_net::memory_pair_holding;
use mixgc_program::{Counter, CrtBackend, Ctx, ProgramError};
use mixgc_session::{EvaluatorSession, GarblerSession, Reveal, SessionConfig};

use crate::CliError;

/// A program with both parties' inputs, each fed only by its owner.
pub trait Phased: Sync {
    /// The values a backend holds after the input phase.
    type Inputs<B: CrtBackend>;

    /// A name both parties agree on.
    fn name(&self) -> String;

    /// Declares every input; feeds the garbler's values where `garbler`, the evaluator's
    /// where `evaluator` (a party knows only its own; the counter neither).
    fn inputs<B: CrtBackend>(
        &self,
        ctx: &Ctx<B>,
        garbler: bool,
        evaluator: bool,
    ) -> Result<Self::Inputs<B>, ProgramError>;

    /// The computation; reveals its outputs and returns them where learned.
    fn compute<B: CrtBackend>(
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
pub fn count<P: Phased>(p: &P) -> Result<Counter, CliError> {
    let ctx = Ctx::new(Counter::default());
    let inputs = p.inputs(&ctx, false, false)?;
    p.compute(&ctx, &inputs)?;
    drop(inputs);
    Ok(ctx.into_inner().ok_or("the counter is still shared")?)
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
pub fn two_party<P: Phased>(p: &P, cfg: &SessionConfig) -> Result<Timed, CliError> {
    let (gch, ech) = memory_pair_holding(p.messages() + (1 << 12));
    let (garbled, garbler_done) = mpsc::channel::<()>();
    let (inputs_in, evaluator_ready) = mpsc::channel::<()>();
    let name = &p.name();
    let (garbler, evaluator) = std::thread::scope(|s| {
        let garbler = s.spawn(move || -> Result<Duration, CliError> {
            let mut session = GarblerSession::setup(gch, cfg)?;
            let ctx = Ctx::new(session.program(name, Reveal::Evaluator)?);
            let inputs = p.inputs(&ctx, true, false)?;
            ctx.with(|b| b.flush())?;
            evaluator_ready
                .recv()
                .map_err(|_| "the evaluator stopped early")?;
            let start = Instant::now();
            p.compute(&ctx, &inputs)?;
            drop(inputs);
            ctx.into_inner().ok_or("the program is still shared")?.finish()?;
            let garble = start.elapsed();
            garbled.send(()).map_err(|_| "the evaluator stopped early")?;
            drop(session);
            Ok(garble)
        });
        let evaluator = s.spawn(move || -> Result<(Duration, Vec<Option<i128>>), CliError> {
            let mut session = EvaluatorSession::setup(ech, cfg)?;
            let ctx = Ctx::new(session.program(name, Reveal::Evaluator)?);
            let inputs = p.inputs(&ctx, false, true)?;
            inputs_in.send(()).map_err(|_| "the garbler stopped early")?;
            garbler_done.recv().map_err(|_| "the garbler stopped early")?;
            let start = Instant::now();
            let outputs = p.compute(&ctx, &inputs)?;
            drop(inputs);
            ctx.into_inner().ok_or("the program is still shared")?.finish()?;
            Ok((start.elapsed(), outputs))
        });
        (
            garbler.join().map_err(|_| "the garbler panicked"),
            evaluator.join().map_err(|_| "the evaluator panicked"),
        )
    });
    // A party that fails makes the other stop early too: report the first cause.
    let (garble, (eval, outputs)) = match (garbler?, evaluator?) {
        (Ok(g), Ok(e)) => (g, e),
        (Err(g), Err(e)) => return Err(format!("garbler: {g}; evaluator: {e}").into()),
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
pub fn two_party_median<P: Phased>(p: &P, cfg: &SessionConfig, reps: usize) -> Result<Timed, CliError> {
    let runs = (0..reps.max(1))
        .map(|_| two_party(p, cfg))
        .collect::<Result<Vec<_>, _>>()?;
    let median = |f: fn(&Timed) -> Duration| {
        Duration::from_secs_f64(crate::bench::median(
            runs.iter().map(|t| f(t).as_secs_f64()).collect(),
        ))
    };
    Ok(Timed {
        garble: median(|t| t.garble),
        eval: median(|t| t.eval),
        checked: runs.iter().map(|t| t.checked).sum(),
    })
}

/// Compares learned outputs with the reference; returns how many were checked.
pub fn check(outputs: &[Option<i128>], expected: &[i128]) -> Result<usize, CliError> {
    let learned: Vec<i128> = outputs
        .iter()
        .map(|o| o.ok_or("an output was not learned"))
        .collect::<Result<_, _>>()?;
    if learned.len() != expected.len() {
        return Err(format!("{} outputs, the reference has {}", learned.len(), expected.len()).into());
    }
    match (0..learned.len()).find(|&i| learned[i] != expected[i]) {
        Some(i) => Err(format!(
            "output #{i} is {} but the plaintext program gives {}",
            learned[i], expected[i]
        )
        .into()),
        None => Ok(learned.len()),
    }
}
