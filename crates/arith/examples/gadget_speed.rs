//! Garbling and evaluation time of the arithmetic gadgets: the median of `CALLS` calls each,
//! in µs. Run with `cargo run --release -p mixgc-arith --example gadget_speed [-- FILTER]`: with a
//! FILTER, only the gadgets whose name contains it.
//!
//! Gadgets: products mod 17 and mod 251, a lift of a Boolean label to Z_{2^64} and one
//! projection Z_17 → Z_17. The CRT gadgets built on them (products of bundles, mux, BC,
//! BD) are timed through the program interface by `mixgc-session`'s `crt_op_speed` example.

use std::time::Instant;

use mixgc_arith::{ArithError, ArithEvaluator, ArithGarbler, Modulus, TableReader};
use mixgc_core::{new_rng, Block};

/// Calls per gadget and side (the median is reported).
const CALLS: usize = 41;

/// Arena bytes reserved per call for its rows (the largest gadget here, the product mod
/// 251, has 9 KB).
const ARENA_PER_CALL: usize = 1 << 16;

fn median_us(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(|a, b| a.total_cmp(b));
    samples[samples.len() / 2] * 1e6
}

/// One gadget: `inputs` makes fresh input zero-labels and active labels (not timed),
/// `garble` appends its rows, `evaluate` consumes them in the same order.
struct Gadget<'a, Z, A> {
    name: &'a str,
    inputs: Inputs<'a, Z, A>,
    garble: Garble<'a, Z>,
    evaluate: Evaluate<'a, A>,
}

type Inputs<'a, Z, A> = Box<dyn FnMut(&mut ArithGarbler) -> Result<(Z, A), ArithError> + 'a>;
type Garble<'a, Z> = Box<dyn FnMut(&mut ArithGarbler, &Z, &mut Vec<u8>) -> Result<(), ArithError> + 'a>;
type Evaluate<'a, A> =
    Box<dyn FnMut(&mut ArithEvaluator, &A, &mut TableReader) -> Result<(), ArithError> + 'a>;

/// Times `CALLS` garblings, then `CALLS` evaluations of their tables, on one session.
fn run<Z, A>(mut gadget: Gadget<Z, A>) -> Result<(), ArithError> {
    if std::env::args()
        .nth(1)
        .is_some_and(|filter| !gadget.name.contains(&filter))
    {
        return Ok(());
    }
    let mut garbler = ArithGarbler::new(new_rng(Some(1), 1), Block::from_u128(0x1234_5678_9abc_def1))?;
    let mut evaluator = ArithEvaluator::new(garbler.session_key());
    // Every call's inputs are made before the timed calls, and every call's rows are
    // copied into one arena reserved up front: the harness allocates nothing between timed
    // calls, so they do not pay for the heap growing (first touches of new pages, ~2.5 µs
    // per 16-bit product on the development machine when the harness kept allocating). The
    // garbler writes into one buffer cleared between calls, as a session's frame buffer.
    let inputs = (0..CALLS)
        .map(|_| (gadget.inputs)(&mut garbler))
        .collect::<Result<Vec<_>, _>>()?;
    let (mut rows, mut arena, mut ends) =
        (Vec::new(), Vec::with_capacity(CALLS * ARENA_PER_CALL), Vec::new());
    let mut garble_times = Vec::new();
    for (zeros, _) in &inputs {
        rows.clear();
        let start = Instant::now();
        (gadget.garble)(&mut garbler, zeros, &mut rows)?;
        garble_times.push(start.elapsed().as_secs_f64());
        arena.extend_from_slice(&rows);
        ends.push(arena.len());
    }
    let mut eval_times = Vec::new();
    for ((_, active), range) in inputs.iter().zip(ends.iter().scan(0, |start, &end| {
        let range = *start..end;
        *start = end;
        Some(range)
    })) {
        let mut tables = TableReader::new(&arena[range]);
        let start = Instant::now();
        (gadget.evaluate)(&mut evaluator, active, &mut tables)?;
        eval_times.push(start.elapsed().as_secs_f64());
        tables.finish()?;
    }
    println!(
        "{:<34} {:>10.2} {:>10.2} {:>8}",
        gadget.name,
        median_us(garble_times),
        median_us(eval_times),
        ends[0]
    );
    Ok(())
}

fn product(p: u64) -> Result<(), ArithError> {
    let m = Modulus::new(p)?;
    run(Gadget {
        name: &format!("product mod {p}"),
        inputs: Box::new(|g| {
            let (a0, b0) = (g.new_wire(m), g.new_wire(m));
            let (a, b) = (g.encode(&a0, 3)?, g.encode(&b0, 5)?);
            Ok(((a0, b0), (a, b)))
        }),
        garble: Box::new(|g, (a0, b0), rows| g.mul(a0, b0, rows).map(drop)),
        evaluate: Box::new(|e, (a, b), t| e.mul(a, b, t).map(drop)),
    })
}

fn lift(bits: u32) -> Result<(), ArithError> {
    let zero = Block::from_u128(0x9e37_79b9);
    run(Gadget {
        name: &format!("lift to 2^{bits}"),
        inputs: Box::new(|g| Ok(((), zero ^ g.delta(Modulus::BOOLEAN).to_block()?))),
        garble: Box::new(|g, (), rows| g.lift(zero, bits, rows).map(drop)),
        evaluate: Box::new(|e, active, t| e.lift(*active, bits, t).map(drop)),
    })
}

fn projection(p: u64) -> Result<(), ArithError> {
    let m = Modulus::new(p)?;
    let table: Vec<u64> = (0..p).map(|x| x * x % p).collect();
    run(Gadget {
        name: &format!("projection Z_{p} -> Z_{p}"),
        inputs: Box::new(|g| {
            let a0 = g.new_wire(m);
            let a = g.encode(&a0, 7)?;
            Ok((a0, a))
        }),
        garble: Box::new(|g, a0, rows| g.project(a0, m, &table, rows).map(drop)),
        evaluate: Box::new(|e, a, t| e.project(a, m, t).map(drop)),
    })
}

fn main() -> Result<(), ArithError> {
    println!("median of {CALLS} calls, µs");
    println!(
        "{:<34} {:>10} {:>10} {:>8}",
        "gadget", "garble", "evaluate", "bytes"
    );
    product(17)?;
    product(251)?;
    lift(64)?;
    projection(17)
}
