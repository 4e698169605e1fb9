//! XOR of the parties' bits under encryption from their *sum* (issue #18, "linear scaling"):
//! one polynomial out and in per party, against the two ciphertexts of the product tree
//! ([`crate::sign_tree`]).
//!
//! For bits r_i (one per slot), S = Σ_i r_i ∈ [0, n] as an integer and ⊕_i r_i = S mod 2.
//! 1. **A seeded collective encryption of S** (Mouchet et al.'s collective encryption with a
//!    common random polynomial, as the refresh of [`crate::lut`]): for a fresh common random
//!    a ([`ThresholdKeys::next_crp`]), party i sends h_i = −s_i·a + Δ·r_i + e_i, summed along
//!    the chain into party 0 ([`crate::chain`]); (Σ h_i, a) encrypts S under s = Σ s_i with
//!    noise Σ e_i. The second polynomial is the seed's, so it never travels. A relay sees a
//!    partial sum, in which each h_i is an RLWE sample under s_i that hides r_i.
//! 2. **The sign polynomial at party 0**: g of degree ≤ n with g(S) = (−1)^S on 0..n
//!    ([`sign_polynomial`], Newton's form of (1 − 2)^S = Σ_k (−2)^k·C(S, k)), evaluated
//!    locally with the collective relinearization key by Paterson–Stockmeyer
//!    ([`crate::paterson_stockmeyer`]): ≈ 2√n relinearized products (1 / 2 / 4 / 7 / 11 at
//!    n = 2 / 4 / 8 / 16 / 32, against the n − 1 of all powers S^2..S^n), the centered
//!    coefficients (|c| < 2^31: about 31 bits of noise, counted as one product level,
//!    [`SCALAR_LEVELS`]) on the baby steps. The depth is at most the tree's ⌈log2 n⌉ plus the
//!    scalar level, as with all powers (one level less at some n, e.g. 3, 5, 9..14, which
//!    [`sum_fits`] does not count on).

use std::sync::Arc;

use fhe::bfv::{BfvParameters, Ciphertext, RelinearizationKey};
use fhe_rand::{CryptoRng, RngCore};
use mixgc_nparty::Mesh;

use crate::conversions::scaled_plaintext;
use crate::ops::{add_plain, mul_scalar};
use crate::paterson_stockmeyer::{self, PolyRing};
use crate::sign_tree::{tree_depth, MAX_PRODUCT_DEPTH};
use crate::wire::zero_secret_key;
use crate::{MixedError, ThresholdKeys, PLAINTEXT_MODULUS as P};

/// Product levels the sign polynomial's scalar coefficients cost: a scalar below 2^31 adds
/// about 31 bits of noise, less than one relinearized product's ≈ 48.
pub const SCALAR_LEVELS: usize = 1;

/// Whether the sum and its sign polynomial, then `extra` more product levels, fit the
/// noise budget for `parties` parties ([`MAX_PRODUCT_DEPTH`]): B2A (extra 0) for n ≤ 32,
/// Boolean triples (extra 1 on either side of their refresh) for n ≤ 16. It counts
/// ⌈log2 n⌉ + [`SCALAR_LEVELS`] for the polynomial, an upper bound on its depth
/// ([`crate::paterson_stockmeyer`]) that is reached at n = 2, 4, 7, 8, 15, 16, 29..32.
pub fn sum_fits(parties: usize, extra: usize) -> bool {
    tree_depth(parties) + SCALAR_LEVELS + extra <= MAX_PRODUCT_DEPTH
}

fn mul_mod(a: u64, b: u64) -> u64 {
    ((u128::from(a) * u128::from(b)) % u128::from(P)) as u64
}

fn inverse_mod(a: u64) -> u64 {
    let (mut base, mut e, mut acc) = (a % P, P - 2, 1u64);
    while e > 0 {
        if e & 1 == 1 {
            acc = mul_mod(acc, base);
        }
        base = mul_mod(base, base);
        e >>= 1;
    }
    acc
}

/// Coefficients c_0..c_n mod p (c_j of x^j) of the polynomial g of degree ≤ n with
/// g(s) = (−1)^s mod p for s = 0..n: Σ_{k ≤ n} (−2)^k/k!·x(x − 1)…(x − k + 1), the binomial
/// expansion of (1 − 2)^s, exact on 0..n since C(s, k) = 0 for k > s.
pub fn sign_polynomial(n: usize) -> Vec<u64> {
    let mut coefficients = vec![0u64; n + 1];
    // The falling factorial x(x − 1)…(x − k + 1), lowest coefficient first.
    let mut falling = vec![1u64];
    let (mut power_of_minus_two, mut factorial) = (1u64, 1u64);
    for k in 0..=n {
        if k > 0 {
            let root = (k as u64 - 1) % P;
            let mut next = vec![0u64; falling.len() + 1];
            for (j, &c) in falling.iter().enumerate() {
                next[j + 1] = (next[j + 1] + c) % P;
                next[j] = (next[j] + P - mul_mod(c, root)) % P;
            }
            falling = next;
            power_of_minus_two = mul_mod(power_of_minus_two, P - 2);
            factorial = mul_mod(factorial, k as u64);
        }
        let scale = mul_mod(power_of_minus_two, inverse_mod(factorial));
        for (c, &f) in coefficients.iter_mut().zip(&falling) {
            *c = (*c + mul_mod(scale, f)) % P;
        }
    }
    coefficients
}

impl ThresholdKeys {
    /// Party 0 gets `Some` encryption of (−1)^{r_j} in slot j, r_j = ⊕_i `bits`_i[j], through
    /// the sum (see the module docs); the others `None`. `bits` are checked by the caller.
    pub(crate) fn xor_signs_by_sum<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        bits: &[u8],
        rng: &mut R,
    ) -> Result<Option<Ciphertext>, MixedError> {
        let n = mesh.parties();
        let rlk = self.prepare_products(mesh, rng)?;
        mesh.set_phase("XOR sum: collective encryption");
        let slots: Vec<u64> = bits.iter().map(|&b| u64::from(b)).collect();
        let Some(sum) = self.collective_encryption_to_root(mesh, &slots, "XOR sum share", rng)? else {
            return Ok(None);
        };
        mesh.set_phase("XOR sum: the sign polynomial");
        Ok(Some(self.sign_of(rlk, &sum, n)?))
    }

    /// Party 0 gets `Some` fresh encryption of Σ_i `slots`_i (mod p, slot-wise; at most N
    /// slots per party), the others `None` (step 1 of the module docs): party i sends
    /// h_i = −s_i·a + Δ·m_i + e_i for a fresh common random a, summed along the chain, and
    /// (Σ h_i, a) encrypts Σ m_i. Its noise is Σ e_i plus, where Σ m_i wraps past p, at most
    /// (n − 1)·p from the scaling Δ·(Σ m_i) = Δ·(m + k·p), k < n: below 2^37 for n ≤ 16,
    /// against the ≈ 2^15 of a fresh encryption and the ≈ 48 bits a product adds.
    pub(crate) fn collective_encryption_to_root<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        slots: &[u64],
        what: &'static str,
        rng: &mut R,
    ) -> Result<Option<Ciphertext>, MixedError> {
        let par = self.parameters().clone();
        let a = self.next_crp()?;
        let mut h = scaled_plaintext(&par, &zero_secret_key(&par)?, slots, rng)?;
        let mut sa = (*self.secret_poly()?).clone();
        sa *= &a;
        h -= &sa;
        let Some(total) = self.sum_polys_to(mesh, 0, h, what)? else {
            return Ok(None);
        };
        Ok(Some(Ciphertext::new(vec![total, a], &par)?))
    }

    /// An encryption of (−1)^S from one of S ∈ [0, `max`] in every slot: [`sign_polynomial`]
    /// by Paterson–Stockmeyer ([`crate::paterson_stockmeyer`]) with the relinearization key.
    fn sign_of(
        &self,
        rlk: &RelinearizationKey,
        sum: &Ciphertext,
        max: usize,
    ) -> Result<Ciphertext, MixedError> {
        let ring = Encrypted {
            par: self.parameters(),
            rlk,
        };
        paterson_stockmeyer::evaluate(&ring, sum.clone(), &sign_polynomial(max))
    }
}

/// Ciphertexts under the collective key, products relinearized.
struct Encrypted<'a> {
    par: &'a Arc<BfvParameters>,
    rlk: &'a RelinearizationKey,
}

impl PolyRing for Encrypted<'_> {
    type Value = Ciphertext;

    fn product(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext, MixedError> {
        let mut c = a * b;
        self.rlk.relinearizes(&mut c)?;
        Ok(c)
    }

    /// Centered: −((p − c)·a) where p − c is smaller, so the scalar is below 2^31.
    fn scale(&self, a: &Ciphertext, c: u64) -> Result<Ciphertext, MixedError> {
        if c <= P / 2 {
            mul_scalar(self.par, a, c)
        } else {
            Ok(-&mul_scalar(self.par, a, P - c)?)
        }
    }

    fn add(&self, a: &Ciphertext, b: &Ciphertext) -> Ciphertext {
        a + b
    }

    fn add_constant(&self, a: &Ciphertext, c: u64) -> Result<Ciphertext, MixedError> {
        add_plain(self.par, a, &vec![c; self.par.degree()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn evaluate(coefficients: &[u64], x: u64) -> u64 {
        coefficients
            .iter()
            .rev()
            .fold(0, |acc, &c| (mul_mod(acc, x) + c) % P)
    }

    #[test]
    fn the_sign_polynomial_alternates_on_0_to_n() {
        for n in 1..=40 {
            let g = sign_polynomial(n);
            assert_eq!(g.len(), n + 1);
            for s in 0..=n as u64 {
                let want = if s % 2 == 0 { 1 } else { P - 1 };
                assert_eq!(evaluate(&g, s), want, "n = {n}, s = {s}");
            }
        }
        // n = 2: 1 − 4x + 2x².
        assert_eq!(sign_polynomial(2), vec![1, P - 4, 2]);
    }

    #[test]
    fn the_sum_fits_where_its_depth_does() {
        assert!(sum_fits(2, 0) && sum_fits(16, 0) && sum_fits(32, 0) && !sum_fits(33, 0));
        assert!(sum_fits(8, 2) && !sum_fits(9, 2));
        // Boolean triples: one level on either side of their refresh.
        assert!(sum_fits(16, 1) && !sum_fits(17, 1));
    }
}
