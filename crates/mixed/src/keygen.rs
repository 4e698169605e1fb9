//! Distributed key generation and threshold decryption over the mesh.
//!
//! Mouchet, Troncoso-Pastoriza, Bossuat, Hubaux, "Multiparty Homomorphic Encryption from
//! Ring-Learning-with-Errors" (PETS 2021), as implemented by `fhe::mbfv`:
//! - EncKeyGen (Protocol 1): party i samples s_i and sends p0_i = −a·s_i + e_i for a common
//!   random polynomial a; the collective key is (Σ p0_i, a), a key for s = Σ s_i.
//! - Decryption (Protocol 3, KeySwitch to the zero key): party i sends h_i = s_i·c1 + e_i;
//!   c0 + Σ h_i = Δ·m + noise, which rescales to m.
//!
//! Keygen is all-to-all (every party needs the key, n − 1 polynomials out and in per
//! party, once per session); decryption shares are summed along a chain
//! ([`crate::chain`]), one polynomial out and in per party. No process ever holds another
//! party's s_i.
//!
//! Noise: `fhe` 0.1.1 draws e_i of decryption shares from its fixed small variance (its
//! source marks flooding as a TODO), so a decryption share is not re-randomized against
//! the ciphertext's own noise. That is enough when every party learns the plaintext anyway
//! (this module's use), not for E2A, where shares must hide the noise: that step needs
//! flooding noise of its own, argued where it is built.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use fhe::bfv::{BfvParameters, Ciphertext, Encoding, PublicKey, RelinearizationKey, SecretKey};
use fhe::mbfv::{Aggregate, CommonRandomPoly, PublicKeyShare, SecretKeySwitchShare};
use fhe_math::rq::{traits::TryConvertFrom, Poly, Representation};
use fhe_rand::{CryptoRng, RngCore, SeedableRng};
use fhe_rand_chacha::ChaCha20Rng;
use fhe_traits::{FheDecoder, FheDecrypter, Serialize};
use fhe_util::sample_vec_cbd;
use mixgc_net::Tag;
use mixgc_nparty::Mesh;
use zeroize::Zeroizing;

use crate::chain::{pass_from_root, sum_to_root};
use crate::wire::{
    ciphertext_of, decode_poly, decode_poly_at, poly_max_bytes, public_key_from, secret_key_from,
    zero_secret_key,
};
use crate::MixedError;

/// The variance of `fhe`'s secret keys and fresh errors (its `BfvParametersBuilder`
/// default, which [`crate::parameters`] keeps).
pub const NOISE_VARIANCE: usize = 10;

/// Domain separation of the common random polynomial's seed.
const CRP_CONTEXT: &str = "mixgc-mixed 2026-11 threshold BFV common random polynomial";

/// This party's part of a full-threshold BFV key: its own secret-key share and the
/// collective public key.
pub struct ThresholdKeys {
    par: Arc<BfvParameters>,
    me: usize,
    parties: usize,
    /// s_i: never serialized, never sent (zeroized on drop by `fhe`).
    secret: SecretKey,
    /// s_i's coefficients (zeroized on drop).
    secret_coeffs: Zeroizing<Vec<i64>>,
    /// The seed of the common random polynomials (public).
    crp_seed: [u8; 32],
    public: PublicKey,
    zero: SecretKey,
    /// The collective relinearization key, made once per session on first need
    /// ([`crate::sign_tree`]).
    relin: OnceLock<RelinearizationKey>,
    /// How many common random polynomials [`ThresholdKeys::next_crp`] has drawn: every
    /// party draws them in the same order, so the count names the same one everywhere.
    crp_drawn: AtomicU64,
}

impl std::fmt::Debug for ThresholdKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ThresholdKeys")
            .field("me", &self.me)
            .field("parties", &self.parties)
            .finish_non_exhaustive()
    }
}

/// Runs distributed key generation among the mesh's parties (every party calls it at
/// once). `session` is the id the parties agreed on in the handshake; the common random
/// polynomial comes from it and a 32-byte contribution of every party.
///
/// Semi-honest: the contributions are not committed to before they are revealed, so a
/// deviating last party could bias the seed; the protocol does not claim to resist that.
pub fn keygen<R: RngCore + CryptoRng>(
    mesh: &mut Mesh,
    par: &Arc<BfvParameters>,
    session: &[u8; 32],
    rng: &mut R,
) -> Result<ThresholdKeys, MixedError> {
    let n = mesh.parties();
    mesh.set_phase("threshold keygen: seed of the common random polynomial");
    let mut mine = [0u8; 32];
    rng.fill_bytes(&mut mine);
    mesh.send_all(Tag::Openings, &mine)?;
    let mut seed = blake3::Hasher::new_derive_key(CRP_CONTEXT);
    seed.update(session);
    for j in 0..n {
        if j == mesh.me() {
            seed.update(&mine);
        } else {
            seed.update(&mesh.recv_exact(j, Tag::Openings, 32)?);
        }
    }
    let crp_seed = *seed.finalize().as_bytes();
    let crp = CommonRandomPoly::new(par, &mut ChaCha20Rng::from_seed(crp_seed))?;

    mesh.set_phase("threshold keygen: public-key shares");
    // s_i exactly as `SecretKey::random` samples it, but with the coefficients kept here
    // (the library keeps them crate-private): the relinearization-key protocol needs s_i
    // as a polynomial.
    let secret_coeffs = Zeroizing::new(
        sample_vec_cbd(par.degree(), NOISE_VARIANCE, rng)
            .map_err(|e| fhe::Error::DefaultError(e.to_string()))?,
    );
    let secret = secret_key_from(&secret_coeffs, par)?;
    let share = PublicKeyShare::new(&secret, crp, rng)?;
    let own = ciphertext_of(&PublicKey::from_shares([share])?, par)?;
    let (mut p0, a) = (own[0].clone(), own[1].clone());
    mesh.send_all(Tag::Openings, &p0.to_bytes())?;
    for j in mesh.peers() {
        p0 += &recv_poly(mesh, j, par, "public-key share")?;
    }
    let public = public_key_from(&Ciphertext::new(vec![p0, a], par)?, par)?;
    Ok(ThresholdKeys {
        par: par.clone(),
        me: mesh.me(),
        parties: n,
        secret,
        secret_coeffs,
        crp_seed,
        public,
        zero: zero_secret_key(par)?,
        relin: OnceLock::new(),
        crp_drawn: AtomicU64::new(0),
    })
}

/// A polynomial from `from`, bounded and checked ([`decode_poly`]); a malformed one stops
/// every party, naming `from`.
pub(crate) fn recv_poly(
    mesh: &mut Mesh,
    from: usize,
    par: &Arc<BfvParameters>,
    what: &'static str,
) -> Result<Poly, MixedError> {
    let bytes = mesh.recv(from, Tag::Openings, poly_max_bytes(par))?;
    decode_poly(&bytes, par).map_err(|why| malformed(mesh, from, what, why))
}

/// A polynomial at `par`'s `level` from party `from`, bounded and checked before use.
pub(crate) fn recv_poly_at(
    mesh: &mut Mesh,
    from: usize,
    par: &Arc<BfvParameters>,
    level: usize,
    what: &'static str,
) -> Result<Poly, MixedError> {
    let bytes = mesh.recv(from, Tag::Openings, poly_max_bytes(par))?;
    decode_poly_at(&bytes, par, level).map_err(|why| malformed(mesh, from, what, why))
}

/// The error for a malformed message from `party`, after telling every party why.
pub(crate) fn malformed(mesh: &mut Mesh, party: usize, what: &'static str, why: String) -> MixedError {
    let e = MixedError::Malformed { party, what, why };
    mesh.abort_all(&e.to_string());
    e
}

impl ThresholdKeys {
    /// s_i as a polynomial over the full modulus, in NTT form (a secret: zeroized on drop).
    pub(crate) fn secret_poly(&self) -> Result<Zeroizing<Poly>, MixedError> {
        self.secret_poly_at(0)
    }

    /// s_i as a polynomial over the modulus of `level`, in NTT form.
    pub(crate) fn secret_poly_at(&self, level: usize) -> Result<Zeroizing<Poly>, MixedError> {
        let ctx = self.par.context_at_level(level)?;
        let mut s = Zeroizing::new(
            Poly::try_convert_from(
                self.secret_coeffs.as_slice(),
                ctx,
                false,
                Representation::PowerBasis,
            )
            .map_err(fhe::Error::MathError)?,
        );
        s.change_representation(Representation::Ntt);
        Ok(s)
    }

    /// Where the session's relinearization key is kept once made.
    pub(crate) fn relin_cell(&self) -> &OnceLock<RelinearizationKey> {
        &self.relin
    }

    /// A fresh common random polynomial over the full modulus (the same at every party,
    /// which all draw in the same order), never used twice in a session: the `a` of a
    /// collective encryption ([`crate::sign_sum`]).
    pub(crate) fn next_crp(&self) -> Result<Poly, MixedError> {
        let count = self.crp_drawn.fetch_add(1, Ordering::Relaxed);
        let mut seed = blake3::Hasher::new_derive_key("mixgc mixed 2026-11 collective encryption CRP");
        seed.update(&self.crp_seed);
        seed.update(&count.to_le_bytes());
        let ctx = self.par.context_at_level(0)?;
        Ok(Poly::random_from_seed(
            ctx,
            Representation::Ntt,
            *seed.finalize().as_bytes(),
        ))
    }

    /// The public seed of this key's common random polynomials.
    pub(crate) fn crp_seed(&self) -> &[u8; 32] {
        &self.crp_seed
    }

    /// The parameters the keys are for.
    pub fn parameters(&self) -> &Arc<BfvParameters> {
        &self.par
    }

    /// The collective public key (the same at every party).
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// This party's id and the number of parties the key is shared among.
    pub fn party(&self) -> (usize, usize) {
        (self.me, self.parties)
    }

    /// This party's decryption share of `ct`: h_i = s_i·c1 + e_i (see the module docs).
    pub fn decryption_share<R: RngCore + CryptoRng>(
        &self,
        ct: &Ciphertext,
        rng: &mut R,
    ) -> Result<Poly, MixedError> {
        self.check_ciphertext(ct)?;
        let sks = SecretKeySwitchShare::new(&self.secret, &self.zero, Arc::new(ct.clone()), rng)?;
        let switched = Ciphertext::from_shares([sks])?;
        Ok(&switched[0] - &ct[0])
    }

    /// The slots of `ct` from every party's decryption share (`shares` in any order,
    /// this party's own included): c0 + Σ h_i, rescaled and unpacked.
    pub fn combine(&self, ct: &Ciphertext, shares: &[Poly]) -> Result<Vec<u64>, MixedError> {
        self.check_ciphertext(ct)?;
        let mut c0 = ct[0].clone();
        for h in shares {
            c0 += h;
        }
        let combined = Ciphertext::new(vec![c0, ct[1].clone()], &self.par)?;
        let pt = self.zero.try_decrypt(&combined)?;
        Ok(Vec::<u64>::try_decode(&pt, Encoding::simd())?)
    }

    /// Threshold decryption of `ct` (every party calls it with the same ciphertext): the
    /// decryption shares are summed along the chain into party 0 ([`crate::chain`]), which
    /// passes the N slots back along it; every party learns them.
    pub fn decrypt<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        ct: &Ciphertext,
        rng: &mut R,
    ) -> Result<Vec<u64>, MixedError> {
        let slots = self.decrypt_to(mesh, ct, 0, rng)?;
        mesh.set_phase("threshold decryption: the slots passed on");
        let p = self.par.plaintext();
        let degree = self.par.degree();
        pass_from_root(
            mesh,
            0,
            slots,
            |mesh, from| {
                let bytes = mesh.recv_exact(from, Tag::Openings, 4 * degree)?;
                let slots: Vec<u64> = bytes
                    .chunks_exact(4)
                    .map(|c| u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
                    .collect();
                match slots.iter().position(|&v| v >= p) {
                    Some(i) => Err(malformed(
                        mesh,
                        from,
                        "decrypted slots",
                        format!("slot {i} is {}, not below p = {p}", slots[i]),
                    )),
                    None => Ok(slots),
                }
            },
            |slots| Ok(slots.iter().flat_map(|&v| (v as u32).to_le_bytes()).collect()),
        )
    }

    /// Threshold decryption of `ct` to party `to` alone: the decryption shares are summed
    /// along the chain ending at `to` ([`crate::chain`]); the others get `None`, `to` gets
    /// the slots.
    pub fn decrypt_to<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        ct: &Ciphertext,
        to: usize,
        rng: &mut R,
    ) -> Result<Option<Vec<u64>>, MixedError> {
        if to >= mesh.parties() {
            return Err(MixedError::Usage(format!(
                "decryption to party {to}, but there are {} parties",
                mesh.parties()
            )));
        }
        mesh.set_phase("threshold decryption");
        let mine = self.decryption_share(ct, rng)?;
        match self.sum_polys_to(mesh, to, mine, "decryption share")? {
            Some(total) => self.combine(ct, &[total]).map(Some),
            None => Ok(None),
        }
    }

    /// Sums every party's `mine` along the chain into `root` ([`sum_to_root`]).
    pub(crate) fn sum_polys_to(
        &self,
        mesh: &mut Mesh,
        root: usize,
        mine: Poly,
        what: &'static str,
    ) -> Result<Option<Poly>, MixedError> {
        let par = &self.par;
        sum_to_root(
            mesh,
            root,
            mine,
            |mesh, from| recv_poly(mesh, from, par, what),
            |mut a, b| {
                a += b;
                a
            },
            |p| Ok(p.to_bytes()),
        )
    }

    /// `ct` must be a two-polynomial ciphertext at the full modulus of these keys.
    fn check_ciphertext(&self, ct: &Ciphertext) -> Result<(), MixedError> {
        let full = self.par.context_at_level(0)?;
        if ct.len() != 2 || ct[0].ctx() != full {
            return Err(MixedError::Usage(format!(
                "threshold decryption takes a 2-polynomial ciphertext at level 0, not {} polynomials{}",
                ct.len(),
                if ct[0].ctx() != full {
                    " at a lower level"
                } else {
                    ""
                }
            )));
        }
        Ok(())
    }
}
