//! `--security malicious` between two real `mixgc` processes: every shipped Bristol
//! circuit against its plaintext evaluation, `--executions K`, a library program, TLS, a
//! model mismatch named on both sides, a killed peer, garbage from a peer.

mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use mixgc_circuit::{bristol, values};
use rand::Rng;

const MAL: [&str; 2] = ["--security", "malicious"];

/// Random inputs of `file`'s circuit split as `mixgc run` splits them (the garbler the
/// first ⌈n/2⌉ values), and the outputs the plaintext evaluation gives, as printed.
fn case(file: &str, rng: &mut impl Rng) -> (Vec<String>, Vec<String>, String) {
    let text = std::fs::read_to_string(circuit(file)).unwrap();
    let c = bristol::parse(&text, file).unwrap();
    let inputs: Vec<Vec<bool>> = c
        .input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.gen()).collect())
        .collect();
    let want: String = c
        .eval_plain(&inputs)
        .unwrap()
        .iter()
        .map(|v| values::to_hex(v) + "\n")
        .collect();
    let hex: Vec<String> = inputs.iter().map(|v| values::to_hex(v)).collect();
    let g = hex.len().div_ceil(2);
    (hex[..g].to_vec(), hex[g..].to_vec(), want)
}

fn with(flags: &[String], extra: &[&str]) -> Vec<String> {
    let mut v = flags.to_vec();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

#[test]
fn every_shipped_circuit_matches_plaintext_in_the_malicious_model() {
    let mut rng = test_rng();
    let mut files: Vec<String> = std::fs::read_dir(circuit(""))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    for file in &files {
        let (g, e, want) = case(file, &mut rng);
        // A small batch on the odd runs, so that circuits span several batches.
        let batch = ["--batch-ands", if rng.gen() { "1000" } else { "65536" }];
        let gf = with(&input_flag(&g), &MAL);
        let ef = with(&input_flag(&e), &MAL);
        let (go, eo) = garbler_listens(
            &circuit(file),
            &strs(&with(&gf, &batch)),
            &strs(&with(&ef, &batch)),
        );
        for (who, out) in [("garbler", &go), ("evaluator", &eo)] {
            out.assert_ok(&format!("{file}: {who}"));
            assert_eq!(out.stdout, want, "{file}: {who}");
        }
    }
}

#[test]
fn executions_share_the_preprocessing_and_print_each_output() {
    let mut rng = test_rng();
    let (a, b): (Vec<u64>, Vec<u64>) = (0..4).map(|_| (rng.gen::<u64>(), rng.gen::<u64>())).unzip();
    let group = |v: &[u64]| v.iter().map(|x| format!("{x:x}")).collect::<Vec<_>>().join(";");
    let want: Vec<String> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| format!("{:016x}\n", x.wrapping_add(*y)))
        .collect();
    let want = want.join("\n");
    let (ga, eb) = (group(&a), group(&b));
    let g = ["--input", &ga, "--executions", "4", MAL[0], MAL[1]];
    let e = ["--input", &eb, "--executions", "4", MAL[0], MAL[1]];
    let (go, eo) = garbler_listens(&circuit("adder64.txt"), &g, &e);
    for (who, out) in [("garbler", &go), ("evaluator", &eo)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, want, "{who}");
        assert!(out.stderr.contains("4 executions, mean"), "{who}: {out:#?}");
    }
}

#[test]
fn a_library_program_runs_unchanged_in_the_malicious_model() {
    let mut rng = test_rng();
    let (x, y): (u64, u64) = (rng.gen(), rng.gen());
    let (xs, ys) = (format!("{x:x}"), format!("{y:x}"));
    let want = format!("{}\n", u8::from(x > y));
    let (go, eo) = pair(
        &[
            "example",
            "millionaires",
            "--role",
            "garbler",
            "--input",
            &xs,
            MAL[0],
            MAL[1],
        ],
        &[
            "example",
            "millionaires",
            "--role",
            "evaluator",
            "--input",
            &ys,
            MAL[0],
            MAL[1],
        ],
    );
    for (who, out) in [("garbler", &go), ("evaluator", &eo)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, want, "{who} (x = {x}, y = {y})");
    }
}

#[test]
fn a_malicious_and_a_semi_honest_party_both_name_both_models() {
    let (g, e) = (["--input", "1"], ["--input", "2", MAL[0], MAL[1]]);
    let (go, eo) = garbler_listens(&circuit("adder64.txt"), &g, &e);
    go.assert_error(
        "garbler",
        &[
            "security model differs",
            "ours semi-honest",
            "the peer's malicious",
        ],
    );
    eo.assert_error(
        "evaluator",
        &[
            "security model differs",
            "ours malicious",
            "the peer's semi-honest",
        ],
    );
}

#[test]
fn parties_disagreeing_on_the_batch_size_are_told() {
    let g = ["--input", "1", MAL[0], MAL[1], "--batch-ands", "100"];
    let e = ["--input", "2", MAL[0], MAL[1], "--batch-ands", "200"];
    let (go, eo) = garbler_listens(&circuit("adder64.txt"), &g, &e);
    for (who, out) in [("garbler", &go), ("evaluator", &eo)] {
        out.assert_error(who, &["batch size"]);
    }
}

#[test]
fn unsupported_combinations_are_refused_by_name() {
    let out = run1(&[
        "run",
        "--circuit",
        &circuit("adder64.txt"),
        "--role",
        "garbler",
        "--listen",
        "127.0.0.1:0",
        "--garbling",
        "three-halves",
        MAL[0],
        MAL[1],
    ]);
    // The garbling scheme is refused before a peer is awaited (no `listening on` needed).
    assert!(!out.success(), "{out:#?}");
    run1(&[
        "run",
        "--circuit",
        &circuit("adder64.txt"),
        "--role",
        "garbler",
        "--connect",
        "127.0.0.1:1",
        MAL[0],
        MAL[1],
        "--batch-ands",
        "0",
    ])
    .assert_error("batch 0", &["AND gates per batch"]);
}

#[test]
fn a_killed_peer_ends_the_other_within_the_timeout() {
    // Many executions, so that the run lasts while the evaluator is killed.
    let mut g_args = run_args(
        &circuit("aes_128.txt"),
        "garbler",
        &[
            "--input",
            "0",
            "--executions",
            "2000",
            "--timeout",
            "2",
            MAL[0],
            MAL[1],
        ],
    );
    g_args.extend(["--listen".into(), "127.0.0.1:0".into()]);
    let mut g = spawn(&strs(&g_args));
    let addr = g.listening_addr();
    let e_args = run_args(
        &circuit("aes_128.txt"),
        "evaluator",
        &[
            "--input",
            "1",
            "--executions",
            "2000",
            "--timeout",
            "2",
            "--connect",
            &addr,
            MAL[0],
            MAL[1],
        ],
    );
    let e = spawn(&strs(&e_args));
    thread::sleep(Duration::from_millis(800));
    drop(e); // kills the evaluator
    let killed = Instant::now();
    let out = g.finish(Instant::now() + Duration::from_secs(10));
    out.assert_error("garbler", &[]);
    assert!(
        killed.elapsed() < Duration::from_secs(5),
        "{:?}: {out:#?}",
        killed.elapsed()
    );
}

#[test]
fn garbage_from_a_peer_is_a_clear_error() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let peer = thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut rng = rand::thread_rng();
        let junk: Vec<u8> = (0..4096).map(|_| rng.gen()).collect();
        let _ = s.write_all(&junk);
        let mut sink = [0u8; 1024];
        while matches!(s.read(&mut sink), Ok(n) if n > 0) {}
    });
    let out = run1(&[
        "run",
        "--circuit",
        &circuit("adder64.txt"),
        "--role",
        "evaluator",
        "--input",
        "1",
        "--connect",
        &addr,
        "--timeout",
        "2",
        MAL[0],
        MAL[1],
    ]);
    out.assert_error("evaluator", &["not a mixgc party"]);
    peer.join().unwrap();
}

#[test]
fn the_malicious_model_runs_over_tls() {
    let dir = std::env::temp_dir().join(format!("mixgc-maltls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let keygen = |name: &str| {
        let d = dir.join(name);
        let out = run1(&["keygen", "--out", d.to_str().unwrap()]);
        out.assert_ok("keygen");
        let p = |f: &str| d.join(f).to_str().unwrap().to_string();
        (p("cert.pem"), p("key.pem"), out.stdout.trim().to_string())
    };
    let (gc, gk, gf) = keygen("g");
    let (ec, ek, ef) = keygen("e");
    let g = [
        "--input",
        "5",
        "--cert",
        &gc,
        "--key",
        &gk,
        "--peer-fingerprint",
        &ef,
        MAL[0],
        MAL[1],
    ];
    let e = [
        "--input",
        "7",
        "--cert",
        &ec,
        "--key",
        &ek,
        "--peer-fingerprint",
        &gf,
        MAL[0],
        MAL[1],
    ];
    let (go, eo) = garbler_listens(&circuit("adder64.txt"), &g, &e);
    for (who, out) in [("garbler", &go), ("evaluator", &eo)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, "000000000000000c\n", "{who}");
        assert!(!out.stderr.contains("plain TCP"), "{who}: {out:#?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
