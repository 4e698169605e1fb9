//! `mixgc party`: one party of an n-party computation (BMR or GMW) over TCP.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Args;
use mixgc_circuit::{values, Audience, PartyId, MAX_PARTIES};
use mixgc_compile::{Loaded, Runnable};
use mixgc_core::new_rng;
use mixgc_nparty::{bmr, gmw, join_mesh, MeshOptions, Outcome, Protocol, Roles, RunFacts, TlsFlags};
use mixgc_program::apps;
use mixgc_studies::common::{peak_rss_kib, unix_now, PartyFigures};

use crate::load::parse_owned_inputs;
use crate::party::parse_timeout;
use crate::progress::Feedback;
use crate::summary::{bytes, thousands};
use crate::CliError;

#[derive(Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct PartyArgs {
    /// This party's id: 0 for the first address of --parties, 1 for the second, …
    #[arg(long, value_name = "I")]
    id: usize,
    /// Every party's address, in id order; party I listens on the I-th. The lower id of
    /// each pair dials the higher, retrying for 10 s while it starts.
    #[arg(long, value_name = "ADDR0,ADDR1,...", value_delimiter = ',', required = true)]
    parties: Vec<String>,
    /// Bristol circuit file (Fashion or the older Format), compiled with the default
    /// (batched) schedule, or a compiled stream from `mixgc compile FILE --out OUT`, read
    /// chunk by chunk from disk (bounded memory).
    #[arg(
        long,
        value_name = "FILE",
        required_unless_present = "example",
        conflicts_with = "example"
    )]
    circuit: Option<PathBuf>,
    /// A built-in application instead of a circuit: auction (--bits B) or voting
    /// (--candidates C); every party supplies one value.
    #[arg(long, value_name = "NAME", value_parser = ["auction", "voting"])]
    example: Option<String>,
    /// Bid width of `--example auction`.
    #[arg(long, value_name = "B", default_value = "32")]
    bits: u32,
    /// Number of candidates of `--example voting`.
    #[arg(long, value_name = "C", default_value = "4")]
    candidates: usize,
    /// This party's input values in circuit order, hex without 0x (either case).
    #[arg(long, value_name = "HEX[,HEX...]")]
    input: Option<String>,
    /// The owner of each input value, in circuit order (default: value j belongs to party j,
    /// which needs exactly one input value per party).
    #[arg(long, value_name = "K0,K1,...", value_delimiter = ',')]
    owners: Option<Vec<usize>>,
    /// bmr: joint garbling, then a constant-round online phase; gmw: one round per AND level.
    #[arg(long, default_value = "bmr", value_name = "PROTOCOL")]
    protocol: Protocol,
    /// Who learns the outputs: all, or a list of party ids.
    #[arg(long, default_value = "all", value_name = "all|I,J,...")]
    reveal: String,
    /// Seconds any one step may wait on a peer before this party names it and stops (then,
    /// with 3+ parties, a grace of a quarter of it, at most 0.5 s, for the peer to say whom it
    /// was waiting on).
    #[arg(long, default_value = "30", value_name = "SECS", value_parser = parse_timeout)]
    timeout: u64,
    /// Emulate a network round-trip time on every link (each frame is held for half of it
    /// before it is written; bandwidth is not limited), for measurements: 0 to 10000 ms.
    #[arg(long, value_name = "MS", default_value = "0", value_parser = clap::value_parser!(u64).range(0..=10_000))]
    rtt_ms: u64,
    /// ANDs per batch: BMR garbles them jointly and evaluates them (bounding the tables in
    /// memory); GMW makes their triples and levels them [default: 16384 for BMR, 65536 for
    /// GMW]. Every party must use the same.
    #[arg(long, value_name = "N")]
    batch_ands: Option<usize>,
    /// This party's certificate (PEM, `mixgc keygen`): every link becomes TLS 1.3 with
    /// mutual authentication. Needs --key and a pin per peer or --peer-ca.
    #[arg(long, value_name = "FILE")]
    cert: Option<PathBuf>,
    /// The private key of --cert (PEM).
    #[arg(long, value_name = "FILE")]
    key: Option<PathBuf>,
    /// Accept from party I only the certificate with this SHA-256 fingerprint (as `mixgc
    /// keygen` prints it at party I); once per other party.
    #[arg(long, value_name = "I=HEX")]
    peer_fingerprint: Vec<String>,
    /// Accept peer certificates signed by this CA (PEM), each only as the id it names
    /// (the DNS name mixgc-party-I, which `mixgc keygen --party I` adds).
    #[arg(long, value_name = "FILE", conflicts_with = "peer_fingerprint")]
    peer_ca: Option<PathBuf>,
    /// Allow plain TCP on non-loopback addresses: neither encrypted nor authenticated, so
    /// anyone on the path reads the traffic and can take a party's place.
    #[arg(long, conflicts_with = "cert")]
    insecure_plaintext: bool,
    /// Also write this party's figures (times, ANDs, bytes per peer) as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    #[command(flatten)]
    feedback: Feedback,
}

const AFTER_HELP: &str = "Every party runs the same command with its own --id and --input. Input \
value j of the circuit is owned by party owners[j]; each party passes its own values in circuit \
order. Every party must run the same compiled stream: the parties compare its digest \
(schedule included) before anything secret, so a Bristol file may meet its stream file only if \
that was compiled with the default schedule (`mixgc compile FILE --schedule batched`). Each party that learns the outputs prints one line per output value on stdout (hex, as \
`mixgc run` does); a summary (ANDs, bytes sent and received per peer, offline and online time) \
goes to stderr. Security: semi-honest, any n − 1 of the n parties may collude. Between machines every link is TLS 1.3: each party makes a key with `mixgc keygen` and passes --cert, --key and --peer-fingerprint I=HEX once per other party (or --peer-ca, with each party's certificate naming its id: mixgc keygen --party I). Plain TCP runs on loopback only unless --insecure-plaintext.\n\n\
Example (three terminals):\n  \
mixgc party --id 0 --parties 127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002 --example auction --bits 16 --input 00c8\n  \
mixgc party --id 1 --parties 127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002 --example auction --bits 16 --input 012c\n  \
mixgc party --id 2 --parties 127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002 --example auction --bits 16 --input 0064";

pub fn party(args: PartyArgs) -> Result<(), CliError> {
    let (started, started_unix) = (Instant::now(), unix_now());
    let n = args.parties.len();
    if !(2..=MAX_PARTIES).contains(&n) {
        return Err(format!("--parties lists {n} address(es): a run needs 2 to {MAX_PARTIES}").into());
    }
    if args.id >= n {
        return Err(format!(
            "--id {} is not a party of the {n} in --parties (0 to {})",
            args.id,
            n - 1
        )
        .into());
    }
    let (mut runnable, name) = load(&args, n)?;
    let widths = runnable.header().input_widths().to_vec();
    let owners = match &args.owners {
        Some(o) => o.clone(),
        None if widths.len() == n => (0..n).collect(),
        None => {
            return Err(format!(
                "{name} has {} input values for {n} parties: pass --owners K0,K1,… (the party that owns each value)",
                widths.len()
            )
            .into())
        }
    };
    let audience = parse_audience(&args.reveal, n)?;
    let roles = Roles {
        owners: &owners,
        audience,
    };
    let mine: Vec<usize> = roles.mine(args.id).collect();
    if owners.len() != widths.len() {
        return Err(format!(
            "--owners names {} owner(s) but {name} has {} input values",
            owners.len(),
            widths.len()
        )
        .into());
    }
    if let Some((v, &o)) = owners.iter().enumerate().find(|(_, &o)| o >= n) {
        return Err(
            format!("--owners: input value {v} is owned by party {o}, but the run has {n} parties").into(),
        );
    }
    let inputs = parse_owned_inputs(
        &format!("party {}", args.id),
        args.input.as_deref(),
        &mine,
        &widths,
    )?;
    if args.example.as_deref() == Some("voting") {
        for x in &inputs {
            let vote = x.iter().rev().fold(0u64, |a, &b| a << 1 | b as u64);
            apps::check_vote(vote, args.candidates).map_err(|e| format!("--input: {e}"))?;
        }
    }
    roles.check(&widths, args.id, n, &inputs)?;
    let batch_ands = args.batch_ands.unwrap_or(match args.protocol {
        Protocol::Bmr => bmr::BmrOptions::default().batch_ands,
        Protocol::Gmw => gmw::GmwOptions::default().batch_ands,
    });
    if batch_ands == 0 {
        return Err("--batch-ands must be at least 1".into());
    }

    let header = runnable.header();
    let facts = RunFacts {
        protocol: args.protocol.to_string(),
        digest: header.stream_digest(),
        input_owners: owners.clone(),
        output_audience: vec![audience.parties().map(PartyId::index).collect(); header.output_widths().len()],
        extra: vec![("batch ANDs".into(), batch_ands.to_string())],
    };
    let options = MeshOptions {
        timeout: Duration::from_secs(args.timeout),
        one_way_latency: Duration::from_micros(args.rtt_ms.saturating_mul(500)),
        insecure_plaintext: args.insecure_plaintext,
        tls: TlsFlags {
            cert: args.cert.as_deref(),
            key: args.key.as_deref(),
            peer_fingerprints: &args.peer_fingerprint,
            peer_ca: args.peer_ca.as_deref(),
        }
        .mesh_tls()?,
        ..MeshOptions::default()
    };
    let (mut mesh, session) = join_mesh(args.id, &args.parties, &options, &facts)?;
    let mut rng = new_rng(None, 0);
    let outcome = runnable
        .with_stream(|stream| match args.protocol {
            Protocol::Bmr => bmr::run_stream(
                &mut mesh,
                stream,
                &roles,
                &inputs,
                &session,
                &mut rng,
                &bmr::BmrOptions {
                    batch_ands,
                    progress: args.feedback.reporter(),
                },
            ),
            Protocol::Gmw => gmw::run_stream(
                &mut mesh,
                stream,
                &roles,
                &inputs,
                &session,
                &mut rng,
                &gmw::GmwOptions {
                    batch_ands,
                    progress: args.feedback.reporter(),
                },
            ),
        })
        .inspect_err(|e| mesh.abort_all(&format!("party {} stopped: {e}", args.id)))?;
    let (total, finished_unix) = (started.elapsed(), unix_now());
    if let Some(outputs) = &outcome.outputs {
        let text: String = outputs.iter().map(|v| values::to_hex(v) + "\n").collect();
        crate::write_stdout(&text)?;
    }
    let per_peer = mesh.bytes();
    args.feedback.summary(&summary(&args, &outcome, &per_peer, total));
    if let Some(path) = &args.report {
        let report = PartyFigures {
            id: args.id,
            parties: n,
            protocol: args.protocol.to_string(),
            ands: outcome.ands,
            offline_s: outcome.offline.as_secs_f64(),
            online_s: outcome.online.as_secs_f64(),
            online_rounds: outcome.online_rounds,
            started_unix_s: started_unix,
            finished_unix_s: finished_unix,
            bytes: per_peer.iter().map(|&(s, r)| [s, r]).collect(),
            setup_bytes: outcome.setup_bytes.iter().map(|&(s, r)| [s, r]).collect(),
            peak_rss_kib: peak_rss_kib(),
        };
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(path, text + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// What this party runs (a Bristol file compiled with the default schedule, a stream
/// file, or an application's circuit compiled) and its name for messages.
fn load(args: &PartyArgs, n: usize) -> Result<(Runnable, String), CliError> {
    Ok(match (&args.circuit, args.example.as_deref()) {
        (Some(path), _) => (Runnable::open(path, None)?, path.display().to_string()),
        (None, Some("auction")) => (
            Runnable::Whole(Loaded::new(apps::record_auction(n, args.bits)?.circuit)),
            "the auction".to_string(),
        ),
        (None, Some("voting")) => (
            Runnable::Whole(Loaded::new(apps::record_voting(n, args.candidates)?.circuit)),
            "the vote".to_string(),
        ),
        _ => return Err("give --circuit FILE or --example auction|voting".into()),
    })
}

/// `all` or a list of party ids.
fn parse_audience(s: &str, n: usize) -> Result<Audience, CliError> {
    let ids: Vec<usize> = if s == "all" {
        (0..n).collect()
    } else {
        s.split(',')
            .map(|t| {
                t.trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&i| i < n)
                    .ok_or_else(|| format!("--reveal {s}: '{t}' is not a party id from 0 to {}", n - 1))
            })
            .collect::<Result<_, _>>()?
    };
    let mut parties = ids.into_iter().map(|i| PartyId::new(i).expect("below 64"));
    let first = parties.next().ok_or("--reveal names no party")?;
    Ok(parties.fold(Audience::only(first), Audience::with))
}

fn summary(args: &PartyArgs, o: &Outcome, per_peer: &[(u64, u64)], total: Duration) -> String {
    let peers: Vec<String> = per_peer
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != args.id)
        .map(|(j, &(s, r))| format!("party {j} {} / {}", bytes(s), bytes(r)))
        .collect();
    format!(
        "party {} of {} ({}): {} ANDs; offline {}, online {} ({} rounds), {} since start; sent / received: {}",
        args.id,
        args.parties.len(),
        args.protocol,
        thousands(o.ands),
        time(o.offline),
        time(o.online),
        o.online_rounds,
        time(total),
        peers.join(", ")
    )
}

/// `12.3 ms` or `1.23 s`.
fn time(d: Duration) -> String {
    if d < Duration::from_secs(1) {
        format!("{:.1} ms", d.as_secs_f64() * 1e3)
    } else {
        format!("{:.2} s", d.as_secs_f64())
    }
}
