//! Error messages are for users: every bad input, mismatch and dead peer the CLI tests
//! provoke ends in words, never a Rust `Debug` rendering, a panic or an internal type name.
//! Every `assert_error` of the CLI tests checks this ([`internals`]); here are the cases
//! gathered in one place. Also: `lenet --role` parties that disagree on a parameter both stop at once, naming it.

use super::common;

use std::io::Read;
use std::net::TcpListener;
use std::thread;
use std::time::{Duration, Instant};

use common::*;

/// Asserts `out` failed cleanly and its stderr holds no internals.
fn assert_in_words(what: &str, out: &Output) {
    out.assert_error(what, &[]);
    let found = internals(&out.stderr);
    assert!(
        found.is_empty(),
        "{what}: internals {found:?} in {:?}",
        out.stderr
    );
}

#[test]
fn the_checker_catches_internals() {
    for bad in [
        "error: got Some(32)",
        "error: expected a CircuitHeader frame, got ProgramHeader",
        "error: expected Hello, got Tables",
        "error: the peer sent nothing for Duration { secs: 5 }",
        "error: got unknown tag 77",
        "thread 'main' panicked at src/main.rs",
    ] {
        assert!(!internals(bad).is_empty(), "{bad}");
    }
    assert!(
        internals("error: the peer sent nothing for 5 s (timeout)\nlistening on 127.0.0.1:1\n").is_empty()
    );
}

#[test]
fn bad_input_errors_are_in_words() {
    let files: Vec<TempFile> = [
        ("bad_header.txt", &b"x y\n2 1 1\n1 1\n2 1 0 1 2 AND\n"[..]),
        (
            "unknown_gate.txt",
            b"2 5\n2 1 1\n1 1\n\n2 1 0 1 3 AND\n2 1 3 0 4 FOO\n",
        ),
        ("wire_out_of_range.txt", b"1 3\n2 1 1\n1 1\n2 1 0 9 2 AND\n"),
        ("truncated.txt", b"2 4\n2 1 1\n1 1\n2 1 0 1 2 AND\n"),
        ("empty.txt", b""),
        ("not_utf8.txt", b"1 3\n2 1 1\n1 1\n2 1 0 1 2 \xffAND\n"),
    ]
    .into_iter()
    .map(|(name, text)| TempFile::new(name, text))
    .collect();
    let adder = circuit("adder64.txt");
    let neg = circuit("neg64.txt");
    let aes = circuit("aes_128.txt");
    let missing = circuit("no_such_circuit.txt");
    let listen = ["--listen", "127.0.0.1:0"];
    let run = |file: &str, role: &str, extra: &[&str]| -> Vec<String> {
        let mut v = run_args(file, role, &listen);
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let mut cases: Vec<Vec<String>> = Vec::new();
    for f in &files {
        cases.push(vec!["info".into(), f.path().into()]);
        cases.push(vec!["info".into(), f.path().into(), "--json".into()]);
        cases.push(run(f.path(), "garbler", &["--input", "1"]));
    }
    cases.push(vec!["info".into(), missing.clone()]);
    cases.push(run(&missing, "evaluator", &["--input", "1"]));
    for extra in [
        &["--input", "1,2"][..],
        &[],
        &["--garbler-values", "2", "--input", "1"],
        &["--garbler-values", "2", "--input", "1,"],
        &["--garbler-values", "3", "--input", "1,2,3"],
        &["--input", "1ffffffffffffffff"],
        &["--input", "12g4"],
        &["--input", "0x12"],
        &["--input", "+1"],
        &["--input", "1", "--reveal", "all"],
        &["--input", "1", "--hash", "md5"],
        &["--input", "1", "--garbler-values", "-1"],
        &["--input", "1", "--timeout", "soon"],
        &["--input", "1", "--timeout", "0"],
        &["--input", "1", "--timeout", "18446744073709551615"],
        &["--input", "1", "--batch-bytes", "100"],
        &["--input", "1", "--deadline", "0"],
        &["--input", "1", "--connect", "127.0.0.1:1"],
    ] {
        cases.push(run(&adder, "garbler", extra));
    }
    cases.push(run(&adder, "evaluator", &["--input", ""]));
    cases.push(run(&neg, "evaluator", &["--input", "5"]));
    cases.push(run(
        &aes,
        "garbler",
        &["--input", &format!("1{}", "0".repeat(32))],
    ));
    cases.push(run(&adder, "referee", &[]));
    for args in [
        &["run", "--role", "garbler", "--listen", "127.0.0.1:0"][..],
        &["frobnicate"],
        &[
            "lenet",
            "--role",
            "garbler",
            "--width",
            "2",
            "--listen",
            "127.0.0.1:0",
        ],
        &[
            "lenet",
            "--role",
            "garbler",
            "--realization",
            "quantum",
            "--listen",
            "127.0.0.1:0",
        ],
        &["lenet", "--widths", "99", "--count-only"],
        &[
            "example",
            "matmul",
            "--size",
            "0",
            "--role",
            "garbler",
            "--listen",
            "127.0.0.1:0",
        ],
        &[
            "example",
            "nonesuch",
            "--role",
            "garbler",
            "--listen",
            "127.0.0.1:0",
        ],
        &["primes", "--width", "0"],
        &["plan", "lenet", "--size", "0"],
        &["plan", "clipdot", "--width", "99"],
        &["demo", "aes128", "--width", "8"],
        &["demo", "millionaires", "--size", "5"],
        &["export", "add", "--width", "0", "--out", "unused.txt"],
        &["bench-party", "--workload", "foo"],
        &[
            "lenet",
            "--role",
            "garbler",
            "--filters",
            "0",
            "--listen",
            "127.0.0.1:0",
        ],
    ] {
        cases.push(args.iter().map(|s| s.to_string()).collect());
    }
    for args in &cases {
        let out = run1(&strs(args));
        assert_in_words(&format!("{args:?}"), &out);
    }
}

/// Both parties of a two-process run fail, and say so in words.
fn pair_in_words(what: &str, listener: &[&str], connector: &[&str]) -> (Output, Output) {
    let (l, c) = pair(listener, connector);
    assert_in_words(&format!("{what}: listener"), &l);
    assert_in_words(&format!("{what}: connector"), &c);
    (l, c)
}

#[test]
fn mismatch_errors_are_in_words() {
    let adder = circuit("adder64.txt");
    let sub = circuit("sub64.txt");
    let g = |file: &str, extra: &[&str]| run_args(file, "garbler", extra);
    let e = |file: &str, extra: &[&str]| run_args(file, "evaluator", extra);
    let cases = [
        (
            "circuits",
            g(&adder, &["--input", "1"]),
            e(&sub, &["--input", "2"]),
        ),
        (
            "reveal",
            g(&adder, &["--input", "1", "--reveal", "garbler"]),
            e(&adder, &["--input", "2"]),
        ),
        (
            "ownership",
            g(&adder, &["--input", "1,2", "--garbler-values", "2"]),
            e(&adder, &["--input", "3"]),
        ),
        (
            "hash",
            g(&adder, &["--input", "1", "--hash", "tccr"]),
            e(&adder, &["--input", "2"]),
        ),
        (
            "same role",
            g(&adder, &["--input", "1"]),
            g(&adder, &["--input", "2"]),
        ),
    ];
    for (what, l, c) in &cases {
        pair_in_words(what, &strs(l), &strs(c));
    }
    let example = |role: &str, size: &str| -> Vec<String> {
        [
            "example", "matmul", "--size", size, "--width", "8", "--role", role,
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let (l, c) = pair_in_words(
        "example sizes",
        &strs(&example("garbler", "2")),
        &strs(&example("evaluator", "3")),
    );
    for out in [&l, &c] {
        assert!(out.stderr.contains("size: ours"), "{out:#?}");
    }
    // A circuit run against a program run.
    let (l, c) = pair_in_words(
        "run against example",
        &strs(&g(&adder, &["--input", "1"])),
        &strs(&example("evaluator", "2")),
    );
    assert!(l.stderr.contains("the peer runs `mixgc example`"), "{l:#?}");
    assert!(c.stderr.contains("the peer runs `mixgc run`"), "{c:#?}");
}

#[test]
fn dead_peer_errors_are_in_words() {
    let adder = circuit("adder64.txt");
    // Nobody connects.
    let args = run_args(
        &adder,
        "garbler",
        &["--input", "1", "--listen", "127.0.0.1:0", "--timeout", "1"],
    );
    assert_in_words("no peer", &run1(&strs(&args)));
    // A peer that says nothing, and one that hangs up after reading a little.
    for (what, close_at_once) in [("silent peer", false), ("closing peer", true)] {
        for role in ["garbler", "evaluator"] {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            let addr = l.local_addr().unwrap().to_string();
            let h = thread::spawn(move || {
                if let Ok((mut s, _)) = l.accept() {
                    let mut sink = [0u8; 10];
                    if close_at_once {
                        let _ = s.read_exact(&mut sink);
                    } else {
                        while let Ok(1..) = s.read(&mut sink) {}
                    }
                }
            });
            let args = run_args(
                &adder,
                role,
                &["--input", "1", "--connect", &addr, "--timeout", "1"],
            );
            let out = run1(&strs(&args));
            h.join().unwrap();
            assert_in_words(&format!("{what}, {role}"), &out);
        }
    }
}

/// `lenet --role` for `role` with `extra` parameters on a small layer.
fn lenet(role: &str, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "lenet",
        "--role",
        role,
        "--input",
        "6",
        "--filters",
        "1",
        "--seed",
        "1",
        "--timeout",
        "30",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

#[test]
fn lenet_parties_name_a_differing_parameter_at_once() {
    for (param, ours, theirs) in [
        ("realization", "smart-convert", "pure-boolean"),
        ("width", "8", "12"),
    ] {
        let flag = format!("--{param}");
        let start = Instant::now();
        let (g, e) = pair(
            &strs(&lenet("garbler", &[&flag, ours])),
            &strs(&lenet("evaluator", &[&flag, theirs])),
        );
        for (who, out, mine, peer) in [("garbler", &g, ours, theirs), ("evaluator", &e, theirs, ours)] {
            let named = format!("{param}: ours {mine}, the peer's {peer}");
            out.assert_error(&format!("{param}, {who}"), &[&named]);
            assert!(internals(&out.stderr).is_empty(), "{out:#?}");
            // Far below --timeout 30: the handshake stops both at once.
            assert!(out.elapsed < Duration::from_secs(10), "{param}, {who}: {out:#?}");
        }
        assert!(start.elapsed() < Duration::from_secs(12));
    }
    // Agreeing parties still compute.
    let (g, e) = pair(&strs(&lenet("garbler", &[])), &strs(&lenet("evaluator", &[])));
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert!(e.stdout.contains("all equal to the plaintext layer"), "{e:#?}");
}
