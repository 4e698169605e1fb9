use std::time::Duration;

use crate::{Channel, CreditChannel, NetError, QueuedChannel, TcpChannel, TlsChannel};

/// A connection to the peer over plain TCP or TLS, as the command line chose, with flow
/// control ([`CreditChannel`]: a stopped peer is noticed within the timeout from when it
/// stopped, whatever buffers lie in between; issue #15) over a [`QueuedChannel`], whose
/// writer thread lets reads go on while writes wait on the peer, so two ends sending at once
/// never both block in their writes.
///
/// Set a deadline ([`TcpChannel::set_deadline`], [`TlsChannel::set_deadline`]) on the
/// connection before it becomes a `PeerChannel`.
pub struct PeerChannel {
    link: CreditChannel<QueuedChannel>,
}

impl PeerChannel {
    /// Flow control over a fresh TCP connection, with the connection's timeout.
    pub fn tcp(ch: TcpChannel) -> Result<PeerChannel, NetError> {
        let timeout = Channel::read_timeout(&ch).unwrap_or(Duration::from_secs(30));
        Ok(PeerChannel::over(
            QueuedChannel::new(ch, Duration::ZERO)?,
            timeout,
        ))
    }

    /// Flow control over a fresh TLS connection, with the connection's timeout.
    pub fn tls(ch: TlsChannel) -> Result<PeerChannel, NetError> {
        let timeout = Channel::read_timeout(&ch).unwrap_or(Duration::from_secs(30));
        Ok(PeerChannel::over(
            QueuedChannel::over_tls(ch, Duration::ZERO)?,
            timeout,
        ))
    }

    fn over(link: QueuedChannel, timeout: Duration) -> PeerChannel {
        PeerChannel {
            link: CreditChannel::new(link, timeout),
        }
    }

    /// Data bytes sent and not yet acknowledged by the peer's process.
    pub fn unacknowledged(&self) -> u64 {
        self.link.unacknowledged()
    }
}

impl Channel for PeerChannel {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        self.link.send(data)
    }
    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        self.link.recv(buf)
    }
    fn flush(&mut self) -> Result<(), NetError> {
        self.link.flush()
    }
    fn bytes_sent(&self) -> u64 {
        self.link.bytes_sent()
    }
    fn bytes_received(&self) -> u64 {
        self.link.bytes_received()
    }
    fn channel_binding(&self) -> Option<[u8; 32]> {
        self.link.channel_binding()
    }
    fn set_phase(&mut self, phase: &'static str) {
        self.link.set_phase(phase)
    }
    fn read_timeout(&self) -> Option<Duration> {
        self.link.read_timeout()
    }
    fn set_read_timeout(&mut self, timeout: Duration) {
        self.link.set_read_timeout(timeout)
    }
}
