//! Time per CRT op through the typed program API on the two-party backends (the costs a
//! program pays, to compare with the raw gadgets of `mixgc-arith`'s `gadget_speed`), in µs:
//! the best of `RUNS` runs of many ops of one kind on 16-bit minimum-sum primes, garbled
//! first, then evaluated from the buffered frames. Run with
//! `cargo run --release -p mixgc-session --example crt_op_speed [-- KIND]`.

use std::sync::mpsc;
use std::time::Instant;

use mixgc_arith::primes::min_sum_primes;
use mixgc_net::{memory_pair_holding, Channel};
use mixgc_program::{ArithBackend, Bit, Crt, Ctx, PartyId, PrimeSet, ProgramError};
use mixgc_session::{
    Audience, EvaluatorSession, GarblerSession, ProgramEvaluator, ProgramGarbler, SessionConfig,
};

/// Input pairs the ops cycle through, and runs per kind (the fastest is reported).
const VALUES: usize = 32;
const RUNS: usize = 5;

type Error = Box<dyn std::error::Error + Send + Sync>;

/// `ops` ops of `kind` on the inputs; the last result.
fn run_ops<B: ArithBackend>(bit: &Bit<B>, kind: &str, x: &[Crt<B>], y: &[Crt<B>], ops: usize) -> Crt<B> {
    let mut last = x[0].clone();
    for i in 0..ops {
        let (a, b) = (&x[i % VALUES], &y[i % VALUES]);
        last = match kind {
            "add" => a + b,
            "scale" => a.scale(12_345),
            "mul" => a * b,
            "pow" => a.pow(3),
            "mux" => bit.select_crt(a, b),
            _ => {
                drop(a.to_uint());
                continue;
            }
        };
    }
    last
}

/// Both parties' inputs: the garbler's and the evaluator's values, and a select bit of 1.
fn inputs<B: ArithBackend>(ctx: &Ctx<B>, set: &PrimeSet, garbler: bool) -> Result<Inputs<B>, ProgramError> {
    let value = |mine: bool, i: usize| mine.then_some(i as u128 + 7);
    let x = (0..VALUES)
        .map(|i| ctx.input_crt(PartyId::GARBLER, set, value(garbler, i)))
        .collect::<Result<_, _>>()?;
    let y = (0..VALUES)
        .map(|i| ctx.input_crt(PartyId::EVALUATOR, set, value(!garbler, i)))
        .collect::<Result<_, _>>()?;
    let select = ctx.input_uint(PartyId::EVALUATOR, 1, (!garbler).then_some(1))?;
    Ok((x, y, select.equals(&ctx.uint(1, 1))))
}

type Inputs<B> = (Vec<Crt<B>>, Vec<Crt<B>>, Bit<B>);

/// One two-party run: seconds of garbling and of evaluating `ops` ops of `kind`.
fn timed(set: &PrimeSet, kind: &str, ops: usize) -> Result<(f64, f64), Error> {
    let cfg = SessionConfig::default();
    let (gch, ech) = memory_pair_holding(1 << 16);
    let (garbled, wait_garbled) = mpsc::channel::<()>();
    let (ready, wait_ready) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        let (cfg, ready) = (&cfg, ready);
        let evaluator = s.spawn(move || -> Result<f64, Error> {
            let mut session = EvaluatorSession::setup(ech, cfg)?;
            let ctx = Ctx::new(session.program(kind, Audience::only(PartyId::EVALUATOR))?);
            let (x, y, bit) = inputs(&ctx, set, false)?;
            ready.send(())?;
            wait_garbled.recv()?;
            let start = Instant::now();
            let last = run_ops(&bit, kind, &x, &y, ops);
            let seconds = start.elapsed().as_secs_f64();
            last.reveal()?;
            drop((x, y, bit, last));
            finish_evaluator(ctx)?;
            Ok(seconds)
        });
        let mut session = GarblerSession::setup(gch, cfg)?;
        let ctx = Ctx::new(session.program(kind, Audience::only(PartyId::EVALUATOR))?);
        let (x, y, bit) = inputs(&ctx, set, true)?;
        ctx.with(|b| b.flush())?;
        wait_ready.recv()?;
        let start = Instant::now();
        let last = run_ops(&bit, kind, &x, &y, ops);
        ctx.with(|b| b.flush())?;
        let seconds = start.elapsed().as_secs_f64();
        garbled.send(())?;
        last.reveal()?;
        drop((x, y, bit, last));
        finish_garbler(ctx)?;
        let eval = evaluator.join().map_err(|_| "the evaluator panicked")??;
        Ok((seconds, eval))
    })
}

fn finish_garbler<C: Channel>(ctx: Ctx<ProgramGarbler<'_, C>>) -> Result<(), Error> {
    ctx.into_inner().ok_or("values still alive")?.finish()?;
    Ok(())
}

fn finish_evaluator<C: Channel>(ctx: Ctx<ProgramEvaluator<'_, C>>) -> Result<(), Error> {
    ctx.into_inner().ok_or("values still alive")?.finish()?;
    Ok(())
}

fn main() -> Result<(), Error> {
    let set = min_sum_primes(16)?;
    let filter = std::env::args().nth(1);
    println!("best of {RUNS} runs, µs per op, primes {:?}", set.primes());
    println!("{:<6} {:>10} {:>10}", "op", "garble", "evaluate");
    for (kind, ops) in [
        ("add", 20_000),
        ("scale", 20_000),
        ("mul", 2_000),
        ("pow", 2_000),
        ("mux", 2_000),
        ("bd", 200),
    ] {
        if filter.as_deref().is_some_and(|f| f != kind) {
            continue;
        }
        let mut best = (f64::MAX, f64::MAX);
        for _ in 0..RUNS {
            let (garble, eval) = timed(&set, kind, ops)?;
            best = (best.0.min(garble), best.1.min(eval));
        }
        let per_op = |seconds: f64| seconds * 1e6 / ops as f64;
        println!("{kind:<6} {:>10.3} {:>10.3}", per_op(best.0), per_op(best.1));
    }
    Ok(())
}
