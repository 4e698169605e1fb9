use std::io;
use std::time::Duration;

use crate::Tag;

/// Why talking to the peer failed. Every failure is an error value: nothing here panics.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NetError {
    #[error("the peer closed the connection")]
    Disconnected,
    #[error("the peer sent nothing for {} (timeout)", seconds(*.0))]
    Timeout(Duration),
    /// Mid-session: nothing came from the peer for a whole timeout (it stopped, hung or
    /// died without closing) during `phase`.
    #[error("the peer stopped sending: nothing came for {} during {phase} (timeout)", seconds(*.waited))]
    PeerSilent { waited: Duration, phase: &'static str },
    /// Mid-session: this side's sends made no progress for a whole timeout because the peer
    /// stopped reading, during `phase`.
    #[error("the peer stopped reading: this side's sends stalled for {} during {phase} (timeout)", seconds(*.waited))]
    PeerNotReading { waited: Duration, phase: &'static str },
    /// The session ran past its overall deadline (`--deadline`), however the peer paced it.
    #[error("the session passed its deadline of {} s", .0.as_secs())]
    Deadline(Duration),
    #[error("could not reach the peer at {addr}: {source}")]
    Connect { addr: String, source: io::Error },
    #[error("network error: {0}")]
    Io(io::Error),
    /// The peer deviated from the protocol.
    #[error("the peer sent something unexpected: {0}")]
    Peer(#[from] PeerMisbehaved),
    /// The TLS layer refused the peer or a record (which side refused what, in words).
    #[error("TLS: {0}")]
    Tls(String),
    /// The peer stopped and sent its reason (an `Abort` frame).
    #[error("the peer stopped: {0}")]
    PeerStopped(String),
}

impl NetError {
    /// Whether the peer sent nothing for a whole timeout (nothing else went wrong).
    pub fn is_silence(&self) -> bool {
        matches!(self, NetError::Timeout(_) | NetError::PeerSilent { .. })
    }
}

/// How the peer deviated from the protocol: what it sent does not fit the step reading it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PeerMisbehaved {
    /// A frame of another kind than the step reads; `got` is its tag byte.
    #[error("{}", unexpected_frame(*.expected, *.got))]
    UnexpectedFrame { expected: Tag, got: u8 },
    /// A frame longer than the step accepts.
    #[error("{tag} frame of {len} bytes exceeds the limit of {limit} bytes")]
    FrameTooLong { tag: Tag, len: usize, limit: usize },
    /// A frame of another length than what it carries needs.
    #[error("{tag} frame of {len} bytes, expected {expected}")]
    WrongLength { tag: Tag, len: usize, expected: usize },
    /// A frame of garbled rows that is empty.
    #[error("empty {0} frame")]
    EmptyFrame(Tag),
    /// A frame of garbled rows that ends inside a row.
    #[error("{tag} frame of {len} bytes is not a whole number of {row_bytes}-byte rows")]
    PartialRows { tag: Tag, len: usize, row_bytes: usize },
    /// A frame whose bytes do not decode (a header, an id, a request).
    #[error("malformed {0} frame")]
    Malformed(Tag),
    /// A frame holding a value outside the range it must lie in.
    #[error("{0} frame holds a value out of range")]
    OutOfRange(Tag),
    /// The garbler's labels of its input #`index` do not fit the input's width.
    #[error("the garbler's input #{index} has the wrong width ({len} bytes of labels, expected {expected})")]
    InputLabels {
        index: usize,
        len: usize,
        expected: usize,
    },
    /// The byte stream is not in flow-control records (a peer of another protocol version,
    /// a TLS peer, or a damaged stream); `got` is the byte where a record kind belonged.
    #[error("its bytes are not in flow-control records (a mixgc of another protocol version?)")]
    NotARecord { got: u8 },
    /// A data record longer than any sender writes.
    #[error("a data record of {len} bytes exceeds the limit of {limit} bytes")]
    RecordTooLong { len: usize, limit: usize },
    /// An acknowledgement of bytes never sent, or of fewer than acknowledged before.
    #[error("it acknowledged bytes this side never sent")]
    AckOutOfRange,
    /// More of the peer's data arrived than this side buffers while it waits for the peer to
    /// take its own bytes.
    #[error("it sent more than {limit} bytes while not taking this side's bytes")]
    Flooded { limit: usize },
    /// The parties' programs took different paths.
    #[error("the parties' programs diverged ({0})")]
    ProgramsDiverged(Divergence),
}

/// Where a program run saw that the parties' programs took different paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Divergence {
    /// Garbled rows were left unused at an input or output.
    RowsLeftOver,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Divergence::RowsLeftOver => "garbled rows left over at an input or output",
        })
    }
}

/// A duration in words for messages: `5 s`, or `0.25 s` below whole seconds.
pub fn seconds(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} s", d.as_secs_f64())
    }
}

/// What a step expected and what came instead, in words; a circuit run meeting a program
/// run (or the reverse) says so.
fn unexpected_frame(expected: Tag, got: u8) -> String {
    match (expected, Tag::from_code(got)) {
        (Tag::CircuitHeader, Some(Tag::ProgramHeader)) => {
            "the peer runs a program (example, lenet or a library op), not a circuit".into()
        }
        (Tag::ProgramHeader, Some(Tag::CircuitHeader)) => {
            "the peer runs a circuit (run or demo), not a program".into()
        }
        (_, Some(tag)) => format!("expected {}, got {}", expected.a_frame(), tag.a_frame()),
        (_, None) => format!("expected {}, got a frame of an unknown kind", expected.a_frame()),
    }
}

impl NetError {
    /// [`NetError::from_io`] for an error of a read during `phase`: a timeout is a silent peer.
    pub fn from_recv(e: io::Error, timeout: Duration, phase: &'static str) -> NetError {
        match NetError::from_io(e, timeout) {
            NetError::Timeout(waited) => NetError::PeerSilent { waited, phase },
            e => e,
        }
    }

    /// [`NetError::from_io`] for an error of a write during `phase`: a timeout is a peer
    /// that stopped reading.
    pub fn from_send(e: io::Error, timeout: Duration, phase: &'static str) -> NetError {
        match NetError::from_io(e, timeout) {
            NetError::Timeout(waited) => NetError::PeerNotReading { waited, phase },
            e => e,
        }
    }

    /// Maps an I/O error from a read or write to the error a user should see.
    pub fn from_io(e: io::Error, timeout: Duration) -> NetError {
        match e.kind() {
            io::ErrorKind::UnexpectedEof
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe => NetError::Disconnected,
            io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut => NetError::Timeout(timeout),
            _ => NetError::Io(e),
        }
    }
}
