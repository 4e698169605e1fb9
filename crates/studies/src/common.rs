//! Command-line plumbing shared by the studies and the `mixgc` binary: errors, stdout,
//! the peer flags and connection, library ops between two parties, figures, and the
//! `--progress`/`--quiet` feedback on stderr.

mod feedback;
mod figures;
mod library;
mod malicious;
mod party;

use std::io::Write;

pub use feedback::{Feedback, ProgressMode};
pub use figures::{peak_rss_kib, unix_now, PartyFigures};
pub use library::{random_values, LibraryRun};
pub use malicious::{agree_on_name, MaliciousSession, ModelOptions, SecurityModel};
pub use party::{
    open, owned_values, parse_deadline, parse_garbling, parse_timeout, role_parser, Connection, Security,
    SessionOptions, MAX_DEADLINE_SECS, MAX_TIMEOUT_SECS,
};

/// An error a command reports to the user (one line, no backtrace).
pub type CliError = Box<dyn std::error::Error + Send + Sync>;

/// Writes `text` to stdout and flushes it. A closed stdout (e.g. `| head`) is an error,
/// not the panic `println!` would give.
pub fn write_stdout(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write to stdout: {e}").into())
}

/// A byte count in B, KiB, MiB or GiB.
pub fn bytes(n: u64) -> String {
    match n {
        n if n >= 10 << 30 => format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64),
        n if n >= 10 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 10 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

/// `1234567` → `1,234,567`.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn thousands() {
        assert_eq!(super::thousands(6400), "6,400");
        assert_eq!(super::thousands(12), "12");
        assert_eq!(super::thousands(1_000_000), "1,000,000");
    }
}
