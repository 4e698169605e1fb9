//! CRT bundles: garbled arithmetic in Z_N against plaintext u128 arithmetic mod N.

mod common;

use common::*;
use mixgc_arith::codec::label_bytes;
use mixgc_arith::primes::{first_primes, min_sum_primes};
use mixgc_arith::{ArithError, ArithEvaluator, ArithGarbler, CrtBundle, Label, PrimeSet, TableReader};
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
        .filter(|m| !m.is_boolean())
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

            // Products wire by wire mod each odd prime (mod 2 a product is an AND of the
            // Boolean half-gates, not garbled here), powers on every wire.
            let mut rows = Vec::new();
            let odd = |w: &[Label]| {
                w.iter()
                    .filter(|l| !l.modulus().is_boolean())
                    .cloned()
                    .collect::<Vec<_>>()
            };
            let (a0_odd, b0_odd) = (odd(a0.wires()), odd(b0.wires()));
            let prod0: Vec<Label> = a0_odd
                .iter()
                .zip(&b0_odd)
                .map(|(x, y)| g.mul(x, y, &mut rows).unwrap())
                .collect();
            assert_eq!(rows.len(), product_rows_bytes(set));
            let pow0: Vec<Label> = a0
                .wires()
                .iter()
                .map(|w| g.pow(w, k, &mut rows).unwrap())
                .collect();

            let mut t = TableReader::new(&rows);
            let (a_odd, b_odd) = (odd(a.wires()), odd(b.wires()));
            let pairs: Vec<(&Label, &Label)> = a_odd.iter().zip(&b_odd).collect();
            let prod = e.mul_many(&pairs, &mut t).unwrap();
            let pow: Vec<Label> = a
                .wires()
                .iter()
                .map(|w| e.project(w, w.modulus(), &mut t).unwrap())
                .collect();
            t.finish().unwrap();
            let residue =
                |active: &Label, zero: &Label| ArithEvaluator::decode(active, ArithGarbler::decoding(zero));
            let odd_primes = set.primes().iter().filter(|&&p| p != 2);
            for (&p, (c, c0)) in odd_primes.zip(prod.iter().zip(&prod0)) {
                let (xr, yr) = (x % p as u128, y % p as u128);
                assert_eq!(residue(c, c0) as u128, xr * yr % p as u128, "{x}·{y} mod {p}");
            }
            for ((&p, c), c0) in set.primes().iter().zip(&pow).zip(&pow0) {
                let xr = x % p as u128;
                assert_eq!(
                    residue(c, c0) as u128,
                    pow_mod(xr, k, p as u128),
                    "{x}^{k} mod {p}"
                );
            }

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
        }
    }
}

#[test]
fn bundles_refuse_mismatches() {
    let (mut g, mut e, _) = session(7000);
    let (s1, s2) = (min_sum_primes(16).unwrap(), first_primes(16).unwrap());
    let (a0, b0) = (g.new_bundle(&s1), g.new_bundle(&s2));
    assert_eq!(a0.add(&b0), Err(ArithError::BundleMismatch));
    let (x, y) = (&a0.wires()[1], &b0.wires()[2]);
    assert!(matches!(
        g.mul(x, y, &mut Vec::new()),
        Err(ArithError::ModulusMismatch(..))
    ));
    assert!(matches!(
        e.mul(x, y, &mut TableReader::new(&[])),
        Err(ArithError::ModulusMismatch(..))
    ));
    // Mod 2 a product is an AND of the Boolean half-gates.
    assert_eq!(
        g.mul(&a0.wires()[0], &a0.wires()[0], &mut Vec::new()),
        Err(ArithError::BooleanProduct)
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
