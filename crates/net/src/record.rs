//! The TLS 1.3 record layer after the handshake (RFC 8446 §5.2–§5.5), over the traffic
//! keys rustls hands out once its handshake is done (`dangerous_extract_secrets`, the API
//! made for kernel TLS). rustls seals each record into a fresh allocation and hands
//! received plaintext over in another (its unbuffered API too, in 0.23); here a record is
//! sealed straight into the link's write buffer ([`Wire`]) and opened straight into the
//! caller's buffer when it fits there (else in place in the read buffer), with the AEAD of
//! [`crate::record_aead`], and nothing is allocated per record.
//!
//! Key updates (§4.6.3) are not supported: the extracted keys come without the traffic
//! secrets the next keys derive from. Both ends are mixgc, which never sends one; a key
//! reaching the AEAD's confidentiality limit (2^24 records, 256 GiB, for AES-GCM) ends
//! the session with an error instead, and a KeyUpdate from the peer is refused.

use std::ops::Range;

use rustls::ConnectionTrafficSecrets;

use crate::record_aead::{NonceBytes, RecordKey, Suite, TAG};
use crate::NetError;

/// The largest plaintext of a record (RFC 8446 §5.1).
pub(crate) const MAX_PLAIN: usize = 16 << 10;
/// A record's header: content type, legacy version, length (§5.1).
pub(crate) const HEADER: usize = 5;
/// The largest `TLSCiphertext.length` (§5.2).
const MAX_CIPHERTEXT: usize = MAX_PLAIN + 256;
/// The largest record on the wire.
pub(crate) const MAX_WIRE_RECORD: usize = HEADER + MAX_CIPHERTEXT;
/// Bytes a record adds to its plaintext: header, inner content type, AEAD tag.
#[cfg(test)]
pub(crate) const OVERHEAD: usize = HEADER + 1 + TAG;

/// Content types (§5.1).
const ALERT: u8 = 21;
const HANDSHAKE: u8 = 22;
const APPLICATION_DATA: u8 = 23;
/// Alerts this side sends (§6).
pub(crate) const CLOSE_NOTIFY: u8 = 0;
pub(crate) const BAD_RECORD_MAC: u8 = 20;
pub(crate) const UNEXPECTED_MESSAGE: u8 = 10;
const FATAL: u8 = 2;
const WARNING: u8 = 1;

/// The traffic key of one direction and its record sequence number.
struct TrafficKey {
    key: RecordKey,
    iv: [u8; 12],
    seq: u64,
}

impl TrafficKey {
    fn new(seq: u64, secrets: ConnectionTrafficSecrets) -> Result<TrafficKey, NetError> {
        let (suite, key, iv) = match &secrets {
            ConnectionTrafficSecrets::Aes128Gcm { key, iv } => (Suite::Aes128Gcm, key, iv),
            ConnectionTrafficSecrets::Aes256Gcm { key, iv } => (Suite::Aes256Gcm, key, iv),
            ConnectionTrafficSecrets::Chacha20Poly1305 { key, iv } => (Suite::Chacha20Poly1305, key, iv),
            _ => {
                return Err(NetError::Tls(
                    "the negotiated TLS cipher suite has no record layer here".into(),
                ))
            }
        };
        let key = RecordKey::new(suite, key.as_ref())
            .ok_or_else(|| NetError::Tls("unusable TLS traffic key".into()))?;
        let iv: [u8; 12] = iv
            .as_ref()
            .try_into()
            .map_err(|_| NetError::Tls("unusable TLS traffic IV".into()))?;
        Ok(TrafficKey { key, iv, seq })
    }

    /// The per-record nonce: the IV XOR the sequence number, big-endian on the right
    /// (§5.3); the sequence number then advances.
    fn next_nonce(&mut self) -> NonceBytes {
        let mut nonce = self.iv;
        for (n, s) in nonce[4..].iter_mut().zip(self.seq.to_be_bytes()) {
            *n ^= s;
        }
        self.seq += 1;
        nonce
    }
}

/// Sealed records waiting to be written: a buffer reused from write to write, so sealing
/// writes each byte once (zero-filled only when it grows past what it ever held).
#[derive(Default)]
pub(crate) struct Wire {
    buf: Vec<u8>,
    len: usize,
}

impl Wire {
    /// Room for `capacity` bytes before it grows.
    #[cfg(test)]
    pub(crate) fn with_capacity(capacity: usize) -> Wire {
        Wire {
            buf: vec![0; capacity],
            len: 0,
        }
    }

    /// The records sealed since the last [`Wire::clear`].
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// Bytes held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends `data` (a plain copy, for a link without a record layer).
    pub(crate) fn extend_from_slice(&mut self, data: &[u8]) {
        self.append(data.len()).copy_from_slice(data);
    }
}

/// Where sealed records go: appends `n` bytes and hands them over to be written.
pub(crate) trait Records {
    /// The next `n` bytes, appended (their content is unspecified until written).
    fn append(&mut self, n: usize) -> &mut [u8];
}

impl Records for Wire {
    fn append(&mut self, n: usize) -> &mut [u8] {
        let end = self.len + n;
        if self.buf.len() < end {
            self.buf.resize(end, 0);
        }
        let room = &mut self.buf[self.len..end];
        self.len = end;
        room
    }
}

impl Records for Vec<u8> {
    fn append(&mut self, n: usize) -> &mut [u8] {
        let start = self.len();
        self.resize(start + n, 0);
        &mut self[start..]
    }
}

/// The sending direction: seals records into a caller's buffer; also sends the alert the
/// receiving side raises.
pub(crate) struct Sealer {
    key: TrafficKey,
    /// Records the key may seal (the suite's confidentiality limit).
    limit: u64,
    /// A fatal alert the receiving side raised, not yet sent.
    alert: Option<u8>,
    /// A fatal alert or a close_notify went out: nothing more may.
    closed: bool,
}

impl Sealer {
    /// The sending key from `(seq, secrets)` (rustls' extracted `tx`), good for `limit`
    /// records.
    pub(crate) fn new(tx: (u64, ConnectionTrafficSecrets), limit: u64) -> Result<Sealer, NetError> {
        Ok(Sealer {
            key: TrafficKey::new(tx.0, tx.1)?,
            limit,
            alert: None,
            closed: false,
        })
    }

    /// Appends `data` to `out` as application-data records of at most [`MAX_PLAIN`] bytes
    /// each, after any alert the receiving side raised (then fails: the session is over).
    /// Sealed straight into `out` (with ring after a copy there; see [`crate::record_aead`]).
    pub(crate) fn seal(&mut self, data: &[u8], out: &mut impl Records) -> Result<(), NetError> {
        if let Some(alert) = self.alert.take() {
            self.seal_alert(alert, out);
            return Err(NetError::Disconnected);
        }
        if self.closed {
            return Err(NetError::Disconnected);
        }
        let records = data.len().div_ceil(MAX_PLAIN) as u64;
        // One record is kept for the close_notify or an alert.
        if self.key.seq + records + 1 > self.limit {
            return Err(NetError::Tls(format!(
                "the session reached the TLS key's limit of {} records (RFC 8446 §5.5); \
                 split the work over several sessions",
                self.limit
            )));
        }
        for piece in data.chunks(MAX_PLAIN) {
            self.seal_record(APPLICATION_DATA, piece, out);
        }
        Ok(())
    }

    /// Appends a close_notify (a warning) or a fatal alert; nothing is sealed after it.
    pub(crate) fn seal_alert(&mut self, description: u8, out: &mut impl Records) {
        if self.closed {
            return;
        }
        let level = if description == CLOSE_NOTIFY {
            WARNING
        } else {
            FATAL
        };
        self.seal_record(ALERT, &[level, description], out);
        self.closed = true;
    }

    /// Keeps a fatal alert for the next [`Sealer::seal`] (the receiving side has no socket
    /// to write it).
    pub(crate) fn raise(&mut self, description: u8) {
        if !self.closed && self.alert.is_none() {
            self.alert = Some(description);
        }
    }

    /// Whether the receiving side raised an alert not sent yet.
    pub(crate) fn alert_raised(&self) -> bool {
        self.alert.is_some()
    }

    /// Appends the alert raised by [`Sealer::raise`], if any.
    pub(crate) fn take_alert(&mut self, out: &mut impl Records) {
        if let Some(alert) = self.alert.take() {
            self.seal_alert(alert, out);
        }
    }

    /// Appends one record: header, then `plain` and the content type encrypted, the tag
    /// (§5.2).
    pub(crate) fn seal_record(&mut self, content: u8, plain: &[u8], out: &mut impl Records) {
        let length = plain.len() + 1 + TAG;
        let header = [APPLICATION_DATA, 3, 3, (length >> 8) as u8, length as u8];
        let record = out.append(HEADER + length);
        record[..HEADER].copy_from_slice(&header);
        let nonce = self.key.next_nonce();
        self.key
            .key
            .seal(nonce, header, plain, content, &mut record[HEADER..]);
    }
}

/// The receiving direction: opens records in place or into the caller's buffer.
pub(crate) struct Opener {
    key: TrafficKey,
}

/// Why a record could not be opened: the error to report and the alert to send (if any).
pub(crate) struct OpenError {
    pub(crate) error: NetError,
    pub(crate) alert: Option<u8>,
}

impl OpenError {
    fn fatal(alert: u8, what: &str) -> OpenError {
        OpenError {
            error: NetError::Tls(what.into()),
            alert: Some(alert),
        }
    }
}

const NOT_TLS: &str = "the peer does not speak TLS 1.3 as expected (a plain TCP peer, or a corrupted stream)";
const NOT_AUTHENTIC: &str =
    "a TLS record from the peer failed authentication (modified in transit, or not from the peer)";

impl Opener {
    /// The receiving key from `(seq, secrets)` (rustls' extracted `rx`).
    pub(crate) fn new(rx: (u64, ConnectionTrafficSecrets)) -> Result<Opener, NetError> {
        Ok(Opener {
            key: TrafficKey::new(rx.0, rx.1)?,
        })
    }

    /// The length of the record at the front of `buf` once it is all there; `None` while
    /// only part of its header is. A header no TLS 1.3 record has is an error.
    pub(crate) fn record_len(buf: &[u8]) -> Result<Option<usize>, OpenError> {
        let Some(header) = buf.get(..HEADER) else {
            return Ok(None);
        };
        let length = usize::from(u16::from_be_bytes([header[3], header[4]]));
        if header[0] != APPLICATION_DATA || header[1..3] != [3, 3] || length > MAX_CIPHERTEXT || length <= TAG
        {
            return Err(OpenError::fatal(UNEXPECTED_MESSAGE, NOT_TLS));
        }
        Ok(Some(HEADER + length))
    }

    /// The bytes [`Opener::open_into`] writes for a record of `record_len` bytes: its inner
    /// plaintext (data, content type, padding).
    pub(crate) fn inner_len(record_len: usize) -> usize {
        record_len - HEADER - TAG
    }

    /// Opens the whole record `record` (as [`Opener::record_len`] measured it) in place;
    /// where its application data (possibly none) lies in `record`. A close_notify is
    /// [`NetError::Disconnected`]; the peer's fatal alert is an error naming it.
    pub(crate) fn open(&mut self, record: &mut [u8]) -> Result<Range<usize>, OpenError> {
        let (header, body) = record.split_at_mut(HEADER);
        let header: [u8; HEADER] = (&*header).try_into().expect("a record has a header");
        let nonce = self.key.next_nonce();
        self.key
            .key
            .open_in_place(nonce, header, body)
            .map_err(|_| OpenError::fatal(BAD_RECORD_MAC, NOT_AUTHENTIC))?;
        let data = application_data(&body[..body.len() - TAG])?;
        Ok(HEADER..HEADER + data)
    }

    /// Opens the whole record `record` into `out`, exactly [`Opener::inner_len`] bytes;
    /// the application data (possibly none) is `out[..n]`, n returned, and the rest of `out`
    /// is scratch. Errors as [`Opener::open`]; on one `out` holds nothing from the record.
    pub(crate) fn open_into(&mut self, record: &[u8], out: &mut [u8]) -> Result<usize, OpenError> {
        let (header, body) = record.split_at(HEADER);
        let header: [u8; HEADER] = header.try_into().expect("a record has a header");
        let nonce = self.key.next_nonce();
        self.key
            .key
            .open_into(nonce, header, body, out)
            .map_err(|_| OpenError::fatal(BAD_RECORD_MAC, NOT_AUTHENTIC))?;
        application_data(out)
    }
}

/// The length of the application data in an opened `TLSInnerPlaintext` (§5.4): its
/// content type is the last non-zero byte (zeros after it are padding). Anything but
/// application data is an error: a close_notify ([`NetError::Disconnected`]), the peer's
/// alert, a handshake message (a key update, refused).
fn application_data(inner: &[u8]) -> Result<usize, OpenError> {
    let Some(end) = inner.iter().rposition(|&b| b != 0) else {
        return Err(OpenError::fatal(
            UNEXPECTED_MESSAGE,
            "the peer broke the TLS protocol",
        ));
    };
    match inner[end] {
        APPLICATION_DATA => Ok(end),
        ALERT => Err(alert_error(&inner[..end])),
        HANDSHAKE => Err(OpenError::fatal(
            UNEXPECTED_MESSAGE,
            "the peer sent a TLS handshake message after the handshake (a key update or a \
             ticket, which mixgc never sends)",
        )),
        _ => Err(OpenError::fatal(
            UNEXPECTED_MESSAGE,
            "the peer broke the TLS protocol",
        )),
    }
}

/// The peer's alert as an error: a close_notify ends the stream, anything else names why the
/// peer stopped.
fn alert_error(body: &[u8]) -> OpenError {
    let error = match body {
        [_, CLOSE_NOTIFY] => NetError::Disconnected,
        [_, description] => NetError::Tls(crate::tls::describe(&rustls::Error::AlertReceived(
            rustls::AlertDescription::from(*description),
        ))),
        _ => return OpenError::fatal(UNEXPECTED_MESSAGE, "the peer broke the TLS protocol"),
    };
    OpenError { error, alert: None }
}

/// Keys and a reader of sealed records, for the record layer's tests.
#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use rustls::crypto::cipher::{AeadKey, Iv};

    /// AES-256-GCM (1) or ChaCha20-Poly1305 (2): rustls makes 16-byte AES-128 keys only in
    /// a handshake (the channel tests negotiate AES-128-GCM).
    pub(crate) fn secrets(suite: u8) -> ConnectionTrafficSecrets {
        let key = AeadKey::from([suite.wrapping_mul(31); 32]);
        let iv = Iv::from([suite ^ 0x5a; 12]);
        match suite {
            1 => ConnectionTrafficSecrets::Aes256Gcm { key, iv },
            _ => ConnectionTrafficSecrets::Chacha20Poly1305 { key, iv },
        }
    }

    /// Opens every record of `wire` in order; the plaintext.
    pub(crate) fn open_all(opener: &mut Opener, wire: &mut [u8]) -> Result<Vec<u8>, NetError> {
        let mut plain = Vec::new();
        let mut at = 0;
        while at < wire.len() {
            let len = Opener::record_len(&wire[at..])
                .map_err(|e| e.error)?
                .expect("whole header");
            let range = opener.open(&mut wire[at..at + len]).map_err(|e| e.error)?;
            plain.extend_from_slice(&wire[at + range.start..at + range.end]);
            at += len;
        }
        Ok(plain)
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{open_all, secrets};
    use super::*;

    /// A sealer and the opener of its records, from sequence number `seq`.
    fn pair(suite: u8, seq: u64) -> (Sealer, Opener) {
        let sealer = Sealer::new((seq, secrets(suite)), 1 << 24).unwrap();
        let opener = Opener::new((seq, secrets(suite))).unwrap();
        (sealer, opener)
    }

    #[test]
    fn sealed_records_open_to_the_plaintext_for_every_suite() {
        // splitmix64: random-looking lengths and bytes, reproducible.
        let mut state = 14u64;
        let mut next = move || {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let z = (state ^ (state >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        for suite in 1..3 {
            let (mut sealer, mut opener) = pair(suite, next() % 1000);
            let random_len = (next() % 200_000) as usize;
            for len in [
                0,
                1,
                5,
                MAX_PLAIN - 1,
                MAX_PLAIN,
                MAX_PLAIN + 1,
                3 * MAX_PLAIN + 7,
                random_len,
            ] {
                let data: Vec<u8> = (0..len).map(|_| next() as u8).collect();
                let mut wire = Vec::new();
                sealer.seal(&data, &mut wire).unwrap();
                assert_eq!(wire.len(), len + len.div_ceil(MAX_PLAIN) * OVERHEAD);
                assert_eq!(
                    open_all(&mut opener, &mut wire).unwrap(),
                    data,
                    "suite {suite}, {len} bytes"
                );
            }
        }
    }

    #[test]
    fn a_changed_byte_anywhere_fails_authentication_or_framing() {
        let (mut sealer, _) = pair(1, 0);
        let mut wire = Vec::new();
        sealer
            .seal(b"the garbled tables of one batch", &mut wire)
            .unwrap();
        for at in 0..wire.len() {
            let mut bad = wire.clone();
            bad[at] ^= 0x40;
            let (_, mut opener) = pair(1, 0);
            let e = match Opener::record_len(&bad) {
                Err(e) => e,
                Ok(Some(len)) if len == bad.len() => opener.open(&mut bad).unwrap_err(),
                // A length changed: the record is not all there, or another follows.
                Ok(_) => continue,
            };
            assert!(e.alert.is_some(), "byte {at}");
            assert!(matches!(e.error, NetError::Tls(_)), "byte {at}");
        }
    }

    #[test]
    fn records_out_of_order_or_replayed_fail() {
        let (mut sealer, mut opener) = pair(1, 0);
        let (mut first, mut second) = (Vec::new(), Vec::new());
        sealer.seal(b"one", &mut first).unwrap();
        sealer.seal(b"two", &mut second).unwrap();
        let e = opener.open(&mut second.clone()).unwrap_err();
        assert_eq!(e.alert, Some(BAD_RECORD_MAC));
        assert!(
            e.error.to_string().contains("failed authentication"),
            "{}",
            e.error
        );
        // The opener moved on a record: the first no longer opens either.
        assert!(opener.open(&mut first).is_err());
    }

    #[test]
    fn headers_no_tls_13_record_has_are_refused() {
        assert_eq!(Opener::record_len(&[23, 3, 3]).ok(), Some(None));
        for header in [
            [22, 3, 3, 0, 40], // a handshake record
            [23, 3, 1, 0, 40], // another version
            [23, 3, 3, 0, 16], // shorter than a tag
            [
                23,
                3,
                3,
                ((MAX_CIPHERTEXT + 1) >> 8) as u8,
                (MAX_CIPHERTEXT + 1) as u8,
            ], // too long
            *b"MIXGC",         // a plain TCP peer
        ] {
            let Err(e) = Opener::record_len(&header) else {
                panic!("{header:?} accepted");
            };
            assert_eq!(e.alert, Some(UNEXPECTED_MESSAGE));
            assert!(
                e.error.to_string().contains("does not speak TLS 1.3"),
                "{}",
                e.error
            );
        }
        assert_eq!(
            Opener::record_len(&[23, 3, 3, 0x41, 0x00]).ok(),
            Some(Some(5 + MAX_CIPHERTEXT))
        );
    }

    #[test]
    fn alerts_end_the_stream_or_name_the_reason() {
        let (mut sealer, mut opener) = pair(2, 7);
        let mut wire = Vec::new();
        sealer.seal_alert(CLOSE_NOTIFY, &mut wire);
        assert!(matches!(
            open_all(&mut opener, &mut wire),
            Err(NetError::Disconnected)
        ));
        // Nothing is sealed after a close_notify.
        assert!(matches!(
            sealer.seal(b"late", &mut wire),
            Err(NetError::Disconnected)
        ));

        let (mut sealer, mut opener) = pair(1, 0);
        sealer.raise(BAD_RECORD_MAC);
        let mut wire = Vec::new();
        assert!(matches!(
            sealer.seal(b"data", &mut wire),
            Err(NetError::Disconnected)
        ));
        let e = open_all(&mut opener, &mut wire).unwrap_err();
        assert!(
            e.to_string().contains("could not authenticate a TLS record"),
            "{e}"
        );
    }

    #[test]
    fn a_handshake_message_after_the_handshake_is_refused() {
        let (mut sealer, mut opener) = pair(1, 0);
        let mut wire = Vec::new();
        // A KeyUpdate (RFC 8446 §4.6.3), which mixgc never sends.
        sealer.seal_record(HANDSHAKE, &[24, 0, 0, 1, 0], &mut wire);
        let e = opener.open(&mut wire).unwrap_err();
        assert_eq!(e.alert, Some(UNEXPECTED_MESSAGE));
        assert!(
            e.error
                .to_string()
                .contains("handshake message after the handshake"),
            "{}",
            e.error
        );
    }

    #[test]
    fn padding_is_stripped_and_an_all_zero_record_refused() {
        let (mut sealer, mut opener) = pair(1, 0);
        let mut wire = Vec::new();
        // Application data "ab", then the content type, then three bytes of padding (§5.4).
        sealer.seal_record(0, &[b'a', b'b', APPLICATION_DATA, 0, 0], &mut wire);
        assert_eq!(open_all(&mut opener, &mut wire).unwrap(), b"ab");
        let mut wire = Vec::new();
        sealer.seal_record(0, &[0, 0], &mut wire);
        let e = opener.open(&mut wire).unwrap_err();
        assert_eq!(e.alert, Some(UNEXPECTED_MESSAGE));
    }

    #[test]
    fn a_key_at_its_limit_stops_sealing() {
        let mut sealer = Sealer::new((0, secrets(1)), 4).unwrap();
        let mut wire = Vec::new();
        sealer.seal(&vec![1u8; 3 * MAX_PLAIN], &mut wire).unwrap();
        let e = sealer.seal(b"x", &mut wire).unwrap_err();
        assert!(e.to_string().contains("limit of 4 records"), "{e}");
        // The close_notify still fits.
        sealer.seal_alert(CLOSE_NOTIFY, &mut wire);
        let mut opener = Opener::new((0, secrets(1))).unwrap();
        assert!(matches!(
            open_all(&mut opener, &mut wire),
            Err(NetError::Disconnected)
        ));
    }

    /// Opening into a caller's buffer gives what opening in place gives, for data,
    /// padding, alerts and tampered records; a failed open leaves no plaintext there.
    #[test]
    fn opening_into_a_buffer_matches_opening_in_place() {
        let records: Vec<(u8, Vec<u8>)> = vec![
            (APPLICATION_DATA, b"the garbled tables".to_vec()),
            (APPLICATION_DATA, vec![]),
            (APPLICATION_DATA, vec![0x5a; MAX_PLAIN]),
            (0, vec![b'a', b'b', APPLICATION_DATA, 0, 0, 0]),
            (0, vec![0, 0]),
            (ALERT, vec![WARNING, CLOSE_NOTIFY]),
            (ALERT, vec![FATAL, BAD_RECORD_MAC]),
            (HANDSHAKE, vec![24, 0, 0, 1, 0]),
        ];
        for suite in 1..3 {
            for tamper in [false, true] {
                let (mut sealer, mut in_place) = pair(suite, 3);
                let (_, mut into) = pair(suite, 3);
                for (content, plain) in &records {
                    let mut wire = Vec::new();
                    sealer.seal_record(*content, plain, &mut wire);
                    if tamper {
                        let last = wire.len() - 1;
                        wire[last] ^= 1;
                    }
                    let len = Opener::record_len(&wire).ok().flatten().unwrap();
                    assert_eq!(len, wire.len());
                    let mut out = vec![0xee; Opener::inner_len(len)];
                    let got = into.open_into(&wire, &mut out);
                    let want = in_place.open(&mut wire);
                    match (got, want) {
                        (Ok(n), Ok(range)) => assert_eq!(&out[..n], &wire[range]),
                        (Err(a), Err(b)) => {
                            assert_eq!(a.alert, b.alert);
                            assert_eq!(a.error.to_string(), b.error.to_string());
                            if tamper {
                                assert!(out.iter().all(|&b| b == 0));
                            }
                        }
                        (got, want) => panic!("{:?} against {:?}", got.is_ok(), want.is_ok()),
                    }
                }
            }
        }
    }

    /// The reused write buffer holds exactly the records of the last writes.
    #[test]
    fn the_wire_buffer_is_reused_across_writes() {
        let (mut sealer, mut opener) = pair(2, 0);
        let mut wire = Wire::with_capacity(64);
        for (i, len) in [100usize, 3 * MAX_PLAIN + 1, 7, 0].into_iter().enumerate() {
            let data = vec![i as u8 + 1; len];
            wire.clear();
            assert!(wire.is_empty());
            sealer.seal(&data, &mut wire).unwrap();
            assert_eq!(wire.bytes().len(), len + len.div_ceil(MAX_PLAIN) * OVERHEAD);
            let mut records = wire.bytes().to_vec();
            assert_eq!(open_all(&mut opener, &mut records).unwrap(), data);
        }
    }
}
