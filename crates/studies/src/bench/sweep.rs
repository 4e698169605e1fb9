//! `mixgc bench --sweep`: end-to-end AES-128 throughput for each table-frame size (MEG §III's
//! batch size) × pipelined (a dedicated I/O thread per party) or single-threaded parties, over
//! loopback TCP between two processes and over emulated links in one process.
//!
//! On the emulated links, three-halves garbling (`--garbling three-halves`) runs beside
//! half-gates. An emulated link also gets its rate in ANDs (at the bytes per AND measured on
//! the wire) and the fraction of it achieved. The target is ≥ 90 % of the link's rate whenever
//! compute allows, i.e. when garbling plus evaluating in memory on one thread is faster than
//! the link; for three-halves on an emulated link, ≥ 1.2× the AND/s of half-gates.

use std::time::Duration;

use mixgc_compile::CompiledCircuit;
use mixgc_core::{AesKernel, HashKind};
use mixgc_net::link_pair;
use mixgc_session::{run_party, Audience, PartyId, Scheme, SessionConfig, Terms};
use serde::Serialize;

use super::{aes_blocks, cpu_flags, in_memory, machine, median, random_batch, two_processes, workload_args};
use super::{BenchArgs, Workload};
use crate::common::thousands;
use crate::common::{write_stdout, CliError};
use mixgc_circuit::shipped::AES_128;
use mixgc_compile::Loaded;

/// ANDs of the sweep's workload unless `--ands` says otherwise.
const SWEEP_ANDS: u64 = 2_000_000;
/// Frame sizes swept (`SessionConfig::batch_bytes`).
const BATCH_BYTES: [usize; 5] = [64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20];
/// The target: this fraction of the link's rate whenever compute allows.
const TARGET_FRACTION: f64 = 0.9;
/// The target of three-halves on an emulated link: this many times the AND/s of half-gates
/// (best frame size and mode of each).
const THREE_HALVES_TARGET: f64 = 1.2;
const SCHEMES: [Scheme; 2] = [Scheme::HalfGates, Scheme::ThreeHalves];

/// An emulated link: rate and one-way latency.
#[derive(Clone, Copy)]
struct Link {
    rate_bits_per_sec: u64,
    latency: Duration,
}

/// Where the two parties run.
#[derive(Clone, Copy)]
enum Network {
    /// Two processes over 127.0.0.1.
    Loopback,
    /// Two threads of this process over [`link_pair`].
    Emulated(Link),
}

const NETWORKS: [Network; 3] = [
    Network::Loopback,
    Network::Emulated(Link {
        rate_bits_per_sec: 1_000_000_000,
        latency: Duration::from_millis(1),
    }),
    Network::Emulated(Link {
        rate_bits_per_sec: 10_000_000_000,
        latency: Duration::from_micros(100),
    }),
];

impl Network {
    /// The garbling schemes swept on this network: both on emulated links.
    fn schemes(self) -> &'static [Scheme] {
        match self {
            Network::Loopback => &SCHEMES[..1],
            Network::Emulated(_) => &SCHEMES,
        }
    }

    fn name(self) -> String {
        match self {
            Network::Loopback => "loopback TCP".into(),
            Network::Emulated(l) => format!(
                "{} Gbps / {} ms",
                l.rate_bits_per_sec as f64 / 1e9,
                l.latency.as_secs_f64() * 1e3
            ),
        }
    }
}

/// One point of the sweep.
#[derive(Serialize)]
struct Point {
    network: String,
    /// `half-gates` or `three-halves`.
    garbling: String,
    batch_bytes: usize,
    /// With the I/O thread (`SessionConfig::io_thread`).
    pipelined: bool,
    /// Session setup to output, base OT included, slower party; median.
    ns_per_and: f64,
    mand_per_s: f64,
    /// Bytes both parties sent, per AND (tables, labels, OT and setup); median.
    bytes_per_and: f64,
    /// Emulated links only: the link's rate in ANDs, and the fraction of it achieved.
    link_mand_per_s: Option<f64>,
    link_fraction: Option<f64>,
    /// Emulated links only: whether in-memory compute outpaces the link (then the target
    /// of ≥ 90 % applies).
    compute_allows: Option<bool>,
}

#[derive(Serialize)]
struct Sweep {
    machine: String,
    /// The AES kernel that ran (`mixgc info --cpu`).
    aes_kernel: &'static str,
    cpu_flags: Vec<&'static str>,
    runs: usize,
    ands: u64,
    /// Garbling plus evaluation in memory, one after the other on one thread (M AND/s).
    compute_mand_per_s: f64,
    /// The same with three-halves garbling.
    compute_three_halves_mand_per_s: f64,
    points: Vec<Point>,
}

pub(super) fn sweep(args: &BenchArgs) -> Result<(), CliError> {
    let aes = Loaded::parse(AES_128, "circuits/aes_128.txt")?.compiled;
    let blocks = aes_blocks(&aes, args.ands.unwrap_or(SWEEP_ANDS));
    let ands = aes.num_ands() * blocks as u64;
    let configs = NETWORKS.iter().map(|n| n.schemes().len()).sum::<usize>() * BATCH_BYTES.len() * 2;
    let bar = args
        .feedback
        .steps("bench --sweep", ((configs + SCHEMES.len()) * args.runs) as u64);

    let mut compute = [0.0; SCHEMES.len()];
    for (garbling, compute) in SCHEMES.iter().zip(&mut compute) {
        let mut runs = Vec::new();
        for run in 0..args.runs {
            bar.note(&format!("{garbling} in memory: run {}/{}", run + 1, args.runs));
            let (garble, eval) = in_memory(&aes, blocks, HashKind::default(), *garbling)?;
            runs.push(1e3 / (garble + eval));
            bar.advance(1);
        }
        *compute = median(runs);
    }
    let compute_of = |garbling: Scheme| compute[SCHEMES.iter().position(|&s| s == garbling).unwrap()];

    let mut points = Vec::with_capacity(configs);
    for network in NETWORKS {
        for &garbling in network.schemes() {
            for batch_bytes in BATCH_BYTES {
                for pipelined in [true, false] {
                    let (mut ns, mut bytes) = (Vec::new(), Vec::new());
                    for run in 0..args.runs {
                        bar.note(&format!(
                            "{}, {garbling}, {} KiB frames, {}: run {}/{}",
                            network.name(),
                            batch_bytes >> 10,
                            mode(pipelined),
                            run + 1,
                            args.runs
                        ));
                        let config = RunConfig {
                            network,
                            garbling,
                            batch_bytes,
                            pipelined,
                        };
                        let r = one_run(&aes, config, blocks)?;
                        ns.push(r.elapsed_ns / r.ands as f64);
                        bytes.push(r.bytes as f64 / r.ands as f64);
                        bar.advance(1);
                    }
                    points.push(point(
                        network,
                        garbling,
                        batch_bytes,
                        pipelined,
                        (median(ns), median(bytes)),
                        compute_of(garbling),
                    ));
                }
            }
        }
    }
    bar.end();
    let sweep = Sweep {
        machine: machine(),
        aes_kernel: AesKernel::active().name(),
        cpu_flags: cpu_flags(),
        runs: args.runs,
        ands,
        compute_mand_per_s: compute_of(Scheme::HalfGates),
        compute_three_halves_mand_per_s: compute_of(Scheme::ThreeHalves),
        points,
    };
    if args.json {
        return write_stdout(&format!("{}\n", serde_json::to_string(&sweep)?));
    }
    write_stdout(&table(&sweep, blocks))
}

fn mode(pipelined: bool) -> &'static str {
    if pipelined {
        "pipelined"
    } else {
        "single-threaded"
    }
}

fn point(
    network: Network,
    garbling: Scheme,
    batch_bytes: usize,
    pipelined: bool,
    (ns_per_and, bytes_per_and): (f64, f64),
    compute: f64,
) -> Point {
    let mand_per_s = 1e3 / ns_per_and;
    let link_mand_per_s = match network {
        Network::Loopback => None,
        Network::Emulated(l) => Some(l.rate_bits_per_sec as f64 / (8.0 * bytes_per_and) / 1e6),
    };
    Point {
        network: network.name(),
        garbling: garbling.to_string(),
        batch_bytes,
        pipelined,
        ns_per_and,
        mand_per_s,
        bytes_per_and,
        link_mand_per_s,
        link_fraction: link_mand_per_s.map(|l| mand_per_s / l),
        compute_allows: link_mand_per_s.map(|l| compute > l),
    }
}

/// What one run of the sweep sets.
#[derive(Clone, Copy)]
struct RunConfig {
    network: Network,
    garbling: Scheme,
    batch_bytes: usize,
    pipelined: bool,
}

/// What one run measured.
struct RunResult {
    ands: u64,
    /// Elapsed ns of the slower party.
    elapsed_ns: f64,
    /// Bytes both parties sent.
    bytes: u64,
}

/// One end-to-end run of `blocks` AES-128 blocks.
fn one_run(aes: &CompiledCircuit, config: RunConfig, blocks: usize) -> Result<RunResult, CliError> {
    let RunConfig {
        network,
        garbling,
        batch_bytes,
        pipelined,
    } = config;
    let (g, e, bytes) = match network {
        Network::Loopback => {
            let mut party_args = workload_args(Workload::Aes128, blocks, HashKind::default());
            party_args.extend(["--batch-bytes".to_string(), batch_bytes.to_string()]);
            party_args.extend(["--garbling".to_string(), garbling.to_string()]);
            if !pipelined {
                party_args.push("--single-threaded".into());
            }
            let (g, e) = two_processes(&party_args)?;
            (g.elapsed_ns, e.elapsed_ns, g.bytes_sent + g.bytes_received)
        }
        Network::Emulated(link) => {
            let cfg = SessionConfig {
                batch_bytes,
                io_thread: pipelined,
                garbling,
                ..SessionConfig::default()
            };
            let (g, e, bytes) = over_link(aes, link, &cfg, blocks)?;
            (g.as_nanos() as u64, e.as_nanos() as u64, bytes)
        }
    };
    Ok(RunResult {
        ands: aes.num_ands() * blocks as u64,
        elapsed_ns: g.max(e) as f64,
        bytes,
    })
}

/// Both parties in this process, one thread each, over an emulated link; their elapsed times
/// and the bytes both sent.
fn over_link(
    aes: &CompiledCircuit,
    link: Link,
    cfg: &SessionConfig,
    blocks: usize,
) -> Result<(Duration, Duration, u64), CliError> {
    let terms = Terms {
        garbler_values: None,
        reveal: Audience::BOTH,
    };
    let garbler_batch = random_batch(PartyId::GARBLER, &terms, aes, blocks)?;
    let evaluator_batch = random_batch(PartyId::EVALUATOR, &terms, aes, blocks)?;
    let (g_ch, e_ch) = link_pair(link.rate_bits_per_sec, link.latency);
    // A failing party drops its channel end, so the other fails too instead of waiting.
    let (g, e) = std::thread::scope(|s| {
        let garbler = s.spawn(|| {
            run_party(
                g_ch,
                PartyId::GARBLER,
                cfg,
                &mut aes.stream(),
                &terms,
                &garbler_batch,
            )
        });
        let e = run_party(
            e_ch,
            PartyId::EVALUATOR,
            cfg,
            &mut aes.stream(),
            &terms,
            &evaluator_batch,
        );
        let g = garbler
            .join()
            .map_err(|_| CliError::from("the garbler thread panicked"));
        (g, e)
    });
    let (g, e) = (g??, e?);
    Ok((g.elapsed, e.elapsed, g.bytes_sent + g.bytes_received))
}

fn table(sweep: &Sweep, blocks: usize) -> String {
    let mut out = format!(
        "mixgc bench --sweep on {} (median of {} runs; AES-128 x {} blocks = {} ANDs)\n",
        sweep.machine,
        sweep.runs,
        thousands(blocks as u64),
        thousands(sweep.ands)
    );
    out += &format!(
        "garbling + evaluation in memory, one thread: {:.2} M AND/s (half-gates), {:.2} M AND/s (three-halves)\n",
        sweep.compute_mand_per_s, sweep.compute_three_halves_mand_per_s
    );
    out += &format!(
        "{:<18} {:<13} {:>9} {:<16} {:>8} {:>8} {:>6} {:>13} {:>8}  {}\n",
        "network",
        "garbling",
        "frames",
        "parties",
        "M AND/s",
        "ns/AND",
        "B/AND",
        "link M AND/s",
        "of link",
        "target ≥ 90 %"
    );
    for p in &sweep.points {
        let (link, fraction, target) = match (p.link_mand_per_s, p.link_fraction, p.compute_allows) {
            (Some(l), Some(f), Some(allows)) => (
                format!("{l:.2}"),
                format!("{:.1} %", 100.0 * f),
                match (allows, f >= TARGET_FRACTION) {
                    (false, _) => "compute-bound",
                    (true, true) => "met",
                    (true, false) => "missed",
                },
            ),
            _ => ("-".into(), "-".into(), ""),
        };
        out += &format!(
            "{:<18} {:<13} {:>5} KiB {:<16} {:>8.2} {:>8.1} {:>6.1} {link:>13} {fraction:>8}  {target}\n",
            p.network,
            p.garbling,
            p.batch_bytes >> 10,
            mode(p.pipelined),
            p.mand_per_s,
            p.ns_per_and,
            p.bytes_per_and
        );
    }
    out += &three_halves_summary(&sweep.points);
    out += "Times run from session setup to output (base OT included), slower party; emulated \
links run both parties in this process.\n";
    out
}

/// Per emulated link, the best three-halves AND/s against the best half-gates AND/s (over
/// frame sizes and modes), with the target of [`THREE_HALVES_TARGET`]×.
fn three_halves_summary(points: &[Point]) -> String {
    let mut out = String::new();
    for network in NETWORKS {
        if network.schemes().len() < 2 {
            continue;
        }
        let name = network.name();
        let best = |garbling: Scheme| {
            points
                .iter()
                .filter(|p| p.network == name && p.garbling == garbling.name())
                .map(|p| (p.mand_per_s, p.bytes_per_and))
                .max_by(|a, b| a.0.total_cmp(&b.0))
        };
        if let (Some((half, half_bytes)), Some((three, three_bytes))) =
            (best(Scheme::HalfGates), best(Scheme::ThreeHalves))
        {
            let ratio = three / half;
            out += &format!(
                "{name}: three-halves {three:.2} M AND/s ({three_bytes:.1} B/AND) vs half-gates {half:.2} M AND/s ({half_bytes:.1} B/AND): {ratio:.2}x, target ≥ {THREE_HALVES_TARGET}x {}\n",
                if ratio >= THREE_HALVES_TARGET { "met" } else { "missed" }
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The smallest emulated run of each scheme: one AES-128 block over the 10 Gbps link gives
    /// the right counts, and three-halves sends fewer bytes per AND.
    #[test]
    fn one_block_over_an_emulated_link_with_each_scheme() {
        let aes = Loaded::parse(AES_128, "circuits/aes_128.txt").unwrap().compiled;
        let bytes = SCHEMES.map(|garbling| {
            let config = RunConfig {
                network: NETWORKS[2],
                garbling,
                batch_bytes: 64 << 10,
                pipelined: true,
            };
            let r = one_run(&aes, config, 1).unwrap();
            assert_eq!(r.ands, 6400);
            assert!(r.elapsed_ns > 0.0);
            r.bytes as f64 / r.ands as f64
        });
        assert!(bytes[1] < bytes[0] - 6.0, "{bytes:?}");
        let p = point(
            NETWORKS[2],
            Scheme::ThreeHalves,
            64 << 10,
            true,
            (100.0, bytes[1]),
            1.0,
        );
        assert!(
            three_halves_summary(&[p]).is_empty(),
            "no half-gates point to compare"
        );
    }
}
