//! The flags of the commands that talk to a peer, and opening the TCP connection.

use std::time::Duration;

use clap::builder::{EnumValueParser, TypedValueParser};
use clap::{Args, ValueEnum};
use mixgc_core::HashKind;
use mixgc_net::{NetError, TcpChannel};
use mixgc_session::{PartyId, SessionConfig, Terms, FIRST_FRAME_BYTES, MAX_TABLE_FRAME_BYTES, MAX_THREADS};

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
    /// Wait for the peer on ADDR (e.g. 0.0.0.0:7000; port 0 picks a free port, printed
    /// as `listening on ADDR` on the first stderr line).
    #[arg(long, value_name = "ADDR", group = "endpoint")]
    pub listen: Option<String>,
    /// Connect to the peer at ADDR, retrying for up to 10 s while it starts.
    #[arg(long, value_name = "ADDR", group = "endpoint")]
    pub connect: Option<String>,
}

/// Session options shared by the commands that talk to a peer.
#[derive(Args, Clone, Debug)]
pub struct SessionOptions {
    /// Seconds to wait for a silent peer before giving up (1 to 86400).
    #[arg(long, default_value_t = 30, value_name = "SECS", value_parser = parse_timeout)]
    pub timeout: u64,
    /// Gate hash: fixed-key TCCR (default) or the re-keyed multi-instance hash.
    #[arg(long, default_value = "tccr", value_parser = parse_hash)]
    pub hash: HashKind,
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

    /// Opens the TCP connection as `conn` says, with this session's timeout and, from the
    /// moment it is connected, its overall deadline.
    pub fn open(&self, conn: &Connection) -> Result<TcpChannel, CliError> {
        let mut ch = open(conn, self.timeout())?;
        ch.set_deadline(Duration::from_secs(self.deadline));
        Ok(ch)
    }
}

/// Opens the TCP connection as the flags say.
pub fn open(conn: &Connection, timeout: Duration) -> Result<TcpChannel, CliError> {
    match (&conn.listen, &conn.connect) {
        (Some(addr), _) => {
            // NetError::Connect reads "could not reach the peer", wrong for a bind.
            let (listener, local) = TcpChannel::bind(addr).map_err(|e| match e {
                NetError::Connect { source, .. } => format!("cannot listen on {addr}: {source}"),
                e => format!("cannot listen on {addr}: {e}"),
            })?;
            eprintln!("listening on {local}");
            TcpChannel::accept(&listener, timeout).map_err(|e| {
                match e {
                    // NetError::Timeout reads "the peer sent nothing": no peer is there yet.
                    NetError::Timeout(t) => format!("no peer connected within {t:?} (timeout)"),
                    e => format!("no peer connected: {e}"),
                }
                .into()
            })
        }
        (None, Some(addr)) => Ok(TcpChannel::connect(addr, timeout)?),
        (None, None) => Err("give --listen ADDR or --connect ADDR".into()),
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
