//! `mixgc info`, `mixgc demo` and the help texts.

use super::common;

use common::*;
use serde_json::Value;

/// A row of the README table: file, input widths, output widths, gates, ANDs, AND depth.
type Row = (&'static str, &'static [u64], &'static [u64], u64, u64, u64);

const TABLE: [Row; 11] = [
    ("aes_128.txt", &[128, 128], &[128], 36_663, 6_400, 60),
    ("AES-non-expanded.txt", &[128, 128], &[128], 33_616, 6_800, 40),
    ("sha256.txt", &[512, 256], &[256], 135_073, 22_573, 1_607),
    ("adder64.txt", &[64, 64], &[64], 376, 63, 63),
    ("sub64.txt", &[64, 64], &[64], 439, 63, 63),
    ("mult64.txt", &[64, 64], &[64], 13_675, 4_033, 63),
    ("divide64.txt", &[64, 64], &[64], 29_926, 4_664, 4_158),
    ("udivide64.txt", &[64, 64], &[64], 16_952, 4_285, 2_204),
    ("neg64.txt", &[64], &[64], 190, 62, 62),
    ("zero_equal.txt", &[64], &[1], 127, 63, 6),
    ("adder_32bit.txt", &[32, 32], &[33], 375, 127, 63),
];

fn info_json(file: &str) -> Value {
    let out = run1(&["info", &circuit(file), "--json"]);
    out.assert_ok(file);
    assert_eq!(
        out.stdout.lines().count(),
        1,
        "{file}: one JSON line expected: {out:#?}"
    );
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{file}: not JSON ({e}): {}", out.stdout))
}

#[test]
fn info_json_aes_128() {
    let j = info_json("aes_128.txt");
    assert_eq!(j["gates"], 36_663);
    assert_eq!(j["ands"], 6_400);
    assert_eq!(j["xors"], 28_176);
    assert_eq!(j["nots"], 2_087);
    assert_eq!(j["and_depth"], 60);
    // AND + XOR + NOT (+ free copies/constants) add up to all gates.
    let sum: u64 = ["ands", "xors", "nots", "copies", "constants"]
        .iter()
        .map(|k| j[k].as_u64().unwrap())
        .sum();
    assert_eq!(sum, 36_663);
    let live = j["max_live_wires"].as_u64().expect("max_live_wires");
    // At least the 256 input and 128 output wires are live at once; at most all wires.
    assert!((256..=36_663 + 256).contains(&live), "max_live_wires {live}");
    for key in ["compiled_slots", "working_set_bytes"] {
        assert!(j[key].as_u64().is_some_and(|v| v > 0), "{key}: {j}");
    }
    assert_eq!(
        j["working_set_bytes"].as_u64(),
        j["compiled_slots"].as_u64().map(|s| s * 16)
    );
}

#[test]
fn info_json_matches_the_readme_table() {
    for (file, inputs, outputs, gates, ands, depth) in TABLE {
        let j = info_json(file);
        assert_eq!(j["inputs"], serde_json::json!(inputs), "{file}");
        assert_eq!(j["outputs"], serde_json::json!(outputs), "{file}");
        assert_eq!(j["gates"], gates, "{file}");
        assert_eq!(j["ands"], ands, "{file}");
        assert_eq!(j["and_depth"], depth, "{file}");
    }
}

#[test]
fn info_human_readable() {
    let aes = circuit("aes_128.txt");
    let out = run1(&["info", &aes]);
    out.assert_ok("info");
    assert_eq!(out.stdout.lines().next(), Some(aes.as_str()), "{}", out.stdout);
    let line = |label: &str| {
        out.stdout
            .lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no {label:?} line: {}", out.stdout))
            .to_string()
    };
    assert!(line("AND depth").contains("60"));
    assert!(line("ANDs").contains("6,400"));
    assert!(line("gates").contains("36,663"));
    assert!(line("XORs").contains("28,176"));
    assert!(line("NOTs").contains("2,087"));
    assert!(line("max live wires").chars().any(|c| c.is_ascii_digit()));
    assert!(line("inputs").contains("128, 128"));
}

#[test]
fn info_with_closed_stdout_does_not_panic() {
    // Whether the write fails depends on timing; either way no panic, and a failure is
    // reported as an error.
    for args in [vec!["info", "--json"], vec!["info"]] {
        let mut args = args;
        let aes = circuit("aes_128.txt");
        args.insert(1, &aes);
        let out = spawn_with(&args, false).finish(std::time::Instant::now() + DEADLINE);
        assert!(!out.timed_out && !out.stderr.contains("panicked"), "{out:#?}");
        if out.code != Some(0) {
            out.assert_error("info, closed stdout", &["stdout"]);
        }
    }
}

#[test]
fn demo_computes_fips197() {
    let out = run1(&["demo"]);
    out.assert_ok("demo");
    assert!(
        out.stdout.contains("69c4e0d86a7b0430d8cdb78070b4c55a"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("matches FIPS-197"), "{}", out.stdout);
    assert!(!out.stdout.contains("WRONG"), "{}", out.stdout);
}

#[test]
fn demo_computes_fips197_with_three_halves() {
    let out = run1(&["demo", "--garbling", "three-halves"]);
    out.assert_ok("demo --garbling three-halves");
    assert!(out.stdout.contains("matches FIPS-197"), "{}", out.stdout);
    assert!(out.stdout.contains("three-halves"), "{}", out.stdout);
    assert!(!out.stdout.contains("WRONG"), "{}", out.stdout);
    let out = run1(&["demo", "millionaires", "--garbling", "three-halves"]);
    out.assert_ok("library demo with three-halves");
    assert!(out.stdout.contains("(= plaintext evaluation)"), "{}", out.stdout);
    assert!(out.stdout.contains("three-halves"), "{}", out.stdout);
}

#[test]
fn help_texts() {
    let top = run1(&["--help"]);
    top.assert_ok("--help");
    for word in ["run", "demo", "info", "bench"] {
        assert!(top.stdout.contains(word), "--help lacks {word}: {}", top.stdout);
    }
    assert!(
        !top.stdout.contains("bench-party"),
        "the hidden command shows: {}",
        top.stdout
    );

    let run = run1(&["run", "--help"]);
    run.assert_ok("run --help");
    for flag in [
        "--circuit",
        "--role",
        "--listen",
        "--connect",
        "--input",
        "--reveal",
        "--garbler-values",
        "--timeout",
        "--insecure-seed",
        "--hash",
        "garbler",
        "evaluator",
    ] {
        assert!(
            run.stdout.contains(flag),
            "run --help lacks {flag}: {}",
            run.stdout
        );
    }

    let info = run1(&["info", "--help"]);
    info.assert_ok("info --help");
    assert!(info.stdout.contains("--json"), "{}", info.stdout);

    let version = run1(&["--version"]);
    version.assert_ok("--version");
    assert!(
        version.stdout.contains(env!("CARGO_PKG_VERSION")),
        "{}",
        version.stdout
    );

    // No subcommand: usage on stderr, nonzero.
    let none = run1(&[]);
    assert!(
        !none.success() && !none.timed_out && none.stderr.contains("Usage"),
        "{none:#?}"
    );
}

#[test]
fn compile_report_gives_haac_columns_per_schedule() {
    let aes = circuit("aes_128.txt");
    let out = run1(&["compile", &aes, "--schedule", "full", "--window", "64", "--json"]);
    out.assert_ok("compile --json");
    let r: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        (r["levels"].as_u64(), r["gates"].as_u64(), r["wires"].as_u64()),
        (Some(308), Some(36663), Some(36919))
    );
    assert_eq!(r["schedule"], "full");
    assert!(r["spent_wire_percent"].as_f64().unwrap() < 10.0);
    let human = run1(&["compile", &aes, "--report"]);
    human.assert_ok("compile --report");
    assert!(
        human.stdout.contains("ILP") && human.stdout.contains("spent wires"),
        "{}",
        human.stdout
    );
    run1(&["compile", &aes]).assert_error("no report", &["--report"]);
}

#[test]
fn info_cpu_names_the_aes_kernels_and_how_to_force_one() {
    let out = run1(&["info", "--cpu"]);
    out.assert_ok("info --cpu");
    for needle in ["CPU", "AES kernels", "portable", "chosen", "MIXGC_AES_KERNEL"] {
        assert!(out.stdout.contains(needle), "{needle}: {}", out.stdout);
    }
    let out = run1(&["info", "--cpu", "--json"]);
    out.assert_ok("info --cpu --json");
    let j: Value = serde_json::from_str(&out.stdout).unwrap();
    assert!(j["aes_kernels"]
        .as_array()
        .unwrap()
        .contains(&Value::from("portable")));
    assert!(j["aes_kernel"].is_string(), "{j}");
}

#[test]
fn a_bad_aes_kernel_name_is_a_clear_error() {
    let run = |name: &str| {
        let out = std::process::Command::new(BIN)
            .args(["ops"])
            .env("MIXGC_AES_KERNEL", name)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, stderr) = run("fastest");
    assert!(!ok);
    assert!(
        stderr.starts_with("error: MIXGC_AES_KERNEL=fastest: unknown AES kernel 'fastest'")
            && stderr.contains("vaes-512"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(run("portable").0);
}
