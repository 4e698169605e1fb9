//! Quick in-memory speed probe of the garbling cores on AES-128 (not a benchmark: see `mixgc bench`).
use mixgc_circuit::bristol;
use mixgc_compile::{compile, RunKind};
use mixgc_core::{AnyHash, Block, HashKind, TweakableHash};
use mixgc_garble::{Evaluator, Garbler, Scheme};
use std::time::Instant;

struct NoHash;
impl TweakableHash for NoHash {
    fn hash_many(&self, _: &mut [Block], _: &mut [Block]) {}
    fn hash_pairs(&self, _: &mut [Block], _: &[Block]) {}
}

fn run<H: TweakableHash>(name: &str, c: &mixgc_compile::CompiledCircuit, g: H, e: H) {
    let delta = Block::from_u128(0x1234567 | 1);
    let mut g = Garbler::new(g, delta);
    let mut e = Evaluator::new(e);
    let zero: Vec<Block> = (0..c.input_slots().len() as u128)
        .map(|i| Block::from_u128(i * 77777 + 5))
        .collect();
    let mut tables = Vec::with_capacity(20000);
    let reps = 1500;
    let (mut tg, mut te) = (0f64, 0f64);
    for _ in 0..reps {
        tables.clear();
        let t = Instant::now();
        g.start(c, &zero, [Block::ZERO, Block::ZERO]);
        g.garble(c.body(), &mut tables, usize::MAX);
        tg += t.elapsed().as_secs_f64();
        let t = Instant::now();
        e.start(c, &zero, [Block::ZERO, Block::ZERO]);
        e.evaluate(c.body(), &tables);
        te += t.elapsed().as_secs_f64();
    }
    let n = (c.num_ands() * reps) as f64;
    println!(
        "{name}: garble {:.2} ns/AND eval {:.2} ns/AND, {:.3} table bytes/AND",
        tg * 1e9 / n,
        te * 1e9 / n,
        (tables.len() * 16) as f64 / c.num_ands() as f64
    );
}

fn run_three_halves<H: TweakableHash>(name: &str, c: &mixgc_compile::CompiledCircuit, g: H, e: H) {
    let delta = Block::from_u128(0x89ab << 64 | 0x1234567 | 1);
    let mut g = Garbler::three_halves(g, delta, Block::from_u128(0x5eed));
    let mut e = Evaluator::with_scheme(e, Scheme::ThreeHalves, 0);
    let zero: Vec<Block> = (0..c.input_slots().len() as u128)
        .map(|i| Block::from_u128(i * 77777 + 5))
        .collect();
    let mut tables = Vec::with_capacity(200_000);
    let reps = 1500;
    let (mut tg, mut te) = (0f64, 0f64);
    for _ in 0..reps {
        tables.clear();
        let t = Instant::now();
        g.start(c, &zero, [Block::ZERO, Block::ZERO]);
        g.garble_bytes(c.body(), &mut tables, usize::MAX);
        tg += t.elapsed().as_secs_f64();
        let t = Instant::now();
        e.start(c, &zero, [Block::ZERO, Block::ZERO]);
        e.evaluate_bytes(c.body(), &tables);
        te += t.elapsed().as_secs_f64();
    }
    let n = (c.num_ands() * reps) as f64;
    println!(
        "{name}: garble {:.2} ns/AND eval {:.2} ns/AND, {:.3} table bytes/AND",
        tg * 1e9 / n,
        te * 1e9 / n,
        tables.len() as f64 / c.num_ands() as f64
    );
}

fn main() {
    let file = std::env::args().nth(1).unwrap_or("circuits/aes_128.txt".into());
    let c = compile(&bristol::read_file(std::path::Path::new(&file)).unwrap());
    let groups = c.runs().iter().filter(|r| r.kind == RunKind::And).count();
    let runs = c.runs().iter().filter(|r| r.kind == RunKind::Xor).count();
    let xors: u32 = c
        .runs()
        .iter()
        .filter(|r| r.kind == RunKind::Xor)
        .map(|r| r.len)
        .sum();
    println!(
        "{file}: ands {} xors/and {:.2} groups {} xor-runs {} slots {} gate KiB {}",
        c.num_ands(),
        xors as f64 / c.num_ands() as f64,
        groups,
        runs,
        c.num_slots(),
        c.gates().len() * 12 / 1024
    );
    run(
        "tccr",
        &c,
        AnyHash::new(HashKind::Tccr, Block::ZERO),
        AnyHash::new(HashKind::Tccr, Block::ZERO),
    );
    run("no hash", &c, NoHash, NoHash);
    run_three_halves(
        "three-halves tccr",
        &c,
        AnyHash::new(HashKind::Tccr, Block::ZERO),
        AnyHash::new(HashKind::Tccr, Block::ZERO),
    );
    run_three_halves("three-halves no hash", &c, NoHash, NoHash);
}
