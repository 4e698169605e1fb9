//! The HAAC compiler against plaintext evaluation: every program it emits, run in plaintext
//! through the sliding window (OoR reads only from memory holding live wires), converted
//! back to a circuit, and through a `.haac` file, computes what the circuit computes.

use mixgc_circuit::{bristol, Circuit};
use mixgc_haac::{
    compile, eval_windowed, file, to_circuit, CompileOptions, EvalError, HaacCircuit, Op, Schedule,
};
use mixgc_program::vip::Workload;
use mixgc_program::{Ctx, Recorder};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

const SCHEDULES: [Schedule; 3] = [Schedule::Program, Schedule::Segment, Schedule::Full];

fn opts(schedule: Schedule, window: u32, ges: u16) -> CompileOptions {
    CompileOptions {
        schedule,
        window,
        ges,
    }
}

fn random_inputs(c: &Circuit, rng: &mut impl Rng) -> Vec<Vec<bool>> {
    c.input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.gen()).collect())
        .collect()
}

/// `hc` computes what `c` computes on `inputs`: windowed, converted back, and read back from
/// its file.
fn check(c: &Circuit, hc: &HaacCircuit, inputs: &[Vec<bool>]) {
    let want = c.eval_plain(inputs).unwrap();
    assert_eq!(eval_windowed(hc, inputs).unwrap(), want, "windowed evaluation");
    assert_eq!(
        to_circuit(hc).unwrap().eval_plain(inputs).unwrap(),
        want,
        "converted circuit"
    );
}

#[test]
fn random_circuits_with_copies_and_constants() {
    let mut rng = ChaCha8Rng::seed_from_u64(20);
    for round in 0..300 {
        let widths: Vec<u32> = (0..rng.gen_range(0..4)).map(|_| rng.gen_range(0..6)).collect();
        let (gates, outputs) = (rng.gen_range(0..200), rng.gen_range(0..12));
        let c = Circuit::random(&mut rng, &widths, gates, outputs);
        let schedule = SCHEDULES[round % 3];
        let window = [4, 6, 8, 16, 1024][round % 5];
        let ges = [1, 2, 3, 16][round % 4];
        let hc = compile(&c, 0, opts(schedule, window, ges)).unwrap();
        let s = c.stats();
        assert_eq!(hc.program.instructions.len(), s.ands + s.xors + s.nots);
        for _ in 0..3 {
            check(&c, &hc, &random_inputs(&c, &mut rng));
        }
        assert_eq!(file::read(&file::write(&hc)).as_ref(), Ok(&hc), "round {round}");
        if round < 20 {
            let cfg = mixgc_haac::sim::SimConfig::seed_default(ges, mixgc_haac::sim::Memory::Ddr4);
            assert_eq!(
                hc.program.engine,
                mixgc_haac::sim::assign_engines(&hc.program, &cfg),
                "round {round}"
            );
        }
    }
}

#[test]
fn copies_and_constants_are_folded_by_hand() {
    // in a (1 bit, wire 0): w1 = 1, w2 = 0, w3 = a AND w1, w4 = w3 ^ w2, w5 = copy of w1,
    // w6 = copy of w3; outputs w4, w5, w6.
    let text = "6 7\n1 1\n3 1 1 1\n\n1 1 1 1 EQ\n1 1 0 2 EQ\n2 1 0 1 3 AND\n2 1 3 2 4 XOR\n1 1 1 5 EQW\n1 1 3 6 EQW\n";
    let c = bristol::parse(text, "folding").unwrap();
    let hc = compile(&c, 1, opts(Schedule::Program, 8, 1)).unwrap();
    // Inputs: a = 1, then the constants 0 = 2 and 1 = 3; AND writes 4, XOR writes 5.
    assert_eq!(hc.program.inputs, 3);
    assert_eq!(hc.io.constants, vec![false, true]);
    let ops: Vec<(Op, u32, u32)> = hc.program.instructions.iter().map(|i| (i.op, i.a, i.b)).collect();
    assert_eq!(ops, vec![(Op::And, 1, 3), (Op::Xor, 4, 2)]);
    assert_eq!(hc.program.outputs, vec![5, 3, 4]);
    // The seed's simulator-driven assignment.
    let cfg = mixgc_haac::sim::SimConfig::seed_default(1, mixgc_haac::sim::Memory::Hbm2);
    assert_eq!(
        hc.program.engine,
        mixgc_haac::sim::assign_engines(&hc.program, &cfg)
    );
    // Both instructions write program outputs, so both are live.
    assert!(hc.program.instructions.iter().all(|i| i.live));
    for a in [false, true] {
        check(&c, &hc, &[vec![a]]);
    }
}

#[test]
fn every_live_bit_is_needed() {
    // Clearing any live bit makes the windowed evaluation fail: spent-wire elimination keeps
    // exactly the wires that leave the window or are outputs.
    let c = bristol::read_file(&circuits().join("adder64.txt")).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let inputs = random_inputs(&c, &mut rng);
    for schedule in SCHEDULES {
        let hc = compile(&c, 1, opts(schedule, 8, 4)).unwrap();
        check(&c, &hc, &inputs);
        let live: Vec<usize> = (0..hc.program.instructions.len())
            .filter(|&i| hc.program.instructions[i].live)
            .collect();
        assert!(
            live.len() < hc.program.instructions.len(),
            "{schedule:?}: some wires are spent"
        );
        for i in live {
            let mut spent = hc.clone();
            spent.program.instructions[i].live = false;
            assert!(
                matches!(
                    eval_windowed(&spent, &inputs),
                    Err(EvalError::NotInMemory { .. } | EvalError::OutputNotInMemory { .. })
                ),
                "{schedule:?}: clearing the live bit of instruction {i} went unnoticed"
            );
        }
    }
}

fn circuits() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits")
}

#[test]
fn shipped_circuits_under_every_schedule() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut paths: Vec<_> = std::fs::read_dir(circuits())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 10, "{paths:?}");
    for path in paths {
        let c = bristol::read_file(&path).unwrap();
        let inputs = random_inputs(&c, &mut rng);
        for schedule in SCHEDULES {
            for window in [8, 131_072] {
                let hc = compile(&c, 1, opts(schedule, window, 16)).unwrap();
                check(&c, &hc, &inputs);
                if window == 8 && c.num_gates() > 100 {
                    assert!(
                        !hc.program.oor_reads().is_empty(),
                        "{}: window 8 forces OoR reads",
                        path.display()
                    );
                }
                assert_eq!(
                    file::read(&file::write(&hc)).as_ref(),
                    Ok(&hc),
                    "{}",
                    path.display()
                );
            }
        }
    }
}

/// The recorded circuit of a VIP workload and its garbler's value count.
fn record(w: Workload) -> (Circuit, u32) {
    let ctx = Ctx::new(Recorder::default());
    w.program(&ctx, None, None).unwrap();
    let recorded = ctx.into_inner().unwrap().finish();
    (recorded.circuit, recorded.garbler_values as u32)
}

fn words_to_bits(words: &[u32]) -> Vec<bool> {
    words
        .iter()
        .flat_map(|&v| (0..32).map(move |i| v >> i & 1 == 1))
        .collect()
}

#[test]
fn vip_workloads_match_their_models() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for w in [Workload::DotProd, Workload::Relu] {
        let (c, garbler_values) = record(w);
        let g: Vec<u32> = (0..w.garbler_words()).map(|_| rng.gen()).collect();
        let e: Vec<u32> = (0..w.evaluator_words()).map(|_| rng.gen()).collect();
        let want = words_to_bits(&w.model(&g, &e).unwrap());
        let inputs = vec![words_to_bits(&g), words_to_bits(&e)];
        for schedule in SCHEDULES {
            let hc = compile(&c, garbler_values, opts(schedule, 8, 16)).unwrap();
            assert_eq!(hc.io.garbler_values, 1);
            let got = eval_windowed(&hc, &inputs).unwrap();
            assert_eq!(got.concat(), want, "{} {schedule:?}", w.name());
        }
    }
}

#[test]
fn auto_keeps_the_schedule_the_model_runs_faster() {
    use mixgc_haac::sim::{simulate, Memory, Role, SimConfig};
    for name in ["adder64.txt", "mult64.txt"] {
        let c = bristol::read_file(&circuits().join(name)).unwrap();
        let choice = mixgc_haac::compile_auto(&c, 1, 64, 4, Memory::Ddr4).unwrap();
        let (faster, cycles) = if choice.full_cycles < choice.segment_cycles {
            (Schedule::Full, choice.full_cycles)
        } else {
            (Schedule::Segment, choice.segment_cycles)
        };
        assert_eq!(choice.chosen.program.schedule, faster, "{name}");
        let cfg = SimConfig::seed_default(4, Memory::Ddr4);
        assert_eq!(
            simulate(&choice.chosen.program, &cfg, Role::Evaluator)
                .unwrap()
                .cycles,
            cycles
        );
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        check(&c, &choice.chosen, &random_inputs(&c, &mut rng));
    }
}
