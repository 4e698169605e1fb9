use mixgc_arith::ArithError;
use mixgc_net::{NetError, PeerMisbehaved};
use mixgc_ot::OtError;
use mixgc_program::ProgramError;

/// Why a session failed. Each names what went wrong for the user.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SessionError {
    #[error("{0}")]
    Net(#[from] NetError),
    #[error("oblivious transfer failed: {0}")]
    Ot(#[from] OtError),
    #[error("the parties disagree: {0}")]
    Mismatch(String),
    #[error("bad input: {0}")]
    Input(String),
    /// An arithmetic gadget of a program run failed: operands beyond its limits, or garbled
    /// rows from the garbler that decode to no label.
    #[error("{0}")]
    Arith(#[from] ArithError),
    /// The garbler's labels of its CRT input #`index` decode to no bundle.
    #[error("the garbler's CRT input #{index}: {source}")]
    GarblerCrtInput { index: usize, source: ArithError },
    /// The session's I/O thread stopped before the compute side was done.
    #[error("the I/O thread stopped")]
    IoThreadStopped,
}

impl From<PeerMisbehaved> for SessionError {
    fn from(e: PeerMisbehaved) -> SessionError {
        NetError::Peer(e).into()
    }
}

impl SessionError {
    /// A gadget error of a program run (`ArithBackend::gadget_error`), as both parties
    /// record it.
    pub(crate) fn of_gadget(e: ProgramError) -> SessionError {
        match e {
            ProgramError::Arith(msg) => ArithError::Conversion(msg).into(),
            other => SessionError::Input(other.to_string()),
        }
    }

    /// The session error a two-party backend reported as `e`, if `e` is one.
    pub fn of_program(e: &ProgramError) -> Option<&SessionError> {
        match e {
            ProgramError::Peer(peer) => peer.downcast_ref(),
            _ => None,
        }
    }
}
