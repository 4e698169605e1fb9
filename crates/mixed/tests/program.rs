//! The n-party backend of the mixed program interface (`mixgc_mixed::program`) against the
//! plaintext backend: Biomatch (seed Table 6) for n = 2 and 3 on random and edge inputs,
//! and every primitive the app does not use (A products, B2A, A2E, openings) for n = 3.

mod common;

use fhe_rand::{Rng, SeedableRng};
use fhe_rand_chacha::ChaCha20Rng;
use mixgc_mixed::a2b::BooleanEngine;
use mixgc_mixed::program::{mixed_error, NpartyBackend};
use mixgc_mixed::{keygen, parameters, PLAINTEXT_MODULUS as P};
use mixgc_program::mixed::biomatch::{
    biomatch_in, plaintext, vectors_of, BiomatchInput, BiomatchInputs, MinForm, Vector, VALUE_LIMIT, VECTORS,
};
use mixgc_program::mixed::{MixedBackend, MixedPlain, MixedProgramError, Recipient};

use common::run_parties;

/// Runs Biomatch among `n` parties in threads and on the plaintext backend; checks both
/// against the clear model and returns it.
fn biomatch_matches(n: usize, seed: u64, query: Vector, database: &[Vector]) {
    biomatch_in_form_matches(n, seed, query, database, MinForm::Bool);
}

/// [`biomatch_matches`] with the minimum in `form`.
fn biomatch_in_form_matches(n: usize, seed: u64, query: Vector, database: &[Vector], form: MinForm) {
    let expected = plaintext(&query, database).unwrap();
    let all = BiomatchInputs::clear(n, query, database).unwrap();
    let plain = biomatch_in(&mut MixedPlain::new(n).unwrap(), &all, form).unwrap();
    assert_eq!(plain, Some(expected), "plaintext backend, n = {n}, {form:?}");
    let got = run_parties(n, seed, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[seed as u8; 32], rng).unwrap();
        let mut engine = BooleanEngine::setup(mesh, &[seed as u8 + 1; 32], rng).unwrap();
        let me = mesh.me();
        let input = match me {
            0 => BiomatchInput::Query(query),
            i => BiomatchInput::Database(
                vectors_of(i, n, database.len())
                    .iter()
                    .map(|&j| database[j])
                    .collect(),
            ),
        };
        let mine = BiomatchInputs::party(n, database.len(), me, input).unwrap();
        let mut backend = NpartyBackend::new(&keys, &mut engine, mesh, rng);
        let out = biomatch_in(&mut backend, &mine, form).unwrap();
        (out, backend.yao_state().map(|y| y.slots()))
    });
    assert_eq!(got[0].0, plain, "n-party backend, n = {n}, {form:?}");
    assert!(
        got[1..].iter().all(|g| g.0.is_none()),
        "only party 0 learns the result"
    );
    if form == MinForm::Yao && database.len() == VECTORS {
        // The tournament frees each round's dead wires: the slots ever taken stay near the
        // first round's (8,192 distance bits, 2,048 index bits, the comparison's and the
        // selection's ≈ 5 · 128 + 3 · 40 · 128 wires), not the ≈ 80k the whole tournament
        // makes.
        for (me, g) in got.iter().enumerate() {
            let slots = g.1.expect("the Y form was used");
            println!("party {me}: {slots} Y slots");
            assert!(slots < 30_000, "party {me}: {slots} Y slots");
        }
    }
}

fn random_vectors(seed: u64) -> (Vector, Vec<Vector>) {
    let mut data = ChaCha20Rng::seed_from_u64(seed);
    let mut draw = || -> Vector { std::array::from_fn(|_| data.random_range(0..VALUE_LIMIT)) };
    let query = draw();
    (query, (0..VECTORS).map(|_| draw()).collect())
}

#[test]
fn biomatch_between_two_parties_equals_the_plaintext_backend() {
    // Edge inputs: the largest values everywhere but one vector at distance 0 at the end.
    let query = [VALUE_LIMIT - 1; 4];
    let mut database = vec![[0; 4]; VECTORS];
    database[VECTORS - 1] = query;
    biomatch_matches(2, 40, query, &database);
}

#[test]
fn biomatch_among_three_parties_equals_the_plaintext_backend() {
    let (query, mut database) = random_vectors(77);
    // A tie at the minimum (the lower index wins) and the largest values.
    database[200] = [query[0], query[1], query[2], query[3] ^ 1];
    database[13] = database[200];
    database[0] = [VALUE_LIMIT - 1; 4];
    assert_eq!(plaintext(&query, &database).unwrap().index, 13);
    biomatch_matches(3, 41, query, &database);
}

#[test]
fn biomatch_among_three_with_its_minimum_in_y_form_equals_the_plaintext_backend() {
    let (query, mut database) = random_vectors(78);
    // A tie at the minimum: the lower index wins in Y form too.
    database[101] = [query[0], query[1] ^ 1, query[2], query[3]];
    database[7] = database[101];
    biomatch_in_form_matches(3, 46, query, &database, MinForm::Yao);
}

#[test]
fn biomatch_between_two_with_its_minimum_in_y_form_equals_the_plaintext_backend() {
    let query = [VALUE_LIMIT - 1; 4];
    let mut database = vec![[0; 4]; VECTORS];
    database[VECTORS - 1] = query;
    biomatch_in_form_matches(2, 47, query, &database, MinForm::Yao);
}

#[test]
fn biomatch_of_five_vectors_among_three_equals_the_plaintext_backend_in_both_forms() {
    // Odd sizes give byes (5 → 3 → 2 → 1): the minimum at the last index, with a tie at
    // index 2, wins from a bye in the first two rounds.
    let (query, all) = random_vectors(79);
    let mut database = all[..5].to_vec();
    database[4] = [query[0] ^ 1, query[1], query[2], query[3]];
    database[2] = database[4];
    assert_eq!(plaintext(&query, &database).unwrap().index, 2);
    biomatch_in_form_matches(3, 48, query, &database, MinForm::Bool);
    database[2] = all[2];
    assert_eq!(plaintext(&query, &database).unwrap().index, 4);
    biomatch_in_form_matches(3, 49, query, &database, MinForm::Yao);
}

/// What the primitives program opens: to all, to party 2, bits to party 1.
type Opened = (Option<Vec<u64>>, Option<Vec<u64>>, Option<Vec<bool>>);

#[test]
fn the_primitives_biomatch_does_not_use_equal_the_plaintext_backend() {
    let n = 3;
    let x = vec![0, 1, P - 1, 12345, 1 << 31];
    let y = vec![P - 1, 7, P - 1, 0, 3];
    let bits = vec![true, false, true, true, false];
    // The same program on both backends: A products, B2A, A2E then E2A, openings.
    fn program<B: MixedBackend>(
        b: &mut B,
        x: Option<Vec<u64>>,
        y: Option<Vec<u64>>,
        bits: &[bool],
    ) -> Result<Opened, MixedProgramError> {
        let len = bits.len();
        let xs = b.private(1, len, x)?;
        let ys = b.private(2, len, y)?;
        let (xa, ya) = (b.share(&xs)?, b.share(&ys)?);
        let product = b.mul(&xa, &ya)?;
        let scaled = b.mul_public(&product, &[2, 3, 1, P - 1, 0])?;
        let bits = b.public_bits(bits);
        let flipped = b.not(&bits);
        let arith = b.to_arith(&flipped)?;
        let both = b.sub(&scaled, &arith)?;
        let enc = b.to_enc(&both)?;
        let back = b.enc_to_arith(&enc)?;
        let to_all = b.output_arith(&back, Recipient::All)?;
        let to_two = b.output_arith(&xa, Recipient::Party(2))?;
        let decomposed = b.to_bool(&ya)?;
        let top = b.concat(&decomposed[30..]);
        let opened = b.output_bool(&top, Recipient::Party(1))?;
        Ok((to_all, to_two, opened))
    }
    let plain = program(
        &mut MixedPlain::new(n).unwrap(),
        Some(x.clone()),
        Some(y.clone()),
        &bits,
    )
    .unwrap();
    let expect_all: Vec<u64> = (0..5)
        .map(|i| {
            let k = [2, 3, 1, P - 1, 0][i];
            (x[i] * y[i] % P * k % P + P - u64::from(!bits[i])) % P
        })
        .collect();
    assert_eq!(plain.0.as_ref(), Some(&expect_all));
    let got = run_parties(n, 42, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[42; 32], rng).unwrap();
        let mut engine = BooleanEngine::setup(mesh, &[43; 32], rng).unwrap();
        let me = mesh.me();
        let mut backend = NpartyBackend::new(&keys, &mut engine, mesh, rng);
        // Each party gives only its own values.
        let (xv, yv) = ((me == 1).then(|| x.clone()), (me == 2).then(|| y.clone()));
        program(&mut backend, xv, yv, &bits).map_err(|e| e.to_string())
    });
    for (me, result) in got.into_iter().enumerate() {
        let (to_all, to_two, opened) = result.unwrap();
        assert_eq!(to_all, plain.0, "party {me}");
        assert_eq!(to_two, (me == 2).then(|| x.clone()), "party {me}");
        assert_eq!(opened, (me == 1).then(|| plain.2.clone().unwrap()), "party {me}");
    }
}

#[test]
fn a_party_without_its_own_input_is_refused_before_anything_is_sent() {
    let got = run_parties(2, 44, |mesh, rng| {
        let keys = keygen(mesh, &parameters(), &[44; 32], rng).unwrap();
        let mut engine = BooleanEngine::setup(mesh, &[45; 32], rng).unwrap();
        let me = mesh.me();
        let mut backend = NpartyBackend::new(&keys, &mut engine, mesh, rng);
        let e = backend.private(me, 3, None).unwrap_err();
        assert_eq!(e, MixedProgramError::MissingInput { owner: me });
        let e = backend.private(me, 2, Some(vec![P, 0])).unwrap_err();
        assert!(e.to_string().contains("not below p"), "{e}");
        let short = backend.private(me, 1, Some(vec![5])).unwrap();
        let long = backend.public_arith(&[1, 2]).unwrap();
        let short = backend.share(&short).unwrap();
        let e = backend.add(&short, &long).unwrap_err();
        assert!(e.to_string().contains("operands of 1 and 2 lanes"), "{e}");
        assert!(mixed_error(&e).is_none());
    });
    assert_eq!(got.len(), 2);
}
