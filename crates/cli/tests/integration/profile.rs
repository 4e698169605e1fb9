//! `mixgc profile`: the records it reports (every op in the right representations, rows
//! that match the gadgets' known costs), the files `--out` writes, and bad input. No
//! timing is asserted.

use super::common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use common::*;
use serde_json::Value;

/// `mixgc profile ARGS`, asserted to succeed.
fn profile(args: &[&str]) -> Output {
    let mut all = vec!["profile"];
    all.extend_from_slice(args);
    let out = run1(&all);
    out.assert_ok(&format!("mixgc {}", all.join(" ")));
    out
}

/// The records of `--json` at `widths`, one sample each.
fn records(widths: &str) -> Vec<Value> {
    let out = profile(&["--widths", widths, "--json", "--reps", "1"]);
    let json: Value = serde_json::from_str(&out.stdout).expect("stdout is one JSON value");
    json.as_array().expect("a JSON array").clone()
}

fn record<'a>(records: &'a [Value], op: &str, repr: &str, width: u64) -> &'a Value {
    records
        .iter()
        .find(|r| r["op"] == op && r["repr"] == repr && r["width"] == width)
        .unwrap_or_else(|| panic!("no record for {op} {repr} {width}"))
}

fn num(r: &Value, key: &str) -> u64 {
    r[key]
        .as_u64()
        .unwrap_or_else(|| panic!("{key} is not a count in {r}"))
}

#[test]
fn json_has_every_op_in_its_representations_and_no_other() {
    let records = records("4");
    let got: BTreeSet<(String, String)> = records
        .iter()
        .map(|r| {
            (
                r["op"].as_str().unwrap().into(),
                r["repr"].as_str().unwrap().into(),
            )
        })
        .collect();
    let mut want = BTreeSet::new();
    for op in ["xor", "and", "div", "mod", "geq"] {
        want.insert((op.to_string(), "bool".to_string()));
    }
    for op in ["bc", "bd"] {
        for repr in ["crt", "crt-opt"] {
            want.insert((op.to_string(), repr.to_string()));
        }
    }
    for op in ["add", "sub", "pub_mul", "mul", "mux", "pub_exp"] {
        for repr in ["bool", "crt", "crt-opt"] {
            want.insert((op.to_string(), repr.to_string()));
        }
    }
    assert_eq!(got, want);
    assert_eq!(records.len(), want.len(), "one record per (op, repr)");
    for r in &records {
        assert_eq!(r["width"], 4);
        let parts = ["table_bytes", "garbler_input_bytes", "ot_bytes", "output_bytes"];
        let sum: u64 = parts.iter().map(|k| num(r, k)).sum();
        assert_eq!(num(r, "total_bytes"), sum, "{r}");
        for key in ["garble_us", "eval_us"] {
            let t = r[key].as_f64().expect("a time");
            assert!(t.is_finite() && t >= 0.0, "{key} in {r}");
        }
        assert_eq!(num(r, "reps"), 1);
        let crt = r["repr"] != "bool";
        assert_eq!(!r["primes"].as_array().unwrap().is_empty(), crt, "{r}");
        if !crt {
            // Half-gates: 2 rows of 16 bytes per AND.
            assert_eq!(num(r, "table_rows"), 2 * num(r, "ands"), "{r}");
            assert_eq!(num(r, "table_bytes"), 16 * num(r, "table_rows"), "{r}");
        }
    }
}

#[test]
fn rows_match_the_gadgets_known_costs_at_4_bits() {
    let records = records("4");
    let rows = |op: &str, repr: &str| num(record(&records, op, repr, 4), "table_rows");
    // Boolean: w ANDs for AND, w − 1 for Add and Sub, none for XOR.
    assert_eq!(rows("and", "bool"), 8);
    assert_eq!(rows("add", "bool"), 6);
    assert_eq!(rows("sub", "bool"), 6);
    assert_eq!(rows("xor", "bool"), 0);
    // CRT over 2, 3, 5: free linear ops, Σ 2(p − 1) for a product, Σ (p − 1) for a power,
    // one row per odd prime for a 1-bit BC, the BC and BD of mixgc-arith's pinned costs.
    for repr in ["crt", "crt-opt"] {
        assert_eq!(
            record(&records, "mul", repr, 4)["primes"],
            serde_json::json!([2, 3, 5])
        );
        for op in ["add", "sub", "pub_mul"] {
            assert_eq!(rows(op, repr), 0, "{op} {repr}");
        }
        assert_eq!(rows("mul", repr), 14);
        assert_eq!(rows("pub_exp", repr), 7);
        assert_eq!(rows("mux", repr), 2 + 14);
        assert_eq!(rows("bc", repr), 8);
        assert_eq!(rows("bd", repr), 68);
    }
    // Inputs: 16 bytes per garbler bit, 16 per OT'd evaluator bit.
    let add = record(&records, "add", "bool", 4);
    assert_eq!((num(add, "garbler_input_bytes"), num(add, "ot_bytes")), (64, 64));
    assert_eq!(
        num(record(&records, "pub_mul", "bool", 4), "garbler_input_bytes"),
        0
    );
}

#[test]
fn optimized_primes_are_never_costlier_than_the_first_k() {
    let records = records("8");
    let first = record(&records, "mul", "crt", 8);
    let opt = record(&records, "mul", "crt-opt", 8);
    assert_eq!(first["primes"], serde_json::json!([2, 3, 5, 7, 11]));
    assert_eq!(opt["primes"], serde_json::json!([2, 3, 5, 11]));
    for op in ["add", "sub", "pub_mul", "mul", "mux", "pub_exp", "bc", "bd"] {
        let (a, b) = (record(&records, op, "crt", 8), record(&records, op, "crt-opt", 8));
        for key in ["table_rows", "table_bytes", "total_bytes"] {
            assert!(num(b, key) <= num(a, key), "{op} {key}: {b} vs {a}");
        }
    }
}

#[test]
fn text_report_has_the_relative_results_and_able_tables() {
    let out = profile(&["--widths", "16", "--reps", "1"]);
    for needle in [
        "== 16 bits ==",
        "Relative results at 16 bits",
        "prime sum 51 vs 58",
        "ABLE: 14.1%",
        "ABLE: 34.2%",
        "BC equivalent ratio",
        "BD equivalent ratio",
        "ABLE Table 5",
        "ABLE Table 6",
        // ABLE's published 1/r for a 16-bit Add by table bytes.
        "/ 0.400",
    ] {
        assert!(out.stdout.contains(needle), "no {needle:?} in:\n{}", out.stdout);
    }
}

/// A fresh directory under the system's temporary directory.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mixgc-profile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn out_writes_json_and_png_plots() {
    let dir = temp_dir("out");
    let dir_arg = dir.to_str().unwrap();
    let out = profile(&["--widths", "4,8", "--reps", "1", "--out", dir_arg]);
    assert!(out.stdout.contains("wrote profile.json"), "{}", out.stdout);
    let json: Value = serde_json::from_slice(&std::fs::read(dir.join("profile.json")).unwrap()).unwrap();
    assert_eq!(
        json.as_array().map(Vec::len),
        Some(2 * 27),
        "27 records per width"
    );
    let ratios: Value = serde_json::from_slice(&std::fs::read(dir.join("ratios.json")).unwrap()).unwrap();
    // 2 conversions × 2 widths × 3 costs × 6 common ops.
    assert_eq!(ratios.as_array().map(Vec::len), Some(72));
    for fig in 4..=9 {
        let png = std::fs::read(dir.join(format!("fig{fig}.png"))).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "fig{fig}.png is not a PNG");
        assert!(png.len() > 5_000, "fig{fig}.png has {} bytes", png.len());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_widths_and_reps_are_refused() {
    for (args, needles) in [
        (&["--widths", "0"][..], &["'0'", "--widths", "2..=64"][..]),
        (&["--widths", "200"], &["'200'", "2..=64"]),
        (&["--widths", "x"], &["'x'", "--widths"]),
        (&["--widths", "8,,16"], &["--widths"]),
        (&["--reps", "0"], &["--reps"]),
    ] {
        let mut all = vec!["profile"];
        all.extend_from_slice(args);
        run1(&all).assert_error(&format!("mixgc {}", all.join(" ")), needles);
    }
}
