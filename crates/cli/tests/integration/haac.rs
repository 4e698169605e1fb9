//! `mixgc compile --isa haac` and `mixgc run --circuit F.haac`: the `.haac` file of every
//! shipped circuit and of two VIP-Bench workloads, run in two-party computation, gives the
//! outputs of the Bristol circuit (or the workload's model) under all three schedules and a
//! window of 8 wires that forces out-of-range reads; errors are clear.

use super::common;

use std::thread;

use common::*;
use mixgc_circuit::{bristol, values, Circuit};
use mixgc_compile::{compile_with, CompiledCircuit, Layout, Reorder};
use mixgc_haac::file;
use mixgc_net::memory_pair;
use mixgc_program::vip::Workload;
use mixgc_session::{Audience, EvaluatorSession, GarblerSession, SessionConfig, Terms};
use rand::Rng;

const SCHEDULES: [&str; 3] = ["program", "segment", "full"];

/// `mixgc compile SOURCE --isa haac --window 8 --ges 4 --schedule S --out OUT`.
fn compile_haac(source: &[&str], schedule: &str, out: &str) -> Output {
    let mut args = vec!["compile"];
    args.extend(source);
    args.extend([
        "--isa",
        "haac",
        "--window",
        "8",
        "--ges",
        "4",
        "--schedule",
        schedule,
        "--out",
        out,
    ]);
    let o = run1(&args);
    o.assert_ok("compile --isa haac");
    o
}

fn scratch(name: &str) -> String {
    let dir = std::env::temp_dir().join(format!("mixgc-haac-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name).to_str().unwrap().to_string()
}

/// The circuit `mixgc run` garbles for a `.haac` file: its instructions in their order.
fn haac_circuit(path: &str) -> (Circuit, CompiledCircuit, usize) {
    let hc = file::read_file(std::path::Path::new(path)).unwrap();
    let c = mixgc_haac::to_circuit(&hc).unwrap();
    let compiled = compile_with(
        &c,
        Layout::Reordered(Reorder::Program, hc.program.window as usize),
    );
    (c, compiled, hc.io.garbler_values as usize)
}

/// Both parties in one process over an in-memory channel; both learn the outputs.
fn two_party(compiled: &CompiledCircuit, garbler_values: usize, all: &[Vec<bool>]) -> Vec<Vec<bool>> {
    let terms = Terms {
        garbler_values: Some(garbler_values),
        reveal: Audience::BOTH,
    };
    let (g, e) = terms.owners(compiled.input_widths()).unwrap();
    let pick = |owned: &[usize]| -> Vec<Vec<bool>> { owned.iter().map(|&v| all[v].clone()).collect() };
    let (gi, ei) = (pick(&g), pick(&e));
    let (gch, ech) = memory_pair();
    let cfg = SessionConfig::default();
    let (go, eo) = thread::scope(|s| {
        let et = &terms;
        let ecfg = cfg.clone();
        let e = s.spawn(move || {
            EvaluatorSession::setup(ech, &ecfg).and_then(|mut e| e.execute(compiled, et, &ei))
        });
        let g = GarblerSession::setup(gch, &cfg).and_then(|mut g| g.execute(compiled, &terms, &gi));
        (g.unwrap(), e.join().unwrap().unwrap())
    });
    assert_eq!(go.outputs, eo.outputs, "both parties learn the same outputs");
    go.outputs.unwrap()
}

fn random_inputs(c: &Circuit, rng: &mut impl Rng) -> Vec<Vec<bool>> {
    c.input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.gen()).collect())
        .collect()
}

#[test]
fn every_shipped_circuit_as_a_haac_file_in_2pc_matches_the_bristol_circuit() {
    let mut rng = test_rng();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 10);
    for path in paths {
        let bristol = bristol::read_file(&path).unwrap();
        let inputs = random_inputs(&bristol, &mut rng);
        let want = bristol.eval_plain(&inputs).unwrap();
        let name = path.file_name().unwrap().to_str().unwrap();
        for schedule in SCHEDULES {
            let out = scratch(&format!("{name}.{schedule}.haac"));
            let o = compile_haac(&[path.to_str().unwrap()], schedule, &out);
            assert!(o.stderr.contains("OoRW reads per kilo-instruction"), "{o:#?}");
            let (c, compiled, garbler_values) = haac_circuit(&out);
            assert_eq!(c.input_widths, bristol.input_widths);
            let nonzero = bristol.input_widths.iter().filter(|&&w| w > 0).count();
            assert_eq!(
                garbler_values,
                nonzero.div_ceil(2),
                "the default split of `mixgc run`"
            );
            assert_eq!(
                two_party(&compiled, garbler_values, &inputs),
                want,
                "{name} {schedule}"
            );
            let _ = std::fs::remove_file(&out);
        }
    }
}

fn words_to_bits(words: &[u32]) -> Vec<bool> {
    words
        .iter()
        .flat_map(|&v| (0..32).map(move |i| v >> i & 1 == 1))
        .collect()
}

#[test]
fn relu_as_a_haac_file_in_2pc_matches_the_model() {
    let mut rng = test_rng();
    let w = Workload::Relu;
    let mut g: Vec<u32> = (0..w.garbler_words()).map(|_| rng.gen()).collect();
    let e: Vec<u32> = (0..w.evaluator_words()).map(|_| rng.gen()).collect();
    g[..4].copy_from_slice(&[0x8000_0000, u32::MAX, 0, 0x7FFF_FFFF]);
    let want = words_to_bits(&w.model(&g, &e).unwrap());
    for schedule in SCHEDULES {
        let out = scratch(&format!("relu.{schedule}.haac"));
        compile_haac(&["--vip", "relu"], schedule, &out);
        let (_, compiled, garbler_values) = haac_circuit(&out);
        assert_eq!(garbler_values, 1);
        let got = two_party(&compiled, garbler_values, &[words_to_bits(&g), words_to_bits(&e)]);
        assert_eq!(got.concat(), want, "relu {schedule}");
        let _ = std::fs::remove_file(&out);
    }
}

#[test]
fn dotprod_haac_file_between_two_processes_matches_the_model() {
    let mut rng = test_rng();
    let w = Workload::DotProd;
    let edges = [0x8000_0000u32, u32::MAX, 0, 0x7FFF_FFFF, 0xFFFF_0000];
    let a: Vec<u32> = (0..128)
        .map(|i| if i < 5 { edges[i] } else { rng.gen() })
        .collect();
    let b: Vec<u32> = (0..128)
        .map(|i| if i < 5 { edges[4 - i] } else { rng.gen() })
        .collect();
    let want = values::to_hex(&words_to_bits(&w.model(&a, &b).unwrap()));
    let out = scratch("dotprod.full.haac");
    compile_haac(&["--vip", "dotprod"], "full", &out);
    let (a_hex, b_hex) = (
        values::to_hex(&words_to_bits(&a)),
        values::to_hex(&words_to_bits(&b)),
    );
    let (g, e) = garbler_listens(&out, &["--input", &a_hex], &["--input", &b_hex]);
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert_eq!(g.stdout.trim(), want);
    assert_eq!(e.stdout.trim(), want);
    let _ = std::fs::remove_file(&out);
}

#[test]
fn aes_haac_file_between_two_processes_matches_the_bristol_run() {
    let key = "000102030405060708090a0b0c0d0e0f";
    let text = "00112233445566778899aabbccddeeff";
    let aes = circuit("aes_128.txt");
    let (bg, be) = garbler_listens(&aes, &["--input", key], &["--input", text]);
    be.assert_ok("bristol evaluator");
    bg.assert_ok("bristol garbler");
    let out = scratch("aes.segment.haac");
    compile_haac(&[&aes], "segment", &out);
    let (g, e) = garbler_listens(&out, &["--input", key], &["--input", text]);
    g.assert_ok("haac garbler");
    e.assert_ok("haac evaluator");
    assert_eq!(e.stdout, be.stdout);
    assert_eq!(g.stdout, bg.stdout);
    let _ = std::fs::remove_file(&out);
}

#[test]
fn schedule_auto_writes_the_faster_order() {
    let out = scratch("auto.haac");
    let o = run1(&[
        "compile",
        &circuit("mult64.txt"),
        "--isa",
        "haac",
        "--schedule",
        "auto",
        "--window",
        "64",
        "--ges",
        "4",
        "--out",
        &out,
    ]);
    o.assert_ok("--schedule auto");
    // "...; auto: segment S cycles, full F cycles (the model, DDR4)"
    let tail = o
        .stderr
        .split("auto: segment ")
        .nth(1)
        .expect("both cycle counts");
    let number = |s: &str| -> u64 {
        s.split_whitespace()
            .next()
            .unwrap()
            .replace(',', "")
            .parse()
            .unwrap()
    };
    let segment = number(tail);
    let full = number(tail.split("full ").nth(1).unwrap());
    let chosen = file::read_file(std::path::Path::new(&out))
        .unwrap()
        .program
        .schedule;
    let want = if full < segment {
        mixgc_haac::Schedule::Full
    } else {
        mixgc_haac::Schedule::Segment
    };
    assert_eq!(chosen, want, "{o:#?}");
    let args = run_args(
        &circuit("adder64.txt"),
        "garbler",
        &["--schedule", "auto", "--listen", "127.0.0.1:0"],
    );
    run1(&strs(&args)).assert_error("auto outside haac", &["--schedule auto", "--isa haac"]);
    let _ = std::fs::remove_file(&out);
}

#[test]
fn haac_errors_are_clear() {
    let adder = circuit("adder64.txt");
    let out = scratch("errors.haac");
    let o = run1(&["compile", &adder, "--isa", "haac", "--window", "5", "--out", &out]);
    o.assert_error("odd window", &["window", "even"]);
    let o = run1(&[
        "compile",
        &adder,
        "--isa",
        "haac",
        "--schedule",
        "batched",
        "--out",
        &out,
    ]);
    o.assert_error("batched", &["program, segment, full or auto"]);
    let o = run1(&["compile", &adder, "--isa", "haac"]);
    o.assert_error("no --out", &["--out"]);
    let o = run1(&[
        "compile",
        &adder,
        "--isa",
        "haac",
        "--garbler-values",
        "3",
        "--out",
        &out,
    ]);
    o.assert_error("garbler values", &["garbler cannot own 3"]);
    let o = run1(&["compile", "--vip", "nosuch", "--isa", "haac", "--out", &out]);
    o.assert_error("unknown workload", &["nosuch"]);
    compile_haac(&[&adder], "full", &out);
    let o = run1(&["compile", &out, "--isa", "haac", "--out", &scratch("again.haac")]);
    o.assert_error("compile a .haac", &["already a .haac file"]);
    let args = run_args(
        &out,
        "garbler",
        &["--schedule", "full", "--listen", "127.0.0.1:0"],
    );
    run1(&strs(&args)).assert_error("--schedule", &["drop --schedule"]);
    let args = run_args(
        &out,
        "garbler",
        &["--garbler-values", "2", "--listen", "127.0.0.1:0"],
    );
    run1(&strs(&args)).assert_error("--garbler-values", &["owns 1 input value", "not 2"]);
    let mut bytes = std::fs::read(&out).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 1;
    std::fs::write(&out, &bytes).unwrap();
    let args = run_args(&out, "garbler", &["--input", "1", "--listen", "127.0.0.1:0"]);
    run1(&strs(&args)).assert_error("corrupted", &["checksum mismatch", "corrupted"]);
    std::fs::write(&out, &bytes[..100]).unwrap();
    run1(&strs(&args)).assert_error("truncated", &["corrupted or truncated"]);
    let _ = std::fs::remove_file(&out);
}

/// `mixgc info F.haac` summarizes the program from the file (text and JSON, counts equal to
/// the program's own), and a corrupted or truncated file is a clear error.
#[test]
fn info_summarizes_a_haac_file_and_refuses_a_corrupt_one() {
    let adder = circuit("adder64.txt");
    let out = scratch("info.haac");
    compile_haac(&[&adder], "full", &out);
    let hc = file::read_file(std::path::Path::new(&out)).unwrap();
    let p = &hc.program;
    let ands = p
        .instructions
        .iter()
        .filter(|i| i.op == mixgc_haac::Op::And)
        .count();
    let live = p.instructions.iter().filter(|i| i.live).count();

    let o = run1(&["info", &out]);
    o.assert_ok("info F.haac");
    let text = &o.stdout;
    for want in [
        "HAAC program, full schedule",
        "window           8 wires",
        "gate engines     4",
        &format!("{} AND", ands),
        "live wires",
        "GE 3",
    ] {
        assert!(text.contains(want), "`{want}` missing from:\n{text}");
    }

    let o = run1(&["info", &out, "--json"]);
    o.assert_ok("info F.haac --json");
    let json: serde_json::Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(json["instructions"], p.instructions.len() as u64);
    assert_eq!(json["ands"], ands as u64);
    assert_eq!(json["live_wires"], live as u64);
    assert_eq!(json["window"], 8);
    assert_eq!(json["ges"], 4);
    assert_eq!(json["oorw_reads"], p.oor_reads().len() as u64);
    let engines = json["engines"].as_array().unwrap();
    assert_eq!(engines.len(), 4);
    let queued: u64 = engines.iter().map(|e| e["instructions"].as_u64().unwrap()).sum();
    assert_eq!(queued, p.instructions.len() as u64);
    let tables: u64 = engines.iter().map(|e| e["tables"].as_u64().unwrap()).sum();
    assert_eq!(tables, ands as u64);

    let mut bytes = std::fs::read(&out).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x40;
    std::fs::write(&out, &bytes).unwrap();
    run1(&["info", &out]).assert_error("corrupted", &["info.haac", "checksum mismatch"]);
    std::fs::write(&out, &bytes[..12]).unwrap();
    run1(&["info", &out]).assert_error("truncated", &["truncated"]);
    let _ = std::fs::remove_file(&out);
}
