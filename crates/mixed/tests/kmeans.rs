//! Kmeans (seed Table 6, one iteration) among n = 2, 3, 5 parties in threads against the
//! plaintext model, on random and edge inputs, with the operations each party ran checked
//! against `KmeansSize::cost`.

mod common;

use fhe_rand::{Rng, SeedableRng};
use fhe_rand_chacha::ChaCha20Rng;
use mixgc_mixed::a2b::BooleanEngine;
use mixgc_mixed::kmeans::{kmeans_counted, plaintext, KmeansInput, KmeansSize, VALUE_LIMIT};
use mixgc_mixed::{keygen, parameters};

use common::run_parties;

const MAX: u64 = VALUE_LIMIT - 1;

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

/// Runs Kmeans among `n` parties on these inputs and checks party 0's output against the
/// plaintext model, the others' against nothing, and every party's operation counts
/// against the size's cost.
fn check(n: usize, size: KmeansSize, centroids: &[Vec<u64>], points: &[Vec<u64>], seed: u64) {
    let expected = plaintext(centroids, points);
    let got = run_parties(n, seed, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[40; 32], rng).unwrap();
        let mut engine = BooleanEngine::setup(mesh, &[41; 32], rng).unwrap();
        let input = match mesh.me() {
            0 => KmeansInput::Centroids(centroids.to_vec()),
            i => KmeansInput::Points(size.points_of(i, n).iter().map(|&j| points[j].clone()).collect()),
        };
        kmeans_counted(&keys, &mut engine, mesh, &size, &input, rng).unwrap()
    });
    assert_eq!(got[0].0.as_ref(), Some(&expected), "n = {n}, {size:?}");
    assert!(got[1..].iter().all(|(o, _)| o.is_none()));
    let want = size.cost();
    for (i, (_, cost)) in got.iter().enumerate() {
        assert_eq!(
            (cost.and, cost.a2b, cost.b2a, cost.a2b_and),
            (want.and, want.a2b, want.b2a, want.a2b_and),
            "party {i}"
        );
    }
    assert_eq!(got.iter().map(|(_, c)| c.mult).sum::<usize>(), want.mult);
}

#[test]
fn two_parties_on_edge_values_an_empty_cluster_and_ties() {
    let size = KmeansSize {
        points: 12,
        clusters: 3,
        dimension: 2,
    };
    // Centroid 2 repeats centroid 0, so ties send every point of theirs to 0 and cluster
    // 2 stays empty (its centroid kept); (MAX, 0) is as near to 0 as to 1.
    let centroids = vec![vec![0, 0], vec![MAX, MAX], vec![0, 0]];
    let (_, mut points) = random_inputs(&size, 1);
    points[0] = vec![0, 0];
    points[1] = vec![MAX, MAX];
    points[2] = vec![MAX, 0];
    points[3] = vec![0, MAX];
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
    let size = KmeansSize {
        points: 16,
        clusters: 4,
        dimension: 3,
    };
    // Every point is MAX everywhere: one cluster holds all 16 (the largest sum, 16·MAX),
    // the others stay where they were.
    let centroids = vec![
        vec![0, 0, 0],
        vec![1, 2, 3],
        vec![MAX, MAX, MAX - 1],
        vec![MAX; 3],
    ];
    let points = vec![vec![MAX; 3]; 16];
    assert_eq!(plaintext(&centroids, &points).sizes, [0, 0, 0, 16]);
    check(3, size, &centroids, &points, 502);
}

#[test]
fn five_parties_where_one_holds_no_points() {
    // Three points over parties 1..4: party 4 holds none.
    let size = KmeansSize {
        points: 3,
        clusters: 2,
        dimension: 3,
    };
    assert!(size.points_of(4, 5).is_empty());
    let (centroids, points) = random_inputs(&size, 3);
    check(5, size, &centroids, &points, 503);
    // One cluster, one value: the mean of all points.
    let size = KmeansSize {
        points: 7,
        clusters: 1,
        dimension: 1,
    };
    let (centroids, points) = random_inputs(&size, 4);
    check(5, size, &centroids, &points, 504);
}
