//! `mixgc bench --sweep`, `--memory` and `--preprocess` at tiny sizes: the JSON they print has the documented
//! shape and sane values; the `aes-chain` op they stream runs between two processes.

mod common;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use common::*;
use mixgc_circuit::values;
use mixgc_program::library::{self, Supply};
use mixgc_program::Plain;
use serde_json::Value;

/// A bench run may spawn dozens of processes: a longer deadline than one run's.
fn bench(args: &[&str]) -> Output {
    spawn(args).finish(Instant::now() + Duration::from_secs(300))
}

fn json(out: &Output) -> Value {
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {out:#?}"))
}

fn positive(v: &Value, what: &str) -> f64 {
    let x = v
        .as_f64()
        .unwrap_or_else(|| panic!("{what} is not a number: {v}"));
    assert!(x.is_finite() && x > 0.0, "{what} = {x}");
    x
}

#[test]
fn sweep_reports_every_frame_size_mode_and_network() {
    let out = bench(&["bench", "--sweep", "--json", "--runs", "1", "--ands", "1"]);
    out.assert_ok("bench --sweep");
    let sweep = json(&out);
    assert_eq!(sweep["runs"], 1);
    // One AES-128 block of the shipped circuit.
    assert_eq!(sweep["ands"], 6_400);
    positive(&sweep["compute_mand_per_s"], "compute rate");
    let points = sweep["points"].as_array().expect("points");
    assert_eq!(points.len(), 3 * 5 * 2);
    let mut seen = BTreeSet::new();
    for p in points {
        let network = p["network"].as_str().expect("network").to_string();
        let batch = p["batch_bytes"].as_u64().expect("batch_bytes");
        let pipelined = p["pipelined"].as_bool().expect("pipelined");
        seen.insert((network.clone(), batch, pipelined));
        let ns = positive(&p["ns_per_and"], "ns/AND");
        let rate = positive(&p["mand_per_s"], "M AND/s");
        assert!((ns * rate / 1e3 - 1.0).abs() < 1e-9, "{p}");
        if network == "loopback TCP" {
            assert!(
                p["link_mand_per_s"].is_null() && p["link_fraction"].is_null(),
                "{p}"
            );
            continue;
        }
        // Two 16-byte rows per AND: 1 Gbps carries 3.90625 M AND/s.
        let link = positive(&p["link_mand_per_s"], "link rate");
        let gbps = if network.starts_with("10 Gbps") { 10.0 } else { 1.0 };
        assert!((link - gbps * 1e9 / 256.0 / 1e6).abs() < 1e-9, "{p}");
        let fraction = positive(&p["link_fraction"], "fraction of the link");
        assert!(fraction < 1.2, "faster than the link: {p}");
        assert!(p["compute_allows"].is_boolean(), "{p}");
    }
    let networks: BTreeSet<&str> = seen.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(
        networks,
        BTreeSet::from(["loopback TCP", "1 Gbps / 1 ms", "10 Gbps / 0.1 ms"])
    );
    let batches: BTreeSet<u64> = seen.iter().map(|&(_, b, _)| b).collect();
    assert_eq!(
        batches,
        BTreeSet::from([64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20])
    );
    assert_eq!(seen.len(), 30, "each network x frame size x mode once");
}

#[test]
fn memory_reports_both_parties_for_each_workload() {
    let out = bench(&[
        "bench",
        "--memory",
        "--json",
        "--runs",
        "1",
        "--edit-size",
        "4",
        "--chain-ands",
        "12800",
    ]);
    out.assert_ok("bench --memory");
    let records = json(&out);
    let records = records.as_array().expect("an array");
    assert_eq!(records.len(), 3);
    for r in records {
        positive(&r["seconds"], "seconds");
        positive(&r["mand_per_s"], "M AND/s");
        positive(&r["bytes"], "bytes");
        positive(&r["peak_rss_garbler_kib"], "garbler RSS");
        positive(&r["peak_rss_evaluator_kib"], "evaluator RSS");
    }
    // Streamed and whole-circuit runs are the same computation.
    let edit = library::cost("edit-distance", None, Some(4)).unwrap().ands;
    assert_eq!(records[0]["ands"], edit);
    assert_eq!(records[1]["ands"], edit);
    assert!(records[1]["workload"].as_str().unwrap().contains("whole circuit"));
    assert_eq!(records[2]["ands"], 12_800, "two encryptions of 6,400 ANDs");
    assert_eq!(records[2]["runs"], 1);
}

#[test]
fn preprocess_reports_offline_and_online_separately() {
    let out = bench(&["bench", "--preprocess", "--runs", "1", "--json"]);
    out.assert_ok("bench --preprocess");
    let v = json(&out);
    assert_eq!(v["ands"], 6400);
    assert_eq!(v["table_bytes"], 6400 * 32);
    let offline = positive(&v["offline_ms"], "offline_ms");
    let online = positive(&v["online_evaluator_ms"], "online_evaluator_ms");
    positive(&v["online_garbler_ms"], "online_garbler_ms");
    assert!(online < offline, "online {online} ms, offline {offline} ms");
    // Online only labels travel: no 200 KiB of tables.
    let bytes = positive(&v["online_bytes"], "online_bytes");
    assert!(bytes < 8192.0, "{bytes} online bytes");
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
