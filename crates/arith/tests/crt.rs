//! CRT bundles: garbled arithmetic in Z_N against plaintext u128 arithmetic mod N.

mod common;

use common::*;
use mixgc_arith::codec::label_bytes;
use mixgc_arith::primes::{first_primes, min_sum_primes};
use mixgc_arith::{ArithError, ArithEvaluator, ArithGarbler, CrtBundle, PrimeSet, TableReader};
use rand::Rng as _;

/// (a·b) mod n without overflow, by double-and-add.
fn mul_mod(a: u128, mut b: u128, n: u128) -> u128 {
    let (mut a, mut acc) = (a % n, 0u128);
    while b > 0 {
        if b & 1 == 1 {
            acc = add_mod(acc, a, n);
        }
        a = add_mod(a, a, n);
        b >>= 1;
    }
    acc
}

fn add_mod(a: u128, b: u128, n: u128) -> u128 {
    if a >= n - b {
        a - (n - b)
    } else {
        a + b
    }
}

fn pow_mod(x: u128, mut e: u64, n: u128) -> u128 {
    let (mut base, mut acc) = (x, 1 % n);
    while e > 0 {
        if e & 1 == 1 {
            acc = mul_mod(acc, base, n);
        }
        base = mul_mod(base, base, n);
        e >>= 1;
    }
    acc
}

fn product_rows_bytes(set: &PrimeSet) -> usize {
    set.moduli()
        .iter()
        .map(|&m| 2 * (size(m) as usize - 1) * label_bytes(m))
        .sum()
}

#[test]
fn bundle_arithmetic_matches_plaintext_mod_n() {
    let sets = [
        min_sum_primes(8).unwrap(),
        min_sum_primes(16).unwrap(),
        first_primes(16).unwrap(),
        min_sum_primes(38).unwrap(),
        min_sum_primes(64).unwrap(),
        min_sum_primes(127).unwrap(),
    ];
    for (i, set) in sets.iter().enumerate() {
        let n = set.product();
        let (mut g, mut e, mut rng) = session(6000 + i as u64);
        for _ in 0..3 {
            let (x, y, c, k) = (
                rng.gen_range(0..n),
                rng.gen_range(0..n),
                rng.gen::<u128>(),
                rng.gen_range(0..40),
            );
            let (a0, b0) = (g.new_bundle(set), g.new_bundle(set));
            let (a, b) = (g.encode_bundle(&a0, x).unwrap(), g.encode_bundle(&b0, y).unwrap());

            let mut rows = Vec::new();
            let prod0 = g.mul_bundle(&a0, &b0, &mut rows).unwrap();
            assert_eq!(rows.len(), product_rows_bytes(set));
            let pow0 = g.pow_bundle(&a0, k, &mut rows).unwrap();

            let mut t = TableReader::new(&rows);
            let prod = e.mul_bundle(&a, &b, &mut t).unwrap();
            let pow = e.project_bundle(&a, &mut t).unwrap();
            t.finish().unwrap();

            let decode = |active: &CrtBundle, zero: &CrtBundle| {
                ArithEvaluator::decode_bundle(active, &ArithGarbler::bundle_decoding(zero)).unwrap()
            };
            assert_eq!(decode(&a, &a0), x);
            assert_eq!(
                decode(&a.add(&b).unwrap(), &a0.add(&b0).unwrap()),
                add_mod(x, y, n)
            );
            assert_eq!(
                decode(&a.sub(&b).unwrap(), &a0.sub(&b0).unwrap()),
                add_mod(x, n - y, n)
            );
            assert_eq!(decode(&a.neg(), &a0.neg()), (n - x) % n);
            assert_eq!(decode(&a.scale(c), &a0.scale(c)), mul_mod(x, c, n));
            assert_eq!(decode(&prod, &prod0), mul_mod(x, y, n), "{x}·{y} mod {n}");
            assert_eq!(decode(&pow, &pow0), pow_mod(x, k, n), "{x}^{k} mod {n}");
        }
    }
}

#[test]
fn bundles_refuse_mismatches() {
    let (mut g, mut e, _) = session(7000);
    let (s1, s2) = (min_sum_primes(16).unwrap(), first_primes(16).unwrap());
    let (a0, b0) = (g.new_bundle(&s1), g.new_bundle(&s2));
    assert_eq!(a0.add(&b0), Err(ArithError::BundleMismatch));
    assert_eq!(
        g.mul_bundle(&a0, &b0, &mut Vec::new()),
        Err(ArithError::BundleMismatch)
    );
    assert_eq!(
        e.mul_bundle(&a0, &b0, &mut TableReader::new(&[])),
        Err(ArithError::BundleMismatch)
    );
    assert!(g.encode_bundle(&a0, s1.product()).is_err());
    assert!(CrtBundle::new(&s2, a0.wires().to_vec()).is_err());
    assert!(CrtBundle::new(&s1, a0.wires()[1..].to_vec()).is_err());
    assert_eq!(CrtBundle::new(&s1, a0.wires().to_vec()).unwrap(), a0);
    assert!(ArithEvaluator::decode_bundle(&a0, &[0; 2]).is_err());
}

/// Per-product table sizes over the chosen sets, against the first-k baseline.
#[test]
fn fewer_rows_than_the_baseline() {
    for w in [8, 16, 32, 38, 60, 64, 65, 127] {
        let (best, baseline) = (min_sum_primes(w).unwrap(), first_primes(w).unwrap());
        let rows = |s: &PrimeSet| s.primes().iter().map(|p| 2 * (p - 1)).sum::<u64>();
        assert!(rows(&best) <= rows(&baseline), "width {w}");
        assert!(
            product_rows_bytes(&best) <= product_rows_bytes(&baseline),
            "width {w}"
        );
    }
}
