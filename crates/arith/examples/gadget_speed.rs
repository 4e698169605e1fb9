//! Garbling and evaluation time of the arithmetic gadgets: the median of `CALLS` calls each,
//! in µs. Run with `cargo run --release -p mixgc-arith --example gadget_speed [-- FILTER]`: with a
//! FILTER, only the gadgets whose name contains it.
//!
//! Gadgets: CRT products (16 and 32 bits, minimum-sum primes), a CRT multiplexer
//! b + s·(a − b) (the selector bit composed into the bundle, then one product), CRT bit
//! composition (BC) and decomposition (BD) at 16 bits, and one projection Z_17 → Z_17.

use std::time::Instant;

use mixgc_arith::primes::min_sum_primes;
use mixgc_arith::{ArithError, ArithEvaluator, ArithGarbler, CrtBundle, Modulus, PrimeSet, TableReader};
use mixgc_core::{new_rng, Block};

/// Calls per gadget and side (the median is reported).
const CALLS: usize = 41;

/// Arena bytes reserved per call for its rows (the largest gadget here, BD, has 13 KiB).
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

type Pair = (CrtBundle, CrtBundle);

/// Fresh zero-labels for two bundles over `set`, and active labels of 3 and 5 on them.
fn two_bundles(g: &mut ArithGarbler, set: &PrimeSet) -> Result<(Pair, Pair), ArithError> {
    let (a0, b0) = (g.new_bundle(set), g.new_bundle(set));
    let (a, b) = (g.encode_bundle(&a0, 3)?, g.encode_bundle(&b0, 5)?);
    Ok(((a0, b0), (a, b)))
}

fn product(width: u32) -> Result<(), ArithError> {
    let set = min_sum_primes(width)?;
    let name = format!("CRT product, {width} bits ({} primes)", set.primes().len());
    run(Gadget {
        name: &name,
        inputs: Box::new(|g| two_bundles(g, &set)),
        garble: Box::new(|g, (a0, b0), rows| g.mul_bundle(a0, b0, rows).map(drop)),
        evaluate: Box::new(|e, (a, b), t| e.mul_bundle(a, b, t).map(drop)),
    })
}

fn mux(width: u32) -> Result<(), ArithError> {
    let set = min_sum_primes(width)?;
    let name = format!("CRT mux (BC of s + product), {width}");
    run(Gadget {
        name: &name,
        inputs: Box::new(|g| {
            let ((a0, b0), (a, b)) = two_bundles(g, &set)?;
            let s0 = Block::from_u128(0x5eed);
            let s = s0 ^ g.delta(Modulus::BOOLEAN).to_block()?;
            Ok(((s0, a0, b0), (s, a, b)))
        }),
        garble: Box::new(|g, (s0, a0, b0), rows| {
            let selector = g.crt_compose(&[*s0], &set, rows)?;
            g.mul_bundle(&selector, &a0.sub(b0)?, rows)?.add(b0).map(drop)
        }),
        evaluate: Box::new(|e, (s, a, b), t| {
            let selector = e.crt_compose(&[*s], &set, t)?;
            e.mul_bundle(&selector, &a.sub(b)?, t)?.add(b).map(drop)
        }),
    })
}

fn compose(width: u32) -> Result<(), ArithError> {
    let set = min_sum_primes(width)?;
    let zeros: Vec<Block> = (0..width)
        .map(|i| Block::from_u128(0x9e37_79b9 * (i as u128 + 1)))
        .collect();
    run(Gadget {
        name: &format!("BC, {width} bits"),
        inputs: Box::new(|_| Ok(((), zeros.clone()))),
        garble: Box::new(|g, (), rows| g.crt_compose(&zeros, &set, rows).map(drop)),
        evaluate: Box::new(|e, bits, t| e.crt_compose(bits, &set, t).map(drop)),
    })
}

fn decompose(width: u32) -> Result<(), ArithError> {
    let set = min_sum_primes(width)?;
    run(Gadget {
        name: &format!("BD, {width} bits"),
        inputs: Box::new(|g| {
            let a0 = g.new_bundle(&set);
            let a = g.encode_bundle(&a0, 12_345)?;
            Ok((a0, a))
        }),
        garble: Box::new(|g, a0, rows| g.crt_decompose(a0, rows).map(drop)),
        evaluate: Box::new(|e, a, t| e.crt_decompose(a, t).map(drop)),
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
    product(16)?;
    product(32)?;
    mux(16)?;
    compose(16)?;
    decompose(16)?;
    projection(17)
}
