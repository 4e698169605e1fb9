//! The figures one party of an n-party run reports (`mixgc party --report FILE`), which
//! `mixgc bench --parties N` collects from its child processes.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PartyFigures {
    pub id: usize,
    pub parties: usize,
    pub protocol: String,
    pub ands: u64,
    /// Base OTs, correlations and joint garbling, in seconds.
    pub offline_s: f64,
    /// From the inputs to the outputs, in seconds.
    pub online_s: f64,
    pub online_rounds: u64,
    /// When the process started and when it had its outputs (seconds since the Unix epoch),
    /// so a bench can time from the last process's start to the last output.
    pub started_unix_s: f64,
    pub finished_unix_s: f64,
    /// `[sent, received]` bytes per party at the end of the run (zeros at this party's id).
    pub bytes: Vec<[u64; 2]>,
    /// The same counters at the end of the setup (mesh handshake and base OTs).
    pub setup_bytes: Vec<[u64; 2]>,
    /// Peak resident set of the process (VmHWM), KiB; 0 where unavailable.
    pub peak_rss_kib: u64,
}

/// Peak resident set of this process (VmHWM), in KiB; 0 where /proc is unavailable.
pub fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}
