//! E2A (seed Figure 15) of a ciphertext held by party 0 after switching it down to the
//! first [`E2A_PRIMES`] primes of the modulus (BFV modulus switching, `fhe`'s
//! `Ciphertext::switch_to_level`): the second polynomial passed along the chain and the
//! decryption shares summed back are 144 bits a coefficient instead of 438, a third of the
//! bytes (issue #18, "linear scaling": this is what keeps B2A within 1.25× from n = 2 to 16).
//!
//! Why it is sound. Switching from q to q_L rounds (q_L/q)·c; the result decrypts to the
//! same slots with noise (q_L/q)·E + τ0 + τ1·s, |τ| ≤ 1/2, so at most
//! 2^([`MAX_TREE_NOISE_BITS`] − log2 Δ + log2 Δ_L) + N·n·B_s/2 (B_s = 20, the bound of one key
//! share's coefficients). [`switched_flooding_hides`] checks that the flooding of this
//! level, ⌊Δ_L/(4n)⌋ per party, hides that at 40 bits and leaves decryption correct.

use fhe::bfv::{Ciphertext, Encoding};
use fhe_rand::{CryptoRng, Rng, RngCore};
use fhe_traits::{FheDecoder, FheDecrypter, Serialize};
use mixgc_nparty::Mesh;

use crate::chain::{pass_from_root, sum_to_root};
use crate::conversions::{flooding_bound_at, flooding_hides, flooding_noise, scaled_plaintext_at};
use crate::keygen::recv_poly_at;
use crate::sign_tree::MAX_TREE_NOISE_BITS;
use crate::wire::zero_secret_key;
use crate::{MixedError, ThresholdKeys};

/// How many primes of the modulus the switched E2A keeps: the first three (48 bits each).
pub const E2A_PRIMES: usize = 3;

/// The level of [`E2A_PRIMES`] primes in `par`'s chain.
fn e2a_level(par: &fhe::bfv::BfvParameters) -> usize {
    par.moduli().len().saturating_sub(E2A_PRIMES)
}

/// Bits of the noise after switching a ciphertext of noise ≤ 2^[`MAX_TREE_NOISE_BITS`] down
/// to the E2A level for `parties` parties (see the module docs), rounded up.
fn switched_noise_bits(par: &fhe::bfv::BfvParameters, parties: usize) -> Result<u64, MixedError> {
    let q = par.context_at_level(0)?.modulus().clone();
    let q_low = par.context_at_level(e2a_level(par))?.modulus().clone();
    let scaled = (MAX_TREE_NOISE_BITS + q_low.bits() + 1).saturating_sub(q.bits());
    // τ0 + τ1·s: at most 1/2 + N·n·20/2 per coefficient.
    let rounding = (par.degree() as u64 * parties.max(1) as u64 * 10 + 1).ilog2() as u64 + 1;
    Ok(scaled.max(rounding) + 1)
}

/// Whether the switched E2A's flooding under `par` hides that noise for `parties` parties.
pub fn switched_flooding_hides(par: &fhe::bfv::BfvParameters, parties: usize) -> bool {
    let level = e2a_level(par);
    match (
        flooding_bound_at(par, parties, level),
        switched_noise_bits(par, parties),
    ) {
        (Ok(b), Ok(noise)) => flooding_hides(par, &b, noise),
        _ => false,
    }
}

impl ThresholdKeys {
    /// E2A of party 0's ciphertext (its `Some`; the others pass `None`) at the level of
    /// [`E2A_PRIMES`] primes: additive shares mod p of its N slots, one vector per party.
    /// Party 0 switches down and passes the second polynomial along the chain; party i ≠ 0
    /// sends h_i = s_i·c1 + f_i − Δ_L·M_i (f_i its flood, M_i its share), summed along the
    /// chain into party 0, whose share is the decryption of c0 + s_0·c1 + Σ h_i.
    pub(crate) fn switched_shares_from_root<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        held: Option<Ciphertext>,
        rng: &mut R,
    ) -> Result<Vec<u64>, MixedError> {
        mesh.set_phase("E2A (switched down)");
        let par = self.parameters().clone();
        let level = e2a_level(&par);
        let root = mesh.me() == 0;
        if !switched_flooding_hides(&par, mesh.parties()) {
            return Err(MixedError::Usage(format!(
                "the switched E2A's flooding does not hide the noise for {} parties",
                mesh.parties()
            )));
        }
        let held = match (root, held) {
            (true, Some(mut ct)) => {
                if ct.len() != 2 {
                    return Err(MixedError::Usage(format!(
                        "internal: E2A of a ciphertext of {} polynomials",
                        ct.len()
                    )));
                }
                ct.switch_to_level(level)?;
                Some(ct)
            }
            (false, None) => None,
            _ => {
                return Err(MixedError::Usage(
                    "internal: only party 0 holds the ciphertext to convert".into(),
                ))
            }
        };
        let c1 = pass_from_root(
            mesh,
            0,
            held.as_ref().map(|ct| ct[1].clone()),
            |mesh, from| recv_poly_at(mesh, from, &par, level, "E2A second polynomial"),
            |p| Ok(p.to_bytes()),
        )?;
        let mut share = (*self.secret_poly_at(level)?).clone();
        share *= &c1;
        let mut mask = Vec::new();
        if !root {
            let p = par.plaintext();
            mask = (0..par.degree()).map(|_| rng.random_range(0..p)).collect();
            let bound = flooding_bound_at(&par, mesh.parties(), level)?;
            share += &flooding_noise(&par, &bound, level, rng)?;
            share -= &scaled_plaintext_at(&par, &zero_secret_key(&par)?, &mask, level, rng)?;
        }
        let total = sum_to_root(
            mesh,
            0,
            share,
            |mesh, from| recv_poly_at(mesh, from, &par, level, "E2A share"),
            |mut a, b| {
                a += b;
                a
            },
            |p| Ok(p.to_bytes()),
        )?;
        match (total, held) {
            (Some(total), Some(ct)) => {
                let mut c0 = ct[0].clone();
                c0 += &total;
                let combined = Ciphertext::new(vec![c0, c1], &par)?;
                let pt = zero_secret_key(&par)?.try_decrypt(&combined)?;
                Ok(Vec::<u64>::try_decode(&pt, Encoding::simd_at_level(level))?)
            }
            _ => Ok(mask),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_switched_flooding_hides_the_noise_and_keeps_a_third_of_the_modulus() {
        let par = crate::parameters();
        for n in [2, 3, 5, 16, 64, 1 << 16] {
            assert!(switched_flooding_hides(&par, n), "n = {n}");
        }
        let low = par.context_at_level(e2a_level(&par)).unwrap().modulus().bits();
        let full = par.context_at_level(0).unwrap().modulus().bits();
        assert_eq!((low, full), (144, 438));
    }
}
