//! A polynomial mod p evaluated with few non-scalar products and no more depth than the
//! powers of x need (issue #18: the sign polynomial at party 0, [`crate::sign_sum`]).
//!
//! Paterson and Stockmeyer ("On the number of nonscalar multiplications necessary to
//! evaluate polynomials", SIAM J. Comput. 2(1), 1973) evaluate a degree-d polynomial with
//! ≈ 2√d non-scalar products: baby steps x^1..x^k, giant steps powers of x^k, and scalar
//! multiplications and additions in between. Here it is in the recursive, depth-preserving
//! form that Bossuat, Mouchet, Troncoso-Pastoriza and Hubaux use for CKKS (Eurocrypt 2021,
//! "Efficient bootstrapping for approximate homomorphic encryption with non-sparse keys",
//! baby-step giant-step evaluation, there in the Chebyshev basis; here the power basis):
//! k is a power of two, the giant steps are x^(2^j) for 2^j ≥ k, and g of degree d > k
//! splits as g = q·x^(2^j) + r at the largest 2^j < d, so deg q ≤ 2^j and deg r < 2^j;
//! parts of degree ≤ k are combinations of the baby steps.
//!
//! **Depth.** Counting a relinearized product as one level and the scalar coefficients as
//! [`crate::sign_sum::SCALAR_LEVELS`] more: x^j sits at ⌈log2 j⌉ levels, a part of degree
//! d ≤ k at ⌈log2 d⌉ + the scalar's, and by induction q at ≤ j + the scalar's, x^(2^j) at j,
//! so q·x^(2^j) and g sit at ≤ j + 1 + the scalar's = ⌈log2 d⌉ + the scalar's: no more
//! than the direct sum Σ c_j·x^j of the powers, and less where the top split leaves q of
//! small degree (one level less at d = 3, 5, 6, 9..14, 17..28; checked for d = 1..64 by
//! the tests). Products: 1 / 2 / 4 / 7 / 11 at d = 2 / 4 / 8 / 16 / 32, against d − 1.

use crate::MixedError;

/// The operations the evaluation needs, on plaintexts (the tests) or ciphertexts.
pub(crate) trait PolyRing {
    type Value;
    /// a·b: the non-scalar product whose count this evaluation keeps low.
    fn product(&self, a: &Self::Value, b: &Self::Value) -> Result<Self::Value, MixedError>;
    /// c·a for a public c < p.
    fn scale(&self, a: &Self::Value, c: u64) -> Result<Self::Value, MixedError>;
    /// a + b.
    fn add(&self, a: &Self::Value, b: &Self::Value) -> Self::Value;
    /// a + c for a public c < p.
    fn add_constant(&self, a: &Self::Value, c: u64) -> Result<Self::Value, MixedError>;
}

/// The baby-step bound k (a power of two, ≥ 2) with the fewest products for `degree`.
pub(crate) fn baby_steps(degree: usize) -> usize {
    let mut best = 2;
    let mut k = 4;
    while k <= degree {
        if products(degree, k) < products(degree, best) {
            best = k;
        }
        k *= 2;
    }
    best
}

/// Non-scalar products to evaluate a polynomial of `degree` ≥ 1 with baby steps up to `k`:
/// the baby steps x^2..x^min(k, d), the giant steps x^(2^j) for k < 2^j < d, one a split.
pub(crate) fn products(degree: usize, k: usize) -> usize {
    let baby = k.min(degree) - 1;
    let giants = giant_exponents(degree, k).filter(|&e| e > k).count();
    baby + giants + splits(degree, k)
}

fn splits(degree: usize, k: usize) -> usize {
    if degree <= k {
        return 0;
    }
    let split = largest_power_of_two_below(degree);
    1 + splits(degree - split, k) + splits(split - 1, k)
}

fn largest_power_of_two_below(d: usize) -> usize {
    1 << (usize::BITS - 1 - (d - 1).leading_zeros())
}

/// The exponents 2^j with k ≤ 2^j < `degree` that splits may multiply by.
fn giant_exponents(degree: usize, k: usize) -> impl Iterator<Item = usize> {
    std::iter::successors(Some(k), |&e| e.checked_mul(2)).take_while(move |&e| e < degree)
}

/// Σ_j `coefficients`[j]·x^j (degree ≥ 1, coefficients < p) with [`baby_steps`]' k: the
/// module docs' evaluation.
pub(crate) fn evaluate<R: PolyRing>(
    ring: &R,
    x: R::Value,
    coefficients: &[u64],
) -> Result<R::Value, MixedError> {
    if coefficients.len() < 2 {
        return Err(MixedError::Usage(
            "internal: a polynomial of degree 0 to evaluate".into(),
        ));
    }
    let degree = coefficients.len() - 1;
    let k = baby_steps(degree);
    // baby[j − 1] = x^j for j = 1..min(k, d), each at depth ⌈log2 j⌉.
    let mut baby = vec![x];
    for j in 2..=k.min(degree) {
        let high = largest_power_of_two_below(j);
        let power = ring.product(&baby[high - 1], &baby[j - high - 1])?;
        baby.push(power);
    }
    // giants[i] = x^(k·2^i), each the square of the one before.
    let mut giants: Vec<R::Value> = Vec::new();
    for _ in giant_exponents(degree, k).skip(1) {
        let previous = giants.last().unwrap_or(&baby[k - 1]);
        let square = ring.product(previous, previous)?;
        giants.push(square);
    }
    let steps = Steps { k, baby, giants };
    steps.evaluate(ring, coefficients)
}

struct Steps<V> {
    k: usize,
    baby: Vec<V>,
    giants: Vec<V>,
}

impl<V> Steps<V> {
    /// x^e for e = k·2^i.
    fn giant(&self, e: usize) -> &V {
        match (e / self.k).trailing_zeros() as usize {
            0 => &self.baby[self.k - 1],
            i => &self.giants[i - 1],
        }
    }

    fn evaluate<R: PolyRing<Value = V>>(&self, ring: &R, c: &[u64]) -> Result<V, MixedError> {
        let degree = c.len() - 1;
        if degree <= self.k {
            return self.combine(ring, c);
        }
        let split = largest_power_of_two_below(degree);
        let (low, high) = c.split_at(split);
        let q = self.evaluate(ring, high)?;
        let r = self.evaluate(ring, low)?;
        Ok(ring.add(&ring.product(&q, self.giant(split))?, &r))
    }

    /// c_0 + Σ_{j ≥ 1} c_j·x^j from the baby steps (degree 1..k).
    fn combine<R: PolyRing<Value = V>>(&self, ring: &R, c: &[u64]) -> Result<V, MixedError> {
        let mut acc = ring.scale(&self.baby[0], c[1])?;
        for (power, &cj) in self.baby[1..].iter().zip(&c[2..]) {
            acc = ring.add(&acc, &ring.scale(power, cj)?);
        }
        match c[0] {
            0 => Ok(acc),
            c0 => ring.add_constant(&acc, c0),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;
    use crate::sign_sum::{sign_polynomial, SCALAR_LEVELS};
    use crate::sign_tree::tree_depth;
    use crate::PLAINTEXT_MODULUS as P;

    /// A value mod p with the levels its encryption would have taken.
    #[derive(Clone, Copy, Debug, PartialEq)]
    struct Tracked {
        value: u64,
        levels: usize,
    }

    /// Plaintext arithmetic mod p that counts products and levels as the ciphertexts do.
    #[derive(Default)]
    struct Plain {
        products: Cell<usize>,
    }

    fn mul_mod(a: u64, b: u64) -> u64 {
        ((u128::from(a) * u128::from(b)) % u128::from(P)) as u64
    }

    impl PolyRing for Plain {
        type Value = Tracked;
        fn product(&self, a: &Tracked, b: &Tracked) -> Result<Tracked, MixedError> {
            self.products.set(self.products.get() + 1);
            Ok(Tracked {
                value: mul_mod(a.value, b.value),
                levels: a.levels.max(b.levels) + 1,
            })
        }
        fn scale(&self, a: &Tracked, c: u64) -> Result<Tracked, MixedError> {
            Ok(Tracked {
                value: mul_mod(a.value, c),
                levels: a.levels + SCALAR_LEVELS,
            })
        }
        fn add(&self, a: &Tracked, b: &Tracked) -> Tracked {
            Tracked {
                value: (a.value + b.value) % P,
                levels: a.levels.max(b.levels),
            }
        }
        fn add_constant(&self, a: &Tracked, c: u64) -> Result<Tracked, MixedError> {
            Ok(Tracked {
                value: (a.value + c) % P,
                ..*a
            })
        }
    }

    /// The evaluation this replaces: all powers x^2..x^d (x^j at ⌈log2 j⌉ levels, d − 1
    /// products), then Σ c_j·x^j.
    fn direct(ring: &Plain, x: Tracked, c: &[u64]) -> Tracked {
        let mut powers = vec![x];
        for j in 2..c.len() {
            let high = largest_power_of_two_below(j);
            let power = ring.product(&powers[high - 1], &powers[j - high - 1]).unwrap();
            powers.push(power);
        }
        let mut acc = Tracked {
            value: c[0],
            levels: 0,
        };
        for (power, &cj) in powers.iter().zip(&c[1..]) {
            acc = ring.add(&acc, &ring.scale(power, cj).unwrap());
        }
        acc
    }

    #[test]
    fn the_sign_polynomial_matches_the_direct_sum_at_its_depth_with_fewer_products() {
        for n in 2..=32 {
            let g = sign_polynomial(n);
            for s in 0..=n as u64 {
                let (new, old) = (Plain::default(), Plain::default());
                let x = Tracked { value: s, levels: 0 };
                let got = evaluate(&new, x, &g).unwrap();
                let want = direct(&old, x, &g);
                assert_eq!(got.value, want.value, "n = {n}, S = {s}");
                assert_eq!(got.value, if s % 2 == 0 { 1 } else { P - 1 }, "n = {n}, S = {s}");
                assert_eq!(want.levels, tree_depth(n) + SCALAR_LEVELS, "n = {n}");
                assert!(got.levels <= want.levels, "n = {n}: {} levels", got.levels);
                assert_eq!(new.products.get(), products(n, baby_steps(n)), "n = {n}");
                assert_eq!(old.products.get(), n - 1);
            }
        }
    }

    #[test]
    fn random_polynomials_agree_at_random_points_and_keep_the_depth() {
        use fhe_rand::{RngCore, SeedableRng};
        let mut rng = fhe_rand_chacha::ChaCha20Rng::seed_from_u64(18);
        for degree in 1..=64 {
            for _ in 0..4 {
                let c: Vec<u64> = (0..=degree).map(|_| rng.next_u64() % P).collect();
                // Edge points too: 0, 1 and p − 1.
                for x in [0, 1, P - 1, rng.next_u64() % P] {
                    let x = Tracked { value: x, levels: 0 };
                    let got = evaluate(&Plain::default(), x, &c).unwrap();
                    let want = direct(&Plain::default(), x, &c);
                    assert_eq!(got.value, want.value, "degree {degree}");
                    assert!(got.levels <= want.levels, "degree {degree}: {}", got.levels);
                }
            }
        }
    }

    #[test]
    fn products_grow_as_the_square_root_of_the_degree() {
        // The n − 1 of the direct sum against these (n = 2, 4, 8, 16, 32).
        let counts: Vec<usize> = [2, 4, 8, 16, 32]
            .iter()
            .map(|&n| products(n, baby_steps(n)))
            .collect();
        assert_eq!(counts, [1, 2, 4, 7, 11]);
        for d in 1..=256 {
            let best = products(d, baby_steps(d));
            assert!(best <= d.saturating_sub(1).max(1), "degree {d}: {best}");
            assert!(
                (best as f64) <= 3.0 * (d as f64).sqrt() + 2.0,
                "degree {d}: {best}"
            );
        }
    }

    #[test]
    fn a_constant_is_refused() {
        assert!(evaluate(&Plain::default(), Tracked { value: 1, levels: 0 }, &[5]).is_err());
    }
}
