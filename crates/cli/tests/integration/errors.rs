//! `mixgc run` on bad input and misbehaving peers: every case must end with an `error: ...`
//! line on stderr and a nonzero exit, quickly, without a panic and without a hang.

use super::common;

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use rand::RngCore;

#[test]
fn malformed_circuit_files_name_file_and_line() {
    // (file name, contents, line the error must point at, words the reason must contain)
    let cases: [(&str, &[u8], usize, &str); 6] = [
        (
            "bad_header.txt",
            b"x y\n2 1 1\n1 1\n2 1 0 1 2 AND\n",
            1,
            "gate count",
        ),
        (
            "unknown_gate.txt",
            b"2 5\n2 1 1\n1 1\n\n2 1 0 1 3 AND\n2 1 3 0 4 FOO\n",
            6,
            "unknown gate type",
        ),
        (
            "wire_out_of_range.txt",
            b"1 3\n2 1 1\n1 1\n2 1 0 9 2 AND\n",
            4,
            "out of range",
        ),
        ("truncated.txt", b"2 4\n2 1 1\n1 1\n2 1 0 1 2 AND\n", 4, "2 gates"),
        ("empty.txt", b"", 1, "ends before"),
        (
            "not_utf8.txt",
            b"1 3\n2 1 1\n1 1\n2 1 0 1 2 \xffAND\n",
            4,
            "UTF-8",
        ),
    ];
    for (name, text, line, reason) in cases {
        let f = TempFile::new(name, text);
        let at = format!("{}:{line}:", f.path());
        for args in [
            vec!["info", f.path()],
            vec!["info", f.path(), "--json"],
            vec![
                "run",
                "--circuit",
                f.path(),
                "--role",
                "garbler",
                "--listen",
                "127.0.0.1:0",
                "--input",
                "1",
            ],
        ] {
            let out = run1(&args);
            out.assert_error(&format!("{args:?}"), &[&at, reason]);
            assert!(!out.stderr.contains("listening on"), "{out:#?}");
        }
    }
}

#[test]
fn nonexistent_circuit_file() {
    let missing = circuit("no_such_circuit.txt");
    run1(&["info", &missing]).assert_error("info", &[&missing, "cannot read"]);
    run1(&[
        "run",
        "--circuit",
        &missing,
        "--role",
        "evaluator",
        "--connect",
        "127.0.0.1:9",
        "--input",
        "1",
    ])
    .assert_error("run", &[&missing, "cannot read"]);
}

/// Runs one party alone: bad local input must fail before it listens.
fn alone(file: &str, role: &str, extra: &[&str]) -> Output {
    let mut args = run_args(&circuit(file), role, &["--listen", "127.0.0.1:0"]);
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = run1(&strs(&args));
    assert!(
        !out.stderr.contains("listening on"),
        "checked inputs only after listening: {out:#?}"
    );
    out
}

#[test]
fn wrong_number_of_input_values() {
    alone("adder64.txt", "garbler", &["--input", "1,2"]).assert_error("two values", &["owns 1", "gave 2"]);
    alone("adder64.txt", "garbler", &[]).assert_error("no --input", &["owns 1", "gave 0"]);
    alone("adder64.txt", "evaluator", &["--input", ""]).assert_error("empty --input", &["owns 1", "gave 0"]);
    // neg64 has one value: the garbler's. An evaluator --input is an error, not ignored.
    alone("neg64.txt", "evaluator", &["--input", "5"])
        .assert_error("evaluator owns none", &["owns 0", "gave 1"]);
    alone(
        "adder64.txt",
        "garbler",
        &["--garbler-values", "2", "--input", "1"],
    )
    .assert_error("K=2, one value", &["owns 2", "gave 1"]);
    alone(
        "adder64.txt",
        "garbler",
        &["--garbler-values", "2", "--input", "1,"],
    )
    .assert_error("K=2, empty second value", &["#2", "empty"]);
    alone(
        "adder64.txt",
        "garbler",
        &["--garbler-values", "3", "--input", "1,2,3"],
    )
    .assert_error("K > n", &["cannot own 3"]);
}

#[test]
fn input_value_too_large_for_its_width() {
    for v in ["1ffffffffffffffff", "10000000000000000", "FFFFFFFFFFFFFFFFF"] {
        alone("adder64.txt", "garbler", &["--input", v]).assert_error(v, &[v, "does not fit in 64 bits"]);
    }
    alone("adder_32bit.txt", "evaluator", &["--input", "100000000"])
        .assert_error("2^32", &["does not fit in 32 bits"]);
    alone(
        "aes_128.txt",
        "garbler",
        &["--input", &format!("1{}", "0".repeat(32))],
    )
    .assert_error("2^128", &["does not fit in 128 bits"]);
    // The largest values fit.
    let ok = ["--input", "ffffffffffffffff"];
    let (g, e) = garbler_listens(&circuit("adder64.txt"), &ok, &ok);
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert_eq!(e.stdout, "fffffffffffffffe\n");
}

#[test]
fn non_hex_characters() {
    for (v, bad) in [("12g4", "'g'"), ("0x12", "'x'"), ("+1", "'+'"), ("12 34", "' '")] {
        alone("adder64.txt", "garbler", &["--input", v]).assert_error(v, &["invalid hex digit", bad]);
    }
}

#[test]
fn argument_errors_from_the_parser() {
    let adder = circuit("adder64.txt");
    let base = ["run", "--circuit", &adder, "--role", "garbler", "--input", "1"];
    let with = |extra: &[&str]| {
        let mut v = base.to_vec();
        v.extend(extra);
        run1(&v)
    };
    let both = with(&["--listen", "127.0.0.1:0", "--connect", "127.0.0.1:1"]);
    both.assert_error("both --listen and --connect", &["cannot be used with"]);
    assert_eq!(both.code, Some(2));
    let neither = with(&[]);
    neither.assert_error("neither --listen nor --connect", &["required"]);
    assert!(neither.stderr.contains("--listen") && neither.stderr.contains("--connect"));
    assert_eq!(neither.code, Some(2));
    with(&["--listen", "127.0.0.1:0", "--reveal", "all"]).assert_error("--reveal all", &["all"]);
    with(&["--listen", "127.0.0.1:0", "--hash", "md5"]).assert_error("--hash md5", &["md5"]);
    with(&["--listen", "127.0.0.1:0", "--garbler-values", "-1"]).assert_error("K=-1", &["-1"]);
    with(&["--listen", "127.0.0.1:0", "--timeout", "soon"]).assert_error("--timeout soon", &["soon"]);
    // Ranges are checked before listening: no `listening on` line, exit 2.
    for (flag, value, needle) in [
        ("--timeout", "0", "from 1 to 86400"),
        ("--timeout", "18446744073709551615", "from 1 to 86400"),
        ("--batch-bytes", "100", "from 65536 (64 KiB) to 16777216 (16 MiB)"),
        ("--deadline", "0", "from 1 to 604800"),
    ] {
        let out = with(&["--listen", "127.0.0.1:0", flag, value]);
        out.assert_error(flag, &[needle]);
        assert!(!out.stderr.contains("listening on"), "{flag} {value}: {out:#?}");
        assert_eq!(out.code, Some(2), "{flag} {value}");
    }
    run1(&[
        "run",
        "--circuit",
        &adder,
        "--role",
        "referee",
        "--listen",
        "127.0.0.1:0",
    ])
    .assert_error("--role referee", &["referee"]);
    run1(&["run", "--role", "garbler", "--listen", "127.0.0.1:0"])
        .assert_error("no --circuit", &["--circuit"]);
    run1(&["frobnicate"]).assert_error("unknown subcommand", &["frobnicate"]);
}

/// Both parties fail, each naming `what` (and neither prints an output).
fn both_fail(g: &Output, e: &Output, what: &str) {
    g.assert_error("garbler", &[what]);
    e.assert_error("evaluator", &[what]);
}

#[test]
fn mismatched_circuits_are_named_on_both_sides() {
    let g = run_args(&circuit("adder64.txt"), "garbler", &["--input", "1"]);
    let e = run_args(&circuit("sub64.txt"), "evaluator", &["--input", "2"]);
    let (g, e) = pair(&strs(&g), &strs(&e));
    both_fail(&g, &e, "circuit digest differs");
}

#[test]
fn mismatched_terms_are_named_on_both_sides() {
    let adder = circuit("adder64.txt");
    let (g, e) = garbler_listens(
        &adder,
        &["--input", "1", "--reveal", "garbler"],
        &["--input", "2"],
    );
    both_fail(&g, &e, "reveal mode differs");
    let (g, e) = garbler_listens(
        &adder,
        &["--input", "1,2", "--garbler-values", "2"],
        &["--input", "3"],
    );
    both_fail(&g, &e, "value ownership differs");
    let (g, e) = garbler_listens(&adder, &["--input", "1", "--hash", "tccr"], &["--input", "2"]);
    both_fail(&g, &e, "gate hash differs");
    let (g, e) = garbler_listens(
        &adder,
        &["--input", "1"],
        &["--input", "2", "--garbling", "three-halves"],
    );
    g.assert_error(
        "garbler",
        &["garbling scheme differs: ours half-gates, the peer's three-halves"],
    );
    e.assert_error(
        "evaluator",
        &["garbling scheme differs: ours three-halves, the peer's half-gates"],
    );
    run1(&[
        "run",
        "--circuit",
        &adder,
        "--role",
        "garbler",
        "--garbling",
        "quarter",
    ])
    .assert_error("unknown scheme", &["half-gates or three-halves", "quarter"]);
    run1(&[
        "example",
        "aes-chain",
        "--size",
        "3",
        "--role",
        "garbler",
        "--garbling",
        "three-halves",
        "--security",
        "malicious",
        "--connect",
        "127.0.0.1:9",
    ])
    .assert_error(
        "malicious example with three-halves",
        &["--garbling does not apply", "leave it out"],
    );
}

#[test]
fn different_commands_are_named_on_both_sides() {
    let adder = circuit("adder64.txt");
    let g = run_args(&adder, "garbler", &["--input", "1"]);
    let e = ["example", "auction", "--role", "evaluator", "--input", "4ff"];
    let (g, e) = pair(&strs(&g), &e);
    g.assert_error(
        "garbler",
        &["the peer runs `mixgc example` and this party `mixgc run`"],
    );
    e.assert_error(
        "evaluator",
        &["the peer runs `mixgc run` and this party `mixgc example`"],
    );
    let p = [
        "preprocess",
        "--circuit",
        &adder,
        "--role",
        "garbler",
        "--state",
        "/nonexistent-dir/never-written.prep",
        "--listen",
        "127.0.0.1:0",
    ];
    run1(&p).assert_error("state in a missing directory", &["cannot create"]);
}

#[test]
fn both_parties_with_the_same_role() {
    let adder = circuit("adder64.txt");
    for role in ["garbler", "evaluator"] {
        let a = run_args(&adder, role, &["--input", "1"]);
        let (l, c) = pair(&strs(&a), &strs(&a));
        let what = format!("both parties chose --role {role}");
        both_fail(&l, &c, &what);
    }
}

/// A TCP listener standing in for the peer: `serve` gets the accepted connection.
fn fake_peer(serve: impl FnOnce(TcpStream) + Send + 'static) -> (String, thread::JoinHandle<()>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let h = thread::spawn(move || {
        if let Ok((s, _)) = l.accept() {
            serve(s);
        }
    });
    (addr, h)
}

fn connect_to(addr: &str, role: &str, extra: &[&str]) -> Output {
    run1(&strs(&connect_args(addr, role, extra)))
}

/// `run` of AES-128 as `role` with its FIPS-197 input, connecting to `addr`, plus `extra`.
fn connect_args(addr: &str, role: &str, extra: &[&str]) -> Vec<String> {
    let input = if role == "garbler" {
        "000102030405060708090a0b0c0d0e0f"
    } else {
        "00112233445566778899aabbccddeeff"
    };
    let mut args = run_args(
        &circuit("aes_128.txt"),
        role,
        &["--connect", addr, "--input", input],
    );
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

#[test]
fn peer_closes_after_reading_a_little() {
    for role in ["garbler", "evaluator"] {
        let (addr, h) = fake_peer(|mut s| {
            let mut buf = [0u8; 10];
            let _ = s.read_exact(&mut buf);
        });
        let out = connect_to(&addr, role, &[]);
        h.join().unwrap();
        out.assert_error(role, &["closed the connection"]);
        assert!(
            out.elapsed < Duration::from_secs(5),
            "{role}: took {:?}",
            out.elapsed
        );
    }
}

#[test]
fn connection_cut_mid_stream() {
    // A relay between the two parties that passes on 100 kB (the garbled tables of
    // AES-128 are 200 KiB) and then shuts both connections.
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let relay = thread::spawn(move || {
        let (a, _) = l.accept().unwrap();
        let (b, _) = l.accept().unwrap();
        let passed = Arc::new(AtomicUsize::new(0));
        let pipe = |mut from: TcpStream, mut to: TcpStream, passed: Arc<AtomicUsize>| {
            thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n @ 1..) = from.read(&mut buf) {
                    if passed.fetch_add(n, Ordering::SeqCst) + n > 100_000 || to.write_all(&buf[..n]).is_err()
                    {
                        break;
                    }
                }
                let _ = from.shutdown(Shutdown::Both);
                let _ = to.shutdown(Shutdown::Both);
            })
        };
        let t1 = pipe(a.try_clone().unwrap(), b.try_clone().unwrap(), passed.clone());
        let t2 = pipe(b, a, passed.clone());
        t1.join().unwrap();
        t2.join().unwrap();
        passed.load(Ordering::SeqCst)
    });
    let deadline = Instant::now() + DEADLINE;
    let key = "000102030405060708090a0b0c0d0e0f";
    let pt = "00112233445566778899aabbccddeeff";
    let aes = circuit("aes_128.txt");
    let g = spawn(&strs(&run_args(
        &aes,
        "garbler",
        &["--connect", &addr, "--input", key],
    )));
    let e = spawn(&strs(&run_args(
        &aes,
        "evaluator",
        &["--connect", &addr, "--input", pt],
    )));
    let (g, e) = (g.finish(deadline), e.finish(deadline));
    let passed = relay.join().unwrap();
    assert!(
        passed > 100_000,
        "the relay passed only {passed} bytes: {g:#?} {e:#?}"
    );
    both_fail(&g, &e, "closed the connection");
    for out in [&g, &e] {
        assert!(out.elapsed < Duration::from_secs(5), "took {:?}", out.elapsed);
    }
}

#[test]
fn garbage_peer_is_not_a_mixgc_party() {
    let mut rng = test_rng();
    for role in ["garbler", "evaluator"] {
        let mut junk = vec![0u8; 64 << 10];
        rng.fill_bytes(&mut junk);
        // A first byte of 21 or 22 is a TLS record's (alert, handshake): the party says
        // the peer speaks TLS, tested on its own below; 1 starts an older mixgc's bare
        // hello: the party names the protocol version (`wrong_protocol_version_is_named`).
        if matches!(junk[0], 1 | 21 | 22) {
            junk[0] = 0;
        }
        let (addr, h) = fake_peer(move |mut s| {
            let _ = s.write_all(&junk);
            // Hold the connection until the party hangs up.
            let mut sink = [0u8; 4096];
            while let Ok(1..) = s.read(&mut sink) {}
        });
        let out = connect_to(&addr, role, &["--timeout", "5"]);
        h.join().unwrap();
        out.assert_error(role, &["not a mixgc party"]);
    }
}

#[test]
fn a_tls_peer_is_named_to_a_plain_party() {
    // The start of a TLS record (a handshake, TLS 1.2 record version, 64 bytes).
    let (addr, h) = fake_peer(|mut s| {
        let mut record = vec![22u8, 3, 3, 0, 64];
        record.extend_from_slice(&[0u8; 64]);
        let _ = s.write_all(&record);
        let mut sink = [0u8; 4096];
        while let Ok(1..) = s.read(&mut sink) {}
    });
    let out = connect_to(&addr, "evaluator", &["--timeout", "5"]);
    h.join().unwrap();
    out.assert_error("evaluator", &["the peer speaks TLS", "--cert"]);
}

#[test]
fn wrong_protocol_version_is_named() {
    // A well-formed hello frame (tag 1, 41 bytes) from a future protocol version, in a
    // flow-control data record (0xDA, 46 bytes), and the same hello bare, as a mixgc before
    // protocol version 8 (no records) sends it.
    let hello = |in_record: bool| {
        let mut hello = vec![1u8, 41, 0, 0, 0];
        hello.extend_from_slice(b"MIXGC");
        hello.extend_from_slice(&999u16.to_le_bytes());
        hello.extend_from_slice(&[1, 0]);
        hello.extend_from_slice(&[0u8; 32]);
        if in_record {
            let mut record = vec![0xDA];
            record.extend_from_slice(&(hello.len() as u32).to_le_bytes());
            record.extend_from_slice(&hello);
            return record;
        }
        hello
    };
    for (in_record, words) in [
        (true, ["protocol version differs", "999"]),
        (false, ["protocol version differs", "older"]),
    ] {
        let bytes = hello(in_record);
        let (addr, h) = fake_peer(move |mut s| {
            let _ = s.write_all(&bytes);
            let mut sink = [0u8; 4096];
            while let Ok(1..) = s.read(&mut sink) {}
        });
        let out = connect_to(&addr, "evaluator", &["--timeout", "5"]);
        h.join().unwrap();
        out.assert_error("evaluator", &words);
    }
}

#[test]
fn silent_peer_times_out() {
    // Both roles at once: each waits out its one-second timeout.
    let deadline = Instant::now() + DEADLINE;
    let parties = ["garbler", "evaluator"].map(|role| {
        let (addr, h) = fake_peer(|mut s| {
            // Say nothing; read until the party gives up and closes.
            let mut sink = [0u8; 4096];
            while let Ok(1..) = s.read(&mut sink) {}
        });
        (
            role,
            spawn(&strs(&connect_args(&addr, role, &["--timeout", "1"]))),
            h,
        )
    });
    for (role, party, h) in parties {
        let out = party.finish(deadline);
        h.join().unwrap();
        out.assert_error(role, &["timeout"]);
        assert!(
            out.elapsed < Duration::from_secs(5),
            "{role}: took {:?}",
            out.elapsed
        );
    }
}

#[test]
fn listener_without_peer_times_out() {
    let args = run_args(
        &circuit("adder64.txt"),
        "garbler",
        &["--input", "1", "--listen", "127.0.0.1:0", "--timeout", "1"],
    );
    let mut p = spawn(&strs(&args));
    p.listening_addr();
    let out = p.finish(Instant::now() + DEADLINE);
    out.assert_error("listener", &["no peer connected within 1 s", "timeout"]);
    assert!(out.elapsed < Duration::from_secs(5), "took {:?}", out.elapsed);
}

#[test]
fn listen_address_in_use() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let args = run_args(
        &circuit("adder64.txt"),
        "garbler",
        &["--input", "1", "--listen", &addr],
    );
    run1(&strs(&args)).assert_error("listen on a taken port", &["cannot listen on", &addr]);
}

#[test]
fn connect_to_closed_port_gives_up_after_retrying() {
    // Find a port nothing listens on.
    let addr = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().to_string()
    };
    let args = run_args(
        &circuit("adder64.txt"),
        "evaluator",
        &["--input", "1", "--connect", &addr],
    );
    let out = spawn(&strs(&args)).finish(Instant::now() + Duration::from_secs(30));
    out.assert_error("connect", &[&addr]);
    assert!(
        out.elapsed >= Duration::from_secs(9) && out.elapsed < Duration::from_secs(20),
        "gave up after {:?}, expected about 10 s of retries",
        out.elapsed
    );
}

/// A program garbler whose evaluator is killed stops within its timeout plus a second: it
/// garbles nothing more once a send has failed (it used to garble the rest of the program,
/// piling up rows it could not send, before reporting the failure).
#[test]
fn a_program_garbler_stops_soon_after_its_evaluator_is_killed() {
    let chain = |role: &str, input: &str| {
        vec![
            "example".to_string(),
            "aes-chain".into(),
            "--size".into(),
            "20000".into(),
            "--role".into(),
            role.into(),
            "--timeout".into(),
            "2".into(),
            "--input".into(),
            input.into(),
        ]
    };
    // The evaluator dials first (it retries until the garbler listens) and the garbler
    // starts once the evaluator is about to: slow starts on a loaded machine cannot use up
    // the garbler's 2 s wait for its peer.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr = format!("127.0.0.1:{port}");
    let mut e_args = chain("evaluator", "00112233445566778899aabbccddeeff");
    e_args.extend(["--connect".into(), addr.clone()]);
    let evaluator = spawn(&strs(&e_args));
    let note = evaluator.first_stderr_line(Duration::from_secs(60));
    assert!(
        note.is_some_and(|l| l.contains("plain TCP")),
        "the evaluator did not start"
    );
    let mut g_args = chain("garbler", "000102030405060708090a0b0c0d0e0f");
    g_args.extend(["--listen".into(), addr]);
    let mut garbler = spawn(&strs(&g_args));
    garbler.listening_addr();
    // 128 M ANDs take far longer than this: the run is under way when the evaluator dies.
    std::thread::sleep(Duration::from_millis(1500));
    drop(evaluator); // killed
    let killed = Instant::now();
    let out = garbler.finish(killed + Duration::from_secs(10));
    out.assert_error("garbler", &["the peer"]);
    assert!(
        killed.elapsed() <= Duration::from_secs(5),
        "timeout 2 s + slack for a loaded CI machine: {out:#?}"
    );
}
