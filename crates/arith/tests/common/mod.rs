//! Shared helpers for the arithmetic-garbling integration tests.

// Each test binary uses a different subset of these helpers.
#![allow(dead_code)]

use mixgc_arith::{ArithEvaluator, ArithGarbler, Label, Modulus};
use mixgc_core::{new_rng, Block, Rng};
use rand::Rng as _;

/// Moduli the differential tests cover: Boolean, small primes, a larger prime, 2^k.
pub const MODULI: [u64; 13] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 31, 251, 4, 8];

pub fn modulus(m: u64) -> Modulus {
    Modulus::new(m).unwrap()
}

/// m as a u64 (every modulus used here is small).
pub fn size(m: Modulus) -> u64 {
    m.value_u64().unwrap()
}

/// A seeded garbler (with a random free-XOR Δ), an evaluator for its session, and a test RNG.
pub fn session(seed: u64) -> (ArithGarbler, ArithEvaluator, Rng) {
    let mut rng = new_rng(Some(seed), 0);
    let delta = Block::random(&mut rng).with_lsb_set();
    let garbler = ArithGarbler::new(new_rng(Some(seed), 1), delta).unwrap();
    let evaluator = ArithEvaluator::new(garbler.session_key());
    (garbler, evaluator, rng)
}

/// A fresh evaluator at gate 0 for `garbler`'s session (to evaluate one gate on every input).
pub fn evaluator_for(garbler: &ArithGarbler) -> ArithEvaluator {
    ArithEvaluator::new(garbler.session_key())
}

/// A random value in Z_m.
pub fn random_value(m: Modulus, rng: &mut Rng) -> u64 {
    rng.gen_range(0..size(m))
}

/// A random function table Z_p → Z_q.
pub fn random_table(p: Modulus, q: Modulus, rng: &mut Rng) -> Vec<u64> {
    (0..size(p)).map(|_| random_value(q, rng)).collect()
}

/// Whether `v` is c·Δ for some c ∈ Z_m (c = 0 included: the zero vector).
pub fn is_multiple_of_delta(v: &Label, delta: &Label) -> bool {
    // Δ's colour digit is 1, so the only candidate is c = colour(v).
    v == &delta.scale(v.colour())
}
