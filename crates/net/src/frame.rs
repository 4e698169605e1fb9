//! Typed, length-prefixed frames: `[tag: u8][len: u32 LE][payload]`. A receiver states
//! which tag it expects and how long a payload may be, so a confused or malicious peer
//! produces a clear error instead of a huge allocation or a misread stream.

use std::fmt;

use crate::{Channel, NetError, PeerMisbehaved};

/// Largest payload any frame may carry (garbled-table frames stay far below).
pub const MAX_FRAME_BYTES: usize = 64 << 20;

/// What a frame carries. The numbering is part of the wire format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Tag {
    Hello = 1,
    Abort = 2,
    CircuitHeader = 3,
    GarblerLabels = 4,
    Tables = 5,
    OutputDecoding = 6,
    OutputColours = 7,
    ProgramHeader = 8,
    /// Offline phase: the id of a garbling made ahead of time.
    Preprocessed = 9,
    /// Online phase: the evaluator asks for the input labels of a stored garbling.
    OnlineRequest = 10,
    /// Online phase: corrections that turn the evaluator's random-OT labels into its inputs' labels.
    LabelCorrections = 11,
    /// Arithmetic (CRT) garbled rows of a program run, in program order; a session's first
    /// one carries the arithmetic hash key.
    ArithTables = 12,
    /// Preprocessing: a key that opens the other party's stored state (offline each party
    /// gives the other one; online the garbler releases the evaluator's).
    ReleaseKey = 13,
    /// Empty; sent by a party busy for long without sending (its local evaluation of a
    /// preprocessed garbling) so that its peer's `--timeout` does not take it for dead.
    /// Every frame reader skips it.
    Heartbeat = 14,
    /// N parties: one party's hello to another (its id, the run's facts, its nonce).
    PartyHello = 15,
    /// N parties: shares opened to the other parties (GMW's masked AND inputs, a wire's
    /// permutation-bit shares sent to its input owner or its output audience).
    Openings = 16,
    /// N parties: one party's shares of the joint garbled tables (BMR offline phase).
    TableShares = 17,
    /// N parties: wire keys and external values of the input wires (BMR online phase).
    WireKeys = 18,
}

impl Tag {
    const ALL: [Tag; 18] = [
        Tag::Hello,
        Tag::Abort,
        Tag::CircuitHeader,
        Tag::GarblerLabels,
        Tag::Tables,
        Tag::OutputDecoding,
        Tag::OutputColours,
        Tag::ProgramHeader,
        Tag::Preprocessed,
        Tag::OnlineRequest,
        Tag::LabelCorrections,
        Tag::ArithTables,
        Tag::ReleaseKey,
        Tag::Heartbeat,
        Tag::PartyHello,
        Tag::Openings,
        Tag::TableShares,
        Tag::WireKeys,
    ];

    /// The tag with wire code `code`, if any.
    pub fn from_code(code: u8) -> Option<Tag> {
        Tag::ALL.into_iter().find(|t| *t as u8 == code)
    }
}

/// The frame kind's name in messages (`a hello frame`), in words, not the type's name.
impl fmt::Display for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Tag::Hello => "hello",
            Tag::Abort => "abort",
            Tag::CircuitHeader => "circuit header",
            Tag::GarblerLabels => "garbler labels",
            Tag::Tables => "garbled tables",
            Tag::OutputDecoding => "output decoding",
            Tag::OutputColours => "output colours",
            Tag::ProgramHeader => "program header",
            Tag::Preprocessed => "preprocessed garbling",
            Tag::OnlineRequest => "online request",
            Tag::LabelCorrections => "label corrections",
            Tag::ArithTables => "arithmetic tables",
            Tag::ReleaseKey => "release key",
            Tag::Heartbeat => "heartbeat",
            Tag::PartyHello => "party hello",
            Tag::Openings => "openings",
            Tag::TableShares => "table shares",
            Tag::WireKeys => "wire keys",
        })
    }
}

impl Tag {
    /// The protocol phase a frame of this kind belongs to, in words (for messages about a
    /// peer that stalls in it).
    pub fn phase(self) -> &'static str {
        match self {
            Tag::Hello | Tag::CircuitHeader | Tag::ProgramHeader | Tag::Abort => "the handshake",
            Tag::GarblerLabels => "the garbler's input labels",
            Tag::Tables | Tag::ArithTables => "the garbled tables",
            Tag::OutputDecoding | Tag::OutputColours => "the outputs",
            Tag::Preprocessed => "the preprocessing",
            Tag::ReleaseKey => "the exchange of preprocessing release keys",
            Tag::Heartbeat => "a heartbeat",
            Tag::PartyHello => "the handshake",
            Tag::Openings => "the opening of shares",
            Tag::TableShares => "the joint garbling",
            Tag::WireKeys => "the input keys",
            Tag::OnlineRequest | Tag::LabelCorrections => "the online phase's input labels",
        }
    }

    /// `a hello frame`, `an abort frame`.
    pub fn a_frame(self) -> String {
        let name = self.to_string();
        let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {name} frame")
    }
}

pub fn send_frame<C: Channel + ?Sized>(ch: &mut C, tag: Tag, payload: &[u8]) -> Result<(), NetError> {
    assert!(payload.len() <= MAX_FRAME_BYTES, "frame payload too large");
    if tag != Tag::Abort {
        ch.set_phase(tag.phase());
    }
    let mut header = [0u8; 5];
    header[0] = tag as u8;
    header[1..].copy_from_slice(&(payload.len() as u32).to_le_bytes());
    ch.send(&header)?;
    ch.send(payload)
}

/// Receives a frame with tag `tag` and a payload of at most `max_len` bytes.
/// An `Abort` frame from the peer becomes [`NetError::PeerStopped`] carrying its message.
pub fn recv_frame<C: Channel + ?Sized>(ch: &mut C, tag: Tag, max_len: usize) -> Result<Vec<u8>, NetError> {
    let mut payload = Vec::new();
    recv_frame_into(ch, tag, max_len, &mut payload)?;
    Ok(payload)
}

/// Like [`recv_frame`], reusing `payload`'s allocation.
pub fn recv_frame_into<C: Channel + ?Sized>(
    ch: &mut C,
    tag: Tag,
    max_len: usize,
    payload: &mut Vec<u8>,
) -> Result<(), NetError> {
    let len = recv_frame_header(ch, tag, max_len)?;
    payload.clear();
    // Grow with the bytes that arrive (1 MiB, then doubling), so a declared length the
    // peer never sends costs at most twice what it did send.
    while payload.len() < len {
        let filled = payload.len();
        let step = (len - filled).min(filled.max(FIRST_READ_BYTES));
        payload.resize(filled + step, 0);
        ch.recv(&mut payload[filled..])?;
    }
    Ok(())
}

/// The first allocation of a frame's payload; larger frames grow as their bytes arrive.
const FIRST_READ_BYTES: usize = 1 << 20;

/// Receives only the header of a frame with tag `tag` and returns its payload length
/// (at most `max_len`); the caller then receives exactly that many bytes.
pub fn recv_frame_header<C: Channel + ?Sized>(
    ch: &mut C,
    tag: Tag,
    max_len: usize,
) -> Result<usize, NetError> {
    if tag != Tag::Abort {
        ch.set_phase(tag.phase());
    }
    let mut header = [0u8; 5];
    ch.recv(&mut header)?;
    // Heartbeats only say the peer is alive (receiving them reset the timeout).
    while header == HEARTBEAT {
        ch.recv(&mut header)?;
    }
    let len = u32::from_le_bytes(header[1..].try_into().unwrap()) as usize;
    if tag != Tag::Abort {
        if let Some(stopped) = peer_abort(ch, &header) {
            return Err(stopped);
        }
    }
    if header[0] != tag as u8 {
        return Err(PeerMisbehaved::UnexpectedFrame {
            expected: tag,
            got: header[0],
        }
        .into());
    }
    let limit = max_len.min(MAX_FRAME_BYTES);
    if len > limit {
        return Err(PeerMisbehaved::FrameTooLong { tag, len, limit }.into());
    }
    Ok(len)
}

/// A heartbeat frame: its tag and a zero length.
const HEARTBEAT: [u8; 5] = [Tag::Heartbeat as u8, 0, 0, 0, 0];

/// Sends a heartbeat (see [`Tag::Heartbeat`]) and flushes it.
pub fn send_heartbeat<C: Channel + ?Sized>(ch: &mut C) -> Result<(), NetError> {
    ch.send(&HEARTBEAT)?;
    ch.flush()
}

/// Longest abort message sent or read.
pub const MAX_ABORT_BYTES: usize = 4096;

/// Tells the peer why we stop: an `Abort` frame carrying `reason`, cut at a character
/// boundary to the [`MAX_ABORT_BYTES`] the reader accepts, then flushed.
pub fn send_abort<C: Channel + ?Sized>(ch: &mut C, reason: &str) -> Result<(), NetError> {
    let cut = (0..=reason.len().min(MAX_ABORT_BYTES))
        .rev()
        .find(|&i| reason.is_char_boundary(i))
        .unwrap_or(0);
    send_frame(ch, Tag::Abort, &reason.as_bytes()[..cut])?;
    ch.flush()
}

/// When bytes already received where another message was expected (`read`, at least a
/// frame header) start an `Abort` frame, the peer's reason as an error, the rest of its
/// message read from `ch`. For protocol steps that read raw bytes (an OT extension's
/// header): on a mismatch they call this to report why the peer stopped, not garbage.
pub fn peer_abort<C: Channel + ?Sized>(ch: &mut C, read: &[u8]) -> Option<NetError> {
    let (&tag, len) = (read.first()?, read.get(1..5)?);
    let len = u32::from_le_bytes(len.try_into().expect("4 bytes")) as usize;
    if tag != Tag::Abort as u8 || len > MAX_ABORT_BYTES {
        return None;
    }
    let mut msg = read[5..].to_vec();
    msg.truncate(len);
    let mut rest = vec![0u8; len - msg.len()];
    if let Err(e) = ch.recv(&mut rest) {
        return Some(e);
    }
    msg.extend_from_slice(&rest);
    Some(NetError::PeerStopped(String::from_utf8_lossy(&msg).into_owned()))
}

/// Most bytes [`last_words`] skips looking for an abort frame.
const MAX_LAST_WORDS_SKIP: usize = MAX_FRAME_BYTES;

/// After a write failed because the peer closed the connection: the reason it sent before
/// closing, if an `Abort` frame is among the frames it sent that this side has not read
/// yet (skipping up to [`MAX_FRAME_BYTES`] of other frames), as [`NetError::PeerStopped`].
/// `None` when the stream ends (or fails) without one.
pub fn last_words<C: Channel + ?Sized>(ch: &mut C) -> Option<NetError> {
    let mut skipped = 0usize;
    let mut scratch = vec![0u8; 64 << 10];
    loop {
        let mut header = [0u8; 5];
        ch.recv(&mut header).ok()?;
        if let Some(stopped) = peer_abort(ch, &header) {
            return Some(stopped);
        }
        let mut len = u32::from_le_bytes(header[1..].try_into().expect("4 bytes")) as usize;
        skipped = skipped.saturating_add(len);
        if skipped > MAX_LAST_WORDS_SKIP {
            return None;
        }
        while len > 0 {
            let step = len.min(scratch.len());
            ch.recv(&mut scratch[..step]).ok()?;
            len -= step;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory_pair;
    use proptest::prelude::*;

    proptest! {
        /// Arbitrary bytes from a peer give a frame within the limit or an error: never a
        /// panic, never a read past the limit.
        #[test]
        fn random_bytes_never_panic_the_frame_reader(bytes in proptest::collection::vec(any::<u8>(), 0..64), limit in 0usize..32) {
            let (mut a, mut b) = memory_pair();
            a.send(&bytes).unwrap();
            a.flush().unwrap();
            drop(a);
            if let Ok(payload) = recv_frame(&mut b, Tag::Tables, limit) {
                prop_assert!(payload.len() <= limit);
                prop_assert_eq!(bytes[0], Tag::Tables as u8);
            }
        }
    }

    #[test]
    fn an_abort_read_as_raw_bytes_still_gives_its_reason() {
        for msg in ["no", "the evaluator's CRT input is not below N = 30030"] {
            let (mut a, mut b) = memory_pair();
            send_frame(&mut a, Tag::Abort, msg.as_bytes()).unwrap();
            a.send(&[0; 16]).unwrap(); // whatever might follow a short message
            a.flush().unwrap();
            let mut first = [0u8; 16]; // an OT extension header's worth
            b.recv(&mut first).unwrap();
            let e = peer_abort(&mut b, &first).expect("an abort frame").to_string();
            assert!(e.contains("the peer stopped") && e.contains(msg), "{e}");
        }
        let (mut a, mut b) = memory_pair();
        send_abort(&mut a, &"é".repeat(MAX_ABORT_BYTES)).unwrap();
        let e = recv_frame(&mut b, Tag::Tables, 16).unwrap_err().to_string();
        assert!(
            e.contains("the peer stopped: éé"),
            "a long reason is cut, not dropped"
        );
        assert!(peer_abort(&mut b, &[Tag::Tables as u8, 0, 0, 0, 0]).is_none());
        assert!(
            peer_abort(&mut b, &[Tag::Abort as u8, 0xff, 0xff, 0, 0]).is_none(),
            "too long"
        );
        assert!(peer_abort(&mut b, &[Tag::Abort as u8]).is_none(), "no header");
    }

    #[test]
    fn frames_round_trip_and_reject_wrong_tags_and_sizes() {
        let (mut a, mut b) = memory_pair();
        send_frame(&mut a, Tag::Hello, b"hi").unwrap();
        send_frame(&mut a, Tag::Tables, &[0u8; 100]).unwrap();
        send_frame(&mut a, Tag::Tables, &[0u8; 100]).unwrap();
        send_frame(&mut a, Tag::Abort, b"circuit digest differs").unwrap();
        a.flush().unwrap();
        assert_eq!(recv_frame(&mut b, Tag::Hello, 10).unwrap(), b"hi");
        let e = recv_frame(&mut b, Tag::Hello, 10).unwrap_err().to_string();
        assert!(
            e.contains("expected a hello frame, got a garbled tables frame"),
            "{e}"
        );
        let mut b2 = b;
        // skip the payload of the rejected frame
        let mut skip = [0u8; 100];
        b2.recv(&mut skip).unwrap();
        let e = recv_frame(&mut b2, Tag::Tables, 10).unwrap_err().to_string();
        assert!(e.contains("exceeds the limit"), "{e}");
        b2.recv(&mut skip).unwrap();
        let e = recv_frame(&mut b2, Tag::Tables, 10).unwrap_err().to_string();
        assert!(e.contains("the peer stopped: circuit digest differs"), "{e}");
    }

    #[test]
    fn last_words_find_the_abort_behind_unread_frames() {
        let (mut a, mut b) = memory_pair();
        send_frame(&mut a, Tag::Openings, &[1; 100_000]).unwrap();
        send_frame(&mut a, Tag::WireKeys, b"").unwrap();
        send_abort(&mut a, "party 3 stopped sending").unwrap();
        drop(a);
        let e = last_words(&mut b).expect("an abort frame").to_string();
        assert_eq!(e, "the peer stopped: party 3 stopped sending");
        let (mut a, mut b) = memory_pair();
        send_frame(&mut a, Tag::Openings, b"no abort").unwrap();
        a.flush().unwrap();
        drop(a);
        assert!(last_words(&mut b).is_none());
    }

    #[test]
    fn heartbeats_are_skipped_by_every_reader() {
        let (mut a, mut b) = memory_pair();
        send_heartbeat(&mut a).unwrap();
        send_heartbeat(&mut a).unwrap();
        send_frame(&mut a, Tag::OutputColours, b"ok").unwrap();
        send_heartbeat(&mut a).unwrap();
        a.flush().unwrap();
        drop(a);
        assert_eq!(recv_frame(&mut b, Tag::OutputColours, 2).unwrap(), b"ok");
        // A heartbeat is not a frame to wait for: after it, the peer's end is an error.
        assert!(recv_frame(&mut b, Tag::OutputColours, 2).is_err());
    }

    #[test]
    fn a_declared_length_is_allocated_only_as_its_bytes_arrive() {
        let (mut a, mut b) = memory_pair();
        // A frame declaring 60 MiB of which 10 bytes come before the peer leaves.
        a.send(&[Tag::Tables as u8]).unwrap();
        a.send(&(60u32 << 20).to_le_bytes()).unwrap();
        a.send(&[7u8; 10]).unwrap();
        a.flush().unwrap();
        drop(a);
        let mut payload = Vec::new();
        assert!(recv_frame_into(&mut b, Tag::Tables, MAX_FRAME_BYTES, &mut payload).is_err());
        assert!(
            payload.capacity() <= 2 * FIRST_READ_BYTES,
            "{}",
            payload.capacity()
        );

        // A long frame still arrives whole and in order across the growth steps.
        let (mut a, mut b) = memory_pair();
        let long: Vec<u8> = (0..(5 << 20) + 3).map(|i: u32| (i % 251) as u8).collect();
        send_frame(&mut a, Tag::Tables, &long).unwrap();
        a.flush().unwrap();
        assert_eq!(recv_frame(&mut b, Tag::Tables, MAX_FRAME_BYTES).unwrap(), long);
    }

    #[test]
    fn frame_errors_are_typed_and_name_frames_in_words() {
        let (mut a, mut b) = memory_pair();
        send_frame(&mut a, Tag::OutputColours, &[0; 4]).unwrap();
        a.send(&[77, 0, 0, 0, 0]).unwrap();
        send_frame(&mut a, Tag::Tables, &[0; 4]).unwrap();
        a.flush().unwrap();
        let e = recv_frame(&mut b, Tag::GarblerLabels, 16).unwrap_err();
        assert!(matches!(
            e,
            NetError::Peer(PeerMisbehaved::UnexpectedFrame {
                expected: Tag::GarblerLabels,
                got: 7
            })
        ));
        assert!(
            e.to_string()
                .contains("expected a garbler labels frame, got an output colours frame"),
            "{e}"
        );
        b.recv(&mut [0; 4]).unwrap();
        let e = recv_frame(&mut b, Tag::Tables, 16).unwrap_err().to_string();
        assert!(e.contains("got a frame of an unknown kind"), "{e}");
        let e = recv_frame(&mut b, Tag::Tables, 2).unwrap_err();
        assert!(matches!(
            e,
            NetError::Peer(PeerMisbehaved::FrameTooLong {
                tag: Tag::Tables,
                len: 4,
                limit: 2
            })
        ));
        assert!(Tag::ALL.iter().all(|&t| Tag::from_code(t as u8) == Some(t)));
    }
}
