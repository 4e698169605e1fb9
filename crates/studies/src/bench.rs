//! `mixgc bench`: the figures in the README, measured on this machine.
//!
//! * in memory: the garbler and evaluator cores on AES-128 repeated until ≥ 10 M ANDs
//!   (tables garbled per block, then evaluated; hashing, tables and slots are all real);
//! * end to end: two child processes (`mixgc bench-party`) over 127.0.0.1, from TCP connect
//!   to output, base OT and input OTs included; peak RSS is each child's VmHWM; plain TCP
//!   or, with `--transport tls`, TLS 1.3 with ephemeral certificates pinned by fingerprint;
//! * `--sweep` ([`sweep`]): end-to-end throughput over frame sizes × pipelined or not, on
//!   loopback TCP and on emulated links;
//! * `--memory` ([`memory`]): peak RSS of both parties streaming vs holding the whole circuit;
//! * `--preprocess` ([`prep`]): preprocessing mode's offline time and online latency;
//! * `--mixed --parties N` ([`mixed`]): the n-party mixed-mode conversions, triples and
//!   distributed garbling (issue #18), one JSON record per thing;
//! * `--security malicious` ([`malicious`]): authenticated garbling, end to end, and the
//!   matrix-product time vs memory sweep over `--batch-ands` (`--sweep-batch`).
//!
//! Every figure is the median of `--runs` runs.

mod malicious;
mod memory;
mod mixed;
mod nparty;
mod prep;
mod sweep;

use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use clap::Args;
use mixgc_compile::{compile, CompiledCircuit};
use mixgc_core::{cpu_features, AesKernel, HashKind, Reporter};
use mixgc_garble::Scheme;
use mixgc_program::library;
use mixgc_session::{run_party, Audience, PartyId, PartyReport as Report, SessionConfig, Terms};
use serde::{Deserialize, Serialize};

use crate::common::thousands;
use crate::common::{owned_values, parse_garbling, role_parser, Connection, SessionOptions};
use crate::common::{random_values, LibraryRun, MaliciousSession, ModelOptions};
use crate::common::{write_stdout, CliError, Feedback};
use crate::cpu_time::InMemory;
use mixgc_circuit::shipped::AES_128;
use mixgc_compile::Loaded;

pub use mixed::{batch_of, MixedItemReport, MixedPartyReport, DEFAULT_BATCH, MEASURED};

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Print one JSON object on stdout instead of a table (besides the figures: the machine,
    /// its AES CPU flags, the AES kernel that ran and the default hash; `MIXGC_AES_KERNEL`
    /// forces a kernel, see `mixgc info --cpu`).
    #[arg(long)]
    json: bool,
    /// Runs per figure; the median is reported.
    #[arg(long, default_value_t = 5)]
    runs: usize,
    /// AND gates in the throughput workloads (AES-128 blocks back to back) [default:
    /// 10,000,000; 2,000,000 with --sweep].
    #[arg(long)]
    ands: Option<u64>,
    /// Instead: library ops through two-party runs of programs (per-op time at 64 bits,
    /// 10x10 64-bit matrix product time and memory).
    #[arg(long, group = "mode")]
    ops: bool,
    /// With --ops: how the programs garble their ANDs, half-gates (default) or three-halves.
    #[arg(long, requires = "ops", value_name = "SCHEME", value_parser = parse_garbling)]
    garbling: Option<Scheme>,
    /// Instead: end-to-end AES-128 throughput for frame sizes 64 KiB..16 MiB, pipelined (I/O
    /// thread) or single-threaded, over loopback TCP and emulated 1 Gbps / 1 ms and
    /// 10 Gbps / 0.1 ms links.
    #[arg(long, group = "mode")]
    sweep: bool,
    /// Instead: peak RSS of both parties for EDT-256 streamed as a program and as a whole
    /// circuit in memory, and for a chain of AES-128 encryptions (≥ 10^8 ANDs, run once).
    #[arg(long, group = "mode")]
    memory: bool,
    /// Instead: preprocessing mode on AES-128, the offline phase and the online latency
    /// (masked inputs, labels, evaluation from the stored tables) timed separately.
    #[arg(long, group = "mode")]
    preprocess: bool,
    /// How the two processes connect: plain TCP, or TLS 1.3 with ephemeral certificates
    /// pinned by fingerprint (its handshake is counted in the latency from connect).
    #[arg(long, value_enum, default_value = "tcp", conflicts_with = "preprocess")]
    transport: Transport,
    /// With --memory: ANDs of the AES chain (rounded up to whole encryptions of 6,400 ANDs).
    #[arg(long, default_value_t = 100_000_000, requires = "memory", value_name = "N")]
    chain_ands: u64,
    /// With --memory: string length of the edit-distance workload.
    #[arg(long, default_value_t = 256, requires = "memory", value_name = "N")]
    edit_size: usize,
    /// Instead: an n-party run among N child processes of `mixgc party` over loopback
    /// (outputs checked against plaintext): wall clock, offline and online times, bytes per
    /// AND of the busiest ordered pair, peak RSS. With --ands: the chain's length.
    #[arg(long, group = "mode", value_name = "N")]
    parties: Option<usize>,
    /// With --parties: the protocol.
    #[arg(long, value_enum, default_value = "bmr", requires = "parties")]
    protocol: nparty::NpartyProtocol,
    /// With --parties: what the parties compute.
    #[arg(
        long = "workload",
        value_enum,
        default_value = "auction",
        requires = "parties",
        value_name = "WORKLOAD"
    )]
    nparty_workload: nparty::NpartyWorkload,
    /// With --parties: bid width of the auction.
    #[arg(long, default_value_t = 32, requires = "parties", value_name = "B")]
    bits: u32,
    /// With --parties: candidates of the vote.
    #[arg(long, default_value_t = 8, requires = "parties", value_name = "C")]
    candidates: usize,
    /// With --parties: instead, the mixed-mode conversions (B2A, A2B), triples (Boolean,
    /// arithmetic from threshold HE), distributed garbling of AND gates and the Y form (B→Y,
    /// Y→B, garbled ANDs) on BMR and on distributed garbling among N child processes of
    /// `mixgc mixed-bench-party`, outputs checked against plaintext; one JSON record per
    /// thing, named by "what": b2a, a2b, triple_bool, triple_arith, garble_and, b2y, y2b,
    /// and_yao, b2y_lut, y2b_lut, and_yao_lut (the last three the `--y-engine lut` Y form:
    /// B→Y's opening and key chain online, Y→B local, AND gates distributed-garbled
    /// offline and evaluated online with their inputs' B→Y); every figure per item
    /// (offline_ms and online_ms: wall clock of the slowest party; offline_cpu_ms and
    /// online_cpu_ms: CPU time, user + system, of one party's process, the maximum over
    /// parties, with offline_cpu_ms_mean and online_cpu_ms_mean the mean — what one machine
    /// per party would see, while the wall clock of N processes on this machine's cores also
    /// counts their contention; bytes each party sent and received, the maximum and the
    /// mean). A human-readable summary goes to stderr.
    #[arg(long, requires = "parties")]
    mixed: bool,
    /// With --mixed: items per batch, 1 to 16384 (one ciphertext of slots, the default):
    /// bits for B2A, triples; A2B converts K/32 values (their B2A fills K slots);
    /// distributed garbling garbles K/8192 AND gates (at least one); B→Y and Y→B convert K
    /// bits; the Y form garbles max(K, 1024) ANDs in one BMR batch; its Lut records convert
    /// min(K, 64) bits and garble min(K, 16) ANDs (megabytes a gate).
    #[arg(long, requires = "mixed", value_name = "K")]
    batch: Option<usize>,
    /// With --parties: an emulated round-trip time on every link, 0 to 10000 ms.
    #[arg(long, default_value_t = 0, requires = "parties", value_name = "MS", value_parser = clap::value_parser!(u64).range(0..=10_000))]
    rtt_ms: u64,
    /// Security model: with `malicious`, the malicious-model figures (AES-128 from connect,
    /// amortized over 1,000 executions, AND/s on a 10^7-AND circuit, peak RSS, 64-bit
    /// matrix products at D = 10, 20, 30 beside TinyGarble2's thesis Table 3.2).
    #[command(flatten)]
    model: ModelOptions,
    /// With --security malicious: instead, the 10x10 64-bit matrix product's run time and
    /// peak RSS at several --batch-ands (thesis Fig. 3.2).
    #[arg(long)]
    sweep_batch: bool,
    /// With --sweep-batch: the --batch-ands values to sweep
    /// [default: 4096,16384,65536,262144,1048576].
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "N[,N...]",
        requires = "sweep_batch"
    )]
    sweep_batches: Option<Vec<usize>>,
    /// With --security malicious: the matrix sides D to run [default: 10,20,30; with
    /// --sweep-batch, 10].
    #[arg(long, value_delimiter = ',', value_name = "D[,D...]")]
    dims: Option<Vec<usize>>,
    #[command(flatten)]
    feedback: Feedback,
}

/// How `mixgc bench`'s two processes connect.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Transport {
    Tcp,
    Tls,
}

/// Each role's TLS flags (garbler, evaluator) for the child processes, once ephemeral
/// certificates are made; unset for plain TCP.
static TLS_FLAGS: OnceLock<[Vec<String>; 2]> = OnceLock::new();

/// The directory of the ephemeral certificates, removed when the bench ends.
struct EphemeralKeys(PathBuf);

impl Drop for EphemeralKeys {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Makes a key and certificate for each party and the flags that pin each to the other.
fn ephemeral_keys() -> Result<EphemeralKeys, CliError> {
    let dir = std::env::temp_dir().join(format!("mixgc-bench-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let keys = EphemeralKeys(dir);
    let names = ["localhost".to_string(), "127.0.0.1".to_string()];
    let made = [
        mixgc_net::generate(&names, false)?,
        mixgc_net::generate(&names, false)?,
    ];
    let mut flags: [Vec<String>; 2] = Default::default();
    for (i, m) in made.iter().enumerate() {
        let (cert, key) = (
            keys.0.join(format!("cert{i}.pem")),
            keys.0.join(format!("key{i}.pem")),
        );
        std::fs::write(&cert, &m.cert_pem)?;
        std::fs::write(&key, &m.key_pem)?;
        let peer = mixgc_net::fingerprint_hex(&made[1 - i].fingerprint);
        flags[i] = vec![
            "--cert".into(),
            cert.display().to_string(),
            "--key".into(),
            key.display().to_string(),
            "--peer-fingerprint".into(),
            peer,
        ];
    }
    TLS_FLAGS
        .set(flags)
        .map_err(|_| "the bench's TLS keys were already made")?;
    Ok(keys)
}

/// ANDs of the default throughput workload.
const DEFAULT_ANDS: u64 = 10_000_000;

/// AES-128 blocks (at least one) that make about `ands` ANDs.
fn aes_blocks(aes: &CompiledCircuit, ands: u64) -> usize {
    ands.div_ceil(aes.num_ands()).max(1) as usize
}

/// The library ops `--ops` measures: (op, width, size).
const OP_WORKLOADS: [(&str, u32, Option<usize>); 6] = [
    ("add", 64, None),
    ("mul", 64, None),
    ("div", 64, None),
    ("sqrt", 64, None),
    ("hamming", 64, None),
    ("matmul", 64, Some(10)),
];

/// One `--ops` record.
#[derive(Serialize)]
struct OpFigures {
    op: &'static str,
    width: u32,
    size: Option<usize>,
    ands: u64,
    /// Connect to output, both parties, median.
    total_ms: f64,
    /// The same without the base OTs of the session setup.
    online_ms: f64,
    bytes: u64,
    peak_rss_garbler_kib: u64,
    peak_rss_evaluator_kib: u64,
}

/// Library ops as programs between two processes (gate by gate, `mixgc example`'s path).
fn bench_ops(args: &BenchArgs) -> Result<(), CliError> {
    let bar = args
        .feedback
        .steps("bench", (OP_WORKLOADS.len() * args.runs) as u64);
    let mut records = Vec::new();
    for (op, width, size) in OP_WORKLOADS {
        let mut party_args = vec![
            "--op".to_string(),
            op.to_string(),
            "--width".into(),
            width.to_string(),
        ];
        if let Some(n) = size {
            party_args.extend(["--size".to_string(), n.to_string()]);
        }
        if let Some(scheme) = args.garbling {
            party_args.extend(["--garbling".to_string(), scheme.name().to_string()]);
        }
        let (mut total, mut online, mut rg, mut re) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let mut last = None;
        for run in 0..args.runs {
            bar.note(&format!("{op} run {}/{}", run + 1, args.runs));
            let (g, e) = two_processes(&party_args)?;
            let elapsed = g.elapsed_ns.max(e.elapsed_ns) as f64;
            total.push(elapsed / 1e6);
            online.push((elapsed - g.base_ot_ns.max(e.base_ot_ns) as f64) / 1e6);
            rg.push(g.peak_rss_kib as f64);
            re.push(e.peak_rss_kib as f64);
            last = Some((g.ands, g.bytes_sent + e.bytes_sent));
            bar.advance(1);
        }
        let (ands, bytes) = last.unwrap_or_default();
        records.push(OpFigures {
            op,
            width,
            size,
            ands,
            total_ms: median(total),
            online_ms: median(online),
            bytes,
            peak_rss_garbler_kib: median(rg) as u64,
            peak_rss_evaluator_kib: median(re) as u64,
        });
    }
    bar.end();
    if args.json {
        return write_stdout(&format!("{}\n", serde_json::to_string(&records)?));
    }
    let mut out = format!(
        "mixgc bench --ops on {} (median of {} runs, two processes over 127.0.0.1, {})\n",
        machine(),
        args.runs,
        args.garbling.unwrap_or_default()
    );
    out += &format!(
        "{:<16} {:>10} {:>10} {:>10} {:>10} {:>12} {:>12}\n",
        "op", "ANDs", "total ms", "online ms", "bytes", "RSS g (KiB)", "RSS e (KiB)"
    );
    for r in &records {
        let name = match r.size {
            Some(n) => format!("{} {n}x{n}/{}", r.op, r.width),
            None => format!("{}/{}", r.op, r.width),
        };
        out += &format!(
            "{name:<16} {:>10} {:>10.2} {:>10.2} {:>10} {:>12} {:>12}\n",
            thousands(r.ands),
            r.total_ms,
            r.online_ms,
            thousands(r.bytes),
            thousands(r.peak_rss_garbler_kib),
            thousands(r.peak_rss_evaluator_kib)
        );
    }
    out += "total: TCP connect to output, base OT included; online: without the base OTs.\n";
    write_stdout(&out)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
pub enum Workload {
    /// AES-128 (key from the garbler, plaintext from the evaluator), repeated.
    Aes128,
    /// 32-bit millionaires' comparison.
    Millionaires32,
}

#[derive(Args, Debug)]
pub struct PartyArgs {
    #[arg(long, value_parser = role_parser())]
    role: PartyId,
    #[command(flatten)]
    connection: Connection,
    /// A built-in circuit workload (run as a compiled circuit)...
    #[arg(long, value_enum, required_unless_present = "op")]
    workload: Option<Workload>,
    /// ...or a library op (run gate by gate as a program).
    #[arg(long, conflicts_with = "workload")]
    op: Option<String>,
    #[arg(long)]
    width: Option<u32>,
    #[arg(long)]
    size: Option<usize>,
    /// With --op: record the op as a whole circuit, compile it and run it from memory
    /// (instead of streaming the program gate by gate).
    #[arg(long, requires = "op")]
    whole_circuit: bool,
    #[arg(long, default_value_t = 1)]
    executions: usize,
    #[command(flatten)]
    session: SessionOptions,
    #[command(flatten)]
    model: ModelOptions,
}

/// What a bench party prints on stdout (one JSON line).
#[derive(Serialize, Deserialize, Debug)]
struct PartyReport {
    elapsed_ns: u64,
    /// Opening the connection (TCP connect, and the TLS handshake with `--transport tls`);
    /// for the listener, also the wait for its peer.
    #[serde(default)]
    connect_ns: u64,
    base_ot_ns: u64,
    ands: u64,
    bytes_sent: u64,
    bytes_received: u64,
    peak_rss_kib: u64,
}

fn workload(w: Workload) -> Result<Loaded, CliError> {
    match w {
        Workload::Aes128 => Ok(Loaded::parse(AES_128, "circuits/aes_128.txt")?),
        Workload::Millionaires32 => Ok(Loaded::new(
            library::record("millionaires", Some(32), None)?.circuit,
        )),
    }
}

pub fn party(args: PartyArgs) -> Result<(), CliError> {
    let cfg = args.session.config().for_command(mixgc_session::Command::Bench);
    let mut connect = Duration::ZERO;
    let r = if args.model.malicious() {
        malicious_party(&args, &mut connect)?
    } else {
        semi_honest_party(&args, &cfg, &mut connect)?
    };
    let report = PartyReport {
        elapsed_ns: r.elapsed.as_nanos() as u64,
        connect_ns: connect.as_nanos() as u64,
        base_ot_ns: r.base_ot.as_nanos() as u64,
        ands: r.ands,
        bytes_sent: r.bytes_sent,
        bytes_received: r.bytes_received,
        peak_rss_kib: peak_rss_kib(),
    };
    write_stdout(&format!("{}\n", serde_json::to_string(&report)?))
}

/// A bench party in the malicious model: a library op as a `MaliciousProgram`, or a
/// workload's compiled circuit `--executions` times.
fn malicious_party(args: &PartyArgs, connect: &mut Duration) -> Result<Report, CliError> {
    if args.whole_circuit {
        return Err("--whole-circuit is not supported with --security malicious".into());
    }
    let seed = args.session.insecure_seed;
    let open = |connect: &mut Duration| -> Result<_, CliError> {
        let start = Instant::now();
        let ch = args.session.open(&args.connection)?;
        *connect = start.elapsed();
        MaliciousSession::setup(ch, args.role, mixgc_session::Command::Bench, seed)
    };
    match (&args.op, args.workload) {
        (Some(op), _) => {
            let op = LibraryRun::new(op, args.width, args.size)?;
            let (owned, widths) = op.owned(args.role);
            let inputs = random_values(&owned, &widths);
            let mut s = open(connect)?;
            op.run_malicious(&mut s, args.model.batch_ands, seed, inputs)
        }
        (None, Some(w)) => {
            let circuit = workload(w)?.compiled;
            let terms = Terms {
                garbler_values: None,
                reveal: Audience::BOTH,
            };
            let batch = random_batch(args.role, &terms, &circuit, args.executions)?;
            let mterms = mixgc_malicious::Terms {
                garbler_values: terms.owners(circuit.input_widths())?.0.len(),
                reveal: Audience::BOTH,
                batch_ands: args.model.batch_ands,
            };
            let mut s = open(connect)?;
            Ok(s.run_stream(&mut circuit.stream(), &mterms, &batch, seed)?.0)
        }
        (None, None) => Err("give --workload or --op".into()),
    }
}

fn semi_honest_party(
    args: &PartyArgs,
    cfg: &SessionConfig,
    connect: &mut Duration,
) -> Result<Report, CliError> {
    let r = match (&args.op, args.workload) {
        (Some(op), _) if args.whole_circuit => {
            let recorded = library::record(op, args.width, args.size)?;
            let terms = Terms {
                garbler_values: Some(recorded.garbler_values),
                reveal: Audience::BOTH,
            };
            // The whole circuit in memory: compiled, then executed from memory.
            let compiled = compile(&recorded.circuit);
            drop(recorded);
            run_compiled(args, cfg, &compiled, &terms, connect)?
        }
        (Some(op), _) => {
            let op = LibraryRun::new(op, args.width, args.size)?;
            let (owned, widths) = op.owned(args.role);
            let start = Instant::now();
            let ch = args.session.open(&args.connection)?;
            *connect = start.elapsed();
            op.run(ch, args.role, cfg, random_values(&owned, &widths))?
        }
        (None, Some(w)) => {
            let terms = Terms {
                garbler_values: None,
                reveal: Audience::BOTH,
            };
            run_compiled(args, cfg, &workload(w)?.compiled, &terms, connect)?
        }
        (None, None) => return Err("give --workload or --op".into()),
    };
    Ok(r)
}

/// Runs `circuit` `--executions` times in one batch on random inputs, over the connection;
/// `connect` is set to the time it took to open.
fn run_compiled(
    args: &PartyArgs,
    cfg: &SessionConfig,
    circuit: &CompiledCircuit,
    terms: &Terms,
    connect: &mut Duration,
) -> Result<Report, CliError> {
    let batch = random_batch(args.role, terms, circuit, args.executions)?;
    let start = Instant::now();
    let ch = args.session.open(&args.connection)?;
    *connect = start.elapsed();
    Ok(run_party(
        ch,
        args.role,
        cfg,
        &mut circuit.stream(),
        terms,
        &batch,
    )?)
}

/// `executions` random input sets of the values `role` owns in `circuit` under `terms`.
fn random_batch(
    role: PartyId,
    terms: &Terms,
    circuit: &CompiledCircuit,
    executions: usize,
) -> Result<Vec<Vec<Vec<bool>>>, CliError> {
    let widths = circuit.input_widths();
    let owned = owned_values(role, terms, widths)?;
    Ok((0..executions).map(|_| random_values(&owned, widths)).collect())
}

/// Peak resident set of this process (VmHWM), in KiB; 0 where /proc is unavailable.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// Runs `mixgc bench-party ARGS` as a garbler and an evaluator in two child processes over
/// 127.0.0.1 (TLS after `--transport tls` made its keys) and returns their reports.
fn two_processes(args: &[String]) -> Result<(PartyReport, PartyReport), CliError> {
    let exe = std::env::current_exe()?;
    let spawn = |role: &str, endpoint: [&str; 2]| {
        let tls = TLS_FLAGS
            .get()
            .map(|f| f[usize::from(role == "evaluator")].as_slice());
        Command::new(&exe)
            .args(["bench-party", "--role", role, endpoint[0], endpoint[1]])
            .args(args)
            .args(tls.unwrap_or_default())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
    };
    let mut garbler = spawn("garbler", ["--listen", "127.0.0.1:0"])?;
    let mut first = String::new();
    let mut stderr = BufReader::new(garbler.stderr.take().ok_or("no stderr")?);
    stderr.read_line(&mut first)?;
    // Keep reading: the garbler may write more (a note, a warning) and must not hit a
    // closed pipe.
    let rest = std::thread::spawn(move || {
        let mut rest = String::new();
        let _ = stderr.read_to_string(&mut rest);
        rest
    });
    let addr = first
        .trim()
        .strip_prefix("listening on ")
        .ok_or_else(|| format!("garbler said: {first}"))?;
    let evaluator = spawn("evaluator", ["--connect", addr])?;
    let parse = |out: std::process::Output, who: &str| -> Result<PartyReport, CliError> {
        if !out.status.success() {
            return Err(format!("{who} failed: {}", String::from_utf8_lossy(&out.stderr)).into());
        }
        Ok(serde_json::from_slice(&out.stdout)?)
    };
    let e = parse(evaluator.wait_with_output()?, "evaluator")?;
    let mut g_out = garbler.wait_with_output()?;
    g_out.stderr = rest.join().unwrap_or_default().into_bytes();
    let g = parse(g_out, "garbler")?;
    Ok((g, e))
}

/// `bench-party` arguments for a circuit workload.
fn workload_args(w: Workload, executions: usize, hash: HashKind) -> Vec<String> {
    let w = format!("{w:?}").to_lowercase();
    [
        "--workload",
        &w,
        "--executions",
        &executions.to_string(),
        "--hash",
        &hash.to_string(),
    ]
    .map(String::from)
    .to_vec()
}

/// In-memory garbling and evaluation of `blocks` AES-128 blocks with `garbling`
/// ([`crate::cpu_time::InMemory`], the first and last blocks' outputs checked); returns
/// (garble, eval) ns/AND.
fn in_memory(
    aes: &CompiledCircuit,
    blocks: usize,
    hash: HashKind,
    garbling: Scheme,
) -> Result<(f64, f64), CliError> {
    let mut pair = InMemory::new(hash, garbling, aes.num_ands());
    let (mut garble, mut eval) = (Duration::ZERO, Duration::ZERO);
    for block in 0..blocks {
        let (g, e) = pair
            .run(aes, block == 0 || block + 1 == blocks)
            .map_err(|_| "in-memory garbling produced a wrong AES output")?;
        garble += g;
        eval += e;
    }
    let ands = (aes.num_ands() * blocks as u64) as f64;
    Ok((garble.as_nanos() as f64 / ands, eval.as_nanos() as f64 / ands))
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// The figures of one gate hash.
#[derive(Serialize, Default)]
struct HashFigures {
    garble_ns_per_and: f64,
    eval_ns_per_and: f64,
    e2e_ns_per_and: f64,
    e2e_and_per_s: f64,
    bytes_per_and: f64,
    peak_rss_garbler_kib: u64,
    peak_rss_evaluator_kib: u64,
}

fn measure_hash(
    aes: &CompiledCircuit,
    args: &BenchArgs,
    hash: HashKind,
    bar: &Reporter,
) -> Result<HashFigures, CliError> {
    let blocks = aes_blocks(aes, args.ands.unwrap_or(DEFAULT_ANDS));
    let mut f = HashFigures::default();
    let (mut g, mut e) = (Vec::new(), Vec::new());
    for run in 0..args.runs {
        bar.note(&format!(
            "{hash}: in-memory run {}/{} ({} ANDs)",
            run + 1,
            args.runs,
            thousands(aes.num_ands() * blocks as u64)
        ));
        let (gn, en) = in_memory(aes, blocks, hash, Scheme::HalfGates)?;
        bar.advance(1);
        g.push(gn);
        e.push(en);
    }
    f.garble_ns_per_and = median(g);
    f.eval_ns_per_and = median(e);
    let (mut ns, mut bpa, mut rg, mut re) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for run in 0..args.runs {
        bar.note(&format!(
            "{hash}: end-to-end run {}/{} (two processes)",
            run + 1,
            args.runs
        ));
        let (gr, er) = two_processes(&workload_args(Workload::Aes128, blocks, hash))?;
        bar.advance(1);
        let elapsed = gr.elapsed_ns.max(er.elapsed_ns) as f64;
        ns.push(elapsed / gr.ands as f64);
        bpa.push((gr.bytes_sent + er.bytes_sent) as f64 / gr.ands as f64);
        rg.push(gr.peak_rss_kib as f64);
        re.push(er.peak_rss_kib as f64);
    }
    f.e2e_ns_per_and = median(ns);
    f.e2e_and_per_s = 1e9 / f.e2e_ns_per_and;
    f.bytes_per_and = median(bpa);
    f.peak_rss_garbler_kib = median(rg) as u64;
    f.peak_rss_evaluator_kib = median(re) as u64;
    Ok(f)
}

/// Medians of single executions, in ms.
struct Latency {
    /// Connected to output.
    session: f64,
    base_ot: f64,
    /// The connecting party's connect (with TLS, the whole handshake).
    connect: f64,
    /// From the connecting party's connect to output.
    from_connect: f64,
}

fn latency(w: Workload, runs: usize, bar: &Reporter) -> Result<Latency, CliError> {
    let (mut ms, mut ot, mut connect, mut from_connect) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for run in 0..runs {
        let name = format!("{w:?}").to_lowercase();
        bar.note(&format!("{name} latency run {}/{runs}", run + 1));
        let (g, e) = two_processes(&workload_args(w, 1, HashKind::default()))?;
        bar.advance(1);
        let session = g.elapsed_ns.max(e.elapsed_ns) as f64 / 1e6;
        ms.push(session);
        ot.push(g.base_ot_ns.max(e.base_ot_ns) as f64 / 1e6);
        connect.push(e.connect_ns as f64 / 1e6);
        from_connect.push(e.connect_ns as f64 / 1e6 + session);
    }
    Ok(Latency {
        session: median(ms),
        base_ot: median(ot),
        connect: median(connect),
        from_connect: median(from_connect),
    })
}

pub fn bench(args: BenchArgs) -> Result<(), CliError> {
    if args.runs == 0 {
        return Err("--runs must be at least 1".into());
    }
    let _keys = match args.transport {
        Transport::Tls => Some(ephemeral_keys()?),
        Transport::Tcp => None,
    };
    if args.model.malicious() {
        return malicious::bench_malicious(&args);
    }
    if args.sweep_batch || args.dims.is_some() {
        return Err("--sweep-batch and --dims go with --security malicious".into());
    }
    if args.ops {
        return bench_ops(&args);
    }
    if args.sweep {
        return sweep::sweep(&args);
    }
    if args.memory {
        return memory::memory(&args);
    }
    if args.preprocess {
        return prep::preprocess(&args);
    }
    if let (Some(n), true) = (args.parties, args.mixed) {
        return mixed::bench_mixed(&args, n);
    }
    if let Some(n) = args.parties {
        return nparty::bench_nparty(&args, n);
    }
    let aes = Loaded::parse(AES_128, "circuits/aes_128.txt")?.compiled;
    let bar = args.feedback.steps("bench", 6 * args.runs as u64);
    let tccr = measure_hash(&aes, &args, HashKind::Tccr, &bar)?;
    let rekeyed = measure_hash(&aes, &args, HashKind::Rekeyed, &bar)?;
    let aes_latency = latency(Workload::Aes128, args.runs, &bar)?;
    let millionaires = latency(Workload::Millionaires32, args.runs, &bar)?;
    let (aes128_ms, base_ot_ms, millionaires32_ms) =
        (aes_latency.session, aes_latency.base_ot, millionaires.session);
    let transport = match args.transport {
        Transport::Tcp => "tcp",
        Transport::Tls => "tls",
    };
    bar.end();
    let mut json = serde_json::json!({
        "machine": machine(),
        "aes_kernel": AesKernel::active().name(),
        "hash": HashKind::default().to_string(),
        "cpu_flags": cpu_flags(),
        "runs": args.runs,
        "workload": format!("AES-128 x {} blocks", aes_blocks(&aes, args.ands.unwrap_or(DEFAULT_ANDS))),
        "aes128_ms": aes128_ms,
        "base_ot_ms": base_ot_ms,
        "millionaires32_ms": millionaires32_ms,
        "transport": transport,
        "aes128_connect_ms": aes_latency.connect,
        "aes128_from_connect_ms": aes_latency.from_connect,
    });
    let obj = json.as_object_mut().unwrap();
    for (prefix, f) in [("", &rekeyed), ("tccr_", &tccr)] {
        for (k, v) in serde_json::to_value(f)?.as_object().unwrap() {
            obj.insert(format!("{prefix}{k}"), v.clone());
        }
    }
    if args.json {
        return write_stdout(&format!("{json}\n"));
    }
    let mut out = format!(
        "mixgc bench on {} (median of {} runs, {transport} between the processes; AES kernel {})\n",
        machine(),
        args.runs,
        AesKernel::active()
    );
    out += &format!("{:<34} {:>9} {:>9}\n", "", "rekeyed", "tccr");
    let rows: [(&str, f64, f64); 7] = [
        (
            "garbling in memory (ns/AND)",
            rekeyed.garble_ns_per_and,
            tccr.garble_ns_per_and,
        ),
        (
            "evaluation in memory (ns/AND)",
            rekeyed.eval_ns_per_and,
            tccr.eval_ns_per_and,
        ),
        (
            "end to end, loopback (ns/AND)",
            rekeyed.e2e_ns_per_and,
            tccr.e2e_ns_per_and,
        ),
        (
            "end to end (M AND/s)",
            rekeyed.e2e_and_per_s / 1e6,
            tccr.e2e_and_per_s / 1e6,
        ),
        (
            "bytes/AND, both directions",
            rekeyed.bytes_per_and,
            tccr.bytes_per_and,
        ),
        (
            "peak RSS garbler (MiB)",
            rekeyed.peak_rss_garbler_kib as f64 / 1024.0,
            tccr.peak_rss_garbler_kib as f64 / 1024.0,
        ),
        (
            "peak RSS evaluator (MiB)",
            rekeyed.peak_rss_evaluator_kib as f64 / 1024.0,
            tccr.peak_rss_evaluator_kib as f64 / 1024.0,
        ),
    ];
    for (name, a, b) in rows {
        out += &format!("{name:<34} {a:>9.1} {b:>9.1}\n");
    }
    out += &format!("AES-128, connect to output:        {aes128_ms:.2} ms (base OT {base_ot_ms:.2} ms)\n");
    out += &format!(
        "AES-128, from connect:             {:.2} ms (connect{} {:.2} ms)\n",
        aes_latency.from_connect,
        if args.transport == Transport::Tls {
            " and TLS handshake"
        } else {
            ""
        },
        aes_latency.connect
    );
    out += &format!("millionaires 32-bit:               {millionaires32_ms:.2} ms\n");
    write_stdout(&out)
}

/// The CPU model from /proc/cpuinfo (`model name`), or "unknown CPU".
pub fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                l.strip_prefix("model name")
                    .map(|v| v.trim_start_matches([' ', '\t', ':']).to_string())
            })
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

/// CPU model and core count, for the record.
pub(crate) fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("{}, {cores} cores", cpu_model())
}

/// The AES-related CPU flags this CPU has.
pub(crate) fn cpu_flags() -> Vec<&'static str> {
    cpu_features()
        .into_iter()
        .filter(|&(_, has)| has)
        .map(|(name, _)| name)
        .collect()
}
