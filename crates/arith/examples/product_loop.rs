//! A 16-bit CRT product (the odd minimum-sum primes, as `gadget_speed` times it) garbled or
//! evaluated in a loop, for `perf record` and for comparing builds call by call. Run with
//! `cargo run --release -p mixgc-arith --example product_loop -- MODE [CALLS]`:
//!
//! - `garble` / `evaluate`: CALLS products back to back (default 100,000), then the mean;
//! - `calls`: CALLS garblings timed one by one (default 3,000), then the minimum, the 10th
//!   and 25th percentiles and the median (on a loaded machine the low percentiles compare
//!   builds; run the builds alternately);
//! - `evaluate-calls`: the same for CALLS evaluations of one garbled product.

use std::process::ExitCode;
use std::time::Instant;

use mixgc_arith::primes::min_sum_primes;
use mixgc_arith::{ArithError, ArithEvaluator, ArithGarbler, Label, TableReader};
use mixgc_core::{new_rng, Block};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_default();
    let calls = match args.next().map(|n| n.parse::<usize>()) {
        None => None,
        Some(Ok(n)) if n > 0 => Some(n),
        Some(_) => {
            eprintln!("CALLS must be a positive integer");
            return ExitCode::FAILURE;
        }
    };
    let run = match mode.as_str() {
        "garble" => garble_loop(calls.unwrap_or(100_000)),
        "evaluate" => evaluate_loop(calls.unwrap_or(100_000)),
        "calls" => time_calls(calls.unwrap_or(3_000)),
        "evaluate-calls" => time_evaluations(calls.unwrap_or(3_000)),
        _ => {
            eprintln!("usage: product_loop garble|evaluate|calls|evaluate-calls [CALLS]");
            return ExitCode::FAILURE;
        }
    };
    match run {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A garbler and evaluator of one session, the zero-labels of the product's inputs residue
/// by residue and their active labels (x = 40,503, y = 31,337).
struct Setup {
    garbler: ArithGarbler,
    evaluator: ArithEvaluator,
    zeros: Vec<(Label, Label)>,
    active: Vec<(Label, Label)>,
}

fn setup() -> Result<Setup, ArithError> {
    let set = min_sum_primes(16)?;
    let mut garbler = ArithGarbler::new(new_rng(Some(1), 1), Block::from_u128(0x1234_5678_9abc_def1))?;
    let evaluator = ArithEvaluator::new(garbler.session_key());
    let odd = set.moduli().iter().copied().filter(|m| !m.is_boolean());
    let zeros: Vec<(Label, Label)> = odd.map(|m| (garbler.new_wire(m), garbler.new_wire(m))).collect();
    let active = zeros
        .iter()
        .map(|(a0, b0)| {
            let p = a0.modulus().value();
            Ok((
                garbler.encode(a0, (40_503 % p) as u64)?,
                garbler.encode(b0, (31_337 % p) as u64)?,
            ))
        })
        .collect::<Result<_, ArithError>>()?;
    Ok(Setup {
        garbler,
        evaluator,
        zeros,
        active,
    })
}

fn garble(setup: &mut Setup, rows: &mut Vec<u8>) -> Result<(), ArithError> {
    rows.clear();
    for (a0, b0) in &setup.zeros {
        setup.garbler.mul(a0, b0, rows)?;
    }
    Ok(())
}

fn garble_loop(calls: usize) -> Result<(), ArithError> {
    let (mut setup, mut rows) = (setup()?, Vec::new());
    let start = Instant::now();
    for _ in 0..calls {
        garble(&mut setup, &mut rows)?;
    }
    println!(
        "garble: {:.3} µs per product (mean)",
        start.elapsed().as_secs_f64() * 1e6 / calls as f64
    );
    Ok(())
}

/// Evaluates one garbled product's rows `calls` times (the evaluator's gate counter moves
/// on, so only the first call decodes to x·y; the work per call is the same).
fn evaluate_loop(calls: usize) -> Result<(), ArithError> {
    let (mut setup, mut rows) = (setup()?, Vec::new());
    garble(&mut setup, &mut rows)?;
    let pairs: Vec<(&Label, &Label)> = setup.active.iter().map(|(a, b)| (a, b)).collect();
    let start = Instant::now();
    for _ in 0..calls {
        let mut tables = TableReader::new(&rows);
        setup.evaluator.mul_many(&pairs, &mut tables)?;
    }
    println!(
        "evaluate: {:.3} µs per product (mean)",
        start.elapsed().as_secs_f64() * 1e6 / calls as f64
    );
    Ok(())
}

fn time_calls(calls: usize) -> Result<(), ArithError> {
    let (mut setup, mut rows) = (setup()?, Vec::new());
    let times = (0..calls)
        .map(|_| {
            let start = Instant::now();
            garble(&mut setup, &mut rows)?;
            Ok(start.elapsed().as_secs_f64() * 1e6)
        })
        .collect::<Result<_, ArithError>>()?;
    print_percentiles("garble", times);
    Ok(())
}

/// [`time_calls`] for the evaluator: one garbled product's rows evaluated `calls` times,
/// each call timed on its own.
fn time_evaluations(calls: usize) -> Result<(), ArithError> {
    let (mut setup, mut rows) = (setup()?, Vec::new());
    garble(&mut setup, &mut rows)?;
    let pairs: Vec<(&Label, &Label)> = setup.active.iter().map(|(a, b)| (a, b)).collect();
    let times = (0..calls)
        .map(|_| {
            let start = Instant::now();
            setup.evaluator.mul_many(&pairs, &mut TableReader::new(&rows))?;
            Ok(start.elapsed().as_secs_f64() * 1e6)
        })
        .collect::<Result<_, ArithError>>()?;
    print_percentiles("evaluate", times);
    Ok(())
}

/// The minimum, 10th and 25th percentiles and median of per-call times (µs).
fn print_percentiles(what: &str, mut times: Vec<f64>) {
    times.sort_by(f64::total_cmp);
    let at = |q: usize| times[(times.len() - 1) * q / 100];
    println!(
        "{what}, µs per product: min {:.3} p10 {:.3} p25 {:.3} median {:.3}",
        at(0),
        at(10),
        at(25),
        at(50)
    );
}
