use mixgc_circuit::bristol;
use mixgc_compile::{compile, Op};
use mixgc_core::{AnyHash, Block, HashKind};
use mixgc_garble::{Evaluator, Garbler};
use std::time::Instant;
fn main() {
    let c = compile(&bristol::read_file(std::path::Path::new("circuits/aes_128.txt")).unwrap());
    let groups = c.instrs().iter().filter(|i| i.op == Op::Ands).count();
    println!(
        "ands {} groups {} mean {:.1} slots {}",
        c.num_ands(),
        groups,
        c.num_ands() as f64 / groups as f64,
        c.num_slots()
    );
    for hash in [HashKind::Tccr] {
        let delta = Block::from_u128(0x1234567 | 1);
        let mut g = Garbler::new(AnyHash::new(hash, Block::ZERO), delta);
        let mut e = Evaluator::new(AnyHash::new(hash, Block::ZERO));
        let zero: Vec<Block> = (0..256u128)
            .map(|i| Block::from_u128(i * 77777 + 5))
            .collect();
        let mut tables = Vec::with_capacity(20000);
        let reps = 1500;
        let (mut tg, mut te) = (0f64, 0f64);
        for _ in 0..reps {
            tables.clear();
            let t = Instant::now();
            g.start(&c, &zero, [Block::ZERO, Block::ZERO]);
            g.garble(&c, &mut tables, usize::MAX);
            tg += t.elapsed().as_secs_f64();
            let t = Instant::now();
            e.start(&c, &zero, [Block::ZERO, Block::ZERO]);
            e.evaluate(&c, &tables);
            te += t.elapsed().as_secs_f64();
        }
        let n = (c.num_ands() * reps) as f64;
        println!(
            "{hash}: garble {:.2} ns/AND eval {:.2} ns/AND",
            tg * 1e9 / n,
            te * 1e9 / n
        );
    }
}
