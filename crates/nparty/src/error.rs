use mixgc_compile::StreamError;
use mixgc_net::NetError;
use mixgc_ot::OtError;

/// Why an n-party run stopped. Every error that involves another party names it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NpartyError {
    /// The connection to `party` failed: it closed, stalled, sent garbage or stopped.
    #[error("party {party}: {source}")]
    Peer {
        party: usize,
        #[source]
        source: NetError,
    },
    /// Oblivious transfer with `party` failed.
    #[error("party {party}: oblivious transfer: {source}")]
    Ot {
        party: usize,
        #[source]
        source: OtError,
    },
    /// `party` disagrees about the run (a different circuit, n, protocol…): `what` says
    /// which fact and both values.
    #[error("party {party} disagrees: {what}")]
    Mismatch { party: usize, what: String },
    /// The joint computation came out inconsistent: some party deviated from the protocol
    /// (a semi-honest protocol cannot tell which). `0` says what was found.
    #[error("{0}")]
    Deviation(String),
    /// This party's own inputs or settings are wrong (caught before anything is sent).
    #[error("{0}")]
    Usage(String),
    /// `party` did not join the mesh within the connect window: `what` says how (it did
    /// not answer at its address, or did not dial in).
    #[error("party {party} {what}")]
    Absent { party: usize, what: String },
    /// A connection to this party's address was refused before it could be placed in the
    /// mesh (garbage, a duplicate or unknown id): `from` is its address, `why` the reason.
    #[error("a connection from {from} was refused: {why}")]
    Refused { from: String, why: String },
    /// The compiled stream could not be read, or its contents break the format's rules.
    #[error("the compiled stream: {0}")]
    Stream(#[from] StreamError),
}

impl NpartyError {
    /// The party an error is about, if it is about another party.
    pub fn party(&self) -> Option<usize> {
        match self {
            NpartyError::Peer { party, .. }
            | NpartyError::Ot { party, .. }
            | NpartyError::Mismatch { party, .. }
            | NpartyError::Absent { party, .. } => Some(*party),
            NpartyError::Deviation(_)
            | NpartyError::Usage(_)
            | NpartyError::Refused { .. }
            | NpartyError::Stream(_) => None,
        }
    }

    /// The reason another party sent when it stopped (its `Abort` frame), if that is what
    /// this error is: it names whoever made that party stop, whichever step read it (a
    /// frame of the mesh or an OT exchange).
    pub fn relayed(&self) -> Option<&str> {
        match self.link_failure() {
            Some(NetError::PeerStopped(reason)) => Some(reason),
            _ => None,
        }
    }

    /// The failure of the link to another party behind this error, if it is one (also
    /// inside an OT exchange).
    pub(crate) fn link_failure(&self) -> Option<&NetError> {
        match self {
            NpartyError::Peer { source, .. }
            | NpartyError::Ot {
                source: OtError::Net(source),
                ..
            } => Some(source),
            _ => None,
        }
    }
}
