//! `mixgc demo`: both parties in one process (two threads) over loopback TCP.

use std::thread;

use clap::Args;
use mixgc_circuit::shipped::AES_128;
use mixgc_circuit::values;
use mixgc_net::TcpChannel;
use mixgc_program::cnn::Realization;
use mixgc_program::library;
use mixgc_session::{run_party, Audience, PartyId, PartyReport, Scheme, SessionConfig, Terms};
use rand::Rng;

use crate::summary::{bytes, thousands};
use crate::CliError;
use mixgc_compile::Loaded;
use mixgc_studies::common::{parse_garbling, random_values, LibraryRun, MaliciousSession, ModelOptions};

const FIPS_KEY: &str = "000102030405060708090a0b0c0d0e0f";
const FIPS_PLAINTEXT: &str = "00112233445566778899aabbccddeeff";
const FIPS_CIPHERTEXT: &str = "69c4e0d86a7b0430d8cdb78070b4c55a";

#[derive(Args, Debug)]
#[command(
    after_help = "Without NAME: AES-128 on the FIPS-197 vector and a 64-bit millionaires' \
problem. With NAME (see `mixgc ops`): that library example on random inputs, checked against \
the plaintext evaluation of the same circuit."
)]
pub struct DemoArgs {
    /// A library example or op to run instead of the default tour, `party`: an
    /// n-party auction among threads (see --parties), or `infer`: private LeNet-5 inference.
    name: Option<String>,
    /// With `infer`: the held-out image (0 to 99; random if left out).
    #[arg(long, value_name = "N")]
    image: Option<usize>,
    /// With `infer`: run over an emulated link of this many Mbit/s (in-process) instead of
    /// loopback TCP.
    #[arg(long, value_name = "MBPS", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    link_mbps: Option<u64>,
    /// With `infer`: boolean, mixed or planned.
    #[arg(long, default_value = "planned")]
    realization: String,
    /// With `party`: the number of parties, 2 to 16 [default: 3].
    #[arg(long, value_name = "N")]
    parties: Option<usize>,
    /// Size for examples that take one (matrix side, string length).
    #[arg(long)]
    size: Option<usize>,
    /// Operand width in bits (default: the example's).
    #[arg(long)]
    width: Option<u32>,
    /// How the default tour garbles AND gates: half-gates (32 bytes per AND) or three-halves
    /// (about 25 bytes per AND for about twice the hashing); library examples (run gate by
    /// gate) too.
    #[arg(long, default_value = "half-gates", value_name = "SCHEME", value_parser = parse_garbling)]
    garbling: Scheme,
    #[command(flatten)]
    model: ModelOptions,
}

/// `println!` that returns a closed stdout (e.g. `mixgc demo | head`) as an error
/// instead of panicking; use in functions returning `Result<_, CliError>`.
macro_rules! say {
    ($($fmt:tt)*) => {
        crate::write_stdout(&format!("{}\n", format_args!($($fmt)*)))?
    };
}

pub fn demo(args: DemoArgs) -> Result<(), CliError> {
    if args.model.malicious() && args.garbling != Scheme::HalfGates {
        return Err("--garbling does not apply to --security malicious (authenticated garbling has its own tables): leave it out".into());
    }
    if args.name.as_deref() == Some("infer") {
        args.model.refuse("private inference (`mixgc demo infer`)")?;
        let realization = Realization::parse(&args.realization).ok_or_else(|| {
            format!(
                "unknown realization '{}' (one of boolean, mixed, planned)",
                args.realization
            )
        })?;
        return crate::infer::demo(args.image, realization, args.link_mbps);
    }
    if args.name.as_deref() == Some("party") {
        args.model.refuse("the n-party demo (`mixgc demo party`)")?;
        return crate::demo_party::party_demo(args.parties.unwrap_or(3));
    }
    if args.parties.is_some() {
        return Err("--parties goes with `mixgc demo party` only".into());
    }
    if let Some(name) = &args.name {
        return library_demo(name, args.width, args.size, args.garbling, &args.model);
    }
    let garbling = args.garbling;
    let model = &args.model;
    say!("mixgc demo: a garbler and an evaluator, two threads of this process, talking over");
    say!("TCP on 127.0.0.1. Each keeps its input to itself; both learn only the output.");
    say!("Security model: {}.\n", model.security);

    let aes = Loaded::parse(AES_128, "circuits/aes_128.txt")?;
    say!("[1] AES-128 on the FIPS-197 test vector");
    say!("    garbler holds the key           {FIPS_KEY}");
    say!("    evaluator holds the plaintext   {FIPS_PLAINTEXT}");
    let (g, e) = two_party(&aes, &[FIPS_KEY], &[FIPS_PLAINTEXT], garbling, model)?;
    let ct = values::to_hex(&e.outputs.clone().ok_or("evaluator learned nothing")?[0]);
    let ok = ct == FIPS_CIPHERTEXT;
    say!(
        "    both learn the ciphertext       {ct}  {}",
        if ok { "(matches FIPS-197)" } else { "(WRONG)" }
    );
    explain(&aes, &g, &e, garbling, model)?;
    if !ok {
        return Err("AES-128 gave the wrong ciphertext".into());
    }

    let cmp = Loaded::new(library::record("millionaires", Some(64), None)?.circuit);
    let mut rng = rand::thread_rng();
    let (a, b): (u64, u64) = (rng.gen(), rng.gen());
    say!("\n[2] Millionaires' problem, 64-bit: is the garbler richer than the evaluator?");
    say!("    garbler's wealth (secret)       {a}");
    say!("    evaluator's wealth (secret)     {b}");
    let (g, e) = two_party(&cmp, &[&format!("{a:x}")], &[&format!("{b:x}")], garbling, model)?;
    let richer = e.outputs.clone().ok_or("evaluator learned nothing")?[0][0];
    say!(
        "    both learn one bit              {} ({})",
        richer as u8,
        if richer {
            "the garbler is richer"
        } else {
            "the garbler is not richer"
        }
    );
    explain(&cmp, &g, &e, garbling, model)?;
    if richer != (a > b) {
        return Err("the comparison gave the wrong answer".into());
    }
    say!("\nNeither party saw the other's input: the evaluator only ever held one random-looking");
    say!("label per wire, and got its own input labels by oblivious transfer.");
    Ok(())
}

/// One library example between two threads on random inputs, run gate by gate and
/// checked against the plaintext backend.
fn library_demo(
    name: &str,
    width: Option<u32>,
    size: Option<usize>,
    garbling: Scheme,
    model: &ModelOptions,
) -> Result<(), CliError> {
    let op = LibraryRun::new(name, width, size)?;
    let (gv, widths) = op.owned(PartyId::GARBLER);
    let (ev, _) = op.owned(PartyId::EVALUATOR);
    let (gin, ein) = (random_values(&gv, &widths), random_values(&ev, &widths));
    let hex = |v: &[Vec<bool>]| v.iter().map(|x| values::to_hex(x)).collect::<Vec<_>>().join(",");
    say!("mixgc demo {name}: garbler and evaluator on two threads over TCP on 127.0.0.1,");
    say!("the program garbled and evaluated gate by gate");
    say!("    garbler's inputs (random)       {}", hex(&gin));
    say!("    evaluator's inputs (random)     {}", hex(&ein));
    let cfg = SessionConfig {
        garbling,
        ..SessionConfig::default()
    };
    let (listener, addr) = TcpChannel::bind("127.0.0.1:0")?;
    let (g, e) = thread::scope(|s| -> Result<(PartyReport, PartyReport), CliError> {
        let evaluator = s.spawn(|| -> Result<PartyReport, CliError> {
            let ch = TcpChannel::connect(&addr.to_string(), cfg.timeout)?;
            run_op(&op, ch, PartyId::EVALUATOR, &cfg, model, ein.clone())
        });
        let garbler = TcpChannel::accept(&listener, cfg.timeout)
            .map_err(CliError::from)
            .and_then(|ch| run_op(&op, ch, PartyId::GARBLER, &cfg, model, gin.clone()));
        let evaluator = evaluator.join().map_err(|_| "evaluator thread panicked")?;
        Ok((garbler?, evaluator?))
    })?;
    let plain = op.plain(gin, ein)?;
    let outputs = e.outputs.clone().ok_or("evaluator learned nothing")?;
    let ok = outputs == plain && g.outputs.as_ref() == Some(&plain);
    say!(
        "    both learn                      {}  {}",
        hex(&outputs),
        if ok { "(= plaintext evaluation)" } else { "(WRONG)" }
    );
    let cost = library::cost(name, width, size)?;
    say!(
        "    cost: {} ANDs ({}), {} free XOR/NOT gates",
        thousands(cost.ands),
        per_and(garbling, model),
        thousands(cost.xors + cost.nots)
    );
    say!(
        "          garbler sent {}, evaluator sent {}; {:.2} ms from connect to output (base OT {:.2} ms)",
        bytes(g.bytes_sent),
        bytes(e.bytes_sent),
        g.elapsed.max(e.elapsed).as_secs_f64() * 1e3,
        g.base_ot.as_secs_f64() * 1e3
    );
    if !ok {
        return Err(format!("{name}: the two-party result differs from plaintext").into());
    }
    Ok(())
}

/// What one AND gate costs on the wire, in words.
fn per_and(garbling: Scheme, model: &ModelOptions) -> &'static str {
    if model.malicious() {
        return "authenticated garbling: 2 blocks and 1 bit each, plus an authenticated triple from the preprocessing";
    }
    match garbling {
        Scheme::HalfGates => "2 ciphertexts, 32 B each",
        Scheme::ThreeHalves => "three-halves: 1.5 ciphertexts and 5 bits, about 25 B each",
    }
}

/// One party of a library op in the model `model` says.
fn run_op(
    op: &LibraryRun,
    ch: TcpChannel,
    role: PartyId,
    cfg: &SessionConfig,
    model: &ModelOptions,
    inputs: Vec<Vec<bool>>,
) -> Result<PartyReport, CliError> {
    if model.malicious() {
        let mut s = MaliciousSession::setup(ch, role, mixgc_session::Command::Example, None)?;
        return op.run_malicious(&mut s, model.batch_ands, None, inputs);
    }
    op.run(ch, role, cfg, inputs)
}

fn explain(
    c: &Loaded,
    g: &PartyReport,
    e: &PartyReport,
    garbling: Scheme,
    model: &ModelOptions,
) -> Result<(), CliError> {
    let s = c.circuit.stats();
    let per_and = per_and(garbling, model);
    say!(
        "    cost: {} ANDs ({per_and}), {} free XOR/NOT gates",
        thousands(s.ands as u64),
        thousands((s.xors + s.nots) as u64)
    );
    say!(
        "          garbler sent {}, evaluator sent {}; {:.2} ms from connect to output",
        bytes(g.bytes_sent),
        bytes(e.bytes_sent),
        g.elapsed.max(e.elapsed).as_secs_f64() * 1e3
    );
    let setup = if model.malicious() {
        "the preprocessing's setup (2 × 128 Masny–Rindal base OTs, once per session)"
    } else {
        "base OT (128 Ristretto OTs, once per session)"
    };
    say!(
        "          of which {setup} {:.2} ms",
        g.base_ot.as_secs_f64() * 1e3
    );
    Ok(())
}

/// Runs garbler and evaluator on loopback TCP with the given hex inputs, revealing to both.
pub fn two_party(
    c: &Loaded,
    garbler_inputs: &[&str],
    evaluator_inputs: &[&str],
    garbling: Scheme,
    model: &ModelOptions,
) -> Result<(PartyReport, PartyReport), CliError> {
    let terms = Terms {
        garbler_values: Some(garbler_inputs.len()),
        reveal: Audience::BOTH,
    };
    let (gv, ev) = terms.owners(c.compiled.input_widths())?;
    let parse = |owned: &[usize], hex: &[&str]| -> Result<Vec<Vec<bool>>, CliError> {
        owned
            .iter()
            .zip(hex)
            .map(|(&v, h)| Ok(values::parse_hex(h, c.compiled.input_widths()[v])?))
            .collect()
    };
    let (gin, ein) = (parse(&gv, garbler_inputs)?, parse(&ev, evaluator_inputs)?);
    let cfg = SessionConfig {
        garbling,
        ..SessionConfig::default()
    };
    let (listener, addr) = TcpChannel::bind("127.0.0.1:0")?;
    if model.malicious() {
        let mterms = mixgc_malicious::Terms {
            garbler_values: garbler_inputs.len(),
            reveal: Audience::BOTH,
            batch_ands: model.batch_ands,
        };
        let party =
            |ch: TcpChannel, role: PartyId, inputs: &Vec<Vec<bool>>| -> Result<PartyReport, CliError> {
                let mut s = MaliciousSession::setup(ch, role, mixgc_session::Command::Run, None)?;
                let inputs = std::slice::from_ref(inputs);
                Ok(s.run_stream(&mut c.compiled.stream(), &mterms, inputs, None)?.0)
            };
        return thread::scope(|s| {
            let evaluator = s.spawn(|| -> Result<PartyReport, CliError> {
                party(
                    TcpChannel::connect(&addr.to_string(), cfg.timeout)?,
                    PartyId::EVALUATOR,
                    &ein,
                )
            });
            let garbler = TcpChannel::accept(&listener, cfg.timeout)
                .map_err(CliError::from)
                .and_then(|ch| party(ch, PartyId::GARBLER, &gin));
            let evaluator = evaluator.join().map_err(|_| "evaluator thread panicked")?;
            Ok((garbler?, evaluator?))
        });
    }
    thread::scope(|s| {
        let evaluator = s.spawn(|| -> Result<PartyReport, CliError> {
            let ch = TcpChannel::connect(&addr.to_string(), cfg.timeout)?;
            Ok(run_party(
                ch,
                PartyId::EVALUATOR,
                &cfg,
                &mut c.compiled.stream(),
                &terms,
                std::slice::from_ref(&ein),
            )?)
        });
        let garbler = TcpChannel::accept(&listener, cfg.timeout)
            .map_err(CliError::from)
            .and_then(|ch| {
                Ok(run_party(
                    ch,
                    PartyId::GARBLER,
                    &cfg,
                    &mut c.compiled.stream(),
                    &terms,
                    std::slice::from_ref(&gin),
                )?)
            });
        let evaluator = evaluator.join().map_err(|_| "evaluator thread panicked")?;
        Ok((garbler?, evaluator?))
    })
}
