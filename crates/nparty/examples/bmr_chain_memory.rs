//! Peak memory of BMR on a long AND chain, every party its own process over loopback TCP.
//!
//! ```text
//! cargo run --release -p mixgc-nparty --example bmr_chain_memory -- [--ands N] [--batch B] [--parties P] [--file PATH]
//! ```
//!
//! Writes a compiled-stream file of a chain of at least N AND gates (default 10^7) run by
//! run with `StreamWriter` (never a `Circuit` in memory), then starts P parties (default
//! 3) as child processes of this binary. Each party reads the file chunk by chunk, runs
//! BMR in batches of B ANDs (default 2^14), checks its outputs against the plaintext chain
//! and reports its peak RSS (VmHWM) and times.
//!
//! The chain: 16 lanes of state s (party 0's input), keys k (party 1's) and m (the last
//! party's); round r computes t_i = s_i ∧ s_{i+1}, t_i ⊕= s_{i+3}, s_i = t_i ⊕ (k_i for
//! even r, m_i for odd r), lanes mod 16: 16 ANDs and 32 XORs a round.

use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mixgc_circuit::{Audience, PartyId};
use mixgc_compile::{Gate, RunKind, StreamFile, StreamHeader, StreamWriter};
use mixgc_core::new_rng;
use mixgc_net::{Channel, TcpChannel};
use mixgc_nparty::bmr::{self, BmrOptions};
use mixgc_nparty::{Mesh, Roles};

const LANES: u32 = 16;
/// Slots: 0 the constant 1, then s, k, m and t, 16 each.
const S: u32 = 1;
const K: u32 = S + LANES;
const M: u32 = K + LANES;
const T: u32 = M + LANES;
const SLOTS: u32 = T + LANES;
/// The three input values, fixed so that every party can compute the plaintext answer.
const INPUTS: [u16; 3] = [0xB5C3, 0x6E29, 0x1F84];

struct Args {
    ands: u64,
    batch: usize,
    parties: usize,
    file: PathBuf,
    /// Set in a child: its party id and the base port of the mesh.
    party: Option<(usize, u16)>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        ands: 10_000_000,
        batch: 1 << 14,
        parties: 3,
        file: std::env::temp_dir().join("mixgc-bmr-chain.mixgcs"),
        party: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        let number = |v: String| v.parse::<u64>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--ands" => args.ands = number(value()?)?.max(1),
            "--batch" => args.batch = number(value()?)?.max(1) as usize,
            "--parties" => args.parties = number(value()?)?.clamp(2, 16) as usize,
            "--file" => args.file = PathBuf::from(value()?),
            "--party" => {
                let id = number(value()?)? as usize;
                let port = number(it.next().ok_or("--party needs an id and a port")?)? as u16;
                args.party = Some((id, port));
            }
            _ => return Err(format!("unknown argument {flag}")),
        }
    }
    Ok(args)
}

fn rounds(ands: u64) -> u64 {
    ands.div_ceil(LANES as u64)
}

/// The chain's answer in plaintext: lane i is bit i.
fn plaintext(rounds: u64) -> u16 {
    let [mut s, k, m] = INPUTS;
    for r in 0..rounds {
        let t = (s & s.rotate_right(1)) ^ s.rotate_right(3);
        s = t ^ if r % 2 == 0 { k } else { m };
    }
    s
}

/// Writes the chain of `rounds` rounds to `path` run by run.
fn write_chain(path: &Path, rounds: u64) -> std::io::Result<()> {
    let lanes = |base: u32| (base..base + LANES).collect::<Vec<u32>>();
    let header = StreamHeader::new(
        vec![LANES; 3],
        vec![LANES],
        SLOTS,
        [lanes(S), lanes(K), lanes(M)].concat(),
        lanes(S),
    )
    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let digest = *blake3::hash(format!("bmr-chain-{rounds}").as_bytes()).as_bytes();
    let out = BufWriter::new(File::create(path)?);
    let mut w = StreamWriter::new(
        out,
        header,
        digest,
        rounds * 3 * LANES as u64,
        rounds * LANES as u64,
    )?;
    let next = |i: u32, by: u32| (i + by) % LANES;
    let ands: Vec<Gate> = (0..LANES)
        .map(|i| Gate {
            a: S + i,
            b: S + next(i, 1),
            out: T + i,
        })
        .collect();
    let mix: Vec<Gate> = (0..LANES)
        .map(|i| Gate {
            a: T + i,
            b: S + next(i, 3),
            out: T + i,
        })
        .collect();
    let key = |base: u32| -> Vec<Gate> {
        (0..LANES)
            .map(|i| Gate {
                a: T + i,
                b: base + i,
                out: S + i,
            })
            .collect()
    };
    let (with_k, with_m) = (key(K), key(M));
    for r in 0..rounds {
        w.run(RunKind::And, &ands)?;
        let xors = [mix.as_slice(), if r % 2 == 0 { &with_k } else { &with_m }].concat();
        w.run(RunKind::Xor, &xors)?;
    }
    let mut out = w.finish()?;
    std::io::Write::flush(&mut out)
}

/// Peak resident set (VmHWM) of this process in KiB.
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The mesh of party `me` of `n` over loopback: for i < j, j listens on base + i·n + j
/// and i connects.
fn tcp_mesh(me: usize, n: usize, base: u16) -> Result<Mesh, String> {
    let timeout = Duration::from_secs(600);
    let port = |i: usize, j: usize| base + (i * n + j) as u16;
    let listeners: Vec<_> = (0..me)
        .map(|i| TcpChannel::bind(&format!("127.0.0.1:{}", port(i, me))).map(|(l, _)| l))
        .collect::<Result<_, _>>()
        .map_err(|e| e.to_string())?;
    let mut links: Vec<Option<Box<dyn Channel>>> = (0..n).map(|_| None).collect();
    for (j, link) in links.iter_mut().enumerate().skip(me + 1) {
        let ch =
            TcpChannel::connect(&format!("127.0.0.1:{}", port(me, j)), timeout).map_err(|e| e.to_string())?;
        *link = Some(Box::new(ch));
    }
    for (i, l) in listeners.iter().enumerate() {
        links[i] = Some(Box::new(
            TcpChannel::accept(l, timeout).map_err(|e| e.to_string())?,
        ));
    }
    Ok(Mesh::new(me, links))
}

/// One party: runs the stream file and prints one line of figures.
fn party(args: &Args, me: usize, base: u16) -> Result<(), String> {
    let n = args.parties;
    let mut stream = StreamFile::open(&args.file).map_err(|e| e.to_string())?;
    let mut mesh = tcp_mesh(me, n, base)?;
    let owners = [0, 1, n - 1];
    let mut audience = Audience::only(PartyId::new(0).unwrap());
    for p in 1..n {
        audience = audience.with(PartyId::new(p).unwrap());
    }
    let roles = Roles {
        owners: &owners,
        audience,
    };
    let bits = |v: u16| (0..LANES).map(|i| v >> i & 1 == 1).collect::<Vec<bool>>();
    let inputs: Vec<Vec<bool>> = roles.mine(me).map(|v| bits(INPUTS[v])).collect();
    let mut rng = new_rng(None, me as u64);
    let start = Instant::now();
    let out = bmr::run_stream(
        &mut mesh,
        &mut stream,
        &roles,
        &inputs,
        &[9; 32],
        &mut rng,
        &BmrOptions {
            batch_ands: args.batch,
        },
    )
    .map_err(|e| e.to_string())?;
    let wall = start.elapsed();
    let want = bits(plaintext(stream_rounds(&stream)));
    let right = out.outputs.as_ref().map(|o| o[0] == want);
    let sent: u64 = mesh.bytes().iter().map(|b| b.0).sum();
    println!(
        "party {me}: {} ANDs, outputs match the plaintext: {right:?}, peak RSS {} KiB, \
         wall {:.1} s (offline {:.1} s, online {:.1} s), sent {} MB",
        out.ands,
        peak_rss_kib(),
        wall.as_secs_f64(),
        out.offline.as_secs_f64(),
        out.online.as_secs_f64(),
        sent >> 20
    );
    if right == Some(false) {
        return Err("wrong output".into());
    }
    Ok(())
}

fn stream_rounds(stream: &StreamFile) -> u64 {
    use mixgc_compile::GateStream;
    stream.header().num_ands() / LANES as u64
}

fn main() {
    let args = parse_args().unwrap_or_else(|e| {
        eprintln!("bmr_chain_memory: {e}");
        std::process::exit(2)
    });
    if let Some((me, base)) = args.party {
        if let Err(e) = party(&args, me, base) {
            eprintln!("party {me}: {e}");
            std::process::exit(1);
        }
        return;
    }
    let rounds = rounds(args.ands);
    let t = Instant::now();
    write_chain(&args.file, rounds).unwrap_or_else(|e| {
        eprintln!("bmr_chain_memory: writing {}: {e}", args.file.display());
        std::process::exit(1)
    });
    println!(
        "wrote {} ({} ANDs, {} MB) in {:.1} s; writer peak RSS {} KiB",
        args.file.display(),
        rounds * LANES as u64,
        std::fs::metadata(&args.file).map(|m| m.len() >> 20).unwrap_or(0),
        t.elapsed().as_secs_f64(),
        peak_rss_kib()
    );
    let base = 20_000 + (std::process::id() % 20_000) as u16;
    let exe = std::env::current_exe().expect("the path of this binary");
    let t = Instant::now();
    let children: Vec<_> = (0..args.parties)
        .map(|p| {
            Command::new(&exe)
                .args(["--file", &args.file.display().to_string()])
                .args(["--batch", &args.batch.to_string()])
                .args(["--parties", &args.parties.to_string()])
                .args(["--party", &p.to_string(), &base.to_string()])
                .stdout(Stdio::inherit())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("a party process")
        })
        .collect();
    let ok = children
        .into_iter()
        .map(|mut c| c.wait().is_ok_and(|s| s.success()))
        .collect::<Vec<bool>>()
        .into_iter()
        .all(|b| b);
    println!(
        "{} parties, batches of {} ANDs: {:.1} s in all",
        args.parties,
        args.batch,
        t.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_file(&args.file);
    if !ok {
        std::process::exit(1);
    }
}
