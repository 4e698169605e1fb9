//! The model on tiny hand-built programs with hand-checked cycle counts.

use super::*;
use crate::isa::{Instruction, Schedule};

const BIG: u32 = 1 << 17;

fn ins(op: Op, a: u32, b: u32, live: bool) -> Instruction {
    Instruction { op, a, b, live }
}

/// A program assigned by the seed's dispatcher for `ges` engines.
fn program(ges: u16, window: u32, inputs: u32, instructions: Vec<Instruction>) -> HaacProgram {
    let last = inputs + instructions.len() as u32;
    let mut p = HaacProgram {
        ges,
        window,
        schedule: Schedule::Program,
        inputs,
        instructions,
        engine: Vec::new(),
        outputs: vec![last],
    };
    p.engine = try_assign_engines(&p, &SimConfig::seed_default(ges, Memory::Hbm2)).unwrap();
    p.validate().unwrap();
    p
}

/// `n` ANDs, each reading the previous one's output.
fn and_chain(ges: u16, n: u32) -> HaacProgram {
    let instructions = (0..n)
        .map(|k| ins(Op::And, if k == 0 { 1 } else { 2 + k }, 2, k + 1 == n))
        .collect();
    program(ges, BIG, 2, instructions)
}

/// `n` independent ANDs over distinct inputs (`2n` inputs).
fn independent_ands(ges: u16, n: u32) -> HaacProgram {
    let instructions = (0..n).map(|k| ins(Op::And, 2 * k + 1, 2 * k + 2, true)).collect();
    let mut p = program(ges, BIG, 2 * n, instructions);
    p.outputs = (2 * n + 1..=3 * n).collect();
    p
}

fn accounting_holds(r: &SimReport) {
    assert_eq!(r.issued, r.instructions);
    assert_eq!(
        r.issued + r.stalls.total() + r.drained,
        u64::from(r.ges) * r.cycles,
        "every GE cycle issues or is charged to a cause: {r:?}"
    );
    assert_eq!(r.sww_overruns, 0);
}

#[test]
fn a_chain_of_ands_is_latency_bound() {
    // Fetch, decode and three read stages (5), then 18 (Evaluator) or 21 (Garbler) cycles
    // per AND, then two write-back cycles: n × latency + 7, however many engines.
    for ges in [1, 4, 16] {
        let p = and_chain(ges, 50);
        let cfg = SimConfig::seed_default(ges, Memory::Hbm2);
        let e = simulate(&p, &cfg, Role::Evaluator).unwrap();
        assert_eq!(e.compute_cycles, 50 * 18 + 7, "ges {ges} {e:?}");
        let g = simulate(&p, &cfg, Role::Garbler).unwrap();
        assert_eq!(g.compute_cycles, 50 * 21 + 7);
        // With memory the chain waits once for the first queues to fill (DRAM latency),
        // then runs at the same pace.
        assert!(
            e.cycles >= e.compute_cycles && e.cycles <= e.compute_cycles + 150,
            "{e:?}"
        );
        assert!(e.stalls.dependency >= 49 * 17 * u64::from(ges.min(1)));
        accounting_holds(&e);
        accounting_holds(&g);
    }
}

#[test]
fn a_chain_of_xors_takes_one_cycle_each() {
    let instructions = (0..40)
        .map(|k| ins(Op::Xor, if k == 0 { 1 } else { 2 + k }, 2, k == 39))
        .collect();
    let p = program(2, BIG, 2, instructions);
    let r = simulate(&p, &SimConfig::seed_default(2, Memory::Hbm2), Role::Evaluator).unwrap();
    assert_eq!(r.compute_cycles, 5 + 40 + 2);
}

#[test]
fn independent_ands_are_throughput_bound() {
    // 1600 ANDs on 16 engines: 100 issues per engine from cycle 5, the last done 18 later,
    // written back 2 after: 100 + 24 cycles.
    let p = independent_ands(16, 1600);
    let per_engine = (0..16)
        .map(|g| p.engine.iter().filter(|&&e| e == g).count())
        .collect::<Vec<_>>();
    assert_eq!(per_engine, vec![100; 16]);
    let r = simulate(&p, &SimConfig::seed_default(16, Memory::Hbm2), Role::Evaluator).unwrap();
    assert_eq!(r.compute_cycles, 100 + 24);
    accounting_holds(&r);
    // One engine: 1600 + 24.
    let p = independent_ands(1, 1600);
    let r = simulate(&p, &SimConfig::seed_default(1, Memory::Hbm2), Role::Evaluator).unwrap();
    assert_eq!(r.compute_cycles, 1600 + 24);
}

/// Window 8 (halves of 4): wire 3 is computed by the first instruction, live, and read
/// again by the last one, whose window is [8, 16): one OoRW read, one live write-back.
fn evicted_wire_program() -> HaacProgram {
    let x = |a, b| ins(Op::Xor, a, b, false);
    let instructions = vec![
        ins(Op::And, 1, 2, true),  // 3
        x(3, 2),                   // 4
        x(4, 3),                   // 5
        x(5, 4),                   // 6
        x(6, 5),                   // 7
        ins(Op::Nop, 0, 0, false), // 8: SWW address 0, never read
        x(7, 6),                   // 9
        x(9, 7),                   // 10
        x(10, 9),                  // 11
        x(11, 10),                 // 12
        ins(Op::And, 12, 3, true), // 13: reads 3 out of range
    ];
    program(1, 8, 2, instructions)
}

#[test]
fn a_wire_evicted_from_the_sww_costs_exactly_one_oorw_read() {
    let p = evicted_wire_program();
    assert_eq!(p.oor_reads(), vec![(10, 3)]);
    let cfg = SimConfig::seed_default(1, Memory::Ddr4);
    let r = simulate(&p, &cfg, Role::Evaluator).unwrap();
    assert_eq!(r.oorw_reads, 1);
    assert_eq!(r.live_wires, 2);
    assert_eq!(r.bytes.oorw_reads, 16);
    assert_eq!(r.bytes.oorw_addresses, 4);
    assert_eq!(r.bytes.live_writebacks, 16);
    assert_eq!(r.bytes.outputs, 16);
    assert_eq!(r.bytes.inputs, 32);
    assert_eq!(r.bytes.tables, 64);
    // Eleven 9-bit instructions (2 + 2·3 + 1).
    assert_eq!(r.bytes.instructions, 12);
    accounting_holds(&r);
    // The read waits for wire 3's write-back to reach DRAM and come back: at least two
    // DRAM latencies after the first AND.
    assert!(r.cycles > 2 * u64::from(cfg.dram_latency_cycles) + 18, "{r:?}");
    assert!(r.stalls.oorw_queue > 0);
}

#[test]
fn an_out_of_range_read_of_a_spent_wire_is_refused() {
    let mut p = evicted_wire_program();
    p.instructions[0].live = false;
    let err = simulate(&p, &SimConfig::seed_default(1, Memory::Ddr4), Role::Evaluator);
    assert_eq!(err, Err(SimError::DeadWire { index: 10, wire: 3 }));
    assert!(err.unwrap_err().to_string().contains("live bit"));
}

#[test]
fn tiny_bandwidth_makes_the_run_memory_bound() {
    let p = independent_ands(2, 64);
    let mut cfg = SimConfig::seed_default(2, Memory::GBps(0.05));
    let r = simulate(&p, &cfg, Role::Evaluator).unwrap();
    assert_eq!(r.bound, Bound::Memory);
    // 128 inputs, 64 tables, 64 instructions of 37 bits, 64 outputs.
    assert_eq!(r.bytes.total, 128 * 16 + 64 * 32 + 296 + 64 * 16);
    assert_eq!(r.memory_cycles, (r.bytes.total as f64 / 0.05).ceil() as u64);
    let slack = u64::from(cfg.dram_latency_cycles) + 100;
    assert!(
        r.cycles >= r.memory_cycles && r.cycles <= r.memory_cycles + slack,
        "{r:?}"
    );
    accounting_holds(&r);
    // Ample bandwidth: compute-bound, close to the GE-only bound.
    cfg.memory = Memory::Hbm2;
    let r = simulate(&p, &cfg, Role::Evaluator).unwrap();
    assert_eq!(r.bound, Bound::Compute);
    assert!(r.cycles <= r.compute_cycles + slack, "{r:?}");
}

#[test]
fn the_garbler_writes_the_tables_the_evaluator_reads() {
    let p = independent_ands(4, 200);
    let cfg = SimConfig::seed_default(4, Memory::Ddr4);
    let g = simulate(&p, &cfg, Role::Garbler).unwrap();
    let e = simulate(&p, &cfg, Role::Evaluator).unwrap();
    assert_eq!(g.bytes.tables, 200 * 32);
    assert_eq!(g.bytes, e.bytes);
    assert_eq!(g.stalls.table_queue, 0);
    accounting_holds(&g);
}

#[test]
fn sww_bank_contention_serialises_engines() {
    // Every AND reads two distinct wires of bank 1 (2 engines: 8 banks): its two ports per
    // GE cycle serve one instruction per cycle, not two.
    let n = 200;
    let instructions = (0..n)
        .map(|k| ins(Op::And, 1 + 16 * k, 9 + 16 * k, true))
        .collect();
    let mut p = program(2, BIG, 16 * n, instructions);
    p.outputs = (16 * n + 1..=17 * n).collect();
    let r = simulate(&p, &SimConfig::seed_default(2, Memory::Hbm2), Role::Evaluator).unwrap();
    assert!(r.compute_cycles >= u64::from(n), "{r:?}");
    assert!(r.stalls.bank_conflict > 0);
    accounting_holds(&r);
    // Reads of the same two wires are multicast to both engines: they run in parallel but
    // for the cycles a write-back takes one of bank 1's ports.
    let instructions = (0..n).map(|_| ins(Op::And, 1, 9, true)).collect();
    let mut p = program(2, BIG, 16, instructions);
    p.outputs = (17..17 + n).collect();
    let r = simulate(&p, &SimConfig::seed_default(2, Memory::Hbm2), Role::Evaluator).unwrap();
    assert!(r.compute_cycles < u64::from(n) * 3 / 4, "{r:?}");
}

/// A random valid program: each instruction reads wires from the last `reach` ones.
fn random_program(seed: u64, n: u32, inputs: u32, reach: u32, ges: u16, window: u32) -> HaacProgram {
    let mut s = seed;
    let mut next = move |m: u32| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s % u64::from(m)) as u32
    };
    let mut instructions = Vec::with_capacity(n as usize);
    for k in 0..n {
        let out = inputs + 1 + k;
        let mut pick = |r: u32| {
            let lo = out.saturating_sub(r).max(1);
            loop {
                let w = lo + next(out - lo);
                if !w.is_multiple_of(window) {
                    return w;
                }
            }
        };
        let (a, b) = (pick(reach), pick(reach));
        let op = match next(10) {
            0..=3 => Op::And,
            4..=8 => Op::Xor,
            _ => Op::Not,
        };
        let b = if op == Op::Not { 0 } else { b };
        instructions.push(ins(op, a, b, false));
    }
    let mut p = program(ges, window, inputs, instructions);
    // The live bit: an output read out of the window, or a program output.
    for (_, w) in p.oor_reads() {
        if w > inputs {
            p.instructions[(w - inputs - 1) as usize].live = true;
        }
    }
    let last = p.instructions.len() - 1;
    p.instructions[last].live = true;
    p
}

#[test]
fn assignment_is_deterministic_and_balanced() {
    for (seed, ges) in [(1, 4), (7, 16), (99, 3)] {
        let p = random_program(seed, 20_000, 64, 2_000, ges, 4096);
        let cfg = SimConfig::seed_default(ges, Memory::Ddr4);
        let again = assign_engines(&p, &cfg);
        assert_eq!(again, p.engine);
        let fair = p.engine.len() / usize::from(ges);
        for g in 0..ges {
            let count = p.engine.iter().filter(|&&e| e == g).count();
            assert!(count.abs_diff(fair) <= fair / 10, "engine {g}: {count} of {fair}");
        }
        let e = simulate(&p, &cfg, Role::Evaluator).unwrap();
        accounting_holds(&e);
        assert!(e.cycles >= e.compute_cycles.max(e.memory_cycles));
        let g = simulate(&p, &cfg, Role::Garbler).unwrap();
        accounting_holds(&g);
    }
}

#[test]
fn skipping_idle_engines_and_cycles_changes_nothing() {
    let mut cases = vec![
        (evicted_wire_program(), 1u16),
        (and_chain(4, 30), 4),
        (independent_ands(2, 64), 2),
    ];
    for (seed, ges, window) in [(3, 4, 256), (11, 16, 4096), (5, 2, 64), (8, 3, 16), (21, 8, 1024)] {
        cases.push((random_program(seed, 3_000, 40, 300, ges, window), ges));
    }
    for (p, ges) in cases {
        for memory in [Memory::Ddr4, Memory::Hbm2, Memory::GBps(1.0)] {
            for role in [Role::Evaluator, Role::Garbler] {
                let mut cfg = SimConfig::seed_default(ges, memory);
                cfg.table_queue_bytes = 256;
                cfg.write_buffer_bytes = 64;
                let fast = simulate_with(&p, &cfg, role, true).unwrap();
                let slow = simulate_with(&p, &cfg, role, false).unwrap();
                assert_eq!(fast, slow, "{ges} GEs, {memory:?}, {role:?}");
            }
        }
    }
}

#[test]
fn bad_input_is_a_clear_error() {
    let p = and_chain(2, 10);
    let err = simulate(&p, &SimConfig::seed_default(4, Memory::Ddr4), Role::Evaluator);
    assert_eq!(
        err,
        Err(SimError::Engines {
            program: 2,
            config: 4
        })
    );
    let mut bad = p.clone();
    bad.instructions[3].a = 40;
    let cfg = SimConfig::seed_default(2, Memory::Ddr4);
    assert!(matches!(
        simulate(&bad, &cfg, Role::Evaluator),
        Err(SimError::Program(HaacError::Operand { index: 3, wire: 40 }))
    ));
    assert!(try_assign_engines(&bad, &cfg).is_err());
    // The fallback assignment is still a valid one.
    assert_eq!(assign_engines(&bad, &cfg), vec![0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
    let mut cfg0 = cfg.clone();
    cfg0.memory = Memory::GBps(-1.0);
    assert!(matches!(
        simulate(&p, &cfg0, Role::Evaluator),
        Err(SimError::Config(_))
    ));
}

#[test]
fn reassignment_and_esw_off_keep_the_stream() {
    let p = evicted_wire_program();
    let cfg4 = SimConfig::seed_default(4, Memory::Ddr4);
    let q = reassigned(&p, &cfg4).unwrap();
    assert_eq!(q.ges, 4);
    assert_eq!(q.instructions, p.instructions);
    q.validate().unwrap();
    let r = simulate(&q, &cfg4, Role::Evaluator).unwrap();
    assert_eq!(r.oorw_reads, 1);
    let all = all_live(&p);
    let r = simulate(&all, &SimConfig::seed_default(1, Memory::Ddr4), Role::Evaluator).unwrap();
    assert_eq!(r.live_wires, 10);
    // Nine write-backs besides the output (the nop writes nothing).
    assert_eq!(r.bytes.live_writebacks, 9 * 16);
    assert_eq!(
        r.wire_traffic_cycles,
        ((9 * 16 + 16 + 20) as f64 / 35.2).ceil() as u64
    );
}

#[test]
fn a_huge_window_allocates_only_what_the_program_uses() {
    // 2^31 SWW addresses: the model sizes its SWW by the wires that exist.
    let p = and_chain(2, 20);
    let mut q = p.clone();
    q.window = 1 << 31;
    let cfg = SimConfig::seed_default(2, Memory::Ddr4);
    let r = simulate(&q, &cfg, Role::Evaluator).unwrap();
    assert_eq!(
        r.compute_cycles,
        simulate(&p, &cfg, Role::Evaluator).unwrap().compute_cycles
    );
    let mut cfg = cfg;
    cfg.ges = 5000;
    assert!(cfg.validate().unwrap_err().to_string().contains("ges"));
}

#[test]
fn an_empty_program_takes_no_cycles() {
    let p = program(2, 8, 3, Vec::new());
    let r = simulate(&p, &SimConfig::seed_default(2, Memory::Ddr4), Role::Evaluator).unwrap();
    assert_eq!(r.cycles, 0);
    assert_eq!(r.bytes.total, 0);
}

/// `cargo test --release -p mixgc-haac -- --ignored --nocapture ten_million`
#[test]
#[ignore = "timing run"]
fn ten_million_instructions_time() {
    let start = std::time::Instant::now();
    let p = random_program(
        5,
        std::env::var("SIM_N").map_or(10_000_000, |v| v.parse().unwrap()),
        1024,
        30_000,
        16,
        131_072,
    );
    let built = start.elapsed();
    let r = simulate(&p, &SimConfig::seed_default(16, Memory::Ddr4), Role::Evaluator).unwrap();
    println!(
        "built+assigned {built:?}, simulated in {:?}: {r:?}",
        start.elapsed() - built
    );
}
