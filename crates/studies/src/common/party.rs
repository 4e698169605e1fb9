//! The flags of the commands that talk to a peer, and opening the connection: TLS 1.3 when
//! this party has a certificate, plain TCP only on loopback or when explicitly allowed.

use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use clap::builder::{EnumValueParser, TypedValueParser};
use clap::{Args, ValueEnum};
use mixgc_core::HashKind;
use mixgc_net::{
    parse_fingerprint, Identity, NetError, PeerChannel, PeerCheck, TcpChannel, TlsChannel, TlsConfig,
};
use mixgc_session::{
    PartyId, Scheme, SessionConfig, Terms, FIRST_FRAME_BYTES, MAX_TABLE_FRAME_BYTES, MAX_THREADS,
};

use super::CliError;

/// The names `--role` accepts.
#[derive(Clone, Copy, ValueEnum)]
enum RoleName {
    Garbler,
    Evaluator,
}

/// Parses `--role garbler|evaluator` into the party.
pub fn role_parser() -> impl TypedValueParser<Value = PartyId> {
    EnumValueParser::<RoleName>::new().map(|name| match name {
        RoleName::Garbler => PartyId::GARBLER,
        RoleName::Evaluator => PartyId::EVALUATOR,
    })
}

/// How a party reaches its peer and what session settings it uses.
#[derive(Args, Clone, Debug)]
#[group(id = "endpoint", required = true, multiple = false)]
pub struct Connection {
    /// Wait for the peer on ADDR (e.g. 0.0.0.0:7000 with TLS, 127.0.0.1:7000 for plain TCP;
    /// port 0 picks a free port, printed as `listening on ADDR` on the first stderr line).
    #[arg(long, value_name = "ADDR", group = "endpoint")]
    pub listen: Option<String>,
    /// Connect to the peer at ADDR, retrying for up to 10 s while it starts.
    #[arg(long, value_name = "ADDR", group = "endpoint")]
    pub connect: Option<String>,
    #[command(flatten)]
    pub security: Security,
    /// Leave out the note that a loopback connection is plain TCP (`--quiet`).
    #[arg(skip)]
    pub quiet: bool,
}

/// How the connection to the peer is secured: TLS 1.3 with mutual authentication when this
/// party has a certificate; otherwise plain TCP, allowed only on loopback or with
/// `--insecure-plaintext`.
#[derive(Args, Clone, Debug, Default)]
pub struct Security {
    /// This party's certificate (PEM, e.g. from `mixgc keygen`): the connection is TLS 1.3,
    /// each party authenticated by its certificate. Needs --key and --peer-fingerprint or
    /// --peer-ca.
    #[arg(long, value_name = "FILE", requires = "key", requires = "peer_check")]
    pub cert: Option<PathBuf>,
    /// The private key of --cert (PEM).
    #[arg(long, value_name = "FILE", requires = "cert")]
    pub key: Option<PathBuf>,
    /// Accept only the peer certificate with this SHA-256 fingerprint (64 hex digits, as
    /// `mixgc keygen` prints it on the peer's side).
    #[arg(long, value_name = "HEX", group = "peer_check", requires = "cert", value_parser = parse_fingerprint)]
    pub peer_fingerprint: Option<[u8; 32]>,
    /// Accept a peer certificate signed by this CA certificate (PEM, e.g. `ca.pem` from
    /// `mixgc keygen --ca`); a listener's certificate must also name the host given to
    /// --connect.
    #[arg(long, value_name = "FILE", group = "peer_check", requires = "cert")]
    pub peer_ca: Option<PathBuf>,
    /// Allow plain TCP to or on a non-loopback address: neither encrypted nor authenticated,
    /// so anyone on the path reads the outputs and can take the peer's place.
    #[arg(long, conflicts_with = "cert")]
    pub insecure_plaintext: bool,
}

impl Security {
    /// The TLS settings, or `None` for plain TCP.
    fn tls(&self) -> Result<Option<TlsConfig>, CliError> {
        let (Some(cert), Some(key)) = (&self.cert, &self.key) else {
            return Ok(None);
        };
        let me = Identity::load(cert, key).map_err(tls_setup)?;
        let peer = match (&self.peer_fingerprint, &self.peer_ca) {
            (Some(fp), _) => PeerCheck::Pinned(vec![*fp]),
            (None, Some(ca)) => PeerCheck::load_ca(ca).map_err(tls_setup)?,
            (None, None) => {
                return Err(
                    "--cert needs a check of the peer: --peer-fingerprint HEX or --peer-ca FILE".into(),
                )
            }
        };
        Ok(Some(TlsConfig::new(me, peer).map_err(tls_setup)?))
    }

    /// Refuses plain TCP on `addr` unless it is loopback or --insecure-plaintext was given.
    fn allow_plaintext(&self, addr: &str, listening: bool) -> Result<(), CliError> {
        if self.insecure_plaintext || is_loopback(addr) {
            return Ok(());
        }
        let what = if listening {
            format!("listening on {addr} with plain TCP is refused")
        } else {
            format!("plain TCP to {addr} is refused")
        };
        Err(format!(
            "{what}: it is not a loopback address. Give --cert FILE --key FILE and \
             --peer-fingerprint HEX or --peer-ca FILE for TLS (see `mixgc keygen`), or \
             --insecure-plaintext to send everything unencrypted and unauthenticated"
        )
        .into())
    }
}

/// A TLS setting that cannot be used, as the user should read it.
fn tls_setup(e: NetError) -> CliError {
    match e {
        NetError::Tls(msg) => msg.into(),
        e => e.to_string().into(),
    }
}

/// Whether every address `addr` resolves to is a loopback address. A name that does not
/// resolve counts as loopback here: connecting to it fails with its own error.
fn is_loopback(addr: &str) -> bool {
    match addr.to_socket_addrs() {
        Ok(resolved) => {
            let resolved: Vec<SocketAddr> = resolved.collect();
            resolved.iter().all(|a| a.ip().is_loopback())
        }
        Err(_) => true,
    }
}

/// Session options shared by the commands that talk to a peer.
#[derive(Args, Clone, Debug)]
pub struct SessionOptions {
    /// Seconds to wait for a silent peer before giving up (1 to 86400).
    #[arg(long, default_value_t = 30, value_name = "SECS", value_parser = parse_timeout)]
    pub timeout: u64,
    /// Gate hash: the re-keyed multi-instance hash (default, a fresh public seed per
    /// session) or fixed-key TCCR (`tccr`). Both run on the AES kernel `mixgc info --cpu` names.
    #[arg(long, default_value = "rekeyed", value_parser = parse_hash)]
    pub hash: HashKind,
    /// How AND gates are garbled: half-gates (default, 32 bytes per AND) or three-halves
    /// (about 25 bytes per AND for about twice the hashing: for links where bandwidth, not
    /// compute, is the limit), in circuits, programs run gate by gate (`example`, `lenet`,
    /// `plan`) and `preprocess` alike. Both parties must choose the same.
    #[arg(long, default_value = "half-gates", value_name = "SCHEME", value_parser = parse_garbling)]
    pub garbling: Scheme,
    /// Target size of garbled-table frames in bytes, reached after a slow start from 64 KiB
    /// (64 KiB to 16 MiB; the garbler's setting is used).
    #[arg(long, default_value_t = 1 << 20, value_name = "BYTES", value_parser = parse_batch_bytes)]
    pub batch_bytes: usize,
    /// Garble, send, receive and evaluate on one thread, without the dedicated I/O thread
    /// and its bounded queue (for comparison; the default overlaps compute and transfer).
    #[arg(long)]
    pub single_threaded: bool,
    /// Seconds the whole session may take once connected, however the peer paces its bytes
    /// (`--timeout` bounds only silence), 1 to 604800.
    #[arg(long, default_value_t = 86_400, value_name = "SECS", value_parser = parse_deadline)]
    pub deadline: u64,
    /// Threads that garble or evaluate the parallel blocks of a level-by-level stream (full
    /// or segment schedule), 1 to 64; the bytes sent are the same for every count.
    #[arg(long, default_value_t = 1, value_name = "N", value_parser = parse_threads)]
    pub threads: usize,
    /// TESTS ONLY: derive Δ, labels and OT secrets from this seed (insecure; prints a warning).
    #[arg(long, value_name = "SEED")]
    pub insecure_seed: Option<u64>,
}

/// Longest `--timeout`: one day.
pub const MAX_TIMEOUT_SECS: u64 = 86_400;

/// Parses `--timeout SECS`: whole seconds from 1 to [`MAX_TIMEOUT_SECS`].
pub fn parse_timeout(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if (1..=MAX_TIMEOUT_SECS).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected whole seconds from 1 to {MAX_TIMEOUT_SECS}, got '{s}'"
        )),
    }
}

fn parse_hash(s: &str) -> Result<HashKind, String> {
    s.parse()
}

/// Parses `--garbling`: `half-gates` or `three-halves`.
pub fn parse_garbling(s: &str) -> Result<Scheme, String> {
    [Scheme::HalfGates, Scheme::ThreeHalves]
        .into_iter()
        .find(|g| g.name() == s)
        .ok_or_else(|| format!("expected half-gates or three-halves, got '{s}'"))
}

/// Longest `--deadline`: a week.
pub const MAX_DEADLINE_SECS: u64 = 604_800;

/// Parses `--deadline SECS`: whole seconds from 1 to [`MAX_DEADLINE_SECS`].
pub fn parse_deadline(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if (1..=MAX_DEADLINE_SECS).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected whole seconds from 1 to {MAX_DEADLINE_SECS}, got '{s}'"
        )),
    }
}

/// Parses `--batch-bytes`, checked before any connection (the garbler's session would
/// refuse it only after the peer had connected).
fn parse_batch_bytes(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (FIRST_FRAME_BYTES..=MAX_TABLE_FRAME_BYTES).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a frame size from {FIRST_FRAME_BYTES} (64 KiB) to {MAX_TABLE_FRAME_BYTES} (16 MiB) bytes, got '{s}'"
        )),
    }
}

fn parse_threads(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_THREADS).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a number of threads from 1 to {MAX_THREADS}, got '{s}'"
        )),
    }
}

impl SessionOptions {
    pub fn config(&self) -> SessionConfig {
        if self.insecure_seed.is_some() {
            eprintln!(
                "WARNING: --insecure-seed makes Δ, labels and OT secrets predictable; use it only for tests"
            );
        }
        SessionConfig {
            hash: self.hash,
            garbling: self.garbling,
            insecure_seed: self.insecure_seed,
            timeout: self.timeout(),
            batch_bytes: self.batch_bytes,
            io_thread: !self.single_threaded,
            threads: self.threads,
            ..SessionConfig::default()
        }
    }

    pub fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout)
    }

    /// Opens the connection as `conn` says, with this session's timeout and, from the
    /// moment it is connected, its overall deadline.
    pub fn open(&self, conn: &Connection) -> Result<PeerChannel, CliError> {
        open(conn, self.timeout(), Duration::from_secs(self.deadline))
    }
}

/// Opens the connection as the flags say: TLS with a certificate, otherwise plain TCP where
/// the policy allows it (a note on stderr says so, after the `listening on ADDR` line);
/// `deadline` counts from the moment it is connected.
pub fn open(conn: &Connection, timeout: Duration, deadline: Duration) -> Result<PeerChannel, CliError> {
    let tls = conn.security.tls()?;
    let endpoint = match (&conn.listen, &conn.connect) {
        (Some(addr), _) => (addr, true),
        (None, Some(addr)) => (addr, false),
        (None, None) => return Err("give --listen ADDR or --connect ADDR".into()),
    };
    if tls.is_none() {
        conn.security.allow_plaintext(endpoint.0, endpoint.1)?;
    }
    // Written without eprintln!: a caller that read only the first stderr line and closed
    // the pipe must not make this party fail.
    let plain_note = || {
        let mut err = std::io::stderr();
        let _ = if !is_loopback(endpoint.0) {
            writeln!(
                err,
                "WARNING: --insecure-plaintext: the connection is neither encrypted nor authenticated; anyone on the path reads the outputs"
            )
        } else if !conn.quiet {
            writeln!(
                err,
                "note: plain TCP on loopback, unencrypted and unauthenticated (--cert, --key and --peer-fingerprint or --peer-ca for TLS)"
            )
        } else {
            Ok(())
        };
    };
    match endpoint {
        (addr, true) => {
            // NetError::Connect reads "could not reach the peer", wrong for a bind.
            let (listener, local) = TcpChannel::bind(addr).map_err(|e| match e {
                NetError::Connect { source, .. } => format!("cannot listen on {addr}: {source}"),
                e => format!("cannot listen on {addr}: {e}"),
            })?;
            eprintln!("listening on {local}");
            let no_peer = |e| -> CliError {
                match e {
                    // NetError::Timeout reads "the peer sent nothing": no peer is there yet.
                    NetError::Timeout(t) => {
                        format!("no peer connected within {} (timeout)", mixgc_net::seconds(t))
                    }
                    NetError::Tls(msg) => format!("TLS with the peer failed: {msg}"),
                    e => format!("no peer connected: {e}"),
                }
                .into()
            };
            match &tls {
                Some(config) => {
                    let mut ch = TlsChannel::accept(&listener, timeout, config).map_err(no_peer)?;
                    ch.set_deadline(deadline);
                    Ok(PeerChannel::tls(ch)?)
                }
                None => {
                    plain_note();
                    let mut ch = TcpChannel::accept(&listener, timeout).map_err(no_peer)?;
                    ch.set_deadline(deadline);
                    Ok(PeerChannel::tcp(ch)?)
                }
            }
        }
        (addr, false) => match &tls {
            Some(config) => {
                let mut ch = TlsChannel::connect(addr, timeout, config).map_err(|e| match e {
                    NetError::Tls(msg) => {
                        CliError::from(format!("TLS with the peer at {addr} failed: {msg}"))
                    }
                    e => e.into(),
                })?;
                ch.set_deadline(deadline);
                Ok(PeerChannel::tls(ch)?)
            }
            None => {
                plain_note();
                let mut ch = TcpChannel::connect(addr, timeout)?;
                ch.set_deadline(deadline);
                Ok(PeerChannel::tcp(ch)?)
            }
        },
    }
}

/// The input values `role` owns under `terms`.
pub fn owned_values(role: PartyId, terms: &Terms, widths: &[u32]) -> Result<Vec<usize>, CliError> {
    let (g, e) = terms.owners(widths)?;
    Ok(if role == PartyId::GARBLER { g } else { e })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_are_whole_seconds_from_one_second_to_a_day() {
        assert_eq!(parse_timeout("1"), Ok(1));
        assert_eq!(parse_timeout("86400"), Ok(86_400));
        for bad in [
            "0",
            "86401",
            "18446744073709551615",
            "18446744073709551616",
            "-1",
            "1.5",
            "soon",
            "",
        ] {
            let e = parse_timeout(bad).unwrap_err();
            assert!(e.contains("from 1 to 86400"), "{bad}: {e}");
        }
    }
}
