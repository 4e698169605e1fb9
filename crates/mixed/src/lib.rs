//! N-party mixed-mode MPC (issue #18), semi-honest with up to n − 1 corrupted parties.
//!
//! This crate holds the seed paper's E form ("Scalable Mixed-Mode MPC", §3, Figures 2–3):
//! values packed into the slots of a full-threshold (n-out-of-n) BFV ciphertext under a
//! collective public key, on top of `mixgc_nparty`'s [`Mesh`](mixgc_nparty::Mesh):
//!
//! - [`params`]: the BFV parameter set (N = 16384, the seed's p = 2^32 − 2^30 + 1);
//! - [`keygen`]: distributed key generation (Mouchet et al., "Multiparty Homomorphic
//!   Encryption from Ring-Learning-with-Errors", Protocol 1 EncKeyGen), each secret-key
//!   share staying in its own process;
//! - [`ThresholdKeys::relinearization_key`]: the collective relinearization key (Protocol 2,
//!   RelinKeyGen);
//! - [`ThresholdKeys::decrypt`]: threshold decryption (the same paper's Protocol 3 with an
//!   output key of zero), the decryption shares summed;
//! - [`ops`]: encryption of packed vectors mod p, homomorphic addition and plaintext
//!   multiplication, ciphertexts sent over the mesh;
//! - [`conversions`]: E2A and A2E between ciphertexts and additive shares mod p (seed
//!   Appendix A.3, Figure 15), with noise flooding;
//! - [`lut`]: masked lookup tables of 2^m ≤ 16 entries (seed §4, Figures 4–7, public and
//!   private tables; the chain of Figure 6 pipelined as §7.1) and the online lookup with a
//!   Boolean-shared index (Figure 8); [`tree_tables`]: private and 2^m-entry tables from the
//!   XOR sum of the mask bits, per-party traffic constant in n;
//! - [`b2a`]: B2A as a public-table lookup (seed §5.1, Figure 9);
//! - [`a2b`]: A2B by a Boolean mod-p adder on XOR shares (seed §5.2, Figure 10), offline
//!   and online;
//! - [`triples`]: arithmetic Beaver triples from threshold HE (seed §3.3);
//! - [`sign_tree`], [`xor_tables`], [`bool_triples`]: the XOR of the parties' bits under
//!   encryption by a binary tree of ciphertext products, and on it B2A's masked tables and
//!   Boolean triples with per-party traffic constant in n; [`sign_sum`] computes the same
//!   XOR from the parties' seeded collective sum and a sign polynomial (one polynomial per
//!   party), and [`switched_e2a`] converts its result at three primes of the modulus;
//! - [`program`]: the n-party backend of `mixgc_program::mixed`'s mixed program interface,
//!   on which the seed's Table 6 applications run: Biomatch (`mixgc_program::mixed::biomatch`,
//!   E → A → B) and Kmeans (`mixgc_program::mixed::kmeans`, E → A → B → A → E → A → B).
//!
//! Lattice arithmetic is the `fhe` crate's (`fhe::mbfv`); [`wire`] says where and why this
//! crate builds the library's objects from their serialized form.

pub mod a2b;
pub mod b2a;
pub mod bool_triples;
mod chain;
pub mod conversions;
pub mod distgarble;
mod error;
pub mod keygen;
pub mod keyhom;
pub mod lut;
pub mod ops;
pub mod params;
mod paterson_stockmeyer;
pub mod program;
mod relin;
pub mod sign_sum;
pub mod sign_tree;
pub mod switched_e2a;
pub mod tree_tables;
pub mod triples;
pub mod wire;
pub mod xor_tables;
pub mod yao;
pub mod yao_lut;

pub use error::MixedError;
pub use keygen::{keygen, ThresholdKeys};
pub use params::{parameters, CIPHERTEXT_MODULI, DEGREE, PLAINTEXT_MODULUS};

/// The BFV types of the `fhe` crate this crate's API uses.
pub use fhe::bfv::{BfvParameters, Ciphertext, Plaintext};
/// The randomness traits the `fhe` crate asks for (rand 0.9's).
pub use fhe_rand::{CryptoRng, RngCore};

/// The RNG callers outside this crate hand the protocols (ChaCha20 with rand 0.9's traits,
/// as the `fhe` crate asks).
pub type MixedRng = fhe_rand_chacha::ChaCha20Rng;

/// A [`MixedRng`] from a 32-byte seed (the caller draws it from the operating system).
pub fn rng_from_seed(seed: [u8; 32]) -> MixedRng {
    <MixedRng as fhe_rand::SeedableRng>::from_seed(seed)
}
