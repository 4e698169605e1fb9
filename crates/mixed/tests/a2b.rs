//! A2B (seed Figure 10) for n = 2, 3, 5 against plaintext, and back through B2A.

mod common;

use std::time::Instant;

use fhe_rand::{Rng, SeedableRng};
use fhe_rand_chacha::ChaCha20Rng;
use mixgc_mixed::a2b::{a2b, candidates_for, BooleanEngine, ANDS_PER_A2B};
use mixgc_mixed::b2a::b2a;
use mixgc_mixed::{keygen, parameters, DEGREE, PLAINTEXT_MODULUS as P};
use mixgc_nparty::Mesh;

use common::run_parties;

/// Random additive shares mod p of `x` for n parties.
fn additive(rng: &mut ChaCha20Rng, x: &[u64], n: usize) -> Vec<Vec<u64>> {
    let mut s: Vec<Vec<u64>> = (1..n)
        .map(|_| x.iter().map(|_| rng.random_range(0..P)).collect())
        .collect();
    let first = x
        .iter()
        .enumerate()
        .map(|(i, v)| (v + s.iter().map(|t| P - t[i]).sum::<u64>()) % P)
        .collect();
    s.insert(0, first);
    s
}

#[test]
fn a2b_gives_xor_shares_of_the_value_and_b2a_brings_it_back() {
    for n in [2, 3, 5] {
        let mut data = ChaCha20Rng::seed_from_u64(200 + n as u64);
        let mut x = vec![
            0,
            1,
            2,
            P - 1,
            P - 2,
            1 << 30,
            (1 << 31) + (1 << 30),
            (1 << 31) - 1,
        ];
        x.extend((0..92).map(|_| data.random_range(0..P)));
        let shares = additive(&mut data, &x, n);
        let got = run_parties(n, 210 + n as u64, |mesh, rng| {
            let keys = keygen(mesh, &parameters(), &[20; 32], rng).unwrap();
            let mut engine = BooleanEngine::setup(mesh, &[21; 32], rng).unwrap();
            let boolean = a2b(&keys, &mut engine, mesh, &shares[mesh.me()], rng).unwrap();
            let back = b2a(&keys, mesh, &boolean, 32, rng).unwrap();
            (boolean, back)
        });
        let xored: Vec<u64> = (0..x.len())
            .map(|i| got.iter().fold(0, |a, g| a ^ g.0[i]))
            .collect();
        assert_eq!(xored, x, "n = {n}: A2B");
        let summed: Vec<u64> = (0..x.len())
            .map(|i| got.iter().fold(0, |a, g| (a + g.1[i]) % P))
            .collect();
        assert_eq!(summed, x, "n = {n}: B2A after A2B");
        assert!(got.iter().all(|g| g.0.iter().all(|&v| v >> 32 == 0)));
    }
}

#[test]
fn a2b_refuses_a_share_not_below_p() {
    let got = run_parties(2, 220, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[22; 32], rng).unwrap();
        let mut engine = BooleanEngine::setup(mesh, &[23; 32], rng).unwrap();
        a2b(&keys, &mut engine, mesh, &[1, P], rng)
            .unwrap_err()
            .to_string()
    });
    assert!(
        got[0].contains("A2B share 1 is 3221225473, not below p"),
        "{}",
        got[0]
    );
}

/// Per party (max sent, max received) bytes and the slowest party's seconds, per
/// conversion, of an A2B of `k` values (the OT setup excluded).
fn a2b_traffic(n: usize, k: usize) -> (f64, f64, f64) {
    let got = run_parties(n, 230, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[24; 32], rng).unwrap();
        let mut engine = BooleanEngine::setup(mesh, &[25; 32], rng).unwrap();
        // Once per session, like the OT setup.
        keys.prepare_products(mesh, rng).unwrap();
        let shares: Vec<u64> = (0..k).map(|_| rng.random_range(0..P)).collect();
        let total = |mesh: &Mesh| {
            let b = mesh.bytes();
            (
                b.iter().map(|x| x.0).sum::<u64>(),
                b.iter().map(|x| x.1).sum::<u64>(),
            )
        };
        let (before, t) = (total(mesh), Instant::now());
        a2b(&keys, &mut engine, mesh, &shares, rng).unwrap();
        let after = total(mesh);
        (after.0 - before.0, after.1 - before.1, t.elapsed().as_secs_f64())
    });
    let per = k as f64;
    (
        got.iter().map(|g| g.0).max().unwrap() as f64 / per,
        got.iter().map(|g| g.1).max().unwrap() as f64 / per,
        got.iter().map(|g| g.2).fold(0.0, f64::max) / per,
    )
}

/// Bytes per slot of a polynomial (N × 438 bits) and of one switched down to the switched
/// E2A's three 48-bit primes.
const POLY: f64 = 438.0 / 8.0;
const LOW_POLY: f64 = 3.0 * 48.0 / 8.0;

/// The design's bound on the bytes any party sends or receives per A2B of `k` values,
/// whatever n ≤ 16: B2A of 32 bits of r (a sum polynomial and two switched polynomials a
/// bit, one packed bit online), the HE triples in batches of N (four polynomials, four
/// switched ones and 4 bytes a triple, `bool_triples`), and 100 B for the online openings
/// (x − r and the ANDs' d, e bits along the chain).
fn bytes_bound(k: usize) -> f64 {
    let triples = 31 * candidates_for(k) + ANDS_PER_A2B * k;
    let slots = triples.div_ceil(DEGREE) * DEGREE;
    32.0 * (POLY + 2.0 * LOW_POLY + 1.0)
        + slots as f64 / k as f64 * (4.0 * POLY + 4.0 * LOW_POLY + 4.0)
        + 100.0
}

/// Measures A2B at n = 2 and at every n of `others`: each within the design's bound, and its
/// most bytes sent or received within 1.25× n = 2's (the linear-scaling target).
fn check_constant_per_party(others: &[usize]) {
    // 512 values: their r fill one batch of N = 16384 B2A slots.
    let k = 512;
    let mut two = 0.0;
    for n in std::iter::once(2).chain(others.iter().copied()) {
        let (sent, received, secs) = a2b_traffic(n, k);
        println!(
            "a2b n = {n}: sent max {sent:.1} B, received max {received:.1} B, {:.3} ms per conversion",
            secs * 1e3
        );
        let bound = bytes_bound(k);
        assert!(
            sent > 0.0 && sent <= bound && received <= bound,
            "n = {n}: {sent}, {received} > {bound}"
        );
        let most = sent.max(received);
        if n == 2 {
            two = most;
        } else {
            println!("a2b n = {n}: {:.3} × n = 2", most / two);
            assert!(most <= 1.25 * two, "n = {n}: {most} > 1.25 × {two}");
        }
    }
}

#[test]
fn a2b_bytes_per_party_per_conversion() {
    check_constant_per_party(&[3, 5]);
}

/// The same at 8 and 16 parties (slow on two cores: `--ignored --nocapture`).
#[test]
#[ignore]
fn a2b_bytes_per_party_per_conversion_at_8_and_16_parties() {
    check_constant_per_party(&[8, 16]);
}
