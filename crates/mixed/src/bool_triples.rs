//! Boolean Beaver triples from threshold HE with per-party traffic constant in n (issue #18,
//! "linear scaling" for A2B; the Boolean counterpart of the seed's §3.3 arithmetic triples).
//!
//! Every party samples a_i, b_i and, except party 0, c_i. Three XOR sums
//! ([`crate::sign_sum`]) give party 0 encryptions of z_a = (−1)^a, z_b = (−1)^b and
//! z_c = (−1)^{c'} with a = ⊕ a_i, b = ⊕ b_i, c' = ⊕_{i≥1} c_i. Since
//! 1 − 2ab = (1 + z_a + z_b − z_a·z_b)/2, party 0 computes w = 1 + z_a + z_b − z_a·z_b =
//! 2·(−1)^{ab} with one product, **refreshes** it, and computes y = z_c·w = 2·(−1)^{ab ⊕ c'}
//! with a second product. y is opened to party 0 alone (E2A, whose flooding hides the noise,
//! then the other parties' shares summed into it along the chain). Party 0 sets
//! c_0 = [y = −2] = ab ⊕ c', so ⊕ c_i = ab. Party 0 learns ab ⊕ c', uniform to it since c'
//! is the others' secret; every other party sees only RLWE samples, partial chain sums of
//! them and E2A masks.
//!
//! **The refresh, and why the noise fits for n ≤ 16.** The noise budget is counted in
//! product levels ([`crate::sign_tree::MAX_PRODUCT_DEPTH`] = 6, the bound B2A and the tree
//! use): z_a, z_b, z_c sit at ⌈log2 n⌉ + 1 levels (the sign polynomial's powers and its
//! scalar coefficients, [`crate::sign_sum::SCALAR_LEVELS`]), so w sits at ⌈log2 n⌉ + 2,
//! which is ≤ 6 for n ≤ 16. Multiplying w by z_c directly would take ⌈log2 n⌉ + 3 levels,
//! 7 at n = 16 (the reason A2B fell back to OT triples beyond n = 8). Instead w is turned
//! into additive shares (the switched E2A, [`crate::switched_e2a`], valid for w's noise
//! since w is within the budget) and collectively re-encrypted
//! ([`ThresholdKeys::collective_encryption_to_root`]): party 0 then holds a *fresh*
//! encryption of w (noise below 2^37, less than one product level), and
//! y = z_c·w sits at 1 + max(⌈log2 n⌉ + 1, 0) = ⌈log2 n⌉ + 2 levels, again ≤ 6 for n ≤ 16
//! ([`he_triples_fit`]). The same steps run at every n, so per-party bytes are one function
//! of the chain position, whatever n.
//!
//! Per party and batch of N triples: three sum polynomials (54.75 B a slot each), two
//! switched E2As (c1 forwarded and one share, 18 B a slot each), the refresh's polynomial
//! (54.75 B) and a vector of 4-byte slots: at most 4·54.75 + 4·18 + 4 = 295 B a triple sent
//! and as many received, constant in n, where pairwise OT extension costs every party a
//! share of each of its n − 1 peers.

use fhe::bfv::Ciphertext;
use fhe_rand::{CryptoRng, Rng, RngCore};
use mixgc_nparty::{Mesh, Triples};

use crate::a2b::sum_mod_p_to;
use crate::ops::add_plain;
use crate::sign_tree::MAX_PRODUCT_DEPTH;
use crate::{MixedError, ThresholdKeys, DEGREE, PLAINTEXT_MODULUS as P};

/// Product levels after the XOR sums, on either side of the refresh: z_a·z_b before it, the
/// product with z_c after it (see the module docs).
const EXTRA_DEPTH: usize = 1;

/// Whether Boolean triples from HE fit the noise budget for `parties` parties through the
/// XOR sum and the refresh ([`crate::sign_sum::sum_fits`] with one more level: n ≤ 16).
/// Beyond, A2B takes pairwise OT triples.
pub fn he_triples_fit(parties: usize) -> bool {
    crate::sign_sum::sum_fits(parties, EXTRA_DEPTH)
}

impl ThresholdKeys {
    /// `count` Boolean Beaver triples (batches of N) from threshold HE (see the module
    /// docs); every party calls it at once with the same count.
    pub fn boolean_triples<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        count: usize,
        rng: &mut R,
    ) -> Result<Triples, MixedError> {
        let n = mesh.parties();
        if !he_triples_fit(n) {
            return Err(MixedError::Usage(format!(
                "Boolean triples from HE for {n} parties need more than {MAX_PRODUCT_DEPTH} product levels; use OT triples"
            )));
        }
        let mut all = Triples::default();
        let mut left = count;
        while left > 0 {
            let k = left.min(DEGREE);
            let t = self.triple_batch(mesh, k, rng)?;
            all.a.extend(t.a);
            all.b.extend(t.b);
            all.c.extend(t.c);
            left -= k;
        }
        Ok(all)
    }

    /// One batch of k ≤ N triples.
    fn triple_batch<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        k: usize,
        rng: &mut R,
    ) -> Result<Triples, MixedError> {
        let me = mesh.me();
        let mut draw = |on: bool| -> Vec<u8> {
            (0..k)
                .map(|_| if on { rng.random_range(0..2u8) } else { 0 })
                .collect()
        };
        let (a, b, c) = (draw(true), draw(true), draw(me != 0));
        let za = self.xor_signs_leaving(mesh, &a, EXTRA_DEPTH, rng)?;
        let zb = self.xor_signs_leaving(mesh, &b, EXTRA_DEPTH, rng)?;
        let zc = self.xor_signs_leaving(mesh, &c, EXTRA_DEPTH, rng)?;
        mesh.set_phase("Boolean triples: 2·(−1)^ab at the root");
        let (w, zc) = match (za, zb, zc) {
            (Some(za), Some(zb), Some(zc)) => {
                let rlk = self.prepare_products(mesh, rng)?;
                let zab = self.product(rlk, &za, &zb, rng)?;
                let w = add_plain(self.parameters(), &(&(&za + &zb) - &zab), &vec![1; k])?;
                (Some(w), Some(zc))
            }
            (None, None, None) => (None, None),
            _ => {
                return Err(MixedError::Usage(
                    "internal: the XOR sums have different roots".into(),
                ))
            }
        };
        let w = self.refresh_at_root(mesh, w, rng)?;
        mesh.set_phase("Boolean triples: the product with (−1)^c' at the root");
        let y = match (w, zc) {
            (Some(w), Some(zc)) => {
                let rlk = self.prepare_products(mesh, rng)?;
                Some(self.product(rlk, &zc, &w, rng)?)
            }
            _ => None,
        };
        let mut share = self.switched_shares_from_root(mesh, y, rng)?;
        share.truncate(k);
        let opened = sum_mod_p_to(mesh, 0, share, "E2A share")?;
        let c = match opened {
            Some(y) => y
                .iter()
                .enumerate()
                .map(|(j, &v)| match v {
                    2 => Ok(false),
                    v if v == P - 2 => Ok(true),
                    v => Err(MixedError::Usage(format!(
                        "internal: Boolean triple {j} opened to {v}, not ±2"
                    ))),
                })
                .collect::<Result<Vec<bool>, _>>()?,
            None => c.iter().map(|&x| x == 1).collect(),
        };
        Ok(Triples {
            a: a.iter().map(|&x| x == 1).collect(),
            b: b.iter().map(|&x| x == 1).collect(),
            c,
        })
    }

    /// A fresh encryption at party 0 of what party 0's ciphertext (its `Some`; the others
    /// pass `None`) encrypts: the switched E2A turns it into additive shares (its flooding
    /// hides the old noise), which the collective encryption sums back under encryption at
    /// party 0. Per party: two switched polynomials and one full one each way.
    fn refresh_at_root<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        held: Option<Ciphertext>,
        rng: &mut R,
    ) -> Result<Option<Ciphertext>, MixedError> {
        let shares = self.switched_shares_from_root(mesh, held, rng)?;
        mesh.set_phase("Boolean triples: the refresh's collective encryption");
        self.collective_encryption_to_root(mesh, &shares, "refresh share", rng)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn he_triples_fit_up_to_16_parties() {
        assert!((2..=16).all(he_triples_fit));
        assert!(!he_triples_fit(17));
    }
}
