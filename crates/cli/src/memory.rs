//! `--memory-limit`: estimate a party's memory before it connects, refuse a run that
//! would not fit, and shrink the table frames when only they are in the way (TinyGarble2
//! §3.3.2: the user sets the batch by the memory available; MEG §III: the evaluator's
//! memory is bounded by the batch).

use clap::Args;
use mixgc_session::{PartyId, FIRST_FRAME_BYTES, QUEUE_FRAMES};

use crate::summary::bytes;
use crate::CliError;

/// The `--memory-limit` flag.
#[derive(Args, Clone, Debug)]
pub struct MemoryLimit {
    /// Refuse to run if this party's estimated memory exceeds BYTES (plain bytes, or with
    /// a suffix K, M, G = KiB, MiB, GiB); lowers --batch-bytes when only the frame
    /// buffers are in the way. The estimate is explained below.
    #[arg(long = "memory-limit", value_name = "BYTES", value_parser = parse_bytes)]
    pub limit: Option<u64>,
}

/// Parses `1048576`, `64KiB`, `16M`, `2G`, `1.5GiB` (suffixes are powers of 1024).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let bad = || format!("'{s}' is not a size: give bytes like 1048576, 64KiB or 16M");
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (number, suffix) = t.split_at(split);
    let scale: u64 = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        _ => return Err(bad()),
    };
    if let Ok(n) = number.parse::<u64>() {
        return n.checked_mul(scale).ok_or_else(bad);
    }
    match number.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 && x * (scale as f64) < u64::MAX as f64 => {
            Ok((x * scale as f64) as u64)
        }
        _ => Err(bad()),
    }
}

/// Table-frame buffers a session holds at once: the queue, the frame being filled and the
/// frame on the wire with the I/O thread; one without it.
pub fn session_frame_buffers(io_thread: bool) -> u64 {
    if io_thread {
        QUEUE_FRAMES as u64 + 2
    } else {
        1
    }
}

/// One party's memory, by part, before it runs.
pub struct Estimate {
    parts: Vec<(&'static str, u64)>,
    /// Table-frame buffers alive at once, each up to --batch-bytes.
    frame_buffers: u64,
}

impl Estimate {
    pub fn new(frame_buffers: u64) -> Estimate {
        Estimate {
            parts: Vec::new(),
            frame_buffers,
        }
    }

    /// Adds `bytes` held for `what`.
    pub fn with(mut self, what: &'static str, bytes: u64) -> Estimate {
        self.parts.push((what, bytes));
        self
    }

    /// Everything but the frame buffers.
    fn fixed(&self) -> u64 {
        self.parts.iter().map(|p| p.1).sum()
    }

    pub fn total(&self, batch_bytes: usize) -> u64 {
        self.fixed() + self.frame_buffers * batch_bytes as u64
    }

    fn breakdown(&self, batch_bytes: usize) -> String {
        let mut parts: Vec<String> = self
            .parts
            .iter()
            .map(|(what, n)| format!("{what} {}", bytes(*n)))
            .collect();
        parts.push(format!(
            "frame buffers {} × {}",
            self.frame_buffers,
            bytes(batch_bytes as u64)
        ));
        parts.join(" + ")
    }
}

/// What fits: the batch size to use, and a note for stderr when it was lowered.
#[derive(Debug)]
pub struct Fit {
    pub batch_bytes: usize,
    pub note: Option<String>,
}

impl MemoryLimit {
    /// Checks `est` against the limit. `advice` says what to do when even the smallest
    /// frames do not fit.
    pub fn fit(
        &self,
        est: &Estimate,
        batch_bytes: usize,
        role: PartyId,
        advice: &str,
    ) -> Result<Fit, CliError> {
        let unchanged = Fit {
            batch_bytes,
            note: None,
        };
        let Some(limit) = self.limit else {
            return Ok(unchanged);
        };
        let total = est.total(batch_bytes);
        if total <= limit {
            return Ok(unchanged);
        }
        let smallest = FIRST_FRAME_BYTES.min(batch_bytes);
        if est.total(smallest) > limit {
            return Err(format!(
                "the {role} needs about {} ({}), more than --memory-limit {}; {advice}",
                bytes(total),
                est.breakdown(batch_bytes),
                bytes(limit)
            )
            .into());
        }
        // Whole KiB, at least the first frame's size.
        let room = (limit - est.fixed()) / est.frame_buffers.max(1);
        let lowered = ((room as usize) & !1023).max(smallest);
        let garbler_note = if role == PartyId::GARBLER {
            String::new()
        } else {
            format!("; frames are sized by the garbler: give it --batch-bytes {lowered} too")
        };
        Ok(Fit {
            batch_bytes: lowered,
            note: Some(format!(
                "memory limit {}: --batch-bytes lowered from {batch_bytes} to {lowered} so that the frame \
                 buffers fit (estimate {}){garbler_note}",
                bytes(limit),
                bytes(est.total(lowered))
            )),
        })
    }
}

/// How the estimate is made, for the commands' `--help`.
pub const SESSION_FRAMES_HELP: &str = "Frame buffers: --batch-bytes × 6 (the I/O thread's queue of 4, \
the frame being filled, the frame on the wire), × 1 with --single-threaded. The evaluator's frames \
have the garbler's size: give both parties the same --batch-bytes. Over the limit, the run is \
refused before connecting; when only the frame buffers are in the way, --batch-bytes is lowered \
(not below 64 KiB) and a note says so. Not counted: the program itself and the socket buffers \
(about 1 MiB).";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_help_counts_the_session_frames() {
        assert!(SESSION_FRAMES_HELP.contains(&format!("× {}", session_frame_buffers(true))));
        assert!(SESSION_FRAMES_HELP.contains(&format!("queue of {QUEUE_FRAMES}")));
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_bytes("1048576"), Ok(1 << 20));
        assert_eq!(parse_bytes("64KiB"), Ok(64 << 10));
        assert_eq!(parse_bytes("16M"), Ok(16 << 20));
        assert_eq!(parse_bytes("16 mib"), Ok(16 << 20));
        assert_eq!(parse_bytes("2G"), Ok(2 << 30));
        assert_eq!(parse_bytes("1.5GiB"), Ok(3 << 29));
        assert_eq!(parse_bytes("100B"), Ok(100));
        for bad in ["", "M", "12MB", "-1", "1e3", "99999999999999999999G", "1.2.3K"] {
            assert!(parse_bytes(bad).is_err(), "{bad}");
        }
    }

    fn limit(n: u64) -> MemoryLimit {
        MemoryLimit { limit: Some(n) }
    }

    #[test]
    fn frames_shrink_before_a_run_is_refused() {
        let est = Estimate::new(6).with("slots", 1 << 20);
        let none = MemoryLimit { limit: None }
            .fit(&est, 1 << 20, PartyId::GARBLER, "")
            .unwrap();
        assert_eq!((none.batch_bytes, none.note.is_none()), (1 << 20, true));
        let roomy = limit(8 << 20).fit(&est, 1 << 20, PartyId::GARBLER, "").unwrap();
        assert_eq!((roomy.batch_bytes, roomy.note.is_none()), (1 << 20, true));
        let tight = limit(4 << 20).fit(&est, 1 << 20, PartyId::EVALUATOR, "").unwrap();
        assert_eq!(tight.batch_bytes, 524_288);
        assert!(est.total(tight.batch_bytes) <= 4 << 20);
        assert!(tight.note.unwrap().contains("give it --batch-bytes 524288"));
        let e = limit(1 << 20)
            .fit(&est, 1 << 20, PartyId::GARBLER, "do X")
            .unwrap_err();
        let e = e.to_string();
        assert!(
            e.contains("more than --memory-limit") && e.ends_with("do X"),
            "{e}"
        );
    }
}
