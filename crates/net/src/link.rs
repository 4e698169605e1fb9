//! An emulated network link in one process: a channel pair limited in rate and latency, for
//! measuring how a run behaves on a given network (MEG §III: streaming is worth it when
//! transfer and compute overlap) without a second machine.
//!
//! Each direction is a serial link. Bytes handed to the channel go out in chunks of up to
//! [`CHUNK`] bytes (on `flush`, or when a chunk fills). A chunk of `len` bytes departs at
//! `max(now, link_free)`, occupies the link for `len·8/rate` and its byte `k` becomes readable
//! at `departure + (k + 1)·8/rate + latency`; the next chunk departs no earlier than
//! `link_free = departure + len·8/rate`. A sender may run ahead of the link by at most
//! [`WINDOW`] unread bytes (more when the bandwidth-delay product is larger), as a socket
//! buffer would: then it waits for the reader, so memory stays bounded.
//!
//! `recv` sleeps through long waits and spins (yielding) for the last [`SPIN`], so even a
//! 0.1 ms latency is honoured. Closing and timeouts behave as for
//! [`MemoryChannel`](crate::MemoryChannel): bytes already sent still arrive, then a closed
//! peer gives [`NetError::Disconnected`]; a silent one gives [`NetError::Timeout`].

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::{Channel, NetError};

/// Largest chunk a sender hands to the link at once.
pub const CHUNK: usize = 64 << 10;
/// Unread bytes a sender may have queued before it waits for the reader (at least; twice the
/// bandwidth-delay product when that is larger).
pub const WINDOW: usize = 4 << 20;
/// A reader spins (instead of sleeping) for the last this long before its bytes arrive.
pub const SPIN: Duration = Duration::from_micros(50);
/// A reader waiting on a long transfer wakes at least this often to take the bytes that have
/// arrived, so the sender's window does not fill with bytes already delivered.
const DRAIN: Duration = Duration::from_millis(1);

/// One end of an emulated link; see the module docs.
pub struct LinkChannel {
    out: Arc<Direction>,
    inbound: Arc<Direction>,
    pending: Vec<u8>,
    sent: u64,
    received: u64,
    timeout: Duration,
}

/// Two channel ends connected by a link of `rate_bits_per_sec` and one-way `latency` in each
/// direction. Dropping (or [closing](LinkChannel::close)) one end makes the other's `recv`
/// fail with `Disconnected` once the bytes in flight are read; a silent peer makes it fail
/// with `Timeout` after 30 s.
///
/// # Panics
/// If `rate_bits_per_sec` is 0.
pub fn link_pair(rate_bits_per_sec: u64, latency: Duration) -> (LinkChannel, LinkChannel) {
    assert!(rate_bits_per_sec > 0, "a link needs a positive rate");
    let a_to_b = Arc::new(Direction::new(rate_bits_per_sec, latency));
    let b_to_a = Arc::new(Direction::new(rate_bits_per_sec, latency));
    (
        LinkChannel::new(a_to_b.clone(), b_to_a.clone()),
        LinkChannel::new(b_to_a, a_to_b),
    )
}

/// One direction of the link: the chunks on their way or not yet read.
struct Direction {
    rate: u128,
    latency: Duration,
    window: usize,
    state: Mutex<Queue>,
    /// Signalled whenever a chunk is queued, bytes are read, or an end closes.
    changed: Condvar,
}

#[derive(Default)]
struct Queue {
    chunks: VecDeque<InFlight>,
    /// Bytes queued and not read yet.
    unread: usize,
    /// When the link finishes sending the last queued chunk.
    link_free: Option<Instant>,
    sender_closed: bool,
    receiver_closed: bool,
}

struct InFlight {
    data: Vec<u8>,
    /// Bytes of `data` already read.
    read: usize,
    departure: Instant,
}

const NANOS_PER_SEC: u128 = 1_000_000_000;

impl Direction {
    fn new(rate_bits_per_sec: u64, latency: Duration) -> Self {
        let rate = rate_bits_per_sec as u128;
        let bdp = rate * latency.as_nanos() / (8 * NANOS_PER_SEC);
        Direction {
            rate,
            latency,
            window: WINDOW.max(usize::try_from(2 * bdp).unwrap_or(usize::MAX)),
            state: Mutex::new(Queue::default()),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        // A panicking peer thread cannot leave the queue half-updated (every update is a
        // few plain assignments), so a poisoned lock is still consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How long the link takes to carry `bytes` (rounded up to the nanosecond).
    fn serialization(&self, bytes: usize) -> Duration {
        nanos((bytes as u128 * 8 * NANOS_PER_SEC).div_ceil(self.rate))
    }

    /// When the first `bytes` bytes of a chunk that departed at `departure` are readable.
    fn arrival(&self, departure: Instant, bytes: usize) -> Instant {
        departure + self.serialization(bytes) + self.latency
    }

    /// How many bytes of `chunk` are readable at `now`.
    fn readable(&self, chunk: &InFlight, now: Instant) -> usize {
        let on_wire = now.saturating_duration_since(chunk.departure + self.latency);
        let bytes = on_wire.as_nanos() * self.rate / (8 * NANOS_PER_SEC);
        usize::try_from(bytes).map_or(chunk.data.len(), |b| b.min(chunk.data.len()))
    }

    /// Queues `data` on the link, waiting while the reader has a full window unread.
    fn push(&self, data: Vec<u8>, timeout: Duration) -> Result<(), NetError> {
        let mut q = self.lock();
        let since = Instant::now();
        while q.unread > 0 && q.unread + data.len() > self.window {
            if q.receiver_closed {
                return Err(NetError::Disconnected);
            }
            let waited = since.elapsed();
            if waited >= timeout {
                return Err(NetError::Timeout(timeout));
            }
            q = self.wait(q, timeout - waited);
        }
        if q.receiver_closed {
            return Err(NetError::Disconnected);
        }
        let now = Instant::now();
        let departure = q.link_free.map_or(now, |free| free.max(now));
        q.link_free = Some(departure + self.serialization(data.len()));
        q.unread += data.len();
        q.chunks.push_back(InFlight {
            data,
            read: 0,
            departure,
        });
        self.changed.notify_all();
        Ok(())
    }

    /// Fills `buf` as the bytes arrive; see the module docs for the timing.
    fn pull(&self, buf: &mut [u8], timeout: Duration) -> Result<(), NetError> {
        let mut filled = 0;
        let mut q = self.lock();
        let mut idle_since = Instant::now();
        loop {
            let now = Instant::now();
            let taken = take_readable(self, &mut q, &mut buf[filled..], now);
            if taken > 0 {
                filled += taken;
                idle_since = now;
                self.changed.notify_all();
            }
            if filled == buf.len() {
                return Ok(());
            }
            match last_needed_arrival(self, &q, buf.len() - filled) {
                Some(at) => q = self.wait_until(q, at),
                None if q.sender_closed => return Err(NetError::Disconnected),
                None => {
                    let idle = now.saturating_duration_since(idle_since);
                    if idle >= timeout {
                        return Err(NetError::Timeout(timeout));
                    }
                    q = self.wait(q, timeout - idle);
                }
            }
        }
    }

    fn wait<'q>(&self, q: MutexGuard<'q, Queue>, at_most: Duration) -> MutexGuard<'q, Queue> {
        let (q, _) = self
            .changed
            .wait_timeout(q, at_most)
            .unwrap_or_else(|e| e.into_inner());
        q
    }

    /// Waits until `at` (or less: a new chunk or a [`DRAIN`] period wakes the reader early):
    /// asleep while more than [`SPIN`] remains, then spinning.
    fn wait_until<'q>(&'q self, q: MutexGuard<'q, Queue>, at: Instant) -> MutexGuard<'q, Queue> {
        let left = at.saturating_duration_since(Instant::now());
        if left > SPIN {
            return self.wait(q, (left - SPIN).min(DRAIN));
        }
        // Queued bytes never change their arrival time, so the lock can go meanwhile.
        drop(q);
        while Instant::now() < at {
            std::hint::spin_loop();
            std::thread::yield_now();
        }
        self.lock()
    }
}

fn nanos(n: u128) -> Duration {
    Duration::from_nanos(u64::try_from(n).unwrap_or(u64::MAX))
}

/// Copies the bytes readable at `now` into `buf` (as many as fit); returns how many.
fn take_readable(link: &Direction, q: &mut Queue, buf: &mut [u8], now: Instant) -> usize {
    let mut taken = 0;
    while taken < buf.len() {
        let Some(front) = q.chunks.front_mut() else {
            break;
        };
        let n = (link.readable(front, now) - front.read).min(buf.len() - taken);
        if n == 0 {
            break;
        }
        buf[taken..taken + n].copy_from_slice(&front.data[front.read..front.read + n]);
        front.read += n;
        taken += n;
        q.unread -= n;
        if front.read == front.data.len() {
            q.chunks.pop_front();
        }
    }
    taken
}

/// When the last of the next `need` bytes that are already queued arrives (`None`: nothing
/// is queued).
fn last_needed_arrival(link: &Direction, q: &Queue, mut need: usize) -> Option<Instant> {
    let mut last = None;
    for chunk in &q.chunks {
        if need == 0 {
            break;
        }
        let upto = chunk.data.len().min(chunk.read + need);
        need -= upto - chunk.read;
        last = Some(link.arrival(chunk.departure, upto));
    }
    last
}

impl LinkChannel {
    fn new(out: Arc<Direction>, inbound: Arc<Direction>) -> Self {
        LinkChannel {
            out,
            inbound,
            pending: Vec::with_capacity(CHUNK),
            sent: 0,
            received: 0,
            timeout: Duration::from_secs(30),
        }
    }

    /// How long `recv` waits on a silent peer (and `send` on a reader that stopped reading).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// Closes the sending side, as a crashed peer would (bytes already flushed still arrive).
    pub fn close(&mut self) {
        self.out.lock().sender_closed = true;
        self.out.changed.notify_all();
    }

    fn push_pending(&mut self) -> Result<(), NetError> {
        if self.pending.is_empty() {
            return Ok(());
        }
        if self.out.lock().sender_closed {
            return Err(NetError::Disconnected);
        }
        let chunk = std::mem::replace(&mut self.pending, Vec::with_capacity(CHUNK));
        self.out.push(chunk, self.timeout)
    }
}

impl Channel for LinkChannel {
    fn send(&mut self, mut data: &[u8]) -> Result<(), NetError> {
        self.sent += data.len() as u64;
        while !data.is_empty() {
            let n = data.len().min(CHUNK - self.pending.len());
            self.pending.extend_from_slice(&data[..n]);
            data = &data[n..];
            if self.pending.len() == CHUNK {
                self.push_pending()?;
            }
        }
        Ok(())
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        self.received += buf.len() as u64;
        self.inbound.pull(buf, self.timeout)
    }

    fn flush(&mut self) -> Result<(), NetError> {
        self.push_pending()
    }

    fn bytes_sent(&self) -> u64 {
        self.sent
    }

    fn bytes_received(&self) -> u64 {
        self.received
    }
}

impl Drop for LinkChannel {
    fn drop(&mut self) {
        self.close();
        self.inbound.lock().receiver_closed = true;
        self.inbound.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seconds the link needs for `bytes` at `rate`, plus `latency`.
    fn theoretical(bytes: usize, rate: u64, latency: Duration) -> Duration {
        Duration::from_secs_f64(bytes as f64 * 8.0 / rate as f64) + latency
    }

    #[test]
    fn bytes_arrive_intact_in_both_directions() {
        let (mut a, mut b) = link_pair(1 << 34, Duration::from_micros(100));
        let data: Vec<u8> = (0..300_001u32).map(|i| (i * 7 + i / 251) as u8).collect();
        let expected = data.clone();
        let t = std::thread::spawn(move || {
            // Uneven pieces, so chunks fill across calls.
            for piece in data.chunks(9_999) {
                a.send(piece).unwrap();
            }
            a.flush().unwrap();
            let mut echo = vec![0u8; 1000];
            a.recv(&mut echo).unwrap();
            (a, echo)
        });
        let mut got = vec![0u8; expected.len()];
        for part in got.chunks_mut(65_000) {
            b.recv(part).unwrap();
        }
        assert_eq!(got, expected);
        b.send(&got[..1000]).unwrap();
        b.flush().unwrap();
        let (a, echo) = t.join().unwrap();
        assert_eq!(echo, expected[..1000]);
        assert_eq!((a.bytes_sent(), b.bytes_received()), (300_001, 300_001));
        assert_eq!((b.bytes_sent(), a.bytes_received()), (1000, 1000));
    }

    /// Loose bounds only (this is not a timing benchmark): never faster than the link allows,
    /// and not wildly slower.
    #[test]
    fn a_transfer_takes_about_the_link_time() {
        let (rate, latency, len) = (100_000_000, Duration::from_millis(10), 2_000_000);
        let (mut a, mut b) = link_pair(rate, latency);
        let start = Instant::now();
        let t = std::thread::spawn(move || {
            a.send(&vec![1u8; len]).unwrap();
            a.flush().unwrap();
            a
        });
        let mut got = vec![0u8; len];
        b.recv(&mut got).unwrap();
        let took = start.elapsed();
        t.join().unwrap();
        let want = theoretical(len, rate, latency);
        assert!(took >= want, "{took:?} < link time {want:?}");
        assert!(took < 3 * want, "{took:?} vs link time {want:?}");
    }

    #[test]
    fn a_round_trip_takes_twice_the_latency() {
        let latency = Duration::from_millis(2);
        let (mut a, mut b) = link_pair(1_000_000_000, latency);
        let t = std::thread::spawn(move || {
            let mut ball = [0u8; 8];
            for _ in 0..10 {
                b.recv(&mut ball).unwrap();
                b.send(&ball).unwrap();
                b.flush().unwrap();
            }
        });
        let start = Instant::now();
        let mut ball = [5u8; 8];
        for _ in 0..10 {
            a.send(&ball).unwrap();
            a.flush().unwrap();
            a.recv(&mut ball).unwrap();
        }
        let took = start.elapsed();
        t.join().unwrap();
        assert_eq!(ball, [5u8; 8]);
        let want = 2 * theoretical(8, 1_000_000_000, latency) * 10;
        assert!(took >= want, "{took:?} < {want:?}");
        // The lower bound is the property (latency is never skipped); the upper bound only
        // catches a stall (a flush or a wake-up that waits on a timeout), since a loaded
        // machine stretches the 20 scheduler wake-ups by milliseconds.
        assert!(took < 10 * want, "{took:?} vs {want:?}");
    }

    #[test]
    fn closed_or_silent_peers_are_errors() {
        // Bytes sent before the close still arrive; then the close is reported.
        let (mut a, mut b) = link_pair(1_000_000_000, Duration::from_micros(100));
        a.send(&[9u8; 10]).unwrap();
        a.flush().unwrap();
        a.close();
        let mut got = [0u8; 10];
        b.recv(&mut got).unwrap();
        assert_eq!(got, [9u8; 10]);
        assert!(matches!(b.recv(&mut [0u8; 1]), Err(NetError::Disconnected)));
        assert!(matches!(
            a.send(&[0u8; 1]).and_then(|()| a.flush()),
            Err(NetError::Disconnected)
        ));

        // A dropped end: the reader is told, and so is a writer.
        let (a, mut b) = link_pair(1_000_000_000, Duration::ZERO);
        drop(a);
        assert!(matches!(b.recv(&mut [0u8; 1]), Err(NetError::Disconnected)));
        b.send(&[1u8; 3]).unwrap();
        assert!(matches!(b.flush(), Err(NetError::Disconnected)));

        // A peer that neither sends nor closes.
        let (_a, mut b) = link_pair(1_000_000_000, Duration::ZERO);
        b.set_timeout(Duration::from_millis(20));
        assert!(matches!(b.recv(&mut [0u8; 1]), Err(NetError::Timeout(_))));

        // A reader that stops reading: the writer's window fills, then it gives up.
        let (mut a, _b) = link_pair(1 << 40, Duration::ZERO);
        a.set_timeout(Duration::from_millis(20));
        let big = vec![0u8; WINDOW + 2 * CHUNK];
        assert!(matches!(a.send(&big), Err(NetError::Timeout(_))));
    }
}
