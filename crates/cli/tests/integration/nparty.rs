//! `mixgc party`: three processes over a loopback mesh on the auction, on
//! `circuits/adder64.txt` with `--owners` (Bristol and compiled stream), both protocols,
//! outputs checked against the plaintext circuit; `--reveal`; and the errors a user or a
//! failing peer causes.

use super::common;

use std::net::TcpListener;
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use mixgc_circuit::values;
use mixgc_program::apps;
use rand::Rng;

/// Free loopback addresses for `n` parties.
fn addrs(n: usize) -> String {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let v: Vec<String> = listeners
        .iter()
        .map(|l| l.local_addr().unwrap().to_string())
        .collect();
    v.join(",")
}

/// Spawns `mixgc party --id i --parties … --timeout 10` plus `extra[i]` for every party.
fn spawn_mesh(extra: &[Vec<String>]) -> Vec<Proc> {
    let addrs = addrs(extra.len());
    extra
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let mut args = vec![
                "party".to_string(),
                "--id".into(),
                i.to_string(),
                "--parties".into(),
                addrs.clone(),
            ];
            args.extend(["--timeout".into(), "10".into()]);
            args.extend(e.iter().cloned());
            spawn(&strs(&args))
        })
        .collect()
}

fn finish_all(procs: Vec<Proc>) -> Vec<Output> {
    let deadline = Instant::now() + DEADLINE;
    procs.into_iter().map(|p| p.finish(deadline)).collect()
}

fn owned(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn hex_bits(x: u64, width: u32) -> Vec<bool> {
    (0..width).map(|i| x >> i & 1 == 1).collect()
}

#[test]
fn auction_among_three_processes_both_protocols() {
    let mut rng = test_rng();
    let circuit = apps::record_auction(3, 16).unwrap().circuit;
    // The second pair of runs garbles (BMR) or levels (GMW) in batches of 7 ANDs.
    for (protocol, batch) in [("bmr", "16384"), ("gmw", "65536"), ("bmr", "7"), ("gmw", "7")] {
        let bids: Vec<u64> = (0..3).map(|_| rng.gen_range(0..1 << 16)).collect();
        let inputs: Vec<Vec<bool>> = bids.iter().map(|&b| hex_bits(b, 16)).collect();
        let expected: Vec<String> = circuit
            .eval_plain(&inputs)
            .unwrap()
            .iter()
            .map(|v| values::to_hex(v))
            .collect();
        let extra: Vec<Vec<String>> = bids
            .iter()
            .map(|b| {
                owned(&[
                    "--example",
                    "auction",
                    "--bits",
                    "16",
                    "--batch-ands",
                    batch,
                    "--protocol",
                    protocol,
                    "--input",
                    &format!("{b:04x}"),
                ])
            })
            .collect();
        for (i, out) in finish_all(spawn_mesh(&extra)).iter().enumerate() {
            out.assert_ok(&format!("{protocol} party {i}"));
            assert_eq!(
                out.stdout.lines().collect::<Vec<_>>(),
                expected,
                "{protocol} party {i}, bids {bids:?}"
            );
        }
    }
}

/// adder64 with `--owners 0,2` (party 1 has no input), the Bristol file at party 2 and its
/// compiled stream (default schedule) at parties 0 and 1; `--reveal 0,2` leaves party 1
/// without output.
#[test]
fn adder_with_owners_stream_file_and_reveal() {
    let mut rng = test_rng();
    let bristol = circuit("adder64.txt");
    let stream = std::env::temp_dir().join(format!("mixgc-nparty-adder-{}.mixgcs", std::process::id()));
    let stream = stream.display().to_string();
    run1(&["compile", &bristol, "--out", &stream]).assert_ok("compile adder64");
    for protocol in ["bmr", "gmw"] {
        let (a, b): (u64, u64) = (rng.gen(), rng.gen());
        let sum = format!("{:016x}", a.wrapping_add(b));
        let common = |file: &str, input: Option<u64>| {
            let mut v = owned(&[
                "--circuit",
                file,
                "--owners",
                "0,2",
                "--protocol",
                protocol,
                "--reveal",
                "0,2",
            ]);
            if let Some(x) = input {
                v.extend(owned(&["--input", &format!("{x:016x}")]));
            }
            v
        };
        let extra = vec![
            common(&stream, Some(a)),
            common(&stream, None),
            common(&bristol, Some(b)),
        ];
        let outs = finish_all(spawn_mesh(&extra));
        for (i, out) in outs.iter().enumerate() {
            out.assert_ok(&format!("{protocol} party {i}"));
        }
        assert_eq!(outs[0].stdout.trim(), sum, "{protocol}: {a:x} + {b:x}");
        assert_eq!(outs[2].stdout.trim(), sum, "{protocol}: {a:x} + {b:x}");
        assert_eq!(outs[1].stdout, "", "{protocol}: party 1 is not in --reveal");
    }
    let _ = std::fs::remove_file(&stream);
}

#[test]
fn a_killed_party_is_named_by_every_other() {
    let extra: Vec<Vec<String>> = (0..3)
        .map(|i| {
            owned(&[
                "--example",
                "auction",
                "--bits",
                "16",
                "--rtt-ms",
                "400",
                "--input",
                &format!("{i:04x}"),
            ])
        })
        .collect();
    let mut procs = spawn_mesh(&extra);
    thread::sleep(Duration::from_millis(1500));
    let killed = procs.remove(1);
    drop(killed);
    let outs = finish_all(procs);
    for (i, out) in [0, 2].iter().zip(&outs) {
        out.assert_error(&format!("party {i} after party 1 was killed"), &["party 1"]);
    }
}

#[test]
fn a_different_protocol_stops_every_party() {
    let extra: Vec<Vec<String>> = (0..3)
        .map(|i| {
            let p = if i == 2 { "gmw" } else { "bmr" };
            owned(&[
                "--example",
                "auction",
                "--bits",
                "8",
                "--protocol",
                p,
                "--input",
                &format!("{i:02x}"),
            ])
        })
        .collect();
    let outs = finish_all(spawn_mesh(&extra));
    for (i, out) in outs.iter().enumerate() {
        let needles: &[&str] = if i == 2 {
            &["protocol", "disagrees"]
        } else {
            &["party 2", "protocol"]
        };
        out.assert_error(&format!("party {i}"), needles);
    }
}

#[test]
fn usage_errors_name_the_problem() {
    let three = "127.0.0.1:1,127.0.0.1:2,127.0.0.1:3";
    let party = |extra: &[&str]| {
        let mut v = vec!["party", "--parties", three];
        v.extend(extra);
        run1(&v)
    };
    party(&[
        "--id",
        "0",
        "--example",
        "auction",
        "--bits",
        "16",
        "--input",
        "12345",
    ])
    .assert_error("input too wide", &["--input"]);
    party(&[
        "--id",
        "0",
        "--example",
        "auction",
        "--input",
        "1",
        "--rtt-ms",
        "18446744073709551615",
    ])
    .assert_error("absurd --rtt-ms", &["--rtt-ms", "0..=10000"]);
    party(&["--id", "0", "--circuit", &circuit("adder64.txt"), "--input", "1"])
        .assert_error("no --owners", &["--owners", "2 input values"]);
    party(&[
        "--id",
        "1",
        "--example",
        "voting",
        "--candidates",
        "3",
        "--input",
        "3",
    ])
    .assert_error("vote out of range", &["vote 3", "candidate"]);
    party(&["--id", "3", "--example", "auction", "--input", "1"])
        .assert_error("id out of range", &["--id 3", "0 to 2"]);
}

#[test]
fn demo_party_checks_every_party_against_plaintext() {
    let out = run1(&["demo", "party", "--parties", "4"]);
    out.assert_ok("demo party");
    assert_eq!(
        out.stdout.matches("(matches the plaintext auction)").count(),
        4,
        "{out:#?}"
    );
    run1(&["demo", "party", "--parties", "17"]).assert_error("17 parties", &["2 to 16"]);
    run1(&["demo", "millionaires", "--parties", "3"]).assert_error("--parties elsewhere", &["demo party"]);
}

/// A stream compiled with another schedule garbles differently: the handshake stops every
/// party, naming the circuit.
#[test]
fn a_stream_of_another_schedule_stops_every_party() {
    let bristol = circuit("adder64.txt");
    let stream = std::env::temp_dir().join(format!("mixgc-nparty-adder-full-{}.mixgcs", std::process::id()));
    let stream = stream.display().to_string();
    run1(&["compile", &bristol, "--schedule", "full", "--out", &stream]).assert_ok("compile --schedule full");
    let party = |file: &str, input: Option<&str>| {
        let mut v = owned(&["--circuit", file, "--owners", "0,1"]);
        if let Some(x) = input {
            v.extend(owned(&["--input", x]));
        }
        v
    };
    let extra = vec![
        party(&bristol, Some("1")),
        party(&bristol, Some("2")),
        party(&stream, None),
    ];
    let outs = finish_all(spawn_mesh(&extra));
    let _ = std::fs::remove_file(&stream);
    for (i, out) in outs.iter().enumerate() {
        out.assert_error(&format!("party {i}"), &["disagrees"]);
    }
}

/// The smallest n-party benches: the auction among 3 processes as JSON, and a short chain
/// streamed from disk; both check every party's outputs against plaintext themselves.
#[test]
fn bench_parties_json_smoke() {
    let out = run1(&["bench", "--parties", "3", "--runs", "1", "--bits", "8", "--json"]);
    out.assert_ok("bench --parties 3");
    let v: serde_json::Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {out:#?}"));
    assert_eq!(v["parties"], 3);
    assert_eq!(v["outputs_checked"], true);
    assert_eq!(v["thesis_bmr_bytes_per_and"], 288.0);
    for key in [
        "wall_s",
        "offline_s",
        "online_s",
        "bytes_per_and_max_pair",
        "peak_rss_mib_max",
    ] {
        let x = v[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{key} is not a number: {v}"));
        assert!(x.is_finite() && x > 0.0, "{key} = {x}");
    }
    let out = run1(&[
        "bench",
        "--parties",
        "3",
        "--workload",
        "chain",
        "--ands",
        "2000",
        "--runs",
        "1",
        "--protocol",
        "gmw",
    ]);
    out.assert_ok("bench chain");
    assert!(out.stdout.contains("2,000 ANDs"), "{out:#?}");
    run1(&["bench", "--parties", "2", "--workload", "chain"])
        .assert_error("chain of 2", &["at least 3 parties"]);
    run1(&["bench", "--parties", "17"]).assert_error("17 parties", &["2 to 16"]);
}

/// Three parties over TLS with keys from `mixgc keygen` and per-peer pins: the vote
/// computes; with one party's pin for another wrong, every party stops and the party that
/// refused names the certificate.
#[test]
fn vote_over_tls_with_per_peer_pins() {
    let dir = std::env::temp_dir().join(format!("mixgc-nparty-tls-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // Three parties' keys and a stranger's.
    let keys: Vec<(String, String, String)> = (0..4)
        .map(|i| {
            let d = dir.join(format!("p{i}"));
            let out = run1(&["keygen", "--out", d.to_str().unwrap()]);
            out.assert_ok("keygen");
            let path = |f: &str| d.join(f).to_str().unwrap().to_string();
            (path("cert.pem"), path("key.pem"), out.stdout.trim().to_string())
        })
        .collect();
    let flags = |i: usize, pin_of: &dyn Fn(usize) -> usize| -> Vec<String> {
        let mut v = owned(&[
            "--example",
            "voting",
            "--candidates",
            "3",
            "--input",
            &format!("{}", i % 2),
        ]);
        v.extend(owned(&["--cert", &keys[i].0, "--key", &keys[i].1]));
        for j in (0..3).filter(|&j| j != i) {
            v.extend(owned(&[
                "--peer-fingerprint",
                &format!("{j}={}", keys[pin_of(j)].2),
            ]));
        }
        v
    };
    // Votes 0, 1, 0: candidate 0 wins.
    let good: Vec<Vec<String>> = (0..3).map(|i| flags(i, &|j| j)).collect();
    for (i, out) in finish_all(spawn_mesh(&good)).iter().enumerate() {
        out.assert_ok(&format!("TLS party {i}"));
        assert_eq!(out.stdout.trim(), "0", "party {i}");
    }
    // Party 0 pins a stranger's certificate for party 2.
    let mut bad = good.clone();
    bad[0] = flags(0, &|j| if j == 2 { 3 } else { j });
    let outs = finish_all(spawn_mesh(&bad));
    assert!(outs.iter().all(|o| !o.success()), "{outs:#?}");
    outs[0].assert_error("party 0, wrong pin", &["refused the peer's certificate"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Three parties over TLS checked by CA (`mixgc keygen --ca --party I`, the CAs in one
/// `--peer-ca` file): the vote computes; when party 2 runs with party 1's key, every party
/// stops, and a party that checked it says the certificate does not name party 2's id.
#[test]
fn vote_over_tls_checked_by_ca_binds_ids() {
    let dir = std::env::temp_dir().join(format!("mixgc-nparty-ca-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let keys: Vec<(String, String, String)> = (0..3)
        .map(|i| {
            let d = dir.join(format!("p{i}"));
            let id = i.to_string();
            run1(&["keygen", "--out", d.to_str().unwrap(), "--ca", "--party", &id]).assert_ok("keygen");
            let path = |f: &str| d.join(f).to_str().unwrap().to_string();
            (path("cert.pem"), path("key.pem"), path("ca.pem"))
        })
        .collect();
    let cas = dir.join("cas.pem");
    let all: String = keys
        .iter()
        .map(|k| std::fs::read_to_string(&k.2).unwrap())
        .collect();
    std::fs::write(&cas, all).unwrap();
    let flags = |i: usize, key_of: usize| -> Vec<String> {
        let mut v = owned(&[
            "--example",
            "voting",
            "--candidates",
            "3",
            "--input",
            &format!("{}", i % 2),
        ]);
        v.extend(owned(&["--cert", &keys[key_of].0, "--key", &keys[key_of].1]));
        v.extend(owned(&["--peer-ca", cas.to_str().unwrap()]));
        v
    };
    let good: Vec<Vec<String>> = (0..3).map(|i| flags(i, i)).collect();
    for (i, out) in finish_all(spawn_mesh(&good)).iter().enumerate() {
        out.assert_ok(&format!("CA party {i}"));
        assert_eq!(out.stdout.trim(), "0", "party {i}");
    }
    let mut bad = good.clone();
    bad[2] = flags(2, 1);
    let outs = finish_all(spawn_mesh(&bad));
    assert!(outs.iter().all(|o| !o.success()), "{outs:#?}");
    outs[0].assert_error(
        "party 0, party 2 with party 1's key",
        &["does not name mixgc-party-2"],
    );
    let _ = std::fs::remove_dir_all(&dir);
}
