//! E2A and A2E (seed Figure 15) for n = 2, 3, 5 against plaintext arithmetic mod p.

mod common;

use fhe_rand::{Rng, SeedableRng};
use fhe_rand_chacha::ChaCha20Rng;
use mixgc_mixed::ops::{broadcast_ciphertext, mul_scalar};
use mixgc_mixed::{keygen, parameters, DEGREE, PLAINTEXT_MODULUS as P};
use mixgc_net::Tag;

use common::run_parties;

fn slots(rng: &mut ChaCha20Rng) -> Vec<u64> {
    let mut v = vec![0, 1, P - 1, P - 2];
    v.extend((4..DEGREE).map(|_| rng.random_range(0..P)));
    v
}

fn sum_mod_p(shares: &[Vec<u64>]) -> Vec<u64> {
    (0..DEGREE)
        .map(|i| shares.iter().map(|s| s[i]).fold(0, |a, b| (a + b) % P))
        .collect()
}

#[test]
fn e2a_gives_shares_of_the_plaintext_and_a2e_gives_it_back() {
    for n in [2, 3, 5] {
        let mut data_rng = ChaCha20Rng::seed_from_u64(100 + n as u64);
        let x = slots(&mut data_rng);
        let got = run_parties(n, 20 + n as u64, |mesh, rng| {
            let keys = keygen(mesh, &parameters(), &[3; 32], rng).unwrap();
            let par = keys.parameters().clone();
            let ct = (mesh.me() == 0).then(|| keys.encrypt(&x, rng).unwrap());
            let ct = broadcast_ciphertext(mesh, 0, ct.as_ref(), &par).unwrap();
            // E2A on a fresh ciphertext and on one after a plaintext product.
            let shares = keys.to_shares(mesh, &ct, rng).unwrap();
            let doubled = mul_scalar(&par, &ct, 2).unwrap();
            let doubled_shares = keys.to_shares(mesh, &doubled, rng).unwrap();
            // A2E of the shares, then a joint decryption of the result.
            let back = keys.from_shares(mesh, &shares, rng).unwrap();
            let opened = keys.decrypt(mesh, &back, rng).unwrap();
            (shares, doubled_shares, opened)
        });
        let shares: Vec<Vec<u64>> = got.iter().map(|g| g.0.clone()).collect();
        assert_eq!(sum_mod_p(&shares), x, "n = {n}: E2A");
        assert!(shares.iter().flatten().all(|&v| v < P));
        let doubled: Vec<Vec<u64>> = got.iter().map(|g| g.1.clone()).collect();
        let want: Vec<u64> = x.iter().map(|v| (2 * v) % P).collect();
        assert_eq!(sum_mod_p(&doubled), want, "n = {n}: E2A after a product");
        for (party, g) in got.iter().enumerate() {
            assert_eq!(g.2, x, "n = {n}, party {party}: A2E then decryption");
        }
        // No single share is the plaintext (each is masked by uniform values).
        for (party, s) in shares.iter().enumerate() {
            let agree = s.iter().zip(&x).filter(|(a, b)| a == b).count();
            assert!(
                agree <= 8,
                "n = {n}, party {party}: share matches x in {agree} slots"
            );
        }
    }
}

#[test]
fn a2e_of_edge_shares_sums_mod_p() {
    // Every party holds p − 1 in every slot: the sum wraps mod p.
    let n = 3;
    let got = run_parties(n, 30, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[4; 32], rng).unwrap();
        let ct = keys.from_shares(mesh, &vec![P - 1; DEGREE], rng).unwrap();
        keys.decrypt(mesh, &ct, rng).unwrap()
    });
    let want = vec![(n as u64 * (P - 1)) % P; DEGREE];
    assert!(got.iter().all(|v| *v == want));
}

#[test]
fn a_malformed_e2a_share_names_its_sender() {
    let got = run_parties(2, 31, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[5; 32], rng).unwrap();
        let ct = (mesh.me() == 0).then(|| keys.encrypt(&[9], rng).unwrap());
        let ct = broadcast_ciphertext(mesh, 0, ct.as_ref(), keys.parameters()).unwrap();
        if mesh.me() == 1 {
            mesh.send(0, Tag::Openings, &[0x0a, 0x01]).unwrap();
            mesh.flush().unwrap();
            return None;
        }
        Some(keys.to_shares(mesh, &ct, rng).unwrap_err())
    });
    let e = got[0].as_ref().unwrap();
    assert_eq!(e.party(), Some(1));
    assert!(
        e.to_string().starts_with("party 1 sent a malformed E2A share"),
        "{e}"
    );
}

/// The most bytes any party sent and received during `step`, over an n-party run.
fn max_traffic(n: usize, step: &str) -> (u64, u64) {
    let got = run_parties(n, 40, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[6; 32], rng).unwrap();
        let ct = keys.from_shares(mesh, &[1, 2, 3], rng).unwrap();
        let before = mesh.bytes();
        match step {
            "decrypt" => drop(keys.decrypt(mesh, &ct, rng).unwrap()),
            "e2a" => drop(keys.to_shares(mesh, &ct, rng).unwrap()),
            _ => drop(keys.from_shares(mesh, &[4], rng).unwrap()),
        }
        let after = mesh.bytes();
        let sum = |v: &[(u64, u64)], f: fn(&(u64, u64)) -> u64| v.iter().map(f).sum::<u64>();
        (
            sum(&after, |b| b.0) - sum(&before, |b| b.0),
            sum(&after, |b| b.1) - sum(&before, |b| b.1),
        )
    });
    (
        got.iter().map(|g| g.0).max().unwrap(),
        got.iter().map(|g| g.1).max().unwrap(),
    )
}

#[test]
fn per_party_traffic_does_not_grow_with_n() {
    // From n = 3 on, every step has a party in the middle of the chain (which both
    // receives and forwards); from there the per-party maximum must stay flat.
    for step in ["decrypt", "e2a", "a2e"] {
        let (sent3, received3) = max_traffic(3, step);
        let (sent6, received6) = max_traffic(6, step);
        assert!(sent3 > 0 && received3 > 0, "{step}");
        assert!(
            sent6 * 4 <= sent3 * 5,
            "{step}: sent {sent3} at n = 3, {sent6} at n = 6"
        );
        assert!(
            received6 * 4 <= received3 * 5,
            "{step}: received {received3} at n = 3, {received6} at n = 6"
        );
    }
}
