//! `mixgc bench`: one smoke test of its JSON report, its argument errors, and the
//! `aes-chain` op it streams between two processes.

mod common;

use common::*;
use mixgc_circuit::values;
use mixgc_program::library::{self, Supply};
use mixgc_program::Plain;
use serde_json::Value;

/// The smallest bench (`--preprocess`, one AES-128 block, one run) prints one JSON object
/// with every figure of its report.
#[test]
fn bench_json_smoke() {
    let out = run1(&["bench", "--preprocess", "--runs", "1", "--json"]);
    out.assert_ok("bench --preprocess");
    let v: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {out:#?}"));
    assert!(v["machine"].is_string(), "{v}");
    assert!(v["aes_kernel"].is_string() && v["cpu_flags"].is_array(), "{v}");
    assert_eq!(v["runs"], 1);
    assert_eq!(v["ands"], 6400);
    assert_eq!(v["table_bytes"], 6400 * 32);
    for key in [
        "offline_ms",
        "online_evaluator_ms",
        "online_garbler_ms",
        "online_bytes",
    ] {
        let x = v[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} is not a number: {v}"));
        assert!(x.is_finite() && x > 0.0, "{key} = {x}");
    }
}

#[test]
fn bad_bench_arguments_are_clear_errors() {
    run1(&["bench", "--memory", "--chain-ands", "100000000000"])
        .assert_error("chain too long", &["--chain-ands", "1048576"]);
    run1(&["bench", "--sweep", "--memory"]).assert_error("two modes", &["cannot be used with"]);
    run1(&["bench", "--chain-ands", "5"]).assert_error("chain without --memory", &["--memory"]);
}

#[test]
fn aes_chain_runs_between_two_processes() {
    let (key, x) = (
        "000102030405060708090a0b0c0d0e0f",
        "00112233445566778899aabbccddeeff",
    );
    let (g, e) = pair(
        &[
            "example",
            "aes-chain",
            "--size",
            "3",
            "--role",
            "garbler",
            "--input",
            key,
        ],
        &[
            "example",
            "aes-chain",
            "--size",
            "3",
            "--role",
            "evaluator",
            "--input",
            x,
        ],
    );
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    let bits = |hex: &str| values::parse_hex(hex, 128).unwrap();
    let want = library::build(
        &mut Plain::default(),
        "aes-chain",
        None,
        Some(3),
        &mut Supply::both(vec![bits(key)], vec![bits(x)]),
    )
    .unwrap();
    let want = values::to_hex(want[0].as_ref().unwrap());
    assert_eq!(g.stdout.trim(), want);
    assert_eq!(e.stdout.trim(), want);
}

/// `bench --security malicious --sweep-batch` (thesis Fig. 3.2) on a tiny matrix product
/// at two batch sizes: one JSON row per batch, each with the product's AND count and sane
/// times, traffic and peak RSS; the text form prints the same rows under its header.
#[test]
fn malicious_batch_sweep_reports_each_batch() {
    let batches = [64u64, 4096];
    let out = run1(&[
        "bench",
        "--security",
        "malicious",
        "--sweep-batch",
        "--dims",
        "2",
        "--sweep-batches",
        "64,4096",
        "--json",
    ]);
    out.assert_ok("bench --security malicious --sweep-batch --json");
    let v: Value = serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {out:#?}"));
    assert_eq!(v["security"], "malicious", "{v}");
    assert!(v["machine"].is_string(), "{v}");
    let runs = v["runs"].as_array().unwrap_or_else(|| panic!("no runs: {v}"));
    assert_eq!(runs.len(), batches.len(), "{v}");
    let ands = library::cost("matmul", Some(64), Some(2)).unwrap().ands;
    for (r, &batch) in runs.iter().zip(&batches) {
        assert_eq!(r["workload"], "matmul 2x2, 64-bit", "{r}");
        assert_eq!(r["batch_ands"], batch, "{r}");
        assert_eq!(r["ands"], ands, "{r}");
        let num = |key: &str| {
            r[key]
                .as_f64()
                .unwrap_or_else(|| panic!("{key} is not a number: {r}"))
        };
        let ms = num("ms");
        assert!(ms.is_finite() && ms > 0.0 && ms < 600_000.0, "ms = {ms}");
        let rate = num("mand_per_s");
        assert!(
            (rate - ands as f64 / ms / 1e3).abs() <= 1e-9 * rate.max(1.0),
            "{r}"
        );
        // At least the garbled tables (32 bytes per AND) went over the wire.
        assert!(num("bytes") >= 32.0 * ands as f64, "{r}");
        for key in ["peak_rss_garbler_mib", "peak_rss_evaluator_mib"] {
            let mib = num(key);
            assert!(mib > 1.0 && mib <= 256.0, "{key} = {mib}");
        }
    }
    let text = run1(&[
        "bench",
        "--security",
        "malicious",
        "--sweep-batch",
        "--dims",
        "1",
        "--sweep-batches",
        "16",
    ]);
    text.assert_ok("bench --security malicious --sweep-batch");
    assert!(
        text.stdout.contains("batch/AND") && text.stdout.contains("RSS G MiB"),
        "{text:#?}"
    );
    let row = text
        .stdout
        .lines()
        .find(|l| l.starts_with("matmul 1x1, 64-bit"))
        .unwrap_or_else(|| panic!("no row: {text:#?}"));
    let fields: Vec<&str> = row["matmul 1x1, 64-bit".len()..].split_whitespace().collect();
    assert_eq!(fields.len(), 6, "{row}");
    assert_eq!(fields[0], "16", "{row}");
    let want = library::cost("matmul", Some(64), Some(1)).unwrap().ands;
    assert_eq!(fields[1].replace(',', ""), want.to_string(), "{row}");
    run1(&["bench", "--sweep-batches", "16"]).assert_error("batches without the sweep", &["--sweep-batch"]);
}
