//! Garbling and evaluation time of the arithmetic gadgets: the median of `CALLS` calls each,
//! in µs. Run with `cargo run --release -p mixgc-arith --example gadget_speed [-- FILTER]`: with a
//! FILTER, only the gadgets whose name contains it.
//!
//! Gadgets: products mod 17 and mod 251, a lift of a Boolean label to Z_{2^64}, one
//! projection Z_17 → Z_17, and the 16-bit CRT product and mux over the minimum-sum primes
//! (ABLE's Mul and Mux) as the session's arithmetic backend calls the gadgets: the garbler
//! prime by prime (`mul`), the evaluator across primes (`mul_many`); the mux composes the
//! selector bit into every prime (`compose_powers`), then no + s·(yes − no). BC, BD and the
//! program-level overheads are timed by `mixgc-session`'s `crt_op_speed` example.

use std::time::Instant;

use mixgc_arith::primes::min_sum_primes;
use mixgc_arith::{ArithError, ArithEvaluator, ArithGarbler, Label, Modulus, TableReader};
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

/// The odd primes of the `width`-bit minimum-sum CRT set (a residue mod 2, if any, is a
/// Boolean AND, not an arithmetic gadget).
fn crt_moduli(width: u32) -> Result<Vec<Modulus>, ArithError> {
    let set = min_sum_primes(width)?;
    Ok(set.moduli().iter().copied().filter(|m| !m.is_boolean()).collect())
}

/// Zero-labels and active labels of two bundles holding `x` and `y`, residue by residue.
type BundlePair = (Vec<(Label, Label)>, Vec<(Label, Label)>);

fn bundle_pair(g: &mut ArithGarbler, moduli: &[Modulus], x: u128, y: u128) -> Result<BundlePair, ArithError> {
    let zeros: Vec<(Label, Label)> = moduli.iter().map(|&m| (g.new_wire(m), g.new_wire(m))).collect();
    let active = zeros
        .iter()
        .zip(moduli)
        .map(|((a0, b0), m)| {
            let (xr, yr) = ((x % m.value()) as u64, (y % m.value()) as u64);
            Ok((g.encode(a0, xr)?, g.encode(b0, yr)?))
        })
        .collect::<Result<_, ArithError>>()?;
    Ok((zeros, active))
}

fn crt_product(width: u32) -> Result<(), ArithError> {
    let moduli = crt_moduli(width)?;
    run(Gadget {
        name: &format!("CRT product, {width} bits"),
        inputs: Box::new(|g| bundle_pair(g, &moduli, 40_503, 31_337)),
        garble: Box::new(|g, zeros, rows| {
            for (a0, b0) in zeros {
                g.mul(a0, b0, rows)?;
            }
            Ok(())
        }),
        evaluate: Box::new(|e, active, t| {
            let pairs: Vec<(&Label, &Label)> = active.iter().map(|(a, b)| (a, b)).collect();
            e.mul_many(&pairs, t).map(drop)
        }),
    })
}

fn crt_mux(width: u32) -> Result<(), ArithError> {
    let moduli = crt_moduli(width)?;
    let select_zero = Block::from_u128(0x5bd1_e995_0123_4567_89ab_cdef_fedc_ba98);
    run(Gadget {
        name: &format!("CRT mux, {width} bits"),
        inputs: Box::new(|g| {
            let (zeros, active) = bundle_pair(g, &moduli, 40_503, 31_337)?;
            let select = select_zero ^ g.delta(Modulus::BOOLEAN).to_block()?; // s = 1
            Ok((zeros, (active, select)))
        }),
        garble: Box::new(|g, zeros, rows| {
            let bit = [select_zero];
            let terms: Vec<_> = moduli.iter().map(|&m| (&bit[..], m)).collect();
            let s = g.compose_powers(&terms, rows)?;
            for (s, (yes, no)) in s.iter().zip(zeros) {
                g.mul(s, &yes.sub(no)?, rows)?.add(no)?;
            }
            Ok(())
        }),
        evaluate: Box::new(|e, (active, select), t| {
            let bit = [*select];
            let terms: Vec<_> = moduli.iter().map(|&m| (&bit[..], m)).collect();
            let s = e.compose_powers(&terms, t)?;
            let differences = active
                .iter()
                .map(|(yes, no)| yes.sub(no))
                .collect::<Result<Vec<_>, _>>()?;
            let pairs: Vec<(&Label, &Label)> = s.iter().zip(&differences).collect();
            for (product, (_, no)) in e.mul_many(&pairs, t)?.iter().zip(active) {
                product.add(no)?;
            }
            Ok(())
        }),
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
    projection(17)?;
    crt_product(16)?;
    crt_mux(16)
}
