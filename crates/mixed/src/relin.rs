//! The collective relinearization key over the mesh: Mouchet et al. 2021, Protocol 2
//! (RelinKeyGen, two rounds), computed exactly as `fhe::mbfv::RelinKeyGenerator` does, but
//! with shares that can cross the mesh (the library's `RelinKeyShare` keeps them
//! crate-private; see [`crate::wire`]).
//!
//! With common random polynomials a_k (one per ciphertext prime q_k), w_k the CRT (Garner)
//! coefficient of q_k, and u_i a fresh small polynomial of party i:
//! - round 1: h0_i[k] = −a_k·u_i + w_k·s_i + e, h1_i[k] = a_k·s_i + e; summed to h0, h1;
//! - round 2: h0'_i[k] = h0[k]·s_i + e, h1'_i[k] = h1[k]·(u_i − s_i) + e;
//! - the key: c0[k] = Σ_i (h0'_i[k] + h1'_i[k]), c1[k] = h1[k].
//!
//! Both rounds sum along the chain into party 0, which passes the sum back
//! ([`crate::chain`]): per party at most two messages of 2L (round 1) and L (round 2)
//! polynomials each way, L = 5 here (≈ 2.2 MB and 1.1 MB).

use fhe::bfv::RelinearizationKey;
use fhe_math::rns::RnsContext;
use fhe_math::rq::{Poly, Representation};
use fhe_rand::{CryptoRng, RngCore, SeedableRng};
use fhe_rand_chacha::ChaCha20Rng;
use mixgc_nparty::Mesh;
use zeroize::Zeroizing;

use crate::chain::{pass_from_root, sum_to_root};
use crate::keygen::{malformed, NOISE_VARIANCE};
use crate::wire::{decode_polys, encode_polys, poly_max_bytes, relinearization_key_from};
use crate::{MixedError, ThresholdKeys};

/// Domain separation of the relinearization key's common random polynomials.
const RELIN_CRP_CONTEXT: &str = "mixgc-mixed 2026-11 threshold BFV relinearization CRPs";

fn math(e: fhe_math::Error) -> MixedError {
    MixedError::Fhe(fhe::Error::MathError(e))
}

impl ThresholdKeys {
    /// Runs the relinearization-key protocol (every party calls it at once, after
    /// [`crate::keygen`]); every party gets the same key for s = Σ s_i.
    pub fn relinearization_key<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        rng: &mut R,
    ) -> Result<RelinearizationKey, MixedError> {
        let par = self.parameters().clone();
        let ctx = par.context_at_level(0)?.clone();
        let primes = par.moduli().len();
        let seed = blake3::derive_key(RELIN_CRP_CONTEXT, self.crp_seed());
        let mut crp_rng = ChaCha20Rng::from_seed(seed);
        let a: Vec<Poly> = (0..primes)
            .map(|_| Poly::random(&ctx, Representation::Ntt, &mut crp_rng))
            .collect();
        let small = |rng: &mut R| -> Result<Zeroizing<Poly>, MixedError> {
            Poly::small(&ctx, Representation::Ntt, NOISE_VARIANCE, rng)
                .map(Zeroizing::new)
                .map_err(math)
        };
        let s = self.secret_poly()?;
        let mut s_power = Zeroizing::new(s.as_ref().clone());
        s_power.change_representation(Representation::PowerBasis);
        let u = small(rng)?;
        let rns = RnsContext::new(par.moduli()).map_err(math)?;

        mesh.set_phase("relinearization key: round 1");
        let mut round1 = Vec::with_capacity(2 * primes);
        for (k, a_k) in a.iter().enumerate() {
            let w = rns
                .get_garner(k)
                .ok_or_else(|| MixedError::Usage(format!("no CRT coefficient for prime {k}")))?;
            let mut w_s = Zeroizing::new(w * s_power.as_ref());
            w_s.change_representation(Representation::Ntt);
            let mut h = -a_k.clone();
            h *= u.as_ref();
            h += w_s.as_ref();
            h += small(rng)?.as_ref();
            round1.push(h);
        }
        for a_k in &a {
            let mut h = a_k.clone();
            h *= s.as_ref();
            h += small(rng)?.as_ref();
            round1.push(h);
        }
        let round1 = self.sum_poly_lists(mesh, round1, "relinearization round-1 share")?;

        mesh.set_phase("relinearization key: round 2");
        let u_minus_s = Zeroizing::new(u.as_ref() - s.as_ref());
        let mut round2 = Vec::with_capacity(primes);
        for k in 0..primes {
            let mut h0 = round1[k].clone();
            h0 *= s.as_ref();
            h0 += small(rng)?.as_ref();
            let mut h1 = round1[primes + k].clone();
            h1 *= u_minus_s.as_ref();
            h1 += small(rng)?.as_ref();
            h0 += &h1;
            round2.push(h0);
        }
        let mut c0 = self.sum_poly_lists(mesh, round2, "relinearization round-2 share")?;
        let mut c1 = round1[primes..].to_vec();
        for p in c0.iter_mut().chain(c1.iter_mut()) {
            p.change_representation(Representation::NttShoup);
        }
        Ok(relinearization_key_from(&c0, &c1, &par)?)
    }

    /// Sums every party's list of polynomials (the same length everywhere) along the chain
    /// into party 0 and passes the sum back: every party returns it.
    fn sum_poly_lists(
        &self,
        mesh: &mut Mesh,
        mine: Vec<Poly>,
        what: &'static str,
    ) -> Result<Vec<Poly>, MixedError> {
        let par = self.parameters();
        let count = mine.len();
        let max_bytes = count * (poly_max_bytes(par) + 4);
        let recv = |mesh: &mut Mesh, from: usize| {
            let bytes = mesh.recv(from, mixgc_net::Tag::Openings, max_bytes)?;
            decode_polys(&bytes, count, par).map_err(|why| malformed(mesh, from, what, why))
        };
        let encode = |polys: &Vec<Poly>| Ok(encode_polys(polys));
        let add = |mut sum: Vec<Poly>, theirs: &Vec<Poly>| {
            for (s, t) in sum.iter_mut().zip(theirs) {
                *s += t;
            }
            sum
        };
        let sum = sum_to_root(mesh, 0, mine, recv, add, encode)?;
        pass_from_root(mesh, 0, sum, recv, encode)
    }
}
