//! What crosses the mesh, and the two places this crate builds `fhe` objects from bytes.
//!
//! Polynomials travel in `fhe-math`'s own serialization ([`Poly`]'s `to_bytes`); a
//! ciphertext travels as its two polynomials. Everything read from a peer is bounded by the
//! frame limit [`poly_max_bytes`] before it is parsed, then checked to be in NTT form over
//! this run's full ciphertext modulus with N coefficients per prime, so a peer's bytes can
//! never reach a library routine that would panic on mismatched shapes.
//!
//! Deviations from `fhe` 0.1.1's API, argued:
//! - The crate gives no constructor of a [`PublicKey`] from its ciphertext (the aggregated
//!   `PublicKeyShare`s must all be in one process, but here each lives in its own), so
//!   [`public_key_from`] wraps the ciphertext's own serialization in the one-field
//!   `PublicKey` protobuf message (field 1, length-delimited) and lets the crate's
//!   `from_bytes` check it; [`ciphertext_of`] reads it back the same way.
//! - Its `DecryptionShare` keeps its polynomial private, so a share cannot be sent;
//!   `SecretKeySwitchShare` to the all-zero output key (exactly what `DecryptionShare::new`
//!   does inside) exposes it through aggregation. The zero key, whose constructor is
//!   crate-private, is built by [`zero_secret_key`] from its protobuf form (field 1, packed
//!   `sint64`, N zeros). It is public knowledge, not a secret.

use std::sync::Arc;

use fhe::bfv::{BfvParameters, Ciphertext, PublicKey, RelinearizationKey, SecretKey};
use fhe_math::rq::{Poly, Representation};
use fhe_traits::{DeserializeParametrized, DeserializeWithContext, Serialize};

/// The largest serialized polynomial a peer may send under `par`: 8 bytes per coefficient
/// (the serialization packs them tighter) plus the message's framing.
pub fn poly_max_bytes(par: &BfvParameters) -> usize {
    par.degree() * par.moduli().len() * 8 + 256
}

/// The largest serialized ciphertext (two polynomials and their length prefix).
pub fn ciphertext_max_bytes(par: &BfvParameters) -> usize {
    2 * poly_max_bytes(par) + 4
}

/// A polynomial in NTT form over `par`'s full ciphertext modulus, from a peer's bytes.
pub fn decode_poly(bytes: &[u8], par: &Arc<BfvParameters>) -> Result<Poly, String> {
    decode_poly_at(bytes, par, 0)
}

/// A polynomial in NTT form over the modulus of `par`'s `level` (its first
/// `moduli().len() − level` primes), from a peer's bytes.
pub fn decode_poly_at(bytes: &[u8], par: &Arc<BfvParameters>, level: usize) -> Result<Poly, String> {
    let ctx = par.context_at_level(level).map_err(|e| e.to_string())?;
    let primes = par.moduli().len() - level;
    let poly = Poly::from_bytes(bytes, ctx).map_err(|e| e.to_string())?;
    if poly.representation() != &Representation::Ntt {
        return Err(format!(
            "a polynomial in {:?} form, not NTT",
            poly.representation()
        ));
    }
    let shape = poly.coefficients().shape().to_vec();
    if poly.ctx() != ctx || shape != [primes, par.degree()] {
        return Err(format!(
            "a polynomial of shape {shape:?}, not {primes} primes × {} coefficients",
            par.degree()
        ));
    }
    Ok(poly)
}

/// A two-polynomial ciphertext as bytes: the first polynomial's length (u32, little
/// endian), then both polynomials.
pub fn encode_ciphertext(ct: &Ciphertext) -> Result<Vec<u8>, String> {
    if ct.len() != 2 {
        return Err(format!(
            "a ciphertext of {} polynomials (relinearize first)",
            ct.len()
        ));
    }
    let (c0, c1) = (ct[0].to_bytes(), ct[1].to_bytes());
    let len = u32::try_from(c0.len()).map_err(|_| "a polynomial over 4 GiB".to_string())?;
    let mut out = Vec::with_capacity(4 + c0.len() + c1.len());
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&c0);
    out.extend_from_slice(&c1);
    Ok(out)
}

/// A ciphertext from a peer's bytes ([`encode_ciphertext`]'s format).
pub fn decode_ciphertext(bytes: &[u8], par: &Arc<BfvParameters>) -> Result<Ciphertext, String> {
    let (len, rest) = bytes.split_first_chunk::<4>().ok_or("fewer than 4 bytes")?;
    let len = u32::from_le_bytes(*len) as usize;
    if len > rest.len() {
        return Err(format!(
            "a first polynomial of {len} bytes in {} bytes",
            rest.len()
        ));
    }
    let (c0, c1) = rest.split_at(len);
    let polys = vec![decode_poly(c0, par)?, decode_poly(c1, par)?];
    Ciphertext::new(polys, par).map_err(|e| e.to_string())
}

/// Appends `n` as a protobuf base-128 varint.
fn push_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Appends `body` as length-delimited field `field` of a protobuf message.
fn push_field(out: &mut Vec<u8>, field: u8, body: &[u8]) {
    out.push(field << 3 | 2);
    push_varint(out, body.len() as u64);
    out.extend_from_slice(body);
}

/// A message that is `body` as its field 1, length-delimited.
fn field_one(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 11);
    push_field(&mut out, 1, body);
    out
}

/// Splits a message that is exactly field 1, length-delimited, into that field's bytes.
fn read_field_one(bytes: &[u8]) -> Option<&[u8]> {
    let rest = bytes.strip_prefix(&[0x0a])?;
    let (mut len, mut shift, mut used) = (0u64, 0u32, 0usize);
    for &b in rest.iter().take(10) {
        len |= u64::from(b & 0x7f) << shift;
        shift += 7;
        used += 1;
        if b & 0x80 == 0 {
            let body = &rest[used..];
            return (body.len() as u64 == len).then_some(body);
        }
    }
    None
}

/// The public key whose ciphertext is `(c[0], c[1])` (see the module docs).
pub fn public_key_from(c: &Ciphertext, par: &Arc<BfvParameters>) -> Result<PublicKey, fhe::Error> {
    PublicKey::from_bytes(&field_one(&c.to_bytes()), par)
}

/// The ciphertext `(p0, p1)` inside a public key (see the module docs).
pub fn ciphertext_of(pk: &PublicKey, par: &Arc<BfvParameters>) -> Result<Ciphertext, fhe::Error> {
    let bytes = pk.to_bytes();
    let body = read_field_one(&bytes).ok_or_else(|| {
        fhe::Error::DefaultError("a public key's serialization is not one ciphertext".into())
    })?;
    Ciphertext::from_bytes(body, par)
}

/// The secret key with coefficients `coeffs` (field 1 of `SecretKey`, packed zigzag
/// `sint64`); the encoding buffer is zeroized.
pub fn secret_key_from(coeffs: &[i64], par: &Arc<BfvParameters>) -> Result<SecretKey, fhe::Error> {
    let mut packed = zeroize::Zeroizing::new(Vec::with_capacity(coeffs.len() * 2));
    for &c in coeffs {
        push_varint(&mut packed, ((c << 1) ^ (c >> 63)) as u64);
    }
    let message = zeroize::Zeroizing::new(field_one(&packed));
    SecretKey::from_bytes(&message, par)
}

/// The relinearization key whose key-switching key has the polynomials `c0` and `c1` (one
/// per ciphertext prime, level 0, no digit decomposition), as `fhe::mbfv`'s aggregation
/// builds it: a `RelinearizationKey` message holding a `KeySwitchingKey` (fields 1 and 2:
/// repeated polynomials; levels and log-base 0, protobuf's defaults, left out).
pub fn relinearization_key_from(
    c0: &[Poly],
    c1: &[Poly],
    par: &Arc<BfvParameters>,
) -> Result<RelinearizationKey, fhe::Error> {
    let mut ksk = Vec::new();
    for p in c0 {
        push_field(&mut ksk, 1, &p.to_bytes());
    }
    for p in c1 {
        push_field(&mut ksk, 2, &p.to_bytes());
    }
    RelinearizationKey::from_bytes(&field_one(&ksk), par)
}

/// Several polynomials as bytes: each one's length (u32, little endian), then it.
pub fn encode_polys(polys: &[Poly]) -> Vec<u8> {
    let mut out = Vec::new();
    for p in polys {
        let bytes = p.to_bytes();
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        out.extend_from_slice(&bytes);
    }
    out
}

/// Exactly `count` polynomials ([`decode_poly`]'s checks) from a peer's bytes.
pub fn decode_polys(bytes: &[u8], count: usize, par: &Arc<BfvParameters>) -> Result<Vec<Poly>, String> {
    let mut rest = bytes;
    let mut polys = Vec::with_capacity(count.min(64));
    for i in 0..count {
        let (len, tail) = rest
            .split_first_chunk::<4>()
            .ok_or_else(|| format!("polynomial {i} of {count} is missing"))?;
        let len = u32::from_le_bytes(*len) as usize;
        if len > tail.len() {
            return Err(format!(
                "polynomial {i} claims {len} bytes, {} are left",
                tail.len()
            ));
        }
        let (poly, tail) = tail.split_at(len);
        polys.push(decode_poly(poly, par).map_err(|e| format!("polynomial {i}: {e}"))?);
        rest = tail;
    }
    if !rest.is_empty() {
        return Err(format!("{} bytes after {count} polynomials", rest.len()));
    }
    Ok(polys)
}

/// The all-zero secret key (public: decrypting under it only rescales `c0`).
pub fn zero_secret_key(par: &Arc<BfvParameters>) -> Result<SecretKey, fhe::Error> {
    secret_key_from(&vec![0; par.degree()], par)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::parameters;
    use fhe::bfv::{Encoding, Plaintext};
    use fhe_rand::SeedableRng;
    use fhe_rand_chacha::ChaCha20Rng;
    use fhe_traits::{FheDecoder, FheDecrypter, FheEncoder, FheEncrypter};

    #[test]
    fn a_public_key_survives_the_round_trip_through_its_ciphertext() {
        let par = parameters();
        let mut rng = ChaCha20Rng::seed_from_u64(1);
        let sk = SecretKey::random(&par, &mut rng);
        let pk = PublicKey::new(&sk, &mut rng);
        let rebuilt = public_key_from(&ciphertext_of(&pk, &par).unwrap(), &par).unwrap();
        assert_eq!(rebuilt, pk);
        let values: Vec<u64> = (0..par.degree() as u64).collect();
        let pt = Plaintext::try_encode(&values, Encoding::simd(), &par).unwrap();
        let ct = rebuilt.try_encrypt(&pt, &mut rng).unwrap();
        let back = Vec::<u64>::try_decode(&sk.try_decrypt(&ct).unwrap(), Encoding::simd());
        assert_eq!(back.unwrap(), values);
    }

    #[test]
    fn ciphertexts_round_trip_and_bad_bytes_are_refused() {
        let par = parameters();
        let mut rng = ChaCha20Rng::seed_from_u64(2);
        let sk = SecretKey::random(&par, &mut rng);
        let pt = Plaintext::try_encode(&[7u64, 8, 9], Encoding::simd(), &par).unwrap();
        let ct: Ciphertext = sk.try_encrypt(&pt, &mut rng).unwrap();
        let bytes = encode_ciphertext(&ct).unwrap();
        assert!(bytes.len() <= ciphertext_max_bytes(&par));
        // N × 438 bits ≈ 897 KB per polynomial.
        let poly = ct[0].to_bytes().len();
        assert!((896_000..=898_500).contains(&poly), "{poly} bytes");
        let back = decode_ciphertext(&bytes, &par).unwrap();
        for i in 0..2 {
            assert_eq!(back[i].coefficients(), ct[i].coefficients());
        }

        assert!(decode_ciphertext(&bytes[..3], &par).is_err());
        assert!(decode_ciphertext(&bytes[..bytes.len() - 1], &par).is_err());
        let mut huge = bytes.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(decode_ciphertext(&huge, &par).is_err());
        assert!(decode_poly(&[0xff; 64], &par).is_err());

        // A polynomial in power-basis form, or over fewer primes, is refused.
        let mut pb = ct[0].clone();
        pb.change_representation(Representation::PowerBasis);
        let e = decode_poly(&pb.to_bytes(), &par).unwrap_err();
        assert!(e.contains("not NTT"), "{e}");
        let mut low = ct.clone();
        low.switch_down().unwrap();
        assert!(decode_poly(&low[0].to_bytes(), &par).is_err());
    }

    #[test]
    fn a_secret_key_from_coefficients_is_the_one_the_library_samples() {
        let par = parameters();
        let coeffs = fhe_util::sample_vec_cbd(par.degree(), 10, &mut ChaCha20Rng::seed_from_u64(5)).unwrap();
        let ours = secret_key_from(&coeffs, &par).unwrap();
        let theirs = SecretKey::random(&par, &mut ChaCha20Rng::seed_from_u64(5));
        assert_eq!(ours.to_bytes(), theirs.to_bytes());
    }

    #[test]
    fn poly_lists_round_trip_and_wrong_counts_are_refused() {
        let par = parameters();
        let mut rng = ChaCha20Rng::seed_from_u64(6);
        let ctx = par.context_at_level(0).unwrap();
        let polys: Vec<Poly> = (0..3)
            .map(|_| Poly::random(ctx, Representation::Ntt, &mut rng))
            .collect();
        let bytes = encode_polys(&polys);
        let back = decode_polys(&bytes, 3, &par).unwrap();
        assert!(back
            .iter()
            .zip(&polys)
            .all(|(a, b)| a.coefficients() == b.coefficients()));
        assert!(decode_polys(&bytes, 2, &par).unwrap_err().contains("bytes after"));
        assert!(decode_polys(&bytes, 4, &par).unwrap_err().contains("missing"));
    }

    #[test]
    fn the_zero_key_decrypts_c0_alone() {
        let par = parameters();
        let zero = zero_secret_key(&par).unwrap();
        let mut rng = ChaCha20Rng::seed_from_u64(3);
        let values = vec![1u64, 2, 3];
        let pt = Plaintext::try_encode(&values, Encoding::simd(), &par).unwrap();
        let ct: Ciphertext = zero.try_encrypt(&pt, &mut rng).unwrap();
        let back = Vec::<u64>::try_decode(&zero.try_decrypt(&ct).unwrap(), Encoding::simd());
        assert_eq!(&back.unwrap()[..3], &values);
    }
}
