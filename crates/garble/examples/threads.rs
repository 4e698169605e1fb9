//! Garbling and evaluation in memory on several threads: a wide circuit (independent
//! AES-128 encryptions side by side) compiled level by level
//! (`Layout::Reordered(Full, DEFAULT_WINDOW)`), ns per AND on each thread count (median of
//! 5 runs) and the speedup over the first count. The batched layout on one thread is shown
//! for reference.
//!
//! `cargo run --release -p mixgc-garble --example threads [-- AES_BLOCKS [THREADS...]]`
//! (defaults: 64 blocks, threads 1 2).

#[path = "../tests/integration/wide/mod.rs"]
mod wide;

use std::time::Instant;

use mixgc_compile::{compile_with, CompiledCircuit, Layout, Reorder, RunKind, DEFAULT_WINDOW};
use mixgc_core::{AnyHash, Block, HashKind};
use mixgc_garble::{Evaluator, Garbler, DEFAULT_SPLIT_ANDS};

const RUNS: usize = 5;

/// A garbler and an evaluator on some number of threads, with their timings so far.
struct Engines {
    threads: usize,
    g: Garbler<AnyHash>,
    e: Evaluator<AnyHash>,
    garble_s: Vec<f64>,
    evaluate_s: Vec<f64>,
}

impl Engines {
    fn new(threads: usize) -> Engines {
        let hash = || AnyHash::new(HashKind::Tccr, Block::ZERO);
        let delta = Block::from_u128(0x5eed_0000_1234_5678_9abc_def0_0000_0001);
        let mut g = Garbler::new(hash(), delta);
        let mut e = Evaluator::new(hash());
        if let Err(err) = g.set_threads(threads).and_then(|_| e.set_threads(threads)) {
            eprintln!("cannot start {threads} threads: {err}");
            std::process::exit(1);
        }
        Engines {
            threads,
            g,
            e,
            garble_s: Vec::new(),
            evaluate_s: Vec::new(),
        }
    }

    /// Garbles and evaluates `c` once in memory, timing both.
    fn run(&mut self, c: &CompiledCircuit, tables: &mut Vec<Block>) {
        let labels: Vec<Block> = (0..c.input_slots().len() as u128)
            .map(|i| Block::from_u128(i.wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)))
            .collect();
        tables.clear();
        let t = Instant::now();
        self.g.start(c, &labels, [Block::ZERO; 2]);
        self.g.garble(c.body(), tables, usize::MAX);
        self.garble_s.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        self.e.start(c, &labels, [Block::ZERO; 2]);
        self.e.evaluate(c.body(), tables);
        self.evaluate_s.push(t.elapsed().as_secs_f64());
    }
}

/// (median, best) ns per AND of `c` over `times`.
fn per_and(c: &CompiledCircuit, times: &[f64]) -> (f64, f64) {
    let mut v = times.to_vec();
    v.sort_by(f64::total_cmp);
    let ns = |s: f64| s * 1e9 / c.num_ands() as f64;
    (ns(v[v.len() / 2]), ns(v[0]))
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
    let mut tables = Vec::with_capacity(full.num_ands() as usize * 2);
    let mut reference = Engines::new(1);
    let mut engines: Vec<Engines> = counts.iter().map(|&t| Engines::new(t)).collect();
    // Rounds interleave the thread counts, so a load that comes and goes (other processes)
    // weighs on all of them alike.
    for _ in 0..RUNS {
        reference.run(&batched, &mut tables);
        engines.iter_mut().for_each(|e| e.run(&full, &mut tables));
    }
    let (g, e) = (
        per_and(&batched, &reference.garble_s),
        per_and(&batched, &reference.evaluate_s),
    );
    println!(
        "batched layout, 1 thread: garble {:.2} ns/AND (best {:.2}), evaluate {:.2} ns/AND (best {:.2})",
        g.0, g.1, e.0, e.1
    );
    let base = (
        per_and(&full, &engines[0].garble_s),
        per_and(&full, &engines[0].evaluate_s),
    );
    for engine in &engines {
        let (g, e) = (
            per_and(&full, &engine.garble_s),
            per_and(&full, &engine.evaluate_s),
        );
        println!(
            "full layout, {} thread(s): garble {:.2} ns/AND (x{:.2}; best {:.2}, x{:.2}), evaluate {:.2} ns/AND (x{:.2}; best {:.2}, x{:.2})",
            engine.threads,
            g.0,
            base.0 .0 / g.0,
            g.1,
            base.0 .1 / g.1,
            e.0,
            base.1 .0 / e.0,
            e.1,
            base.1 .1 / e.1
        );
    }
}
