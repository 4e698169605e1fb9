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
