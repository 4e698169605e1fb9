//! The n-party mixed program interface (`mixgc_program::mixed`) on its plaintext and cost
//! backends: Biomatch against an independent clear computation on random and edge inputs,
//! its operation counts against those `docs/mixed-mode.md` states, and every primitive's
//! clear semantics and errors.

use mixgc_program::mixed::biomatch::{
    biomatch, tournament_ands, vectors_of, BiomatchInput, BiomatchInputs, BiomatchOutput, Vector,
    VALUE_LIMIT, VECTORS,
};
use mixgc_program::mixed::{
    MixedBackend, MixedCost, MixedCounter, MixedPlain, MixedProgramError, PrivateTerm, Recipient, Shape,
    PLAINTEXT_MODULUS as P, SLOTS,
};
use rand::{Rng, SeedableRng};

/// The answer by brute force: every distance in i128, the first index at the minimum.
fn brute_force(query: &Vector, database: &[Vector]) -> BiomatchOutput {
    let mut best = (i128::MAX, 0);
    for (j, x) in database.iter().enumerate() {
        let d: i128 = (0..4).map(|k| (query[k] as i128 - x[k] as i128).pow(2)).sum();
        if d < best.0 {
            best = (d, j);
        }
    }
    BiomatchOutput {
        distance: best.0 as u64,
        index: best.1,
    }
}

fn run_plain(n: usize, query: Vector, database: &[Vector]) -> BiomatchOutput {
    let inputs = BiomatchInputs::clear(n, query, database).unwrap();
    biomatch(&mut MixedPlain::new(n).unwrap(), &inputs)
        .unwrap()
        .unwrap()
}

#[test]
fn biomatch_on_the_plaintext_backend_equals_brute_force_on_random_inputs() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(18);
    for (round, n) in [2, 3, 5, 16, 2, 3].into_iter().enumerate() {
        // Narrow ranges in later rounds make ties at the minimum likely.
        let limit = if round < 3 { VALUE_LIMIT } else { 3 };
        let mut draw = || -> Vector { std::array::from_fn(|_| rng.gen_range(0..limit)) };
        let query = draw();
        let database: Vec<Vector> = (0..VECTORS).map(|_| draw()).collect();
        assert_eq!(
            run_plain(n, query, &database),
            brute_force(&query, &database),
            "n = {n}"
        );
    }
}

#[test]
fn biomatch_on_the_plaintext_backend_at_edge_inputs() {
    let max = VALUE_LIMIT - 1;
    // Every vector at the same distance: index 0.
    assert_eq!(
        run_plain(3, [0; 4], &[[0; 4]; VECTORS]),
        BiomatchOutput {
            distance: 0,
            index: 0
        }
    );
    // The largest distance, 4·(2^14 − 1)², everywhere but the last vector one less.
    let mut db = vec![[max; 4]; VECTORS];
    db[VECTORS - 1] = [max, max, max, max - 1];
    let got = run_plain(4, [0; 4], &db);
    assert_eq!(got, brute_force(&[0; 4], &db));
    assert_eq!(
        got,
        BiomatchOutput {
            distance: 4 * max * max - 2 * max + 1,
            index: 255
        }
    );
    // The only match at the very last index, held by the last party.
    let mut db = vec![[max; 4]; VECTORS];
    db[VECTORS - 1] = [1, 2, 3, 4];
    assert_eq!(
        run_plain(2, [1, 2, 3, 4], &db),
        BiomatchOutput {
            distance: 0,
            index: 255
        }
    );
    assert_eq!(
        run_plain(7, [1, 2, 3, 4], &db),
        BiomatchOutput {
            distance: 0,
            index: 255
        }
    );
}

#[test]
fn biomatch_costs_what_the_docs_state_whatever_n() {
    // docs/mixed-mode.md, `mixgc mixed --example biomatch`: 1024 plaintext products, 256 A2B
    // (8192 B2A of r's bits), 255·72 = 18,360 ANDs for the tournament, stocked first; 95
    // ANDs per A2B adder.
    let expected = MixedCost {
        and: 18_360,
        a2b_and: 95 * 256,
        mult: 1024,
        arith_mul: 0,
        b2a: 0,
        a2b: 256,
        e2a: 1,
        a2e: 0,
        yao_and: 0,
        b2y: 0,
        y2b: 0,
        stocked_ands: 18_360,
        // Encryption, product sum, E2A, A2B (34), 8 tournament rounds of 32 + 1, output.
        rounds: 1 + 1 + 1 + 34 + 8 * 33 + 1,
    };
    assert_eq!(tournament_ands(VECTORS), 18_360);
    for n in [2, 3, 16, 257] {
        let mut counter = MixedCounter::new(n).unwrap();
        // The counter needs no values.
        assert_eq!(
            biomatch(&mut counter, &BiomatchInputs::none(n, VECTORS).unwrap()).unwrap(),
            None
        );
        assert_eq!(counter.cost(), expected, "n = {n}");
        assert_eq!(counter.cost().a2b * 32, 8192);
    }
    // With values it counts the same.
    let mut counter = MixedCounter::new(3).unwrap();
    let inputs = BiomatchInputs::clear(3, [1; 4], &[[2; 4]; VECTORS]).unwrap();
    biomatch(&mut counter, &inputs).unwrap();
    assert_eq!(counter.cost(), expected);
}

#[test]
fn biomatch_of_any_database_size_equals_brute_force_and_costs_n_minus_1_comparisons() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(19);
    // Every size to 9 (odd sizes give byes in several rounds), a few larger, the largest.
    for vectors in (1..=9).chain([31, 33, 100, 255, VECTORS]) {
        for n in [2, 3, vectors + 1] {
            if n > vectors + 1 {
                continue;
            }
            // Narrow values on odd sizes make ties at the minimum likely.
            let limit = if vectors % 2 == 1 { 3 } else { VALUE_LIMIT };
            let mut draw = || -> Vector { std::array::from_fn(|_| rng.gen_range(0..limit)) };
            let query = draw();
            let database: Vec<Vector> = (0..vectors).map(|_| draw()).collect();
            let expected = brute_force(&query, &database);
            assert_eq!(run_plain(n, query, &database), expected, "N = {vectors}, n = {n}");
            // The minimum at the last index only: it wins from a bye in every round.
            let mut far = vec![[VALUE_LIMIT - 1; 4]; vectors];
            far[vectors - 1] = query;
            let got = run_plain(n, query, &far);
            assert_eq!(
                (got.distance, got.index),
                (0, vectors - 1),
                "N = {vectors}, n = {n}"
            );
        }
        let mut counter = MixedCounter::new(2).unwrap();
        biomatch(&mut counter, &BiomatchInputs::none(2, vectors).unwrap()).unwrap();
        let cost = counter.cost();
        let rounds = vectors.next_power_of_two().trailing_zeros() as usize;
        assert_eq!(
            (cost.and, cost.stocked_ands, cost.a2b, cost.mult),
            ((vectors - 1) * 72, tournament_ands(vectors), vectors, 4 * vectors),
            "N = {vectors}"
        );
        assert_eq!(cost.rounds, 1 + 1 + 1 + 34 + rounds * 33 + 1, "N = {vectors}");
    }
}

#[test]
fn biomatch_inputs_are_checked_before_the_run() {
    let e = BiomatchInputs::none(258, VECTORS).unwrap_err();
    assert!(e.to_string().contains("2 to 257 parties"), "{e}");
    let mut inputs = BiomatchInputs::none(3, VECTORS).unwrap();
    let e = inputs
        .set(1, BiomatchInput::Database(vec![[0; 4]; 127]))
        .unwrap_err();
    assert!(
        e.to_string().contains("holds 128 of the 256 database vectors"),
        "{e}"
    );
    // A backend of another size, and a plaintext run missing a party's vectors.
    let e = biomatch(&mut MixedPlain::new(4).unwrap(), &inputs).unwrap_err();
    assert!(
        e.to_string().contains("inputs for 3 parties on a backend of 4"),
        "{e}"
    );
    inputs.set(0, BiomatchInput::Query([1; 4])).unwrap();
    let mine = vectors_of(1, 3, VECTORS).len();
    inputs
        .set(1, BiomatchInput::Database(vec![[0; 4]; mine]))
        .unwrap();
    let e = biomatch(&mut MixedPlain::new(3).unwrap(), &inputs).unwrap_err();
    assert_eq!(e, MixedProgramError::MissingInput { owner: 2 });
}

#[test]
fn the_plaintext_primitives_compute_mod_p_and_on_bits() {
    let mut b = MixedPlain::new(3).unwrap();
    let x = b.private(1, 4, Some(vec![0, 1, P - 1, 1 << 31])).unwrap();
    let x = b.share(&x).unwrap();
    let y = b.public_arith(&[P - 1, P - 1, P - 1, 3]).unwrap();
    assert_eq!(
        b.add(&x, &y).unwrap(),
        vec![P - 1, 0, P - 2, ((1u64 << 31) + 3) % P]
    );
    assert_eq!(b.sub(&x, &y).unwrap(), vec![1, 2, 0, (1 << 31) - 3]);
    assert_eq!(b.mul(&x, &y).unwrap(), vec![0, P - 1, 1, (3u64 << 31) % P]);
    assert_eq!(
        b.mul_public(&x, &[5, 5, 2, 2]).unwrap(),
        vec![0, 5, P - 2, (1u64 << 32) % P]
    );
    assert_eq!(b.sum_chunks(&y, 2).unwrap(), vec![P - 2, 2]);
    // A2B: bit j of every lane; B2A back; p − 1 has all of its 32 bits as written.
    let bits = b.to_bool(&x).unwrap();
    assert_eq!(bits.len(), 32);
    let value = |lane: usize| (0..32).fold(0u64, |a, j| a | (u64::from(bits[j][lane]) << j));
    assert_eq!((value(0), value(1), value(2), value(3)), (0, 1, P - 1, 1 << 31));
    let ones = b.public_bits(&[true; 4]);
    let zeros = b.public_bits(&[false; 4]);
    let all_ones = b.not(&zeros);
    assert_eq!(all_ones, ones);
    assert_eq!(b.to_arith(&bits[0]).unwrap(), vec![0, 1, 0, 0]);
    assert_eq!(b.and(&bits[0], &ones).unwrap(), bits[0]);
    assert_eq!(b.xor(&bits[0], &ones).unwrap(), vec![true, false, true, true]);
    assert_eq!(b.gather(&bits[0], &[1, 1, 0]).unwrap(), vec![true, true, false]);
    // E form: encryption, a private product sum, E2A, A2E.
    let q = b.private(0, 4, Some(vec![3, 4, 5, P - 1])).unwrap();
    let enc = b.encrypt(&q).unwrap();
    let term = |owner: usize, slots: Vec<usize>, f: Vec<u64>, g: Vec<u64>, b: &mut MixedPlain| PrivateTerm {
        factor: b.private(owner, slots.len(), Some(f)).unwrap(),
        addend: b.private(owner, slots.len(), Some(g)).unwrap(),
        slots,
    };
    let terms = vec![
        term(1, vec![0, 3], vec![2, 2], vec![1, 1], &mut b),
        term(2, vec![1], vec![P - 1], vec![0], &mut b),
    ];
    let sum = b.mul_add_private(&enc, &terms).unwrap();
    assert_eq!(b.enc_to_arith(&sum).unwrap(), vec![7, P - 4, 0, P - 1]);
    assert_eq!(b.to_enc(&x).unwrap(), x);
    assert_eq!(b.output_arith(&x, Recipient::Party(2)).unwrap(), Some(x.clone()));
    assert_eq!(b.output_bool(&ones, Recipient::All).unwrap(), Some(ones.clone()));
}

#[test]
fn bad_operands_get_typed_errors_naming_the_problem() {
    let mut b = MixedPlain::new(2).unwrap();
    let two = b.public_arith(&[1, 2]).unwrap();
    let three = b.public_arith(&[1, 2, 3]).unwrap();
    let e = b.add(&two, &three).unwrap_err();
    assert_eq!(
        e,
        MixedProgramError::Lengths {
            op: "add",
            left: 2,
            right: 3
        }
    );
    let e = b.public_arith(&[P]).unwrap_err();
    assert!(
        e.to_string().contains(&format!("value 0 is {P}, not below p")),
        "{e}"
    );
    let e = b.sum_chunks(&three, 2).unwrap_err();
    assert!(
        e.to_string().contains("3 lanes do not split into chunks of 2"),
        "{e}"
    );
    assert!(b.sum_chunks(&three, 0).is_err());
    let bits = b.public_bits(&[true]);
    let e = b.gather(&bits, &[1]).unwrap_err();
    assert!(e.to_string().contains("lane 1 of a vector of 1"), "{e}");
    let e = b.private(2, 1, Some(vec![0])).unwrap_err();
    assert!(e.to_string().contains("no party 2 among 2"), "{e}");
    let e = b.private(1, 1, None).unwrap_err();
    assert_eq!(e, MixedProgramError::MissingInput { owner: 1 });
    let e = b.private(1, 2, Some(vec![0])).unwrap_err();
    assert!(e.to_string().contains("has 1 values, 2 declared"), "{e}");
    let big = b.private(0, SLOTS + 1, Some(vec![0; SLOTS + 1])).unwrap();
    let e = b.encrypt(&big).unwrap_err();
    assert!(
        e.to_string().contains("16385 values do not fit the 16384 slots"),
        "{e}"
    );
    let e = b.output_bool(&bits, Recipient::Party(5)).unwrap_err();
    assert!(e.to_string().contains("no party 5 among 2"), "{e}");
    // Product terms: two of one party, slots out of order or past the ciphertext.
    let q = b.private(0, 2, Some(vec![1, 2])).unwrap();
    let enc = b.encrypt(&q).unwrap();
    let one = b.private(1, 1, Some(vec![1])).unwrap();
    let term = |slots: Vec<usize>, v: &mixgc_program::mixed::Private| PrivateTerm {
        slots,
        factor: v.clone(),
        addend: v.clone(),
    };
    let e = b
        .mul_add_private(&enc, &[term(vec![0], &one), term(vec![1], &one)])
        .unwrap_err();
    assert!(e.to_string().contains("party 1 has two terms"), "{e}");
    let e = b.mul_add_private(&enc, &[term(vec![2], &one)]).unwrap_err();
    assert!(e.to_string().contains("lane 2 of a vector of 2"), "{e}");
    let pair = b.private(1, 2, Some(vec![1, 1])).unwrap();
    let e = b.mul_add_private(&enc, &[term(vec![1, 1], &pair)]).unwrap_err();
    assert!(e.to_string().contains("out of order or twice"), "{e}");
    // The counter checks shapes the same way.
    let mut c = MixedCounter::new(2).unwrap();
    let e = c.and(&Shape(2), &Shape(3)).unwrap_err();
    assert_eq!(
        e,
        MixedProgramError::Lengths {
            op: "and",
            left: 2,
            right: 3
        }
    );
    assert!(MixedCounter::new(1).is_err() && MixedPlain::new(0).is_err());
}
