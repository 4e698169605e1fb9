use std::io::{BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::{Channel, NetError};

/// How long `connect` keeps retrying while the peer starts up.
pub const CONNECT_RETRY: Duration = Duration::from_secs(10);
/// Send buffer: large, so many small messages go out in few system calls (a frame at least
/// this large is written straight through).
const SEND_BUFFER: usize = 1 << 20;
/// Receive buffer: small messages are read ahead; a frame's large payload mostly bypasses it
/// and lands straight in the caller's buffer (a 1 MiB read-ahead cost a second copy of
/// every garbled table).
const RECV_BUFFER: usize = 64 << 10;

/// A TCP connection to the peer: `TCP_NODELAY`, buffered I/O, a read and write timeout that
/// turns a silent peer (or one that stopped reading) into an error instead of a hang, and an
/// optional overall deadline ([`TcpChannel::set_deadline`]) that ends a session even when a
/// peer drips a byte at a time, never silent for a whole timeout.
///
/// After a failed write the connection is spent: later writes and flushes fail at once
/// with the same error instead of waiting on the peer again, and dropping it sends nothing.
///
/// [`TcpChannel::split`] parts it into its read and its write half, for a writer thread.
pub struct TcpChannel {
    read: TcpReader,
    write: TcpWriter,
}

/// The read half of a [`TcpChannel`]: reads with the channel's timeout, deadline and phase.
pub struct TcpReader {
    reader: BufReader<TcpStream>,
    received: u64,
    timing: Timing,
}

/// The write half of a [`TcpChannel`]: buffers sends, writes them out on `flush`, and is
/// spent by its first failed write. Dropping it sends what is still buffered (best effort,
/// bounded by the timeout).
pub struct TcpWriter {
    writer: TcpStream,
    /// Bytes handed to `send` and not written to the socket yet.
    pending: Vec<u8>,
    sent: u64,
    timing: Timing,
    /// Why the connection is spent, once a write failed.
    failed: Option<NetError>,
    /// When the peer last took bytes, as far as this side knows (see [`Acks`]).
    acks: Acks,
}

/// When the peer last acknowledged bytes: the clock of a stalled write starts there, not
/// when this side's own send buffer filled up afterwards (issue #15: a peer that stops
/// reading used to be reported a timeout after this side had filled several MiB more of
/// its buffers, seconds late on a loaded machine).
struct Acks {
    /// The peer's acknowledged byte count when it last moved by [`ACK_PROGRESS`].
    acked: Option<u64>,
    /// When it did (or the first look).
    moved: Instant,
    /// The socket's write timeout as last set.
    write_timeout: Duration,
}

impl Acks {
    fn new(timeout: Duration) -> Acks {
        Acks {
            acked: None,
            moved: Instant::now(),
            write_timeout: timeout,
        }
    }

    /// Looks at the peer's acknowledged count; returns how long ago it last moved (`None`
    /// where the system does not say: then each write call's own wait is the clock, as a
    /// blocking write's timeout counts).
    fn look(&mut self, socket: &TcpStream) -> Option<Duration> {
        let now = bytes_acked(socket)?;
        if self
            .acked
            .is_none_or(|then| now.saturating_sub(then) >= ACK_PROGRESS)
        {
            self.acked = Some(now);
            self.moved = Instant::now();
        }
        Some(self.moved.elapsed())
    }
}

/// Acknowledged bytes that count as the peer taking data: a [`WRITE_PIECE`], as much as a
/// write call had to place within the timeout before. A stopped peer's kernel still
/// acknowledges bytes now and then (window probes into memory it frees), which must not
/// restart the clock.
const ACK_PROGRESS: u64 = WRITE_PIECE as u64;

/// How long a blocked write waits before this side looks at the acknowledgements again:
/// progress is dated by the look that sees it, so a look only at the end of a whole
/// timeout's wait would restart the clock there and report a stall two timeouts late.
const LOOK_EVERY: Duration = Duration::from_millis(100);

/// The bytes the peer has acknowledged on `socket` (Linux `TCP_INFO`), if the system says.
#[cfg(target_os = "linux")]
fn bytes_acked(socket: &TcpStream) -> Option<u64> {
    use std::os::fd::AsRawFd;
    // SAFETY: all-zero bytes are a valid `tcp_info` (plain integers).
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: `info` and `len` outlive the call; the kernel writes at most `len` bytes.
    let rc = unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    // Kernels before 4.1 fill in less than the field.
    let needed = std::mem::offset_of!(libc::tcp_info, tcpi_bytes_acked) + 8;
    (rc == 0 && len as usize >= needed).then_some(info.tcpi_bytes_acked)
}

#[cfg(not(target_os = "linux"))]
fn bytes_acked(_socket: &TcpStream) -> Option<u64> {
    None
}

/// The per-call timeout, the optional overall deadline and the current protocol phase of
/// one socket, shared by the TCP and the TLS channel.
pub(crate) struct Timing {
    timeout: Duration,
    deadline: Option<Deadline>,
    phase: &'static str,
}

/// When the session must be over, and whether the socket timeouts were cut to reach it.
#[derive(Clone, Copy)]
struct Deadline {
    at: Instant,
    /// The whole allowance, for the message.
    total: Duration,
    shortened: bool,
}

impl Timing {
    pub(crate) fn new(timeout: Duration) -> Timing {
        Timing {
            timeout,
            deadline: None,
            phase: "the start of the session",
        }
    }

    pub(crate) fn set_deadline(&mut self, total: Duration) {
        self.set_deadline_at(Instant::now() + total, total);
    }

    /// The deadline `at`, `total` after the moment the session set it.
    fn set_deadline_at(&mut self, at: Instant, total: Duration) {
        self.deadline = Some(Deadline {
            at,
            total,
            shortened: false,
        });
    }

    /// The timeout of every single read or write.
    pub(crate) fn timeout(&self) -> Duration {
        self.timeout
    }

    pub(crate) fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// The phase the next reads and writes belong to.
    pub(crate) fn phase(&self) -> &'static str {
        self.phase
    }

    pub(crate) fn set_phase(&mut self, phase: &'static str) {
        self.phase = phase;
    }

    /// Before a system call on `socket`: refuses once the deadline has passed, and in the
    /// last stretch (less than one timeout left) cuts the socket's timeouts to what is left,
    /// so no call blocks past it.
    pub(crate) fn before_io(&mut self, socket: &TcpStream) -> Result<(), NetError> {
        let Some(d) = self.deadline.as_mut() else {
            return Ok(());
        };
        let left = d.at.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(NetError::Deadline(d.total));
        }
        if left < self.timeout {
            d.shortened = true;
            let cut = Some(left.max(Duration::from_millis(1)));
            socket.set_read_timeout(cut).map_err(NetError::Io)?;
            socket.set_write_timeout(cut).map_err(NetError::Io)?;
        }
        Ok(())
    }

    /// The error a user should see for `e` from a read: past the deadline, the deadline.
    pub(crate) fn recv_error(&self, e: std::io::Error) -> NetError {
        self.past_deadline(NetError::from_recv(e, self.timeout, self.phase))
    }

    /// The error a user should see for `e` from a write: past the deadline, the deadline.
    pub(crate) fn send_error(&self, e: std::io::Error) -> NetError {
        self.past_deadline(NetError::from_send(e, self.timeout, self.phase))
    }

    /// The error of a write that made no progress for a whole timeout.
    fn stalled(&self) -> NetError {
        self.past_deadline(NetError::PeerNotReading {
            waited: self.timeout,
            phase: self.phase,
        })
    }

    fn past_deadline(&self, e: NetError) -> NetError {
        match (e, self.deadline) {
            (
                NetError::Timeout(_) | NetError::PeerSilent { .. } | NetError::PeerNotReading { .. },
                Some(d),
            ) if d.shortened && Instant::now() >= d.at => NetError::Deadline(d.total),
            (e, _) => e,
        }
    }
}

/// How long a write may wait once the peer has failed (a read timed out, hit the deadline
/// or found the stream closed): what is still sent then (an abort frame, a buffered rest)
/// is best effort, and a stopped peer's full socket must not hold a survivor for another
/// whole timeout on its way out (issue #15: every failure ends within `--timeout` + 1 s).
pub const ABORT_LINGER: Duration = Duration::from_millis(200);

/// Largest piece written in one system call: a call that cannot place it within the timeout
/// means the peer stopped reading (a blocking write returns short only when its timeout
/// expires), so the stall is reported then, not after another timeout for the rest.
const WRITE_PIECE: usize = 256 << 10;

impl TcpChannel {
    /// Connects to `addr`, retrying for up to [`CONNECT_RETRY`] while the peer starts. A
    /// name that does not resolve fails at once: waiting does not make it appear.
    pub fn connect(addr: &str, timeout: Duration) -> Result<TcpChannel, NetError> {
        TcpChannel::connect_retrying(addr, timeout, CONNECT_RETRY)
    }

    /// [`TcpChannel::connect`], retrying for up to `retry` (at least one attempt).
    pub fn connect_retrying(addr: &str, timeout: Duration, retry: Duration) -> Result<TcpChannel, NetError> {
        TcpChannel::from_stream(connect_socket(addr, timeout, retry)?, timeout)
    }

    /// Binds `addr` (port 0 picks a free port). Returns the listener and its address.
    pub fn bind(addr: &str) -> Result<(TcpListener, SocketAddr), NetError> {
        let listener = TcpListener::bind(addr).map_err(|e| NetError::Connect {
            addr: addr.to_string(),
            source: e,
        })?;
        let local = listener.local_addr().map_err(NetError::Io)?;
        Ok((listener, local))
    }

    /// Waits up to `timeout` for the peer to connect to `listener`.
    pub fn accept(listener: &TcpListener, timeout: Duration) -> Result<TcpChannel, NetError> {
        TcpChannel::accept_within(listener, timeout, timeout)
    }

    /// Waits up to `wait` for a peer to connect to `listener`; the connection then reads and
    /// writes with `timeout`.
    pub fn accept_within(
        listener: &TcpListener,
        wait: Duration,
        timeout: Duration,
    ) -> Result<TcpChannel, NetError> {
        let stream = accept_socket(listener, wait)?;
        configure(stream, timeout).and_then(|s| TcpChannel::from_stream(s, timeout))
    }

    /// The address of the other end.
    pub fn peer_addr(&self) -> Result<SocketAddr, NetError> {
        self.write.writer.peer_addr().map_err(NetError::Io)
    }

    fn from_stream(stream: TcpStream, timeout: Duration) -> Result<TcpChannel, NetError> {
        let reader = BufReader::with_capacity(RECV_BUFFER, stream.try_clone().map_err(NetError::Io)?);
        Ok(TcpChannel {
            read: TcpReader {
                reader,
                received: 0,
                timing: Timing::new(timeout),
            },
            write: TcpWriter {
                writer: stream,
                pending: Vec::with_capacity(SEND_BUFFER),
                sent: 0,
                timing: Timing::new(timeout),
                failed: None,
                acks: Acks::new(timeout),
            },
        })
    }

    /// Ends every later read or write with [`NetError::Deadline`] once `total` has passed
    /// from now, however the peer paces its bytes (the per-call timeout alone bounds only
    /// silence).
    pub fn set_deadline(&mut self, total: Duration) {
        let at = Instant::now() + total;
        self.read.timing.set_deadline_at(at, total);
        self.write.timing.set_deadline_at(at, total);
    }

    /// The read and the write half, to use from two threads (what is buffered stays with
    /// the write half).
    pub fn split(self) -> (TcpReader, TcpWriter) {
        (self.read, self.write)
    }

    /// The socket itself (a new handle to it), to run TLS over; only for a channel that
    /// has buffered nothing either way, which the caller checks.
    pub(crate) fn socket(&self) -> Result<TcpStream, NetError> {
        self.write.writer.try_clone().map_err(NetError::Io)
    }

    /// Whether nothing is buffered in either direction (so the socket may change hands).
    pub(crate) fn is_idle(&self) -> bool {
        self.write.pending.is_empty() && self.read.reader.buffer().is_empty()
    }
}

/// A read and a write half over `stream` (configured already), each with `timeout`: what
/// a TLS link moves its ciphertext with.
pub(crate) fn halves(stream: TcpStream, timeout: Duration) -> Result<(TcpReader, TcpWriter), NetError> {
    TcpChannel::from_stream(stream, timeout).map(TcpChannel::split)
}

impl TcpReader {
    /// Reads `buf` whole, one system call at a time, so the deadline is checked between
    /// the pieces a slow peer sends.
    pub fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        let mut filled = 0;
        while filled < buf.len() {
            // The reader and the writer are one socket: its timeouts are set for both.
            self.timing.before_io(self.reader.get_ref())?;
            match self.reader.read(&mut buf[filled..]) {
                Ok(0) => return Err(NetError::Disconnected),
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.timing.recv_error(e)),
            }
        }
        self.received += buf.len() as u64;
        Ok(())
    }

    pub fn bytes_received(&self) -> u64 {
        self.received
    }

    /// One read of at most `buf.len()` bytes (at least one unless the stream ended: 0),
    /// with the timeout, deadline and phase of [`TcpReader::recv`].
    pub(crate) fn read_some(&mut self, buf: &mut [u8]) -> Result<usize, NetError> {
        loop {
            self.timing.before_io(self.reader.get_ref())?;
            match self.reader.read(buf) {
                Ok(n) => {
                    self.received += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.timing.recv_error(e)),
            }
        }
    }

    /// Names the phase of the next reads (for the message when the peer stalls).
    pub fn set_phase(&mut self, phase: &'static str) {
        self.timing.set_phase(phase);
    }

    /// The timeout of every single read.
    pub fn timeout(&self) -> Duration {
        self.timing.timeout()
    }

    /// Shuts the socket down both ways, so that a write blocked on it in another thread
    /// (a writer thread stuck on a stopped peer) returns at once.
    pub(crate) fn shutdown(&self) {
        let _ = self.reader.get_ref().shutdown(std::net::Shutdown::Both);
    }

    /// Gives the next reads another timeout (the socket's write timeout is left alone).
    pub fn set_timeout(&mut self, timeout: Duration) -> Result<(), NetError> {
        let timeout = timeout.max(Duration::from_millis(1));
        self.reader
            .get_ref()
            .set_read_timeout(Some(timeout))
            .map_err(NetError::Io)?;
        self.timing.set_timeout(timeout);
        Ok(())
    }
}

impl TcpWriter {
    /// Buffers `data`; a buffer that would overflow goes out first, and a piece at least as
    /// large as the buffer is written straight through.
    pub fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        self.writing(|w| {
            if w.pending.len() + data.len() > SEND_BUFFER {
                w.write_pending()?;
            }
            if data.len() >= SEND_BUFFER {
                w.write_out(data)
            } else {
                w.pending.extend_from_slice(data);
                Ok(())
            }
        })?;
        self.sent += data.len() as u64;
        Ok(())
    }

    /// Writes out everything buffered.
    pub fn flush(&mut self) -> Result<(), NetError> {
        self.writing(TcpWriter::write_pending)
    }

    /// Writes `data` now, after anything buffered, without copying it into the buffer.
    pub fn write_through(&mut self, data: &[u8]) -> Result<(), NetError> {
        self.writing(|w| {
            w.write_pending()?;
            w.write_out(data)
        })?;
        self.sent += data.len() as u64;
        Ok(())
    }

    pub fn bytes_sent(&self) -> u64 {
        self.sent
    }

    /// Names the phase of the next writes (for the message when the peer stops reading).
    pub fn set_phase(&mut self, phase: &'static str) {
        self.timing.set_phase(phase);
    }

    /// The phase the next writes belong to.
    pub fn phase(&self) -> &'static str {
        self.timing.phase()
    }

    /// The timeout of every single write.
    pub fn timeout(&self) -> Duration {
        self.timing.timeout()
    }

    /// The peer has failed (a read from it timed out, hit the deadline or found the stream
    /// closed): from now on every write, and the flush on drop, waits at most
    /// [`ABORT_LINGER`] for the peer to take bytes.
    pub fn after_peer_failed(&mut self) {
        let linger = ABORT_LINGER.min(self.timing.timeout());
        if self.writer.set_write_timeout(Some(linger)).is_ok() {
            self.timing.set_timeout(linger);
            self.acks.write_timeout = linger;
        }
    }

    /// Ends the sending direction (the peer reads the end of the stream), after what is
    /// buffered (best effort).
    pub fn finish(&mut self) {
        let _ = self.flush();
        let _ = self.writer.shutdown(std::net::Shutdown::Write);
    }

    fn write_pending(&mut self) -> Result<(), NetError> {
        let pending = std::mem::take(&mut self.pending);
        let written = self.write_out(&pending);
        self.pending = pending;
        self.pending.clear();
        written
    }

    /// Writes `data` to the socket whole, a [`WRITE_PIECE`] at a time; when the peer has
    /// taken no byte for a whole timeout (counted from its last acknowledgement, see
    /// [`Acks`]) while a piece waits, it ends with [`NetError::PeerNotReading`].
    fn write_out(&mut self, mut data: &[u8]) -> Result<(), NetError> {
        while !data.is_empty() {
            self.timing.before_io(&self.writer)?;
            self.fit_write_timeout()?;
            let piece = &data[..data.len().min(WRITE_PIECE)];
            let began = Instant::now();
            match self.writer.write(piece) {
                Ok(0) => return Err(NetError::Disconnected),
                // Short after a wait: the call's timeout expired with the peer's window
                // closed; a stall if the peer took nothing for a whole timeout meanwhile.
                // (Short at once: a reset or a signal, which the next call reports.)
                Ok(n) if n < piece.len() && began.elapsed() >= self.acks.write_timeout / 2 => {
                    if self.peer_took_nothing() {
                        return Err(self.timing.stalled());
                    }
                    data = &data[n..];
                }
                Ok(n) => data = &data[n..],
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock && !self.peer_took_nothing() => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.timing.send_error(e)),
            }
        }
        Ok(())
    }

    /// After a write call's wait ran out: whether the peer took no byte for a whole timeout
    /// (without `TCP_INFO`: the call's wait, a whole timeout, says so).
    fn peer_took_nothing(&mut self) -> bool {
        self.acks
            .look(&self.writer)
            .is_none_or(|silent| silent >= self.timing.timeout)
    }

    /// Sets the socket's write timeout to what is left of the timeout since the peer last
    /// took bytes, and at most [`LOOK_EVERY`] where the acknowledgements can be seen (at
    /// least 1 ms, at most what [`Timing::before_io`] left before the deadline), so a write
    /// waits no longer than the peer's silence allows.
    fn fit_write_timeout(&mut self) -> Result<(), NetError> {
        let mut wait = match self.acks.look(&self.writer) {
            Some(silent) => self.timing.timeout.saturating_sub(silent).min(LOOK_EVERY),
            None => self.timing.timeout,
        };
        if let Some(d) = self.timing.deadline {
            wait = wait.min(d.at.saturating_duration_since(Instant::now()));
        }
        let wait = wait.max(Duration::from_millis(1));
        if wait != self.acks.write_timeout {
            self.writer.set_write_timeout(Some(wait)).map_err(NetError::Io)?;
            self.acks.write_timeout = wait;
        }
        Ok(())
    }

    /// Runs `write` unless an earlier write failed; a failure spends the connection.
    fn writing(&mut self, write: impl FnOnce(&mut Self) -> Result<(), NetError>) -> Result<(), NetError> {
        if let Some(e) = &self.failed {
            return Err(spent(e));
        }
        write(self).inspect_err(|e| {
            self.pending = Vec::new();
            self.failed = Some(spent(e));
        })
    }
}

/// The error every write repeats once the connection is spent by `e`.
pub(crate) fn spent(e: &NetError) -> NetError {
    match e {
        NetError::PeerNotReading { waited, phase } => NetError::PeerNotReading {
            waited: *waited,
            phase,
        },
        NetError::PeerSilent { waited, phase } => NetError::PeerSilent {
            waited: *waited,
            phase,
        },
        NetError::Timeout(t) => NetError::Timeout(*t),
        NetError::Deadline(t) => NetError::Deadline(*t),
        _ => NetError::Disconnected,
    }
}

impl Drop for TcpWriter {
    /// Sends what is still buffered (best effort, bounded by the timeout), unless a write
    /// already failed.
    fn drop(&mut self) {
        if self.failed.is_none() && !self.pending.is_empty() {
            let pending = std::mem::take(&mut self.pending);
            let _ = self.write_out(&pending);
        }
    }
}

/// Connects to `addr`, retrying for up to `retry` while the peer starts; the socket as
/// [`configure`] leaves it.
pub(crate) fn connect_socket(addr: &str, timeout: Duration, retry: Duration) -> Result<TcpStream, NetError> {
    let deadline = Instant::now() + retry;
    let target = resolve(addr).map_err(|source| NetError::Connect {
        addr: addr.to_string(),
        source,
    })?;
    loop {
        let err = match TcpStream::connect_timeout(&target, timeout) {
            Ok(stream) => return configure(stream, timeout),
            Err(e) => e,
        };
        if Instant::now() >= deadline {
            return Err(NetError::Connect {
                addr: addr.to_string(),
                source: err,
            });
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits up to `timeout` for a peer to connect to `listener`; the socket as [`configure`]
/// leaves it.
///
/// std has no accept with a timeout, so this polls a non-blocking listener. The pause
/// between polls starts at 50 µs and doubles up to 5 ms: a peer that connects right away
/// (the usual case) is accepted within a fraction of a millisecond, which matters for
/// latency figures, while a long wait costs next to no CPU.
pub(crate) fn accept_socket(listener: &TcpListener, timeout: Duration) -> Result<TcpStream, NetError> {
    listener.set_nonblocking(true).map_err(NetError::Io)?;
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_micros(50);
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).map_err(NetError::Io)?;
                return configure(stream, timeout);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    return Err(NetError::Timeout(timeout));
                }
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(1));
            }
            Err(e) => return Err(NetError::Io(e)),
        }
    }
}

/// `TCP_NODELAY`, and the read and write timeout that turns a silent peer into an error
/// instead of a hang.
fn configure(stream: TcpStream, timeout: Duration) -> Result<TcpStream, NetError> {
    stream.set_nodelay(true).map_err(NetError::Io)?;
    stream.set_read_timeout(Some(timeout)).map_err(NetError::Io)?;
    stream.set_write_timeout(Some(timeout)).map_err(NetError::Io)?;
    Ok(stream)
}

fn resolve(addr: &str) -> std::io::Result<SocketAddr> {
    addr.to_socket_addrs()?
        .next()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "address resolves to nothing"))
}

impl Channel for TcpChannel {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        self.write.send(data)
    }

    /// A failed read makes every later write best effort ([`TcpWriter::after_peer_failed`]).
    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        let received = self.read.recv(buf);
        if received.is_err() {
            self.write.after_peer_failed();
        }
        received
    }

    fn flush(&mut self) -> Result<(), NetError> {
        self.write.flush()
    }

    fn bytes_sent(&self) -> u64 {
        self.write.bytes_sent()
    }

    fn bytes_received(&self) -> u64 {
        self.read.bytes_received()
    }

    fn set_phase(&mut self, phase: &'static str) {
        self.read.set_phase(phase);
        self.write.set_phase(phase);
    }

    fn read_timeout(&self) -> Option<Duration> {
        Some(self.read.timeout())
    }

    /// A socket that refuses the new timeout keeps the old one.
    fn set_read_timeout(&mut self, timeout: Duration) {
        let _ = self.read.set_timeout(timeout);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_round_trip_and_disconnect() {
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        let t = std::thread::spawn(move || {
            let mut c = TcpChannel::connect(&addr.to_string(), Duration::from_secs(5)).unwrap();
            c.send(b"hello").unwrap();
            c.flush().unwrap();
        });
        let mut s = TcpChannel::accept(&listener, Duration::from_secs(5)).unwrap();
        let mut buf = [0u8; 5];
        s.recv(&mut buf).unwrap();
        assert_eq!(&buf, b"hello");
        t.join().unwrap();
        assert!(matches!(s.recv(&mut buf), Err(NetError::Disconnected)));
    }

    /// A peer that connects while the listener waits is accepted at once, not after a
    /// polling period (that delay showed up in every latency figure).
    #[test]
    fn accept_is_prompt() {
        // The best of three tries, so that one scheduler stall on a loaded machine does
        // not fail it; a polling accept would be late every time.
        let best = (0..3)
            .map(|_| {
                let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
                let t = std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(30));
                    let connected = Instant::now();
                    let c = TcpChannel::connect(&addr.to_string(), Duration::from_secs(5)).unwrap();
                    (connected, c)
                });
                let _s = TcpChannel::accept(&listener, Duration::from_secs(5)).unwrap();
                let accepted = Instant::now();
                let (connected, _c) = t.join().unwrap();
                accepted.saturating_duration_since(connected)
            })
            .min()
            .unwrap();
        assert!(
            best < Duration::from_millis(20),
            "accepted {best:?} after the connect"
        );
    }

    #[test]
    fn silent_peer_times_out() {
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        let _c = TcpChannel::connect(&addr.to_string(), Duration::from_secs(5)).unwrap();
        let mut s = TcpChannel::accept(&listener, Duration::from_millis(100)).unwrap();
        assert!(matches!(s.recv(&mut [0u8; 1]), Err(NetError::PeerSilent { .. })));
    }

    #[test]
    fn connect_to_nothing_fails_with_the_address() {
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        drop(listener);
        // A closed port: it retries for the whole window (shortened here; `mixgc`'s tests
        // time the full CONNECT_RETRY), then the error names the address.
        let retry = Duration::from_millis(300);
        let start = Instant::now();
        let e = TcpChannel::connect_retrying(&addr.to_string(), Duration::from_millis(100), retry)
            .err()
            .unwrap();
        assert!(e.to_string().contains(&addr.to_string()), "{e}");
        assert!(start.elapsed() >= retry);
    }

    #[test]
    fn a_name_that_does_not_resolve_fails_at_once() {
        let start = Instant::now();
        for addr in ["no-such-host.invalid:7000", "127.0.0.1", "localhost:notaport"] {
            let e = TcpChannel::connect(addr, Duration::from_secs(1)).err().unwrap();
            assert!(e.to_string().contains(addr), "{e}");
        }
        assert!(
            start.elapsed() < CONNECT_RETRY,
            "no retries for a name that cannot resolve"
        );
    }

    /// A peer that stops reading stalls the sends one timeout after the last byte moved (not
    /// one per system call, nor again for the buffered rest), the message says so and
    /// names the phase, and the spent connection fails later writes at once.
    #[test]
    fn a_peer_that_stops_reading_stalls_the_sends_once() {
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        let _reader = TcpChannel::connect(&addr.to_string(), Duration::from_secs(5)).unwrap();
        let timeout = Duration::from_millis(300);
        let mut s = TcpChannel::accept(&listener, timeout).unwrap();
        s.set_phase("the garbled tables");
        let start = Instant::now();
        let e = (0..1024)
            .find_map(|_| s.send(&[7u8; 1 << 20]).err())
            .expect("a gigabyte never read cannot all be sent");
        let took = start.elapsed();
        assert!(matches!(e, NetError::PeerNotReading { .. }), "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains("the peer stopped reading") && msg.contains("during the garbled tables"),
            "{msg}"
        );
        assert!(took < 3 * timeout, "{took:?}");
        let again = Instant::now();
        assert!(matches!(s.flush(), Err(NetError::PeerNotReading { .. })));
        assert!(matches!(s.send(&[1]), Err(NetError::PeerNotReading { .. })));
        drop(s);
        assert!(again.elapsed() < timeout / 2, "a spent connection waits no more");
    }

    /// Once a read from the peer has failed, a write into its full socket (an abort frame,
    /// the rest flushed on drop) waits [`ABORT_LINGER`], not another whole timeout.
    #[test]
    fn after_a_failed_read_writes_wait_only_the_linger() {
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        // Never reads nor writes: a stopped peer.
        let _stopped = TcpChannel::connect(&addr.to_string(), Duration::from_secs(5)).unwrap();
        let timeout = Duration::from_secs(3);
        let mut s = TcpChannel::accept(&listener, timeout).unwrap();
        s.read.set_timeout(Duration::from_millis(100)).unwrap();
        assert!(matches!(s.recv(&mut [0u8; 1]), Err(NetError::PeerSilent { .. })));
        let start = Instant::now();
        let e = (0..256).find_map(|_| s.send(&[7u8; 1 << 20]).err());
        assert!(e.is_some(), "256 MiB never read cannot all be sent");
        drop(s);
        let took = start.elapsed();
        assert!(took < timeout / 2, "{took:?}");
    }

    /// A silent peer's timeout names the phase and that the peer stopped sending.
    #[test]
    fn a_silent_peer_is_named_with_the_phase() {
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        let _c = TcpChannel::connect(&addr.to_string(), Duration::from_secs(5)).unwrap();
        let mut s = TcpChannel::accept(&listener, Duration::from_millis(100)).unwrap();
        s.set_phase("the outputs");
        let e = s.recv(&mut [0u8; 1]).unwrap_err().to_string();
        assert!(
            e.contains("the peer stopped sending") && e.contains("during the outputs"),
            "{e}"
        );
    }

    /// A peer that sends a byte every 50 ms is never silent for the 1 s timeout, so only the
    /// deadline ends a read it drips into; it ends it on time, and says so.
    #[test]
    fn a_dripping_peer_is_stopped_by_the_deadline() {
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        let drip = std::thread::spawn(move || {
            let mut c = TcpChannel::connect(&addr.to_string(), Duration::from_secs(5)).unwrap();
            for _ in 0..40 {
                if c.send(&[0]).and_then(|()| c.flush()).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        let mut s = TcpChannel::accept(&listener, Duration::from_secs(1)).unwrap();
        let start = Instant::now();
        s.set_deadline(Duration::from_millis(400));
        let mut buf = [0u8; 1000];
        let e = s.recv(&mut buf).unwrap_err();
        let took = start.elapsed();
        assert!(matches!(e, NetError::Deadline(_)), "{e}");
        assert!(e.to_string().contains("deadline"), "{e}");
        assert!(
            took >= Duration::from_millis(400) && took < Duration::from_millis(1500),
            "{took:?}"
        );
        drop(s);
        drip.join().unwrap();
    }
}
