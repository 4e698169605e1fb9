use crate::{Channel, NetError};

/// Wraps a channel and hashes (BLAKE3) every byte sent and received, in order, so tests
/// can pin a seeded run's transcript to a checked-in digest.
pub struct TranscriptChannel<C> {
    inner: C,
    sent: blake3::Hasher,
    received: blake3::Hasher,
}

impl<C: Channel> TranscriptChannel<C> {
    pub fn new(inner: C) -> Self {
        TranscriptChannel {
            inner,
            sent: blake3::Hasher::new(),
            received: blake3::Hasher::new(),
        }
    }

    /// Hex digests of (bytes sent, bytes received).
    pub fn digests(&self) -> (String, String) {
        (
            self.sent.finalize().to_hex().to_string(),
            self.received.finalize().to_hex().to_string(),
        )
    }
}

impl<C: Channel> Channel for TranscriptChannel<C> {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        self.sent.update(data);
        self.inner.send(data)
    }
    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        self.inner.recv(buf)?;
        self.received.update(buf);
        Ok(())
    }
    fn flush(&mut self) -> Result<(), NetError> {
        self.inner.flush()
    }
    fn bytes_sent(&self) -> u64 {
        self.inner.bytes_sent()
    }
    fn bytes_received(&self) -> u64 {
        self.inner.bytes_received()
    }
    fn channel_binding(&self) -> Option<[u8; 32]> {
        self.inner.channel_binding()
    }
    fn set_phase(&mut self, phase: &'static str) {
        self.inner.set_phase(phase)
    }
}
