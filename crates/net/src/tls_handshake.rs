//! The TLS 1.3 handshake (rustls), then the hand-over of its traffic keys to the channel's
//! own record layer ([`crate::record`]).
//!
//! The ciphertext is read into the channel's read buffer and rustls is given one whole
//! record at a time, so when the handshake ends rustls holds no partial record: everything
//! after the last handshake record is still in the buffer, for the record layer to open
//! with the keys rustls hands over (`dangerous_extract_secrets`, with the sequence numbers
//! of the records it already sealed and opened). Plaintext rustls did open during the
//! handshake is passed on too.

use std::io::Read;
use std::net::TcpStream;

use rustls::{Connection, SupportedCipherSuite};

use crate::record::{Opener, Sealer, MAX_WIRE_RECORD};
use crate::tcp::Timing;
use crate::tls::{describe, Established, Session, EXPORTER_LABEL};
use crate::tls_inbound::{Inbound, BUFFER};
use crate::NetError;

/// The record types rustls may receive during the handshake (change_cipher_spec, alert,
/// handshake, application_data; RFC 8446 §5.1).
const RECORD_TYPES: std::ops::RangeInclusive<u8> = 20..=23;

/// Runs the handshake on the socket (`reader` and `writer` are its two handles), with the
/// channel's timeout and deadline; a refusal is sent to the peer as an alert before the
/// error returns.
pub(crate) fn run(
    mut conn: Connection,
    reader: &mut TcpStream,
    writer: &mut TcpStream,
    timing: &mut Timing,
) -> Result<Established, NetError> {
    let mut buf = vec![0u8; BUFFER];
    let mut len = 0;
    loop {
        write_records(&mut conn, writer, timing)?;
        if !conn.is_handshaking() {
            break;
        }
        let Some(record) = next_record(&buf[..len]) else {
            if len == buf.len() {
                return Err(NetError::Tls(
                    "the peer's TLS record is larger than TLS allows".into(),
                ));
            }
            let n = crate::tls::read_some(reader, writer, &mut buf[len..], timing)?;
            if n == 0 {
                return Err(NetError::Tls(
                    "the peer closed the connection during the TLS handshake".into(),
                ));
            }
            len += n;
            continue;
        };
        let mut whole = &buf[..record];
        while !whole.is_empty() {
            conn.read_tls(&mut whole).map_err(NetError::Io)?;
        }
        buf.copy_within(record..len, 0);
        len -= record;
        if let Err(e) = conn.process_new_packets() {
            // rustls queued an alert telling the peer why: send it if the socket lets us.
            let _ = write_records(&mut conn, writer, timing);
            return Err(NetError::Tls(describe(&e)));
        }
    }
    hand_over(conn, buf, len)
}

/// The length of the first record of `buf` once it is all there. A header that is no TLS
/// record's is handed to rustls whole, to be refused as such.
fn next_record(buf: &[u8]) -> Option<usize> {
    let header = buf.get(..5)?;
    let length = 5 + usize::from(u16::from_be_bytes([header[3], header[4]]));
    if !RECORD_TYPES.contains(&header[0]) || header[1] != 3 || length > MAX_WIRE_RECORD {
        return Some(buf.len());
    }
    (buf.len() >= length).then_some(length)
}

/// Writes out every record rustls holds.
fn write_records(conn: &mut Connection, writer: &mut TcpStream, timing: &mut Timing) -> Result<(), NetError> {
    while conn.wants_write() {
        timing.before_io(writer)?;
        match conn.write_tls(writer) {
            Ok(0) => return Err(NetError::Disconnected),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(timing.send_error(e)),
        }
    }
    Ok(())
}

/// Takes what the session needs from rustls (the exporter, the peer's certificate, the
/// suite, any plaintext it opened) and then its traffic keys; `buf[..len]` is the
/// ciphertext after the handshake.
fn hand_over(mut conn: Connection, buf: Vec<u8>, len: usize) -> Result<Established, NetError> {
    let failed = |e: rustls::Error| NetError::Tls(describe(&e));
    let binding = conn
        .export_keying_material([0u8; 32], EXPORTER_LABEL, None)
        .map_err(failed)?;
    let peer_cert = conn.peer_certificates().and_then(|c| c.first()).cloned();
    let suite = conn.negotiated_cipher_suite();
    let limit = match suite {
        Some(SupportedCipherSuite::Tls13(s)) => s.common.confidentiality_limit,
        _ => {
            return Err(NetError::Tls(
                "the peer's TLS settings are incompatible (TLS 1.3 only)".into(),
            ))
        }
    };
    let mut early = Vec::new();
    if let Err(e) = conn.reader().read_to_end(&mut early) {
        if e.kind() != std::io::ErrorKind::WouldBlock {
            return Err(NetError::Io(e));
        }
    }
    let secrets = conn.dangerous_extract_secrets().map_err(failed)?;
    let session = Session {
        sealer: Sealer::new(secrets.tx, limit)?,
        inbound: Inbound::new(Opener::new(secrets.rx)?, buf, len, early),
    };
    Ok(Established {
        session,
        binding,
        peer_cert,
        suite: suite.map(|s| format!("{:?}", s.suite())),
    })
}
