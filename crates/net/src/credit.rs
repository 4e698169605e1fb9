//! Application-level flow control (issue #15): a stopped peer is noticed within the
//! timeout *from when it stopped*, whatever buffers lie between the parties.
//!
//! A TCP sender only learns that its peer stopped once every buffer in between (both
//! kernels' socket buffers, a proxy, a TLS terminator, a real network's queues) is full;
//! on a loaded machine those kept taking bytes for over a second after the peer stopped.
//! So the receiving process itself says what it has taken: [`CreditChannel`] carries every
//! byte in records, and the receiver answers with acknowledgements of the bytes its
//! process took from the connection; the sender keeps at most [`CREDIT_WINDOW`] bytes
//! unacknowledged and, when it needs more, waits for acknowledgements, at most one timeout
//! from when the peer last showed progress. A stopped process takes nothing and
//! acknowledges nothing, so its peer stalls within one timeout of the signal, however much
//! the buffers in between could still absorb.
//!
//! Wire format (both directions, from the first byte of the connection):
//! `[0xDA][len: u32 LE][len bytes of data]` — a data record of at most [`MAX_RECORD`]
//! bytes; `[0xAC][8: u32 LE][taken: u64 LE]` — an acknowledgement: the data bytes this
//! side's process has taken from the connection so far. Acknowledgements interleave with
//! data records at record boundaries, so they share the one stream with whatever else the
//! receiver sends (OT messages, output bits).
//!
//! Both directions at once (each side sending more than a window before it reads, as an
//! OT extension's two big messages may): a side waiting for credit keeps reading, takes the
//! peer's data into its own buffer (at most [`MAX_DRAINED`] bytes) and acknowledges it, so
//! neither waits on the other. This needs an inner channel whose sends of a window's worth
//! never wait on the peer (a [`QueuedChannel`](crate::QueuedChannel)'s writer thread, as
//! [`PeerChannel`](crate::PeerChannel) has): then the only wait is for credit, which reads.
//!
//! When the stall clock starts: at the later of the moment this side last saw the
//! acknowledged count move and the moment it sent the byte the peer owes an
//! acknowledgement for (the peer acknowledges at least every [`ACK_EVERY`] bytes it takes,
//! and every [`ACK_TICK`] while it takes any), so a peer that was idle because this side
//! sent nothing is never counted as stalled.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use crate::{Channel, NetError, PeerMisbehaved};

/// Largest data record; larger sends go out in several.
pub const MAX_RECORD: usize = 1 << 20;
/// Most data bytes sent and not yet acknowledged: the sender waits for acknowledgements
/// beyond it. Large enough that a loopback run never waits on a round trip.
pub const CREDIT_WINDOW: u64 = 8 << 20;
/// A receiver acknowledges at least every this many bytes it takes.
pub const ACK_EVERY: u64 = 256 << 10;
/// A receiver that took bytes since its last acknowledgement acknowledges them once this
/// has passed, at its next read.
pub const ACK_TICK: Duration = Duration::from_millis(50);
/// Most bytes of the peer's data taken into this side's buffer while it waits for credit.
pub const MAX_DRAINED: usize = 64 << 20;

/// Record kinds (part of the wire format).
const DATA: u8 = 0xDA;
const ACK: u8 = 0xAC;
/// The bytes of a record header: kind and length.
const HEADER: usize = 5;
/// Sends within this long of a group's first are timed as that group (bounds the record).
const SEND_GROUP: Duration = Duration::from_millis(10);
/// Most groups of sent bytes remembered; beyond it the last group grows.
const MAX_GROUPS: usize = 1024;
/// A rest of a send at least this long goes out as a record of its own, not copied.
const DIRECT_RECORD: usize = 64 << 10;
/// Largest piece of a record read at once while waiting for credit.
const DRAIN_PIECE: usize = 64 << 10;

/// A channel with flow control over `inner`; see the module docs. Its byte counts are the
/// data bytes (what the layers above sent and received), not the record headers.
pub struct CreditChannel<C: Channel> {
    inner: C,
    /// How long the sender waits without seeing the acknowledged count move.
    timeout: Duration,
    phase: &'static str,
    out: Outbound,
    inb: Inbound,
}

/// The sending direction's state.
struct Outbound {
    /// Data handed to `send` and not in a record yet.
    pending: Vec<u8>,
    /// Data bytes handed to `send`.
    sent: u64,
    /// Data bytes put into records (handed to the inner channel).
    recorded: u64,
    /// The peer's last acknowledged count.
    acked: u64,
    /// When `acked` last moved, as this side saw it (or the channel started).
    ack_moved: Instant,
    /// Groups of recorded bytes: (end offset, when the group's first record went out).
    sends: VecDeque<(u64, Instant)>,
}

/// The receiving direction's state.
struct Inbound {
    /// Data bytes of the current record still to read from the inner channel.
    record_left: usize,
    /// The peer's data taken while this side waited for credit, not read yet.
    drained: VecDeque<u8>,
    /// Data bytes taken from the inner channel (read or drained).
    taken: u64,
    /// Data bytes returned by `recv`.
    received: u64,
    /// The count last acknowledged to the peer, and when.
    ack_sent: u64,
    ack_sent_at: Instant,
}

impl<C: Channel> CreditChannel<C> {
    /// Flow control over `inner` (fresh: nothing sent or received yet), waiting at most
    /// `timeout` for the peer's acknowledgements to move.
    pub fn new(inner: C, timeout: Duration) -> CreditChannel<C> {
        let now = Instant::now();
        CreditChannel {
            inner,
            timeout,
            phase: "the start of the session",
            out: Outbound {
                pending: Vec::new(),
                sent: 0,
                recorded: 0,
                acked: 0,
                ack_moved: now,
                sends: VecDeque::new(),
            },
            inb: Inbound {
                record_left: 0,
                drained: VecDeque::new(),
                taken: 0,
                received: 0,
                ack_sent: 0,
                ack_sent_at: now,
            },
        }
    }

    /// The channel underneath.
    pub fn inner(&self) -> &C {
        &self.inner
    }

    /// The channel underneath, mutably (for settings such as a deadline; bytes written or
    /// read through it directly would break the record stream).
    pub fn inner_mut(&mut self) -> &mut C {
        &mut self.inner
    }

    /// Data bytes sent and not yet acknowledged by the peer.
    pub fn unacknowledged(&self) -> u64 {
        self.out.recorded - self.out.acked
    }

    /// Puts `data` (at most [`MAX_RECORD`] bytes, not empty) into a record, after waiting
    /// for the credit it needs.
    fn write_record(&mut self, data: &[u8]) -> Result<(), NetError> {
        debug_assert!(!data.is_empty() && data.len() <= MAX_RECORD);
        self.wait_for_credit(data.len() as u64)?;
        let mut header = [DATA, 0, 0, 0, 0];
        header[1..].copy_from_slice(&(data.len() as u32).to_le_bytes());
        self.inner.send(&header)?;
        self.inner.send(data)?;
        self.out.recorded += data.len() as u64;
        self.note_sent();
        Ok(())
    }

    /// Writes the pending data as a record.
    fn write_pending(&mut self) -> Result<(), NetError> {
        if self.out.pending.is_empty() {
            return Ok(());
        }
        let pending = std::mem::take(&mut self.out.pending);
        let written = self.write_record(&pending);
        self.out.pending = pending;
        self.out.pending.clear();
        written
    }

    /// Remembers when the bytes up to `recorded` went out (grouped, see [`SEND_GROUP`]).
    fn note_sent(&mut self) {
        let (end, now) = (self.out.recorded, Instant::now());
        let full = self.out.sends.len() >= MAX_GROUPS;
        match self.out.sends.back_mut() {
            Some((last_end, first)) if full || now - *first < SEND_GROUP => {
                *last_end = end;
            }
            _ => self.out.sends.push_back((end, now)),
        }
    }

    /// When this side's wait on the peer began: the later of when the acknowledged count
    /// last moved and when the byte the peer owes an acknowledgement for went out.
    fn stall_start(&self) -> Instant {
        let owed = self.out.acked + ACK_EVERY;
        let owed_sent = self
            .out
            .sends
            .iter()
            .find(|(end, _)| *end >= owed)
            .map_or(self.out.ack_moved, |(_, at)| *at);
        owed_sent.max(self.out.ack_moved)
    }

    /// Waits until `need` more bytes fit in the [`CREDIT_WINDOW`], reading acknowledgements (and
    /// taking the peer's data meanwhile); no acknowledgement for a whole timeout since
    /// [`Self::stall_start`] is a peer that stopped reading.
    fn wait_for_credit(&mut self, need: u64) -> Result<(), NetError> {
        if self.unacknowledged() + need <= CREDIT_WINDOW {
            return Ok(());
        }
        // What is written but buffered below cannot be acknowledged.
        self.inner.flush()?;
        let restore = self.inner.read_timeout();
        let waited = self.wait_for_acks(need);
        if let Some(timeout) = restore {
            self.inner.set_read_timeout(timeout);
        }
        waited
    }

    fn wait_for_acks(&mut self, need: u64) -> Result<(), NetError> {
        while self.unacknowledged() + need > CREDIT_WINDOW {
            let left = self.timeout.saturating_sub(self.stall_start().elapsed());
            if left.is_zero() {
                return Err(self.stalled());
            }
            if self.inner.read_timeout().is_some() {
                self.inner.set_read_timeout(left.max(Duration::from_millis(1)));
            }
            match self.take_some() {
                Ok(()) => {}
                // Nothing came for what was left of the timeout (and a read cut short by
                // it may have taken part of a record: the stream cannot be read on).
                Err(e) if e.is_silence() => return Err(self.stalled()),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// A stall waiting for the peer's acknowledgements.
    fn stalled(&self) -> NetError {
        NetError::PeerNotReading {
            waited: self.timeout,
            phase: self.phase,
        }
    }

    /// While waiting for credit: reads one record header (an acknowledgement is taken in)
    /// or a piece of the current data record into the drained buffer.
    fn take_some(&mut self) -> Result<(), NetError> {
        if self.inb.record_left == 0 {
            return self.read_header();
        }
        let n = self.inb.record_left.min(DRAIN_PIECE);
        if self.inb.drained.len() + n > MAX_DRAINED {
            return Err(PeerMisbehaved::Flooded { limit: MAX_DRAINED }.into());
        }
        let mut piece = vec![0u8; n];
        self.inner.recv(&mut piece)?;
        self.inb.record_left -= n;
        self.inb.drained.extend(piece);
        self.took(n);
        self.acknowledge_if_due()
    }

    /// Reads record headers until a data record starts (its length in `record_left`),
    /// taking in the acknowledgements among them.
    fn read_header(&mut self) -> Result<(), NetError> {
        let mut header = [0u8; HEADER];
        self.inner.recv(&mut header)?;
        let len = u32::from_le_bytes(header[1..].try_into().expect("4 bytes")) as usize;
        match header[0] {
            DATA if len <= MAX_RECORD => {
                self.inb.record_left = len;
                Ok(())
            }
            DATA => Err(PeerMisbehaved::RecordTooLong {
                len,
                limit: MAX_RECORD,
            }
            .into()),
            ACK if len == 8 => {
                let mut count = [0u8; 8];
                self.inner.recv(&mut count)?;
                self.acknowledged(u64::from_le_bytes(count))
            }
            got => Err(PeerMisbehaved::NotARecord { got }.into()),
        }
    }

    /// The peer says it has taken `count` data bytes.
    fn acknowledged(&mut self, count: u64) -> Result<(), NetError> {
        if count < self.out.acked || count > self.out.recorded {
            return Err(PeerMisbehaved::AckOutOfRange.into());
        }
        if count > self.out.acked {
            self.out.acked = count;
            self.out.ack_moved = Instant::now();
            while self.out.sends.front().is_some_and(|(end, _)| *end <= count) {
                self.out.sends.pop_front();
            }
        }
        Ok(())
    }

    fn took(&mut self, n: usize) {
        self.inb.taken += n as u64;
    }

    /// Acknowledges the bytes taken when [`ACK_EVERY`] of them or [`ACK_TICK`] has passed
    /// since the last acknowledgement, and flushes it out.
    fn acknowledge_if_due(&mut self) -> Result<(), NetError> {
        let unacked = self.inb.taken - self.inb.ack_sent;
        if unacked == 0 || (unacked < ACK_EVERY && self.inb.ack_sent_at.elapsed() < ACK_TICK) {
            return Ok(());
        }
        let mut record = [0u8; HEADER + 8];
        record[0] = ACK;
        record[1..HEADER].copy_from_slice(&8u32.to_le_bytes());
        record[HEADER..].copy_from_slice(&self.inb.taken.to_le_bytes());
        self.inb.ack_sent = self.inb.taken;
        self.inb.ack_sent_at = Instant::now();
        self.inner.send(&record)?;
        self.inner.flush()
    }

    /// Serves `buf` from the drained buffer; returns how many bytes it filled.
    fn recv_drained(&mut self, buf: &mut [u8]) -> usize {
        let n = buf.len().min(self.inb.drained.len());
        for (dst, src) in buf[..n].iter_mut().zip(self.inb.drained.drain(..n)) {
            *dst = src;
        }
        n
    }
}

impl<C: Channel> Channel for CreditChannel<C> {
    /// Small sends gather into one record; a send of at least [`DIRECT_RECORD`] bytes, or
    /// one that overflows the record, goes out in records of at most [`MAX_RECORD`] bytes
    /// straight from the caller's slice (a short rest is kept), after what is pending.
    /// (Gathering a garbled-table frame too copied every table byte once more.)
    fn send(&mut self, mut data: &[u8]) -> Result<(), NetError> {
        self.out.sent += data.len() as u64;
        if data.len() < DIRECT_RECORD && self.out.pending.len() + data.len() <= MAX_RECORD {
            self.out.pending.extend_from_slice(data);
            return Ok(());
        }
        self.write_pending()?;
        while data.len() >= DIRECT_RECORD {
            let (record, rest) = data.split_at(data.len().min(MAX_RECORD));
            self.write_record(record)?;
            data = rest;
        }
        self.out.pending.extend_from_slice(data);
        Ok(())
    }

    /// Reads data, taking in the acknowledgements between records and acknowledging what
    /// it takes (after every piece of at most [`ACK_EVERY`] bytes, so a peer waiting for
    /// credit while this side reads one long buffer still gets it).
    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        let mut filled = self.recv_drained(buf);
        while filled < buf.len() {
            if self.inb.record_left == 0 {
                self.read_header()?;
                continue;
            }
            let n = self
                .inb
                .record_left
                .min(buf.len() - filled)
                .min(ACK_EVERY as usize);
            self.inner.recv(&mut buf[filled..filled + n])?;
            self.inb.record_left -= n;
            filled += n;
            self.took(n);
            // A failed acknowledgement shows again at the next write; the reads go on.
            let _ = self.acknowledge_if_due();
        }
        self.inb.received += buf.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> Result<(), NetError> {
        self.write_pending()?;
        self.inner.flush()
    }

    fn bytes_sent(&self) -> u64 {
        self.out.sent
    }

    fn bytes_received(&self) -> u64 {
        self.inb.received
    }

    fn channel_binding(&self) -> Option<[u8; 32]> {
        self.inner.channel_binding()
    }

    fn set_phase(&mut self, phase: &'static str) {
        self.phase = phase;
        self.inner.set_phase(phase);
    }

    fn read_timeout(&self) -> Option<Duration> {
        self.inner.read_timeout()
    }

    fn set_read_timeout(&mut self, timeout: Duration) {
        self.inner.set_read_timeout(timeout);
    }
}

impl<C: Channel> Drop for CreditChannel<C> {
    /// Hands what is still pending to the inner channel without waiting for credit (best
    /// effort, as the inner channel's own drop sends what it buffered).
    fn drop(&mut self) {
        let pending = std::mem::take(&mut self.out.pending);
        for record in pending.chunks(MAX_RECORD) {
            let mut header = [DATA, 0, 0, 0, 0];
            header[1..].copy_from_slice(&(record.len() as u32).to_le_bytes());
            if self
                .inner
                .send(&header)
                .and_then(|()| self.inner.send(record))
                .is_err()
            {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{memory_pair, memory_pair_holding, MemoryChannel, PeerChannel, TcpChannel};
    use proptest::prelude::*;

    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len).map(|i| (i % 251) as u8 ^ seed).collect()
    }

    /// Two credit channels over memory holding `messages` 64 KiB sends each way.
    fn credit_pair(
        messages: usize,
        timeout: Duration,
    ) -> (CreditChannel<MemoryChannel>, CreditChannel<MemoryChannel>) {
        let (mut a, mut b) = memory_pair_holding(messages);
        a.set_timeout(timeout);
        b.set_timeout(timeout);
        (CreditChannel::new(a, timeout), CreditChannel::new(b, timeout))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// Sends of any sizes (empty, tiny, across records and windows) arrive whole and in
        /// order, read in pieces of other sizes; the counters count data bytes.
        #[test]
        fn data_arrives_whole_in_order(sizes in proptest::collection::vec(0usize..3 << 20, 1..8), piece in 1usize..(2 << 20)) {
            let (mut a, mut b) = credit_pair(64, Duration::from_secs(10));
            let total: usize = sizes.iter().sum();
            let data = pattern(total, 7);
            let sent = data.clone();
            let t = std::thread::spawn(move || {
                let mut at = 0;
                for s in sizes {
                    a.send(&sent[at..at + s]).unwrap();
                    at += s;
                }
                a.flush().unwrap();
                let mut echo = [0u8; 3];
                a.recv(&mut echo).unwrap();
                (a.bytes_sent(), echo)
            });
            let mut got = vec![0u8; total];
            for part in got.chunks_mut(piece) {
                b.recv(part).unwrap();
            }
            b.send(b"end").unwrap();
            b.flush().unwrap();
            let (a_sent, echo) = t.join().unwrap();
            prop_assert!(got == data);
            prop_assert_eq!((a_sent, b.bytes_received()), (total as u64, total as u64));
            prop_assert_eq!(&echo, b"end");
        }
    }

    /// The point of it all (issue #15): buffers between the parties that could absorb far
    /// more than the window (here 640 MiB of them) do not delay noticing a reader that
    /// stopped: the sender stalls one timeout after the reader's last read, names the
    /// phase, and has at most a window unacknowledged.
    #[test]
    fn a_stopped_reader_is_noticed_one_timeout_after_it_stopped_whatever_the_buffers() {
        let timeout = Duration::from_millis(500);
        let (mut a, mut b) = credit_pair(10_000, timeout);
        a.set_phase("the garbled tables");
        let reader = std::thread::spawn(move || {
            let mut buf = vec![0u8; 3 << 20];
            b.recv(&mut buf).unwrap();
            let stopped = Instant::now();
            // Stopped: alive, connected, reading nothing.
            std::thread::sleep(Duration::from_secs(3));
            drop(b);
            stopped
        });
        let chunk = vec![1u8; 256 << 10];
        let e = loop {
            if let Err(e) = a.send(&chunk) {
                break e;
            }
        };
        let noticed = Instant::now();
        let stopped = reader.join().unwrap();
        let late = noticed.saturating_duration_since(stopped);
        assert!(matches!(e, NetError::PeerNotReading { .. }), "{e}");
        assert!(e.to_string().contains("during the garbled tables"), "{e}");
        assert!(late >= timeout - Duration::from_millis(60), "{late:?}");
        assert!(late < timeout + Duration::from_millis(300), "{late:?}");
        assert!(a.unacknowledged() <= CREDIT_WINDOW);
    }

    /// A reader idle for several timeouts because nothing was sent is not a stalled one:
    /// the stall clock starts when the byte it owes an acknowledgement for went out.
    #[test]
    fn a_reader_idle_for_want_of_bytes_is_not_counted_as_stalled() {
        let timeout = Duration::from_millis(300);
        let (mut a, mut b) = credit_pair(10_000, timeout);
        a.send(&[5u8; 100]).unwrap();
        a.flush().unwrap();
        let len = 4 * CREDIT_WINDOW as usize;
        let reader = std::thread::spawn(move || {
            b.recv(&mut [0u8; 100]).unwrap();
            b.set_read_timeout(Duration::from_secs(10));
            let mut rest = vec![0u8; len];
            b.recv(&mut rest).unwrap();
            rest == pattern(len, 3)
        });
        std::thread::sleep(3 * timeout);
        a.send(&pattern(len, 3)).unwrap();
        a.flush().unwrap();
        assert!(reader.join().unwrap());
    }

    /// Both ends send far more than a window (and than the buffers between hold) before
    /// either reads: each takes the other's data while it waits for credit, so neither
    /// waits on the other; all arrives in order.
    #[test]
    fn both_ends_sending_at_once_do_not_deadlock() {
        // Inner sends that never wait on the peer (as a queued channel's).
        let (a, b) = credit_pair(10_000, Duration::from_secs(5));
        let len = 3 * CREDIT_WINDOW as usize + 12_345;
        let run = move |mut ch: CreditChannel<MemoryChannel>, seed: u8| {
            std::thread::spawn(move || {
                ch.send(&pattern(len, seed)).unwrap();
                ch.flush().unwrap();
                let mut got = vec![0u8; len];
                ch.recv(&mut got).unwrap();
                got
            })
        };
        let (ta, tb) = (run(a, 1), run(b, 2));
        assert!(ta.join().unwrap() == pattern(len, 2));
        assert!(tb.join().unwrap() == pattern(len, 1));
    }

    /// Over TCP as two processes talk ([`PeerChannel`](crate::PeerChannel): flow control
    /// over a queued link), a peer that stops reading stalls the sender one timeout after
    /// its last read, even where the kernel buffers still take bytes.
    #[test]
    fn over_tcp_a_stopped_reader_is_noticed_in_time() {
        let timeout = Duration::from_millis(600);
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        let reader = std::thread::spawn(move || {
            let ch = TcpChannel::connect(&addr.to_string(), timeout).unwrap();
            let mut b = PeerChannel::tcp(ch).unwrap();
            b.recv(&mut vec![0u8; 2 << 20]).unwrap();
            let stopped = Instant::now();
            std::thread::sleep(Duration::from_secs(3));
            stopped
        });
        let mut a = PeerChannel::tcp(TcpChannel::accept(&listener, timeout).unwrap()).unwrap();
        a.set_phase("the garbled tables");
        let chunk = vec![1u8; 64 << 10];
        let e = loop {
            if let Err(e) = a.send(&chunk) {
                break e;
            }
        };
        let noticed = Instant::now();
        let late = noticed.saturating_duration_since(reader.join().unwrap());
        assert!(matches!(e, NetError::PeerNotReading { .. }), "{e}");
        assert!(e.to_string().contains("during the garbled tables"), "{e}");
        assert!(late < timeout + Duration::from_millis(400), "{late:?}");
        assert!(a.unacknowledged() <= CREDIT_WINDOW);
    }

    /// Over TLS as two processes talk, both ends sending three windows at once: all arrives,
    /// and the channel binding passes through.
    #[test]
    fn over_tls_both_ends_send_at_once() {
        use crate::{generate, PeerCheck, TlsChannel, TlsConfig};
        let timeout = Duration::from_secs(5);
        let (ka, kb) = (generate(&[], false).unwrap(), generate(&[], false).unwrap());
        let config = |me: &crate::KeyMaterial, peer: &crate::KeyMaterial| {
            TlsConfig::new(me.identity().unwrap(), PeerCheck::Pinned(vec![peer.fingerprint])).unwrap()
        };
        let (ca, cb) = (config(&ka, &kb), config(&kb, &ka));
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        let addr = addr.to_string();
        let len = 3 * CREDIT_WINDOW as usize + 99;
        let dialer = std::thread::spawn(move || {
            let tcp = TcpChannel::connect(&addr, timeout).unwrap();
            let mut a = PeerChannel::tls(TlsChannel::client_over(tcp, &addr, timeout, &ca).unwrap()).unwrap();
            a.send(&pattern(len, 4)).unwrap();
            a.flush().unwrap();
            let mut got = vec![0u8; len];
            a.recv(&mut got).unwrap();
            (got == pattern(len, 5), a.channel_binding(), a.bytes_sent())
        });
        let tcp = TcpChannel::accept(&listener, timeout).unwrap();
        let mut b = PeerChannel::tls(TlsChannel::server_over(tcp, timeout, &cb).unwrap()).unwrap();
        b.send(&pattern(len, 5)).unwrap();
        b.flush().unwrap();
        let mut got = vec![0u8; len];
        b.recv(&mut got).unwrap();
        let (ok, binding, sent) = dialer.join().unwrap();
        assert!(ok && got == pattern(len, 4));
        assert!(binding.is_some() && binding == b.channel_binding());
        assert_eq!((sent, b.bytes_received()), (len as u64, len as u64));
    }

    /// What does not fit the record format is a clear error, never a panic or a huge
    /// allocation.
    #[test]
    fn a_stream_out_of_records_is_an_error() {
        let cases: [(&[u8], &str); 4] = [
            (&[3, 1, 0, 0, 0, 9], "not in flow-control records"),
            (&[DATA, 0, 0, 0x20, 0], "exceeds the limit"),
            (&[ACK, 8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0], "never sent"),
            (&[ACK, 7, 0, 0, 0], "not in flow-control records"),
        ];
        for (bytes, words) in cases {
            let (mut raw, other) = memory_pair();
            let mut b = CreditChannel::new(other, Duration::from_secs(1));
            raw.send(bytes).unwrap();
            raw.flush().unwrap();
            let e = b.recv(&mut [0u8; 4]).unwrap_err();
            assert!(matches!(e, NetError::Peer(_)), "{e}");
            assert!(e.to_string().contains(words), "{e}");
        }
    }

    /// A peer that sends without ever acknowledging while this side waits for credit is
    /// taken up to [`MAX_DRAINED`] bytes, then refused.
    #[test]
    fn a_flooding_peer_is_refused_past_the_drain_limit() {
        let (raw, other) = memory_pair_holding(10_000);
        let mut a = CreditChannel::new(other, Duration::from_secs(10));
        let flood = std::thread::spawn(move || {
            let mut raw = raw;
            let mut record = vec![0u8; HEADER + MAX_RECORD];
            record[0] = DATA;
            record[1..HEADER].copy_from_slice(&(MAX_RECORD as u32).to_le_bytes());
            // Acknowledge nothing, send more than the limit, then wait for the other side
            // to give up.
            for _ in 0..MAX_DRAINED / MAX_RECORD + 8 {
                raw.send(&record).unwrap();
                raw.flush().unwrap();
            }
            let mut sink = vec![0u8; 1 << 20];
            while raw.recv(&mut sink).is_ok() {}
        });
        let e = loop {
            if let Err(e) = a.send(&[0u8; 1 << 20]) {
                break e;
            }
        };
        assert!(
            e.to_string().contains("while not taking this side's bytes"),
            "{e}"
        );
        drop(a);
        flood.join().unwrap();
    }
}
