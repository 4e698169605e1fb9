//! The AEAD under the TLS 1.3 record layer ([`crate::record`]; RFC 8446 §5.2): seals a
//! record's plaintext and inner content type into its ciphertext and tag, and opens it.
//!
//! Two backends, one interface:
//! - **aws-lc-rs** (cargo feature `aws-lc`, the default): AES-GCM with AWS-LC's VAES /
//!   AVX-512 code where the CPU has it. A record is sealed *out of place* (the plaintext
//!   read once, the ciphertext written once, no copy before) and opened straight into the
//!   caller's buffer, so the record layer adds no pass over the data beyond the cipher.
//! - **ring** (without the `aws-lc` feature; the provider rustls' handshake uses): in
//!   place only, so sealing copies the plaintext into the record first and opening into a
//!   caller's buffer copies the ciphertext there first.

/// An AEAD's tag (all three TLS 1.3 suites here).
pub(crate) const TAG: usize = 16;
/// An AEAD nonce (§5.3).
pub(crate) type NonceBytes = [u8; 12];

/// The suites' AEADs (RFC 8446 §B.4).
#[derive(Clone, Copy, Debug)]
pub(crate) enum Suite {
    Aes128Gcm,
    Aes256Gcm,
    Chacha20Poly1305,
}

/// The record didn't authenticate (the output holds nothing from it).
#[derive(Debug)]
pub(crate) struct NotAuthentic;

#[cfg(feature = "aws-lc")]
use aws_lc_rs::aead::{self, Aad, LessSafeKey, Nonce, UnboundKey};
#[cfg(not(feature = "aws-lc"))]
use ring::aead::{self, Aad, LessSafeKey, Nonce, UnboundKey};

/// One direction's traffic key.
pub(crate) struct RecordKey(LessSafeKey);

impl RecordKey {
    /// The key for `suite`; `None` if `key` has the wrong length.
    pub(crate) fn new(suite: Suite, key: &[u8]) -> Option<RecordKey> {
        let algorithm = match suite {
            Suite::Aes128Gcm => &aead::AES_128_GCM,
            Suite::Aes256Gcm => &aead::AES_256_GCM,
            Suite::Chacha20Poly1305 => &aead::CHACHA20_POLY1305,
        };
        let key = UnboundKey::new(algorithm, key).ok()?;
        Some(RecordKey(LessSafeKey::new(key)))
    }

    /// Seals `plain` followed by the inner content type `content` (`TLSInnerPlaintext`,
    /// §5.2, no padding) into `out`, which must be exactly `plain.len() + 1 + TAG` bytes:
    /// the encrypted record body, tag last.
    pub(crate) fn seal(&self, nonce: NonceBytes, aad: [u8; 5], plain: &[u8], content: u8, out: &mut [u8]) {
        assert_eq!(
            out.len(),
            plain.len() + 1 + TAG,
            "a record's body is its plaintext, content type and tag"
        );
        let nonce = Nonce::assume_unique_for_key(nonce);
        #[cfg(feature = "aws-lc")]
        {
            let (body, extra_and_tag) = out.split_at_mut(plain.len());
            self.0
                .seal_out_of_place_scatter(nonce, Aad::from(aad), plain, body, &[content], extra_and_tag)
                .expect("a record of at most 16 KiB, with buffers of the right lengths");
        }
        #[cfg(not(feature = "aws-lc"))]
        {
            let (body, tag) = out.split_at_mut(plain.len() + 1);
            body[..plain.len()].copy_from_slice(plain);
            body[plain.len()] = content;
            let sealed = self
                .0
                .seal_in_place_separate_tag(nonce, Aad::from(aad), body)
                .expect("a record of at most 16 KiB is within the AEAD's limits");
            tag.copy_from_slice(sealed.as_ref());
        }
    }

    /// Opens `body` (ciphertext, then the tag; at least [`TAG`] bytes) into `out`, which
    /// must be exactly `body.len() - TAG` bytes. On failure `out` is zeroed.
    pub(crate) fn open_into(
        &self,
        nonce: NonceBytes,
        aad: [u8; 5],
        body: &[u8],
        out: &mut [u8],
    ) -> Result<(), NotAuthentic> {
        assert_eq!(
            out.len() + TAG,
            body.len(),
            "a record's plaintext is its body less the tag"
        );
        let nonce = Nonce::assume_unique_for_key(nonce);
        let (ciphertext, tag) = body.split_at(out.len());
        #[cfg(feature = "aws-lc")]
        let opened = self
            .0
            .open_separate_gather(nonce, Aad::from(aad), ciphertext, tag, out);
        #[cfg(not(feature = "aws-lc"))]
        let opened = {
            out.copy_from_slice(ciphertext);
            self.0
                .open_in_place_separate_tag(
                    nonce,
                    Aad::from(aad),
                    aead::Tag::try_from(tag).expect("16 bytes"),
                    out,
                    0..,
                )
                .map(|_| ())
        };
        opened.map_err(|_| {
            // Never leave unauthenticated plaintext in the caller's buffer.
            out.fill(0);
            NotAuthentic
        })
    }

    /// Opens `body` (ciphertext, then the tag; at least [`TAG`] bytes) in place: on success
    /// its first `body.len() - TAG` bytes are the plaintext.
    pub(crate) fn open_in_place(
        &self,
        nonce: NonceBytes,
        aad: [u8; 5],
        body: &mut [u8],
    ) -> Result<(), NotAuthentic> {
        let nonce = Nonce::assume_unique_for_key(nonce);
        self.0
            .open_in_place(nonce, Aad::from(aad), body)
            .map(|_| ())
            .map_err(|_| NotAuthentic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seal → open round trips for every suite, both ways of opening, and a flipped bit
    /// anywhere fails and leaves no plaintext behind.
    #[test]
    fn seal_then_open_for_every_suite() {
        for (suite, key_len) in [
            (Suite::Aes128Gcm, 16),
            (Suite::Aes256Gcm, 32),
            (Suite::Chacha20Poly1305, 32),
        ] {
            let key = RecordKey::new(suite, &vec![7u8; key_len]).unwrap();
            assert!(RecordKey::new(suite, &vec![7u8; key_len + 1]).is_none());
            for len in [0usize, 1, 15, 16, 17, 1000, 16 << 10] {
                let plain: Vec<u8> = (0..len).map(|i| (i * 31 + 5) as u8).collect();
                let aad = [23, 3, 3, 0, 9];
                let nonce = [len as u8; 12];
                let mut body = vec![0u8; len + 1 + TAG];
                key.seal(nonce, aad, &plain, 23, &mut body);
                let mut out = vec![0u8; len + 1];
                key.open_into(nonce, aad, &body, &mut out).unwrap();
                assert_eq!(&out[..len], &plain[..]);
                assert_eq!(out[len], 23);
                let mut in_place = body.clone();
                key.open_in_place(nonce, aad, &mut in_place).unwrap();
                assert_eq!(&in_place[..len + 1], &out[..]);
                for bit in [0, 8 * len + 3, 8 * (len + 1 + TAG) - 1] {
                    let mut bad = body.clone();
                    bad[bit / 8] ^= 1 << (bit % 8);
                    let mut out = vec![0xeeu8; len + 1];
                    assert!(key.open_into(nonce, aad, &bad, &mut out).is_err());
                    assert!(
                        out.iter().all(|&b| b == 0),
                        "{suite:?}: no plaintext after a failure"
                    );
                    assert!(key.open_in_place(nonce, aad, &mut bad).is_err());
                }
                let mut other_aad = aad;
                other_aad[4] ^= 1;
                assert!(key.open_into(nonce, other_aad, &body, &mut out).is_err());
            }
        }
    }

    /// AES-128-GCM on 16 KiB records through this backend's seal and open-into (what the
    /// record layer does per record), best of 5 rounds of 256 MiB; prints GB/s. Run with
    /// `--ignored --nocapture`, with and without the `aws-lc` feature.
    #[test]
    #[ignore]
    fn record_aead_cost() {
        let key = RecordKey::new(Suite::Aes128Gcm, &[7u8; 16]).unwrap();
        let plain = vec![5u8; 16 << 10];
        let mut body = vec![0u8; plain.len() + 1 + TAG];
        let mut out = vec![0u8; plain.len() + 1];
        let records = (256usize << 20) / plain.len();
        let (mut seal_best, mut open_best) = (f64::MAX, f64::MAX);
        for _ in 0..5 {
            let (mut sealing, mut opening) = (0f64, 0f64);
            for seq in 0..records {
                let nonce = [seq as u8; 12];
                let start = std::time::Instant::now();
                key.seal(nonce, [23, 3, 3, 64, 17], &plain, 23, &mut body);
                let mid = std::time::Instant::now();
                key.open_into(nonce, [23, 3, 3, 64, 17], &body, &mut out).unwrap();
                opening += mid.elapsed().as_secs_f64();
                sealing += (mid - start).as_secs_f64();
            }
            seal_best = seal_best.min(sealing);
            open_best = open_best.min(opening);
        }
        let bytes = (records * plain.len()) as f64;
        let backend = if cfg!(feature = "aws-lc") {
            "aws-lc-rs"
        } else {
            "ring"
        };
        eprintln!(
            "{backend}: seal {:.2} GB/s, open into a buffer {:.2} GB/s; {:.2} ns per 33 B (one AND) sealed and opened",
            bytes / seal_best / 1e9,
            bytes / open_best / 1e9,
            (seal_best + open_best) / bytes * 33.0 * 1e9
        );
    }
}
