//! Kmeans (seed Table 6, one iteration; `mixgc_program::mixed::kmeans`) on the n-party
//! backend among n = 2, 3 parties in threads, equal to the plaintext backend and the clear
//! model on random and edge inputs; the primitives Kmeans added (`concat_arith`,
//! `share_bits`) against the plaintext backend.

mod common;

use fhe_rand::{Rng, SeedableRng};
use fhe_rand_chacha::ChaCha20Rng;
use mixgc_mixed::a2b::BooleanEngine;
use mixgc_mixed::program::NpartyBackend;
use mixgc_mixed::{keygen, parameters};
use mixgc_program::mixed::kmeans::{
    edge_inputs, kmeans, plaintext, KmeansInput, KmeansInputs, KmeansSize, VALUE_LIMIT,
};
use mixgc_program::mixed::{MixedBackend, MixedPlain, Recipient};

use common::run_parties;

/// Random centroids and points of `size`.
fn random_inputs(size: &KmeansSize, seed: u64) -> (Vec<Vec<u64>>, Vec<Vec<u64>>) {
    let mut data = ChaCha20Rng::seed_from_u64(seed);
    let mut draw = |count: usize| -> Vec<Vec<u64>> {
        (0..count)
            .map(|_| {
                (0..size.dimension)
                    .map(|_| data.random_range(0..VALUE_LIMIT))
                    .collect()
            })
            .collect()
    };
    let centroids = draw(size.clusters);
    (centroids, draw(size.points))
}

/// Runs Kmeans among `n` parties in threads and on the plaintext backend; checks both
/// against the clear model and that only party 0 learns the result.
fn check(n: usize, size: KmeansSize, centroids: &[Vec<u64>], points: &[Vec<u64>], seed: u64) {
    let expected = plaintext(centroids, points);
    let all = KmeansInputs::clear(n, size, centroids, points).unwrap();
    let plain = kmeans(&mut MixedPlain::new(n).unwrap(), &all).unwrap();
    assert_eq!(
        plain.as_ref(),
        Some(&expected),
        "plaintext backend, n = {n}, {size:?}"
    );
    let got = run_parties(n, seed, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[40; 32], rng).unwrap();
        let mut engine = BooleanEngine::setup(mesh, &[41; 32], rng).unwrap();
        let me = mesh.me();
        let input = match me {
            0 => KmeansInput::Centroids(centroids.to_vec()),
            i => KmeansInput::Points(size.points_of(i, n).iter().map(|&j| points[j].clone()).collect()),
        };
        let mine = KmeansInputs::party(n, size, me, input).unwrap();
        let mut backend = NpartyBackend::new(&keys, &mut engine, mesh, rng);
        kmeans(&mut backend, &mine).unwrap()
    });
    assert_eq!(got[0], plain, "n-party backend, n = {n}, {size:?}");
    assert!(got[1..].iter().all(Option::is_none), "only party 0 learns it");
}

#[test]
fn two_parties_on_edge_values_an_empty_cluster_and_ties() {
    let mut data = ChaCha20Rng::seed_from_u64(1);
    let (size, centroids, points) = edge_inputs::empty_cluster_and_ties(|| data.random_range(0..VALUE_LIMIT));
    let expected = plaintext(&centroids, &points);
    assert_eq!(expected.sizes[2], 0);
    assert_eq!(expected.centroids[2], [0, 0]);
    check(2, size, &centroids, &points, 500);
}

#[test]
fn three_parties_on_the_default_size_with_random_inputs() {
    let size = KmeansSize::DEFAULT;
    let (centroids, points) = random_inputs(&size, 2);
    check(3, size, &centroids, &points, 501);
}

#[test]
fn three_parties_with_every_point_in_one_cluster_of_largest_values() {
    let (size, centroids, points) = edge_inputs::every_point_largest();
    assert_eq!(plaintext(&centroids, &points).sizes, [0, 0, 0, 16]);
    check(3, size, &centroids, &points, 502);
}

/// What the primitives program opens: the concatenation and the shared bits.
type Opened = (Option<Vec<u64>>, Option<Vec<bool>>);

#[test]
fn concat_arith_and_share_bits_equal_the_plaintext_backend() {
    let n = 3;
    let values = vec![0u64, 1, (1 << 14) - 1, 5];
    fn program<B: MixedBackend>(b: &mut B, values: &[u64], me: Option<usize>) -> Opened {
        let known = |owner: usize| (me.is_none() || me == Some(owner)).then(|| values.to_vec());
        let a = b.private(1, values.len(), known(1)).unwrap();
        let a = b.share(&a).unwrap();
        let c = b.public_arith(&[7, 8]).unwrap();
        let both = b.concat_arith(&[a, c]);
        let opened = b.output_arith(&both, Recipient::All).unwrap();
        let v = b.private(2, values.len(), known(2)).unwrap();
        let rows = b.share_bits(&v, 14).unwrap();
        let all = b.concat(&rows);
        (opened, b.output_bool(&all, Recipient::Party(0)).unwrap())
    }
    let want = program(&mut MixedPlain::new(n).unwrap(), &values, None);
    let got = run_parties(n, 520, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[42; 32], rng).unwrap();
        let mut engine = BooleanEngine::setup(mesh, &[43; 32], rng).unwrap();
        let me = mesh.me();
        program(
            &mut NpartyBackend::new(&keys, &mut engine, mesh, rng),
            &values,
            Some(me),
        )
    });
    assert_eq!(got[0], want);
    assert_eq!(got[1].0, want.0);
    assert_eq!(got[2], (want.0.clone(), None));
}
