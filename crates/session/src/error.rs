use mixgc_net::NetError;
use mixgc_ot::OtError;

/// Why a session failed. Each names what went wrong for the user.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{0}")]
    Net(#[from] NetError),
    #[error("oblivious transfer failed: {0}")]
    Ot(#[from] OtError),
    #[error("the parties disagree: {0}")]
    Mismatch(String),
    #[error("bad input: {0}")]
    Input(String),
}
