//! `mixgc bench --mixed --parties N`: the n-party mixed-mode conversions and triples
//! (issue #18 point 8), every party a child process of `mixgc mixed-bench-party` over
//! loopback TCP.
//!
//! Each party runs threshold keygen and the pairwise base OTs (setup, not counted), then
//! for each measured thing its offline phase and its online phase on random inputs, timing
//! each (wall clock and its own process's CPU time) and counting the bytes it sent and
//! received. It writes its figures and its shares of the inputs and outputs to a report
//! ([`MixedPartyReport`]); this side checks every output against plaintext (XOR and sums
//! mod p of the parties' shares) and prints one record per thing, every figure per item:
//! wall times of the slowest party; CPU times and bytes the maximum and the mean over
//! parties. The CPU time is what the protocol costs one party whatever else shares the
//! cores (issue #18's "offline time grows at most linearly in n" on one machine per party);
//! the wall time of n processes on fewer cores also counts their contention.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::nparty::{free_addrs, kill_all, TempDir};
use super::{machine, BenchArgs};
use crate::common::{write_stdout, CliError};

/// The plaintext modulus p = 2^32 − 2^30 + 1 of the mixed-mode protocols (checked against
/// the parties' own in the reports).
const P: u64 = 3_221_225_473;

/// One full ciphertext of slots (N = 16384): the default batch.
pub const DEFAULT_BATCH: usize = 16384;

/// The things measured, in order.
pub const MEASURED: [&str; 11] = [
    "b2a",
    "a2b",
    "triple_bool",
    "triple_arith",
    "garble_and",
    "b2y",
    "y2b",
    "and_yao",
    "b2y_lut",
    "y2b_lut",
    "and_yao_lut",
];

/// One party's figures for one measured thing.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct MixedItemReport {
    /// `b2a`, `a2b`, `triple_bool`, `triple_arith`, `garble_and`, `b2y`, `y2b`, `and_yao`,
    /// or the Y form on distributed garbling: `b2y_lut`, `y2b_lut`, `and_yao_lut`.
    pub what: String,
    /// Items in the batch (bits for B2A, values for A2B, triples).
    pub batch: usize,
    pub offline_s: f64,
    pub online_s: f64,
    /// CPU seconds of the party's process (user + system, all threads) in each phase.
    pub offline_cpu_s: f64,
    pub online_cpu_s: f64,
    /// Bytes sent and received, all peers together: offline, then online.
    pub offline_bytes: [u64; 2],
    pub online_bytes: [u64; 2],
    /// This party's shares, for the check: b2a [input bits, output]; a2b [input, output];
    /// triples [a, b, c]; garble_and, y2b(_lut) and and_yao(_lut) [x, y, x ∧ y] (input and
    /// output shares of the AND gates, in B form); b2y(_lut) [input bits, the same bits
    /// after B→Y→B].
    pub shares: Vec<Vec<u64>>,
}

/// What `mixgc mixed-bench-party --report FILE` writes.
#[derive(Serialize, Deserialize, Debug, Clone)]
pub struct MixedPartyReport {
    pub id: usize,
    pub parties: usize,
    pub plaintext_modulus: u64,
    /// Keygen and base OTs.
    pub setup_s: f64,
    pub items: Vec<MixedItemReport>,
}

/// The batch of each thing for `--batch K`: K bits, triples; K/32 values for A2B (whose
/// B2A of r then fills K slots); K/8192 AND gates for distributed garbling (an AND gate's
/// four lookups of a 2048-coefficient key fill 8192 of a batch's N = 16384 slots, so its
/// bytes barely depend on how many gates the circuit has); at least 1; and at least 1024
/// garbled ANDs of the Y form in one BMR batch; on distributed garbling (megabytes a gate)
/// at most 64 bits for B→Y and Y→B and 16 ANDs.
pub fn batch_of(what: &str, k: usize) -> usize {
    match what {
        "a2b" => (k / 32).max(1),
        "garble_and" => (k / 8192).max(1),
        "and_yao" => k.max(1024),
        "b2y_lut" | "y2b_lut" => k.min(64),
        "and_yao_lut" => k.min(16),
        _ => k,
    }
}

/// `mixgc bench --mixed --parties N [--batch K]`.
pub fn bench_mixed(args: &BenchArgs, n: usize) -> Result<(), CliError> {
    if !(2..=16).contains(&n) {
        return Err(format!("--parties {n}: the mixed-mode bench runs 2 to 16 parties").into());
    }
    let k = args.batch.unwrap_or(DEFAULT_BATCH);
    if !(1..=DEFAULT_BATCH).contains(&k) {
        return Err(format!("--batch {k}: from 1 to {DEFAULT_BATCH} (one ciphertext of slots)").into());
    }
    let dir = TempDir(std::env::temp_dir().join(format!("mixgc-bench-mixed-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0)?;
    let reports = run_parties(args, n, k, &dir.0)?;
    let records = records(&reports)?;
    // The table goes to stderr only when stdout holds the JSON.
    args.feedback
        .summary(&summary(n, k, &reports, args.json.then_some(&records[..])));
    if args.json {
        let text = serde_json::to_string_pretty(&records).map_err(|e| e.to_string())?;
        return write_stdout(&(text + "\n"));
    }
    write_stdout(&table(&records))
}

/// Starts the n parties, relays party 0's progress lines, waits (with a deadline) and reads
/// every report.
fn run_parties(args: &BenchArgs, n: usize, k: usize, dir: &Path) -> Result<Vec<MixedPartyReport>, CliError> {
    let addrs = free_addrs(n)?.join(",");
    let exe = std::env::current_exe()?;
    let file = |what: &str, i: usize| dir.join(format!("party{i}.{what}"));
    let mut children: Vec<Child> = Vec::with_capacity(n);
    for i in 0..n {
        let mut cmd = Command::new(&exe);
        cmd.arg("mixed-bench-party")
            .args(["--id", &i.to_string(), "--parties", &addrs])
            .args(["--batch", &k.to_string(), "--timeout", "300"])
            .arg("--report")
            .arg(file("json", i))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(File::create(file("err", i))?);
        match cmd.spawn() {
            Ok(c) => children.push(c),
            Err(e) => {
                kill_all(&mut children);
                return Err(format!("cannot start party {i} ({}): {e}", exe.display()).into());
            }
        }
    }
    let progress = args.feedback.steps("bench --mixed", (MEASURED.len() + 1) as u64);
    let deadline = Duration::from_secs(120 + 120 * n as u64);
    let waited = wait_all(
        &mut children,
        deadline,
        |i| file("err", i),
        |line| {
            progress.note(line);
            progress.advance(1);
        },
    );
    progress.end();
    waited?;
    (0..n)
        .map(|i| {
            let text = std::fs::read_to_string(file("json", i))?;
            let r: MixedPartyReport =
                serde_json::from_str(&text).map_err(|e| format!("party {i}'s report: {e}"))?;
            if r.id != i || r.parties != n || r.plaintext_modulus != P || r.items.len() != MEASURED.len() {
                return Err(format!(
                    "party {i}'s report is for another run (id {}, {} parties)",
                    r.id, r.parties
                )
                .into());
            }
            Ok(r)
        })
        .collect()
}

/// Waits for every child until `limit`, passing each new line party 0 writes on stderr to
/// `progress`; a party that fails or a run past the deadline stops them all, naming the
/// party and the last line of its stderr.
fn wait_all(
    children: &mut [Child],
    limit: Duration,
    stderr_of: impl Fn(usize) -> PathBuf,
    progress: impl Fn(&str),
) -> Result<(), CliError> {
    let start = Instant::now();
    let mut done = vec![false; children.len()];
    let last_line = |i: usize| {
        std::fs::read_to_string(stderr_of(i))
            .ok()
            .and_then(|s| s.lines().last().map(str::to_string))
            .unwrap_or_default()
    };
    let mut relayed = 0usize;
    while done.iter().any(|d| !d) {
        relayed = relay(&stderr_of(0), relayed, &progress);
        for (i, c) in children.iter_mut().enumerate() {
            if done[i] {
                continue;
            }
            if let Some(status) = c.try_wait()? {
                done[i] = true;
                if !status.success() {
                    kill_all(children);
                    return Err(format!("party {i} failed ({status}): {}", last_line(i)).into());
                }
            }
        }
        if start.elapsed() > limit {
            kill_all(children);
            return Err(format!("the parties did not finish within {} s", limit.as_secs()).into());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// Passes the complete lines of `path` after byte `from` to `progress`; the new offset.
fn relay(path: &Path, from: usize, progress: &impl Fn(&str)) -> usize {
    let mut text = String::new();
    if File::open(path)
        .and_then(|mut f| f.read_to_string(&mut text))
        .is_err()
        || text.len() <= from
    {
        return from;
    }
    let Some(end) = text[from..].rfind('\n').map(|e| from + e + 1) else {
        return from;
    };
    text[from..end].lines().for_each(progress);
    end
}

/// One output record (issue #18 point 8).
#[derive(Serialize, Debug, Clone)]
pub struct MixedRecord {
    what: String,
    parties: usize,
    batch: usize,
    /// What one item is.
    unit: &'static str,
    offline_ms: f64,
    online_ms: f64,
    /// CPU ms per item of one party's process in each phase: the maximum over parties,
    /// then the mean.
    offline_cpu_ms: f64,
    online_cpu_ms: f64,
    offline_cpu_ms_mean: f64,
    online_cpu_ms_mean: f64,
    /// Offline + online, per item: the maximum over parties, then the mean.
    bytes_sent_per_party: f64,
    bytes_received_per_party: f64,
    bytes_sent_per_party_mean: f64,
    bytes_received_per_party_mean: f64,
    /// The same split (maximum over parties): offline, online.
    offline_bytes_sent_per_party: f64,
    online_bytes_sent_per_party: f64,
    /// Outputs checked against plaintext.
    checked: bool,
}

fn unit(what: &str) -> &'static str {
    match what {
        "b2a" => "bit",
        "a2b" => "32-bit value mod p",
        "garble_and" => "AND gate garbled (L = 2048) and evaluated",
        "b2y" => "bit B→Y (offline: its Δ-products; online: local)",
        "y2b" => "bit Y→B (local)",
        "and_yao" => "BMR AND gate garbled (offline) and evaluated (online)",
        "b2y_lut" => "bit B→Y on distributed garbling (online: e opened, key chained to party 0)",
        "y2b_lut" => "bit Y→B on distributed garbling (local)",
        "and_yao_lut" => "AND gate distributed-garbled (offline), evaluated with its inputs' B→Y (online)",
        _ => "triple",
    }
}

/// Checks every thing's outputs against plaintext and makes its record.
fn records(reports: &[MixedPartyReport]) -> Result<Vec<MixedRecord>, CliError> {
    let n = reports.len();
    (0..reports.first().map_or(0, |r| r.items.len()))
        .map(|t| {
            let items: Vec<&MixedItemReport> = reports.iter().map(|r| &r.items[t]).collect();
            let what = items[0].what.clone();
            let batch = items[0].batch;
            if items.iter().any(|i| i.what != what || i.batch != batch) {
                return Err(format!("the parties measured different things at step {t}").into());
            }
            check(&what, &items)?;
            check_times(&what, &items)?;
            let per = |x: u64| x as f64 / batch as f64;
            let max = |f: &dyn Fn(&MixedItemReport) -> f64| items.iter().map(|i| f(i)).fold(0.0, f64::max);
            let mean =
                |f: &dyn Fn(&MixedItemReport) -> f64| items.iter().map(|i| f(i)).sum::<f64>() / n as f64;
            let ms = |s: f64| s * 1e3 / batch as f64;
            let sent = |i: &MixedItemReport| per(i.offline_bytes[0] + i.online_bytes[0]);
            let received = |i: &MixedItemReport| per(i.offline_bytes[1] + i.online_bytes[1]);
            Ok(MixedRecord {
                unit: unit(&what),
                parties: n,
                batch,
                offline_ms: ms(max(&|i| i.offline_s)),
                online_ms: ms(max(&|i| i.online_s)),
                offline_cpu_ms: ms(max(&|i| i.offline_cpu_s)),
                online_cpu_ms: ms(max(&|i| i.online_cpu_s)),
                offline_cpu_ms_mean: ms(mean(&|i| i.offline_cpu_s)),
                online_cpu_ms_mean: ms(mean(&|i| i.online_cpu_s)),
                bytes_sent_per_party: max(&sent),
                bytes_received_per_party: max(&received),
                bytes_sent_per_party_mean: mean(&sent),
                bytes_received_per_party_mean: mean(&received),
                offline_bytes_sent_per_party: max(&|i| per(i.offline_bytes[0])),
                online_bytes_sent_per_party: max(&|i| per(i.online_bytes[0])),
                checked: true,
                what,
            })
        })
        .collect()
}

/// Every party's wall and CPU seconds must be finite and non-negative (a report is a file
/// the bench reads back, not a value it computed).
fn check_times(what: &str, items: &[&MixedItemReport]) -> Result<(), CliError> {
    for (i, it) in items.iter().enumerate() {
        let times = [it.offline_s, it.online_s, it.offline_cpu_s, it.online_cpu_s];
        if times.iter().any(|t| !t.is_finite() || *t < 0.0) {
            return Err(format!("party {i}'s {what} times are not non-negative seconds: {times:?}").into());
        }
    }
    Ok(())
}

/// Vector `v` of every party's shares, each of exactly `batch` entries.
fn column<'a>(items: &[&'a MixedItemReport], v: usize, what: &str) -> Result<Vec<&'a [u64]>, CliError> {
    items
        .iter()
        .enumerate()
        .map(|(i, it)| match it.shares.get(v) {
            Some(s) if s.len() == it.batch => Ok(s.as_slice()),
            _ => Err(format!("party {i}'s {what} shares are missing or of the wrong length").into()),
        })
        .collect()
}

fn xor_all(c: &[&[u64]], j: usize) -> u64 {
    c.iter().fold(0, |a, s| a ^ s[j])
}

fn sum_all(c: &[&[u64]], j: usize) -> u64 {
    c.iter().fold(0, |a, s| (a + s[j] % P) % P)
}

/// The plaintext check of one thing's outputs.
fn check(what: &str, items: &[&MixedItemReport]) -> Result<(), CliError> {
    let (x, y) = (column(items, 0, what)?, column(items, 1, what)?);
    let batch = items[0].batch;
    let wrong = |j: usize, got: u64, want: u64| -> Result<(), CliError> {
        Err(format!("{what}: item {j} came out as {got}, but plaintext gives {want}").into())
    };
    for j in 0..batch {
        match what {
            "b2y" | "b2y_lut" => {
                let (bit, back) = (xor_all(&x, j), xor_all(&y, j));
                if back != bit {
                    return wrong(j, back, bit);
                }
            }
            "b2a" => {
                let (bit, arith) = (xor_all(&x, j), sum_all(&y, j));
                if arith != bit {
                    return wrong(j, arith, bit);
                }
            }
            "a2b" => {
                let (value, boolean) = (sum_all(&x, j), xor_all(&y, j));
                if boolean != value {
                    return wrong(j, boolean, value);
                }
            }
            "triple_bool" | "garble_and" | "y2b" | "and_yao" | "y2b_lut" | "and_yao_lut" => {
                let c = column(items, 2, what)?;
                let want = xor_all(&x, j) & xor_all(&y, j);
                if xor_all(&c, j) != want {
                    return wrong(j, xor_all(&c, j), want);
                }
            }
            "triple_arith" => {
                let c = column(items, 2, what)?;
                let want = sum_all(&x, j) * sum_all(&y, j) % P;
                if sum_all(&c, j) != want {
                    return wrong(j, sum_all(&c, j), want);
                }
            }
            _ => return Err(format!("a party measured an unknown thing '{what}'").into()),
        }
    }
    Ok(())
}

/// The stderr summary.
fn summary(n: usize, k: usize, reports: &[MixedPartyReport], records: Option<&[MixedRecord]>) -> String {
    let setup = reports.iter().map(|r| r.setup_s).fold(0.0, f64::max);
    let mut s = format!(
        "mixgc bench --mixed --parties {n} on {} ({n} processes over loopback sharing this machine's cores; batch {k}; setup (threshold keygen, base OTs) {setup:.2} s; outputs checked against plaintext)\n",
        machine()
    );
    if let Some(records) = records {
        s += &table(records);
    }
    s.trim_end().to_string()
}

/// One line per record: wall ms (slowest party), offline CPU ms per party (max / mean),
/// bytes per party (max).
fn table(records: &[MixedRecord]) -> String {
    let mut s = format!(
        "{:<13} {:>7} {:>12} {:>12} {:>23} {:>14} {:>14}\n",
        "what", "batch", "offline ms", "online ms", "offline CPU ms max/mean", "sent B (max)", "recv B (max)"
    );
    for r in records {
        let cpu = format!("{:.4} / {:.4}", r.offline_cpu_ms, r.offline_cpu_ms_mean);
        s += &format!(
            "{:<13} {:>7} {:>12.4} {:>12.4} {:>23} {:>14.1} {:>14.1}\n",
            r.what,
            r.batch,
            r.offline_ms,
            r.online_ms,
            cpu,
            r.bytes_sent_per_party,
            r.bytes_received_per_party
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(what: &str, shares: Vec<Vec<u64>>, sent: u64) -> MixedItemReport {
        MixedItemReport {
            what: what.into(),
            batch: shares[0].len(),
            offline_s: 0.002,
            online_s: 0.001,
            offline_cpu_s: sent as f64 * 1e-5,
            online_cpu_s: 0.0004,
            offline_bytes: [sent, 10],
            online_bytes: [2, 2],
            shares,
        }
    }

    #[test]
    fn records_check_the_shares_and_take_max_and_mean() {
        let a = item("b2a", vec![vec![1, 0], vec![P - 1, 5]], 100);
        let b = item("b2a", vec![vec![0, 0], vec![2, P - 5]], 300);
        let reports: Vec<MixedPartyReport> = [a, b]
            .into_iter()
            .enumerate()
            .map(|(id, it)| MixedPartyReport {
                id,
                parties: 2,
                plaintext_modulus: P,
                setup_s: 1.0,
                items: vec![it],
            })
            .collect();
        let items: Vec<&MixedItemReport> = reports.iter().map(|r| &r.items[0]).collect();
        check("b2a", &items).unwrap();
        let r = &records(&reports).unwrap()[0];
        assert_eq!(r.bytes_sent_per_party, 151.0);
        assert_eq!(r.bytes_received_per_party, 6.0);
        assert_eq!(r.bytes_sent_per_party_mean, 101.0);
        assert_eq!(r.offline_ms, 1.0);
        // CPU: 1 ms and 3 ms offline over a batch of 2, 0.4 ms online at both.
        assert!((r.offline_cpu_ms - 1.5).abs() < 1e-12, "{r:?}");
        assert!((r.offline_cpu_ms_mean - 1.0).abs() < 1e-12, "{r:?}");
        assert!((r.online_cpu_ms - 0.2).abs() < 1e-12 && (r.online_cpu_ms_mean - 0.2).abs() < 1e-12);
        let t = table(&records(&reports).unwrap());
        assert!(
            t.contains("offline CPU ms max/mean") && t.contains("1.5000 / 1.0000"),
            "{t}"
        );
        let mut bad = reports.clone();
        bad[1].items[0].shares[1][0] = 3;
        let items: Vec<&MixedItemReport> = bad.iter().map(|r| &r.items[0]).collect();
        let e = check("b2a", &items).unwrap_err().to_string();
        assert!(records(&bad).is_err());
        assert!(e.contains("item 0 came out as 2, but plaintext gives 1"), "{e}");
        let mut bad = reports.clone();
        bad[1].items[0].offline_cpu_s = f64::NAN;
        let e = records(&bad).unwrap_err().to_string();
        assert!(
            e.contains("party 1's b2a times are not non-negative seconds"),
            "{e}"
        );
        bad[1].items[0].offline_cpu_s = -1.0;
        assert!(records(&bad).is_err());
    }

    #[test]
    fn a2b_batches_fill_one_ciphertext_of_bits() {
        assert_eq!(batch_of("a2b", DEFAULT_BATCH), 512);
        assert_eq!(batch_of("a2b", 8), 1);
        assert_eq!(batch_of("garble_and", DEFAULT_BATCH), 2);
        assert_eq!(batch_of("garble_and", 64), 1);
        assert_eq!(batch_of("b2a", 64), 64);
        assert_eq!(batch_of("and_yao", 64), 1024);
        assert_eq!(batch_of("and_yao", DEFAULT_BATCH), DEFAULT_BATCH);
        assert_eq!(batch_of("b2y_lut", DEFAULT_BATCH), 64);
        assert_eq!(batch_of("y2b_lut", 8), 8);
        assert_eq!(batch_of("and_yao_lut", DEFAULT_BATCH), 16);
    }
}
