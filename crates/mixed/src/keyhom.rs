//! The key-homomorphic private-key AHE of seed Appendix A.2 (one-level private-key BGV),
//! on `fhe-math`'s polynomial arithmetic, for distributed garbling ([`crate::distgarble`]).
//!
//! Enc_s(t, m) = a_t·s + p·e + m ∈ R_q = Z_q[X]/(X^L + 1), Dec_s(t, c) = [c − a_t·s]_q mod p,
//! where a_t is derived from the label t by a random oracle (blake3 of the session and the
//! label, expanded by `Poly::random_from_seed`: Appendix A.2's first option). Ciphertexts
//! under keys s_1, s_2 with one label add to a ciphertext under s_1 + s_2 of m_1 + m_2
//! (key homomorphism): Σ_i (a·s_i + p·e_i + m_i) = a·Σ s_i + p·Σ e_i + Σ m_i.
//!
//! Keys are small integer vectors (ternary shares summed, see `docs/mixed-mode.md`, "Keys
//! shared modulo p that act as secret keys in R_q"); messages are coefficient vectors mod p
//! (no slot encoding: a message is itself a key).
//!
//! **Parameters.** L = [`KEY_DEGREE`] = 2048 and one 54-bit NTT prime q = [`KEY_MODULUS`]
//! (q ≡ 1 mod 4096): the HomomorphicEncryption.org standard's Table 1 allows log q ≤ 54 at
//! N = 2048 for 128-bit classical security. Noise: `fhe-util`'s centered binomial of
//! variance 10 (|e| ≤ [`NOISE_BOUND`]). p is the crate's plaintext prime. A sum of n
//! ciphertexts decrypts while p·n·B + n·(p − 1) < q/2 ([`KeyHomParams::max_parties`]).
//! Smaller degrees ([`KeyHomParams::with_degree`]) are **not secure** and exist so that
//! tests can garble whole circuits on two cores.
//!
//! **Deviations from `fhe`'s own API, argued.** `fhe` 0.1.1 offers BFV only: its
//! secret-key encryption scales the message by Δ = ⌊q/p⌋ and draws its own random `a`,
//! and its secret keys are sampled by the crate. Appendix A.2 needs (1) `a` fixed by the
//! label, so that ciphertexts of different parties under different keys add up (key
//! homomorphism), and (2) a key chosen by the protocol (the sum of two wire-key shares).
//! Neither is reachable through `fhe::bfv`, so the scheme is built here from `fhe-math`'s
//! `Poly` (NTT products, its seeded uniform sampler) and `fhe-util`'s noise sampler: the
//! library's arithmetic, no hand-rolled lattice code beyond the two lines of the scheme.

use std::sync::Arc;

use fhe_math::rq::{traits::TryConvertFrom, Context, Poly, Representation};
use fhe_rand::{CryptoRng, RngCore};
use zeroize::Zeroizing;

use crate::{MixedError, PLAINTEXT_MODULUS as P};

/// The ring degree L of the secure parameter set (also the length of a wire key).
pub const KEY_DEGREE: usize = 2048;

/// The ciphertext prime q = 2^54 − 77823 (54 bits, q ≡ 1 mod 4096, so NTT-friendly for
/// every power-of-two degree up to 2048).
pub const KEY_MODULUS: u64 = 0x003f_ffff_fffe_d001;

/// The variance of the centered binomial noise of one encryption.
pub const NOISE_VARIANCE: usize = 10;

/// The largest absolute value of one noise coefficient (2 × [`NOISE_VARIANCE`]).
pub const NOISE_BOUND: u64 = 2 * NOISE_VARIANCE as u64;

/// Bytes of one serialized ciphertext coefficient (q < 2^56).
const COEFFICIENT_BYTES: usize = 7;

/// Domain separation of the label polynomials a_t.
const LABEL_CONTEXT: &str = "mixgc-mixed 2026-11 key-homomorphic BGV label polynomial";

/// The ring of the key-homomorphic scheme.
#[derive(Clone, Debug)]
pub struct KeyHomParams {
    ctx: Arc<Context>,
    degree: usize,
}

impl KeyHomParams {
    /// The secure parameter set (L = [`KEY_DEGREE`], q = [`KEY_MODULUS`]).
    pub fn standard() -> Result<Self, MixedError> {
        Self::with_degree(KEY_DEGREE)
    }

    /// The same prime with ring degree `degree` (a power of two from 16 to
    /// [`KEY_DEGREE`]). Below [`KEY_DEGREE`] the scheme is **not secure**: for tests only.
    pub fn with_degree(degree: usize) -> Result<Self, MixedError> {
        if !degree.is_power_of_two() || !(16..=KEY_DEGREE).contains(&degree) {
            return Err(MixedError::Usage(format!(
                "a key ring of degree {degree}: it must be a power of two from 16 to {KEY_DEGREE}"
            )));
        }
        let ctx = Context::new_arc(&[KEY_MODULUS], degree).map_err(fhe::Error::MathError)?;
        Ok(KeyHomParams { ctx, degree })
    }

    /// L, the ring degree (the number of coefficients of a key and of a message).
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// The most parties whose ciphertexts may be summed and still decrypt: the largest n
    /// with n·p·B + n·(p − 1) < q/2 (B = [`NOISE_BOUND`]; messages lifted to [0, p)).
    pub fn max_parties(&self) -> usize {
        let per_party = u128::from(P) * u128::from(NOISE_BOUND) + u128::from(P - 1);
        ((u128::from(KEY_MODULUS) / 2 - 1) / per_party) as usize
    }

    /// The bytes of one serialized ciphertext ([`Self::encode`]).
    pub fn ciphertext_bytes(&self) -> usize {
        self.degree * COEFFICIENT_BYTES
    }

    /// a_t for the label `label` in session `session` (random oracle: blake3, then
    /// `fhe-math`'s seeded uniform sampler), in NTT form.
    pub fn label_poly(&self, session: &[u8; 32], label: &[u8]) -> Poly {
        let mut h = blake3::Hasher::new_derive_key(LABEL_CONTEXT);
        h.update(session);
        h.update(label);
        Poly::random_from_seed(&self.ctx, Representation::Ntt, *h.finalize().as_bytes())
    }

    /// The key `key` (small signed coefficients, L of them) as a polynomial in NTT form.
    fn key_poly(&self, key: &[i64]) -> Result<Zeroizing<Poly>, MixedError> {
        self.check_len("key", key.len())?;
        let mut s = Poly::try_convert_from(key, &self.ctx, false, Representation::PowerBasis)
            .map_err(fhe::Error::MathError)?;
        s.change_representation(Representation::Ntt);
        Ok(Zeroizing::new(s))
    }

    fn check_len(&self, what: &str, len: usize) -> Result<(), MixedError> {
        if len != self.degree {
            return Err(MixedError::Usage(format!(
                "a {what} of {len} coefficients for a ring of degree {}",
                self.degree
            )));
        }
        Ok(())
    }

    /// Enc_key(a, message) = a·key + p·e + message (seed App. A.2), `a` a label polynomial
    /// ([`Self::label_poly`]), `message` L values < p. The ciphertext is in power-basis form.
    pub fn encrypt<R: RngCore + CryptoRng>(
        &self,
        a: &Poly,
        key: &[i64],
        message: &[u64],
        rng: &mut R,
    ) -> Result<Poly, MixedError> {
        self.check_len("message", message.len())?;
        if let Some(j) = message.iter().position(|&m| m >= P) {
            return Err(MixedError::Usage(format!(
                "message coefficient {j} is {}, not below p = {P}",
                message[j]
            )));
        }
        let e = Zeroizing::new(
            fhe_util::sample_vec_cbd(self.degree, NOISE_VARIANCE, rng)
                .map_err(|e| MixedError::Usage(e.into()))?,
        );
        let q = i128::from(KEY_MODULUS);
        let pe_m: Vec<u64> = e
            .iter()
            .zip(message)
            .map(|(&e, &m)| (i128::from(e) * i128::from(P) + i128::from(m)).rem_euclid(q) as u64)
            .collect();
        let mut c = &*self.key_poly(key)? * a;
        c.change_representation(Representation::PowerBasis);
        let pe_m = Poly::try_convert_from(pe_m.as_slice(), &self.ctx, false, Representation::PowerBasis)
            .map_err(fhe::Error::MathError)?;
        c += &pe_m;
        Ok(c)
    }

    /// Dec_key(a, c) = [c − a·key]_q mod p (centered reduction mod q, then mod p).
    pub fn decrypt(&self, a: &Poly, key: &[i64], c: &Poly) -> Result<Vec<u64>, MixedError> {
        let mut m = &*self.key_poly(key)? * a;
        m.change_representation(Representation::PowerBasis);
        let m = c - &m;
        let q = KEY_MODULUS;
        Ok(m.coefficients()
            .row(0)
            .iter()
            .map(|&x| {
                let centered = if x > q / 2 {
                    i128::from(x) - i128::from(q)
                } else {
                    i128::from(x)
                };
                centered.rem_euclid(i128::from(P)) as u64
            })
            .collect())
    }

    /// The ciphertext's L coefficients, [`COEFFICIENT_BYTES`] little-endian bytes each.
    pub fn encode(&self, c: &Poly) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.ciphertext_bytes());
        for &x in c.coefficients().row(0) {
            out.extend_from_slice(&x.to_le_bytes()[..COEFFICIENT_BYTES]);
        }
        out
    }

    /// A ciphertext from [`Self::encode`]'s bytes: exactly L coefficients, each below q.
    pub fn decode(&self, bytes: &[u8]) -> Result<Poly, String> {
        if bytes.len() != self.ciphertext_bytes() {
            return Err(format!(
                "{} bytes, not the {} of a ciphertext",
                bytes.len(),
                self.ciphertext_bytes()
            ));
        }
        let mut coefficients = Vec::with_capacity(self.degree);
        for (j, chunk) in bytes.chunks_exact(COEFFICIENT_BYTES).enumerate() {
            let mut word = [0u8; 8];
            word[..COEFFICIENT_BYTES].copy_from_slice(chunk);
            let x = u64::from_le_bytes(word);
            if x >= KEY_MODULUS {
                return Err(format!("coefficient {j} is {x}, not below q = {KEY_MODULUS}"));
            }
            coefficients.push(x);
        }
        Poly::try_convert_from(
            coefficients.as_slice(),
            &self.ctx,
            false,
            Representation::PowerBasis,
        )
        .map_err(|e| e.to_string())
    }

    /// The all-zero ciphertext (the neutral element of key-homomorphic addition).
    pub fn zero(&self) -> Poly {
        Poly::zero(&self.ctx, Representation::PowerBasis)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fhe_rand::{Rng, SeedableRng};
    use fhe_rand_chacha::ChaCha20Rng;

    fn ternary(rng: &mut ChaCha20Rng, l: usize) -> Vec<i64> {
        (0..l).map(|_| rng.random_range(-1..=1)).collect()
    }

    fn is_prime(n: u64) -> bool {
        n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| !n.is_multiple_of(d))
    }

    #[test]
    fn the_modulus_is_a_54_bit_ntt_prime() {
        assert_eq!(64 - KEY_MODULUS.leading_zeros(), 54);
        assert_eq!(KEY_MODULUS % (2 * KEY_DEGREE as u64), 1);
        assert!(is_prime(KEY_MODULUS));
        assert!(KeyHomParams::standard().unwrap().max_parties() > 1 << 16);
    }

    #[test]
    fn encryption_decrypts_and_sums_under_summed_keys() {
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        for l in [16, 256, KEY_DEGREE] {
            let par = KeyHomParams::with_degree(l).unwrap();
            let a = par.label_poly(&[3; 32], b"gate 7 row 1");
            // Edge messages: 0, p − 1, and random.
            let mut msgs: Vec<Vec<u64>> = vec![vec![0; l], vec![P - 1; l]];
            msgs.push((0..l).map(|_| rng.random_range(0..P)).collect());
            let keys: Vec<Vec<i64>> = (0..3).map(|_| ternary(&mut rng, l)).collect();
            for (m, k) in msgs.iter().zip(&keys) {
                let c = par.encrypt(&a, k, m, &mut rng).unwrap();
                assert_eq!(&par.decrypt(&a, k, &c).unwrap(), m);
                assert_eq!(par.decode(&par.encode(&c)).unwrap(), c);
            }
            // Key homomorphism: the sum decrypts under the sum of the keys.
            let mut sum = par.zero();
            for (m, k) in msgs.iter().zip(&keys) {
                sum += &par.encrypt(&a, k, m, &mut rng).unwrap();
            }
            let key: Vec<i64> = (0..l).map(|j| keys.iter().map(|k| k[j]).sum()).collect();
            let want: Vec<u64> = (0..l)
                .map(|j| msgs.iter().map(|m| m[j]).sum::<u64>() % P)
                .collect();
            assert_eq!(par.decrypt(&a, &key, &sum).unwrap(), want);
            // Under another label, or a key off by one coefficient, it is garbage.
            let b = par.label_poly(&[3; 32], b"gate 7 row 2");
            assert_ne!(par.decrypt(&b, &key, &sum).unwrap(), want);
            let mut off = key.clone();
            off[l / 2] += 1;
            assert_ne!(par.decrypt(&a, &off, &sum).unwrap(), want);
        }
    }

    #[test]
    fn uniform_key_shares_mod_p_do_not_decrypt() {
        // The counterexample of docs/mixed-mode.md: shares uniform mod p sum to k + p·w.
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let par = KeyHomParams::with_degree(64).unwrap();
        let a = par.label_poly(&[4; 32], b"t");
        let m: Vec<u64> = (0..64).map(|_| rng.random_range(0..P)).collect();
        let s1: Vec<i64> = (0..64).map(|_| rng.random_range(0..P as i64)).collect();
        let s2: Vec<i64> = (0..64).map(|_| rng.random_range(0..P as i64)).collect();
        let zero = vec![0; 64];
        let c =
            &par.encrypt(&a, &s1, &m, &mut rng).unwrap() + &par.encrypt(&a, &s2, &zero, &mut rng).unwrap();
        let lifted: Vec<i64> = s1
            .iter()
            .zip(&s2)
            .map(|(x, y)| {
                let k = (x + y) % P as i64;
                if k > P as i64 / 2 {
                    k - P as i64
                } else {
                    k
                }
            })
            .collect();
        assert_ne!(par.decrypt(&a, &lifted, &c).unwrap(), m);
    }

    #[test]
    fn bad_inputs_are_refused_with_their_reason() {
        let par = KeyHomParams::with_degree(16).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let a = par.label_poly(&[0; 32], b"");
        let e = par.encrypt(&a, &[0; 16], &[P; 16], &mut rng).unwrap_err();
        assert!(e.to_string().contains("not below p"), "{e}");
        let e = par.encrypt(&a, &[0; 15], &[0; 16], &mut rng).unwrap_err();
        assert!(e.to_string().contains("key of 15 coefficients"), "{e}");
        assert!(KeyHomParams::with_degree(24).is_err());
        assert!(KeyHomParams::with_degree(4096).is_err());
        assert!(par.decode(&[0; 5]).unwrap_err().contains("not the 112"));
        let mut bytes = par.encode(&par.zero());
        bytes[7..14].copy_from_slice(&[0xff; 7]);
        assert!(par.decode(&bytes).unwrap_err().contains("coefficient 1"));
    }
}
