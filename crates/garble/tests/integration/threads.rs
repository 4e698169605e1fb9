//! Parallel blocks on several threads give the same tables and labels as one thread, and the
//! right outputs, however the tables are cut into frames.

use super::wide;

use mixgc_circuit::{bristol, Circuit};
use mixgc_compile::{compile_with, CompiledCircuit, Layout, Reorder, RunKind, DEFAULT_WINDOW};
use mixgc_core::{AnyHash, Block, HashKind};
use mixgc_garble::{Evaluator, Garbler, DEFAULT_SPLIT_ANDS};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

/// Labels and secrets of one garbling, drawn from a seed.
struct Keys {
    hash: HashKind,
    delta: Block,
    hash_seed: Block,
    zero: Vec<Block>,
    consts: [Block; 2],
}

impl Keys {
    fn new(c: &CompiledCircuit, hash: HashKind, seed: u64) -> Keys {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        Keys {
            hash,
            delta: Block::random(&mut rng).with_lsb_set(),
            hash_seed: Block::random(&mut rng),
            zero: (0..c.input_slots().len())
                .map(|_| Block::random(&mut rng))
                .collect(),
            consts: [Block::random(&mut rng), Block::random(&mut rng)],
        }
    }
}

/// Garbles `c` on `threads` threads, asking for `frame` blocks per call; returns the tables
/// and the output zero-labels.
fn garble(
    c: &CompiledCircuit,
    k: &Keys,
    threads: usize,
    split: usize,
    frame: usize,
) -> (Vec<Block>, Vec<Block>) {
    let mut g = Garbler::new(AnyHash::new(k.hash, k.hash_seed), k.delta);
    g.set_threads(threads).unwrap();
    g.set_split_ands(split);
    assert_eq!(g.threads(), threads);
    g.start(c, &k.zero, k.consts);
    let mut tables = Vec::new();
    while !g.garble(c.body(), &mut tables, frame) {}
    assert_eq!(g.ands_garbled(), c.num_ands());
    (tables, g.output_zero_labels(c))
}

/// Evaluates `c` on `threads` threads with the tables arriving in frames of `frame` blocks
/// (cut by size alone, as a session does); returns the output labels.
fn evaluate(
    c: &CompiledCircuit,
    k: &Keys,
    bits: &[bool],
    tables: &[Block],
    threads: usize,
    split: usize,
    frame: usize,
) -> Vec<Block> {
    let mut e = Evaluator::new(AnyHash::new(k.hash, k.hash_seed));
    e.set_threads(threads).unwrap();
    e.set_split_ands(split);
    let active: Vec<Block> = k
        .zero
        .iter()
        .zip(bits)
        .map(|(&z, &b)| z ^ k.delta.and_bit(b))
        .collect();
    e.start(c, &active, [k.consts[0], k.consts[1] ^ k.delta]);
    let (mut pending, mut frames) = (Vec::new(), tables.chunks(frame));
    loop {
        let (used, done) = e.evaluate(c.body(), &pending);
        pending.drain(..used);
        if done {
            break;
        }
        pending.extend_from_slice(
            frames
                .next()
                .expect("the evaluator wants no more tables than there are"),
        );
    }
    assert!(pending.is_empty() && frames.next().is_none(), "every table used");
    assert_eq!(e.ands_evaluated(), c.num_ands());
    e.output_labels(c)
}

/// Garbles and evaluates `c` on 1 to 4 threads (splitting every block, and only big ones)
/// with random frames: tables and labels equal the single-thread ones; outputs the IR's.
fn check(c: &Circuit, layout: Layout, rng: &mut impl Rng, hash: HashKind) {
    let compiled = compile_with(c, layout);
    let inputs: Vec<Vec<bool>> = c
        .input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.gen()).collect())
        .collect();
    let want: Vec<bool> = c.eval_plain(&inputs).unwrap().concat();
    let bits = inputs.concat();
    let keys = Keys::new(&compiled, hash, rng.gen());
    let (tables, zeros) = garble(&compiled, &keys, 1, 0, usize::MAX);
    for threads in 1..=4 {
        for split in [0, DEFAULT_SPLIT_ANDS] {
            let frame = rng.gen_range(1..4096);
            let g = garble(&compiled, &keys, threads, split, frame);
            assert!(
                g == (tables.clone(), zeros.clone()),
                "{layout:?}: {threads} garbling threads"
            );
            let e_threads = rng.gen_range(1..=4);
            let labels = evaluate(&compiled, &keys, &bits, &tables, e_threads, split, frame);
            for (l, z) in labels.iter().zip(&zeros) {
                assert!(*l == *z || *l == *z ^ keys.delta, "not a valid label");
            }
            let got: Vec<bool> = labels
                .iter()
                .zip(&zeros)
                .map(|(l, z)| l.lsb() ^ z.lsb())
                .collect();
            assert_eq!(got, want, "{layout:?}: {e_threads} evaluating threads");
        }
    }
}

fn layouts() -> [Layout; 3] {
    [
        Layout::Reordered(Reorder::Full, DEFAULT_WINDOW),
        Layout::Reordered(Reorder::Segment, 4096),
        Layout::Batched,
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]
    #[test]
    fn random_circuits_garble_alike_on_any_thread_count(seed: u64, gates in 1usize..3000, w1 in 1u32..64, w2 in 0u32..64) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let c = Circuit::random(&mut rng, &[w1, w2], gates, 16);
        for layout in layouts() {
            check(&c, layout, &mut rng, HashKind::Tccr);
        }
    }
}

#[test]
fn shipped_circuits_garble_alike_on_any_thread_count() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits");
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for name in ["aes_128.txt", "sha256.txt"] {
        let c = bristol::read_file(&dir.join(name)).unwrap();
        for layout in layouts() {
            check(&c, layout, &mut rng, HashKind::Tccr);
        }
    }
}

/// A wide circuit's blocks are big enough to be split at the default threshold.
#[test]
fn wide_circuits_garble_alike_on_any_thread_count() {
    let c = wide::wide_aes(8);
    let full = compile_with(&c, Layout::Reordered(Reorder::Full, DEFAULT_WINDOW));
    let big_blocks = full
        .runs()
        .iter()
        .enumerate()
        .filter(|(_, r)| r.kind == RunKind::Parallel)
        .filter(|&(i, r)| {
            let block = &full.runs()[i + 1..i + 1 + r.len as usize];
            block
                .iter()
                .filter(|r| r.kind == RunKind::And)
                .map(|r| r.len as usize)
                .sum::<usize>()
                >= DEFAULT_SPLIT_ANDS
        })
        .count();
    assert!(big_blocks >= 10, "{big_blocks} blocks to split");
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    check(
        &c,
        Layout::Reordered(Reorder::Full, DEFAULT_WINDOW),
        &mut rng,
        HashKind::Rekeyed,
    );
}
