//! Encryption of packed vectors mod p under the collective key, the homomorphic
//! operations of the seed's Figure 2 that need no interaction (addition, multiplication by
//! a public plaintext), and ciphertexts sent over the mesh.

use std::sync::Arc;

use fhe::bfv::{BfvParameters, Ciphertext, Encoding, Plaintext};
use fhe_rand::{CryptoRng, RngCore};
use fhe_traits::{FheEncoder, FheEncrypter};
use mixgc_net::Tag;
use mixgc_nparty::Mesh;

use crate::keygen::malformed;
use crate::wire::{ciphertext_max_bytes, decode_ciphertext, encode_ciphertext};
use crate::{MixedError, ThresholdKeys};

/// `values` (at most N, each < p; missing slots are 0) packed into the N slots.
pub fn encode(par: &Arc<BfvParameters>, values: &[u64]) -> Result<Plaintext, MixedError> {
    if values.len() > par.degree() {
        return Err(MixedError::Usage(format!(
            "{} values do not fit the {} slots of a ciphertext",
            values.len(),
            par.degree()
        )));
    }
    if let Some(i) = values.iter().position(|&v| v >= par.plaintext()) {
        return Err(MixedError::Usage(format!(
            "value {i} is {}, not below the plaintext modulus {}",
            values[i],
            par.plaintext()
        )));
    }
    Ok(Plaintext::try_encode(values, Encoding::simd(), par)?)
}

impl ThresholdKeys {
    /// `values` ([`encode`]'s rules) encrypted under the collective public key.
    pub fn encrypt<R: RngCore + CryptoRng>(
        &self,
        values: &[u64],
        rng: &mut R,
    ) -> Result<Ciphertext, MixedError> {
        let pt = encode(self.parameters(), values)?;
        Ok(self.public_key().try_encrypt(&pt, rng)?)
    }
}

/// Slot-wise a + b mod p.
pub fn add(a: &Ciphertext, b: &Ciphertext) -> Ciphertext {
    a + b
}

/// Slot-wise a − b mod p.
pub fn sub(a: &Ciphertext, b: &Ciphertext) -> Ciphertext {
    a - b
}

/// Slot-wise ct · k mod p for public `k` ([`encode`]'s rules; missing slots multiply by 0).
pub fn mul_plain(par: &Arc<BfvParameters>, ct: &Ciphertext, k: &[u64]) -> Result<Ciphertext, MixedError> {
    Ok(ct * &encode(par, k)?)
}

/// Every slot of `ct` times the public scalar `k` (< p).
pub fn mul_scalar(par: &Arc<BfvParameters>, ct: &Ciphertext, k: u64) -> Result<Ciphertext, MixedError> {
    mul_plain(par, ct, &vec![k; par.degree()])
}

/// Slot-wise ct + k mod p for public `k`.
pub fn add_plain(par: &Arc<BfvParameters>, ct: &Ciphertext, k: &[u64]) -> Result<Ciphertext, MixedError> {
    Ok(ct + &encode(par, k)?)
}

/// Queues `ct` to party `to`.
pub fn send_ciphertext(mesh: &mut Mesh, to: usize, ct: &Ciphertext) -> Result<(), MixedError> {
    let bytes = encode_ciphertext(ct).map_err(MixedError::Usage)?;
    Ok(mesh.send(to, Tag::Openings, &bytes)?)
}

/// A ciphertext from party `from` under `par`, bounded and checked before use.
pub fn recv_ciphertext(
    mesh: &mut Mesh,
    from: usize,
    par: &Arc<BfvParameters>,
) -> Result<Ciphertext, MixedError> {
    let bytes = mesh.recv(from, Tag::Openings, ciphertext_max_bytes(par))?;
    decode_ciphertext(&bytes, par).map_err(|why| malformed(mesh, from, "ciphertext", why))
}

/// Party `from` sends `ct` (its `Some`) to every other party; every party returns it.
pub fn broadcast_ciphertext(
    mesh: &mut Mesh,
    from: usize,
    ct: Option<&Ciphertext>,
    par: &Arc<BfvParameters>,
) -> Result<Ciphertext, MixedError> {
    match (mesh.me() == from, ct) {
        (true, Some(ct)) => {
            for j in mesh.peers() {
                send_ciphertext(mesh, j, ct)?;
            }
            mesh.flush()?;
            Ok(ct.clone())
        }
        (false, None) => recv_ciphertext(mesh, from, par),
        _ => Err(MixedError::Usage(format!(
            "only party {from}, the sender, passes the ciphertext to broadcast"
        ))),
    }
}
