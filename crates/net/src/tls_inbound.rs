//! The read buffer of a TLS link: ciphertext is read from the socket into it, and each
//! record is opened straight into the caller's buffer when its plaintext fits there (the
//! usual case: tables are read in large batches), else in place in the read buffer and
//! copied out as the caller asks ([`crate::record`]). Its size is fixed: a read of up to
//! [`READ_PIECE`] bytes always fits after a partial record.

use std::ops::Range;

use crate::record::{OpenError, Opener, MAX_WIRE_RECORD};
use crate::NetError;

/// Ciphertext read from the socket per system call (at most). 256 KiB was tried (as the
/// plain channel's read-ahead) and cost more CPU per AND end to end on 2 shared cores
/// (docs/security.md, "Channels (TLS)"), so it stays 64 KiB.
pub(crate) const READ_PIECE: usize = 64 << 10;
/// The buffer: a read piece after at most one partial record.
pub(crate) const BUFFER: usize = READ_PIECE + MAX_WIRE_RECORD;

/// What [`Inbound::step`] did.
pub(crate) enum Step {
    /// Opened a record: this many bytes of application data went straight into the
    /// caller's buffer, or (0) its plaintext, possibly none, is ready in the read buffer.
    Opened(usize),
    /// The next record is not all there: read more ciphertext into [`Inbound::room`].
    NeedBytes,
}

pub(crate) struct Inbound {
    buf: Vec<u8>,
    /// Opened plaintext not yet copied out.
    plain: Range<usize>,
    /// Ciphertext not yet opened.
    start: usize,
    end: usize,
    opener: Opener,
    /// Plaintext that rustls decrypted during the handshake (the peer's first flight, the
    /// listener's confirmation), served before the records.
    early: Vec<u8>,
    early_taken: usize,
}

impl Inbound {
    /// `buf[..len]` is ciphertext read after the handshake (its length is reset to
    /// [`BUFFER`]); `early` is plaintext rustls opened during the handshake.
    pub(crate) fn new(opener: Opener, mut buf: Vec<u8>, len: usize, early: Vec<u8>) -> Inbound {
        debug_assert!(len <= BUFFER);
        buf.resize(BUFFER, 0);
        Inbound {
            buf,
            plain: 0..0,
            start: 0,
            end: len,
            opener,
            early,
            early_taken: 0,
        }
    }

    /// Copies ready plaintext into `out`; the bytes copied (0 when none is ready).
    pub(crate) fn take(&mut self, out: &mut [u8]) -> usize {
        if self.early_taken < self.early.len() {
            let n = out.len().min(self.early.len() - self.early_taken);
            out[..n].copy_from_slice(&self.early[self.early_taken..self.early_taken + n]);
            self.early_taken += n;
            if self.early_taken == self.early.len() {
                self.early = Vec::new();
                self.early_taken = 0;
            }
            return n;
        }
        let n = out.len().min(self.plain.len());
        out[..n].copy_from_slice(&self.buf[self.plain.start..self.plain.start + n]);
        self.plain.start += n;
        n
    }

    /// Opens the next record if it is all in the buffer: into `out` if its inner plaintext
    /// fits there, else in place. Only when no plaintext is waiting.
    pub(crate) fn step(&mut self, out: &mut [u8]) -> Result<Step, OpenError> {
        debug_assert!(self.plain.is_empty());
        let Some(len) = Opener::record_len(&self.buf[self.start..self.end])? else {
            return Ok(Step::NeedBytes);
        };
        if self.end - self.start < len {
            return Ok(Step::NeedBytes);
        }
        let at = self.start;
        self.start += len;
        let inner = Opener::inner_len(len);
        if let Some(out) = out.get_mut(..inner) {
            let n = self.opener.open_into(&self.buf[at..at + len], out)?;
            return Ok(Step::Opened(n));
        }
        let range = self.opener.open(&mut self.buf[at..at + len])?;
        self.plain = at + range.start..at + range.end;
        Ok(Step::Opened(0))
    }

    /// Where to read more ciphertext (at least [`READ_PIECE`] bytes), after moving the
    /// partial record to the front. Only when no plaintext is waiting.
    pub(crate) fn room(&mut self) -> &mut [u8] {
        debug_assert!(self.plain.is_empty());
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            self.plain = 0..0;
        }
        &mut self.buf[self.end..]
    }

    /// The read buffer's size (fixed at [`BUFFER`]).
    pub(crate) fn buffer_len(&self) -> usize {
        self.buf.len()
    }

    /// `n` bytes were read into [`Inbound::room`].
    pub(crate) fn filled(&mut self, n: usize) {
        self.end += n;
    }

    /// Fills `out` with plaintext: opens the records in the buffer, reading more with
    /// `read` (0: the stream ended), and handing the alert to send on a bad record to
    /// `alert`.
    pub(crate) fn recv(
        &mut self,
        out: &mut [u8],
        mut read: impl FnMut(&mut [u8]) -> Result<usize, NetError>,
        mut alert: impl FnMut(u8),
    ) -> Result<(), NetError> {
        let mut filled = 0;
        while filled < out.len() {
            let n = self.take(&mut out[filled..]);
            if n > 0 {
                filled += n;
                continue;
            }
            match self.step(&mut out[filled..]) {
                Ok(Step::Opened(n)) => filled += n,
                Ok(Step::NeedBytes) => {
                    let n = read(self.room())?;
                    if n == 0 {
                        // The stream ended without a close_notify.
                        return Err(NetError::Disconnected);
                    }
                    self.filled(n);
                }
                Err(e) => {
                    if let Some(description) = e.alert {
                        alert(description);
                    }
                    return Err(e.error);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{Sealer, MAX_PLAIN};
    use proptest::prelude::*;
    use rustls::crypto::cipher::{AeadKey, Iv};
    use rustls::ConnectionTrafficSecrets;

    fn secrets() -> ConnectionTrafficSecrets {
        ConnectionTrafficSecrets::Aes256Gcm {
            key: AeadKey::from([3u8; 32]),
            iv: Iv::from([4u8; 12]),
        }
    }

    fn inbound(early: &[u8]) -> Inbound {
        Inbound::new(
            Opener::new((0, secrets())).unwrap(),
            Vec::new(),
            0,
            early.to_vec(),
        )
    }

    /// Receives `want` bytes from `wire`, read `piece` bytes at a time.
    fn receive(inbound: &mut Inbound, wire: &[u8], piece: usize, want: usize) -> Result<Vec<u8>, NetError> {
        let mut at = 0;
        let mut out = vec![0u8; want];
        inbound.recv(
            &mut out,
            |room| {
                let n = piece.min(room.len()).min(wire.len() - at);
                room[..n].copy_from_slice(&wire[at..at + n]);
                at += n;
                Ok(n)
            },
            |_| {},
        )?;
        Ok(out)
    }

    proptest! {
        /// Records arrive whole whatever the socket's reads cut them into, after the
        /// plaintext opened during the handshake.
        #[test]
        fn records_split_anywhere_arrive_whole(
            early in proptest::collection::vec(any::<u8>(), 0..40),
            data in proptest::collection::vec(any::<u8>(), 1..3 * MAX_PLAIN),
            piece in 1usize..40_000,
        ) {
            let mut sealer = Sealer::new((0, secrets()), 1 << 24).unwrap();
            let mut wire = Vec::new();
            sealer.seal(&data, &mut wire).unwrap();
            let mut inbound = inbound(&early);
            let got = receive(&mut inbound, &wire, piece, early.len() + data.len()).unwrap();
            prop_assert_eq!(&got[..early.len()], &early[..]);
            prop_assert_eq!(&got[early.len()..], &data[..]);
        }

        /// Whatever a peer sends, the read half returns an error (never a panic, never
        /// plaintext it did not seal), having buffered at most its fixed buffer.
        #[test]
        fn bytes_from_a_peer_without_the_key_are_refused(
            wire in proptest::collection::vec(any::<u8>(), 0..40_000),
            piece in 1usize..20_000,
        ) {
            let mut inbound = inbound(&[]);
            prop_assert!(receive(&mut inbound, &wire, piece, 10).is_err());
            prop_assert_eq!(inbound.buf.len(), BUFFER);
        }
    }
}
