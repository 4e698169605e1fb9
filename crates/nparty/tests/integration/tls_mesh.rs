//! The mesh over loopback TLS 1.3, one thread per party, certificates from
//! `mixgc_net::generate`: 3 and 4 parties agree and move frames (with the same plaintext
//! byte counts as over TCP), and each way a link can be wrong stops every party with a
//! clear error, within the connect window: a wrong pin, a peer presenting another party's
//! certificate, a plain TCP party, a missing pin.

use std::net::TcpListener;
use std::time::{Duration, Instant};

use mixgc_net::{fingerprint_hex, generate, KeyMaterial, Tag};
use mixgc_nparty::{
    connect_mesh_on, handshake, join_mesh_on, Mesh, MeshOptions, MeshTls, NpartyError, RunFacts,
};

fn listeners(n: usize) -> (Vec<TcpListener>, Vec<String>) {
    let ls: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let addrs = ls.iter().map(|l| l.local_addr().unwrap().to_string()).collect();
    (ls, addrs)
}

fn keys(n: usize) -> Vec<KeyMaterial> {
    (0..n).map(|_| generate(&[], false).unwrap()).collect()
}

/// Plain options with the given timeout and connect window.
fn plain(timeout_ms: u64, window_ms: u64) -> MeshOptions {
    MeshOptions {
        timeout: Duration::from_millis(timeout_ms),
        connect_window: Duration::from_millis(window_ms),
        ..MeshOptions::default()
    }
}

/// Party `me` presenting `own`'s certificate and pinning `pins` (id, fingerprint).
fn tls(own: &KeyMaterial, pins: &[(usize, [u8; 32])], timeout_ms: u64, window_ms: u64) -> MeshOptions {
    MeshOptions {
        tls: Some(MeshTls::pinned(own.identity().unwrap(), pins).unwrap()),
        ..plain(timeout_ms, window_ms)
    }
}

/// Every party's fingerprint by id: what each party is given.
fn all_pins(keys: &[KeyMaterial]) -> Vec<(usize, [u8; 32])> {
    keys.iter().enumerate().map(|(j, k)| (j, k.fingerprint)).collect()
}

fn facts() -> RunFacts {
    RunFacts {
        protocol: "gmw".into(),
        digest: *blake3::hash(b"the circuit").as_bytes(),
        ..RunFacts::default()
    }
}

fn payload(from: usize, to: usize, round: usize) -> Vec<u8> {
    let len = (from * 7919 + to * 613 + round * 104_729) % 200_000;
    (0..len)
        .map(|k| (k + from * 31 + to * 5 + round * 17) as u8)
        .collect()
}

/// What a party saw: the session id and its per-peer (sent, received) counters.
type Seen = ([u8; 32], Vec<(u64, u64)>);

/// The handshake, then `rounds` rounds of a frame to and from every party, checked.
fn session(mut mesh: Mesh, rounds: usize) -> Result<Seen, NpartyError> {
    let id = handshake(&mut mesh, &facts())?;
    let me = mesh.me();
    for round in 0..rounds {
        for j in mesh.peers().collect::<Vec<_>>() {
            mesh.send(j, Tag::Openings, &payload(me, j, round))?;
        }
        for j in mesh.peers().collect::<Vec<_>>() {
            let got = mesh.recv(j, Tag::Openings, 1 << 20)?;
            assert!(got == payload(j, me, round), "party {me} from {j}, round {round}");
        }
    }
    Ok((id, mesh.bytes()))
}

/// Runs party i with `options[i]` on a thread each; each result and when it ended.
fn run_all(options: Vec<MeshOptions>, rounds: usize) -> Vec<(Result<Seen, NpartyError>, Duration)> {
    let (ls, addrs) = listeners(options.len());
    let began = Instant::now();
    let handles: Vec<_> = ls
        .into_iter()
        .zip(options)
        .enumerate()
        .map(|(i, (l, o))| {
            let a = addrs.clone();
            std::thread::spawn(move || {
                let r = connect_mesh_on(i, &l, &a, &o).and_then(|mesh| {
                    drop(l);
                    session(mesh, rounds)
                });
                (r, began.elapsed())
            })
        })
        .collect();
    handles.into_iter().map(|h| h.join().unwrap()).collect()
}

fn errors(results: &[(Result<Seen, NpartyError>, Duration)], within: Duration) -> Vec<String> {
    results
        .iter()
        .enumerate()
        .map(|(i, (r, took))| {
            assert!(*took < within, "party {i} took {took:?}");
            match r {
                Ok(_) => panic!("party {i} succeeded"),
                Err(e) => {
                    // What each party says, for `--nocapture`.
                    eprintln!("party {i}: {e}");
                    e.to_string()
                }
            }
        })
        .collect()
}

/// 3 and 4 parties over TLS agree on one session id, move every frame intact, and count
/// the same plaintext bytes per peer as a plain TCP mesh running the same session (and i's
/// bytes to j are j's from i).
#[test]
fn three_and_four_parties_run_over_tls_with_plaintext_counters() {
    for n in [3, 4] {
        let keys = keys(n);
        let secured = run_all(
            (0..n)
                .map(|i| tls(&keys[i], &all_pins(&keys), 5000, 5000))
                .collect(),
            3,
        );
        let plain = run_all(vec![plain(5000, 5000); n], 3);
        let seen: Vec<Seen> = secured.into_iter().map(|(r, _)| r.unwrap()).collect();
        let plain: Vec<Seen> = plain.into_iter().map(|(r, _)| r.unwrap()).collect();
        assert!(seen.iter().all(|(id, _)| *id == seen[0].0));
        for i in 0..n {
            for j in (0..n).filter(|&j| j != i) {
                assert_eq!(seen[i].1[j].0, seen[j].1[i].1, "{i} to {j}");
                assert!(seen[i].1[j].0 > 0, "{i} to {j}: {:?}", seen[i].1[j]);
            }
            assert_eq!(seen[i].1, plain[i].1, "party {i}: TLS vs TCP counters");
        }
    }
}

/// Party 0 pins a wrong certificate for party 2: the TLS handshake between them fails, and
/// every party stops: party 0 naming party 2, party 2 saying its certificate was refused,
/// the others hearing from party 0 why it stopped.
#[test]
fn a_wrong_pin_for_one_peer_stops_every_party() {
    let keys = keys(4);
    let mut options: Vec<MeshOptions> = (0..4)
        .map(|i| tls(&keys[i], &all_pins(&keys), 2000, 1500))
        .collect();
    let mut wrong = all_pins(&keys);
    wrong[2].1 = generate(&[], false).unwrap().fingerprint;
    options[0] = tls(&keys[0], &wrong, 2000, 1500);
    let e = errors(&run_all(options, 1), Duration::from_secs(8));
    let pin = format!(
        "party 2's pin: --peer-fingerprint 2={}",
        fingerprint_hex(&wrong[2].1)
    );
    assert!(e[0].contains("not the pinned") && e[0].contains(&pin), "{}", e[0]);
    assert!(e[2].contains("refused this party's certificate"), "{}", e[2]);
    for i in [1, 3] {
        assert!(
            e[i].contains("party 0") && e[i].contains("party 2"),
            "party {i}: {}",
            e[i]
        );
    }
}

/// Party 3 presents party 2's certificate (with its key) while claiming id 3: refused, the
/// error naming both ids, and no party goes on.
#[test]
fn a_peer_presenting_another_partys_certificate_is_refused_naming_both() {
    let keys = keys(4);
    let mut options: Vec<MeshOptions> = (0..4)
        .map(|i| tls(&keys[i], &all_pins(&keys), 2000, 1500))
        .collect();
    // Party 3's own pin would be refused as not its certificate: it lists only the others.
    options[3] = tls(&keys[2], &all_pins(&keys)[..3], 2000, 1500);
    let want = "claiming to be party 3 presented party 2's certificate";
    let e = errors(&run_all(options, 1), Duration::from_secs(8));
    for (i, e) in e[..3].iter().enumerate() {
        assert!(e.contains(want), "party {i}: {e}");
    }
    assert!(e[3].contains("party"), "{}", e[3]);
}

/// A plain TCP party in a TLS mesh: both ends stop with a clear error, no hang.
#[test]
fn a_plain_tcp_party_cannot_join_a_tls_mesh() {
    let keys = keys(2);
    for plain_id in [0, 1] {
        let options: Vec<MeshOptions> = (0..2)
            .map(|i| {
                if i == plain_id {
                    plain(2000, 1000)
                } else {
                    tls(&keys[i], &all_pins(&keys), 2000, 1000)
                }
            })
            .collect();
        let e = errors(&run_all(options, 1), Duration::from_secs(6));
        let tls_side = &e[1 - plain_id];
        assert!(
            tls_side.contains("does not speak TLS 1.3")
                || tls_side.contains("closed the connection during the TLS"),
            "TLS party {}: {tls_side}",
            1 - plain_id
        );
    }
}

/// Settings: a missing pin is a usage error naming the party; with TLS an address off
/// loopback is allowed (no refusal, so the absent party is named instead).
#[test]
fn missing_pins_are_named_and_tls_allows_remote_addresses() {
    let keys = keys(3);
    let (ls, mut addrs) = listeners(3);
    let partial = tls(&keys[1], &all_pins(&keys)[..2], 500, 300);
    let e = connect_mesh_on(1, &ls[1], &addrs, &partial).unwrap_err();
    assert!(matches!(e, NpartyError::Usage(_)), "{e}");
    assert!(
        e.to_string().contains("no --peer-fingerprint 2=HEX for party 2"),
        "{e}"
    );
    addrs[0] = "192.0.2.1:9".into();
    let e = connect_mesh_on(2, &ls[2], &addrs[..], &plain(500, 300)).unwrap_err();
    assert!(e.to_string().contains("not a loopback address"), "{e}");
    let all = tls(&keys[2], &all_pins(&keys), 500, 300);
    let e = connect_mesh_on(2, &ls[2], &addrs, &all).unwrap_err();
    assert!(matches!(e, NpartyError::Absent { .. }), "{e}");
}

/// The cost of TLS on the mesh: 4 parties, 64 MiB each way on every pair (1 MiB frames,
/// each round a frame to every peer then one from every peer), over plain TCP and over TLS
/// on loopback. Run with `cargo test --release -p mixgc-nparty --test integration
/// tls_mesh::measure -- --ignored --nocapture`; prints the wall time of each and the slowdown.
#[test]
#[ignore = "a measurement"]
fn measure_tls_against_tcp() {
    const FRAME: usize = 1 << 20;
    const FRAMES: usize = 64;
    let n = 4;
    let keys = keys(n);
    let exchange = |options: Vec<MeshOptions>| -> Duration {
        let (ls, addrs) = listeners(n);
        let handles: Vec<_> = ls
            .into_iter()
            .zip(options)
            .enumerate()
            .map(|(i, (l, o))| {
                let a = addrs.clone();
                std::thread::spawn(move || {
                    let mut mesh = connect_mesh_on(i, &l, &a, &o).unwrap();
                    handshake(&mut mesh, &facts()).unwrap();
                    let start = Instant::now();
                    let frame = vec![i as u8; FRAME];
                    for _ in 0..FRAMES {
                        mesh.send_all(Tag::Openings, &frame).unwrap();
                        for j in mesh.peers().collect::<Vec<_>>() {
                            let got = mesh.recv(j, Tag::Openings, FRAME).unwrap();
                            assert!(got.len() == FRAME && got[0] == j as u8);
                        }
                    }
                    start.elapsed()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).max().unwrap()
    };
    let mut tcp = vec![];
    let mut tls_times = vec![];
    for _ in 0..3 {
        tcp.push(exchange(vec![plain(30_000, 10_000); n]));
        tls_times.push(exchange(
            (0..n)
                .map(|i| tls(&keys[i], &all_pins(&keys), 30_000, 10_000))
                .collect(),
        ));
    }
    let best = |v: &[Duration]| v.iter().min().copied().unwrap();
    let (tcp, tls_t) = (best(&tcp), best(&tls_times));
    let per_party_mib = (FRAME * FRAMES * (n - 1)) as f64 / (1 << 20) as f64;
    println!(
        "4 parties, 64 MiB each way per pair ({per_party_mib} MiB sent per party), best of 3: \
         TCP {tcp:?}, TLS {tls_t:?}, TLS/TCP = {:.2}",
        tls_t.as_secs_f64() / tcp.as_secs_f64()
    );
}

/// A relay holding both parties' keys terminates TLS towards each and forwards the
/// introductions unchanged between its two sessions: the channel bindings differ, and party
/// 1 refuses the link naming party 0 and the binding (party 0 is told why).
#[test]
fn a_relay_between_two_tls_sessions_is_detected() {
    use mixgc_net::{recv_frame, send_frame, Channel, PeerCheck, TlsChannel, TlsConfig};
    let keys = keys(2);
    let (ls, addrs) = listeners(2);
    let relay_listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let relay_addr = relay_listener.local_addr().unwrap().to_string();
    let posing_as = |who: usize, checks: usize| {
        TlsConfig::new(
            keys[who].identity().unwrap(),
            PeerCheck::Pinned(vec![keys[checks].fingerprint]),
        )
        .unwrap()
    };
    let (as_1, as_0) = (posing_as(1, 0), posing_as(0, 1));
    let to_1 = addrs[1].clone();
    let timeout = Duration::from_secs(2);
    let relay = std::thread::spawn(move || {
        let mut from_0 = TlsChannel::accept(&relay_listener, timeout, &as_1).unwrap();
        let mut to_1 = TlsChannel::connect(&to_1, timeout, &as_0).unwrap();
        assert_ne!(from_0.channel_binding(), to_1.channel_binding());
        let intro = recv_frame(&mut from_0, Tag::PartyHello, 64).unwrap();
        send_frame(&mut to_1, Tag::PartyHello, &intro).unwrap();
        to_1.flush().unwrap();
        // Party 1 answers, then refuses: forward what it sends, byte by byte, to its end.
        let mut byte = [0u8];
        while to_1.recv(&mut byte).is_ok() {
            if from_0.send(&byte).and_then(|()| from_0.flush()).is_err() {
                break;
            }
        }
    });
    let mut ls = ls.into_iter();
    let (l0, l1) = (ls.next().unwrap(), ls.next().unwrap());
    let options = |me: usize| tls(&keys[me], &all_pins(&keys), 2000, 1000);
    let via_relay = vec![addrs[0].clone(), relay_addr];
    let (o0, o1) = (options(0), options(1));
    let p0 = std::thread::spawn(move || connect_mesh_on(0, &l0, &via_relay, &o0).map(drop));
    let e1 = connect_mesh_on(1, &l1, &addrs, &o1).unwrap_err().to_string();
    let e0 = p0.join().unwrap().unwrap_err().to_string();
    relay.join().unwrap();
    eprintln!("party 0: {e0}\nparty 1: {e1}");
    assert!(
        e1.contains("party 0") && e1.contains("TLS channel binding differs"),
        "{e1}"
    );
    assert!(e0.contains("party 1"), "{e0}");
}

/// CA mode: each party's certificate is from a CA every party trusts (here one CA per
/// party, all in the `--peer-ca` file; each certificate names 127.0.0.1 and
/// `mixgc-party-J`). Three parties join; a party presenting another's certificate is
/// refused (the certificate does not name its claimed id); and a certificate from the CA
/// that names no party id is refused.
#[test]
fn ca_mode_binds_each_certificate_to_its_party_id() {
    use mixgc_net::PeerCheck;
    let names = |j: usize| vec!["127.0.0.1".to_string(), mixgc_nparty::party_name(j)];
    let mut keys: Vec<KeyMaterial> = (0..3).map(|j| generate(&names(j), true).unwrap()).collect();
    keys.push(generate(&["127.0.0.1".into()], true).unwrap());
    let dir = std::env::temp_dir().join(format!("mixgc-tls-mesh-ca-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ca_file = dir.join("cas.pem");
    let cas: String = keys.iter().map(|k| k.ca.as_ref().unwrap().0.clone()).collect();
    std::fs::write(&ca_file, cas).unwrap();
    let options = |who: usize| MeshOptions {
        tls: Some(
            MeshTls::with_ca(
                keys[who].identity().unwrap(),
                PeerCheck::load_ca(&ca_file).unwrap(),
            )
            .unwrap(),
        ),
        ..plain(3000, 2000)
    };
    let run = |who: [usize; 3]| {
        let (ls, addrs) = listeners(3);
        let handles: Vec<_> = ls
            .into_iter()
            .enumerate()
            .map(|(i, l)| {
                let (a, o) = (addrs.clone(), options(who[i]));
                std::thread::spawn(move || join_mesh_on(i, &l, &a, &o, &facts()).map(|(_, id)| id))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>()
    };
    let ids: Vec<[u8; 32]> = run([0, 1, 2]).into_iter().map(Result::unwrap).collect();
    assert!(ids.iter().all(|id| *id == ids[0]));
    for (who, wrong) in [([0, 1, 1], "mixgc-party-2"), ([0, 1, 3], "mixgc-party-2")] {
        let results = run(who);
        assert!(results.iter().all(Result::is_err));
        let e = results[0].as_ref().unwrap_err().to_string();
        assert!(
            e.contains("claiming to be party 2") && e.contains(&format!("does not name {wrong}")),
            "{e}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The emulated one-way latency applies over TLS links too: a round trip between two
/// parties takes at least twice the delay (and not much more on loopback).
#[test]
fn the_emulated_latency_applies_over_tls() {
    let d = Duration::from_millis(10);
    let keys = keys(2);
    let (ls, addrs) = listeners(2);
    let handles: Vec<_> = ls
        .into_iter()
        .enumerate()
        .map(|(i, l)| {
            let a = addrs.clone();
            let o = MeshOptions {
                one_way_latency: d,
                ..tls(&keys[i], &all_pins(&keys), 5000, 5000)
            };
            std::thread::spawn(move || {
                let mut mesh = connect_mesh_on(i, &l, &a, &o).unwrap();
                handshake(&mut mesh, &facts()).unwrap();
                let mut rtts = vec![];
                for k in 0..9u8 {
                    let start = Instant::now();
                    if i == 0 {
                        mesh.send(1, Tag::Openings, &[k]).unwrap();
                        assert_eq!(mesh.recv(1, Tag::Openings, 1).unwrap(), [k]);
                    } else {
                        let got = mesh.recv(0, Tag::Openings, 1).unwrap();
                        mesh.send(0, Tag::Openings, &got).unwrap();
                        mesh.flush().unwrap();
                    }
                    rtts.push(start.elapsed());
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
