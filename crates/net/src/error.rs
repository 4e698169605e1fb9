use std::io;
use std::time::Duration;

/// Why talking to the peer failed. Every failure is an error value: nothing here panics.
#[derive(Debug, thiserror::Error)]
pub enum NetError {
    #[error("the peer closed the connection")]
    Disconnected,
    #[error("the peer sent nothing for {0:?} (timeout)")]
    Timeout(Duration),
    #[error("could not reach the peer at {addr}: {source}")]
    Connect { addr: String, source: io::Error },
    #[error("network error: {0}")]
    Io(io::Error),
    #[error("the peer sent something unexpected: {0}")]
    Protocol(String),
}

impl NetError {
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
