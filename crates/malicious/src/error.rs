//! Typed errors of the malicious protocols. A failed check names the check, so that an
//! honest party's abort tells the user which deviation it caught.

use mixgc_net::NetError;

#[derive(Debug, thiserror::Error)]
pub enum MaliciousError {
    #[error(transparent)]
    Net(#[from] NetError),
    /// A check the protocol's proof relies on failed: the peer deviated (or the link
    /// corrupted data). `check` names it as `docs/malicious.md` lists it.
    #[error("the peer cheated or the link corrupted data: {check} failed")]
    CheckFailed { check: &'static str },
    /// The peer sent something malformed or out of bounds.
    #[error("protocol violation: {0}")]
    Protocol(String),
    /// This party's own request is unusable (a circuit that does not validate, inputs of
    /// the wrong width, a batch of zero AND gates): nothing was sent.
    #[error("invalid input: {0}")]
    Input(String),
}
