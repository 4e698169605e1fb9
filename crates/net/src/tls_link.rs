//! A TLS 1.3 session parted into a read and a write half, for a link whose writer thread
//! must never wait on its reader (see [`crate::QueuedChannel::over_tls`]).
//!
//! TLS has one state machine for both directions (rustls' `Connection`), so the halves
//! share it behind a mutex, but neither holds the lock across a system call: the read half
//! reads ciphertext from the socket unlocked, then locks to decrypt it; the write half
//! locks to encrypt a piece (at most the connection's buffer limit) into its own buffer,
//! then writes that out unlocked. Each half has its own socket handle with the link's
//! timeout, so a stalled peer is named exactly as over TCP ("the peer stopped sending /
//! reading … during PHASE").
//!
//! Records rustls makes while reading (a KeyUpdate answer) wait in the shared state and go
//! out with the next write; nothing in the protocol waits for them.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rustls::Connection;

use crate::tcp::halves as tcp_halves;
use crate::tls::{check_confirmation, describe, unconfirmed_error};
use crate::{NetError, TcpReader, TcpWriter};

/// Ciphertext read from the socket per system call (at most). 256 KiB was tried (as the
/// plain channel's read-ahead) and cost more CPU per AND end to end on 2 shared cores
/// (docs/security.md, "Channels (TLS)"), so it stays 64 KiB.
const READ_PIECE: usize = 64 << 10;

/// The read half: plaintext out, ciphertext read with the link's timeout.
pub(crate) struct TlsReader {
    conn: Arc<Mutex<Connection>>,
    raw: TcpReader,
    /// Ciphertext read and not yet handed to rustls: `buf[start..end]`.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// The socket reached the end of its stream.
    at_end: bool,
    /// Plaintext bytes returned.
    received: u64,
    /// A connecting party that has not yet read the listener's confirmation byte
    /// (`tls::ACCEPTED`): read and checked before the first plaintext.
    unconfirmed: bool,
}

/// The write half: plaintext in, ciphertext written with the link's timeout.
pub(crate) struct TlsWriter {
    conn: Arc<Mutex<Connection>>,
    raw: TcpWriter,
    /// Ciphertext of one piece, reused.
    out: Vec<u8>,
}

/// Parts `conn` (handshake done) over `socket`, with `read_ahead` the ciphertext already
/// read from the socket and not yet given to rustls, and `received` the plaintext bytes
/// read before.
pub(crate) fn halves(
    conn: Connection,
    socket: TcpStream,
    read_ahead: Vec<u8>,
    timeout: Duration,
    received: u64,
    unconfirmed: bool,
) -> Result<(TlsReader, TlsWriter), NetError> {
    let (raw_reader, raw_writer) = tcp_halves(socket, timeout)?;
    let conn = Arc::new(Mutex::new(conn));
    let end = read_ahead.len();
    let mut buf = read_ahead;
    buf.resize(end.max(READ_PIECE), 0);
    Ok((
        TlsReader {
            conn: conn.clone(),
            raw: raw_reader,
            buf,
            start: 0,
            end,
            at_end: false,
            received,
            unconfirmed,
        },
        TlsWriter {
            conn,
            raw: raw_writer,
            out: Vec::new(),
        },
    ))
}

fn lock(conn: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    // rustls leaves a consistent state between calls; a panic elsewhere does not corrupt it.
    conn.lock().unwrap_or_else(|p| p.into_inner())
}

impl TlsReader {
    /// Shuts the socket down both ways (see [`crate::TcpReader`]'s `shutdown`).
    pub(crate) fn shutdown(&self) {
        self.raw.shutdown();
    }

    /// Fills `out` with plaintext, reading and decrypting records as needed (after the
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
        let mut filled = 0;
        while filled < out.len() {
            {
                let mut conn = lock(&self.conn);
                match conn.reader().read(&mut out[filled..]) {
                    // A close_notify: the peer ended the session.
                    Ok(0) => return Err(NetError::Disconnected),
                    Ok(n) => {
                        filled += n;
                        continue;
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {}
                    // The stream ended without a close_notify.
                    Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Err(NetError::Disconnected),
                    Err(e) => return Err(NetError::Io(e)),
                }
                if self.at_end {
                    return Err(NetError::Disconnected);
                }
            }
            if self.start == self.end {
                self.start = 0;
                self.end = self.raw.read_some(&mut self.buf)?;
                self.at_end = self.end == 0;
            }
            self.decrypt()?;
        }
        Ok(())
    }

    /// Hands the ciphertext read to rustls (all of it, or what fits) and decrypts it.
    fn decrypt(&mut self) -> Result<(), NetError> {
        let mut conn = lock(&self.conn);
        let mut ciphertext = &self.buf[self.start..self.end];
        let n = conn.read_tls(&mut ciphertext).map_err(NetError::Io)?;
        self.start += n;
        conn.process_new_packets()
            .map(drop)
            .map_err(|e| NetError::Tls(describe(&e)))
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
    /// Encrypts `data` a piece at a time and writes each piece's records out (with any
    /// records rustls made meanwhile, in order).
    pub(crate) fn write_through(&mut self, mut data: &[u8]) -> Result<(), NetError> {
        loop {
            let taken = {
                let mut conn = lock(&self.conn);
                let taken = if data.is_empty() {
                    0
                } else {
                    conn.writer().write(data).map_err(NetError::Io)?
                };
                self.out.clear();
                while conn.wants_write() {
                    conn.write_tls(&mut self.out).map_err(NetError::Io)?;
                }
                taken
            };
            data = &data[taken..];
            if !self.out.is_empty() {
                self.raw.write_through(&self.out)?;
            }
            if data.is_empty() {
                return Ok(());
            }
            if taken == 0 && self.out.is_empty() {
                // rustls takes no plaintext with nothing to send: the session is closed.
                return Err(NetError::Disconnected);
            }
        }
    }

    /// Sends a close_notify after everything written (best effort), then ends the stream.
    pub(crate) fn finish(&mut self) {
        lock(&self.conn).send_close_notify();
        let _ = self.write_through(&[]);
        self.raw.finish();
    }

    pub(crate) fn set_phase(&mut self, phase: &'static str) {
        self.raw.set_phase(phase);
    }
}
