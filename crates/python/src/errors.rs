//! The Python exceptions: `MixgcError` and its kinds, each carrying the Rust error's message.

use mixgc_net::NetError;
use mixgc_program::ProgramError;
use mixgc_session::SessionError;
use mixgc_studies::common::CliError;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::PyErr;

create_exception!(
    mixgc,
    MixgcError,
    PyException,
    "Any error mixgc reports; the message is the Rust library's."
);
create_exception!(
    mixgc,
    InputError,
    MixgcError,
    "A bad argument or input value, found before any byte is sent."
);
create_exception!(
    mixgc,
    PeerError,
    MixgcError,
    "The connection or the peer failed: nobody connected, a timeout, the peer stopped, \
     disagreed on the terms or sent malformed data."
);

/// An [`InputError`] with `message`.
pub fn input_error(message: impl Into<String>) -> PyErr {
    InputError::new_err(message.into())
}

/// Where a failed call was: its kind when the error type does not say.
#[derive(Clone, Copy)]
pub enum Stage {
    /// Checking arguments and loading files, before connecting.
    Prepare,
    /// Opening the connection.
    Connect,
    /// The protocol, once connected.
    Run,
}

/// `e` as a Python exception: a network or session error by its kind, anything else by the
/// stage it happened in.
pub fn to_py(e: CliError, stage: Stage) -> PyErr {
    let message = e.to_string();
    let session = e.downcast_ref::<SessionError>().or_else(|| {
        e.downcast_ref::<ProgramError>()
            .and_then(SessionError::of_program)
    });
    if let Some(s) = session {
        return match s {
            SessionError::Input(_) => InputError::new_err(message),
            SessionError::Net(_) | SessionError::Mismatch(_) | SessionError::IoThreadStopped => {
                PeerError::new_err(message)
            }
            _ => MixgcError::new_err(message),
        };
    }
    if e.downcast_ref::<NetError>().is_some() {
        return PeerError::new_err(message);
    }
    match stage {
        Stage::Prepare => InputError::new_err(message),
        Stage::Connect => PeerError::new_err(message),
        Stage::Run => MixgcError::new_err(message),
    }
}
