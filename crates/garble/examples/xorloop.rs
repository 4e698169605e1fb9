//! Where the free-XOR loop's time goes, on AES-128 (or CIRCUIT): how many XOR gates read
//! the output of the gate just before them, and the XOR runs alone executed four ways —
//! as compiled, with every output written to a second array (no gate reads what another
//! wrote: the throughput bound), with each run sorted by its level, and with slot indices
//! scaled to byte offsets beforehand. Then the whole engine per hash (`start` alone too).
//! Minimum wall time over interleaved repetitions, so other load on the machine mostly
//! drops out: `xorloop [CIRCUIT]`.
use std::collections::HashMap;
use std::time::Instant;

use mixgc_circuit::bristol;
use mixgc_compile::{compile, Chunk, Gate, RunKind};
use mixgc_core::{AnyHash, Block, HashKind};
use mixgc_garble::{Evaluator, Garbler};

const REPS: usize = 300;

fn xor_runs(body: &Chunk) -> Vec<Vec<Gate>> {
    let mut next = 0;
    let mut runs = Vec::new();
    for r in body.runs() {
        let gates = &body.gates()[next..next + r.kind.gates_in(r.len)];
        next += gates.len();
        if r.kind == RunKind::Xor {
            runs.push(gates.to_vec());
        }
    }
    runs
}

/// Each run's gates stably sorted by level (read after write +1; write after read and
/// write after write kept in order).
fn level_sorted(runs: &[Vec<Gate>]) -> Vec<Vec<Gate>> {
    runs.iter()
        .map(|run| {
            let (mut level, mut last_read) = (HashMap::<u32, u32>::new(), HashMap::<u32, u32>::new());
            let mut keyed: Vec<(u32, Gate)> = run
                .iter()
                .map(|g| {
                    let at = |m: &HashMap<u32, u32>, s| m.get(&s).copied().unwrap_or(0);
                    let l = 1 + at(&level, g.a)
                        .max(at(&level, g.b))
                        .max(at(&level, g.out))
                        .max(at(&last_read, g.out).saturating_sub(1));
                    for s in [g.a, g.b] {
                        let r = last_read.entry(s).or_insert(0);
                        *r = (*r).max(l + 1);
                    }
                    level.insert(g.out, l);
                    (l, *g)
                })
                .collect();
            keyed.sort_by_key(|k| k.0);
            keyed.into_iter().map(|k| k.1).collect()
        })
        .collect()
}

#[inline(never)]
fn run_xors(slots: &mut [Block], out: Option<&mut [Block]>, runs: &[Vec<Gate>]) {
    let p = slots.as_mut_ptr();
    let o = out.map_or(p, |o| o.as_mut_ptr());
    for g in runs.iter().flatten() {
        // SAFETY: compiled operands are < num_slots = the arrays' length.
        unsafe { *o.add(g.out as usize) = *p.add(g.a as usize) ^ *p.add(g.b as usize) };
    }
}

#[inline(never)]
fn run_xors_scaled(slots: &mut [Block], runs: &[Vec<[usize; 3]>]) {
    let p = slots.as_mut_ptr().cast::<u8>();
    for g in runs.iter().flatten() {
        // SAFETY: byte offsets of in-range slots; Block is 16 bytes, aligned.
        unsafe {
            let x = *p.add(g[0]).cast::<Block>() ^ *p.add(g[1]).cast::<Block>();
            *p.add(g[2]).cast::<Block>() = x;
        }
    }
}

fn min_ns(best: &mut u64, f: impl FnOnce()) {
    let t = Instant::now();
    f();
    *best = (*best).min(t.elapsed().as_nanos() as u64);
}

fn xor_loop(body: &Chunk) {
    let runs = xor_runs(body);
    let xors: usize = runs.iter().map(Vec::len).sum();
    let chained: usize = runs
        .iter()
        .flat_map(|r| r.windows(2))
        .filter(|w| w[1].a == w[0].out || w[1].b == w[0].out)
        .count();
    println!(
        "{xors} XOR gates in {} runs; {chained} read the previous gate's output",
        runs.len()
    );
    let sorted = level_sorted(&runs);
    let scaled: Vec<Vec<[usize; 3]>> = runs
        .iter()
        .map(|r| {
            r.iter()
                .map(|g| [g.a, g.b, g.out].map(|s| s as usize * 16))
                .collect()
        })
        .collect();
    let mut slots: Vec<Block> = (0..body.num_slots() as u128).map(Block::from_u128).collect();
    let (mut other, mut check) = (slots.clone(), slots.clone());
    run_xors(&mut slots, None, &runs);
    run_xors(&mut check, None, &sorted);
    assert!(slots == check, "the level-sorted order computes other labels");
    let mut best = [u64::MAX; 4];
    for _ in 0..REPS {
        min_ns(&mut best[0], || run_xors(&mut slots, None, &runs));
        min_ns(&mut best[1], || run_xors(&mut slots, Some(&mut other), &runs));
        min_ns(&mut best[2], || run_xors(&mut slots, None, &sorted));
        min_ns(&mut best[3], || run_xors_scaled(&mut slots, &scaled));
    }
    let names = ["as compiled", "no dependencies", "level-sorted", "byte offsets"];
    for (name, b) in names.iter().zip(best) {
        println!("XOR runs {name:16}: {:.3} ns/XOR", b as f64 / xors as f64);
    }
}

fn engine(c: &mixgc_compile::CompiledCircuit, kind: HashKind) {
    let mut g = Garbler::new(AnyHash::new(kind, Block::ZERO), Block::from_u128(0x1234567 | 1));
    let mut e = Evaluator::new(AnyHash::new(kind, Block::ZERO));
    let labels: Vec<Block> = (0..c.input_slots().len() as u128)
        .map(|i| Block::from_u128(i * 77777 + 5))
        .collect();
    let consts = [Block::ZERO, Block::ZERO];
    let mut tables = Vec::with_capacity(2 * c.num_ands() as usize);
    let mut best = [u64::MAX; 3];
    for _ in 0..REPS {
        tables.clear();
        min_ns(&mut best[0], || {
            g.start(c, &labels, consts);
            g.garble(c.body(), &mut tables, usize::MAX);
        });
        min_ns(&mut best[1], || {
            e.start(c, &labels, consts);
            e.evaluate(c.body(), &tables);
        });
        min_ns(&mut best[2], || e.start(c, &labels, consts));
    }
    let per_and = best.map(|b| b as f64 / c.num_ands() as f64);
    println!(
        "{kind:?}: garble {:.3}, evaluate {:.3}, start alone {:.3} ns/AND",
        per_and[0], per_and[1], per_and[2]
    );
}

fn main() {
    let file = std::env::args().nth(1).unwrap_or("circuits/aes_128.txt".into());
    let c = compile(&bristol::read_file(std::path::Path::new(&file)).expect("a Bristol circuit"));
    xor_loop(c.body());
    for kind in [HashKind::Rekeyed, HashKind::Tccr] {
        engine(&c, kind);
    }
}
