//! A TCP or TLS link whose sends never wait on the peer, for n-party protocols that send to every
//! party first and read from every party after: a party whose peers all do the same would
//! deadlock on full socket buffers if a send waited for the peer to read.
//!
//! `send` buffers; `flush` (or a full [`CHUNK`]) hands the buffer to a writer thread that
//! owns the socket's write half ([`TcpWriter`]) and writes the chunks in order. `recv` reads
//! the read half ([`TcpReader`]) on the calling thread, with the channel's timeout. A write
//! that fails in the writer thread (the peer closed, or stopped reading for a whole timeout)
//! spends the link: the next `send`, `flush` or `recv` returns that error (a `recv` after a
//! close first reads what the peer sent before it closed).
//!
//! Memory is bounded: at most [`MAX_QUEUED`] bytes wait for the writer. A sender that would
//! queue more waits for the writer; when nothing drains for a whole timeout the peer has
//! stopped reading, and the send fails with [`NetError::PeerNotReading`].
//!
//! Over TLS ([`QueuedChannel::over_tls`]) the halves are those of `tls_link`: `send` seals
//! the caller's bytes straight into the chunk as whole records (the AEAD's pass replaces
//! the copy, and runs on the sending thread, an I/O thread in a session), the writer
//! thread writes sealed chunks, and the three share only the sending key's state, none
//! holding it across a system call; all of the above holds, and the counters count
//! plaintext.
//!
//! Latency emulation: with a one-way delay d, the writer holds each chunk until d after it
//! was handed on (by the monotonic clock), so a round trip between two such links takes at
//! least 2d: a 20 ms RTT network on one machine. Only the delay is emulated; bandwidth is not
//! limited (the socket's own rate applies).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::record::Wire;
use crate::tcp::{spent, ABORT_LINGER};
use crate::tls_link::{TlsReader, TlsSealing, TlsWriter};
use crate::{Channel, NetError, TcpChannel, TcpReader, TcpWriter, TlsChannel};

/// Bytes buffered by `send` before they go to the writer without waiting for `flush`.
pub const CHUNK: usize = 1 << 20;
/// Most bytes handed to the writer and not yet written before a sender waits.
pub const MAX_QUEUED: usize = 64 << 20;
/// Written chunks kept for reuse, so a long run fills warm buffers instead of fresh ones.
const SPARE_CHUNKS: usize = 4;

/// A TCP or TLS link with a writer thread; see the module docs.
///
/// `bytes_sent` counts bytes when they are handed to `send` (queued, not necessarily on the
/// wire yet), `bytes_received` when `recv` returns them; both include what the TCP channel
/// moved before it was queued. [`QueuedChannel::bytes_written`] counts what the writer
/// thread has written.
pub struct QueuedChannel {
    reader: ReadHalf,
    /// The TLS exporter of the session, for a TLS link.
    binding: Option<[u8; 32]>,
    /// Bytes sent and not yet handed to the writer (sealed records over TLS).
    pending: Wire,
    /// Plaintext bytes sent into `pending` (over TLS the last partial record's are counted
    /// although it waits in `sealing`).
    pending_plain: usize,
    /// Over TLS: the sending record layer, which seals into `pending`.
    sealing: Option<TlsSealing>,
    shared: Arc<Shared>,
    writer: Option<JoinHandle<()>>,
    sent: u64,
    phase: &'static str,
    timeout: Duration,
    delay: Duration,
    /// A read from the peer failed (silence, the deadline, a close): sends are best effort
    /// from then on, bounded by [`ABORT_LINGER`], and so is the drop.
    peer_failed: bool,
}

/// What the sending thread and the writer thread share.
struct Shared {
    queue: Mutex<Queue>,
    /// Signalled when a chunk is queued, written, or the link closes or fails.
    changed: Condvar,
    /// Set with `queue.failed`, so sends check it without taking the lock.
    failed: AtomicBool,
}

#[derive(Default)]
struct Queue {
    chunks: VecDeque<Chunk>,
    /// Bytes in `chunks` plus the chunk being written.
    bytes: usize,
    /// Plaintext bytes the writer has written.
    written: u64,
    /// Written chunks' buffers, for reuse.
    spares: Vec<Wire>,
    /// Why the link is spent.
    failed: Option<NetError>,
    /// Whether `failed` was returned once already (later calls get a copy of its kind).
    reported: bool,
    /// The channel was dropped: write the rest, then end the stream.
    closed: bool,
    /// The writer thread has ended.
    done: bool,
}

/// Bytes to write no earlier than `due`, during `phase`.
struct Chunk {
    data: Wire,
    /// The plaintext bytes it carries.
    plain: usize,
    due: Instant,
    phase: &'static str,
}

/// The half the owning thread reads with.
enum ReadHalf {
    Tcp(TcpReader),
    /// Boxed: it holds the receiving key's expanded schedule.
    Tls(Box<TlsReader>),
}

/// The half the writer thread writes with.
enum WriteHalf {
    Tcp(TcpWriter),
    Tls(TlsWriter),
}

impl ReadHalf {
    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        match self {
            ReadHalf::Tcp(r) => r.recv(buf),
            ReadHalf::Tls(r) => r.recv(buf),
        }
    }

    fn bytes_received(&self) -> u64 {
        match self {
            ReadHalf::Tcp(r) => r.bytes_received(),
            ReadHalf::Tls(r) => r.bytes_received(),
        }
    }

    fn set_phase(&mut self, phase: &'static str) {
        match self {
            ReadHalf::Tcp(r) => r.set_phase(phase),
            ReadHalf::Tls(r) => r.set_phase(phase),
        }
    }

    fn timeout(&self) -> Duration {
        match self {
            ReadHalf::Tcp(r) => r.timeout(),
            ReadHalf::Tls(r) => r.timeout(),
        }
    }

    fn set_timeout(&mut self, timeout: Duration) -> Result<(), NetError> {
        match self {
            ReadHalf::Tcp(r) => r.set_timeout(timeout),
            ReadHalf::Tls(r) => r.set_timeout(timeout),
        }
    }

    /// Shuts the socket down, which ends a write blocked on it in the writer thread.
    fn shutdown(&self) {
        match self {
            ReadHalf::Tcp(r) => r.shutdown(),
            ReadHalf::Tls(r) => r.shutdown(),
        }
    }
}

impl WriteHalf {
    fn write_through(&mut self, data: &[u8]) -> Result<(), NetError> {
        match self {
            WriteHalf::Tcp(w) => w.write_through(data),
            WriteHalf::Tls(w) => w.write_through(data),
        }
    }

    fn set_phase(&mut self, phase: &'static str) {
        match self {
            WriteHalf::Tcp(w) => w.set_phase(phase),
            WriteHalf::Tls(w) => w.set_phase(phase),
        }
    }

    fn finish(&mut self) {
        match self {
            WriteHalf::Tcp(w) => w.finish(),
            WriteHalf::Tls(w) => w.finish(),
        }
    }
}

impl QueuedChannel {
    /// Moves `channel` onto a writer thread; every chunk goes out `one_way_delay` after it
    /// is handed on (zero: at once).
    pub fn new(channel: TcpChannel, one_way_delay: Duration) -> Result<QueuedChannel, NetError> {
        let (reader, writer) = channel.split();
        let (timeout, sent) = (reader.timeout(), writer.bytes_sent());
        QueuedChannel::start(
            ReadHalf::Tcp(reader),
            WriteHalf::Tcp(writer),
            (timeout, sent, None),
            None,
            one_way_delay,
        )
    }

    /// [`QueuedChannel::new`] for a TLS link: the read half (this thread) and the writer
    /// thread share the TLS state, neither holding it across a system call (see
    /// `tls_link`). The counters count plaintext, as [`TlsChannel`]'s do, and
    /// [`Channel::channel_binding`] is the session's.
    pub fn over_tls(channel: TlsChannel, one_way_delay: Duration) -> Result<QueuedChannel, NetError> {
        let ((reader, sealing, writer), sent, binding) = channel.into_halves()?;
        let timeout = reader.timeout();
        QueuedChannel::start(
            ReadHalf::Tls(Box::new(reader)),
            WriteHalf::Tls(writer),
            (timeout, sent, Some(binding)),
            Some(sealing),
            one_way_delay,
        )
    }

    /// Starts the writer thread; `facts` are the link's timeout, the bytes sent before and
    /// the channel binding; `sealing` the sending record layer over TLS.
    fn start(
        reader: ReadHalf,
        writer: WriteHalf,
        facts: (Duration, u64, Option<[u8; 32]>),
        sealing: Option<TlsSealing>,
        one_way_delay: Duration,
    ) -> Result<QueuedChannel, NetError> {
        let (timeout, sent, binding) = facts;
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            changed: Condvar::new(),
            failed: AtomicBool::new(false),
        });
        let for_writer = shared.clone();
        let handle = std::thread::Builder::new()
            .name("mixgc-link-writer".into())
            .spawn(move || write_chunks(writer, &for_writer))
            .map_err(NetError::Io)?;
        Ok(QueuedChannel {
            reader,
            binding,
            pending: Wire::default(),
            pending_plain: 0,
            sealing,
            shared,
            writer: Some(handle),
            sent,
            phase: "the start of the session",
            timeout,
            delay: one_way_delay,
            peer_failed: false,
        })
    }

    /// The emulated one-way delay.
    pub fn one_way_delay(&self) -> Duration {
        self.delay
    }

    /// Bytes the writer thread has written to the socket so far (plaintext over TLS).
    pub fn bytes_written(&self) -> u64 {
        self.shared.lock().written
    }

    /// The writer's failure, if any (the first time in full, later as a copy of its kind).
    fn check(&self) -> Result<(), NetError> {
        if !self.shared.failed.load(Ordering::Acquire) {
            return Ok(());
        }
        take_failure(&mut self.shared.lock()).map_or(Ok(()), Err)
    }

    /// Hands the buffered bytes to the writer, waiting while [`MAX_QUEUED`] bytes are
    /// queued; no progress for a whole timeout is a peer that stopped reading (for
    /// [`ABORT_LINGER`] once the peer has failed).
    fn hand_off(&mut self) -> Result<(), NetError> {
        if self.pending.is_empty() {
            return self.check();
        }
        let len = self.pending.len();
        let mut queue = self.shared.lock();
        let mut last_progress = (Instant::now(), queue.written);
        loop {
            if let Some(e) = take_failure(&mut queue) {
                self.pending.clear();
                self.pending_plain = 0;
                return Err(e);
            }
            if queue.bytes == 0 || queue.bytes + len <= MAX_QUEUED {
                break;
            }
            if queue.written != last_progress.1 {
                last_progress = (Instant::now(), queue.written);
            }
            let patience = if self.peer_failed {
                ABORT_LINGER.min(self.timeout)
            } else {
                self.timeout
            };
            let left = patience.saturating_sub(last_progress.0.elapsed());
            if left.is_zero() {
                let e = NetError::PeerNotReading {
                    waited: self.timeout,
                    phase: self.phase,
                };
                queue.failed = Some(spent(&e));
                queue.reported = true;
                self.shared.failed.store(true, Ordering::Release);
                self.pending.clear();
                self.pending_plain = 0;
                return Err(e);
            }
            queue = self
                .shared
                .changed
                .wait_timeout(queue, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        queue.bytes += len;
        let spare = queue.spares.pop().unwrap_or_default();
        queue.chunks.push_back(Chunk {
            data: std::mem::replace(&mut self.pending, spare),
            plain: std::mem::take(&mut self.pending_plain),
            due: Instant::now() + self.delay,
            phase: self.phase,
        });
        drop(queue);
        self.shared.changed.notify_all();
        Ok(())
    }

    /// Puts `data` into the pending chunk: sealed over TLS, else copied.
    fn put(&mut self, data: &[u8]) -> Result<(), NetError> {
        self.pending_plain += data.len();
        if self.sealing.is_some() {
            self.sealed(|s, out| s.seal(data, out))
        } else {
            self.pending.extend_from_slice(data);
            Ok(())
        }
    }

    /// Runs `seal` on the record layer (over TLS); on failure (the key's limit, or an
    /// alert the read half left, sealed to go out) hands on what it sealed and reports it.
    fn sealed(
        &mut self,
        seal: impl FnOnce(&mut TlsSealing, &mut Wire) -> Result<(), NetError>,
    ) -> Result<(), NetError> {
        let Some(sealing) = self.sealing.as_mut() else {
            return Ok(());
        };
        let result = seal(sealing, &mut self.pending);
        if result.is_err() {
            let _ = self.hand_off();
        }
        result
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        // A panic while holding the lock leaves a consistent queue (every update is one
        // assignment), so a poisoned lock is still usable.
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The link's failure: in full the first time, then a copy of its kind.
fn take_failure(queue: &mut Queue) -> Option<NetError> {
    let e = queue.failed.as_mut()?;
    if queue.reported {
        return Some(spent(e));
    }
    queue.reported = true;
    let copy = spent(e);
    Some(std::mem::replace(e, copy))
}

/// The writer thread: writes the queued chunks in order, each no earlier than its due time,
/// until the channel closes (then ends the stream) or a write fails (then records why).
fn write_chunks(writer: WriteHalf, shared: &Shared) {
    write_all_chunks(writer, shared);
    shared.lock().done = true;
    shared.changed.notify_all();
}

/// [`write_chunks`] until the stream ends or a write fails.
fn write_all_chunks(mut writer: WriteHalf, shared: &Shared) {
    loop {
        let chunk = {
            let mut queue = shared.lock();
            loop {
                if let Some(c) = queue.chunks.pop_front() {
                    break Some(c);
                }
                if queue.closed {
                    break None;
                }
                queue = shared.changed.wait(queue).unwrap_or_else(|p| p.into_inner());
            }
        };
        let Some(chunk) = chunk else {
            writer.finish();
            return;
        };
        let now = Instant::now();
        if chunk.due > now {
            std::thread::sleep(chunk.due - now);
        }
        writer.set_phase(chunk.phase);
        let result = writer.write_through(chunk.data.bytes());
        let mut queue = shared.lock();
        queue.bytes -= chunk.data.len();
        let failed = result.is_err();
        match result {
            Ok(()) => {
                queue.written += chunk.plain as u64;
                if queue.spares.len() < SPARE_CHUNKS {
                    let mut spare = chunk.data;
                    spare.clear();
                    queue.spares.push(spare);
                }
            }
            Err(e) => {
                queue.failed.get_or_insert(e);
                queue.bytes -= queue.chunks.drain(..).map(|c| c.data.len()).sum::<usize>();
                shared.failed.store(true, Ordering::Release);
            }
        }
        drop(queue);
        shared.changed.notify_all();
        if failed {
            return;
        }
    }
}

impl Drop for QueuedChannel {
    /// Hands on what is still buffered, lets the writer write it (bounded by the timeout
    /// per write) and end the stream, and waits for it. Once the peer has failed, the
    /// writer gets [`ABORT_LINGER`]; a writer still blocked on the peer's full socket then
    /// is freed by shutting the socket down, so the drop never waits another timeout.
    fn drop(&mut self) {
        let _ = Channel::flush(self);
        self.shared.lock().closed = true;
        self.shared.changed.notify_all();
        if self.peer_failed {
            let until = Instant::now() + ABORT_LINGER.min(self.timeout);
            let mut queue = self.shared.lock();
            while !queue.done {
                let left = until.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    self.reader.shutdown();
                    break;
                }
                queue = self
                    .shared
                    .changed
                    .wait_timeout(queue, left)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
        }
        if let Some(handle) = self.writer.take() {
            let _ = handle.join();
        }
        if !self.peer_failed {
            self.drain_until_peer_closes();
        }
    }
}

impl QueuedChannel {
    /// After the writer ended the stream: reads (and drops) what the peer still sends —
    /// flow-control acknowledgements of our last bytes — until it closes, for at most the
    /// timeout. Closing a socket with unread bytes makes the kernel reset the connection,
    /// which can destroy our last bytes before the peer has read them.
    fn drain_until_peer_closes(&mut self) {
        let until = Instant::now() + self.timeout;
        let mut byte = [0u8; 1];
        while let Some(left) = until
            .checked_duration_since(Instant::now())
            .filter(|d| !d.is_zero())
        {
            if self.reader.set_timeout(left).is_err() || self.reader.recv(&mut byte).is_err() {
                return;
            }
        }
    }
}

impl Channel for QueuedChannel {
    /// Buffers `data` (sealed over TLS), handing each [`CHUNK`] of plaintext to the writer
    /// (so a large send is written while the rest is still being put, and never buffered
    /// whole).
    fn send(&mut self, mut data: &[u8]) -> Result<(), NetError> {
        self.check()?;
        self.sent += data.len() as u64;
        while !data.is_empty() {
            let take = data.len().min(CHUNK.saturating_sub(self.pending_plain).max(1));
            self.put(&data[..take])?;
            data = &data[take..];
            if self.pending_plain >= CHUNK {
                self.hand_off()?;
            }
        }
        Ok(())
    }

    /// Reads with the read half; a failed write surfaces here first, except a closed
    /// peer, whose end the read half reports itself after the bytes it sent before closing
    /// (which may say why it stopped). A failed read makes later sends best effort.
    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        if self.shared.failed.load(Ordering::Acquire) {
            let mut queue = self.shared.lock();
            if !matches!(queue.failed, Some(NetError::Disconnected)) {
                take_failure(&mut queue).map_or(Ok(()), Err)?;
            }
        }
        let received = self.reader.recv(buf);
        if received.is_err() {
            self.peer_failed = true;
        }
        received
    }

    /// Hands on everything sent, over TLS with its last record sealed.
    fn flush(&mut self) -> Result<(), NetError> {
        self.sealed(|s, out| s.seal_partial(out))?;
        self.hand_off()
    }

    fn bytes_sent(&self) -> u64 {
        self.sent
    }

    fn bytes_received(&self) -> u64 {
        self.reader.bytes_received()
    }

    fn channel_binding(&self) -> Option<[u8; 32]> {
        self.binding
    }

    fn set_phase(&mut self, phase: &'static str) {
        self.phase = phase;
        self.reader.set_phase(phase);
    }

    fn read_timeout(&self) -> Option<Duration> {
        Some(self.reader.timeout())
    }

    /// A socket that refuses the new timeout keeps the old one.
    fn set_read_timeout(&mut self, timeout: Duration) {
        let _ = self.reader.set_timeout(timeout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two connected queued links over loopback, each with `timeout` and `delay`.
    fn pair(timeout: Duration, delay: Duration) -> (QueuedChannel, QueuedChannel) {
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        let a = TcpChannel::connect(&addr.to_string(), timeout).unwrap();
        let b = TcpChannel::accept(&listener, timeout).unwrap();
        (
            QueuedChannel::new(a, delay).unwrap(),
            QueuedChannel::new(b, delay).unwrap(),
        )
    }

    /// A link to a stopped peer (it neither reads nor writes) whose writer is blocked on the
    /// full socket: once a read from the peer has timed out, dropping the link waits about
    /// [`ABORT_LINGER`], not until the writer's write times out a whole timeout later.
    #[test]
    fn after_a_failed_read_the_drop_does_not_wait_on_a_stopped_peer() {
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        let _stopped = TcpChannel::connect(&addr.to_string(), Duration::from_secs(5)).unwrap();
        let timeout = Duration::from_secs(4);
        let mut link =
            QueuedChannel::new(TcpChannel::accept(&listener, timeout).unwrap(), Duration::ZERO).unwrap();
        // Far more than the socket buffers hold: the writer blocks on the full socket.
        for _ in 0..32 {
            link.send(&[7u8; CHUNK]).unwrap();
        }
        link.flush().unwrap();
        link.set_read_timeout(Duration::from_millis(100));
        assert!(matches!(
            link.recv(&mut [0u8; 1]),
            Err(NetError::PeerSilent { .. })
        ));
        let start = Instant::now();
        // Best effort now: waits at most the linger for queue space, then gives up.
        let _ = send_frame_like(&mut link);
        drop(link);
        let took = start.elapsed();
        assert!(took < timeout / 4, "{took:?}");
    }

    /// An abort-sized frame and a flush, as a failing party sends its peers.
    fn send_frame_like(link: &mut QueuedChannel) -> Result<(), NetError> {
        link.send(&[1u8; 64])?;
        link.flush()
    }

    /// Two queued TLS links over loopback (pinned self-signed certificates), mutually
    /// authenticated, one with a one-way `delay`.
    fn tls_pair(timeout: Duration) -> (QueuedChannel, QueuedChannel) {
        use crate::{generate, PeerCheck, TlsConfig};
        let (ka, kb) = (generate(&[], false).unwrap(), generate(&[], false).unwrap());
        let config = |me: &crate::KeyMaterial, peer: &crate::KeyMaterial| {
            TlsConfig::new(me.identity().unwrap(), PeerCheck::Pinned(vec![peer.fingerprint])).unwrap()
        };
        let (ca, cb) = (config(&ka, &kb), config(&kb, &ka));
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        let addr = addr.to_string();
        let dialer = std::thread::spawn(move || {
            let tcp = TcpChannel::connect(&addr, timeout).unwrap();
            TlsChannel::client_over(tcp, &addr, timeout, &ca).unwrap()
        });
        let tcp = TcpChannel::accept(&listener, timeout).unwrap();
        let b = TlsChannel::server_over(tcp, timeout, &cb).unwrap();
        let a = dialer.join().unwrap();
        assert_eq!(a.peer_fingerprint(), Some(kb.fingerprint));
        assert_eq!(b.peer_fingerprint(), Some(ka.fingerprint));
        (
            QueuedChannel::over_tls(a, Duration::ZERO).unwrap(),
            QueuedChannel::over_tls(b, Duration::ZERO).unwrap(),
        )
    }

    /// Over TLS too, both ends send 24 MiB before either reads: all arrives in order, the
    /// counters count plaintext, both ends share one channel binding, and a dropped peer
    /// (its close_notify) surfaces as a disconnect.
    #[test]
    fn tls_links_never_wait_on_the_peer_either() {
        let (a, b) = tls_pair(Duration::from_secs(5));
        assert!(a.channel_binding().is_some());
        assert_eq!(a.channel_binding(), b.channel_binding());
        let len = 24 << 20;
        let run = move |mut ch: QueuedChannel, seed: u8| {
            std::thread::spawn(move || {
                ch.send(&pattern(len, seed)).unwrap();
                ch.send(b"end").unwrap();
                ch.flush().unwrap();
                let mut got = vec![0u8; len + 3];
                ch.recv(&mut got).unwrap();
                (got, ch.bytes_sent(), ch.bytes_received(), ch)
            })
        };
        let (ta, tb) = (run(a, 1), run(b, 2));
        let (got_a, sent_a, recv_a, mut a) = ta.join().unwrap();
        let (got_b, sent_b, recv_b, b) = tb.join().unwrap();
        assert!(got_a[..len] == pattern(len, 2)[..] && &got_a[len..] == b"end");
        assert!(got_b[..len] == pattern(len, 1)[..] && &got_b[len..] == b"end");
        assert_eq!((sent_a, recv_a, sent_b, recv_b), ([len as u64 + 3; 4]).into());
        drop(b);
        assert!(matches!(a.recv(&mut [0u8; 1]), Err(NetError::Disconnected)));
    }

    /// A TLS peer that goes silent is named with the phase after the timeout.
    #[test]
    fn a_silent_tls_peer_is_named_with_the_phase() {
        let timeout = Duration::from_millis(300);
        let (mut a, _b) = tls_pair(timeout);
        a.set_phase("the openings");
        let start = Instant::now();
        let e = a.recv(&mut [0u8; 1]).unwrap_err();
        assert!(matches!(e, NetError::PeerSilent { .. }), "{e}");
        assert!(e.to_string().contains("during the openings"), "{e}");
        assert!(start.elapsed() < 4 * timeout, "{:?}", start.elapsed());
    }

    /// A TLS peer that never reads: the sends stall for one timeout and fail naming the
    /// phase, as over TCP.
    #[test]
    fn a_tls_peer_that_never_reads_stalls_the_sends_after_the_timeout() {
        let timeout = Duration::from_millis(400);
        let (mut a, _b) = tls_pair(timeout);
        a.set_phase("the joint garbling");
        let start = Instant::now();
        let e = (0..1024)
            .find_map(|_| a.send(&[7u8; 1 << 20]).and_then(|()| a.flush()).err())
            .expect("a gigabyte never read cannot all be queued");
        assert!(matches!(e, NetError::PeerNotReading { .. }), "{e}");
        assert!(e.to_string().contains("during the joint garbling"), "{e}");
        assert!(
            start.elapsed() < 4 * timeout + Duration::from_secs(1),
            "{:?}",
            start.elapsed()
        );
    }

    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len).map(|i| (i % 251) as u8 ^ seed).collect()
    }

    /// Both ends send 24 MiB before either reads (far beyond the socket buffers, which
    /// would deadlock a channel that writes on the sending thread); all arrives in order
    /// and the counters agree.
    #[test]
    fn sends_never_wait_on_the_peer() {
        let (a, b) = pair(Duration::from_secs(5), Duration::ZERO);
        let len = 24 << 20;
        let run = move |mut ch: QueuedChannel, seed: u8| {
            std::thread::spawn(move || {
                ch.send(&pattern(len, seed)).unwrap();
                ch.send(b"end").unwrap();
                ch.flush().unwrap();
                let mut got = vec![0u8; len + 3];
                ch.recv(&mut got).unwrap();
                (got, ch.bytes_sent(), ch.bytes_received(), ch)
            })
        };
        let (ta, tb) = (run(a, 1), run(b, 2));
        let (got_a, sent_a, recv_a, a) = ta.join().unwrap();
        let (got_b, sent_b, recv_b, _b) = tb.join().unwrap();
        assert!(got_a[..len] == pattern(len, 2)[..] && &got_a[len..] == b"end");
        assert!(got_b[..len] == pattern(len, 1)[..] && &got_b[len..] == b"end");
        assert_eq!((sent_a, recv_a, sent_b, recv_b), ([len as u64 + 3; 4]).into());
        assert_eq!(a.bytes_written(), len as u64 + 3);
    }

    /// A peer that goes away: the writer's failure (or the end of the stream) surfaces on
    /// the main thread as a disconnect, promptly, and again on every later call.
    #[test]
    fn a_closed_peer_surfaces_at_the_next_call() {
        let (mut a, b) = pair(Duration::from_secs(5), Duration::ZERO);
        drop(b);
        let start = Instant::now();
        let e = (0..10_000)
            .find_map(|_| a.send(&[0u8; 64 << 10]).and_then(|()| a.flush()).err())
            .expect("writes to a closed peer fail");
        assert!(matches!(e, NetError::Disconnected), "{e}");
        assert!(matches!(a.recv(&mut [0u8; 1]), Err(NetError::Disconnected)));
        assert!(matches!(a.send(&[1]), Err(NetError::Disconnected)));
        assert!(start.elapsed() < Duration::from_secs(2), "{:?}", start.elapsed());
    }

    /// A peer that never reads: the queue fills to its bound, then the sends stall for one
    /// timeout and fail naming the phase; the link stays spent.
    #[test]
    fn a_peer_that_never_reads_stalls_the_sends_after_the_timeout() {
        let timeout = Duration::from_millis(400);
        let (mut a, _b) = pair(timeout, Duration::ZERO);
        a.set_phase("the joint garbling");
        let start = Instant::now();
        let e = (0..1024)
            .find_map(|_| a.send(&[7u8; 1 << 20]).and_then(|()| a.flush()).err())
            .expect("a gigabyte never read cannot all be queued");
        let took = start.elapsed();
        assert!(matches!(e, NetError::PeerNotReading { .. }), "{e}");
        assert!(e.to_string().contains("during the joint garbling"), "{e}");
        assert!(took < 4 * timeout + Duration::from_secs(1), "{took:?}");
        assert!(a.shared.lock().bytes <= MAX_QUEUED);
        assert!(matches!(a.flush(), Err(NetError::PeerNotReading { .. })));
    }

    /// With a one-way delay d on both ends, a ping-pong round trip takes at least 2d (and
    /// not much more on loopback).
    #[test]
    fn the_emulated_delay_is_applied_each_way() {
        let d = Duration::from_millis(10);
        let (mut a, mut b) = pair(Duration::from_secs(5), d);
        let echo = std::thread::spawn(move || {
            let mut byte = [0u8];
            while b.recv(&mut byte).is_ok() {
                if b.send(&byte).and_then(|()| b.flush()).is_err() {
                    return;
                }
            }
        });
        let mut rtts: Vec<Duration> = (0..15u8)
            .map(|i| {
                let start = Instant::now();
                a.send(&[i]).unwrap();
                a.flush().unwrap();
                let mut back = [0u8];
                a.recv(&mut back).unwrap();
                assert_eq!(back, [i]);
                start.elapsed()
            })
            .collect();
        rtts.sort();
        let (min, median) = (rtts[0], rtts[rtts.len() / 2]);
        assert!(min >= 2 * d, "{rtts:?}");
        assert!(median < 2 * d + Duration::from_millis(40), "{rtts:?}");
        assert_eq!(a.one_way_delay(), d);
        drop(a);
        echo.join().unwrap();
    }
}
