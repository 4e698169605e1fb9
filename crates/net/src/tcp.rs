use std::io::{BufReader, BufWriter, Read, Write};
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
/// turns a silent peer into an error instead of a hang, and an optional overall deadline
/// ([`TcpChannel::set_deadline`]) that ends a session even when a peer drips a byte at a
/// time, never silent for a whole timeout.
pub struct TcpChannel {
    reader: BufReader<TcpStream>,
    writer: BufWriter<TcpStream>,
    sent: u64,
    received: u64,
    timing: Timing,
}

/// The per-call timeout and the optional overall deadline of one socket, shared by the TCP
/// and the TLS channel.
pub(crate) struct Timing {
    timeout: Duration,
    deadline: Option<Deadline>,
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
        }
    }

    pub(crate) fn set_deadline(&mut self, total: Duration) {
        self.deadline = Some(Deadline {
            at: Instant::now() + total,
            total,
            shortened: false,
        });
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

    /// The error a user should see for `e`: past the deadline, the deadline.
    pub(crate) fn io_error(&self, e: std::io::Error) -> NetError {
        match (NetError::from_io(e, self.timeout), self.deadline) {
            (NetError::Timeout(_), Some(d)) if d.shortened && Instant::now() >= d.at => {
                NetError::Deadline(d.total)
            }
            (e, _) => e,
        }
    }
}

impl TcpChannel {
    /// Connects to `addr`, retrying for up to [`CONNECT_RETRY`] while the peer starts. A
    /// name that does not resolve fails at once: waiting does not make it appear.
    pub fn connect(addr: &str, timeout: Duration) -> Result<TcpChannel, NetError> {
        TcpChannel::connect_retrying(addr, timeout, CONNECT_RETRY)
    }

    /// [`TcpChannel::connect`], retrying for up to `retry`.
    fn connect_retrying(addr: &str, timeout: Duration, retry: Duration) -> Result<TcpChannel, NetError> {
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
        TcpChannel::from_stream(accept_socket(listener, timeout)?, timeout)
    }

    fn from_stream(stream: TcpStream, timeout: Duration) -> Result<TcpChannel, NetError> {
        let reader = BufReader::with_capacity(RECV_BUFFER, stream.try_clone().map_err(NetError::Io)?);
        let writer = BufWriter::with_capacity(SEND_BUFFER, stream);
        Ok(TcpChannel {
            reader,
            writer,
            sent: 0,
            received: 0,
            timing: Timing::new(timeout),
        })
    }

    /// Ends every later read or write with [`NetError::Deadline`] once `total` has passed
    /// from now, however the peer paces its bytes (the per-call timeout alone bounds only
    /// silence).
    pub fn set_deadline(&mut self, total: Duration) {
        self.timing.set_deadline(total);
    }

    fn before_io(&mut self) -> Result<(), NetError> {
        // The reader and the writer are one socket: its timeouts are set once for both.
        self.timing.before_io(self.writer.get_ref())
    }

    fn io_error(&self, e: std::io::Error) -> NetError {
        self.timing.io_error(e)
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
        let mut left = data;
        while !left.is_empty() {
            self.before_io()?;
            match self.writer.write(left) {
                Ok(0) => return Err(NetError::Disconnected),
                Ok(n) => left = &left[n..],
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.io_error(e)),
            }
        }
        self.sent += data.len() as u64;
        Ok(())
    }

    /// Reads `buf` whole, one system call at a time, so the deadline is checked between
    /// the pieces a slow peer sends.
    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        let mut filled = 0;
        while filled < buf.len() {
            self.before_io()?;
            match self.reader.read(&mut buf[filled..]) {
                Ok(0) => return Err(NetError::Disconnected),
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.io_error(e)),
            }
        }
        self.received += buf.len() as u64;
        Ok(())
    }

    fn flush(&mut self) -> Result<(), NetError> {
        self.before_io()?;
        self.writer.flush().map_err(|e| self.io_error(e))
    }

    fn bytes_sent(&self) -> u64 {
        self.sent
    }

    fn bytes_received(&self) -> u64 {
        self.received
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
        let delay = accepted.saturating_duration_since(connected);
        assert!(
            delay < Duration::from_millis(20),
            "accepted {delay:?} after the connect"
        );
    }

    #[test]
    fn silent_peer_times_out() {
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
        let _c = TcpChannel::connect(&addr.to_string(), Duration::from_secs(5)).unwrap();
        let mut s = TcpChannel::accept(&listener, Duration::from_millis(100)).unwrap();
        assert!(matches!(s.recv(&mut [0u8; 1]), Err(NetError::Timeout(_))));
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
            took >= Duration::from_millis(400) && took < Duration::from_millis(900),
            "{took:?}"
        );
        drop(s);
        drip.join().unwrap();
    }
}
