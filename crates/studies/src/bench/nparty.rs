//! `mixgc bench --parties N`: n-party runs (BMR or GMW), every party a child process of
//! `mixgc party` over loopback TCP, on the auction or vote of MPCircuits (TinyGarble2 thesis
//! §3.6), AES-128 or a long AND chain streamed from disk.
//!
//! Each run gives every party random inputs, waits for all (with a deadline), checks every
//! party's stdout against the plaintext evaluation of the same circuit and reads each
//! party's `--report` ([`PartyFigures`]). Reported: the wall clock from the last process's
//! start to the last output, offline and online times (slowest party, median over runs),
//! the most bytes any party sent one peer per AND (setup — handshake and base OTs —
//! excluded) beside the thesis's BMR figure 9·(n−1)·16 bytes (§2.5), and the peak RSS of
//! the largest party.

mod chain;

use std::fs::File;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mixgc_circuit::{bristol, shipped::AES_128, values, Circuit};
use mixgc_program::apps;
use rand::Rng;

use super::{machine, median, BenchArgs};
use crate::common::{write_stdout, CliError, PartyFigures};

/// What the parties compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum NpartyWorkload {
    /// Sealed-bid auction: every party bids `--bits` bits, all learn the winner and the bid.
    Auction,
    /// Plurality vote among `--candidates`: every party votes.
    Voting,
    /// AES-128: party 0 owns the key, party 1 the plaintext.
    Aes128,
    /// A chain of `--ands` ANDs (default 10^7) written as a compiled stream and read from
    /// disk: parties 0, 1 and n − 1 own its three 16-bit inputs.
    Chain,
}

/// The n-party protocol a bench runs (as `mixgc party --protocol`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum NpartyProtocol {
    Bmr,
    Gmw,
}

impl NpartyProtocol {
    fn name(self) -> &'static str {
        match self {
            NpartyProtocol::Bmr => "bmr",
            NpartyProtocol::Gmw => "gmw",
        }
    }
}

/// The chain's default length.
const DEFAULT_CHAIN_ANDS: u64 = 10_000_000;

/// A workload ready to spawn: the `mixgc party` flags naming the circuit, the owner of each
/// input value, its input widths and how to compute its outputs in plaintext.
struct Prepared {
    flags: Vec<String>,
    owners: Vec<usize>,
    widths: Vec<u32>,
    plain: Plain,
    /// Values of a workload with restricted inputs (votes below the candidate count).
    candidates: Option<usize>,
}

/// The plaintext model of a workload.
enum Plain {
    Circuit(Circuit),
    Chain { rounds: u64 },
}

impl Plain {
    fn outputs(&self, inputs: &[Vec<bool>]) -> Result<Vec<String>, CliError> {
        let bits = match self {
            Plain::Circuit(c) => c.eval_plain(inputs)?,
            Plain::Chain { rounds } => vec![chain::plaintext_bits(inputs, *rounds)?],
        };
        Ok(bits.iter().map(|v| values::to_hex(v)).collect())
    }
}

/// The temp directory of one bench, removed when it ends.
pub(super) struct TempDir(pub(super) PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The figures of one run.
struct RunFigures {
    wall_s: f64,
    offline_s: f64,
    online_s: f64,
    ands: u64,
    /// The largest (bytes − setup bytes) any party sent one peer, over ANDs.
    bytes_per_and: f64,
    /// The most bytes one party sent all its peers, setup excluded.
    party_sent: u64,
    peak_rss_kib: u64,
}

/// `mixgc bench --parties N …`.
pub fn bench_nparty(args: &BenchArgs, n: usize) -> Result<(), CliError> {
    if !(2..=16).contains(&n) {
        return Err(format!("--parties {n}: the bench runs 2 to 16 parties").into());
    }
    if args.nparty_workload == NpartyWorkload::Chain && n < 3 {
        return Err(
            "--workload chain needs at least 3 parties (its inputs belong to parties 0, 1 and n − 1)".into(),
        );
    }
    let dir = TempDir(std::env::temp_dir().join(format!("mixgc-bench-nparty-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0)?;
    let prepared = prepare(args, n, &dir.0)?;
    let progress = args.feedback.steps("bench --parties", args.runs as u64);
    let runs: Result<Vec<RunFigures>, CliError> = (0..args.runs)
        .map(|run| {
            progress.note(&format!("{n} processes, run {}/{}", run + 1, args.runs));
            let figures = one_run(args, n, &prepared, &dir.0, run);
            progress.advance(1);
            figures
        })
        .collect();
    progress.end();
    let runs = runs?;
    let fig = |f: fn(&RunFigures) -> f64| median(runs.iter().map(f).collect());
    let (wall, offline, online) = (fig(|r| r.wall_s), fig(|r| r.offline_s), fig(|r| r.online_s));
    let per_and = runs.iter().map(|r| r.bytes_per_and).fold(0.0, f64::max);
    let thesis = 9.0 * (n as f64 - 1.0) * 16.0;
    let rss_mib = runs.iter().map(|r| r.peak_rss_kib).max().unwrap_or(0) as f64 / 1024.0;
    let ands = runs[0].ands;
    let party_sent = runs.iter().map(|r| r.party_sent).max().unwrap_or(0);
    let workload = describe(args, n);
    if args.json {
        let json = serde_json::json!({
            "machine": machine(),
            "parties": n,
            "protocol": args.protocol.name(),
            "workload": workload,
            "ands": ands,
            "rtt_ms": args.rtt_ms,
            "runs": args.runs,
            "wall_s": wall,
            "offline_s": offline,
            "online_s": online,
            "bytes_per_and_max_pair": per_and,
            "thesis_bmr_bytes_per_and": thesis,
            "sent_bytes_max_party": party_sent,
            "peak_rss_mib_max": rss_mib,
            "outputs_checked": true,
        });
        return write_stdout(&format!("{json}\n"));
    }
    let mut out = format!(
        "mixgc bench --parties {n} on {} ({}, {workload}, {} ANDs; {} processes over loopback{}; median of {} runs, outputs checked against plaintext)\n",
        machine(),
        args.protocol.name(),
        crate::common::thousands(ands),
        n,
        if args.rtt_ms > 0 {
            format!(", emulated {} ms RTT on every link", args.rtt_ms)
        } else {
            String::new()
        },
        args.runs
    );
    out += &format!("wall clock, last start to last output: {}\n", seconds(wall));
    out += &format!("offline (slowest party):               {}\n", seconds(offline));
    out += &format!("online (slowest party):                {}\n", seconds(online));
    out += &format!(
        "bytes per AND, busiest ordered pair:   {per_and:.1} (thesis BMR: 9·(n−1)·16 = {thesis:.0}), setup excluded\n"
    );
    out += &format!(
        "sent by one party, all peers (max):    {:.2} MB, setup excluded\n",
        party_sent as f64 / 1e6
    );
    out += &format!("peak RSS, largest party:               {rss_mib:.1} MiB\n");
    write_stdout(&out)
}

/// `1.23 s` or `45.6 ms`.
fn seconds(s: f64) -> String {
    if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

fn describe(args: &BenchArgs, n: usize) -> String {
    match args.nparty_workload {
        NpartyWorkload::Auction => format!("auction b = {}, n = {n}", args.bits),
        NpartyWorkload::Voting => format!("voting n_c = {}, n = {n}", args.candidates),
        NpartyWorkload::Aes128 => "AES-128".into(),
        NpartyWorkload::Chain => "AND chain (stream file)".into(),
    }
}

fn prepare(args: &BenchArgs, n: usize, dir: &Path) -> Result<Prepared, CliError> {
    let one_each = |circuit: Circuit, flags: Vec<String>, candidates| Prepared {
        widths: circuit.input_widths.clone(),
        owners: (0..n).collect(),
        plain: Plain::Circuit(circuit),
        flags,
        candidates,
    };
    Ok(match args.nparty_workload {
        NpartyWorkload::Auction => one_each(
            apps::record_auction(n, args.bits)?.circuit,
            strings(&["--example", "auction", "--bits", &args.bits.to_string()]),
            None,
        ),
        NpartyWorkload::Voting => one_each(
            apps::record_voting(n, args.candidates)?.circuit,
            strings(&[
                "--example",
                "voting",
                "--candidates",
                &args.candidates.to_string(),
            ]),
            Some(args.candidates),
        ),
        NpartyWorkload::Aes128 => {
            let path = dir.join("aes_128.txt");
            std::fs::write(&path, AES_128)?;
            let circuit = bristol::parse(AES_128, "circuits/aes_128.txt")?;
            Prepared {
                widths: circuit.input_widths.clone(),
                owners: vec![0, 1],
                plain: Plain::Circuit(circuit),
                flags: strings(&["--circuit", &path.display().to_string(), "--owners", "0,1"]),
                candidates: None,
            }
        }
        NpartyWorkload::Chain => {
            let path = dir.join("chain.mixgcs");
            let rounds = chain::write(&path, args.ands.unwrap_or(DEFAULT_CHAIN_ANDS))?;
            let owners = vec![0, 1, n - 1];
            Prepared {
                widths: vec![chain::LANES; 3],
                flags: strings(&[
                    "--circuit",
                    &path.display().to_string(),
                    "--owners",
                    &owners.iter().map(usize::to_string).collect::<Vec<_>>().join(","),
                ]),
                owners,
                plain: Plain::Chain { rounds },
                candidates: None,
            }
        }
    })
}

fn strings(s: &[&str]) -> Vec<String> {
    s.iter().map(|s| s.to_string()).collect()
}

/// Random input values for every value of the workload.
fn random_inputs(p: &Prepared) -> Vec<Vec<bool>> {
    let mut rng = rand::thread_rng();
    p.widths
        .iter()
        .map(|&w| match p.candidates {
            Some(c) => {
                let vote = rng.gen_range(0..c as u64);
                (0..w).map(|i| vote >> i & 1 == 1).collect()
            }
            None => (0..w).map(|_| rng.gen()).collect(),
        })
        .collect()
}

/// `n` free loopback addresses (bound and released; a port taken in between fails the run
/// with the party naming it).
pub(super) fn free_addrs(n: usize) -> Result<Vec<String>, CliError> {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0"))
        .collect::<Result<_, _>>()?;
    listeners
        .iter()
        .map(|l| Ok(l.local_addr()?.to_string()))
        .collect()
}

/// The deadline of one run: generous for the chain (about 10 µs an AND, three parties of
/// two cores), two minutes otherwise.
fn deadline(args: &BenchArgs) -> Duration {
    match args.nparty_workload {
        NpartyWorkload::Chain => Duration::from_secs(120 + args.ands.unwrap_or(DEFAULT_CHAIN_ANDS) / 50_000),
        _ => Duration::from_secs(120 + 10 * args.rtt_ms / 100),
    }
}

fn one_run(args: &BenchArgs, n: usize, p: &Prepared, dir: &Path, run: usize) -> Result<RunFigures, CliError> {
    let inputs = random_inputs(p);
    let expected = p.plain.outputs(&inputs)?;
    let addrs = free_addrs(n)?.join(",");
    let exe = std::env::current_exe()?;
    let file = |what: &str, i: usize| dir.join(format!("run{run}-party{i}.{what}"));
    let mut children: Vec<Child> = Vec::with_capacity(n);
    for i in 0..n {
        let mine: Vec<String> = p
            .owners
            .iter()
            .enumerate()
            .filter(|&(_, &o)| o == i)
            .map(|(v, _)| values::to_hex(&inputs[v]))
            .collect();
        let mut cmd = Command::new(&exe);
        cmd.arg("party")
            .args(["--id", &i.to_string(), "--parties", &addrs])
            .args(["--protocol", args.protocol.name()])
            .args(["--rtt-ms", &args.rtt_ms.to_string(), "--timeout", "60"])
            .args(&p.flags)
            .arg("--report")
            .arg(file("json", i))
            .stdin(Stdio::null())
            .stdout(File::create(file("out", i))?)
            .stderr(File::create(file("err", i))?);
        if !mine.is_empty() {
            cmd.args(["--input", &mine.join(",")]);
        }
        match cmd.spawn() {
            Ok(c) => children.push(c),
            Err(e) => {
                kill_all(&mut children);
                return Err(format!("cannot start party {i} ({}): {e}", exe.display()).into());
            }
        }
    }
    wait_all(&mut children, deadline(args), |i| file("err", i))?;
    let mut figures = Vec::with_capacity(n);
    for i in 0..n {
        let out = std::fs::read_to_string(file("out", i))?;
        let got: Vec<&str> = out.lines().collect();
        if got != expected {
            return Err(format!(
                "party {i} printed {got:?}, but the plaintext evaluation gives {expected:?} (inputs {:?})",
                inputs.iter().map(|v| values::to_hex(v)).collect::<Vec<_>>()
            )
            .into());
        }
        let text = std::fs::read_to_string(file("json", i))?;
        let f: PartyFigures = serde_json::from_str(&text).map_err(|e| format!("party {i}'s report: {e}"))?;
        if f.bytes.len() != n || f.setup_bytes.len() != n {
            return Err(format!(
                "party {i}'s report has byte counters for {} parties, not {n}",
                f.bytes.len()
            )
            .into());
        }
        figures.push(f);
    }
    Ok(summarize(&figures))
}

fn summarize(figures: &[PartyFigures]) -> RunFigures {
    let max = |f: fn(&PartyFigures) -> f64| figures.iter().map(f).fold(0.0, f64::max);
    let ands = figures.iter().map(|f| f.ands).max().unwrap_or(0);
    let busiest = figures
        .iter()
        .flat_map(|f| {
            f.bytes
                .iter()
                .zip(&f.setup_bytes)
                .map(|(b, s)| b[0].saturating_sub(s[0]))
        })
        .max()
        .unwrap_or(0);
    let party_sent = figures
        .iter()
        .map(|f| {
            f.bytes
                .iter()
                .zip(&f.setup_bytes)
                .map(|(b, s)| b[0].saturating_sub(s[0]))
                .sum()
        })
        .max()
        .unwrap_or(0);
    RunFigures {
        party_sent,
        wall_s: max(|f| f.finished_unix_s) - max(|f| f.started_unix_s),
        offline_s: max(|f| f.offline_s),
        online_s: max(|f| f.online_s),
        ands,
        bytes_per_and: busiest as f64 / ands.max(1) as f64,
        peak_rss_kib: figures.iter().map(|f| f.peak_rss_kib).max().unwrap_or(0),
    }
}

pub(super) fn kill_all(children: &mut [Child]) {
    for c in children.iter_mut() {
        let _ = c.kill();
        let _ = c.wait();
    }
}

/// Waits for every child until `limit`; a party that fails or a run past the deadline stops
/// them all, naming the party and the last line of its stderr.
fn wait_all(
    children: &mut [Child],
    limit: Duration,
    stderr_of: impl Fn(usize) -> PathBuf,
) -> Result<(), CliError> {
    let start = Instant::now();
    let mut done = vec![false; children.len()];
    let last_line = |i: usize| {
        std::fs::read_to_string(stderr_of(i))
            .ok()
            .and_then(|s| s.lines().last().map(str::to_string))
            .unwrap_or_default()
    };
    while done.iter().any(|d| !d) {
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
        std::thread::sleep(Duration::from_millis(2));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn party(id: usize, bytes: Vec<[u64; 2]>, setup: Vec<[u64; 2]>) -> PartyFigures {
        PartyFigures {
            id,
            parties: bytes.len(),
            protocol: "bmr".into(),
            ands: 10,
            offline_s: 0.5 + id as f64,
            online_s: 0.1,
            online_rounds: 2,
            started_unix_s: 100.0 + id as f64,
            finished_unix_s: 110.0 + id as f64,
            bytes,
            setup_bytes: setup,
            peak_rss_kib: 1000 * (id as u64 + 1),
        }
    }

    #[test]
    fn summary_takes_the_busiest_pair_without_setup() {
        let a = party(
            0,
            vec![[0, 0], [1500, 10], [900, 0]],
            vec![[0, 0], [500, 0], [100, 0]],
        );
        let b = party(
            1,
            vec![[10, 1500], [0, 0], [2100, 0]],
            vec![[0, 0], [0, 0], [200, 0]],
        );
        let r = summarize(&[a, b]);
        assert_eq!(r.bytes_per_and, 190.0);
        assert_eq!(r.party_sent, 10 + 1900);
        assert_eq!(r.wall_s, 111.0 - 101.0);
        assert_eq!(r.offline_s, 1.5);
        assert_eq!(r.peak_rss_kib, 2000);
    }

    #[test]
    fn votes_stay_below_the_candidates() {
        let p = Prepared {
            flags: vec![],
            owners: vec![0, 1, 2],
            widths: vec![2; 3],
            plain: Plain::Chain { rounds: 1 },
            candidates: Some(3),
        };
        for _ in 0..100 {
            for v in random_inputs(&p) {
                assert!(!(v[0] && v[1]), "vote 3 of 3 candidates");
            }
        }
    }
}
