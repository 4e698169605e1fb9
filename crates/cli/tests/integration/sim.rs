//! `mixgc sim`: the HAAC model on `.haac` files, text and JSON, the figures of `--plot`,
//! and clear errors.

use super::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::BIN;
use mixgc_circuit::shipped::AES_128;
use mixgc_compile::Loaded;
use mixgc_haac::{file, CompileOptions, Schedule};

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mixgc-sim-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// AES-128 compiled for 4 GEs and a 1,024-wire window in `schedule`, written to `dir`.
fn aes_file(dir: &Path, schedule: Schedule) -> PathBuf {
    let circuit = Loaded::parse(AES_128, "aes_128.txt").unwrap().circuit;
    let opts = CompileOptions {
        schedule,
        window: 1024,
        ges: 4,
    };
    let hc = mixgc_haac::compile(&circuit, 1, opts).unwrap();
    let path = dir.join(format!("aes.{schedule:?}.haac").to_lowercase());
    file::write_file(&path, &hc).unwrap();
    path
}

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN).arg("sim").args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn json_has_the_bounds_bytes_and_speedup() {
    let dir = temp_dir("json");
    let f = aes_file(&dir, Schedule::Full);
    let (ok, out, err) = run(&[
        f.to_str().unwrap(),
        "--json",
        "--cpu-ns-per-and",
        "20",
        "--memory",
        "hbm2",
    ]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let n = |k: &str| v[k].as_f64().unwrap_or_else(|| panic!("{k} in {v}"));
    assert!(n("cycles") >= n("compute_cycles").max(n("memory_cycles")));
    assert!((n("seconds") - n("cycles") * 1e-9).abs() < 1e-15);
    assert_eq!(v["ges"], 4);
    assert_eq!(v["memory_gbps"], 512.0);
    assert!(v["bytes"]["tables"].as_u64().unwrap() == 32 * v["ands"].as_u64().unwrap());
    assert!(v["bytes"]["total"].as_u64().unwrap() > 0);
    assert_eq!(v["cpu"]["source"], "--cpu-ns-per-and");
    let cpu = v["ands"].as_f64().unwrap() * 20e-9;
    assert!((n("speedup") - cpu / n("seconds")).abs() / n("speedup") < 1e-9);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn text_reports_a_measured_cpu_baseline() {
    let dir = temp_dir("text");
    let f = aes_file(&dir, Schedule::Segment);
    let (ok, out, err) = run(&[
        f.to_str().unwrap(),
        "--role",
        "garbler",
        "--set",
        "dram_latency_cycles=10",
    ]);
    assert!(ok, "{err}");
    for want in [
        "segment schedule",
        "4 GEs",
        "garbler",
        "DDR4",
        "GE-only bound",
        "off-chip: tables",
        "garbling measured in memory here",
        "HAAC speedup",
    ] {
        assert!(out.contains(want), "{want} missing from\n{out}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cpu_only_measures_the_baseline_without_simulating() {
    let dir = temp_dir("cpu-only");
    let f = aes_file(&dir, Schedule::Full);
    let fs = f.to_str().unwrap();
    let (ok, out, err) = run(&[fs, "--cpu-only", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["workload"], "aes");
    assert_eq!(v["role"], "evaluator");
    assert_eq!(v["cpu"]["source"], "evaluation measured in memory here");
    let (s, ns) = (
        v["cpu"]["seconds"].as_f64().unwrap(),
        v["cpu"]["ns_per_and"].as_f64().unwrap(),
    );
    // AES-128 has 6,400 ANDs: the seconds and the per-AND figure agree.
    assert!(s > 0.0 && (ns * 6400e-9 - s).abs() / s < 1e-9, "{v}");
    assert!(v.get("cycles").is_none(), "no simulation: {v}");
    let (ok, out, err) = run(&[fs, "--cpu-only", "--role", "garbler"]);
    assert!(
        ok && out.contains("garbling measured in memory here"),
        "{out}{err}"
    );
    let (ok, _, err) = run(&[fs, "--cpu-only", "--cpu-ns-per-and", "3"]);
    assert!(!ok && err.contains("--cpu-ns-per-and"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = temp_dir("errors");
    let f = aes_file(&dir, Schedule::Full);
    let fs = f.to_str().unwrap();
    let (ok, _, err) = run(&[fs, "--memory", "fast"]);
    assert!(!ok && err.contains("not ddr4, hbm2"), "{err}");
    let (ok, _, err) = run(&[fs, "--set", "xor_latency=0", "--cpu-ns-per-and", "1"]);
    assert!(!ok && err.contains("xor_latency"), "{err}");
    let (ok, _, err) = run(&[fs, "--set", "bogus=1", "--cpu-ns-per-and", "1"]);
    assert!(!ok && err.contains("unknown model parameter"), "{err}");
    let (ok, _, err) = run(&[fs, "--cpu-ns-per-and", "0"]);
    assert!(!ok && err.contains("--cpu-ns-per-and"), "{err}");
    let mut bytes = std::fs::read(&f).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    let bad = dir.join("bad.haac");
    std::fs::write(&bad, &bytes).unwrap();
    let (ok, _, err) = run(&[bad.to_str().unwrap(), "--cpu-ns-per-and", "1"]);
    assert!(!ok && err.contains("bad.haac"), "{err}");
    let (ok, _, err) = run(&[dir.join("missing.haac").to_str().unwrap()]);
    assert!(!ok && err.contains("missing.haac"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn plot_writes_the_figures_and_table_3() {
    let dir = temp_dir("plot");
    let files: Vec<String> = [Schedule::Program, Schedule::Segment, Schedule::Full]
        .into_iter()
        .map(|s| aes_file(&dir, s).to_str().unwrap().to_string())
        .collect();
    let out_dir = dir.join("figures");
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.extend(["--plot", out_dir.to_str().unwrap(), "--cpu-ns-per-and", "15"]);
    let (ok, out, err) = run(&args);
    assert!(ok, "{err}");
    for f in [
        "fig6.png",
        "fig7.png",
        "fig8_ddr4.png",
        "fig8_hbm2.png",
        "fig6.csv",
        "fig7.csv",
        "fig8.csv",
        "table3.csv",
        "runs.csv",
    ] {
        assert!(out_dir.join(f).is_file(), "{f} missing");
    }
    let fig6 = std::fs::read_to_string(out_dir.join("fig6.csv")).unwrap();
    assert!(fig6.lines().nth(1).unwrap().starts_with("aes,"), "{fig6}");
    let fig8 = std::fs::read_to_string(out_dir.join("fig8.csv")).unwrap();
    assert_eq!(fig8.lines().count(), 3, "{fig8}");
    let table3 = std::fs::read_to_string(out_dir.join("table3.csv")).unwrap();
    assert!(
        table3.lines().nth(1).unwrap().starts_with("aes,1024,"),
        "{table3}"
    );
    assert!(
        out.contains("[589x]") && out.contains("RO+RN over baseline"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
