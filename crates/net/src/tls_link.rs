//! A TLS 1.3 session parted into a read and a write half, for a link whose writer thread
//! must never wait on its reader (see [`crate::QueuedChannel::over_tls`]).
//!
//! After the handshake the channel runs the record layer itself ([`crate::record`]), and
//! its two directions are independent: the read half owns the receiving key and the read
//! buffer, and opens each record into the caller's buffer (in place in its own when the
//! caller wants less); the write half seals each piece (at most [`SEAL_PIECE`] bytes) into
//! its own buffer and writes it out. They share only the
//! sending state, behind a mutex that neither holds across a system call: the read half
//! takes it only to leave an alert for the peer (a record that failed authentication),
//! which goes out before the next write. Each half has its own socket handle with the
//! link's timeout, so a stalled peer is named exactly as over TCP ("the peer stopped
//! sending / reading … during PHASE").

use std::net::TcpStream;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::record::{Sealer, Wire, CLOSE_NOTIFY};
use crate::tcp::halves as tcp_halves;
use crate::tls::{check_confirmation, unconfirmed_error, SEAL_PIECE};
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

/// The write half: plaintext in, ciphertext written with the link's timeout.
pub(crate) struct TlsWriter {
    sealer: Arc<Mutex<Sealer>>,
    raw: TcpWriter,
    /// Records of one piece, reused.
    out: Wire,
}

/// Parts the record layer of a session (`sealer` and `inbound`, with the ciphertext read
/// ahead) over `socket`, with `received` the plaintext bytes read before.
pub(crate) fn halves(
    sealer: Sealer,
    inbound: Inbound,
    socket: TcpStream,
    timeout: Duration,
    received: u64,
    unconfirmed: bool,
) -> Result<(TlsReader, TlsWriter), NetError> {
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
        TlsWriter {
            sealer,
            raw: raw_writer,
            out: Wire::with_capacity(SEAL_PIECE + SEAL_PIECE / 64),
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

impl TlsWriter {
    /// Seals `data` a piece at a time and writes each piece's records out (after an alert
    /// the read half left, which ends the session).
    pub(crate) fn write_through(&mut self, data: &[u8]) -> Result<(), NetError> {
        if data.is_empty() {
            return self.write_alert();
        }
        for piece in data.chunks(SEAL_PIECE) {
            self.out.clear();
            let sealed = lock(&self.sealer).seal(piece, &mut self.out);
            if !self.out.is_empty() {
                self.raw.write_through(self.out.bytes())?;
            }
            sealed?;
        }
        Ok(())
    }

    /// Writes the alert the read half left, if any.
    fn write_alert(&mut self) -> Result<(), NetError> {
        self.out.clear();
        lock(&self.sealer).take_alert(&mut self.out);
        if self.out.is_empty() {
            return Ok(());
        }
        self.raw.write_through(self.out.bytes())
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
