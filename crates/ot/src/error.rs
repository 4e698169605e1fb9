use mixgc_net::NetError;

/// Why an OT failed. Every failure is reported as a value; nothing in this crate panics on
/// input from the peer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum OtError {
    /// The channel to the peer failed (disconnect, timeout, I/O).
    #[error("OT: {0}")]
    Net(#[from] NetError),
    /// The peer sent a group element that is not a canonical Ristretto encoding, or is
    /// the identity. Either is a protocol violation (possibly an attack).
    #[error("OT: the peer sent an invalid group element ({0})")]
    InvalidPoint(String),
    /// The two parties disagree on an OT extension call (count, kind or position in the
    /// OT stream): they would derive unrelated keys.
    #[error("OT: the peers are out of step: {0}")]
    Desync(String),
    /// An earlier call on this OT instance failed midway, so its PRG streams and OT index
    /// no longer match the peer's; start a new session.
    #[error("OT: this OT instance is unusable after an earlier failure")]
    Poisoned,
}
