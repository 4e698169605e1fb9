//! Human-readable figures.

use mixgc_session::PartyReport;
pub use mixgc_studies::common::{bytes, thousands};

pub fn rate(per_second: f64) -> String {
    match per_second {
        r if r >= 1e9 => format!("{:.2} G", r / 1e9),
        r if r >= 1e6 => format!("{:.1} M", r / 1e6),
        r if r >= 1e3 => format!("{:.1} k", r / 1e3),
        r => format!("{r:.0} "),
    }
}

/// The one-line stderr summary of a run.
pub fn line(r: &PartyReport) -> String {
    let secs = r.elapsed.as_secs_f64();
    format!(
        "{}: {} ANDs, sent {}, received {}, {:.2} ms (base OT {:.2} ms), {}AND/s",
        r.role,
        thousands(r.ands),
        bytes(r.bytes_sent),
        bytes(r.bytes_received),
        secs * 1e3,
        r.base_ot.as_secs_f64() * 1e3,
        rate(r.ands as f64 / secs.max(1e-9)),
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats() {
        assert_eq!(super::bytes(1023), "1023 B");
        assert_eq!(super::bytes(215 * 1024), "215.0 KiB");
    }
}
