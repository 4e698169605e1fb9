//! The mesh over loopback TCP, one thread per party: connecting in any start order, the
//! handshake, per-pair byte counters, the emulated latency, and every failure the issue
//! lists (a party killed or stalled mid-run, a different circuit, a wrong n, a duplicate id,
//! garbage on a socket, a party that never starts): each a clear error on every side, within
//! the timeout, never a hang.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use mixgc_net::Tag;
use mixgc_nparty::{connect_mesh_on, handshake, Mesh, MeshOptions, NpartyError, RunFacts};
use rand::{Rng, SeedableRng};

/// n listeners on free loopback ports and their addresses.
fn listeners(n: usize) -> (Vec<TcpListener>, Vec<String>) {
    let ls: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let addrs = ls.iter().map(|l| l.local_addr().unwrap().to_string()).collect();
    (ls, addrs)
}

fn options(timeout_ms: u64, window_ms: u64) -> MeshOptions {
    MeshOptions {
        timeout: Duration::from_millis(timeout_ms),
        connect_window: Duration::from_millis(window_ms),
        one_way_latency: Duration::ZERO,
        insecure_plaintext: false,
        tls: None,
    }
}

fn facts() -> RunFacts {
    RunFacts {
        protocol: "gmw".into(),
        digest: *blake3::hash(b"the circuit").as_bytes(),
        input_owners: vec![0, 1, 2, 0],
        output_audience: vec![vec![0, 1, 2]],
        extra: vec![],
    }
}

/// What party `from` sends in `round`: a length and bytes that depend on both.
fn payload(from: usize, round: usize) -> Vec<u8> {
    let len = (from * 7919 + round * 104_729) % 300_000;
    (0..len).map(|k| (k + from * 31 + round * 17) as u8).collect()
}

/// How a party behaves after the handshake.
#[derive(Clone, Copy)]
enum Then {
    /// `rounds` rounds of sending to every party, then reading from every party.
    Run { rounds: usize },
    /// One round, then its process dies (its sockets close).
    DieAfterOneRound,
    /// One round, then it goes silent for this long, holding its connections open, then
    /// two more rounds.
    StallAfterOneRound(Duration),
}

/// What a party saw.
struct Outcome {
    session_id: [u8; 32],
    bytes: Vec<(u64, u64)>,
}

/// Party `me`: waits `start_after`, connects, runs the handshake and then `then`.
fn party(
    me: usize,
    listener: TcpListener,
    addrs: Vec<String>,
    opts: MeshOptions,
    facts: RunFacts,
    start_after: Duration,
    then: Then,
) -> Result<Outcome, NpartyError> {
    std::thread::sleep(start_after);
    let mut mesh = connect_mesh_on(me, &listener, &addrs, &opts)?;
    drop(listener);
    let session_id = handshake(&mut mesh, &facts)?;
    let rounds = match then {
        Then::Run { rounds } => rounds,
        _ => 1,
    };
    for round in 0..rounds {
        exchange(&mut mesh, round)?;
    }
    match then {
        Then::Run { .. } => {}
        Then::DieAfterOneRound => {
            return Ok(Outcome {
                session_id,
                bytes: vec![],
            })
        }
        Then::StallAfterOneRound(d) => {
            std::thread::sleep(d);
            exchange(&mut mesh, 1)?;
            exchange(&mut mesh, 2)?;
        }
    }
    Ok(Outcome {
        session_id,
        bytes: mesh.bytes(),
    })
}

/// One round: a frame to every party, then one from every party, checked.
fn exchange(mesh: &mut Mesh, round: usize) -> Result<(), NpartyError> {
    let me = mesh.me();
    mesh.send_all(Tag::Openings, &payload(me, round))?;
    for j in mesh.peers().collect::<Vec<_>>() {
        let got = mesh.recv(j, Tag::Openings, 1 << 20)?;
        assert_eq!(
            got,
            payload(j, round),
            "party {me} from party {j} in round {round}"
        );
    }
    Ok(())
}

/// Runs one thread per party; party i gets `addrs_of(i)`, `facts_of(i)`, its start delay
/// and behaviour. Returns each party's result and when it ended.
#[allow(clippy::type_complexity)]
fn run_all(
    n: usize,
    opts: MeshOptions,
    addrs_of: impl Fn(usize, &[String]) -> Vec<String>,
    facts_of: impl Fn(usize) -> RunFacts,
    start_after: impl Fn(usize) -> Duration,
    then_of: impl Fn(usize) -> Then,
) -> Vec<(Result<Outcome, NpartyError>, Duration)> {
    let (ls, addrs) = listeners(n);
    let began = Instant::now();
    let handles: Vec<_> = ls
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let (a, o, f, s, t) = (
                addrs_of(i, &addrs),
                opts.clone(),
                facts_of(i),
                start_after(i),
                then_of(i),
            );
            std::thread::spawn(move || {
                let r = party(i, l, a, o, f, s, t);
                (r, began.elapsed())
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

fn same_addrs(_: usize, a: &[String]) -> Vec<String> {
    a.to_vec()
}

fn error(r: &(Result<Outcome, NpartyError>, Duration)) -> &NpartyError {
    match &r.0 {
        Ok(_) => panic!("the party succeeded"),
        Err(e) => e,
    }
}

/// Four parties starting in a random order within 300 ms agree on one session id, move
/// every frame intact, and every pair's counters agree (i's bytes to j are j's from i).
#[test]
fn parties_started_in_any_order_connect_agree_and_count_bytes() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let delays: Vec<u64> = (0..4).map(|_| rng.gen_range(0..300)).collect();
    let got = run_all(
        4,
        options(5000, 5000),
        same_addrs,
        |_| facts(),
        |i| Duration::from_millis(delays[i]),
        |_| Then::Run { rounds: 4 },
    );
    let outcomes: Vec<&Outcome> = got
        .iter()
        .map(|(r, _)| r.as_ref().unwrap_or_else(|e| panic!("{e}")))
        .collect();
    assert!(outcomes.iter().all(|o| o.session_id == outcomes[0].session_id));
    for i in 0..4 {
        assert_eq!(outcomes[i].bytes[i], (0, 0));
        for j in (0..4).filter(|&j| j != i) {
            let (sent, received) = outcomes[i].bytes[j];
            assert_eq!(sent, outcomes[j].bytes[i].1, "bytes {i} -> {j}");
            assert_eq!(received, outcomes[j].bytes[i].0, "bytes {j} -> {i}");
            let payloads: usize = (0..4).map(|r| payload(i, r).len() + 5).sum();
            assert!(sent as usize > payloads, "the counters include every frame");
        }
    }
}

/// Party 2 dies after the first round: every other party's next read fails naming it, at
/// once (well within the timeout).
#[test]
fn a_party_killed_mid_run_is_named_by_every_other() {
    let timeout = 3000;
    let got = run_all(
        3,
        options(timeout, 5000),
        same_addrs,
        |_| facts(),
        |_| Duration::ZERO,
        |i| {
            if i == 2 {
                Then::DieAfterOneRound
            } else {
                Then::Run { rounds: 3 }
            }
        },
    );
    assert!(got[2].0.is_ok());
    let died = got[2].1;
    for r in &got[..2] {
        let e = error(r).to_string();
        assert!(e.contains("party 2"), "{e}");
        let after = r.1.saturating_sub(died);
        assert!(after < Duration::from_millis(timeout), "{after:?}");
    }
}

/// Party 1 goes silent after the first round: every other party fails naming it once the
/// timeout has passed, and not much later; it fails too when it wakes.
#[test]
fn a_stalled_party_is_named_after_the_timeout() {
    let timeout = Duration::from_millis(700);
    let got = run_all(
        3,
        options(700, 5000),
        same_addrs,
        |_| facts(),
        |_| Duration::ZERO,
        |i| {
            if i == 1 {
                Then::StallAfterOneRound(3 * timeout)
            } else {
                Then::Run { rounds: 3 }
            }
        },
    );
    for i in [0, 2] {
        let e = error(&got[i]);
        let msg = e.to_string();
        assert!(
            msg.contains("party 1") && msg.contains("stopped sending"),
            "{msg}"
        );
        assert!(
            got[i].1 >= timeout && got[i].1 < timeout * 2 + Duration::from_millis(500),
            "{:?}",
            got[i].1
        );
    }
    // The stalled party fails too when it wakes: with the others' reason, or (when its own
    // sends to their closed sockets reset the connections first, discarding what they
    // sent) with a closed connection.
    let e = error(&got[1]);
    assert!(matches!(e, NpartyError::Peer { .. }), "{e}");
}

/// Party 1 has another circuit: every party stops at the handshake; the others name party
/// 1 and both digests, party 1 names a party that differs from it.
#[test]
fn a_party_with_a_different_circuit_stops_everyone() {
    let got = run_all(
        3,
        options(3000, 5000),
        same_addrs,
        |i| {
            let mut f = facts();
            if i == 1 {
                f.digest = *blake3::hash(b"another circuit").as_bytes();
            }
            f
        },
        |_| Duration::ZERO,
        |_| Then::Run { rounds: 1 },
    );
    for (i, r) in got.iter().enumerate() {
        let e = error(r);
        assert!(matches!(e, NpartyError::Mismatch { .. }), "{e}");
        assert!(e.to_string().contains("circuit digest"), "{e}");
        assert_eq!(e.party(), Some(if i == 1 { 0 } else { 1 }), "{e}");
        assert!(r.1 < Duration::from_secs(2), "{:?}", r.1);
    }
}

/// Party 2 thinks the run has 3 parties, the others 4: parties 0 and 1 name party 2 and
/// both values of n, party 2 names n too, and party 3 (whom party 2 never dials) names
/// party 2 once the connect window has passed.
#[test]
fn a_wrong_n_stops_everyone() {
    let window = Duration::from_millis(1500);
    let got = run_all(
        4,
        options(3000, window.as_millis() as u64),
        |i, a| if i == 2 { a[..3].to_vec() } else { a.to_vec() },
        |_| facts(),
        |_| Duration::ZERO,
        |_| Then::Run { rounds: 1 },
    );
    for i in [0, 1] {
        let e = error(&got[i]);
        assert_eq!(e.party(), Some(2), "{e}");
        assert!(e.to_string().contains("n = 4 here vs 3 there"), "{e}");
    }
    let e = error(&got[2]).to_string();
    assert!(e.contains("n = 3 here vs 4 there"), "{e}");
    let e = error(&got[3]);
    assert_eq!(e.party(), Some(2), "{e}");
    for r in &got {
        assert!(r.1 < window + Duration::from_secs(1), "{:?}", r.1);
    }
}

/// Two processes both claim id 0 and reach party 2 before party 1 starts: party 2 refuses
/// the second as a duplicate id; nobody hangs.
#[test]
fn a_duplicate_id_is_refused() {
    let window = Duration::from_millis(1500);
    let opts = options(1000, window.as_millis() as u64);
    let (mut ls, addrs) = listeners(3);
    let began = Instant::now();
    // Both impostors listen on addresses of their own (nobody dials party 0).
    let impostors: Vec<_> = (0..2)
        .map(|k| {
            let l = TcpListener::bind("127.0.0.1:0").unwrap();
            let mut a = addrs.clone();
            a[0] = l.local_addr().unwrap().to_string();
            let o = opts.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(100 * k));
                (
                    party(0, l, a, o, facts(), Duration::ZERO, Then::Run { rounds: 1 }),
                    began.elapsed(),
                )
            })
        })
        .collect();
    let l2 = ls.pop().unwrap();
    let l1 = ls.pop().unwrap();
    let (a1, a2, o1, o2) = (addrs.clone(), addrs.clone(), opts.clone(), opts.clone());
    let p2 = std::thread::spawn(move || {
        (
            party(2, l2, a2, o2, facts(), Duration::ZERO, Then::Run { rounds: 1 }),
            began.elapsed(),
        )
    });
    let p1 = std::thread::spawn(move || {
        (
            party(
                1,
                l1,
                a1,
                o1,
                facts(),
                Duration::from_millis(600),
                Then::Run { rounds: 1 },
            ),
            began.elapsed(),
        )
    });
    let r2 = p2.join().unwrap();
    let e = error(&r2).to_string();
    assert!(e.contains("duplicate id") && e.contains("party 0"), "{e}");
    let bound = window + Duration::from_secs(3);
    for r in impostors
        .into_iter()
        .map(|h| h.join().unwrap())
        .chain([p1.join().unwrap()])
    {
        assert!(r.0.is_err(), "every party of a run with a duplicate id fails");
        assert!(r.1 < bound, "{:?}", r.1);
    }
    assert!(r2.1 < bound, "{:?}", r2.1);
}

/// Junk on a party's socket (an HTTP request, a frame header declaring 2 GiB, silence): a
/// clear error naming the connection, no huge allocation, and the party ends with the
/// connect window (it waits for the party that should dial it, only to tell it why).
#[test]
fn garbage_on_a_socket_is_refused() {
    let junk: [(&[u8], &str); 3] = [
        (b"GET / HTTP/1.1\r\n\r\n", "expected a party hello frame"),
        (&[15, 0xff, 0xff, 0xff, 0x7f], "exceeds the limit"),
        (b"", "stopped sending"),
    ];
    for (bytes, expect) in junk {
        let (mut ls, addrs) = listeners(2);
        let l1 = ls.pop().unwrap();
        let a = addrs.clone();
        let p1 = std::thread::spawn(move || {
            let start = Instant::now();
            (
                party(
                    1,
                    l1,
                    a,
                    options(500, 1000),
                    facts(),
                    Duration::ZERO,
                    Then::Run { rounds: 1 },
                ),
                start.elapsed(),
            )
        });
        let mut raw = TcpStream::connect(&addrs[1]).unwrap();
        raw.write_all(bytes).unwrap();
        let (r, took) = p1.join().unwrap();
        let e = match r {
            Ok(_) => panic!("garbage accepted"),
            Err(e) => e,
        };
        assert!(matches!(e, NpartyError::Refused { .. }), "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains("a connection from 127.0.0.1:") && msg.contains(expect),
            "{msg}"
        );
        assert!(took >= Duration::from_millis(1000), "{took:?}");
        assert!(took < Duration::from_millis(4000), "{took:?}");
    }
}

/// Party 1 never starts: party 0 (which dials it) and party 2 (which it should dial) both
/// name it once the connect window has passed.
#[test]
fn a_party_that_never_starts_is_named_after_the_window() {
    let window = Duration::from_millis(1000);
    let (mut ls, addrs) = listeners(3);
    let l2 = ls.pop().unwrap();
    drop(ls.pop()); // party 1's port: closed, never listening
    let l0 = ls.pop().unwrap();
    let opts = options(3000, window.as_millis() as u64);
    let handles: Vec<_> = [(0, l0), (2, l2)]
        .into_iter()
        .map(|(i, l)| {
            let (a, o) = (addrs.clone(), opts.clone());
            std::thread::spawn(move || {
                let start = Instant::now();
                (
                    party(i, l, a, o, facts(), Duration::ZERO, Then::Run { rounds: 1 }),
                    start.elapsed(),
                )
            })
        })
        .collect();
    for (k, h) in handles.into_iter().enumerate() {
        let r = h.join().unwrap();
        let e = error(&r);
        assert!(matches!(e, NpartyError::Absent { party: 1, .. }), "{e}");
        let msg = e.to_string();
        let expect = if k == 0 {
            "did not answer at"
        } else {
            "did not connect within 1 s"
        };
        assert!(msg.starts_with("party 1 ") && msg.contains(expect), "{msg}");
        assert!(
            r.1 >= window && r.1 < window + Duration::from_millis(1500),
            "{:?}",
            r.1
        );
    }
}

/// With a 10 ms one-way delay on every link (a 20 ms RTT mesh), a ping-pong between two
/// parties takes at least 20 ms and not much more; the third party is unaffected.
#[test]
fn the_emulated_latency_delays_every_round_trip() {
    let d = Duration::from_millis(10);
    let mut opts = options(5000, 5000);
    opts.one_way_latency = d;
    let (ls, addrs) = listeners(3);
    let handles: Vec<_> = ls
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let (a, o) = (addrs.clone(), opts.clone());
            std::thread::spawn(move || {
                let mut mesh = connect_mesh_on(i, &l, &a, &o).unwrap();
                handshake(&mut mesh, &facts()).unwrap();
                let mut rtts = vec![];
                for k in 0..15u8 {
                    match i {
                        0 => {
                            let start = Instant::now();
                            mesh.send(1, Tag::Openings, &[k]).unwrap();
                            assert_eq!(mesh.recv(1, Tag::Openings, 1).unwrap(), [k]);
                            rtts.push(start.elapsed());
                        }
                        1 => {
                            let got = mesh.recv(0, Tag::Openings, 1).unwrap();
                            mesh.send(0, Tag::Openings, &got).unwrap();
                            mesh.flush().unwrap();
                        }
                        _ => {}
                    }
                }
                rtts
            })
        })
        .collect();
    let mut rtts = handles.into_iter().map(|h| h.join().unwrap()).next().unwrap();
    rtts.sort();
    assert!(rtts[0] >= 2 * d, "{rtts:?}");
    assert!(
        rtts[rtts.len() / 2] < 2 * d + Duration::from_millis(60),
        "{rtts:?}"
    );
}

/// Settings that cannot work fail at once, before anything is sent, saying why.
#[test]
fn bad_settings_are_usage_errors() {
    let (ls, addrs) = listeners(3);
    let opts = options(1000, 1000);
    let start = Instant::now();
    let cases: [(usize, Vec<String>, &str); 5] = [
        (
            3,
            addrs.clone(),
            "party id 3 is not below the number of parties, 3",
        ),
        (0, addrs[..1].to_vec(), "a run has 2 to 1024 parties, not 1"),
        (
            0,
            vec![addrs[0].clone(), addrs[1].clone(), addrs[1].clone()],
            "parties 1 and 2 have the same address",
        ),
        (
            0,
            vec![addrs[0].clone(), "no-such-host.invalid:7000".into()],
            "party 1's address no-such-host.invalid:7000",
        ),
        (
            0,
            vec![addrs[0].clone(), "192.0.2.1:7000".into()],
            "plain TCP to party 1 at 192.0.2.1:7000 is refused: it is not a loopback address",
        ),
    ];
    for (me, a, expect) in cases {
        let e = connect_mesh_on(me, &ls[0], &a, &opts).unwrap_err();
        assert!(matches!(e, NpartyError::Usage(_)), "{e}");
        assert!(e.to_string().contains(expect), "{e}");
    }
    assert!(start.elapsed() < Duration::from_secs(1));
}

/// A well-formed introduction from an id that cannot dial this party (its own id, a higher
/// id, another party's address): refused, naming the claim, and the dialer is told why.
#[test]
fn an_introduction_with_an_impossible_id_is_refused() {
    use std::io::Read;
    let intro = |from: u32, to: u32| {
        let mut body = b"MIXGCN\x01".to_vec();
        body.extend_from_slice(&mixgc_nparty::NPARTY_PROTOCOL_VERSION.to_le_bytes());
        for v in [3u32, from, to] {
            body.extend_from_slice(&v.to_le_bytes());
        }
        // No TLS: no channel binding.
        body.extend_from_slice(&[0; 32]);
        let mut frame = vec![Tag::PartyHello as u8];
        frame.extend_from_slice(&(body.len() as u32).to_le_bytes());
        frame.extend_from_slice(&body);
        frame
    };
    let cases = [
        (
            intro(1, 1),
            "it claims to be party 1, this party's own id (a duplicate id)",
        ),
        (intro(2, 1), "party 2 disagrees: it dialed party 1, a lower id"),
        (
            intro(0, 2),
            "party 0 disagrees: it dialed party 2 at this party's address (this is party 1)",
        ),
    ];
    for (bytes, expect) in cases {
        let (mut ls, addrs) = listeners(3);
        drop(ls.pop());
        let l1 = ls.pop().unwrap();
        let a = addrs.clone();
        let p1 = std::thread::spawn(move || {
            party(
                1,
                l1,
                a,
                options(1000, 600),
                facts(),
                Duration::ZERO,
                Then::Run { rounds: 1 },
            )
        });
        let mut raw = TcpStream::connect(&addrs[1]).unwrap();
        raw.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
        raw.write_all(&bytes).unwrap();
        let e = match p1.join().unwrap() {
            Ok(_) => panic!("accepted"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains(expect), "{e}");
        // The dialer got party 1's introduction, then its reason.
        let mut told = Vec::new();
        let _ = raw.read_to_end(&mut told);
        assert!(String::from_utf8_lossy(&told).contains(expect), "{told:?}");
    }
}
