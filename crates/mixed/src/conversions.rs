//! E2A and A2E: between a threshold-BFV ciphertext and additive shares mod p (seed,
//! Appendix A.3, Figure 15, after Mouchet et al.'s Enc2Share; BFV here, BGV there).
//!
//! E2A (Figure 15), party 0 in the role of the figure's P1: every party i ≠ 0 samples a
//! uniform mask M_i ∈ Z_p^N (its output share) and sends party 0
//! h_i = s_i·c1 + e_i + f_i − Δ·M_i, with f_i the flooding noise below; party 0 outputs the
//! slots of c0 + s_0·c1 + e_0 + Σ h_i = Δ·(x − Σ M_i) + noise, so the shares sum to x.
//! The h_i are summed along a chain into party 0 ([`crate::chain`]): one polynomial out and
//! one in per party.
//!
//! A2E: every party encrypts its share under the collective key; the ciphertexts are summed
//! along the chain into party 0, and the sum passed back along it (at most two ciphertexts
//! out and two in per party).
//!
//! Noise flooding — the deviation from `fhe` 0.1.1: its decryption shares draw their noise
//! from a fixed variance of 10 (a `TODO` in its source), which does not hide the
//! ciphertext's own noise E from party 0, and E depends on the secret key. So each h_i gets
//! f_i uniform in [−B, B] on every coefficient, sampled here and added with `fhe-math`'s
//! polynomial arithmetic. [`flooding_bound`] takes B = ⌊Δ / (4n)⌋, Δ = ⌊q/p⌋:
//! - correctness: the n floods add at most n·B = Δ/4 to E, so decryption stays correct
//!   while E < Δ/4 (minus the fresh noise of the shares, a few hundred);
//! - privacy: one honest party's f_i alone hides E: the statistical distance between
//!   E + U[−B, B] and U[−B, B] is at most N·|E|∞ / (2B + 1) over the N coefficients, so it
//!   stays below 2^−40 whenever |E|∞ ≤ 2B / (N · 2^40). With this crate's parameters
//!   (Δ ≈ 2^186) that is |E|∞ ≲ 2^(131 − log2 n): fresh ciphertexts (≈ 2^15) and ones after a
//!   plaintext product (≈ 2^60) are far inside it. [`flooding_hides`] checks a bound.

use std::sync::Arc;

use fhe::bfv::{BfvParameters, Ciphertext, Encoding, Plaintext, SecretKey};
use fhe_math::rq::{traits::TryConvertFrom, Poly, Representation};
use fhe_rand::{CryptoRng, Rng, RngCore};
use fhe_traits::{FheEncoder, FheEncrypter};
use mixgc_nparty::Mesh;
use num_bigint::BigUint;

use crate::chain::{pass_from_root, sum_to_root};
use crate::ops::{encode, recv_ciphertext};
use crate::wire::{encode_ciphertext, zero_secret_key};
use crate::{MixedError, ThresholdKeys};

/// Statistical security of the flooding, in bits.
pub const FLOODING_STATISTICAL_BITS: u64 = 40;

/// B, the half-width of every party's flooding noise for `parties` parties: ⌊Δ / (4n)⌋.
pub fn flooding_bound(par: &BfvParameters, parties: usize) -> Result<BigUint, MixedError> {
    flooding_bound_at(par, parties, 0)
}

/// B for a ciphertext at `level` (Δ of that level's modulus): ⌊Δ_level / (4n)⌋.
pub fn flooding_bound_at(par: &BfvParameters, parties: usize, level: usize) -> Result<BigUint, MixedError> {
    let q = par.context_at_level(level)?.modulus().clone();
    let delta = q / par.plaintext();
    Ok(delta / (4 * parties.max(1) as u64))
}

/// Whether flooding of half-width `bound` hides a ciphertext noise of at most
/// 2^`noise_bits` (per coefficient) to within 2^−40 over all N coefficients.
pub fn flooding_hides(par: &BfvParameters, bound: &BigUint, noise_bits: u64) -> bool {
    let degree_bits = u64::from(par.degree().trailing_zeros());
    noise_bits + degree_bits + FLOODING_STATISTICAL_BITS < bound.bits() + 1
}

/// A polynomial (NTT form, the modulus of `level`) with coefficients uniform in
/// [−bound, bound].
pub(crate) fn flooding_noise<R: RngCore + CryptoRng>(
    par: &Arc<BfvParameters>,
    bound: &BigUint,
    level: usize,
    rng: &mut R,
) -> Result<Poly, MixedError> {
    let ctx = par.context_at_level(level)?;
    let q = ctx.modulus();
    let width = bound * 2u32 + 1u32;
    let bytes = width.bits().div_ceil(8) as usize;
    let top_mask = 0xffu8 >> (bytes as u64 * 8 - width.bits());
    let mut buf = vec![0u8; bytes];
    let coefficients: Vec<BigUint> = (0..par.degree())
        .map(|_| loop {
            // Rejection sampling: uniform in [0, width), then shifted to [−bound, bound]
            // and reduced mod q.
            rng.fill_bytes(&mut buf);
            buf[bytes - 1] &= top_mask;
            let r = BigUint::from_bytes_le(&buf);
            if r < width {
                break (r + q - bound) % q;
            }
        })
        .collect();
    let mut poly = Poly::try_convert_from(coefficients.as_slice(), ctx, false, Representation::PowerBasis)
        .map_err(fhe::Error::MathError)?;
    poly.change_representation(Representation::Ntt);
    Ok(poly)
}

/// Δ·m + (fresh small noise) for the slots `m`: the c0 of `m` encrypted under the all-zero
/// key, which is exactly the library's scaled plaintext plus its small noise.
pub(crate) fn scaled_plaintext<R: RngCore + CryptoRng>(
    par: &Arc<BfvParameters>,
    zero: &SecretKey,
    slots: &[u64],
    rng: &mut R,
) -> Result<Poly, MixedError> {
    let ct: Ciphertext = zero.try_encrypt(&encode(par, slots)?, rng)?;
    Ok(ct[0].clone())
}

/// [`scaled_plaintext`] over the modulus of `level`: Δ_level·m + small noise.
pub(crate) fn scaled_plaintext_at<R: RngCore + CryptoRng>(
    par: &Arc<BfvParameters>,
    zero: &SecretKey,
    slots: &[u64],
    level: usize,
    rng: &mut R,
) -> Result<Poly, MixedError> {
    let mut padded = slots.to_vec();
    padded.resize(par.degree(), 0);
    let pt = Plaintext::try_encode(&padded, Encoding::simd_at_level(level), par)?;
    let ct: Ciphertext = zero.try_encrypt(&pt, rng)?;
    Ok(ct[0].clone())
}

impl ThresholdKeys {
    /// E2A (seed Figure 15): turns `ct` (the same at every party) into additive shares mod p
    /// of its N slots, one vector per party; they sum to the plaintext mod p. Every party
    /// calls it at once.
    pub fn to_shares<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        ct: &Ciphertext,
        rng: &mut R,
    ) -> Result<Vec<u64>, MixedError> {
        mesh.set_phase("E2A");
        let par = self.parameters().clone();
        let bound = flooding_bound(&par, mesh.parties())?;
        let mut share = self.decryption_share(ct, rng)?;
        // Party 0's share comes out of the decryption; every other party's is its mask.
        let mut mask = Vec::new();
        if mesh.me() != 0 {
            let p = par.plaintext();
            mask = (0..par.degree()).map(|_| rng.random_range(0..p)).collect();
            share += &flooding_noise(&par, &bound, 0, rng)?;
            share -= &scaled_plaintext(&par, &zero_secret_key(&par)?, &mask, rng)?;
        }
        match self.sum_polys_to(mesh, 0, share, "E2A share")? {
            Some(total) => self.combine(ct, &[total]),
            None => Ok(mask),
        }
    }

    /// A2E: turns this party's additive shares mod p (`share`, at most N slots, each < p)
    /// into a ciphertext of their sum, returned at every party. Every party calls it at once.
    pub fn from_shares<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        share: &[u64],
        rng: &mut R,
    ) -> Result<Ciphertext, MixedError> {
        mesh.set_phase("A2E");
        let par = self.parameters().clone();
        let mine = self.encrypt(share, rng)?;
        sum_ciphertexts(mesh, &par, mine)
    }
}

/// Sums every party's ciphertext `mine` along the chain into party 0, which passes the sum
/// back: every party returns the same Σ mine (two ciphertexts out and in per party, at most).
pub(crate) fn sum_ciphertexts(
    mesh: &mut Mesh,
    par: &Arc<BfvParameters>,
    mine: Ciphertext,
) -> Result<Ciphertext, MixedError> {
    let recv = |mesh: &mut Mesh, from: usize| recv_ciphertext(mesh, from, par);
    let encode = |ct: &Ciphertext| encode_ciphertext(ct).map_err(MixedError::Usage);
    let sum = sum_to_root(mesh, 0, mine, recv, |a, b| &a + b, encode)?;
    pass_from_root(mesh, 0, sum, recv, encode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::parameters;

    #[test]
    fn the_flooding_bound_leaves_room_and_hides_realistic_noise() {
        let par = parameters();
        for n in [2, 3, 5, 16, 128] {
            let b = flooding_bound(&par, n).unwrap();
            let q = par.context_at_level(0).unwrap().modulus().clone();
            let delta = &q / par.plaintext();
            // n floods use at most a quarter of Δ.
            assert!(&b * n as u64 * 4u32 <= delta);
            // A ciphertext after a plaintext product (noise ≈ 2^60) is hidden at 40 bits.
            assert!(flooding_hides(&par, &b, 60), "n = {n}");
            // Noise as large as the bound itself is not.
            assert!(!flooding_hides(&par, &b, b.bits()));
        }
    }

    #[test]
    fn flooding_noise_stays_within_its_bound_and_fills_it() {
        use fhe_rand::SeedableRng;
        let par = parameters();
        let mut rng = fhe_rand_chacha::ChaCha20Rng::seed_from_u64(4);
        let bound = flooding_bound(&par, 3).unwrap();
        let mut poly = flooding_noise(&par, &bound, 0, &mut rng).unwrap();
        poly.change_representation(Representation::PowerBasis);
        let q = par.context_at_level(0).unwrap().modulus().clone();
        let half = &q >> 1u32;
        let mut widest = BigUint::from(0u32);
        for c in Vec::<BigUint>::from(&poly) {
            let magnitude = if c > half { &q - &c } else { c };
            assert!(magnitude <= bound);
            widest = widest.max(magnitude);
        }
        // 8192 uniform draws: the largest is within 2^−10 of the bound but for 2^−11 odds.
        assert!(widest.bits() + 1 >= bound.bits());
    }
}
