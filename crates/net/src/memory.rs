use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::time::Duration;

use crate::{Channel, NetError};

/// Bytes buffered before a `send` forwards them without waiting for `flush`.
const CHUNK: usize = 1 << 16;
/// Chunks in flight before the sender blocks (backpressure, bounded memory).
const QUEUE: usize = 64;

/// One end of an in-process channel, for tests and single-process demos.
pub struct MemoryChannel {
    tx: Option<SyncSender<Vec<u8>>>,
    rx: Receiver<Vec<u8>>,
    out: Vec<u8>,
    inbox: Vec<u8>,
    pos: usize,
    sent: u64,
    received: u64,
    timeout: Duration,
}

/// Two connected in-memory channel ends. Dropping one end makes the other's `recv`
/// fail with `Disconnected`; a silent peer makes it fail with `Timeout` after 30 s.
pub fn memory_pair() -> (MemoryChannel, MemoryChannel) {
    memory_pair_queued(QUEUE)
}

/// Like [`memory_pair`], but each direction holds up to `messages` sends (a flush, or
/// 64 KiB of data) before a sender blocks: a party can run ahead of a peer that is not
/// reading, e.g. to time garbling and evaluation one after the other.
pub fn memory_pair_holding(messages: usize) -> (MemoryChannel, MemoryChannel) {
    memory_pair_queued(messages.max(1))
}

fn memory_pair_queued(chunks: usize) -> (MemoryChannel, MemoryChannel) {
    let (tx_a, rx_b) = sync_channel(chunks);
    let (tx_b, rx_a) = sync_channel(chunks);
    (MemoryChannel::new(tx_a, rx_a), MemoryChannel::new(tx_b, rx_b))
}

impl MemoryChannel {
    fn new(tx: SyncSender<Vec<u8>>, rx: Receiver<Vec<u8>>) -> Self {
        MemoryChannel {
            tx: Some(tx),
            rx,
            out: Vec::new(),
            inbox: Vec::new(),
            pos: 0,
            sent: 0,
            received: 0,
            timeout: Duration::from_secs(30),
        }
    }

    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Closes the sending side, as a crashed peer would.
    pub fn close(&mut self) {
        self.tx = None;
    }

    fn push_out(&mut self) -> Result<(), NetError> {
        if self.out.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::take(&mut self.out);
        match &self.tx {
            Some(tx) => tx.send(chunk).map_err(|_| NetError::Disconnected),
            None => Err(NetError::Disconnected),
        }
    }
}

impl Channel for MemoryChannel {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        self.out.extend_from_slice(data);
        self.sent += data.len() as u64;
        if self.out.len() >= CHUNK {
            self.push_out()?;
        }
        Ok(())
    }

    fn recv(&mut self, mut buf: &mut [u8]) -> Result<(), NetError> {
        self.received += buf.len() as u64;
        while !buf.is_empty() {
            if self.pos == self.inbox.len() {
                self.inbox = match self.rx.recv_timeout(self.timeout) {
                    Ok(chunk) => chunk,
                    Err(RecvTimeoutError::Timeout) => return Err(NetError::Timeout(self.timeout)),
                    Err(RecvTimeoutError::Disconnected) => return Err(NetError::Disconnected),
                };
                self.pos = 0;
            }
            let n = buf.len().min(self.inbox.len() - self.pos);
            buf[..n].copy_from_slice(&self.inbox[self.pos..self.pos + n]);
            self.pos += n;
            buf = &mut buf[n..];
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), NetError> {
        self.push_out()
    }

    fn bytes_sent(&self) -> u64 {
        self.sent
    }

    fn bytes_received(&self) -> u64 {
        self.received
    }

    fn read_timeout(&self) -> Option<Duration> {
        Some(self.timeout)
    }

    fn set_read_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_arrive_in_order_and_counters_match() {
        let (mut a, mut b) = memory_pair();
        let data: Vec<u8> = (0..200_000u32).map(|i| i as u8).collect();
        let t = std::thread::spawn(move || {
            a.send(&data).unwrap();
            a.flush().unwrap();
            a
        });
        let mut got = vec![0u8; 200_000];
        b.recv(&mut got).unwrap();
        let a = t.join().unwrap();
        assert!(got.iter().enumerate().all(|(i, &v)| v == i as u8));
        assert_eq!(a.bytes_sent(), 200_000);
        assert_eq!(b.bytes_received(), 200_000);
    }

    #[test]
    fn disconnect_and_silence_are_errors() {
        let (a, mut b) = memory_pair();
        drop(a);
        assert!(matches!(b.recv(&mut [0u8; 1]), Err(NetError::Disconnected)));
        let (_a, mut b) = memory_pair();
        b.set_timeout(Duration::from_millis(20));
        assert!(matches!(b.recv(&mut [0u8; 1]), Err(NetError::Timeout(_))));
    }
}
