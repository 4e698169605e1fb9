use std::time::Duration;

use crate::{Channel, NetError, TcpChannel, TlsChannel};

/// A connection to the peer over plain TCP or TLS, as the command line chose.
// One per connection, so the size of the TCP variant (its two halves' timing) costs nothing.
#[allow(clippy::large_enum_variant)]
pub enum PeerChannel {
    Tcp(TcpChannel),
    Tls(Box<TlsChannel>),
}

impl PeerChannel {
    /// The overall deadline of [`TcpChannel::set_deadline`].
    pub fn set_deadline(&mut self, total: Duration) {
        match self {
            PeerChannel::Tcp(c) => c.set_deadline(total),
            PeerChannel::Tls(c) => c.set_deadline(total),
        }
    }

    fn inner(&mut self) -> &mut dyn Channel {
        match self {
            PeerChannel::Tcp(c) => c,
            PeerChannel::Tls(c) => c.as_mut(),
        }
    }

    fn inner_ref(&self) -> &dyn Channel {
        match self {
            PeerChannel::Tcp(c) => c,
            PeerChannel::Tls(c) => c.as_ref(),
        }
    }
}

impl Channel for PeerChannel {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        self.inner().send(data)
    }
    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        self.inner().recv(buf)
    }
    fn flush(&mut self) -> Result<(), NetError> {
        self.inner().flush()
    }
    fn bytes_sent(&self) -> u64 {
        self.inner_ref().bytes_sent()
    }
    fn bytes_received(&self) -> u64 {
        self.inner_ref().bytes_received()
    }
    fn channel_binding(&self) -> Option<[u8; 32]> {
        self.inner_ref().channel_binding()
    }
    fn set_phase(&mut self, phase: &'static str) {
        self.inner().set_phase(phase)
    }
}
