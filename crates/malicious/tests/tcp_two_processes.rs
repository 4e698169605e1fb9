//! The preprocessing between two processes over real TCP: this test binary re-runs itself
//! as the evaluator (the `#[ignore]`d `evaluator_process`, which does nothing unless the
//! parent set `MIXGC_PREP_PEER`). After the protocol the child reveals its Δ and its view
//! over the same connection (a test-only step) so that the parent can check the IT-MAC
//! relations and c = a∧b.

use std::process::{Command, Stdio};
use std::time::Duration;

use mixgc_core::{new_rng, Block};
use mixgc_malicious::{AuthShare, Kos15Preprocessor, MaliciousError, Preprocessor, Role};
use mixgc_net::{Channel, TcpChannel};

const PEER: &str = "MIXGC_PREP_PEER";
const MODE: &str = "MIXGC_PREP_MODE";
const SESSION: [u8; 32] = [3; 32];
const SHARES: usize = 1_000;
const TRIPLES: usize = 10_000;
const TIMEOUT: Duration = Duration::from_secs(60);

fn spawn_evaluator(addr: &str, mode: &str) -> std::process::Child {
    Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "evaluator_process",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(PEER, addr)
        .env(MODE, mode)
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn the evaluator process")
}

fn encode(views: &[AuthShare], out: &mut Vec<u8>) {
    for v in views {
        out.extend_from_slice(&v.mac.to_bytes());
        out.extend_from_slice(&v.key.to_bytes());
        out.push(v.bit as u8);
    }
}

fn decode(bytes: &[u8]) -> Vec<AuthShare> {
    bytes
        .chunks_exact(33)
        .map(|c| AuthShare {
            mac: Block::from_bytes(c[..16].try_into().unwrap()),
            key: Block::from_bytes(c[16..32].try_into().unwrap()),
            bit: c[32] == 1,
        })
        .collect()
}

/// The child: connects, runs the evaluator's side, then reveals Δ_B and its view — or,
/// in mode "die", exits right after the setup.
#[test]
#[ignore = "the evaluator process of the two-process tests; does nothing on its own"]
fn evaluator_process() {
    let Ok(addr) = std::env::var(PEER) else { return };
    let ch = TcpChannel::connect(&addr, TIMEOUT).unwrap();
    let mut p = Kos15Preprocessor::setup(ch, Role::Evaluator, &SESSION, new_rng(None, 2)).unwrap();
    if std::env::var(MODE).as_deref() == Ok("die") {
        std::process::exit(0);
    }
    let shares = p.random_shares(SHARES).unwrap();
    let triples = p.and_triples(TRIPLES).unwrap();
    let mut out = p.delta().0.to_bytes().to_vec();
    encode(&shares, &mut out);
    for t in &triples {
        encode(&[t.a, t.b, t.c], &mut out);
    }
    let ch = p.channel_mut();
    ch.send(&out).unwrap();
    ch.flush().unwrap();
}

fn assert_authenticated(a: &AuthShare, b: &AuthShare, da: Block, db: Block) {
    assert_eq!(a.mac, b.key ^ db.and_bit(a.bit));
    assert_eq!(b.mac, a.key ^ da.and_bit(b.bit));
}

#[test]
fn shares_and_triples_over_tcp_between_two_processes() {
    let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
    let mut child = spawn_evaluator(&addr.to_string(), "run");
    let ch = TcpChannel::accept(&listener, TIMEOUT).unwrap();
    let mut p = Kos15Preprocessor::setup(ch, Role::Garbler, &SESSION, new_rng(None, 1)).unwrap();
    let shares = p.random_shares(SHARES).unwrap();
    let triples = p.and_triples(TRIPLES).unwrap();
    let da = p.delta().0;

    let mut theirs = vec![0u8; 16 + 33 * (SHARES + 3 * TRIPLES)];
    p.channel_mut().recv(&mut theirs).unwrap();
    assert!(child.wait().unwrap().success());
    let db = Block::from_bytes(theirs[..16].try_into().unwrap());
    let views = decode(&theirs[16..]);
    let (their_shares, their_triples) = views.split_at(SHARES);
    for (a, b) in shares.iter().zip(their_shares) {
        assert_authenticated(a, b, da, db);
    }
    for (t, u) in triples.iter().zip(their_triples.chunks_exact(3)) {
        for (a, b) in [(&t.a, &u[0]), (&t.b, &u[1]), (&t.c, &u[2])] {
            assert_authenticated(a, b, da, db);
        }
        assert_eq!(t.c.bit ^ u[2].bit, (t.a.bit ^ u[0].bit) & (t.b.bit ^ u[1].bit));
    }
}

/// The evaluator process exits after the setup: the garbler's next call fails with a
/// network error (not a hang, not a panic).
#[test]
fn a_dead_peer_process_is_a_net_error() {
    let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
    let mut child = spawn_evaluator(&addr.to_string(), "die");
    let ch = TcpChannel::accept(&listener, TIMEOUT).unwrap();
    let mut p = Kos15Preprocessor::setup(ch, Role::Garbler, &SESSION, new_rng(None, 1)).unwrap();
    assert!(child.wait().unwrap().success());
    let r = p.and_triples(TRIPLES);
    assert!(matches!(r, Err(MaliciousError::Net(_))), "{r:?}");
}
