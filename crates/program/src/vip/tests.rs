use super::*;
use crate::Plain;
use rand::{Rng, SeedableRng};

/// The program on the plaintext backend, both parties' words known.
fn plain(w: Workload, g: &[u32], e: &[u32]) -> Vec<u32> {
    let ctx = Ctx::new(Plain::default());
    w.program(&ctx, Some(g), Some(e))
        .expect("the program runs")
        .expect("plaintext learns the output")
}

/// Edge values of int32 (and their patterns as uint32).
const EDGES: [u32; 8] = [
    0x8000_0000, // INT32_MIN
    0xFFFF_FFFF, // −1
    0,
    1,
    0x7FFF_FFFF, // INT32_MAX
    0x8000_0001,
    0xFFFF_FFFE,
    0x0001_0000,
];

fn random_words(rng: &mut impl Rng, n: usize) -> Vec<u32> {
    (0..n).map(|_| rng.gen()).collect()
}

fn edge_words(n: usize, offset: usize) -> Vec<u32> {
    (0..n).map(|i| EDGES[(i + offset) % EDGES.len()]).collect()
}

/// Small values (a few bits), where sorting ties and sums without wrap-around are common.
fn small_words(rng: &mut impl Rng, n: usize) -> Vec<u32> {
    (0..n).map(|_| rng.gen_range(-4i32..=4) as u32).collect()
}

fn check(w: Workload, g: &[u32], e: &[u32]) {
    let expected = w.model(g, e).expect("lengths are right");
    assert_eq!(expected.len(), w.output_words());
    assert_eq!(plain(w, g, e), expected, "{}", w.name());
}

fn check_random_and_edges(w: Workload, rounds: usize) {
    let mut rng = rand_chacha_like(w);
    let (gn, en) = (w.garbler_words(), w.evaluator_words());
    for _ in 0..rounds {
        check(w, &random_words(&mut rng, gn), &random_words(&mut rng, en));
        check(w, &small_words(&mut rng, gn), &small_words(&mut rng, en));
    }
    check(w, &edge_words(gn, 0), &edge_words(en, 3));
    check(w, &vec![0x8000_0000; gn], &vec![0x8000_0000; en]);
    check(w, &vec![u32::MAX; gn], &vec![u32::MAX; en]);
    check(w, &vec![0; gn], &vec![0; en]);
}

fn rand_chacha_like(w: Workload) -> rand::rngs::StdRng {
    rand::rngs::StdRng::seed_from_u64(0x5649_5000 + w as u64)
}

#[test]
fn dotprod_matches_model() {
    check_random_and_edges(Workload::DotProd, 3);
}

#[test]
fn matmult_matches_model() {
    check_random_and_edges(Workload::MatMult, 3);
}

#[test]
fn relu_matches_model() {
    check_random_and_edges(Workload::Relu, 3);
}

#[test]
fn hamm_matches_model() {
    check_random_and_edges(Workload::Hamm, 2);
    // All bits differ: the count is the full 40,960.
    let n = Workload::Hamm.garbler_words();
    assert_eq!(
        plain(Workload::Hamm, &vec![0; n], &vec![u32::MAX; n]),
        vec![HAMM_BITS as u32]
    );
}

#[test]
fn triangle_matches_model() {
    check_random_and_edges(Workload::Triangle, 2);
    // A real graph: the complete graph K13 has C(13, 3) = 286 triangles.
    let adjacency: Vec<u32> = (0..169).map(|ij| (ij / 13 != ij % 13) as u32).collect();
    assert_eq!(
        plain(Workload::Triangle, &adjacency[..91], &adjacency[91..]),
        vec![286]
    );
    // A negative trace divides toward zero: −7 / 6 = −1, not −2.
    let mut a = vec![0u32; 169];
    a[0] = (-7i32) as u32; // trace(A³) = (−7)³ = −343, / 6 = −57
    assert_eq!(
        plain(Workload::Triangle, &a[..91], &a[91..]),
        vec![(-57i32) as u32]
    );
}

#[test]
fn bubbst_matches_model() {
    check_random_and_edges(Workload::BubbSt, 1);
}

#[test]
fn merse_matches_reference_outputs_and_model() {
    // The reference outputs of seed 42 (1998 sgenrand, reference genrand).
    assert_eq!(
        model::mersenne(42, 3),
        vec![4_179_544_424, 615_236_124, 4_165_290_828]
    );
    let out = plain(Workload::Merse, &[42], &[]);
    assert_eq!(&out[..3], &[4_179_544_424, 615_236_124, 4_165_290_828]);
    let mut rng = rand_chacha_like(Workload::Merse);
    for seed in [0, 1, u32::MAX, 0x8000_0000, 4357, rng.gen(), rng.gen()] {
        check(Workload::Merse, &[seed], &[]);
    }
}

#[test]
fn and_counts_are_at_most_haac_table_2() {
    for w in Workload::ALL {
        let cost = w.cost().expect("counts");
        assert!(
            cost.ands <= w.haac().ands(),
            "{}: {} ANDs, HAAC Table 2 {}",
            w.name(),
            cost.ands,
            w.haac().ands()
        );
    }
}

#[test]
fn and_counts_are_pinned() {
    // The AND counts the module's docs derive: bubbst 32,640 compare-exchanges × 64;
    // relu 2,048 × 31; hamm n − H(n) (popcount); dotprod and matmult 680 a product, 31 a sum.
    assert_eq!(Workload::BubbSt.cost().unwrap().ands, 32_640 * 64);
    assert_eq!(Workload::Relu.cost().unwrap().ands, 2_048 * 31);
    assert_eq!(
        Workload::Hamm.cost().unwrap().ands,
        HAMM_BITS as u64 - HAMM_BITS.count_ones() as u64
    );
    assert_eq!(Workload::DotProd.cost().unwrap().ands, 128 * 680 + 127 * 31);
    assert_eq!(Workload::MatMult.cost().unwrap().ands, 64 * (8 * 680 + 7 * 31));
}

#[test]
fn wrong_input_lengths_are_named() {
    let ctx = Ctx::new(Plain::default());
    let err = Workload::DotProd
        .program(&ctx, Some(&[1, 2, 3]), Some(&[0; 128]))
        .unwrap_err();
    assert_eq!(
        err,
        VipError::InputWords {
            workload: "dotprod",
            owner: PartyId::GARBLER,
            expected: 128,
            got: 3
        }
    );
    assert!(err.to_string().contains("garbler"), "{err}");
    assert!(Workload::Merse.model(&[1], &[2]).is_err());
    assert!(matches!(
        Workload::from_name("nope"),
        Err(VipError::UnknownWorkload(_))
    ));
    for w in Workload::ALL {
        assert_eq!(Workload::from_name(w.name()), Ok(w));
    }
}

#[test]
fn graddesc_matches_model() {
    let w = Workload::GradDesc;
    let mut rng = rand_chacha_like(w);
    let f = |v: f32| v.to_bits();
    // A line with noise: the descent converges slowly (L = 0.001) toward w = 3, b = 2.
    for _ in 0..3 {
        let x: Vec<f32> = (0..8).map(|_| rng.gen_range(-10.0f32..10.0)).collect();
        let y: Vec<u32> = x
            .iter()
            .map(|&x| f(3.0 * x + 2.0 + rng.gen_range(-0.5f32..0.5)))
            .collect();
        let x: Vec<u32> = x.into_iter().map(f).collect();
        check(w, &y, &x);
    }
    // Random bit patterns (huge, tiny, NaN, infinite values) and edges: ±0, subnormals,
    // ±∞, NaN, the largest finite value (overflow to ∞ and ∞ − ∞ = NaN on the way).
    for _ in 0..2 {
        check(w, &random_words(&mut rng, 8), &random_words(&mut rng, 8));
    }
    let edges = [
        0x0000_0000,
        0x8000_0000,
        0x0000_0001,
        0x807F_FFFF,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0x7F7F_FFFF,
        0x3F80_0000,
        0x0080_0000,
    ];
    for shift in 0..3 {
        let y: Vec<u32> = (0..8).map(|i| edges[(i + shift) % edges.len()]).collect();
        let x: Vec<u32> = (0..8).map(|i| edges[(i * 3 + shift + 1) % edges.len()]).collect();
        check(w, &y, &x);
    }
    // Subnormal data only: results stay in the subnormal range.
    let tiny: Vec<u32> = (1..=8).collect();
    check(w, &tiny, &tiny);
    // A NaN result is the canonical quiet NaN.
    let out = plain(w, &[0x7FC0_0001; 8], &[f(1.0); 8]);
    assert_eq!(out, vec![0x7FC0_0000, 0x7FC0_0000]);
}
