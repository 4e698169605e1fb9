use std::time::Duration;

use mixgc_core::Block;

use crate::NetError;

/// A reliable, ordered byte stream to the other party, with byte counters.
///
/// `send` may buffer; `flush` pushes everything out. A party must flush before it waits
/// for an answer. `recv` fills the whole buffer or fails (disconnect, timeout).
pub trait Channel: Send {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError>;
    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError>;
    fn flush(&mut self) -> Result<(), NetError>;
    fn bytes_sent(&self) -> u64;
    fn bytes_received(&self) -> u64;
    /// A secret both ends of this very connection share and no other connection has (a TLS
    /// exporter, RFC 5705 / RFC 8446 §7.5), for the session to bind itself to; `None` for a
    /// channel without one (plain TCP, in memory).
    fn channel_binding(&self) -> Option<[u8; 32]> {
        None
    }
    /// Names the protocol phase the next reads and writes belong to ("oblivious transfer",
    /// "the garbled tables"), in words, for the message when the peer stalls in it.
    fn set_phase(&mut self, _phase: &'static str) {}
    /// The timeout of every read, for a channel whose reads can be given another one
    /// ([`Channel::set_read_timeout`]); `None` for one that cannot.
    fn read_timeout(&self) -> Option<Duration> {
        None
    }
    /// Gives the next reads another timeout (no effect where [`Channel::read_timeout`] is
    /// `None`).
    fn set_read_timeout(&mut self, _timeout: Duration) {}
}

impl<C: Channel + ?Sized> Channel for &mut C {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        (**self).send(data)
    }
    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        (**self).recv(buf)
    }
    fn flush(&mut self) -> Result<(), NetError> {
        (**self).flush()
    }
    fn bytes_sent(&self) -> u64 {
        (**self).bytes_sent()
    }
    fn bytes_received(&self) -> u64 {
        (**self).bytes_received()
    }
    fn channel_binding(&self) -> Option<[u8; 32]> {
        (**self).channel_binding()
    }
    fn set_phase(&mut self, phase: &'static str) {
        (**self).set_phase(phase)
    }
    fn read_timeout(&self) -> Option<Duration> {
        (**self).read_timeout()
    }
    fn set_read_timeout(&mut self, timeout: Duration) {
        (**self).set_read_timeout(timeout)
    }
}

/// Typed helpers over any [`Channel`]; integers are little-endian.
pub trait ChannelExt: Channel {
    fn send_blocks(&mut self, blocks: &[Block]) -> Result<(), NetError> {
        self.send(Block::slice_as_bytes(blocks))
    }

    fn recv_blocks(&mut self, n: usize) -> Result<Vec<Block>, NetError> {
        let mut v = vec![Block::ZERO; n];
        self.recv(Block::slice_as_bytes_mut(&mut v))?;
        Ok(v)
    }

    fn send_u64(&mut self, v: u64) -> Result<(), NetError> {
        self.send(&v.to_le_bytes())
    }

    fn recv_u64(&mut self) -> Result<u64, NetError> {
        let mut b = [0u8; 8];
        self.recv(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
}

impl<C: Channel + ?Sized> ChannelExt for C {}
