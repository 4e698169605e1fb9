//! A relayed reason read inside a raw-byte step. A pairwise subprotocol (an OT exchange)
//! reads its peer's bytes without frames, so the `Abort` frame a peer sends when it stops
//! ([`crate::Mesh::abort_all`], naming whoever made it stop) would be taken for protocol
//! data, and the step would report the peer's close, or garbage, instead of its reason.
//! [`AbortWatch`] wraps the link for such a step and keeps any abort frame that starts
//! where a read (or the rest of one, after such a frame) starts; once the step fails, the
//! peer's reason replaces the error ([`AbortWatch::reason`]).
//!
//! A frame header is 5 bytes: a tag and a length. Random protocol data starts like an abort
//! frame with probability 2⁻⁸ · 2⁻²⁰ per read, and is only taken for one when the step
//! fails anyway and the frame's bytes are a whole UTF-8 message: on an honest run nothing
//! changes.

use std::time::Duration;

use mixgc_net::{last_words, Channel, NetError, Tag, MAX_ABORT_BYTES};

/// Bytes of a frame header: its tag and its length (u32, little-endian).
const HEADER: usize = 5;

/// The link to one peer during a raw-byte step, watching for the peer's abort frame.
pub(crate) struct AbortWatch<'a> {
    link: &'a mut dyn Channel,
    /// An abort frame seen at the start of a read: its declared length and the message
    /// bytes read so far. Dropped when ordinary data follows it.
    seen: Option<Seen>,
    /// The reason of a whole abort frame that another one followed (a party relays its
    /// reason again when it stops): the first is the one reported.
    first: Option<String>,
}

struct Seen {
    len: usize,
    message: Vec<u8>,
}

impl Seen {
    fn missing(&self) -> usize {
        self.len - self.message.len()
    }
}

/// The message length of an abort frame starting with `header`, if it is one.
fn abort_header(header: &[u8]) -> Option<usize> {
    let len = u32::from_le_bytes(header[1..HEADER].try_into().expect("4 bytes")) as usize;
    (header[0] == Tag::Abort as u8 && (1..=MAX_ABORT_BYTES).contains(&len)).then_some(len)
}

impl<'a> AbortWatch<'a> {
    pub(crate) fn new(link: &'a mut dyn Channel) -> Self {
        AbortWatch {
            link,
            seen: None,
            first: None,
        }
    }

    /// The reason the peer sent when it stopped, if an abort frame was seen (its rest read
    /// from the link if need be) and its message is text.
    pub(crate) fn reason(&mut self) -> Option<NetError> {
        let seen = self.seen.as_mut()?;
        let done = seen.message.len();
        seen.message.resize(seen.len, 0);
        if done < seen.len && self.link.recv(&mut seen.message[done..]).is_err() {
            self.seen = None;
            return self.seen_reason();
        }
        self.seen_reason()
    }

    /// The reason of a whole abort frame already read, if there is one.
    fn seen_reason(&self) -> Option<NetError> {
        let reason = match &self.first {
            Some(first) => first.clone(),
            None => self.seen_text()?.to_owned(),
        };
        Some(NetError::PeerStopped(reason))
    }

    /// The message of the abort frame seen, if it was read whole and is text.
    fn seen_text(&self) -> Option<&str> {
        let seen = self.seen.as_ref().filter(|s| s.missing() == 0)?;
        std::str::from_utf8(&seen.message).ok()
    }

    /// Reads the start of `buf` and returns how many bytes: the rest of an abort frame,
    /// the header of one, or else (ordinary data) all of `buf`.
    fn read_segment(&mut self, buf: &mut [u8]) -> Result<usize, NetError> {
        if let Some(missing) = self.seen.as_ref().map(Seen::missing).filter(|&m| m > 0) {
            let n = missing.min(buf.len());
            self.read(&mut buf[..n])?;
            if let Some(seen) = self.seen.as_mut() {
                seen.message.extend_from_slice(&buf[..n]);
            }
            return Ok(n);
        }
        if buf.len() >= HEADER {
            self.read(&mut buf[..HEADER])?;
            if let Some(len) = abort_header(&buf[..HEADER]) {
                if self.first.is_none() {
                    self.first = self.seen_text().map(str::to_owned);
                }
                self.seen = Some(Seen {
                    len,
                    message: Vec::with_capacity(len),
                });
                return Ok(HEADER);
            }
            // Data after a frame: that frame was data too.
            self.seen = None;
            self.first = None;
            self.read(&mut buf[HEADER..])?;
        } else {
            self.read(buf)?;
        }
        Ok(buf.len())
    }

    /// A failed write, as the error to report: when the peer closed, the reason it sent
    /// before closing if it sent one (seen here, or among the bytes not read yet).
    fn write_failed(&mut self, e: NetError) -> NetError {
        match e {
            NetError::Disconnected => self
                .reason()
                .or_else(|| last_words(&mut *self.link))
                .unwrap_or(NetError::Disconnected),
            e => e,
        }
    }

    /// `buf` from the link; a failed read is the peer's reason when a whole abort frame
    /// came before.
    fn read(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        self.link.recv(buf).map_err(|e| self.seen_reason().unwrap_or(e))
    }
}

impl Channel for AbortWatch<'_> {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        let r = self.link.send(data);
        r.map_err(|e| self.write_failed(e))
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        let mut at = 0;
        while at < buf.len() {
            at += self.read_segment(&mut buf[at..])?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), NetError> {
        let r = self.link.flush();
        r.map_err(|e| self.write_failed(e))
    }

    fn bytes_sent(&self) -> u64 {
        self.link.bytes_sent()
    }
    fn bytes_received(&self) -> u64 {
        self.link.bytes_received()
    }
    fn channel_binding(&self) -> Option<[u8; 32]> {
        self.link.channel_binding()
    }
    fn set_phase(&mut self, phase: &'static str) {
        self.link.set_phase(phase)
    }
    fn read_timeout(&self) -> Option<Duration> {
        self.link.read_timeout()
    }
    fn set_read_timeout(&mut self, timeout: Duration) {
        self.link.set_read_timeout(timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{memory_mesh, Mesh, NpartyError};
    use mixgc_core::Rng;
    use mixgc_net::{memory_pair, send_abort, send_frame};
    use mixgc_ot::{OtError, OtReceiver, OtSender};
    use proptest::prelude::*;
    use rand::SeedableRng;

    /// What party 0 relays: the reason of a party that stopped because of party 2.
    const REASON: &str = "party 2: the peer closed the connection";

    proptest! {
        /// Bytes read through the watch, in reads of any sizes, are the bytes sent, also
        /// where they start like an abort frame; such a start followed by more data is no
        /// reason when the peer then closes.
        #[test]
        fn data_passes_unchanged_and_lookalike_frames_are_no_reason(
            mut data in proptest::collection::vec(any::<u8>(), 0..400),
            lookalike_at in proptest::collection::vec(0usize..400, 0..4),
            reads in proptest::collection::vec(1usize..64, 1..40),
        ) {
            let len = data.len();
            for at in lookalike_at.into_iter().filter(|&at| at + HEADER <= len) {
                data[at..at + HEADER].copy_from_slice(&[Tag::Abort as u8, 2, 0, 0, 0]);
            }
            data.extend_from_slice(&[7; 16]); // data, not an abort, comes last
            let (mut a, mut b) = memory_pair();
            a.send(&data).unwrap();
            a.flush().unwrap();
            drop(a);
            let mut watch = AbortWatch::new(&mut b);
            let mut got = Vec::new();
            for n in reads.iter().cycle() {
                let n = (*n).min(data.len() - got.len());
                if n == 0 {
                    break;
                }
                let mut buf = vec![0u8; n];
                watch.recv(&mut buf).unwrap();
                got.extend_from_slice(&buf);
            }
            prop_assert_eq!(&got, &data);
            prop_assert!(matches!(watch.recv(&mut [0u8; 8]), Err(NetError::Disconnected)));
            prop_assert!(watch.reason().is_none());
        }
    }

    #[test]
    fn an_abort_read_as_data_is_the_error_of_a_read_or_after_one() {
        // Two frames (the mesh's abort, then the program's), read where 64 bytes of data
        // were expected: the read fails with the first reason.
        let (mut a, mut b) = memory_pair();
        send_abort(&mut a, REASON).unwrap();
        send_abort(&mut a, "again").unwrap();
        drop(a);
        let mut watch = AbortWatch::new(&mut b);
        let e = watch.recv(&mut [0u8; 64]).unwrap_err();
        assert!(matches!(&e, NetError::PeerStopped(r) if r == REASON), "{e}");

        // A read the frame fills (a group element): the step fails on the bytes, and the
        // reason is read to its end.
        let (mut a, mut b) = memory_pair();
        send_abort(&mut a, REASON).unwrap();
        let mut watch = AbortWatch::new(&mut b);
        watch.recv(&mut [0u8; 32]).unwrap();
        let e = watch.reason().unwrap();
        assert!(matches!(&e, NetError::PeerStopped(r) if r == REASON), "{e}");

        // A write to a peer that left: the reason among its unread bytes.
        let (mut a, mut b) = memory_pair();
        send_abort(&mut a, REASON).unwrap();
        drop(a);
        let mut watch = AbortWatch::new(&mut b);
        let sent = watch.send(&[1; 1 << 17]).and_then(|()| watch.flush());
        assert!(
            matches!(&sent, Err(NetError::PeerStopped(r)) if r == REASON),
            "{sent:?}"
        );

        // A frame of another kind, or an abort that is not text, is no reason.
        let (mut a, mut b) = memory_pair();
        send_frame(&mut a, Tag::Openings, REASON.as_bytes()).unwrap();
        send_frame(&mut a, Tag::Abort, &[0xff, 0xfe]).unwrap();
        drop(a);
        let mut watch = AbortWatch::new(&mut b);
        let e = watch.recv(&mut [0u8; 128]).unwrap_err();
        assert!(matches!(e, NetError::Disconnected), "{e}");
    }

    /// Party 0 of a two-party mesh runs `before_0`, then relays [`REASON`] and leaves;
    /// party 1 runs `before_1` (at the same time), then `step` on its link to party 0 in a
    /// pairwise step: the error party 1 stops with.
    fn relayed_into<P>(
        before_0: impl FnOnce(&mut Mesh) + Send,
        before_1: impl FnOnce(&mut Mesh) -> P,
        step: impl Fn(&mut dyn Channel, &mut P) -> Result<(), OtError> + Sync,
    ) -> NpartyError
    where
        P: Send,
    {
        let mut meshes = memory_mesh(2);
        let mut m1 = meshes.pop().unwrap();
        let mut m0 = meshes.pop().unwrap();
        std::thread::scope(|s| {
            let p0 = s.spawn(move || {
                before_0(&mut m0);
                m0.abort_all(REASON);
            });
            let mut state = vec![Some(before_1(&mut m1)), None];
            p0.join().unwrap(); // party 0 has left: its link is closed
            m1.pairwise_with(&mut state, |j, ch, p| {
                step(ch, p).map_err(|source| NpartyError::Ot { party: j, source })
            })
            .map(drop)
            .unwrap_err()
        })
    }

    fn rng() -> Rng {
        Rng::seed_from_u64(5)
    }

    /// Both ends of a pair of IKNP extensions, set up on `mesh`'s link to the other party.
    fn sender(mesh: &mut Mesh) -> OtSender {
        let mut got = mesh
            .pairwise(|_, ch| Ok(OtSender::setup(ch, &[3; 32], &mut rng()).unwrap()))
            .unwrap();
        got.remove(1 - mesh.me()).unwrap()
    }

    fn receiver(mesh: &mut Mesh) -> OtReceiver {
        let mut got = mesh
            .pairwise(|_, ch| Ok(OtReceiver::setup(ch, &[3; 32], &mut rng()).unwrap()))
            .unwrap();
        got.remove(1 - mesh.me()).unwrap()
    }

    fn assert_relayed(e: &NpartyError) {
        assert_eq!(e.party(), Some(0), "{e}");
        assert_eq!(e.relayed(), Some(REASON), "{e}");
    }

    #[test]
    fn a_reason_relayed_into_any_ot_step_is_the_error() {
        // Base OTs: reading the sender's S, or the receiver's points.
        assert_relayed(&relayed_into(
            |_| {},
            |_| (),
            |ch, ()| OtSender::setup(ch, &[3; 32], &mut rng()).map(drop),
        ));
        assert_relayed(&relayed_into(
            |_| {},
            |_| (),
            |ch, ()| OtReceiver::setup(ch, &[3; 32], &mut rng()).map(drop),
        ));
        // A step that reads the frame's first bytes as data and refuses them.
        assert_relayed(&relayed_into(
            |_| {},
            |_| (),
            |ch, ()| {
                ch.recv(&mut [0u8; 16])?;
                Err(OtError::Desync("the bytes make no sense".into()))
            },
        ));
        // The extension: reading the receiver's header, the sender's corrections, or only
        // sending (the receiver of Δ-correlated OTs).
        assert_relayed(&relayed_into(
            |m| drop(receiver(m)),
            sender,
            |ch, s| s.send_random(ch, 300).map(drop),
        ));
        assert_relayed(&relayed_into(
            |m| drop(sender(m)),
            receiver,
            |ch, r| r.receive_correlated(ch, &[true; 300]).map(drop),
        ));
        assert_relayed(&relayed_into(
            |m| drop(sender(m)),
            receiver,
            |ch, r| r.receive_delta_cot(ch, &[true; 5000]).map(drop),
        ));
    }
}
