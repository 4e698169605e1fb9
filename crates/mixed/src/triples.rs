//! Arithmetic Beaver triples mod p from threshold HE (seed §3.3), N per batch.
//!
//! Every party samples a_i, b_i uniform in Z_p^N.
//!
//! 1. A2E of the a_i ([`ThresholdKeys::from_shares`]): every party holds Enc(a), a = Σ a_i.
//! 2. Party i computes Enc(a)·b_i (a plaintext product) plus a fresh public-key encryption
//!    of zero; these are summed along the chain and passed back: Enc(Σ a·b_i) = Enc(a·b).
//! 3. E2A ([`ThresholdKeys::to_shares`], Figure 15) of Enc(a·b): the c_i, Σ c_i = a·b.
//!
//! Why the fresh Enc(0) in step 2: Enc(a) is public, so Enc(a)·b_i alone gives b_i away by
//! a division in R_q; with Enc_pk(0) added it is, under RLWE, indistinguishable from a fresh
//! encryption to any coalition lacking one key share (as in the table chain of
//! [`crate::lut`]). Its noise, which depends on b_i, is decrypted only inside E2A, whose
//! per-party flooding hides noise far above a plaintext product's (≈ 2^60,
//! [`crate::conversions::flooding_hides`]). No ciphertext–ciphertext product is needed, so
//! no relinearization key. Per party: at most six ciphertext-sized messages out and in
//! whatever n (chain aggregation), i.e. about 10.7 MB per batch of N = 16384 triples.

use fhe_rand::{CryptoRng, Rng, RngCore};
use mixgc_nparty::Mesh;

use crate::conversions::sum_ciphertexts;
use crate::ops::{add, mul_plain};
use crate::{MixedError, ThresholdKeys};

/// This party's shares of arithmetic Beaver triples mod p: c_t = a_t·b_t mod p once every
/// party's shares are summed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArithTriples {
    pub a: Vec<u64>,
    pub b: Vec<u64>,
    pub c: Vec<u64>,
}

impl ThresholdKeys {
    /// `count` arithmetic triples (module docs), in batches of N. Every party calls it at
    /// once with the same count.
    pub fn arithmetic_triples<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        count: usize,
        rng: &mut R,
    ) -> Result<ArithTriples, MixedError> {
        let par = self.parameters().clone();
        let (p, slots) = (par.plaintext(), par.degree());
        let mut out = ArithTriples::default();
        let mut left = count;
        while left > 0 {
            let k = left.min(slots);
            left -= k;
            let a: Vec<u64> = (0..k).map(|_| rng.random_range(0..p)).collect();
            let b: Vec<u64> = (0..k).map(|_| rng.random_range(0..p)).collect();
            let enc_a = self.from_shares(mesh, &a, rng)?;
            mesh.set_phase("arithmetic triples: Enc(a·b)");
            let mine = add(&mul_plain(&par, &enc_a, &b)?, &self.encrypt(&[], rng)?);
            let product = sum_ciphertexts(mesh, &par, mine)?;
            let c = self.to_shares(mesh, &product, rng)?;
            out.a.extend(a);
            out.b.extend(b);
            out.c.extend(&c[..k]);
        }
        Ok(out)
    }
}
