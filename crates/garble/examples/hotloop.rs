//! The engine's hot loop on AES-128 in memory, timed by the thread's time on a CPU
//! (`/proc/thread-self/schedstat`, Linux) rather than the wall clock, so that other
//! processes sharing the machine lengthen the run but not the figures much (caches are
//! still shared). Prints medians over rounds: `hotloop [CIRCUIT] [ROUNDS]`.
use mixgc_circuit::bristol;
use mixgc_compile::{compile, CompiledCircuit};
use mixgc_core::{AnyHash, Block, HashKind, TweakableHash};
use mixgc_garble::{Evaluator, Garbler};

struct NoHash;
impl TweakableHash for NoHash {
    fn hash_many(&self, _: &mut [Block], _: &mut [Block]) {}
    fn hash_pairs(&self, _: &mut [Block], _: &[Block]) {}
}

/// Nanoseconds this thread has run on a CPU.
fn cpu_ns() -> u64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("Linux schedstat");
    s.split_whitespace().next().unwrap().parse().unwrap()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn measure<H: TweakableHash>(name: &str, c: &CompiledCircuit, rounds: usize, g: H, e: H) {
    let mut g = Garbler::new(g, Block::from_u128(0x1234567 | 1));
    let mut e = Evaluator::new(e);
    let zero: Vec<Block> = (0..c.input_slots().len() as u128)
        .map(|i| Block::from_u128(i * 77777 + 5))
        .collect();
    let mut tables = Vec::with_capacity(20000);
    let reps = 200;
    let (mut gs, mut es) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let (mut tg, mut te) = (0u64, 0u64);
        for _ in 0..reps {
            tables.clear();
            let t = cpu_ns();
            g.start(c, &zero, [Block::ZERO, Block::ZERO]);
            g.garble(c.body(), &mut tables, usize::MAX);
            let t1 = cpu_ns();
            e.start(c, &zero, [Block::ZERO, Block::ZERO]);
            e.evaluate(c.body(), &tables);
            te += cpu_ns() - t1;
            tg += t1 - t;
        }
        let n = (c.num_ands() * reps) as f64;
        gs.push(tg as f64 / n);
        es.push(te as f64 / n);
    }
    println!(
        "{name}: garble {:.2} ns/AND eval {:.2} ns/AND (median of {rounds} rounds, CPU time)",
        median(gs),
        median(es)
    );
}

fn main() {
    let file = std::env::args().nth(1).unwrap_or("circuits/aes_128.txt".into());
    let rounds = std::env::args().nth(2).map_or(9, |r| r.parse().expect("rounds"));
    let c = compile(&bristol::read_file(std::path::Path::new(&file)).unwrap());
    let tccr = || AnyHash::new(HashKind::Tccr, Block::ZERO);
    measure("tccr", &c, rounds, tccr(), tccr());
    let rekeyed = || AnyHash::new(HashKind::Rekeyed, Block::ZERO);
    measure("rekeyed", &c, rounds, rekeyed(), rekeyed());
    measure("no hash", &c, rounds, NoHash, NoHash);
}
