//! `mixgc plan`: ABLE §5.2's question — does a mixed circuit pay for its conversions? —
//! answered before running. A program's realizations (pure Boolean, Boolean + BC +
//! arithmetic, arithmetic + BD + Boolean, and the LeNet layer's own) are run on the cost
//! counter; their op counts times unit costs calibrated on this machine (each gadget kind
//! timed in a small two-party run of the same protocol) predict garbling and evaluation
//! time; the counter's table bytes are exact. The planner recommends the cheapest for the
//! chosen objective, and `--check` runs every realization between two parties to compare.

use std::collections::BTreeMap;

use crate::planner::{self as phased, calibrate, ClipRun, LenetRun, Phased, Unit, UnitCosts};
use clap::{Args, ValueEnum};
use mixgc_arith::primes::min_sum_primes;
use mixgc_core::{new_rng, Reporter};
use mixgc_program::clipdot::{self, ClipDot};
use mixgc_program::lenet::{self, ConvLayer, ConvShape};
use rand::Rng;
use serde::Serialize;

use crate::common::{write_stdout, CliError};
use crate::common::{Feedback, SessionOptions};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Program {
    /// Σ clip(x_i)·clip(y_i) over --size values per party (all three ABLE realizations).
    Clipdot,
    /// The LeNet conv layer + ReLU of `mixgc lenet` (--size filters, default 32).
    Lenet,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Objective {
    /// Stream GC (ABLE §5.2.1): garbling time, tables sent while garbling.
    Stream,
    /// GC with preprocessing (ABLE §5.2.2): online evaluation time.
    Preprocessing,
    /// Garbled-table bytes (communication or storage).
    Bytes,
}

#[derive(Args, Debug)]
#[command(
    after_help = "How the prediction is made: the cost counter runs each realization and \
reports its ANDs and its arithmetic gadgets (products, powers, muxes, BC per bit, BD, free ops) with \
their exact garbled-table bytes. Unit times are calibrated first: each gadget kind, at this width \
and prime set, is garbled and evaluated in two-party runs of n and 2n gadgets (the session protocol in this \
process; garbling first, then evaluation, as in preprocessing), and the unit is the slope between the \
fastest of 5 runs of each, so per-run costs are not spread over the gadgets, less the free addition \
that folds each gadget into the result (programs count that as a free op). Predicted time = Σ count × \
unit time. With --check every realization is then run the same way on random inputs, outputs \
checked against the plaintext program, and the measured times are printed next to the predictions \
(each run holds its tables in memory: an instance over 1 GiB of tables is refused).\n\n\
Examples:\n  mixgc plan clipdot --width 32 --size 256 --check\n  mixgc plan lenet --width 8 --size 2 --check"
)]
pub struct PlanArgs {
    /// The program to plan.
    #[arg(value_enum)]
    program: Program,
    /// Value width in bits (4 to 64); CRT values use that width's minimum-sum primes.
    #[arg(long, default_value_t = 16)]
    width: u32,
    /// Problem size: values per party (clipdot, default 256) or filters (lenet, default 32).
    #[arg(long)]
    size: Option<usize>,
    /// What to minimise.
    #[arg(long, value_enum, default_value = "stream")]
    objective: Objective,
    /// Also run every realization between two parties and compare with the prediction.
    #[arg(long)]
    check: bool,
    /// With --check: runs per realization (the median is shown).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=MAX_REPS as i64))]
    reps: u16,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    session: SessionOptions,
    #[command(flatten)]
    feedback: Feedback,
}

/// One realization's prediction (and measurement, with --check).
#[derive(Serialize)]
struct Row {
    realization: String,
    ands: u64,
    arithmetic_gadgets: BTreeMap<String, u64>,
    table_bytes: u64,
    predicted: Unit,
    measured: Option<Unit>,
}

/// A plan: every realization's counts and predicted times (and measured, with `check`), and
/// the one recommended for the objective; `mixgc plan --json` prints it.
#[derive(Serialize)]
pub struct Plan {
    program: String,
    width: u32,
    primes: Vec<u64>,
    objective: String,
    units: UnitCosts,
    realizations: Vec<Row>,
    recommended: String,
}

/// What to plan: `mixgc plan`'s arguments less the output format.
#[derive(Clone, Debug)]
pub struct PlanRequest {
    pub program: Program,
    /// Value width in bits (4 to 64).
    pub width: u32,
    /// Values per party (clipdot) or filters (lenet); `None` for the program's default.
    pub size: Option<usize>,
    pub objective: Objective,
    /// Also run every realization between two parties in this process.
    pub check: bool,
    /// With `check`: runs per realization, 1 to [`MAX_REPS`] (the median is kept).
    pub reps: u16,
}

/// Most runs per realization with `check`.
pub const MAX_REPS: u16 = 100;

pub fn plan(args: PlanArgs) -> Result<(), CliError> {
    let request = PlanRequest {
        program: args.program,
        width: args.width,
        size: args.size,
        objective: args.objective,
        check: args.check,
        reps: args.reps,
    };
    let cfg = args.session.config().for_command(mixgc_session::Command::Plan);
    let plan = make_plan(&request, &cfg, args.feedback.reporter())?;
    if args.json {
        return write_stdout(&format!("{}\n", serde_json::to_string_pretty(&plan)?));
    }
    write_stdout(&report(&plan))
}

/// Calibrates the unit costs, counts (and with `check` runs) every realization of the
/// request's program, and recommends one (ABLE §5.2). `progress` sees one step for the
/// calibration and one per realization.
pub fn make_plan(
    req: &PlanRequest,
    cfg: &mixgc_session::SessionConfig,
    progress: Reporter,
) -> Result<Plan, CliError> {
    if !(4..=64).contains(&req.width) {
        return Err(format!("--width: {} is not a width from 4 to 64", req.width).into());
    }
    if !(1..=MAX_REPS).contains(&req.reps) {
        return Err(format!(
            "--reps: {} is not a number of runs from 1 to {MAX_REPS}",
            req.reps
        )
        .into());
    }
    // Checked before the calibration (about a second) is spent.
    let size = problem_size(req.program, req.size)?;
    let set = min_sum_primes(req.width)?;
    let realizations = match req.program {
        Program::Clipdot => clipdot::Realization::ALL.len(),
        Program::Lenet => lenet::Realization::ALL.len(),
    };
    progress.begin("plan", Some(1 + realizations as u64), mixgc_core::Unit::Steps);
    progress.note(&format!("calibrating unit costs at {} bits", req.width));
    let units = calibrate(req.width, &set, cfg)?;
    progress.advance(1);
    let reps = usize::from(req.reps);
    let rows = match req.program {
        Program::Clipdot => {
            let n = size;
            let problem = ClipDot {
                n,
                width: req.width,
                clip: ClipDot::safe_clip(n, req.width),
                set: set.clone(),
            };
            let mut rng = new_rng(None, 0);
            let shift = 64 - req.width;
            let x: Vec<i64> = (0..n).map(|_| rng.gen::<i64>() >> shift).collect();
            let y: Vec<i64> = (0..n).map(|_| rng.gen::<i64>() >> shift).collect();
            clipdot::Realization::ALL
                .iter()
                .map(|&r| {
                    let run = ClipRun {
                        problem: &problem,
                        realization: r,
                        x: &x,
                        y: &y,
                    };
                    row(&run, r.name(), &units, req.check, reps, cfg, &progress)
                })
                .collect::<Result<Vec<_>, _>>()?
        }
        Program::Lenet => {
            let layer = ConvLayer {
                shape: ConvShape {
                    filters: size,
                    ..ConvShape::LENET
                },
                width: req.width,
                set: set.clone(),
            };
            let (image, weights) = crate::lenet::random_inputs(&mut new_rng(None, 0), &layer);
            lenet::Realization::ALL
                .iter()
                .map(|&r| {
                    let run = LenetRun {
                        layer: &layer,
                        realization: r,
                        image: &image,
                        filters: &weights,
                    };
                    row(&run, lenet_name(r), &units, req.check, reps, cfg, &progress)
                })
                .collect::<Result<Vec<_>, _>>()?
        }
    };
    progress.end();
    let key = |r: &Row| match req.objective {
        Objective::Stream => r.predicted.garble_us,
        Objective::Preprocessing => r.predicted.eval_us,
        Objective::Bytes => r.table_bytes as f64,
    };
    let best = rows
        .iter()
        .min_by(|a, b| key(a).total_cmp(&key(b)))
        .ok_or("no realization")?;
    Ok(Plan {
        program: format!("{:?}", req.program).to_lowercase(),
        width: req.width,
        primes: set.primes().to_vec(),
        objective: format!("{:?}", req.objective).to_lowercase(),
        recommended: best.realization.clone(),
        units,
        realizations: rows,
    })
}

/// `--size`, or the program's default, if in range.
fn problem_size(program: Program, size: Option<usize>) -> Result<usize, CliError> {
    let (size, max, range) = match program {
        Program::Clipdot => (size.unwrap_or(256), 1 << 16, "clipdot takes 1 to 65536 values"),
        Program::Lenet => (size.unwrap_or(32), 32, "lenet takes 1 to 32 filters"),
    };
    match (1..=max).contains(&size) {
        true => Ok(size),
        false => Err(format!("--size: {range}").into()),
    }
}

/// The realization names of ABLE §5.2 for the LeNet layer's realizations.
fn lenet_name(r: lenet::Realization) -> &'static str {
    match r {
        lenet::Realization::PureBoolean => "pure-boolean",
        lenet::Realization::SmartConvert => "arithmetic+bd+boolean (smart convert)",
        lenet::Realization::FullConvert => "arithmetic+bd+boolean+bc (full convert)",
        lenet::Realization::PureArithmetic => "pure-arithmetic (polynomial ReLU)",
    }
}

/// Counts `run`, predicts its times from `units`, and with `check` measures them.
fn row<P: Phased>(
    run: &P,
    name: &str,
    units: &UnitCosts,
    check: bool,
    reps: usize,
    cfg: &mixgc_session::SessionConfig,
    progress: &Reporter,
) -> Result<Row, CliError> {
    progress.note(name);
    let counter = phased::count(run)?;
    let cost = counter.cost();
    let (predicted, gadgets) = units.predict(&counter);
    let measured = if check {
        progress.note(&format!("{name}: running between two parties"));
        let timed = phased::two_party_median(run, cfg, reps)?;
        Some(Unit {
            garble_us: timed.garble.as_secs_f64() * 1e6,
            eval_us: timed.eval.as_secs_f64() * 1e6,
        })
    } else {
        None
    };
    progress.advance(1);
    Ok(Row {
        realization: name.into(),
        ands: cost.ands,
        arithmetic_gadgets: gadgets,
        table_bytes: cost.table_bytes,
        predicted,
        measured,
    })
}

fn report(plan: &Plan) -> String {
    let mut out = format!(
        "{} at {} bits, CRT primes {}; objective: {}\n\n",
        plan.program,
        plan.width,
        crate::lenet::prime_list(&plan.primes),
        plan.objective
    );
    out += "unit costs (garble / eval µs): ";
    let units: Vec<String> = plan
        .units
        .units()
        .iter()
        .map(|(k, u)| format!("{k} {:.3}/{:.3}", u.garble_us, u.eval_us))
        .collect();
    out += &format!("{}\n\n", units.join(", "));
    out += &format!(
        "{:<42} {:>12} {:>12} {:>14} {:>14}\n",
        "realization", "ANDs", "table bytes", "garble ms", "eval ms"
    );
    for r in &plan.realizations {
        let cell = |p: f64, m: Option<f64>| match m {
            Some(m) => format!("{:.1} ({:.1})", p / 1e3, m / 1e3),
            None => format!("{:.1}", p / 1e3),
        };
        out += &format!(
            "{:<42} {:>12} {:>12} {:>14} {:>14}\n",
            r.realization,
            r.ands,
            r.table_bytes,
            cell(r.predicted.garble_us, r.measured.map(|m| m.garble_us)),
            cell(r.predicted.eval_us, r.measured.map(|m| m.eval_us)),
        );
        if !r.arithmetic_gadgets.is_empty() {
            let g: Vec<String> = r
                .arithmetic_gadgets
                .iter()
                .map(|(k, n)| format!("{k} ×{n}"))
                .collect();
            out += &format!("    gadgets: {}\n", g.join(", "));
        }
    }
    if plan.realizations.iter().any(|r| r.measured.is_some()) {
        out += "times: predicted (measured, two parties in this process)\n";
    }
    out += &format!("\nrecommended for {}: {}\n", plan.objective, plan.recommended);
    out
}
