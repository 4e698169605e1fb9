//! `mixgc vip`: one party of a VIP-Bench workload (HAAC §5, issue #20 item 1) run as a
//! two-party program gate by gate, with JSON input and output ([`crate::vip_json`]); or its
//! gate counts beside HAAC Table 2 (`--report`); or random input files (`--random-inputs`).

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use mixgc_program::vip::Workload;
use mixgc_program::{Ctx, PartyId};
use mixgc_session::{stop_at_failure, Audience, EvaluatorSession, GarblerSession};
use rand::Rng;

use crate::party::{role_parser, Connection, SessionOptions};
use crate::progress::Feedback;
use crate::run::parse_reveal;
use crate::vip_json::{self, MAX_INPUT_FILE_BYTES};
use crate::CliError;
use mixgc_studies::common::Security;

#[derive(Args, Debug)]
#[command(after_help = vip_help())]
pub struct VipArgs {
    /// Workload: bubbst, dotprod, merse, triangle, hamm, matmult, relu or graddesc (`all` with --report).
    name: String,
    /// This party's role.
    #[arg(long, value_parser = role_parser(), required_unless_present_any = ["report", "random_inputs"])]
    role: Option<PartyId>,
    /// Wait for the peer on ADDR (127.0.0.1:7000 for plain TCP; port 0 picks a free port,
    /// printed as `listening on ADDR` on the first stderr line).
    #[arg(long, value_name = "ADDR", group = "vip_endpoint")]
    listen: Option<String>,
    /// Connect to the peer at ADDR, retrying for up to 10 s while it starts.
    #[arg(long, value_name = "ADDR", group = "vip_endpoint")]
    connect: Option<String>,
    #[command(flatten)]
    security: Security,
    /// This party's input, a JSON object as below.
    #[arg(long, value_name = "FILE", required_unless_present_any = ["report", "random_inputs"])]
    input_file: Option<PathBuf>,
    /// Who learns the output.
    #[arg(long, default_value = "both", value_parser = parse_reveal)]
    reveal: Audience,
    /// Print the program's gates, ANDs and AND % beside HAAC Table 2's, and exit.
    #[arg(long, conflicts_with_all = ["role", "input_file", "random_inputs"])]
    report: bool,
    /// Write random valid inputs to DIR/NAME.garbler.json and DIR/NAME.evaluator.json, and
    /// the plaintext model's output line to DIR/NAME.expected.json, and exit.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["role", "input_file"])]
    random_inputs: Option<PathBuf>,
    #[command(flatten)]
    session: SessionOptions,
    #[command(flatten)]
    feedback: Feedback,
}

fn vip_help() -> String {
    format!(
        "{}\n\nExamples:\n  mixgc vip dotprod --random-inputs in\n  \
mixgc vip dotprod --role garbler --listen 127.0.0.1:7000 --input-file in/dotprod.garbler.json\n  \
mixgc vip dotprod --role evaluator --connect 127.0.0.1:7000 --input-file in/dotprod.evaluator.json\n  \
mixgc vip all --report",
        vip_json::HELP
    )
}

pub fn vip(args: VipArgs) -> Result<(), CliError> {
    if args.report {
        return report(&args.name);
    }
    let workload = Workload::from_name(&args.name)?;
    if let Some(dir) = &args.random_inputs {
        return random_inputs(workload, dir);
    }
    let (Some(role), Some(file)) = (args.role, args.input_file.as_deref()) else {
        return Err("give --role and --input-file (or --report, or --random-inputs DIR)".into());
    };
    let words = read_input(workload, role, file)?;
    let connection = Connection {
        listen: args.listen,
        connect: args.connect,
        security: args.security,
        quiet: args.feedback.quiet,
    };
    // Connect first: a listener's first stderr line must be `listening on ADDR`.
    let ch = args.session.open(&connection)?;
    let cfg = args.session.config().with_progress(args.feedback.reporter());
    let program = format!("vip {}", workload.name());
    let start = Instant::now();
    let (learned, ands) = if role == PartyId::GARBLER {
        let mut s = GarblerSession::setup(ch, &cfg)?;
        let ctx = Ctx::new(s.program(&program, args.reveal)?);
        stop_at_failure(|| -> Result<_, CliError> {
            let out = workload.program(&ctx, Some(&words), None)?;
            let ands = ctx.into_inner().ok_or("the program is still shared")?.finish()?;
            Ok((out, ands))
        })?
    } else {
        let mut s = EvaluatorSession::setup(ch, &cfg)?;
        let ctx = Ctx::new(s.program(&program, args.reveal)?);
        stop_at_failure(|| -> Result<_, CliError> {
            let out = workload.program(&ctx, None, Some(&words))?;
            let ands = ctx.into_inner().ok_or("the program is still shared")?.finish()?;
            Ok((out, ands))
        })?
    };
    let elapsed = start.elapsed();
    if let Some(words) = learned {
        crate::write_stdout(&(vip_json::output_line(workload, &words) + "\n"))?;
    }
    args.feedback.summary(&format!(
        "{role}: vip {}: {ands} ANDs in {:.3} s ({:.1} ns/AND)",
        workload.name(),
        elapsed.as_secs_f64(),
        elapsed.as_nanos() as f64 / ands.max(1) as f64
    ));
    Ok(())
}

/// This party's words from its input file (size-checked before reading).
fn read_input(w: Workload, role: PartyId, file: &Path) -> Result<Vec<u32>, CliError> {
    let shown = file.display();
    let len = std::fs::metadata(file)
        .map_err(|e| format!("cannot read {shown}: {e}"))?
        .len();
    if len > MAX_INPUT_FILE_BYTES {
        return Err(format!(
            "{shown}: {len} bytes, more than any {} input ({MAX_INPUT_FILE_BYTES} at most)",
            w.name()
        )
        .into());
    }
    let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {shown}: {e}"))?;
    Ok(vip_json::parse_input(w, role, &text).map_err(|e| format!("{shown}: {e}"))?)
}

/// `--report`: the program's counts beside HAAC Table 2.
fn report(name: &str) -> Result<(), CliError> {
    let workloads = if name == "all" {
        Workload::ALL.to_vec()
    } else {
        vec![Workload::from_name(name)?]
    };
    let mut text = format!(
        "{:<9} {:>11} {:>10} {:>6}   {:>14} {:>6} {:>10}   {:>9}\n",
        "workload", "gates", "ANDs", "AND %", "HAAC gates", "AND %", "HAAC ANDs", "ANDs/HAAC"
    );
    for w in workloads {
        let cost = w.cost()?;
        let gates = cost.ands + cost.xors + cost.nots;
        let haac = w.haac();
        text += &format!(
            "{:<9} {:>11} {:>10} {:>6.2}   {:>13}k {:>6.2} {:>10}   {:>9.3}\n",
            w.name(),
            gates,
            cost.ands,
            100.0 * cost.ands as f64 / gates.max(1) as f64,
            haac.kilo_gates,
            haac.and_percent,
            haac.ands(),
            cost.ands as f64 / haac.ands() as f64
        );
    }
    crate::write_stdout(&text)
}

/// `--random-inputs DIR`: both parties' files and the expected output line (random words;
/// for `graddesc`, random points near a line).
fn random_inputs(w: Workload, dir: &Path) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut rng = rand::thread_rng();
    let (g, e) = if w == Workload::GradDesc {
        // Points near y = 3x + 2 (random bit patterns would make most results NaN).
        let x: Vec<f32> = (0..w.evaluator_words())
            .map(|_| rng.gen_range(-10.0f32..10.0))
            .collect();
        let y = x
            .iter()
            .map(|&x| (3.0 * x + 2.0 + rng.gen_range(-0.5f32..0.5)).to_bits());
        (y.collect(), x.iter().map(|v| v.to_bits()).collect())
    } else {
        let mut words = |n: usize| -> Vec<u32> { (0..n).map(|_| rng.gen()).collect() };
        (words(w.garbler_words()), words(w.evaluator_words()))
    };
    let expected = vip_json::output_line(w, &w.model(&g, &e)?) + "\n";
    let files = [
        ("garbler", vip_json::input_file(w, PartyId::GARBLER, &g)),
        ("evaluator", vip_json::input_file(w, PartyId::EVALUATOR, &e)),
        ("expected", expected),
    ];
    for (what, text) in files {
        let path = dir.join(format!("{}.{what}.json", w.name()));
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    Ok(())
}
