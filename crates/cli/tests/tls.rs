//! TLS between two real `mixgc run` processes: keys from `mixgc keygen`, peers pinned by
//! fingerprint or checked against a CA, a proxy on the path that sees only TLS records,
//! a modified record, and the plain-TCP policy.

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

use common::*;
use rand::Rng;

/// A fresh directory for this test's keys.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("mixgc-tls-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// A party's key material from `mixgc keygen --out DIR` (plus `extra`), and its fingerprint.
struct Party {
    cert: String,
    key: String,
    ca: String,
    fingerprint: String,
}

fn keygen(dir: PathBuf, extra: &[&str]) -> Party {
    let mut args = vec!["keygen", "--out", dir.to_str().unwrap()];
    args.extend(extra);
    let out = run1(&args);
    out.assert_ok("keygen");
    let fingerprint = out.stdout.trim().to_string();
    assert_eq!(fingerprint.len(), 64, "{out:#?}");
    let path = |f: &str| dir.join(f).to_str().unwrap().to_string();
    Party {
        cert: path("cert.pem"),
        key: path("key.pem"),
        ca: path("ca.pem"),
        fingerprint,
    }
}

impl Party {
    /// This party's flags, pinning `peer`.
    fn pinning(&self, peer: &str) -> Vec<String> {
        [
            "--cert",
            &self.cert,
            "--key",
            &self.key,
            "--peer-fingerprint",
            peer,
        ]
        .map(String::from)
        .to_vec()
    }
}

/// Random adder64 inputs and their sum as `mixgc run` prints it.
fn adder_case() -> (String, String, String, u64) {
    let mut rng = test_rng();
    let (a, b): (u64, u64) = (rng.gen(), rng.gen());
    let sum = a.wrapping_add(b);
    (format!("{a:x}"), format!("{b:x}"), format!("{sum:016x}\n"), sum)
}

fn adder(g_flags: &[String], e_flags: &[String], a: &str, b: &str) -> (Output, Output) {
    let mut g = vec!["--input".to_string(), a.to_string()];
    g.extend_from_slice(g_flags);
    let mut e = vec!["--input".to_string(), b.to_string()];
    e.extend_from_slice(e_flags);
    garbler_listens(&circuit("adder64.txt"), &strs(&g), &strs(&e))
}

#[test]
fn keygen_then_run_with_pinned_fingerprints() {
    let dir = scratch("pinned");
    let (g, e) = (keygen(dir.join("g"), &[]), keygen(dir.join("e"), &[]));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&g.key).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "key.pem is private");
    }
    // keygen never overwrites.
    run1(&["keygen", "--out", dir.join("g").to_str().unwrap()]).assert_error("again", &["already exists"]);
    let (a, b, want, _) = adder_case();
    let (go, eo) = adder(&g.pinning(&e.fingerprint), &e.pinning(&g.fingerprint), &a, &b);
    for (who, out) in [("garbler", &go), ("evaluator", &eo)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, want, "{who}");
        assert!(!out.stderr.contains("plain TCP"), "{who}: {out:#?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn keygen_ca_then_run_checked_by_the_ca() {
    let dir = scratch("ca");
    let (g, e) = (keygen(dir.join("g"), &["--ca"]), keygen(dir.join("e"), &["--ca"]));
    let flags = |me: &Party, peer: &Party| {
        ["--cert", &me.cert, "--key", &me.key, "--peer-ca", &peer.ca]
            .map(String::from)
            .to_vec()
    };
    let (a, b, want, _) = adder_case();
    let (go, eo) = adder(&flags(&g, &e), &flags(&e, &g), &a, &b);
    for (who, out) in [("garbler", &go), ("evaluator", &eo)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, want, "{who}");
    }
    // The evaluator trusts its own CA instead of the garbler's.
    let (go, eo) = adder(&flags(&g, &e), &flags(&e, &e), &a, &b);
    eo.assert_error("evaluator", &["refused the peer's certificate", "--peer-ca"]);
    go.assert_error("garbler", &["the peer refused this party's certificate"]);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_wrong_fingerprint_fails_on_both_sides() {
    let dir = scratch("wrong");
    let (g, e, other) = (
        keygen(dir.join("g"), &[]),
        keygen(dir.join("e"), &[]),
        keygen(dir.join("o"), &[]),
    );
    let (a, b, _, _) = adder_case();
    // The evaluator pins another certificate than the garbler's.
    let start = Instant::now();
    let (go, eo) = adder(&g.pinning(&e.fingerprint), &e.pinning(&other.fingerprint), &a, &b);
    eo.assert_error("evaluator", &["refused the peer's certificate", &g.fingerprint]);
    go.assert_error("garbler", &["the peer refused this party's certificate"]);
    // The garbler pins another certificate than the evaluator's.
    let (go, eo) = adder(&g.pinning(&other.fingerprint), &e.pinning(&g.fingerprint), &a, &b);
    go.assert_error("garbler", &["refused the peer's certificate", &e.fingerprint]);
    eo.assert_error("evaluator", &["the peer refused this party's certificate"]);
    assert!(start.elapsed() < DEADLINE, "both refusals are prompt");
    let _ = std::fs::remove_dir_all(dir);
}

/// What one direction of the proxy forwards.
type Capture = Arc<Mutex<Vec<u8>>>;

/// A TCP proxy to `upstream`: forwards both directions, records what it forwards, and flips
/// one byte at offset `flip` of the upstream-to-client direction if given. Returns its
/// address and the captures (client to upstream, upstream to client).
fn proxy(upstream: String, flip: Option<usize>) -> (String, [Capture; 2]) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let captures = [Capture::default(), Capture::default()];
    let kept = captures.clone();
    thread::spawn(move || {
        let (client, _) = listener.accept().unwrap();
        let server = TcpStream::connect(&upstream).unwrap();
        let pipe = |mut from: TcpStream, mut to: TcpStream, capture: Capture, flip: Option<usize>| {
            thread::spawn(move || {
                let mut buf = [0u8; 1 << 16];
                let mut at = 0;
                loop {
                    let n = match from.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => n,
                    };
                    if let Some(f) = flip.filter(|f| (at..at + n).contains(f)) {
                        buf[f - at] ^= 0x01;
                    }
                    at += n;
                    capture.lock().unwrap().extend_from_slice(&buf[..n]);
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
                let _ = to.shutdown(std::net::Shutdown::Both);
            })
        };
        let [up, down] = kept;
        pipe(client.try_clone().unwrap(), server.try_clone().unwrap(), up, None);
        pipe(server, client, down, flip);
    });
    (addr, captures)
}

/// Runs adder64 with the garbler listening and the evaluator connecting through `proxy`.
fn through_proxy(
    g_flags: &[String],
    e_flags: &[String],
    inputs: [&str; 2],
    circuit_file: &str,
    flip: Option<usize>,
) -> (Output, Output, [Vec<u8>; 2]) {
    let deadline = Instant::now() + DEADLINE;
    let mut g_args = run_args(
        &circuit(circuit_file),
        "garbler",
        &["--input", inputs[0], "--listen", "127.0.0.1:0"],
    );
    g_args.extend_from_slice(g_flags);
    let mut g = spawn(&strs(&g_args));
    let (addr, captures) = proxy(g.listening_addr(), flip);
    let mut e_args = run_args(
        &circuit(circuit_file),
        "evaluator",
        &["--input", inputs[1], "--connect", &addr],
    );
    e_args.extend_from_slice(e_flags);
    let e = spawn(&strs(&e_args));
    let (eo, go) = (e.finish(deadline), g.finish(deadline));
    let captured = captures.map(|c| c.lock().unwrap().clone());
    (go, eo, captured)
}

/// Splits `stream` into TLS records (type, legacy version 3.3, length ≤ 2^14 + 256) and
/// returns their content types; panics on anything else.
fn tls_records(stream: &[u8]) -> Vec<u8> {
    let mut types = Vec::new();
    let mut rest = stream;
    while !rest.is_empty() {
        assert!(rest.len() >= 5, "a partial record header at the end");
        let (kind, version, len) = (
            rest[0],
            [rest[1], rest[2]],
            u16::from_be_bytes([rest[3], rest[4]]) as usize,
        );
        assert!(matches!(kind, 20..=23), "not a TLS record type: {kind}");
        assert!(
            version == [3, 3] || (version == [3, 1] && types.is_empty()),
            "{version:?}"
        );
        assert!(len <= (1 << 14) + 256, "record of {len} bytes");
        assert!(rest.len() >= 5 + len, "a record cut short");
        types.push(kind);
        rest = &rest[5 + len..];
    }
    types
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn a_proxy_sees_only_tls_records() {
    let dir = scratch("proxy");
    let (g, e) = (keygen(dir.join("g"), &[]), keygen(dir.join("e"), &[]));
    let (a, b, want, sum) = adder_case();
    // Plain TCP on loopback: the proxy reads the protocol (its hello's magic).
    let (go, eo, plain) = through_proxy(&[], &[], [&a, &b], "adder64.txt", None);
    go.assert_ok("plain garbler");
    eo.assert_ok("plain evaluator");
    assert!(
        plain.iter().any(|s| contains(s, b"MIXGC")),
        "a plain stream shows the protocol"
    );
    // TLS: nothing but records, no protocol bytes, not the output.
    let (go, eo, captured) = through_proxy(
        &g.pinning(&e.fingerprint),
        &e.pinning(&g.fingerprint),
        [&a, &b],
        "adder64.txt",
        None,
    );
    for (who, out) in [("garbler", &go), ("evaluator", &eo)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, want, "{who}");
    }
    for stream in &captured {
        let types = tls_records(stream);
        assert!(types.contains(&23), "application data records");
        assert!(!contains(stream, b"MIXGC"));
        assert!(!contains(stream, &sum.to_le_bytes()) && !contains(stream, &sum.to_be_bytes()));
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_modified_record_stops_both_parties() {
    let dir = scratch("tamper");
    let (g, e) = (keygen(dir.join("g"), &[]), keygen(dir.join("e"), &[]));
    let key = "000102030405060708090a0b0c0d0e0f";
    // 100,000 bytes into the garbler's stream: inside the garbled tables, far past the
    // handshake (AES-128's tables are about 200 KB).
    let (go, eo, captured) = through_proxy(
        &g.pinning(&e.fingerprint),
        &e.pinning(&g.fingerprint),
        [key, key],
        "aes_128.txt",
        Some(100_000),
    );
    assert!(captured[1].len() > 100_000, "the flip happened");
    eo.assert_error("evaluator", &["TLS", "failed authentication"]);
    go.assert_error("garbler", &[]);
    assert!(
        go.stderr.contains("could not authenticate a TLS record")
            || go.stderr.contains("closed the connection"),
        "{go:#?}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn plain_tcp_is_refused_off_loopback_and_noted_on_it() {
    let adder = circuit("adder64.txt");
    // TEST-NET-1 (RFC 5737): never reached, the policy refuses before connecting.
    let start = Instant::now();
    run1(&strs(&run_args(
        &adder,
        "evaluator",
        &["--input", "1", "--connect", "192.0.2.1:7000"],
    )))
    .assert_error(
        "connect",
        &[
            "plain TCP to 192.0.2.1:7000 is refused",
            "--cert",
            "--peer-fingerprint",
            "--insecure-plaintext",
        ],
    );
    run1(&strs(&run_args(
        &adder,
        "garbler",
        &["--input", "1", "--listen", "0.0.0.0:0"],
    )))
    .assert_error(
        "listen",
        &[
            "listening on 0.0.0.0:0 with plain TCP is refused",
            "--insecure-plaintext",
        ],
    );
    assert!(
        start.elapsed() < std::time::Duration::from_secs(5),
        "refused at once"
    );
    // A certificate without a check of the peer, and a check without a certificate.
    run1(&strs(&run_args(
        &adder,
        "garbler",
        &[
            "--input",
            "1",
            "--listen",
            "127.0.0.1:0",
            "--cert",
            "c.pem",
            "--key",
            "k.pem",
        ],
    )))
    .assert_error("no peer check", &["--peer-fingerprint"]);
    run1(&strs(&run_args(
        &adder,
        "garbler",
        &[
            "--input",
            "1",
            "--listen",
            "127.0.0.1:0",
            "--peer-fingerprint",
            &"ab".repeat(32),
        ],
    )))
    .assert_error("no cert", &["--cert"]);
    // On loopback plain TCP works, with a note after the `listening on` line (which `pair`
    // checks is the first).
    let (go, eo) = garbler_listens(&adder, &["--input", "1"], &["--input", "2"]);
    for (who, out) in [("garbler", &go), ("evaluator", &eo)] {
        out.assert_ok(who);
        assert!(
            out.stderr.contains("note: plain TCP on loopback"),
            "{who}: {out:#?}"
        );
    }
    // --insecure-plaintext allows a non-loopback listener and warns.
    let mut g = spawn(&strs(&run_args(
        &adder,
        "garbler",
        &[
            "--input",
            "1",
            "--listen",
            "0.0.0.0:0",
            "--insecure-plaintext",
            "--timeout",
            "1",
        ],
    )));
    let addr = g.listening_addr();
    assert!(addr.starts_with("0.0.0.0:"), "{addr}");
    let go = g.finish(Instant::now() + DEADLINE);
    assert!(go.stderr.contains("WARNING: --insecure-plaintext"), "{go:#?}");
}
