//! `--progress` and `--quiet`: progress on stderr for long runs, never on stdout.

use super::common;

use std::net::TcpListener;
use std::time::Instant;

use common::{circuit, pair, run1, spawn, Output, TempFile, DEADLINE};

/// Encryptions of an AES chain (19.2 M ANDs): a counted phase ends with its final count
/// in plain mode however fast the machine, and slower machines add a line per second.
const LONG: &str = "3000";

/// `mixgc example aes-chain --size SIZE --role ROLE` plus `extra`.
fn example(size: &str, role: &str, extra: &[&str]) -> Vec<String> {
    ["example", "aes-chain", "--size", size, "--role", role]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Lines of `stderr` that report progress (`what: done unit (rate/s)`).
fn progress_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("garbling: ") || l.starts_with("evaluating: "))
        .collect()
}

/// Stdout is the chain's one output value: 32 hex digits, the same for both parties.
fn assert_outputs_only(g: &str, e: &str) {
    assert_eq!(g, e);
    assert_eq!(g.len(), 33, "{g:?}");
    assert!(g.trim_end().chars().all(|c| c.is_ascii_hexdigit()), "{g:?}");
}

#[test]
fn plain_progress_prints_lines_on_stderr_of_both_parties() {
    let (g, e) = pair(
        &strs(&example(LONG, "garbler", &["--progress", "plain"])),
        &strs(&example(LONG, "evaluator", &["--progress", "plain"])),
    );
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert_outputs_only(&g.stdout, &e.stdout);
    for (out, what) in [(&g, "garbling: "), (&e, "evaluating: ")] {
        let lines = progress_lines(&out.stderr);
        assert!(!lines.is_empty(), "{out:#?}");
        assert!(
            lines
                .iter()
                .all(|l| l.starts_with(what) && l.contains(" ANDs (") && l.ends_with("/s)")),
            "{lines:?}"
        );
    }
    assert!(g.stderr.contains("garbler: 19,200,000 ANDs"), "{}", g.stderr);
}

#[test]
fn progress_none_prints_no_progress() {
    let (g, e) = pair(
        &strs(&example(LONG, "garbler", &["--progress", "none"])),
        &strs(&example(LONG, "evaluator", &["--progress", "none"])),
    );
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert_outputs_only(&g.stdout, &e.stdout);
    for out in [&g, &e] {
        assert!(progress_lines(&out.stderr).is_empty(), "{out:#?}");
        assert!(out.stderr.contains(" ANDs, sent "), "the summary stays: {out:#?}");
    }
}

#[test]
fn quiet_leaves_only_the_listening_line() {
    let aes = circuit("aes_128.txt");
    let key = "000102030405060708090a0b0c0d0e0f";
    let block = "00112233445566778899aabbccddeeff";
    let (g, e) = pair(
        &[
            "run",
            "--circuit",
            &aes,
            "--role",
            "garbler",
            "--input",
            key,
            "--quiet",
        ],
        &[
            "run",
            "--circuit",
            &aes,
            "--role",
            "evaluator",
            "--input",
            block,
            "--quiet",
            "--progress",
            "plain",
        ],
    );
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert_eq!(g.stdout, "69c4e0d86a7b0430d8cdb78070b4c55a\n");
    assert_eq!(e.stdout, g.stdout);
    assert!(g.stderr.starts_with("listening on 127.0.0.1:"), "{g:#?}");
    assert_eq!(g.stderr.lines().count(), 1, "{g:#?}");
    assert_eq!(e.stderr, "", "{e:#?}");

    // Random inputs are shown on stderr, unless --quiet.
    let (g, e) = pair(
        &strs(&example("1", "garbler", &["--quiet"])),
        &strs(&example("1", "evaluator", &["--quiet"])),
    );
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert_outputs_only(&g.stdout, &e.stdout);
    assert_eq!(g.stderr.lines().count(), 1, "{g:#?}");
    assert_eq!(e.stderr, "", "{e:#?}");
}

#[test]
fn the_commands_that_talk_to_a_peer_document_progress_and_quiet() {
    for command in [
        "run",
        "example",
        "preprocess",
        "online",
        "party",
        "synth",
        "bench",
        "profile",
        "plan",
        "lenet",
    ] {
        let help = run1(&[command, "--help"]);
        help.assert_ok(command);
        for flag in ["--progress <MODE>", "--quiet"] {
            assert!(help.stdout.contains(flag), "{command} --help lacks {flag}");
        }
    }
}

/// Runs `mixgc party` among three processes on AES-128 (parties 0 and 1 own the key and
/// the block, everyone learns the ciphertext) with `extra` flags for everyone.
fn aes_mesh(protocol: &str, extra: &[&str]) -> Vec<Output> {
    let listeners: Vec<TcpListener> = (0..3)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let addrs: Vec<String> = listeners
        .iter()
        .map(|l| l.local_addr().unwrap().to_string())
        .collect();
    drop(listeners);
    let (aes, addrs) = (circuit("aes_128.txt"), addrs.join(","));
    let inputs = [
        Some("000102030405060708090a0b0c0d0e0f"),
        Some("00112233445566778899aabbccddeeff"),
        None,
    ];
    let procs: Vec<_> = inputs
        .iter()
        .enumerate()
        .map(|(i, input)| {
            let id = i.to_string();
            let mut args = vec![
                "party",
                "--id",
                &id,
                "--parties",
                &addrs,
                "--circuit",
                &aes,
                "--owners",
                "0,1",
                "--protocol",
                protocol,
                "--timeout",
                "10",
            ];
            if let Some(x) = input {
                args.extend(["--input", x]);
            }
            args.extend(extra);
            spawn(&args)
        })
        .collect();
    let deadline = Instant::now() + DEADLINE;
    procs.into_iter().map(|p| p.finish(deadline)).collect()
}

#[test]
fn n_party_runs_report_ands_in_plain_mode_and_nothing_when_quiet() {
    for (protocol, what) in [("bmr", "garbling and evaluating: "), ("gmw", "evaluating: ")] {
        for out in aes_mesh(protocol, &["--progress", "plain"]) {
            out.assert_ok(protocol);
            assert_eq!(out.stdout, "69c4e0d86a7b0430d8cdb78070b4c55a\n");
            let lines: Vec<&str> = out.stderr.lines().filter(|l| l.starts_with(what)).collect();
            assert!(!lines.is_empty(), "{protocol}: {out:#?}");
            assert!(
                lines
                    .iter()
                    .all(|l| l.contains("/6,400 ANDs (") && l.ends_with("/s)")),
                "{lines:?}"
            );
            assert!(
                lines
                    .last()
                    .unwrap()
                    .starts_with(&format!("{what}6,400/6,400 ANDs")),
                "{lines:?}"
            );
            assert!(
                out.stderr.contains(" ANDs; offline "),
                "the summary stays: {out:#?}"
            );
        }
        for out in aes_mesh(protocol, &["--quiet", "--progress", "plain"]) {
            out.assert_ok(protocol);
            assert_eq!(out.stdout, "69c4e0d86a7b0430d8cdb78070b4c55a\n");
            assert_eq!(out.stderr, "", "{protocol} --quiet: {out:#?}");
        }
    }
}

/// A study's command, fast settings, JSON on stdout.
const STUDIES: &[(&str, &[&str])] = &[
    (
        "bench --preprocess",
        &["bench", "--preprocess", "--runs", "1", "--json"],
    ),
    ("profile", &["profile", "--widths", "4", "--reps", "1", "--json"]),
    ("lenet", &["lenet", "--widths", "4", "--count-only", "--json"]),
    (
        "plan",
        &["plan", "clipdot", "--width", "8", "--size", "4", "--json"],
    ),
];

#[test]
fn studies_count_their_steps_in_plain_mode_and_print_nothing_when_quiet() {
    for (name, args) in STUDIES {
        let with = |extra: &[&str]| {
            let all: Vec<&str> = args.iter().chain(extra).copied().collect();
            let out = run1(&all);
            out.assert_ok(name);
            serde_json::from_str::<serde_json::Value>(&out.stdout)
                .unwrap_or_else(|e| panic!("{name}: stdout is not only its JSON ({e}): {out:#?}"));
            out
        };
        let plain = with(&["--progress", "plain"]);
        let lines: Vec<&str> = plain
            .stderr
            .lines()
            .filter(|l| l.starts_with(&format!("{name}: ")))
            .collect();
        let last = lines
            .last()
            .unwrap_or_else(|| panic!("{name}: no progress line: {plain:#?}"));
        // The final line: every step done (`N/N steps`).
        let count = last[name.len() + 2..].split(' ').next().unwrap();
        let (done, total) = count.split_once('/').expect("done/total");
        assert_eq!(done, total, "{last}");
        assert!(last.contains(" steps, ") && total != "0", "{last}");

        let quiet = with(&["--quiet"]);
        assert_eq!(quiet.stderr, "", "{name} --quiet: {quiet:#?}");
        let none = with(&["--progress", "none"]);
        assert!(
            !none.stderr.contains(" steps, "),
            "{name} --progress none: {none:#?}"
        );
    }
}

fn yosys_present() -> bool {
    let ok = std::process::Command::new("yosys").arg("-V").output().is_ok();
    if !ok {
        assert!(std::env::var_os("CI").is_none(), "yosys missing under CI");
        eprintln!("skipped: yosys is not installed (apt-get install yosys)");
    }
    ok
}

#[test]
fn synth_shows_yosys_alive_in_plain_mode_and_is_silent_when_quiet() {
    if !yosys_present() {
        return;
    }
    let design = format!("{}/../../verilog/hamming160.v", env!("CARGO_MANIFEST_DIR"));
    let (a, b) = (
        TempFile::new("synth-plain.txt", b""),
        TempFile::new("synth-quiet.txt", b""),
    );
    let plain = run1(&["synth", &design, "--out", a.path(), "--progress", "plain"]);
    plain.assert_ok("synth --progress plain");
    assert_eq!(plain.stdout, "");
    // Yosys takes seconds on this design: every second of it gets a line (a timed phase
    // under a second gets none, so only a run that long is held to it).
    let lines: Vec<&str> = plain
        .stderr
        .lines()
        .filter(|l| l.starts_with("synthesizing with Yosys: "))
        .collect();
    assert!(lines.iter().all(|l| l.ends_with(" s")), "{plain:#?}");
    if plain.elapsed.as_secs_f64() > 1.5 {
        assert!(!lines.is_empty(), "{plain:#?}");
    }
    assert!(plain.stderr.contains("--garbler-values"), "{plain:#?}");

    let quiet = run1(&["synth", &design, "--out", b.path(), "--quiet"]);
    quiet.assert_ok("synth --quiet");
    assert_eq!((quiet.stdout.as_str(), quiet.stderr.as_str()), ("", ""));
    assert_eq!(std::fs::read(a.path()).unwrap(), std::fs::read(b.path()).unwrap());
}
