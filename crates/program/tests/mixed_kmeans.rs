//! Kmeans (seed Table 6) on the mixed program interface's plaintext and cost backends:
//! against an independent clear computation on random and edge inputs for n = 2, 3, 5, its
//! operation counts against those `docs/mixed-mode.md` states, and the two primitives it
//! added (`concat_arith`, `share_bits`) on both backends.

use mixgc_program::mixed::kmeans::{
    edge_inputs, kmeans, KmeansInput, KmeansInputs, KmeansOutput, KmeansSize, VALUE_LIMIT,
};
use mixgc_program::mixed::{MixedBackend, MixedCost, MixedCounter, MixedPlain, MixedProgramError};
use rand::{Rng, SeedableRng};

const MAX: u64 = VALUE_LIMIT - 1;

/// The answer by brute force: distances in i128, the first centroid at the minimum, the
/// means by integer division, an empty cluster keeping its centroid.
fn brute_force(centroids: &[Vec<u64>], points: &[Vec<u64>]) -> KmeansOutput {
    let k = centroids.len();
    let mut members: Vec<Vec<&Vec<u64>>> = vec![Vec::new(); k];
    for x in points {
        let mut best = (i128::MAX, 0);
        for (c, centroid) in centroids.iter().enumerate() {
            let d: i128 = centroid
                .iter()
                .zip(x)
                .map(|(&a, &b)| (a as i128 - b as i128).pow(2))
                .sum();
            if d < best.0 {
                best = (d, c);
            }
        }
        members[best.1].push(x);
    }
    let new = (0..k)
        .map(|c| match members[c].len() {
            0 => centroids[c].clone(),
            m => (0..centroids[c].len())
                .map(|e| members[c].iter().map(|x| x[e]).sum::<u64>() / m as u64)
                .collect(),
        })
        .collect();
    KmeansOutput {
        centroids: new,
        sizes: members.iter().map(|m| m.len() as u64).collect(),
    }
}

fn random(rng: &mut impl Rng, count: usize, dimension: usize, limit: u64) -> Vec<Vec<u64>> {
    (0..count)
        .map(|_| (0..dimension).map(|_| rng.gen_range(0..limit)).collect())
        .collect()
}

/// Runs Kmeans on the plaintext backend among `n` and checks it against brute force and
/// the cost backend's counts (with and without values) against [`KmeansSize::cost`].
fn check(n: usize, size: KmeansSize, centroids: &[Vec<u64>], points: &[Vec<u64>]) -> KmeansOutput {
    let inputs = KmeansInputs::clear(n, size, centroids, points).unwrap();
    let got = kmeans(&mut MixedPlain::new(n).unwrap(), &inputs)
        .unwrap()
        .unwrap();
    assert_eq!(got, brute_force(centroids, points), "n = {n}, {size:?}");
    for inputs in [inputs, KmeansInputs::none(n, size).unwrap()] {
        let mut counter = MixedCounter::new(n).unwrap();
        assert_eq!(kmeans(&mut counter, &inputs).unwrap(), None);
        let counted = MixedCost {
            rounds: 0,
            ..counter.cost()
        };
        assert_eq!(counted, size.cost(), "n = {n}, {size:?}");
    }
    got
}

#[test]
fn kmeans_on_the_plaintext_backend_equals_brute_force_on_random_inputs() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    for n in [2, 3, 5] {
        let size = KmeansSize::DEFAULT;
        let centroids = random(&mut rng, size.clusters, size.dimension, VALUE_LIMIT);
        let points = random(&mut rng, size.points, size.dimension, VALUE_LIMIT);
        check(n, size, &centroids, &points);
        // Narrow values: many ties between centroids and many equal points.
        let size = KmeansSize {
            points: 40,
            clusters: 5,
            dimension: 3,
        };
        let centroids = random(&mut rng, size.clusters, size.dimension, 4);
        let points = random(&mut rng, size.points, size.dimension, 4);
        check(n, size, &centroids, &points);
    }
}

#[test]
fn kmeans_on_the_plaintext_backend_at_edge_inputs() {
    // Repeated centroids (ties to the lower, an empty cluster keeping its centroid), 0 and
    // the largest value; every other point (MAX, 0), a tie between centroids 0 and 1.
    let mut coordinate = [MAX, 0].into_iter().cycle();
    let (size, centroids, points) = edge_inputs::empty_cluster_and_ties(|| coordinate.next().unwrap());
    let out = check(2, size, &centroids, &points);
    assert_eq!(out.sizes[2], 0);
    assert_eq!(out.centroids[2], [0, 0]);
    // Every point the largest: one cluster of all (the largest sum), the others kept.
    let (size, centroids, points) = edge_inputs::every_point_largest();
    let out = check(3, size, &centroids, &points);
    assert_eq!(out.sizes, [0, 0, 0, 16]);
    // The largest size: MAX_POINTS-sized sums fit, k = 1 gives the mean of all.
    let size = KmeansSize {
        points: 4096,
        clusters: 1,
        dimension: 4,
    };
    let out = check(5, size, &[vec![5; 4]], &vec![vec![MAX, 0, 1, MAX]; 4096]);
    assert_eq!(out.centroids, [vec![MAX, 0, 1, MAX]]);
    // Fewer points than parties: party 4 holds none; one value, one cluster.
    let size = KmeansSize {
        points: 3,
        clusters: 2,
        dimension: 1,
    };
    check(
        5,
        size,
        &[vec![MAX], vec![0]],
        &[vec![1], vec![MAX], vec![MAX / 2]],
    );
}

#[test]
fn kmeans_costs_what_the_docs_state_whatever_n() {
    for n in [2, 3, 16, 257] {
        let mut counter = MixedCounter::new(n).unwrap();
        let inputs = KmeansInputs::none(n, KmeansSize::DEFAULT).unwrap();
        kmeans(&mut counter, &inputs).unwrap();
        let c = counter.cost();
        assert_eq!(
            (c.and, c.a2b_and, c.mult, c.b2a, c.a2b, c.e2a, c.a2e, c.arith_mul),
            (55_920, 98_420, 4096, 1024, 1036, 2, 1, 0),
            "n = {n}"
        );
        assert_eq!(c.stocked_ands, c.and);
    }
}

#[test]
fn kmeans_inputs_are_checked_before_the_run() {
    let size = KmeansSize::DEFAULT;
    let mut inputs = KmeansInputs::none(3, size).unwrap();
    let e = inputs
        .set(0, KmeansInput::Centroids(vec![vec![1, 2]; 3]))
        .unwrap_err();
    assert!(e.to_string().contains("holds 4 centroids, not 3"), "{e}");
    let e = inputs
        .set(1, KmeansInput::Points(vec![vec![1, 2]; 2]))
        .unwrap_err();
    assert!(e.to_string().contains("holds 128 points, not 2"), "{e}");
    // A missing party's input: the plaintext backend names it.
    inputs
        .set(0, KmeansInput::Centroids(vec![vec![1, 2]; 4]))
        .unwrap();
    let e = kmeans(&mut MixedPlain::new(3).unwrap(), &inputs).unwrap_err();
    assert!(matches!(e, MixedProgramError::MissingInput { owner: 1 }), "{e}");
    // Inputs for another n than the backend's.
    let e = kmeans(&mut MixedPlain::new(4).unwrap(), &inputs).unwrap_err();
    assert!(e.to_string().contains("3 parties on a backend of 4"), "{e}");
    let big = KmeansSize {
        points: 4096,
        clusters: 4,
        dimension: 2,
    };
    assert!(KmeansInputs::none(3, big)
        .unwrap_err()
        .to_string()
        .contains("32768 slots"));
}

#[test]
fn concat_arith_and_share_bits_on_the_plaintext_and_cost_backends() {
    let mut plain = MixedPlain::new(3).unwrap();
    let a = plain.public_arith(&[1, 2]).unwrap();
    let b = plain.public_arith(&[0, u64::from(u32::MAX) >> 2]).unwrap();
    assert_eq!(
        plain.concat_arith(&[a, b.clone(), b]),
        [1, 2, 0, (1 << 30) - 1, 0, (1 << 30) - 1]
    );
    let v = plain.private(2, 3, Some(vec![0, 5, 7])).unwrap();
    assert_eq!(
        plain.share_bits(&v, 3).unwrap(),
        [
            vec![false, true, true],
            vec![false, false, true],
            vec![false, true, true]
        ]
    );
    let e = plain.share_bits(&v, 2).unwrap_err();
    assert!(e.to_string().contains("value 1 is 5, not below 2^2"), "{e}");
    let all_ones = plain.private(0, 1, Some(vec![(1 << 32) - (1 << 30)])).unwrap();
    assert_eq!(plain.share_bits(&all_ones, 32).unwrap().len(), 32);
    assert!(plain.share_bits(&all_ones, 33).is_err());
    let mut counter = MixedCounter::new(3).unwrap();
    let x = counter.public_arith(&[1, 2, 3]).unwrap();
    assert_eq!(counter.concat_arith(&[x, x]).0, 6);
    let unknown = counter.private(1, 4, None).unwrap();
    let rows = counter.share_bits(&unknown, 14).unwrap();
    assert_eq!((rows.len(), rows[0].0), (14, 4));
    assert_eq!(counter.cost(), MixedCost::default());
}
