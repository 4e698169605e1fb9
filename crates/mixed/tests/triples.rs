//! Arithmetic triples from threshold HE (seed §3.3) for n = 2, 3, 5, A2B split into its
//! offline and online phases and stocked Boolean triples, all against plaintext (Biomatch
//! runs through the program interface: `tests/program.rs`).

mod common;

use fhe_rand::{Rng, SeedableRng};
use fhe_rand_chacha::ChaCha20Rng;
use mixgc_mixed::a2b::{a2b_online, a2b_preprocess, BooleanEngine, ANDS_PER_A2B};
use mixgc_mixed::{keygen, parameters, PLAINTEXT_MODULUS as P};

use common::run_parties;

#[test]
fn arithmetic_triples_multiply_mod_p() {
    for n in [2, 3, 5] {
        let got = run_parties(n, 300 + n as u64, |mesh, rng| {
            let keys = keygen(mesh, &parameters(), &[30; 32], rng).unwrap();
            keys.arithmetic_triples(mesh, 100, rng).unwrap()
        });
        let sum = |f: fn(&mixgc_mixed::triples::ArithTriples) -> &Vec<u64>, i: usize| {
            got.iter().fold(0, |acc, t| (acc + f(t)[i]) % P)
        };
        for i in 0..100 {
            let (a, b, c) = (sum(|t| &t.a, i), sum(|t| &t.b, i), sum(|t| &t.c, i));
            assert_eq!(c, a * b % P, "n = {n}, triple {i}");
        }
        // No party's share of c is the product itself (the shares are masked).
        let first = (sum(|t| &t.a, 0), sum(|t| &t.b, 0));
        assert!(got.iter().all(|t| t.c[0] != first.0 * first.1 % P));
        assert!(got.iter().all(|t| t.a.len() == 100 && t.c.len() == 100));
    }
}

#[test]
fn a2b_offline_then_online_uses_the_stocked_triples() {
    let n = 3;
    let x = [0, 1, P - 1, 12345, (1 << 31) - 1];
    let mut data = ChaCha20Rng::seed_from_u64(9);
    let s1: Vec<u64> = x.iter().map(|_| data.random_range(0..P)).collect();
    let s2: Vec<u64> = x.iter().map(|_| data.random_range(0..P)).collect();
    let s0: Vec<u64> = (0..x.len()).map(|i| (x[i] + 2 * P - s1[i] - s2[i]) % P).collect();
    let shares = [s0, s1, s2];
    let got = run_parties(n, 310, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[31; 32], rng).unwrap();
        let mut engine = BooleanEngine::setup(mesh, &[32; 32], rng).unwrap();
        let prep = a2b_preprocess(&keys, &mut engine, mesh, x.len(), rng).unwrap();
        assert_eq!(engine.stocked(), ANDS_PER_A2B * x.len());
        let before = mesh.bytes();
        let out = a2b_online(&mut engine, mesh, prep, &shares[mesh.me()]).unwrap();
        assert_eq!(engine.stocked(), 0, "the online phase used the stock");
        let online: u64 = mesh.bytes().iter().zip(&before).map(|(a, b)| a.0 - b.0).sum();
        // Online: the opening of x − r and 97 AND openings per value, a few bytes each.
        assert!(online < 4000, "{online} bytes online");
        let wrong = a2b_preprocess(&keys, &mut engine, mesh, 2, rng).unwrap();
        let e = a2b_online(&mut engine, mesh, wrong, &shares[mesh.me()]).unwrap_err();
        assert!(e.to_string().contains("preprocessing for 2"), "{e}");
        out
    });
    let xored: Vec<u64> = (0..x.len())
        .map(|i| got.iter().fold(0, |a, g| a ^ g[i]))
        .collect();
    assert_eq!(xored, x);
}
