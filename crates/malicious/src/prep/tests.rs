//! The preprocessing against plaintext models (IT-MAC relations, c = a∧b) and against
//! cheating peers (each injected deviation fails the named check at the honest party).

use std::thread;

use mixgc_core::{new_rng, Block};
use mixgc_net::{memory_pair, MemoryChannel};

use super::*;

const SESSION: [u8; 32] = [42; 32];

type Party = Kos15Preprocessor<MemoryChannel>;
type Outcome<T> = Result<(Delta, T), MaliciousError>;

/// Runs `f` for both parties in two threads over an in-memory channel, with `faults`
/// injected into (garbler, evaluator) after setup.
fn both<T: Send + 'static>(
    seed: Option<u64>,
    faults: (Fault, Fault),
    f: impl Fn(&mut Party) -> Result<T, MaliciousError> + Send + Sync + Clone + 'static,
) -> (Outcome<T>, Outcome<T>) {
    let (a, b) = memory_pair();
    let run = move |ch: MemoryChannel,
                    role: Role,
                    stream: u64,
                    fault: Fault,
                    f: &dyn Fn(&mut Party) -> Result<T, MaliciousError>| {
        let mut p = Kos15Preprocessor::setup(ch, role, &SESSION, new_rng(seed, stream))?;
        p.inject(fault);
        let out = f(&mut p);
        let delta = p.delta();
        drop(p); // closes the channel: a waiting peer sees a disconnect, never hangs
        out.map(|o| (delta, o))
    };
    let fa = f.clone();
    let garbler = thread::spawn(move || run(a, Role::Garbler, 1, faults.0, &fa));
    let evaluator = run(b, Role::Evaluator, 2, faults.1, &f);
    (garbler.join().unwrap(), evaluator)
}

/// M[x_P] = K_Q[x_P] ⊕ x_P·Δ_Q in both directions.
fn assert_authenticated(a: &AuthShare, b: &AuthShare, da: &Delta, db: &Delta) {
    assert_eq!(a.mac, b.key ^ db.0.and_bit(a.bit), "garbler's MAC");
    assert_eq!(b.mac, a.key ^ da.0.and_bit(b.bit), "evaluator's MAC");
}

#[test]
fn random_shares_are_authenticated_and_uniform() {
    let (g, e) = both(Some(1), (Fault::None, Fault::None), |p| {
        let mut v = p.random_shares(1)?;
        v.extend(p.random_shares(0)?);
        v.extend(p.random_shares(20_000)?);
        Ok(v)
    });
    let ((da, a), (db, b)) = (g.unwrap(), e.unwrap());
    assert_eq!((a.len(), b.len()), (20_001, 20_001));
    assert!(da.0.lsb());
    assert!(!db.0.lsb());
    let mut ones = 0;
    for (x, y) in a.iter().zip(&b) {
        assert_authenticated(x, y, &da, &db);
        ones += (x.bit ^ y.bit) as usize;
    }
    // 20,001 fair coins: 4.5 σ ≈ 320.
    assert!((ones as i64 - 10_000).abs() < 320, "{ones} ones");
}

fn check_triples(a: &[AuthTriple], b: &[AuthTriple], da: &Delta, db: &Delta) {
    assert_eq!(a.len(), b.len());
    let mut pattern = [0usize; 4];
    for (x, y) in a.iter().zip(b) {
        for (s, t) in [(&x.a, &y.a), (&x.b, &y.b), (&x.c, &y.c)] {
            assert_authenticated(s, t, da, db);
        }
        let (va, vb, vc) = (x.a.bit ^ y.a.bit, x.b.bit ^ y.b.bit, x.c.bit ^ y.c.bit);
        assert_eq!(vc, va & vb, "c ≠ a∧b");
        pattern[(va as usize) << 1 | vb as usize] += 1;
    }
    if a.len() >= 1000 {
        // a and b uniform: each of the four patterns about a quarter.
        for p in pattern {
            assert!(p * 5 > a.len() && p * 3 < a.len(), "{pattern:?}");
        }
    }
}

#[test]
fn hundred_thousand_triples_satisfy_the_macs_and_c_equals_a_and_b() {
    let (g, e) = both(None, (Fault::None, Fault::None), |p| p.and_triples(100_000));
    let ((da, a), (db, b)) = (g.unwrap(), e.unwrap());
    check_triples(&a, &b, &da, &db);
}

/// Small and odd batch sizes, served partly from the surplus of earlier batches, then a
/// batch above [`MAX_BATCH`] (two internal batches).
#[test]
fn any_batch_size_and_the_surplus_carry_over() {
    let (g, e) = both(Some(7), (Fault::None, Fault::None), |p| {
        let mut v = Vec::new();
        for n in [0, 1, 2, 3_097, 5, MIN_TRIPLES + 1, MAX_BATCH + 10] {
            let got = p.and_triples(n)?;
            assert_eq!(got.len(), n);
            v.extend(got);
        }
        Ok(v)
    });
    let ((da, a), (db, b)) = (g.unwrap(), e.unwrap());
    check_triples(&a, &b, &da, &db);
}

/// The `_into` calls with one reused vector each, and the triples lent in place by
/// `with_and_triples`, give exactly what fresh vectors get (same seeds): a whole batch
/// handed over by swapping vectors or lent whole, a batch's first triples, the surplus's
/// last ones, the surplus then a fresh batch (copied); stale contents of a reused vector
/// never leak into a result.
#[test]
fn reused_vectors_and_lent_triples_are_the_same_as_fresh_ones() {
    const SIZES: [usize; 6] = [MIN_TRIPLES, 5, 7, MIN_TRIPLES, 0, MIN_TRIPLES + 7];
    #[derive(Clone, Copy)]
    enum Way {
        Fresh,
        Reused,
        Lent,
    }
    let run = |way: Way| {
        both(Some(13), (Fault::None, Fault::None), move |p| {
            let (mut s, mut t) = (Vec::new(), Vec::new());
            let mut shares = vec![AuthShare::default(); 9];
            let mut triples = vec![AuthTriple::default(); 9];
            for n in SIZES {
                match way {
                    Way::Fresh => {
                        s.push(p.random_shares(n)?);
                        t.push(p.and_triples(n)?);
                    }
                    Way::Reused => {
                        p.random_shares_into(n, &mut shares)?;
                        p.and_triples_into(n, &mut triples)?;
                        assert_eq!((shares.len(), triples.len()), (n, n));
                        s.push(shares.clone());
                        t.push(triples.clone());
                    }
                    Way::Lent => {
                        s.push(p.random_shares(n)?);
                        t.push(p.with_and_triples(n, |lent| Ok(lent.to_vec()))?);
                    }
                }
            }
            Ok((s, t))
        })
    };
    let (g, e) = run(Way::Fresh);
    let ((da, fresh_a), (db, fresh_b)) = (g.unwrap(), e.unwrap());
    for way in [Way::Reused, Way::Lent] {
        let (g, e) = run(way);
        assert_eq!(g.unwrap().1, fresh_a, "garbler");
        assert_eq!(e.unwrap().1, fresh_b, "evaluator");
    }
    check_triples(&fresh_a.1.concat(), &fresh_b.1.concat(), &da, &db);
    for (x, y) in fresh_a.0.concat().iter().zip(&fresh_b.0.concat()) {
        assert_authenticated(x, y, &da, &db);
    }
    assert_eq!(fresh_a.1.iter().map(Vec::len).collect::<Vec<_>>(), SIZES);
}

/// An error of the code that uses lent triples is passed through unchanged.
#[test]
fn an_error_of_the_user_of_lent_triples_is_passed_through() {
    let (g, e) = both(Some(5), (Fault::None, Fault::None), |p| {
        let r: Result<(), _> = p.with_and_triples(10, |lent| {
            assert_eq!(lent.len(), 10);
            Err(MaliciousError::Protocol("the user's own error".into()))
        });
        Ok(r)
    });
    for r in [g.unwrap().1, e.unwrap().1] {
        assert!(matches!(r, Err(MaliciousError::Protocol(m)) if m == "the user's own error"));
    }
}

/// Announced triples are made in as few batches as the announcement allows: four calls
/// of 5,000 after `plan_triples(20_000)` make one batch of 20,000 (B = 4: 80,000 leaky
/// triples), then an unannounced call of 5,000 makes its own; all triples are valid.
#[test]
fn announced_triples_come_from_one_batch() {
    let (g, e) = both(Some(11), (Fault::None, Fault::None), |p| {
        p.plan_triples(20_000);
        let mut v = Vec::new();
        let mut leaky = Vec::new();
        for _ in 0..5 {
            v.extend(p.and_triples(5_000)?);
            leaky.push(p.leaky_made);
        }
        Ok((v, leaky))
    });
    let ((da, (a, leaky)), (db, (b, _))) = (g.unwrap(), e.unwrap());
    assert_eq!(leaky, [80_000, 80_000, 80_000, 80_000, 100_000]);
    assert_eq!(a.len(), 25_000);
    check_triples(&a, &b, &da, &db);
}

#[test]
fn batch_lengths_follow_need_and_announcement_within_the_table() {
    assert_eq!(batch_len(1, 0), MIN_TRIPLES);
    assert_eq!(batch_len(6_400, 0), 6_400);
    assert_eq!(batch_len(6_400, 6_400), 6_400);
    assert_eq!(batch_len(6_400, 64_000), 64_000);
    // Enough announced: a batch at B = 3 (WRK17's table from 280,000), capped.
    assert_eq!(batch_len(6_400, 640_000), MAX_BATCH);
    assert_eq!(bucket::bucket_size(batch_len(65_536, 1_689_840)), 3);
    assert_eq!(batch_len(MAX_BATCH + 1, 0), MAX_BATCH);
    assert_eq!(batch_len(10, u64::MAX), MAX_BATCH);
}

/// Runs `cheat` by one party and expects the honest one to fail `check`.
fn expect_caught(cheater: Role, fault: Fault, check: &str) {
    let faults = match cheater {
        Role::Garbler => (fault, Fault::None),
        Role::Evaluator => (Fault::None, fault),
    };
    let (g, e) = both(None, faults, |p| p.and_triples(MIN_TRIPLES));
    let honest = match cheater {
        Role::Garbler => e,
        Role::Evaluator => g,
    };
    match honest {
        Err(MaliciousError::CheckFailed { check: got }) => assert_eq!(got, check, "{fault:?} by {cheater:?}"),
        Err(other) => panic!("{fault:?} by {cheater:?}: expected {check}, got {other}"),
        Ok(_) => panic!("{fault:?} by {cheater:?} was not caught"),
    }
}

#[test]
fn a_receiver_lying_in_the_kos_check_is_caught() {
    for cheater in [Role::Garbler, Role::Evaluator] {
        expect_caught(cheater, Fault::KosLieInCheck, checks::KOS_CHECK);
    }
}

#[test]
fn a_wrong_delta_in_the_leaky_and_is_caught() {
    for cheater in [Role::Garbler, Role::Evaluator] {
        expect_caught(cheater, Fault::WrongDeltaInLaand, checks::LAAND_CHECK);
    }
}

#[test]
fn a_corrupted_leaky_and_message_is_caught() {
    for cheater in [Role::Garbler, Role::Evaluator] {
        expect_caught(cheater, Fault::CorruptLaandMessage, checks::LAAND_CHECK);
    }
}

#[test]
fn an_opened_bit_with_a_wrong_mac_is_caught() {
    for cheater in [Role::Garbler, Role::Evaluator] {
        expect_caught(cheater, Fault::FlipOpenedBit, checks::OPEN_CHECK);
    }
}

/// The last batch's `n` leaky triples, read back from the allocation the preprocessor
/// keeps after the batch (which must be empty).
fn leaky_left(p: &mut Party, n: usize) -> Vec<laand::Leaky> {
    assert_eq!((p.leaky.auth.len(), p.leaky.bits.len()), (0, 0));
    assert!(p.leaky.auth.capacity() >= n && p.leaky.bits.capacity() >= n);
    // SAFETY: the batch initialised the first n elements of both vectors, and every bit
    // pattern is a valid `Leaky` and `u8`; the lengths are reset right after the copy.
    let (auth, bits) = unsafe {
        p.leaky.auth.set_len(n);
        p.leaky.bits.set_len(n);
        let copy = (p.leaky.auth.clone(), p.leaky.bits.clone());
        p.leaky.auth.set_len(0);
        p.leaky.bits.set_len(0);
        copy
    };
    assert!(bits.iter().all(|&b| b == 0), "share bits left after the batch");
    auth
}

/// The bucketing wipes each leaky triple's MACs and keys as it reads it (no separate
/// pass): after a batch, after a batch whose opened-bit check failed, and after one whose
/// LaAND check failed (before the bucketing: wiped on that exit, the allocation kept),
/// nothing of the ℓ·B leaky triples is left in the kept allocation, on either side.
#[test]
fn every_leaky_triple_is_wiped_after_its_batch_even_when_a_check_fails() {
    let total = MIN_TRIPLES * bucket::bucket_size(MIN_TRIPLES);
    for faults in [
        (Fault::None, Fault::None),
        (Fault::FlipOpenedBit, Fault::None),
        (Fault::WrongDeltaInLaand, Fault::None),
    ] {
        let (g, e) = both(Some(5), faults, move |p| {
            let made = p.and_triples(MIN_TRIPLES).map(|t| t.len());
            Ok((made, leaky_left(p, total)))
        });
        for (side, outcome) in [("garbler", g), ("evaluator", e)] {
            let (_, (made, left)) = outcome.unwrap();
            match (faults.0, side) {
                (Fault::None, _) => assert_eq!(made.unwrap(), MIN_TRIPLES),
                (fault, "evaluator") => {
                    let expected = match fault {
                        Fault::FlipOpenedBit => checks::OPEN_CHECK,
                        _ => checks::LAAND_CHECK,
                    };
                    assert!(
                        matches!(made, Err(MaliciousError::CheckFailed { check }) if check == expected),
                        "{made:?}"
                    );
                }
                _ => {}
            }
            assert_eq!(left.len(), total);
            let zero = |l: &laand::Leaky| l.macs.iter().chain(&l.keys).all(|b| b.to_u128() == 0);
            assert!(
                left.iter().all(zero),
                "{side}: a leaky triple survived its batch ({faults:?})"
            );
        }
    }
}

/// The parties disagree on the count: the OT header catches it (a protocol error naming
/// both counts), nothing is allocated from the peer's count, and nobody hangs.
#[test]
fn mismatched_counts_are_a_protocol_error() {
    let (a, b) = memory_pair();
    let g = thread::spawn(move || {
        let mut p = Kos15Preprocessor::setup(a, Role::Garbler, &SESSION, new_rng(Some(1), 1))?;
        p.random_shares(100)
    });
    let mut p = Kos15Preprocessor::setup(b, Role::Evaluator, &SESSION, new_rng(Some(1), 2)).unwrap();
    let e = p.random_shares(200);
    drop(p);
    let g = g.join().unwrap();
    assert!(
        matches!(e, Err(MaliciousError::Protocol(ref m)) if m.contains("out of step")),
        "{e:?}"
    );
    assert!(g.is_err());
}

#[test]
fn a_dead_peer_is_a_net_error_and_the_instance_is_then_unusable() {
    let (a, b) = memory_pair();
    let g = thread::spawn(move || {
        let p = Kos15Preprocessor::setup(a, Role::Garbler, &SESSION, new_rng(Some(1), 1)).unwrap();
        drop(p); // dies right after the setup
    });
    let mut p = Kos15Preprocessor::setup(b, Role::Evaluator, &SESSION, new_rng(Some(1), 2)).unwrap();
    g.join().unwrap();
    assert!(matches!(p.and_triples(10), Err(MaliciousError::Net(_))));
    assert!(matches!(p.random_shares(1), Err(MaliciousError::Protocol(_))));
}

#[test]
fn pack_and_unpack_round_trip() {
    let bits: Vec<bool> = (0..77).map(|j| j % 3 == 0 || j % 7 == 1).collect();
    assert_eq!(unpack_bits(&pack_bits(&bits), 77), bits);
    assert_eq!(pack_bits(&[]).len(), 0);
    let _ = Block::ZERO;
}

/// A count that cannot be held in memory is an error naming it, not an abort.
#[test]
fn an_impossible_count_is_an_error_not_an_abort() {
    let (g, e) = both(Some(3), (Fault::None, Fault::None), |p| {
        let r = p.and_triples(usize::MAX / 2);
        assert!(
            matches!(&r, Err(MaliciousError::Protocol(m)) if m.contains("in memory")),
            "{r:?}"
        );
        Ok(())
    });
    g.unwrap();
    e.unwrap();
}

/// Parties set up with different session ids hold unrelated base-OT keys: the first
/// extension fails the KOS15 check at the COT sender instead of yielding wrong MACs.
/// That extension is now the setup's own (the evaluator's base OTs come from 128 checked
/// COTs of the garbler's direction), so the garbler's setup is what fails.
#[test]
fn different_sessions_fail_the_kos_check_not_the_macs() {
    let (a, b) = memory_pair();
    let g = thread::spawn(move || {
        let mut p = Kos15Preprocessor::setup(a, Role::Garbler, &[1; 32], new_rng(Some(1), 1))?;
        p.random_shares(500)
    });
    let e = Kos15Preprocessor::setup(b, Role::Evaluator, &[2; 32], new_rng(Some(1), 2))
        .and_then(|mut p| p.random_shares(500));
    let g = g.join().unwrap();
    // The garbler holds direction 0's correlation: it is the first COT sender to check.
    assert!(
        matches!(
            g,
            Err(MaliciousError::CheckFailed {
                check: checks::KOS_CHECK
            })
        ),
        "{g:?}"
    );
    assert!(e.is_err());
}

/// A peer that sends random bytes (from the start, or after an honest setup) makes the
/// honest party return an error — never a panic, a hang or a huge allocation.
#[test]
fn a_garbage_peer_is_an_error() {
    use mixgc_net::Channel;
    use rand::RngCore;
    for honest_setup in [false, true] {
        let (a, b) = memory_pair();
        let peer = thread::spawn(move || {
            let mut b = b;
            if honest_setup {
                let p =
                    Kos15Preprocessor::setup(&mut b, Role::Evaluator, &SESSION, new_rng(Some(5), 2)).unwrap();
                drop(p);
            }
            let mut junk = vec![0u8; 1 << 20];
            new_rng(Some(6), 3).fill_bytes(&mut junk);
            // The honest side may stop reading at any point: send errors end the peer.
            let _ = b.send(&junk).and_then(|()| b.flush());
        });
        let r = Kos15Preprocessor::setup(a, Role::Garbler, &SESSION, new_rng(Some(5), 1))
            .and_then(|mut p| p.and_triples(MIN_TRIPLES).map(|_| ()));
        peer.join().unwrap();
        assert!(r.is_err(), "garbage accepted (honest setup: {honest_setup})");
    }
}
