//! Garbling and evaluation in memory on several threads: a wide circuit (independent
//! AES-128 encryptions side by side) compiled level by level
//! (`Layout::Reordered(Full, DEFAULT_WINDOW)`), ns per AND on each thread count (median of
//! 5 runs) and the speedup over the first count. The batched layout on one thread is shown
//! for reference.
//!
//! `cargo run --release -p mixgc-garble --example threads [-- AES_BLOCKS [THREADS...]]`
//! (defaults: 64 blocks, threads 1 2).

#[path = "../tests/wide/mod.rs"]
mod wide;

use std::time::Instant;

use mixgc_compile::{compile_with, CompiledCircuit, Layout, Reorder, RunKind, DEFAULT_WINDOW};
use mixgc_core::{AnyHash, Block, HashKind};
use mixgc_garble::{Evaluator, Garbler, DEFAULT_SPLIT_ANDS};

const RUNS: usize = 5;

/// Median ns/AND of garbling and of evaluating `c` on `threads` threads.
fn measure(c: &CompiledCircuit, threads: usize) -> (f64, f64) {
    let hash = || AnyHash::new(HashKind::Tccr, Block::ZERO);
    let delta = Block::from_u128(0x5eed_0000_1234_5678_9abc_def0_0000_0001);
    let labels: Vec<Block> = (0..c.input_slots().len() as u128)
        .map(|i| Block::from_u128(i.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)))
        .collect();
    let mut g = Garbler::new(hash(), delta);
    let mut e = Evaluator::new(hash());
    if let Err(err) = g.set_threads(threads).and_then(|_| e.set_threads(threads)) {
        eprintln!("cannot start {threads} threads: {err}");
        std::process::exit(1);
    }
    let mut tables = Vec::with_capacity(c.num_ands() as usize * 2);
    let (mut tg, mut te) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        tables.clear();
        let t = Instant::now();
        g.start(c, &labels, [Block::ZERO; 2]);
        g.garble(c.body(), &mut tables, usize::MAX);
        tg.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        e.start(c, &labels, [Block::ZERO; 2]);
        e.evaluate(c.body(), &tables);
        te.push(t.elapsed().as_secs_f64());
    }
    let per_and = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[RUNS / 2] * 1e9 / c.num_ands() as f64
    };
    (per_and(tg), per_and(te))
}

/// ANDs in parallel blocks big enough to be split, and the number of such blocks.
fn split_blocks(c: &CompiledCircuit) -> (u64, usize) {
    let runs = c.runs();
    let big: Vec<u64> = (0..runs.len())
        .filter(|&i| runs[i].kind == RunKind::Parallel)
        .map(|i| {
            let block = &runs[i + 1..i + 1 + runs[i].len as usize];
            block
                .iter()
                .filter(|r| r.kind == RunKind::And)
                .map(|r| r.len as u64)
                .sum::<u64>()
        })
        .filter(|&ands| ands >= DEFAULT_SPLIT_ANDS as u64)
        .collect();
    (big.iter().sum(), big.len())
}

fn main() {
    let args: Vec<usize> = match std::env::args()
        .skip(1)
        .map(|a| a.parse::<usize>())
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(v) if v.iter().all(|&n| n > 0) => v,
        _ => {
            eprintln!("usage: threads [AES_BLOCKS [THREADS...]] (positive integers)");
            std::process::exit(2);
        }
    };
    let blocks = args.first().copied().unwrap_or(64);
    let counts = if args.len() > 1 {
        args[1..].to_vec()
    } else {
        vec![1, 2]
    };
    let circuit = wide::wide_aes(blocks);
    let full = compile_with(&circuit, Layout::Reordered(Reorder::Full, DEFAULT_WINDOW));
    let (split_ands, split) = split_blocks(&full);
    println!(
        "{blocks} x AES-128, full reorder: {} ANDs, {} slots ({} KiB of labels), {split} blocks of >= {DEFAULT_SPLIT_ANDS} ANDs hold {:.1}% of the ANDs",
        full.num_ands(),
        full.num_slots(),
        full.working_set_bytes() >> 10,
        100.0 * split_ands as f64 / full.num_ands() as f64
    );
    let batched = compile_with(&circuit, Layout::Batched);
    let (g, e) = measure(&batched, 1);
    println!("batched layout, 1 thread: garble {g:.2} ns/AND, evaluate {e:.2} ns/AND");
    let mut first = None;
    for &threads in &counts {
        let (g, e) = measure(&full, threads);
        let (g1, e1) = *first.get_or_insert((g, e));
        println!(
            "full layout, {threads} thread(s): garble {g:.2} ns/AND (x{:.2}), evaluate {e:.2} ns/AND (x{:.2})",
            g1 / g,
            e1 / e
        );
    }
}
