use mixgc_nparty::NpartyError;

/// Why a mixed-mode step stopped. Every error about another party names it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MixedError {
    /// The mesh failed (a peer closed, stalled or stopped; see [`NpartyError`]).
    #[error(transparent)]
    Mesh(#[from] NpartyError),
    /// `party` sent a message that does not parse as `what` under this run's parameters.
    #[error("party {party} sent a malformed {what}: {why}")]
    Malformed {
        party: usize,
        what: &'static str,
        why: String,
    },
    /// This party's own inputs are wrong (caught before anything is sent).
    #[error("{0}")]
    Usage(String),
    /// The `fhe` library refused an operation on this party's own data.
    #[error("the fhe library: {0}")]
    Fhe(#[from] fhe::Error),
}

impl MixedError {
    /// The party an error is about, if it is about another party.
    pub fn party(&self) -> Option<usize> {
        match self {
            MixedError::Mesh(e) => e.party(),
            MixedError::Malformed { party, .. } => Some(*party),
            MixedError::Usage(_) | MixedError::Fhe(_) => None,
        }
    }
}
