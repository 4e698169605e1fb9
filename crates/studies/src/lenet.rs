//! `mixgc lenet`: ABLE's machine-learning case study (§6, Tables 2–4). The LeNet conv layer
//! of `mixgc_program::lenet` in its four realizations, at several widths: garbled-table
//! size from the cost counter (the whole layer, exact), garbling and evaluation time from
//! real two-party runs of the session protocol in this process, every output checked
//! against the plaintext layer. With `--role`, one party of the same run over TCP.

use std::time::Instant;

use crate::planner::{self as phased, lenet_expected, LenetRun};
use clap::Args;
use mixgc_arith::primes::min_sum_primes;
use mixgc_core::new_rng;
use mixgc_net::Channel;
use mixgc_program::lenet::{self, ConvLayer, ConvShape, Realization};
use mixgc_program::Ctx;
use mixgc_session::{stop_at_failure, Audience, EvaluatorSession, GarblerSession, PartyId, SessionConfig};
use rand::Rng;
use serde::Serialize;

use crate::common::{role_parser, Connection, Security, SessionOptions};
use crate::common::{write_stdout, CliError, Feedback};

#[derive(Args, Debug)]
#[command(
    after_help = "The layer (ABLE Table 2): a 28×28 image (the evaluator's) and 32 filters of \
3×3 (the garbler's), stride 1, no padding: 26×26×32 outputs, 194,688 products, 21,632 ReLUs. \
Realizations (ABLE §6): pure-boolean; full-convert (CRT convolution, BD for the ReLU, BC back); \
smart-convert (no BC back); pure-arithmetic (a polynomial with Table 2's op counts in place of the \
ReLU; its integer coefficients make it a cost stand-in, not a ReLU). CRT values use the minimum-sum \
primes of the width (`mixgc primes`).\n\n\
Table sizes come from the cost counter for the whole layer. Times come from two-party runs of the \
session protocol in this process: the garbler garbles the whole layer into a buffer while the \
evaluator waits, then the evaluator evaluates it (as in preprocessing), so the two times do not \
overlap. To keep memory and time bounded, wide layers are measured on fewer filters and scaled to \
32 (every filter costs the same): by default all 32 up to 8 bits, 4 at 9–16 bits, 1 above; \
--filters overrides (a run whose tables exceed 1 GiB is refused). Inputs are random in the width's signed range; every output the evaluator \
learns is checked against the plaintext layer.\n\n\
Examples:\n  mixgc lenet --widths 8\n  mixgc lenet --widths 4,8,16,32 --json\n  \
mixgc lenet --role garbler --listen 127.0.0.1:7000 --width 8 --realization smart-convert --seed 1\n  \
mixgc lenet --role evaluator --connect 127.0.0.1:7000 --width 8 --realization smart-convert --seed 1"
)]
pub struct LenetArgs {
    /// Value widths in bits (3 to 64), comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "4,8,16,32")]
    widths: Vec<u32>,
    /// Realizations to run, comma-separated: pure-boolean, full-convert, smart-convert,
    /// pure-arithmetic (default: all four).
    #[arg(long, value_delimiter = ',', value_parser = parse_realization)]
    realizations: Vec<Realization>,
    /// Filters measured per run (1 to 32); times are scaled to the layer's filters.
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=32))]
    filters: Option<u16>,
    /// Side of the square input image (4 to 28; 28 is LeNet's).
    #[arg(long, default_value_t = 28, value_parser = clap::value_parser!(u16).range(4..=28))]
    input: u16,
    /// Two-party runs per cell (the medians of garbling and evaluation time are shown).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=100))]
    reps: u16,
    /// Only count table sizes (no runs).
    #[arg(long)]
    count_only: bool,
    /// Print one JSON array of records instead of the tables.
    #[arg(long)]
    json: bool,
    /// Run one party of a two-party run over TCP or TLS instead (needs --listen or --connect).
    #[arg(long, value_parser = role_parser())]
    role: Option<PartyId>,
    /// With --role: wait for the peer on ADDR.
    #[arg(long, value_name = "ADDR", requires = "role", conflicts_with = "connect")]
    listen: Option<String>,
    /// With --role: connect to the peer at ADDR.
    #[arg(long, value_name = "ADDR", requires = "role")]
    connect: Option<String>,
    #[command(flatten)]
    security: Security,
    /// With --role: the value width (3 to 64).
    #[arg(long, default_value_t = 8, requires = "role")]
    width: u32,
    /// With --role: the realization.
    #[arg(long, value_parser = parse_realization, default_value = "smart-convert", requires = "role")]
    realization: Realization,
    /// Seed of the random inputs; both processes of a --role run must use the same one
    /// (each feeds only its own input; the evaluator checks its outputs against the
    /// plaintext layer on the seed's inputs, which only a test setup can do).
    #[arg(long)]
    seed: Option<u64>,
    #[command(flatten)]
    session: SessionOptions,
    #[command(flatten)]
    feedback: Feedback,
}

fn parse_realization(s: &str) -> Result<Realization, String> {
    Realization::parse(s).ok_or_else(|| {
        let names: Vec<_> = Realization::ALL.iter().map(|r| r.name()).collect();
        format!("unknown realization '{s}' (one of {})", names.join(", "))
    })
}

/// ABLE Table 4, per realization (in [`Realization::ALL`]'s order) and width 4/8/16/32:
/// garbled table (kbit), garbling time (µs), evaluation time (µs).
const ABLE_TABLE_4: [[[f64; 4]; 4]; 3] = [
    [
        [1.89e6, 7.78e6, 3.15e7, 1.27e8],
        [1.15e6, 3.55e6, 9.70e6, 3.27e7],
        [1.13e6, 3.49e6, 9.48e6, 3.19e7],
        [1.43e6, 3.48e6, 9.22e6, 2.44e7],
    ],
    [
        [1.70e6, 6.68e6, 2.61e7, 1.03e8],
        [6.04e6, 1.18e7, 2.13e7, 5.18e7],
        [5.86e6, 1.12e7, 1.94e7, 4.37e7],
        [4.30e6, 7.60e6, 1.46e7, 3.17e7],
    ],
    [
        [1.28e6, 5.15e6, 1.97e7, 7.78e7],
        [3.30e6, 6.62e6, 1.12e7, 2.63e7],
        [3.21e6, 6.31e6, 1.02e7, 2.24e7],
        [1.89e6, 2.98e6, 6.79e6, 1.29e7],
    ],
];

/// One realization at one width.
#[derive(Serialize)]
struct Record {
    width: u32,
    realization: &'static str,
    primes: Vec<u64>,
    /// Garbled-table bytes of the whole layer (cost counter).
    table_bytes: u64,
    table_rows: u64,
    /// Filters garbled and evaluated; times are scaled by filters / measured_filters.
    measured_filters: usize,
    garble_us: Option<f64>,
    eval_us: Option<f64>,
    /// Two-party runs (times are their medians).
    reps: usize,
    /// Outputs checked against the plaintext layer (over all runs).
    outputs_checked: usize,
    able_table_kbit: Option<f64>,
    able_garble_us: Option<f64>,
    able_eval_us: Option<f64>,
}

pub fn lenet(args: LenetArgs) -> Result<(), CliError> {
    if let Some(role) = args.role {
        return party(&args, role);
    }
    let realizations = if args.realizations.is_empty() {
        Realization::ALL.to_vec()
    } else {
        args.realizations.clone()
    };
    let cfg = args.session.config().for_command(mixgc_session::Command::Lenet);
    let mut records = Vec::new();
    let progress = args
        .feedback
        .steps("lenet", (args.widths.len() * realizations.len()) as u64);
    for &width in &args.widths {
        let layer = layer(width, usize::from(args.input), ConvShape::LENET.filters)?;
        let measured = match args.filters {
            Some(k) => usize::from(k),
            None if width <= 8 => 32,
            None if width <= 16 => 4,
            None => 1,
        };
        for &r in &realizations {
            progress.note(&format!("{width} bits, {}", r.name()));
            records.push(study(
                &layer,
                r,
                measured,
                args.count_only,
                usize::from(args.reps),
                &cfg,
            )?);
            progress.advance(1);
        }
    }
    progress.end();
    if args.json {
        return write_stdout(&format!("{}\n", serde_json::to_string_pretty(&records)?));
    }
    write_stdout(&table_4(&records, usize::from(args.input) == 28))
}

/// The layer at `width` bits with `filters` filters on an `input`-sided image.
fn layer(width: u32, input: usize, filters: usize) -> Result<ConvLayer, CliError> {
    if !(3..=64).contains(&width) {
        return Err(format!("--widths: {width} is not a width from 3 to 64").into());
    }
    Ok(ConvLayer {
        shape: ConvShape {
            input,
            filters,
            ..ConvShape::LENET
        },
        width,
        set: min_sum_primes(width)?,
    })
}

/// Counts the whole layer, runs `measured` of its filters between two parties, scales.
fn study(
    layer: &ConvLayer,
    r: Realization,
    measured: usize,
    count_only: bool,
    reps: usize,
    cfg: &SessionConfig,
) -> Result<Record, CliError> {
    let cost = phased::count(&LenetRun {
        layer,
        realization: r,
        image: &[],
        filters: &[],
    })?
    .cost();
    let mut record = Record {
        width: layer.width,
        realization: r.name(),
        primes: layer.set.primes().to_vec(),
        table_bytes: cost.table_bytes,
        table_rows: cost.table_rows,
        measured_filters: measured.min(layer.shape.filters),
        garble_us: None,
        eval_us: None,
        reps,
        outputs_checked: 0,
        able_table_kbit: None,
        able_garble_us: None,
        able_eval_us: None,
    };
    if let (Some(w), Some(i)) = (
        [4, 8, 16, 32].iter().position(|&w| w == layer.width),
        Realization::ALL.iter().position(|&x| x == r),
    ) {
        record.able_table_kbit = Some(ABLE_TABLE_4[0][i][w]);
        record.able_garble_us = Some(ABLE_TABLE_4[1][i][w]);
        record.able_eval_us = Some(ABLE_TABLE_4[2][i][w]);
    }
    if count_only {
        return Ok(record);
    }
    let part = ConvLayer {
        shape: ConvShape {
            filters: record.measured_filters,
            ..layer.shape
        },
        ..layer.clone()
    };
    let mut rng = new_rng(Some(u64::from(layer.width)), 0);
    let (image, filters) = random_inputs(&mut rng, &part);
    let run = phased::two_party_median(
        &LenetRun {
            layer: &part,
            realization: r,
            image: &image,
            filters: &filters,
        },
        cfg,
        reps,
    )?;
    let scale = layer.shape.filters as f64 / part.shape.filters as f64;
    record.garble_us = Some(run.garble.as_secs_f64() * 1e6 * scale);
    record.eval_us = Some(run.eval.as_secs_f64() * 1e6 * scale);
    record.outputs_checked = run.checked;
    Ok(record)
}

/// Random signed inputs of the layer's width: (image, filters).
pub(crate) fn random_inputs(rng: &mut impl Rng, layer: &ConvLayer) -> (Vec<i64>, Vec<i64>) {
    // Uniform in the signed range of the width (≤ 64 bits).
    let mut draw = |n| {
        (0..n)
            .map(|_| rng.gen::<i64>() >> (64 - layer.width))
            .collect::<Vec<_>>()
    };
    (draw(layer.shape.pixels()), draw(layer.shape.weights()))
}

/// One party of a two-process run over TCP.
fn party(args: &LenetArgs, role: PartyId) -> Result<(), CliError> {
    let filters = args.filters.map_or(ConvShape::LENET.filters, usize::from);
    let layer = layer(args.width, usize::from(args.input), filters)?;
    let seed = args.seed.unwrap_or_else(rand::random);
    let (image, weights) = random_inputs(&mut new_rng(Some(seed), 0), &layer);
    let connection = Connection {
        listen: args.listen.clone(),
        connect: args.connect.clone(),
        security: args.security.clone(),
        quiet: args.feedback.quiet,
    };
    // A listener's first stderr line must be `listening on ADDR`.
    let ch = args.session.open(&connection)?;
    args.feedback.summary(&format!("inputs drawn from --seed {seed}"));
    let cfg = args
        .session
        .config()
        .for_command(mixgc_session::Command::Lenet)
        .with_progress(args.feedback.reporter());
    let r = args.realization;
    let start = Instant::now();
    let primes = prime_list(layer.set.primes());
    // The handshake names any parameter the two processes disagree on.
    let program = format!(
        "lenet realization={} width={} primes={primes} input={} filters={filters}",
        r.name(),
        layer.width,
        args.input
    );
    let summary = if role == PartyId::GARBLER {
        let mut s = GarblerSession::setup(ch, &cfg)?;
        let ctx = Ctx::new(s.program(&program, Audience::only(PartyId::EVALUATOR))?);
        stop_at_failure(|| -> Result<_, CliError> {
            lenet::run(&ctx, &layer, r, None, Some(&weights))?;
            Ok(ctx.into_inner().ok_or("the program is still shared")?.finish()?)
        })?;
        format!(
            "garbler: {} outputs garbled for the evaluator; sent {} B, received {} B",
            layer.shape.outputs(),
            s.channel().bytes_sent(),
            s.channel().bytes_received()
        )
    } else {
        let mut s = EvaluatorSession::setup(ch, &cfg)?;
        let ctx = Ctx::new(s.program(&program, Audience::only(PartyId::EVALUATOR))?);
        let outputs = stop_at_failure(|| -> Result<_, CliError> {
            let outputs = lenet::run(&ctx, &layer, r, Some(&image), None)?;
            ctx.into_inner().ok_or("the program is still shared")?.finish()?;
            Ok(outputs)
        })?;
        let checked = phased::check(&outputs, &lenet_expected(&layer, r, &image, &weights))?;
        format!(
            "evaluator: {checked} outputs, all equal to the plaintext layer; sent {} B, received {} B",
            s.channel().bytes_sent(),
            s.channel().bytes_received()
        )
    };
    write_stdout(&format!(
        "lenet {} at {} bits (primes {primes}): {summary}; {:.1} ms\n",
        r.name(),
        layer.width,
        start.elapsed().as_secs_f64() * 1e3
    ))
}

/// Primes as `3,5,7`.
pub(crate) fn prime_list(primes: &[u64]) -> String {
    primes.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

/// ABLE Table 4's layout: one block per cost, one row per realization, our figure with its
/// change against our pure-Boolean baseline, then ABLE's.
fn table_4(records: &[Record], full_layer: bool) -> String {
    let mut out = String::new();
    let widths: Vec<u32> = records.iter().map(|r| r.width).fold(Vec::new(), |mut v, w| {
        if !v.contains(&w) {
            v.push(w);
        }
        v
    });
    type Metric = (
        &'static str,
        fn(&Record) -> Option<f64>,
        fn(&Record) -> Option<f64>,
    );
    let metrics: [Metric; 3] = [
        (
            "Garbled table (kbit)",
            |r| Some(r.table_bytes as f64 * 8.0 / 1e3),
            |r| r.able_table_kbit,
        ),
        ("Garbling time (µs)", |r| r.garble_us, |r| r.able_garble_us),
        ("Evaluation time (µs)", |r| r.eval_us, |r| r.able_eval_us),
    ];
    for (title, ours, able) in metrics {
        out += &format!("{title}: mixgc (vs pure Boolean) | ABLE Table 4\n");
        for r in Realization::ALL {
            let mut line = format!("  {:<16}", r.name());
            for &w in &widths {
                let find =
                    |x: Realization| records.iter().find(|c| c.width == w && c.realization == x.name());
                let cell = match (
                    find(r).and_then(ours),
                    find(Realization::PureBoolean).and_then(ours),
                ) {
                    (Some(v), Some(base)) if r != Realization::PureBoolean => {
                        format!("{v:.2e} ({:+.0}%)", (v / base - 1.0) * 100.0)
                    }
                    (Some(v), _) => format!("{v:.2e}"),
                    (None, _) => "—".into(),
                };
                let reference = match find(r).and_then(able) {
                    Some(a) if full_layer => format!("{a:.2e}"),
                    _ => "—".into(),
                };
                line += &format!(" | {w:>2}b {cell:<17} {reference:<8}");
            }
            out += &format!("{}\n", line.trim_end());
        }
    }
    let checked: usize = records.iter().map(|r| r.outputs_checked).sum();
    out += &format!(
        "{checked} outputs checked against the plaintext layer. Times: medians of --reps runs per cell; runs \
on fewer filters are scaled to the layer (measured filters per cell in --json).\n"
    );
    out
}
