//! The Y form of the n-party mixed backend against the plaintext backend, on both engines
//! (BMR garbled labels, n = 2, 3, 5; the seed's distributed garbling, n = 2, 3, fewer lanes
//! as an AND costs megabytes) in threads: every Y op, B→Y (of shares of private inputs
//! whose non-owners hold zeros, and of random GMW shares), Y→B, Y→B→Y round trips, a chain
//! of ANDs across batches, on random and edge inputs; a program diverging in Y ops; a party
//! dying with a batch pending.

mod common;

use fhe_rand::{Rng, SeedableRng};
use fhe_rand_chacha::ChaCha20Rng;
use mixgc_mixed::a2b::BooleanEngine;
use mixgc_mixed::program::NpartyBackend;
use mixgc_mixed::yao::YaoEngine;
use mixgc_mixed::{keygen, parameters};
use mixgc_nparty::NpartyError;
use mixgc_program::mixed::{MixedBackend, MixedPlain, MixedProgramError, Recipient};

use common::{names, run_parties};

/// Sequential ANDs of the chain (with batches of 7 ANDs, it crosses many batches).
const CHAIN: usize = 12;

/// The chain with the Lut engine (2 ANDs a lane a step; batches of 7 still cross).
const LUT_CHAIN: usize = 2;

/// Every Y op on bits `a` (party 0's) and `c` (party n − 1's), opened to everyone; the
/// AND chain `chain` steps long.
fn program<B: MixedBackend>(
    b: &mut B,
    a: (usize, Option<Vec<u64>>),
    c: (usize, Option<Vec<u64>>),
    lanes: usize,
    chain: usize,
) -> Result<Vec<Option<Vec<bool>>>, MixedProgramError> {
    let pa = b.private(a.0, lanes, a.1)?;
    let pc = b.private(c.0, lanes, c.1)?;
    let xa = b.share_bits(&pa, 1)?.remove(0);
    let xc = b.share_bits(&pc, 1)?.remove(0);
    // GMW shares that every party holds at random.
    let s = b.xor(&xa, &xc)?;
    let t = b.and(&xa, &xc)?;
    // B→Y: of an owner's bits (the others hold zeros) and of random shares.
    let (ya, yc, ys, yt) = (b.to_yao(&xa)?, b.to_yao(&xc)?, b.to_yao(&s)?, b.to_yao(&t)?);
    let x = b.yao_xor(&ya, &ys)?;
    let nx = b.yao_not(&x)?;
    let and = b.yao_and(&nx, &yt)?;
    let or = {
        let (na, nc) = (b.yao_not(&ya)?, b.yao_not(&yc)?);
        let nor = b.yao_and(&na, &nc)?;
        b.yao_not(&nor)?
    };
    let reversed: Vec<usize> = (0..lanes).rev().chain([0, 0]).collect();
    let gathered = b.yao_gather(&or, &reversed)?;
    let edges = b.public_yao(&(0..lanes + 2).map(|i| i % 3 == 0).collect::<Vec<_>>())?;
    let masked = b.yao_and(&gathered, &edges)?;
    // The chain z ← z ∧ ¬(z ∧ c) ⊕ a, each AND depending on the one before.
    let mut z = ys.clone();
    for _ in 0..chain {
        let zc = b.yao_and(&z, &yc)?;
        let nzc = b.yao_not(&zc)?;
        let kept = b.yao_and(&z, &nzc)?;
        z = b.yao_xor(&kept, &ya)?;
    }
    // Y→B, then a B op, then B→Y→B again (round trips).
    let all = b.yao_concat(&[and, masked, z, ya.clone()]);
    let back = b.yao_to_bool(&all)?;
    let flipped = b.not(&back);
    let again = b.to_yao(&flipped)?;
    let squared = b.yao_and(&again, &again)?;
    let twice = b.yao_to_bool(&squared)?;
    let single = b.yao_gather(&yt, &[lanes - 1])?;
    let single = b.yao_to_bool(&single)?;
    Ok(vec![
        b.output_bool(&back, Recipient::All)?,
        b.output_bool(&twice, Recipient::Party(1))?,
        b.output_bool(&single, Recipient::All)?,
    ])
}

/// The inputs of one case: (lanes, a, c).
fn cases(seed: u64) -> Vec<(usize, Vec<u64>, Vec<u64>)> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut random = |lanes: usize| (0..lanes).map(|_| rng.random_range(0..2u64)).collect::<Vec<_>>();
    vec![
        (16, random(16), random(16)),
        (9, vec![0; 9], vec![0; 9]),
        (9, vec![1; 9], vec![1; 9]),
        (1, vec![1], vec![0]),
        (1, vec![0], vec![1]),
        (40, random(40), random(40)),
    ]
}

/// The Lut engine's cases: random, all-0, all-1 and mixed edges, few lanes.
fn lut_cases(seed: u64) -> Vec<(usize, Vec<u64>, Vec<u64>)> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let random = (0..3).map(|_| rng.random_range(0..2u64)).collect::<Vec<_>>();
    vec![
        (3, random, vec![1, 0, 1]),
        (2, vec![0; 2], vec![0; 2]),
        (2, vec![1; 2], vec![1; 2]),
    ]
}

fn y_form_matches_plaintext(n: usize, seed: u64) {
    y_form_on_engine_matches_plaintext(n, seed, YaoEngine::Bmr, &cases(seed), CHAIN);
}

fn y_form_on_engine_matches_plaintext(
    n: usize,
    seed: u64,
    y_engine: YaoEngine,
    cases: &[(usize, Vec<u64>, Vec<u64>)],
    chain: usize,
) {
    let (ao, co) = (0, n - 1);
    let want: Vec<_> = cases
        .iter()
        .map(|(lanes, a, c)| {
            let mut plain = MixedPlain::new(n).unwrap();
            program(
                &mut plain,
                (ao, Some(a.clone())),
                (co, Some(c.clone())),
                *lanes,
                chain,
            )
            .unwrap()
        })
        .collect();
    let got = run_parties(n, seed, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[seed as u8; 32], rng).unwrap();
        let mut engine = BooleanEngine::setup(mesh, &[seed as u8 + 1; 32], rng).unwrap();
        let me = mesh.me();
        let mut backend = NpartyBackend::new(&keys, &mut engine, mesh, rng)
            .with_yao_batch(7)
            .with_yao_engine(y_engine);
        let got: Vec<_> = cases
            .iter()
            .map(|(lanes, a, c)| {
                let mine = |owner: usize, v: &Vec<u64>| (owner, (me == owner).then(|| v.clone()));
                program(&mut backend, mine(ao, a), mine(co, c), *lanes, chain).unwrap()
            })
            .collect();
        let state = backend.yao_state().unwrap();
        assert_eq!(state.engine(), y_engine);
        (got, state.ands(), state.batches())
    });
    for (me, (outputs, ands, batches)) in got.into_iter().enumerate() {
        for (case, (got, want)) in outputs.iter().zip(&want).enumerate() {
            assert_eq!(got[0], want[0], "n = {n}, party {me}, case {case}");
            assert_eq!(
                got[1],
                (me == 1).then(|| want[1].clone().unwrap()),
                "n = {n}, party {me}, case {case}"
            );
            assert_eq!(got[2], want[2], "n = {n}, party {me}, case {case}");
        }
        // Per case of L lanes: L (and), L (or), L + 2 (masked), 2·chain·L (chain), 4L + 2
        // (squared).
        let expected: usize = cases.iter().map(|c| (7 + 2 * chain) * c.0 + 4).sum();
        let expected = expected as u64;
        assert_eq!(ands, expected, "n = {n}: ANDs garbled");
        assert!(
            batches >= ands / 7,
            "n = {n}: {batches} batches of at most 7 ANDs"
        );
    }
}

#[test]
fn the_y_form_between_two_parties_equals_the_plaintext_backend() {
    y_form_matches_plaintext(2, 60);
}

#[test]
fn the_y_form_among_three_parties_equals_the_plaintext_backend() {
    y_form_matches_plaintext(3, 61);
}

#[test]
fn the_y_form_among_five_parties_equals_the_plaintext_backend() {
    y_form_matches_plaintext(5, 62);
}

#[test]
fn the_lut_y_form_between_two_parties_equals_the_plaintext_backend() {
    y_form_on_engine_matches_plaintext(2, 70, YaoEngine::Lut, &lut_cases(70), LUT_CHAIN);
}

#[test]
fn the_lut_y_form_among_three_parties_equals_the_plaintext_backend() {
    y_form_on_engine_matches_plaintext(3, 71, YaoEngine::Lut, &lut_cases(71), LUT_CHAIN);
}

/// Party 2 computes one more AND than the others before leaving the Y form on
/// `y_engine`: per party, the party its `Mismatch` names (`Some`), or `None` for another
/// error.
fn diverging_program(y_engine: YaoEngine, seed: u64, bits: &[bool]) -> Vec<Result<(), Option<usize>>> {
    run_parties(3, seed, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[seed as u8; 32], rng).unwrap();
        let mut engine = BooleanEngine::setup(mesh, &[seed as u8 + 1; 32], rng).unwrap();
        let me = mesh.me();
        let mut backend = NpartyBackend::new(&keys, &mut engine, mesh, rng).with_yao_engine(y_engine);
        let bits = backend.public_bits(bits);
        let y = backend.to_yao(&bits).unwrap();
        let mut z = backend.yao_and(&y, &y).unwrap();
        if me == 2 {
            z = backend.yao_and(&z, &y).unwrap();
        }
        backend.yao_to_bool(&z).map(|_| ()).map_err(|e| {
            let inner = mixgc_mixed::program::mixed_error(&e).expect("a protocol error");
            match inner {
                mixgc_mixed::MixedError::Mesh(NpartyError::Mismatch { party, .. }) => Some(*party),
                _ => None,
            }
        })
    })
}

#[test]
fn a_program_diverging_in_y_ops_is_caught_by_the_digest_sync() {
    let got = diverging_program(YaoEngine::Bmr, 63, &[true, false, true]);
    assert_eq!(got[0], Err(Some(2)), "party 0 names party 2");
    assert_eq!(got[1], Err(Some(2)), "party 1 names party 2");
    assert!(
        matches!(got[2], Err(Some(0 | 1))),
        "party 2 names another: {:?}",
        got[2]
    );
}

#[test]
fn a_program_diverging_in_lut_y_ops_is_caught_around_the_ring() {
    let got = diverging_program(YaoEngine::Lut, 68, &[true, false]);
    // Each party compares the digest of its ring predecessor: party 0 sees party 2's, party
    // 2 party 1's; party 1 (whose predecessor agrees) stops when the others leave.
    assert_eq!(got[0], Err(Some(2)), "party 0 names party 2");
    assert_eq!(got[2], Err(Some(1)), "party 2 names party 1");
    assert!(got[1].is_err(), "party 1 stops: {:?}", got[1]);
}

/// Party 2 stops with a batch of `lanes` ANDs pending on `y_engine`; parties 0 and 1 name it.
fn a_dying_party_is_named(y_engine: YaoEngine, lanes: usize, seed: u64) {
    let got = run_parties(3, seed, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[seed as u8; 32], rng).unwrap();
        let mut engine = BooleanEngine::setup(mesh, &[seed as u8 + 1; 32], rng).unwrap();
        let me = mesh.me();
        let mut backend = NpartyBackend::new(&keys, &mut engine, mesh, rng)
            .with_yao_batch(64)
            .with_yao_engine(y_engine);
        let bits = backend.public_bits(&vec![true; lanes]);
        let y = backend.to_yao(&bits).unwrap();
        let z = backend.yao_and(&y, &y).unwrap();
        if me == 2 {
            // Party 2 stops with the batch pending (its mesh closes as its thread ends).
            return None;
        }
        let e = backend.yao_to_bool(&z).unwrap_err();
        let inner = mixgc_mixed::program::mixed_error(&e).expect("a protocol error");
        let named = (names(inner, 2), inner.party() == Some(2), e.to_string());
        // As `mixgc mixed` does on an error: tell every other party why before closing, so
        // one that is still waiting hears of party 2 rather than of this party's close.
        drop(backend);
        mesh.abort_all(&named.2);
        Some(named)
    });
    // Every survivor names party 2: directly, or by the reason a party that stopped before
    // it relayed (read by the mesh or inside an OT exchange alike); at least one directly.
    let mut direct = 0;
    for (me, r) in got.iter().take(2).enumerate() {
        let (named, about_2, message) = r.clone().unwrap();
        assert!(named, "{y_engine:?}, party {me}: {message}");
        direct += usize::from(about_2);
    }
    assert!(
        direct >= 1,
        "{y_engine:?}: no party named party 2 itself: {got:?}"
    );
}

#[test]
fn a_party_that_dies_with_a_y_batch_pending_is_named_by_every_other() {
    a_dying_party_is_named(YaoEngine::Bmr, 100, 65);
}

#[test]
fn a_party_that_dies_with_a_lut_y_batch_pending_is_named_by_every_other() {
    a_dying_party_is_named(YaoEngine::Lut, 4, 67);
}
