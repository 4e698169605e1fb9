//! `mixgc compile --out` and `mixgc run` on compiled-stream files: two real processes read
//! the stream from disk chunk by chunk (FIPS-197 and SHA-256 known answers), schedules
//! that differ are named on both sides, `--memory-limit` refuses or shrinks frames, and a
//! damaged file is a clear error.

use super::common;

use std::path::PathBuf;

use common::*;

const FIPS_KEY: &str = "000102030405060708090a0b0c0d0e0f";
const FIPS_PLAINTEXT: &str = "00112233445566778899aabbccddeeff";
const FIPS_CIPHERTEXT: &str = "69c4e0d86a7b0430d8cdb78070b4c55a";

/// A scratch directory, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("mixgc-stream-tests-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn file(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `mixgc compile CIRCUIT --out OUT` plus `extra`; returns OUT.
fn compile_to(dir: &TempDir, circuit_name: &str, out: &str, extra: &[&str]) -> String {
    let out = dir.file(out);
    let source = circuit(circuit_name);
    let mut args = vec!["compile", &source, "--out", &out];
    args.extend(extra);
    let o = run1(&args);
    o.assert_ok("compile");
    let summary = o
        .stderr
        .lines()
        .find(|l| l.starts_with("wrote "))
        .unwrap_or_else(|| panic!("{o:#?}"));
    assert!(
        summary.contains(" gates, ") && summary.contains("stream digest"),
        "{summary}"
    );
    out
}

/// AES-128 between a garbler running `g_file` and an evaluator running `e_file`.
fn aes(g_file: &str, e_file: &str, g_extra: &[&str], e_extra: &[&str]) -> (Output, Output) {
    let mut g = run_args(g_file, "garbler", &["--input", FIPS_KEY]);
    g.extend(g_extra.iter().map(|s| s.to_string()));
    let mut e = run_args(e_file, "evaluator", &["--input", FIPS_PLAINTEXT]);
    e.extend(e_extra.iter().map(|s| s.to_string()));
    pair(&strs(&g), &strs(&e))
}

fn assert_fips(g: &Output, e: &Output) {
    for (who, out) in [("garbler", g), ("evaluator", e)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, format!("{FIPS_CIPHERTEXT}\n"), "{who}: {out:#?}");
        assert!(out.stderr.contains("6,400 ANDs"), "{who}: {out:#?}");
    }
}

#[test]
fn aes_from_a_stream_file_on_both_sides() {
    let dir = TempDir::new("aes");
    let file = compile_to(&dir, "aes_128.txt", "aes.mgcs", &[]);
    let (g, e) = aes(&file, &file, &[], &[]);
    assert_fips(&g, &e);
    // Single-threaded sessions read the file the same way.
    let (g, e) = aes(&file, &file, &["--single-threaded"], &["--single-threaded"]);
    assert_fips(&g, &e);
}

#[test]
fn a_batched_stream_file_meets_a_bristol_peer() {
    // `mixgc run` compiles a Bristol file with the batched schedule: the same stream.
    let dir = TempDir::new("mixed");
    let file = compile_to(&dir, "aes_128.txt", "aes.mgcs", &["--schedule", "batched"]);
    let (g, e) = aes(&file, &circuit("aes_128.txt"), &[], &[]);
    assert_fips(&g, &e);
}

#[test]
fn every_schedule_computes_aes_when_both_parties_use_it() {
    let dir = TempDir::new("schedules");
    for (schedule, window) in [("program", "64"), ("full", "131072"), ("segment", "256")] {
        let name = format!("aes-{schedule}.mgcs");
        let file = compile_to(
            &dir,
            "aes_128.txt",
            &name,
            &["--schedule", schedule, "--window", window],
        );
        let (g, e) = aes(&file, &file, &[], &[]);
        assert_fips(&g, &e);
    }
}

#[test]
fn sha256_streams_in_several_chunks() {
    // 135,073 gates: three chunks of at most 65,536.
    const IV: &str = "6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19";
    const ABC: &str = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    let dir = TempDir::new("sha");
    let file = compile_to(&dir, "sha256.txt", "sha.mgcs", &[]);
    let block = format!("61626380{}18", "0".repeat(118));
    let g = run_args(&file, "garbler", &["--input", &block]);
    let e = run_args(&file, "evaluator", &["--input", IV]);
    let (g, e) = pair(&strs(&g), &strs(&e));
    for (who, out) in [("garbler", &g), ("evaluator", &e)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, format!("{ABC}\n"), "{who}");
    }
}

#[test]
fn different_schedules_are_named_on_both_sides() {
    let dir = TempDir::new("mismatch");
    let batched = compile_to(&dir, "aes_128.txt", "batched.mgcs", &[]);
    let full = compile_to(&dir, "aes_128.txt", "full.mgcs", &["--schedule", "full"]);
    let (g, e) = aes(&batched, &full, &[], &[]);
    g.assert_error("garbler", &["compiled stream differs"]);
    e.assert_error("evaluator", &["compiled stream differs"]);
    // A Bristol file (batched) against a full-order stream file, too.
    let (g, e) = aes(&circuit("aes_128.txt"), &full, &[], &[]);
    g.assert_error("garbler", &["compiled stream differs"]);
    e.assert_error("evaluator", &["compiled stream differs"]);
}

/// One party alone that must fail before it listens.
fn refused(file: &str, extra: &[&str]) -> Output {
    let mut args = run_args(file, "garbler", &["--input", FIPS_KEY, "--listen", "127.0.0.1:0"]);
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = run1(&strs(&args));
    assert!(
        !out.stderr.contains("listening on"),
        "refused after listening: {out:#?}"
    );
    out
}

#[test]
fn memory_limit_refuses_up_front() {
    let dir = TempDir::new("limit");
    // Whole in memory, AES needs ~0.9 MiB besides the frames: 1 MiB is too little.
    refused(&circuit("aes_128.txt"), &["--memory-limit", "1MiB"]).assert_error(
        "bristol",
        &[
            "garbler needs about",
            "more than --memory-limit 1024.0 KiB",
            "circuit IR",
            "mixgc compile FILE --out",
        ],
    );
    // A stream file's wire slots and chunk must fit, whatever the frames.
    let file = compile_to(&dir, "aes_128.txt", "aes.mgcs", &[]);
    refused(&file, &["--memory-limit", "200K"]).assert_error(
        "stream file",
        &["more than --memory-limit", "wire slots", "chunk and read buffer"],
    );
    refused(&file, &["--memory-limit", "lots"]).assert_error("bad size", &["not a size"]);
}

#[test]
fn memory_limit_lowers_the_frames_and_still_computes() {
    let dir = TempDir::new("lowered");
    let file = compile_to(&dir, "aes_128.txt", "aes.mgcs", &[]);
    // The stream file fits in 3 MiB with frames of about 300 KiB instead of 1 MiB.
    let limit = ["--memory-limit", "3MiB"];
    let (g, e) = aes(&file, &file, &limit, &limit);
    assert_fips(&g, &e);
    for (who, out) in [("garbler", &g), ("evaluator", &e)] {
        assert!(
            out.stderr.contains("--batch-bytes lowered from 1048576"),
            "{who}: {out:#?}"
        );
    }
    assert!(e.stderr.contains("give it --batch-bytes"), "{e:#?}");
    // With room to spare, nothing changes.
    let (g, e) = aes(&file, &file, &["--memory-limit", "1G"], &[]);
    assert_fips(&g, &e);
    assert!(!g.stderr.contains("lowered"), "{g:#?}");
}

#[test]
fn example_memory_limit_counts_live_labels() {
    run1(&[
        "example",
        "aes128",
        "--role",
        "garbler",
        "--listen",
        "127.0.0.1:0",
        "--memory-limit",
        "256KiB",
    ])
    .assert_error(
        "example",
        &["live wire labels", "more than --memory-limit", "--size"],
    );
}

#[test]
fn damaged_stream_files_are_named() {
    let dir = TempDir::new("damaged");
    let file = compile_to(&dir, "aes_128.txt", "aes.mgcs", &[]);
    let bytes = std::fs::read(&file).unwrap();
    let write = |name: &str, b: &[u8]| {
        let path = dir.file(name);
        std::fs::write(&path, b).unwrap();
        path
    };
    // A damaged header: refused before connecting.
    let mut b = bytes.clone();
    b[8] = 9;
    refused(&write("version.mgcs", &b), &[]).assert_error("version", &["format version 9"]);
    let mut b = bytes.clone();
    b[50] ^= 0x10; // in the circuit digest
    refused(&write("header.mgcs", &b), &[]).assert_error("header", &["corrupt", "header checksum"]);
    let cut = write("cut.mgcs", &bytes[..100]);
    refused(&cut, &[]).assert_error("cut header", &["truncated"]);
    // A damaged body is found while streaming: the party reading it stops, naming the
    // file, and its peer stops too; nobody prints an output.
    let flipped = {
        let mut b = bytes.clone();
        let at = b.len() - 1000;
        b[at] ^= 0x01;
        write("flipped.mgcs", &b)
    };
    let truncated = write("truncated.mgcs", &bytes[..bytes.len() - 1000]);
    for (damaged, what) in [(&flipped, "corrupt"), (&truncated, "truncated")] {
        let (g, e) = aes(damaged, &file, &[], &[]);
        g.assert_error("garbler", &[what, damaged.as_str()]);
        assert!(e.stdout.is_empty() && !e.success(), "evaluator: {e:#?}");
        let (g, e) = aes(&file, damaged, &[], &[]);
        e.assert_error("evaluator", &[what, damaged.as_str()]);
        assert!(g.stdout.is_empty() && !g.success(), "garbler: {g:#?}");
    }
}

#[test]
fn info_describes_a_stream_file() {
    let dir = TempDir::new("info");
    let file = compile_to(&dir, "aes_128.txt", "aes.mgcs", &[]);
    let o = run1(&["info", &file]);
    o.assert_ok("info");
    for needle in [
        "compiled stream, format version 1",
        "36,663",
        "6,400",
        "slots",
        "stream digest",
    ] {
        assert!(o.stdout.contains(needle), "{needle}: {o:#?}");
    }
    let o = run1(&["info", &file, "--json"]);
    o.assert_ok("info --json");
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["ands"], 6400);
    assert_eq!(v["inputs"], serde_json::json!([128, 128]));
}

#[test]
fn compile_refuses_a_stream_file() {
    let dir = TempDir::new("recompile");
    let file = compile_to(&dir, "adder64.txt", "adder.mgcs", &[]);
    run1(&["compile", &file, "--out", &dir.file("again.mgcs")])
        .assert_error("recompile", &["already a compiled stream"]);
}

#[test]
fn compile_needs_something_to_do_and_a_reorder_for_reports() {
    run1(&["compile", &circuit("adder64.txt")]).assert_error("nothing", &["--out"]);
    run1(&[
        "compile",
        &circuit("adder64.txt"),
        "--report",
        "--schedule",
        "batched",
    ])
    .assert_error("batched report", &["--report"]);
}
