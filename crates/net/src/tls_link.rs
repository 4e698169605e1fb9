//! A TLS 1.3 session parted into a read and a write half, for a link whose writer thread
//! must never wait on its reader (see [`crate::QueuedChannel::over_tls`]).
//!
//! After the handshake the channel runs the record layer itself ([`crate::record`]), and
//! its two directions are independent: the read half owns the receiving key and the read
//! buffer, and opens each record into the caller's buffer (in place in its own when the
//! caller wants less); the sending thread seals the caller's bytes straight into the
//! link's outgoing chunk ([`TlsSealing`]: whole 16 KiB records, no copy of the plaintext
//! first), and the write half only writes sealed chunks out. They share only the
//! sending state, behind a mutex that none holds across a system call: the read half
//! takes it only to leave an alert for the peer (a record that failed authentication),
//! which is sealed before the next data, and the write half only to end the stream with a
//! close_notify after the last chunk. Each half has its own socket handle with the
//! link's timeout, so a stalled peer is named exactly as over TCP ("the peer stopped
//! sending / reading … during PHASE").

use std::net::TcpStream;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::record::{Sealer, Wire, CLOSE_NOTIFY, MAX_PLAIN};
use crate::tcp::halves as tcp_halves;
use crate::tls::{check_confirmation, unconfirmed_error};
use crate::tls_inbound::Inbound;
use crate::{NetError, TcpReader, TcpWriter};

/// The read half: plaintext out, ciphertext read with the link's timeout.
pub(crate) struct TlsReader {
    sealer: Arc<Mutex<Sealer>>,
    raw: TcpReader,
    inbound: Inbound,
    /// Plaintext bytes returned.
    received: u64,
    /// A connecting party that has not yet read the listener's confirmation byte
    /// (`tls::ACCEPTED`): read and checked before the first plaintext.
    unconfirmed: bool,
}

/// The sending side's record layer: seals plaintext into the outgoing chunk as whole
/// records, keeping less than one record's worth until more comes or a flush.
pub(crate) struct TlsSealing {
    sealer: Arc<Mutex<Sealer>>,
    /// Plaintext of the next record, shorter than [`MAX_PLAIN`].
    partial: Vec<u8>,
}

/// The write half: sealed chunks in, written with the link's timeout.
pub(crate) struct TlsWriter {
    sealer: Arc<Mutex<Sealer>>,
    raw: TcpWriter,
    /// The close_notify (and an alert the read half left), reused.
    out: Wire,
}

/// The read half, the sending record layer and the write half of a session.
pub(crate) type Halves = (TlsReader, TlsSealing, TlsWriter);

/// Parts the record layer of a session (`sealer` and `inbound`, with the ciphertext read
/// ahead) over `socket`, with `received` the plaintext bytes read before.
pub(crate) fn halves(
    sealer: Sealer,
    inbound: Inbound,
    socket: TcpStream,
    timeout: Duration,
    received: u64,
    unconfirmed: bool,
) -> Result<Halves, NetError> {
    let (raw_reader, raw_writer) = tcp_halves(socket, timeout)?;
    let sealer = Arc::new(Mutex::new(sealer));
    Ok((
        TlsReader {
            sealer: sealer.clone(),
            raw: raw_reader,
            inbound,
            received,
            unconfirmed,
        },
        TlsSealing {
            sealer: sealer.clone(),
            partial: Vec::with_capacity(MAX_PLAIN),
        },
        TlsWriter {
            sealer,
            raw: raw_writer,
            out: Wire::default(),
        },
    ))
}

fn lock(sealer: &Mutex<Sealer>) -> MutexGuard<'_, Sealer> {
    // The sealer is consistent between calls; a panic elsewhere does not corrupt it.
    sealer.lock().unwrap_or_else(|p| p.into_inner())
}

impl TlsReader {
    /// Shuts the socket down both ways (see [`crate::TcpReader`]'s `shutdown`).
    pub(crate) fn shutdown(&self) {
        self.raw.shutdown();
    }

    /// Fills `out` with plaintext, reading and opening records as needed (after the
    /// listener's confirmation, if it is still due: a refusal is reported there).
    pub(crate) fn recv(&mut self, out: &mut [u8]) -> Result<(), NetError> {
        if self.unconfirmed {
            self.unconfirmed = false;
            let mut ok = [0u8];
            self.recv_plain(&mut ok).map_err(unconfirmed_error)?;
            check_confirmation(ok[0])?;
        }
        self.recv_plain(out)?;
        self.received += out.len() as u64;
        Ok(())
    }

    fn recv_plain(&mut self, out: &mut [u8]) -> Result<(), NetError> {
        let (raw, sealer) = (&mut self.raw, &self.sealer);
        self.inbound
            .recv(out, |room| raw.read_some(room), |alert| lock(sealer).raise(alert))
    }

    pub(crate) fn bytes_received(&self) -> u64 {
        self.received
    }

    pub(crate) fn set_phase(&mut self, phase: &'static str) {
        self.raw.set_phase(phase);
    }

    pub(crate) fn timeout(&self) -> Duration {
        self.raw.timeout()
    }

    pub(crate) fn set_timeout(&mut self, timeout: Duration) -> Result<(), NetError> {
        self.raw.set_timeout(timeout)
    }
}

impl TlsSealing {
    /// Appends `data` to `out` as records: first topping up the partial record, then whole
    /// records sealed straight from `data`; a rest shorter than a record is kept. After an
    /// alert the read half left, that alert is sealed instead and the session is over.
    pub(crate) fn seal(&mut self, mut data: &[u8], out: &mut Wire) -> Result<(), NetError> {
        let mut sealer = lock(&self.sealer);
        if sealer.alert_raised() {
            // It goes out before anything else, and ends the session.
            return sealer.seal(&[], out);
        }
        if !self.partial.is_empty() {
            let top_up = (MAX_PLAIN - self.partial.len()).min(data.len());
            self.partial.extend_from_slice(&data[..top_up]);
            data = &data[top_up..];
            if self.partial.len() < MAX_PLAIN {
                return Ok(());
            }
            sealer.seal(&self.partial, out)?;
            self.partial.clear();
        }
        let whole = data.len() - data.len() % MAX_PLAIN;
        if whole > 0 {
            sealer.seal(&data[..whole], out)?;
        }
        self.partial.extend_from_slice(&data[whole..]);
        Ok(())
    }

    /// Seals the partial record (a flush), and an alert the read half left.
    pub(crate) fn seal_partial(&mut self, out: &mut Wire) -> Result<(), NetError> {
        let mut sealer = lock(&self.sealer);
        if self.partial.is_empty() && !sealer.alert_raised() {
            return Ok(());
        }
        let sealed = sealer.seal(&self.partial, out);
        self.partial.clear();
        sealed
    }
}

impl TlsWriter {
    /// Writes sealed records out.
    pub(crate) fn write_through(&mut self, records: &[u8]) -> Result<(), NetError> {
        self.raw.write_through(records)
    }

    /// Sends a close_notify after everything written, or the alert the read half left
    /// (best effort), then ends the stream.
    pub(crate) fn finish(&mut self) {
        self.out.clear();
        {
            let mut sealer = lock(&self.sealer);
            sealer.take_alert(&mut self.out);
            sealer.seal_alert(CLOSE_NOTIFY, &mut self.out);
        }
        if !self.out.is_empty() {
            let _ = self.raw.write_through(self.out.bytes());
        }
        self.raw.finish();
    }

    pub(crate) fn set_phase(&mut self, phase: &'static str) {
        self.raw.set_phase(phase);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::testing::{open_all, secrets};
    use crate::record::{Opener, BAD_RECORD_MAC, OVERHEAD};
    use proptest::prelude::*;

    fn sealing() -> TlsSealing {
        TlsSealing {
            sealer: Arc::new(Mutex::new(Sealer::new((0, secrets(1)), 1 << 24).unwrap())),
            partial: Vec::new(),
        }
    }

    fn open(wire: &Wire) -> Result<Vec<u8>, NetError> {
        open_all(
            &mut Opener::new((0, secrets(1))).unwrap(),
            &mut wire.bytes().to_vec(),
        )
    }

    proptest! {
        /// Whatever the sends' sizes, the records carry the bytes in order, and they are
        /// as few as the bytes allow (every record but the one the flush sealed is full).
        #[test]
        fn sends_of_any_size_go_out_as_whole_records(
            sizes in proptest::collection::vec(0usize..3 * MAX_PLAIN, 1..8),
        ) {
            let mut sealing = sealing();
            let mut wire = Wire::default();
            let mut sent = Vec::new();
            for (i, size) in sizes.iter().enumerate() {
                let data: Vec<u8> = (0..*size).map(|j| (i * 7 + j) as u8).collect();
                sealing.seal(&data, &mut wire).unwrap();
                sent.extend_from_slice(&data);
                prop_assert!(sealing.partial.len() < MAX_PLAIN);
            }
            sealing.seal_partial(&mut wire).unwrap();
            prop_assert!(sealing.partial.is_empty());
            prop_assert_eq!(wire.len(), sent.len() + sent.len().div_ceil(MAX_PLAIN) * OVERHEAD);
            prop_assert_eq!(open(&wire).unwrap(), sent);
        }
    }

    /// An alert the read half left goes out before any more data and ends the sending.
    #[test]
    fn an_alert_goes_out_first_and_ends_the_session() {
        let mut sealing = sealing();
        let mut wire = Wire::default();
        sealing.seal(b"before", &mut wire).unwrap();
        lock(&sealing.sealer).raise(BAD_RECORD_MAC);
        assert!(matches!(
            sealing.seal(&[1u8; MAX_PLAIN], &mut wire),
            Err(NetError::Disconnected)
        ));
        assert!(matches!(
            sealing.seal_partial(&mut wire),
            Err(NetError::Disconnected)
        ));
        let e = open(&wire).unwrap_err();
        assert!(
            e.to_string().contains("could not authenticate a TLS record"),
            "{e}"
        );
    }
}
