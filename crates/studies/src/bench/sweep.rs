//! `mixgc bench --sweep`: end-to-end AES-128 throughput for each table-frame size (MEG §III's
//! batch size) × pipelined (a dedicated I/O thread per party) or single-threaded parties, over
//! loopback TCP between two processes and over emulated links in one process.
//!
//! An emulated link also gets its rate in ANDs (two 16-byte rows per AND) and the fraction of
//! it achieved. The target is ≥ 90 % of the link's rate whenever compute allows, i.e. when
//! garbling plus evaluating in memory on one thread is faster than the link.

use std::time::Duration;

use mixgc_compile::CompiledCircuit;
use mixgc_core::{AesKernel, HashKind};
use mixgc_net::link_pair;
use mixgc_session::{run_party, Audience, PartyId, SessionConfig, Terms};
use serde::Serialize;

use super::{
    aes_blocks, cpu_flags, in_memory, machine, median, progress, random_batch, two_processes, workload_args,
};
use super::{BenchArgs, Workload};
use crate::common::thousands;
use crate::common::{write_stdout, CliError};
use mixgc_circuit::shipped::AES_128;
use mixgc_compile::Loaded;

/// ANDs of the sweep's workload unless `--ands` says otherwise.
const SWEEP_ANDS: u64 = 2_000_000;
/// Frame sizes swept (`SessionConfig::batch_bytes`).
const BATCH_BYTES: [usize; 5] = [64 << 10, 256 << 10, 1 << 20, 4 << 20, 16 << 20];
/// Bytes on the wire per AND: two half-gate rows.
const BYTES_PER_AND: f64 = 32.0;
/// The target: this fraction of the link's rate whenever compute allows.
const TARGET_FRACTION: f64 = 0.9;

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
    batch_bytes: usize,
    /// With the I/O thread (`SessionConfig::io_thread`).
    pipelined: bool,
    /// Session setup to output, base OT included, slower party; median.
    ns_per_and: f64,
    mand_per_s: f64,
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
    points: Vec<Point>,
}

pub(super) fn sweep(args: &BenchArgs) -> Result<(), CliError> {
    let aes = Loaded::parse(AES_128, "circuits/aes_128.txt")?.compiled;
    let blocks = aes_blocks(&aes, args.ands.unwrap_or(SWEEP_ANDS));
    let ands = aes.num_ands() * blocks as u64;
    let configs = NETWORKS.len() * BATCH_BYTES.len() * 2;
    let bar = progress(((configs + 1) * args.runs) as u64);

    let mut compute = Vec::new();
    for run in 0..args.runs {
        bar.set_message(format!("in-memory run {}/{}", run + 1, args.runs));
        let (garble, eval) = in_memory(&aes, blocks, HashKind::default())?;
        compute.push(1e3 / (garble + eval));
        bar.inc(1);
    }
    let compute_mand_per_s = median(compute);

    let mut points = Vec::with_capacity(configs);
    for network in NETWORKS {
        for batch_bytes in BATCH_BYTES {
            for pipelined in [true, false] {
                let mut ns = Vec::new();
                for run in 0..args.runs {
                    bar.set_message(format!(
                        "{}, {} KiB frames, {}: run {}/{}",
                        network.name(),
                        batch_bytes >> 10,
                        mode(pipelined),
                        run + 1,
                        args.runs
                    ));
                    let (done, elapsed_ns) = one_run(&aes, network, batch_bytes, pipelined, blocks)?;
                    ns.push(elapsed_ns / done as f64);
                    bar.inc(1);
                }
                points.push(point(
                    network,
                    batch_bytes,
                    pipelined,
                    median(ns),
                    compute_mand_per_s,
                ));
            }
        }
    }
    bar.finish_and_clear();
    let sweep = Sweep {
        machine: machine(),
        aes_kernel: AesKernel::active().name(),
        cpu_flags: cpu_flags(),
        runs: args.runs,
        ands,
        compute_mand_per_s,
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

fn point(network: Network, batch_bytes: usize, pipelined: bool, ns_per_and: f64, compute: f64) -> Point {
    let mand_per_s = 1e3 / ns_per_and;
    let link_mand_per_s = match network {
        Network::Loopback => None,
        Network::Emulated(l) => Some(l.rate_bits_per_sec as f64 / (8.0 * BYTES_PER_AND) / 1e6),
    };
    Point {
        network: network.name(),
        batch_bytes,
        pipelined,
        ns_per_and,
        mand_per_s,
        link_mand_per_s,
        link_fraction: link_mand_per_s.map(|l| mand_per_s / l),
        compute_allows: link_mand_per_s.map(|l| compute > l),
    }
}

/// One end-to-end run of `blocks` AES-128 blocks: (ANDs, elapsed ns of the slower party).
fn one_run(
    aes: &CompiledCircuit,
    network: Network,
    batch_bytes: usize,
    pipelined: bool,
    blocks: usize,
) -> Result<(u64, f64), CliError> {
    let (g, e) = match network {
        Network::Loopback => {
            let mut party_args = workload_args(Workload::Aes128, blocks, HashKind::default());
            party_args.extend(["--batch-bytes".to_string(), batch_bytes.to_string()]);
            if !pipelined {
                party_args.push("--single-threaded".into());
            }
            let (g, e) = two_processes(&party_args)?;
            (g.elapsed_ns, e.elapsed_ns)
        }
        Network::Emulated(link) => {
            let cfg = SessionConfig {
                batch_bytes,
                io_thread: pipelined,
                ..SessionConfig::default()
            };
            let (g, e) = over_link(aes, link, &cfg, blocks)?;
            (g.as_nanos() as u64, e.as_nanos() as u64)
        }
    };
    Ok((aes.num_ands() * blocks as u64, g.max(e) as f64))
}

/// Both parties in this process, one thread each, over an emulated link; their elapsed times.
fn over_link(
    aes: &CompiledCircuit,
    link: Link,
    cfg: &SessionConfig,
    blocks: usize,
) -> Result<(Duration, Duration), CliError> {
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
    Ok((g.elapsed, e.elapsed))
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
        "garbling + evaluation in memory, one thread: {:.2} M AND/s\n",
        sweep.compute_mand_per_s
    );
    out += &format!(
        "{:<18} {:>9} {:<16} {:>8} {:>8} {:>13} {:>8}  {}\n",
        "network", "frames", "parties", "M AND/s", "ns/AND", "link M AND/s", "of link", "target ≥ 90 %"
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
            "{:<18} {:>5} KiB {:<16} {:>8.2} {:>8.1} {link:>13} {fraction:>8}  {target}\n",
            p.network,
            p.batch_bytes >> 10,
            mode(p.pipelined),
            p.mand_per_s,
            p.ns_per_and
        );
    }
    out += "Times run from session setup to output (base OT included), slower party; emulated \
links run both parties in this process.\n";
    out
}
