//! The BFV parameter set of the E form.
//!
//! - Plaintext modulus: the seed's p = 2^32 − 2^30 + 1 = 3·2^30 + 1 (prime). p − 1 = 3·2^30,
//!   so p ≡ 1 (mod 2N) for every power-of-two N ≤ 2^29: the plaintext ring splits into N
//!   slots (SIMD packing), as the seed's §3 requires.
//! - Ring degree N = 16384 and ciphertext modulus q = the product of the nine NTT-friendly
//!   primes of `fhe`'s own 128-bit preset for N = 16384
//!   (`BfvParameters::default_parameters_128`), 3·48 + 6·49 = 438 bits. The
//!   HomomorphicEncryption.org Security Standard (Albrecht et al., 2018), Table 1 (classical
//!   security, 128 bits), allows log q ≤ 438 at N = 16384 for uniform, error-distributed and
//!   ternary secrets alike; `fhe` samples secret keys and errors from a centered binomial of
//!   variance 10 (σ ≈ 3.16, the standard's σ ≈ 3.2 error width).
//!
//! Why N = 16384 and not 8192 (218 bits): the XOR trees of [`crate::sign_tree`] multiply
//! ciphertexts along a binary tree of depth ⌈log2 n⌉ (two more levels for Boolean triples),
//! and each relinearized product costs ≈ 48 bits of noise (measured: fresh ≈ 2^15, then
//! 2^63, 2^112, 2^161, 2^210 for a key summed from 16 shares). E2A's flooding hides noise up
//! to about 2^(351 − log2 n) here against 2^(131 − log2 n) at N = 8192, where only depth 2
//! (n ≤ 4) would fit.

use std::sync::{Arc, OnceLock};

use fhe::bfv::{BfvParameters, BfvParametersBuilder};

/// The seed's plaintext prime p = 2^32 − 2^30 + 1 (defined beside the mixed program
/// interface, which computes modulo it too).
pub const PLAINTEXT_MODULUS: u64 = mixgc_program::mixed::PLAINTEXT_MODULUS;

/// Ring degree N, which is also the number of plaintext slots (the program interface's
/// `SLOTS`).
pub const DEGREE: usize = mixgc_program::mixed::SLOTS;

/// The ciphertext primes (q ≈ 2^438): `fhe` 0.1.1's 128-bit preset for N = 16384.
pub const CIPHERTEXT_MODULI: [u64; 9] = [
    0xfffffffd8001,
    0xfffffffa0001,
    0xfffffff00001,
    0x1fffffff68001,
    0x1fffffff50001,
    0x1ffffffee8001,
    0x1ffffffea0001,
    0x1ffffffe88001,
    0x1ffffffe48001,
];

/// The parameter set above (built once per process).
pub fn parameters() -> Arc<BfvParameters> {
    static PARAMETERS: OnceLock<Arc<BfvParameters>> = OnceLock::new();
    PARAMETERS
        .get_or_init(|| {
            BfvParametersBuilder::new()
                .set_degree(DEGREE)
                .set_plaintext_modulus(PLAINTEXT_MODULUS)
                .set_moduli(&CIPHERTEXT_MODULI)
                .build_arc()
                .expect("the constant BFV parameter set is valid (checked by a test)")
        })
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_prime(n: u64) -> bool {
        n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| !n.is_multiple_of(d))
    }

    #[test]
    fn p_is_the_seeds_prime_and_packs() {
        assert_eq!(PLAINTEXT_MODULUS, 3_221_225_473);
        assert!(is_prime(PLAINTEXT_MODULUS));
        assert_eq!(PLAINTEXT_MODULUS % (2 * DEGREE as u64), 1);
    }

    #[test]
    fn q_is_at_most_438_bits_and_made_of_ntt_primes() {
        let bits: u32 = CIPHERTEXT_MODULI.iter().map(|q| 64 - q.leading_zeros()).sum();
        assert_eq!(bits, 438);
        for q in CIPHERTEXT_MODULI {
            assert!(is_prime(q), "{q:#x}");
            assert_eq!(q % (2 * DEGREE as u64), 1, "{q:#x}");
        }
    }

    #[test]
    fn the_parameter_set_builds() {
        let par = parameters();
        assert_eq!(par.degree(), DEGREE);
        assert_eq!(par.plaintext(), PLAINTEXT_MODULUS);
        assert_eq!(par.moduli(), &CIPHERTEXT_MODULI);
    }
}
