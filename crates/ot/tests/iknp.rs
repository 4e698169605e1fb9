//! OT extension through the public API, both parties on threads over `memory_pair()`.

use std::collections::HashSet;
use std::thread;

use mixgc_core::{new_rng, Block};
use mixgc_net::{memory_pair, Channel, MemoryChannel, TranscriptChannel};
use mixgc_ot::{OtError, OtReceiver, OtSender};
use rand::Rng as _;

const SESSION: [u8; 32] = [42; 32];

fn choices(count: usize, seed: u64) -> Vec<bool> {
    let mut rng = new_rng(Some(seed), 7);
    (0..count).map(|_| rng.gen()).collect()
}

/// Sets up both sides; returns them with their channel ends.
fn setup(seed: Option<u64>) -> ((OtSender, MemoryChannel), (OtReceiver, MemoryChannel)) {
    let (mut a, mut b) = memory_pair();
    let t = thread::spawn(move || {
        let mut rng = new_rng(seed, 1);
        let s = OtSender::setup(&mut a, &SESSION, &mut rng).unwrap();
        (s, a)
    });
    let mut rng = new_rng(seed, 2);
    let r = OtReceiver::setup(&mut b, &SESSION, &mut rng).unwrap();
    (t.join().unwrap(), (r, b))
}

/// One correlated-OT call on set-up parties; returns (W0, receiver's labels).
fn correlated(
    sender: &mut (OtSender, MemoryChannel),
    receiver: &mut (OtReceiver, MemoryChannel),
    delta: Block,
    choices: &[bool],
) -> (Vec<Block>, Vec<Block>) {
    let count = choices.len();
    thread::scope(|sc| {
        let (s, a) = sender;
        let h = sc.spawn(move || s.send_correlated(a, delta, count).unwrap());
        let (r, b) = receiver;
        let got = r.receive_correlated(b, choices).unwrap();
        (h.join().unwrap(), got)
    })
}

fn random(
    sender: &mut (OtSender, MemoryChannel),
    receiver: &mut (OtReceiver, MemoryChannel),
    choices: &[bool],
) -> (Vec<(Block, Block)>, Vec<Block>) {
    let count = choices.len();
    thread::scope(|sc| {
        let (s, a) = sender;
        let h = sc.spawn(move || s.send_random(a, count).unwrap());
        let (r, b) = receiver;
        let got = r.receive_random(b, choices).unwrap();
        (h.join().unwrap(), got)
    })
}

fn check_correlated(w0: &[Block], got: &[Block], delta: Block, c: &[bool]) {
    assert_eq!(w0.len(), c.len());
    assert_eq!(got.len(), c.len());
    for j in 0..c.len() {
        assert_eq!(got[j], w0[j] ^ delta.and_bit(c[j]), "OT {j}");
    }
}

fn check_random(pairs: &[(Block, Block)], got: &[Block], c: &[bool]) {
    assert_eq!(pairs.len(), c.len());
    assert_eq!(got.len(), c.len());
    for j in 0..c.len() {
        let (r0, r1) = pairs[j];
        assert_ne!(r0, r1);
        assert_eq!(got[j], if c[j] { r1 } else { r0 }, "OT {j}");
    }
}

const COUNTS: [usize; 7] = [0, 1, 127, 128, 129, 1000, 40_000];

#[test]
fn correlated_ot_gives_w0_xor_c_delta() {
    let (mut s, mut r) = setup(Some(1));
    let delta = Block::from_u128(0x1234_5678_9abc_def0_1122_3344_5566_7788).with_lsb_set();
    for (k, count) in COUNTS.into_iter().enumerate() {
        let c = choices(count, k as u64);
        let (w0, got) = correlated(&mut s, &mut r, delta, &c);
        check_correlated(&w0, &got, delta, &c);
    }
}

#[test]
fn random_ot_gives_the_chosen_message() {
    let (mut s, mut r) = setup(Some(2));
    for (k, count) in COUNTS.into_iter().enumerate() {
        let c = choices(count, 100 + k as u64);
        let (pairs, got) = random(&mut s, &mut r, &c);
        check_random(&pairs, &got, &c);
    }
}

/// A million OTs in one call (well under a second in release, ~0.3 s in the test profile).
#[test]
fn a_million_correlated_ots() {
    let (mut s, mut r) = setup(None);
    let delta = Block::random(&mut new_rng(None, 0)).with_lsb_set();
    let c = choices(1_000_000, 3);
    let (w0, got) = correlated(&mut s, &mut r, delta, &c);
    check_correlated(&w0, &got, delta, &c);
    let distinct: HashSet<Block> = w0.iter().copied().collect();
    assert_eq!(distinct.len(), w0.len());
}

#[test]
fn zero_count_exchanges_nothing() {
    let (mut s, mut r) = setup(Some(4));
    let before = (s.1.bytes_sent(), r.1.bytes_sent());
    let (w0, got) = correlated(&mut s, &mut r, Block::from_u128(3), &[]);
    assert!(w0.is_empty() && got.is_empty());
    let (pairs, got) = random(&mut s, &mut r, &[]);
    assert!(pairs.is_empty() && got.is_empty());
    assert_eq!((s.1.bytes_sent(), r.1.bytes_sent()), before);
}

/// Repeated calls keep working, and the index (hash tweak) and PRG streams continue: the
/// same choices and Δ give fresh labels in every call.
#[test]
fn repeated_calls_continue_the_stream() {
    let (mut s, mut r) = setup(Some(5));
    let delta = Block::from_u128(77).with_lsb_set();
    let c = choices(300, 9);
    let mut seen = HashSet::new();
    for round in 0..4 {
        if round % 2 == 0 {
            let (w0, got) = correlated(&mut s, &mut r, delta, &c);
            check_correlated(&w0, &got, delta, &c);
            assert!(
                w0.iter().all(|w| seen.insert(*w)),
                "a label repeated across calls"
            );
        } else {
            let (pairs, got) = random(&mut s, &mut r, &c);
            check_random(&pairs, &got, &c);
            assert!(pairs.iter().all(|&(a, b)| seen.insert(a) && seen.insert(b)));
        }
    }
}

/// All 2m random-OT messages are distinct (a distinct key per OT index and bit).
#[test]
fn every_ot_message_is_distinct() {
    let (mut s, mut r) = setup(Some(6));
    let (pairs, _) = random(&mut s, &mut r, &choices(5000, 1));
    let all: HashSet<Block> = pairs.iter().flat_map(|&(a, b)| [a, b]).collect();
    assert_eq!(all.len(), 10_000);
    // r0 ⊕ r1 is not a fixed correlation (the ALSZ hash breaks the IKNP correlation s).
    let diffs: HashSet<Block> = pairs.iter().map(|&(a, b)| a ^ b).collect();
    assert_eq!(diffs.len(), 5000);
}

#[test]
fn communication_is_16_bytes_per_ot_each_way() {
    let (mut s, mut r) = setup(Some(7));
    let before = (s.1.bytes_sent(), r.1.bytes_sent());
    let (_, _) = correlated(&mut s, &mut r, Block::from_u128(1), &choices(1280, 2));
    assert_eq!(s.1.bytes_sent() - before.0, 16 * 1280);
    assert_eq!(r.1.bytes_sent() - before.1, 16 + 16 * 1280); // header + matrix
}

#[test]
fn unseeded_runs_differ() {
    let c = choices(64, 3);
    let delta = Block::from_u128(5).with_lsb_set();
    let (mut s1, mut r1) = setup(None);
    let (mut s2, mut r2) = setup(None);
    let (w1, _) = correlated(&mut s1, &mut r1, delta, &c);
    let (w2, _) = correlated(&mut s2, &mut r2, delta, &c);
    let a: HashSet<Block> = w1.into_iter().collect();
    assert!(w2.iter().all(|w| !a.contains(w)));
}

/// Seeded runs are reproducible, and the wire format is pinned: a change to it must
/// change this digest on purpose.
#[test]
fn seeded_transcript_is_fixed() {
    fn run() -> (String, String) {
        let (a, b) = memory_pair();
        let (mut a, mut b) = (TranscriptChannel::new(a), TranscriptChannel::new(b));
        let t = thread::spawn(move || {
            let mut rng = new_rng(Some(2024), 1);
            let mut s = OtSender::setup(&mut a, &SESSION, &mut rng).unwrap();
            s.send_correlated(&mut a, Block::from_u128(0xd1).with_lsb_set(), 200)
                .unwrap();
            s.send_random(&mut a, 130).unwrap();
            a.digests()
        });
        let mut rng = new_rng(Some(2024), 2);
        let mut r = OtReceiver::setup(&mut b, &SESSION, &mut rng).unwrap();
        r.receive_correlated(&mut b, &choices(200, 1)).unwrap();
        r.receive_random(&mut b, &choices(130, 2)).unwrap();
        let (sent_by_receiver, _) = b.digests();
        let (sent_by_sender, _) = t.join().unwrap();
        (sent_by_sender, sent_by_receiver)
    }
    let first = run();
    assert_eq!(first, run());
    assert_eq!(first.0, PINNED_SENDER, "OT wire format changed (sender side)");
    assert_eq!(first.1, PINNED_RECEIVER, "OT wire format changed (receiver side)");
}

const PINNED_SENDER: &str = "6614936ad051f087598da9ffd06cc5ea2eff6a9c4c0e3784cc7280c7b226669c";
const PINNED_RECEIVER: &str = "fd1b9a091c68b63e7bf042c65a84a7722d5e31c85de4894692d56a0d858d318d";

#[test]
fn mismatched_calls_are_errors_not_wrong_labels() {
    // Different counts.
    let ((mut s, a), (mut r, mut b)) = setup(Some(8));
    let t = thread::spawn(move || {
        let mut a = a;
        let res = s.send_correlated(&mut a, Block::from_u128(1), 100);
        let again = s.send_correlated(&mut a, Block::from_u128(1), 200);
        (res, again) // `a` drops here, as a failing session would
    });
    let got = r.receive_correlated(&mut b, &choices(200, 1));
    let (res, again) = t.join().unwrap();
    assert!(matches!(res, Err(OtError::Desync(_))), "{res:?}");
    assert!(matches!(again, Err(OtError::Poisoned)), "{again:?}");
    assert!(matches!(got, Err(OtError::Net(_))), "{got:?}");
    assert!(matches!(
        r.receive_correlated(&mut b, &[true]),
        Err(OtError::Poisoned)
    ));

    // Correlated on one side, random on the other.
    let ((mut s, a), (mut r, mut b)) = setup(Some(9));
    let t = thread::spawn(move || {
        let mut a = a;
        s.send_random(&mut a, 10)
    });
    let got = r.receive_correlated(&mut b, &choices(10, 1));
    let res = t.join().unwrap();
    let msg = match res {
        Err(OtError::Desync(m)) => m,
        other => panic!("expected Desync, got {other:?}"),
    };
    assert!(msg.contains("correlated") && msg.contains("random"), "{msg}");
    assert!(got.is_err());
}

#[test]
fn a_peer_that_disconnects_is_an_error() {
    // The receiver vanishes during setup.
    let (mut a, b) = memory_pair();
    drop(b);
    let mut rng = new_rng(Some(1), 1);
    assert!(matches!(
        OtSender::setup(&mut a, &SESSION, &mut rng),
        Err(OtError::Net(_))
    ));
    let (a, mut b) = memory_pair();
    drop(a);
    assert!(matches!(
        OtReceiver::setup(&mut b, &SESSION, &mut rng),
        Err(OtError::Net(_))
    ));

    // The sender vanishes after setup, before sending d.
    let ((s, a), (mut r, mut b)) = setup(Some(10));
    drop((s, a));
    assert!(matches!(
        r.receive_correlated(&mut b, &choices(500, 1)),
        Err(OtError::Net(_))
    ));

    // The receiver sends the header and half its matrix, then vanishes.
    let ((mut s, mut a), (_r, mut b)) = setup(Some(11));
    let mut header = [0u8; 16];
    header[8] = 200; // 200 correlated OTs at index 0
    header[15] = 1;
    b.send(&header).unwrap();
    b.send(&vec![0u8; 16 * 100]).unwrap();
    b.flush().unwrap();
    drop(b);
    assert!(matches!(
        s.send_correlated(&mut a, Block::from_u128(1), 200),
        Err(OtError::Net(_))
    ));
}

#[test]
fn delta_cot_correlates_with_the_chosen_secret() {
    let delta = Block::from_u128(0x0123_4567_89ab_cdef_fedc_ba98_7654_3211);
    let (mut a, mut b) = memory_pair();
    let t = thread::spawn(move || {
        let mut rng = new_rng(Some(3), 1);
        let mut s = OtSender::setup_with_secret(&mut a, &SESSION, delta, &mut rng).unwrap();
        // Every chunk-boundary case, then a Δ-COT after a hashed call on the same instance.
        let q: Vec<Vec<Block>> = [1, 127, 128, 129, 20_000]
            .iter()
            .map(|&n| s.send_delta_cot(&mut a, n).unwrap())
            .collect();
        let w0 = s.send_correlated(&mut a, delta, 300).unwrap();
        let q2 = s.send_delta_cot(&mut a, 50).unwrap();
        (q, w0, q2)
    });
    let mut rng = new_rng(Some(3), 2);
    let mut r = OtReceiver::setup(&mut b, &SESSION, &mut rng).unwrap();
    let cs: Vec<Vec<bool>> = [1, 127, 128, 129, 20_000]
        .iter()
        .enumerate()
        .map(|(i, &n)| choices(n, i as u64))
        .collect();
    let ts: Vec<Vec<Block>> = cs
        .iter()
        .map(|c| r.receive_delta_cot(&mut b, c).unwrap())
        .collect();
    let c300 = choices(300, 9);
    let got = r.receive_correlated(&mut b, &c300).unwrap();
    let c50 = choices(50, 10);
    let t2 = r.receive_delta_cot(&mut b, &c50).unwrap();
    let (q, w0, q2) = t.join().unwrap();
    for ((q, t), c) in q.iter().zip(&ts).zip(&cs) {
        for ((&q, &t), &c) in q.iter().zip(t).zip(c) {
            assert_eq!(q ^ t, delta.and_bit(c));
        }
    }
    check_correlated(&w0, &got, delta, &c300);
    for ((&q, &t), &c) in q2.iter().zip(&t2).zip(&c50) {
        assert_eq!(q ^ t, delta.and_bit(c));
    }
    // The raw outputs are not all equal (they are shares, not constants).
    assert!(q[4].iter().collect::<HashSet<_>>().len() > 19_000);
}

/// The `_into` forms give the same correlation while one buffer per side is reused across
/// growing, shrinking and empty calls (the buffers' old contents never leak into outputs).
#[test]
fn delta_cot_into_reuses_one_buffer_across_sizes() {
    let delta = Block::from_u128(0xfeed_0000_1111_2222_3333_4444_5555_6667);
    let sizes = [20_000usize, 1, 129, 0, 3_000];
    let (mut a, mut b) = memory_pair();
    let t = thread::spawn(move || {
        let mut rng = new_rng(Some(4), 1);
        let mut s = OtSender::setup_with_secret(&mut a, &SESSION, delta, &mut rng).unwrap();
        let mut buf = Vec::new();
        let mut all = Vec::new();
        for n in sizes {
            s.send_delta_cot_into(&mut a, n, &mut buf).unwrap();
            assert_eq!(buf.len(), n);
            all.push(buf.clone());
        }
        all
    });
    let mut rng = new_rng(Some(4), 2);
    let mut r = OtReceiver::setup(&mut b, &SESSION, &mut rng).unwrap();
    let mut buf = vec![Block::from_u128(7); 50_000];
    let mut got = Vec::new();
    for (i, n) in sizes.into_iter().enumerate() {
        let c = choices(n, 100 + i as u64);
        r.receive_delta_cot_into(&mut b, &c, &mut buf).unwrap();
        assert_eq!(buf.len(), n);
        got.push((buf.clone(), c));
    }
    for (q, (t, c)) in t.join().unwrap().iter().zip(&got) {
        for ((&q, &t), &c) in q.iter().zip(t).zip(c) {
            assert_eq!(q ^ t, delta.and_bit(c));
        }
    }
}
