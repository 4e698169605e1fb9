//! `mixgc plan`: ABLE §5.2's question — does a mixed circuit pay for its conversions? —
//! answered before running. A program's realizations (pure Boolean, Boolean + BC +
//! arithmetic, arithmetic + BD + Boolean, and the LeNet layer's own) are run on the cost
//! counter; their op counts times unit costs calibrated on this machine (each gadget kind
//! timed in a small two-party run of the same protocol) predict garbling and evaluation
//! time; the counter's table bytes are exact. The planner recommends the cheapest for the
//! chosen objective, and `--check` runs every realization between two parties to compare.

use std::collections::BTreeMap;

use clap::{Args, ValueEnum};
use mixgc_arith::primes::min_sum_primes;
use mixgc_core::new_rng;
use mixgc_program::clipdot::{self, ClipDot};
use mixgc_program::counter::CrtOp;
use mixgc_program::lenet::{self, ConvLayer, ConvShape};
use mixgc_program::{Crt, CrtBackend, Ctx, Owner, PrimeSet, ProgramError, SInt, UInt};
use rand::Rng;
use serde::Serialize;

use crate::party::SessionOptions;
use crate::phased::{self, Phased};
use crate::{write_stdout, CliError};

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
and prime set, is garbled and evaluated a few dozen times in a two-party run of the session protocol \
in this process (garbling first, then evaluation, as in preprocessing). Predicted time = Σ count × \
unit time. With --check every realization is then run the same way on random inputs, outputs \
checked against the plaintext program, and the measured times are printed next to the predictions.\n\n\
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
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u16).range(1..=100))]
    reps: u16,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    session: SessionOptions,
}

/// Garbling and evaluation time of one unit, in µs.
#[derive(Clone, Copy, Default, Debug, Serialize)]
struct Unit {
    garble_us: f64,
    eval_us: f64,
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

#[derive(Serialize)]
struct Plan {
    program: String,
    width: u32,
    primes: Vec<u64>,
    objective: String,
    units: BTreeMap<String, Unit>,
    realizations: Vec<Row>,
    recommended: String,
}

pub fn plan(args: PlanArgs) -> Result<(), CliError> {
    if !(4..=64).contains(&args.width) {
        return Err(format!("--width: {} is not a width from 4 to 64", args.width).into());
    }
    let set = min_sum_primes(args.width)?;
    let cfg = args.session.config();
    eprintln!("plan: calibrating unit costs at {} bits ...", args.width);
    let units = calibrate(args.width, &set, &cfg)?;
    let rows = match args.program {
        Program::Clipdot => {
            let n = args.size.unwrap_or(256);
            if !(1..=1 << 16).contains(&n) {
                return Err("--size: clipdot takes 1 to 65536 values".into());
            }
            let problem = ClipDot {
                n,
                width: args.width,
                clip: ClipDot::safe_clip(n, args.width),
                set: set.clone(),
            };
            let mut rng = new_rng(None, 0);
            let shift = 64 - args.width;
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
                    row(&run, r.name(), &units, args.check, usize::from(args.reps), &cfg)
                })
                .collect::<Result<Vec<_>, _>>()?
        }
        Program::Lenet => {
            let filters = args.size.unwrap_or(32);
            if !(1..=32).contains(&filters) {
                return Err("--size: lenet takes 1 to 32 filters".into());
            }
            let layer = ConvLayer {
                shape: ConvShape {
                    filters,
                    ..ConvShape::LENET
                },
                width: args.width,
                set: set.clone(),
            };
            let (image, weights) = crate::lenet::random_inputs(&mut new_rng(None, 0), &layer);
            lenet::Realization::ALL
                .iter()
                .map(|&r| {
                    let run = crate::lenet::LenetRun {
                        layer: &layer,
                        realization: r,
                        image: &image,
                        filters: &weights,
                    };
                    row(
                        &run,
                        lenet_name(r),
                        &units,
                        args.check,
                        usize::from(args.reps),
                        &cfg,
                    )
                })
                .collect::<Result<Vec<_>, _>>()?
        }
    };
    let key = |r: &Row| match args.objective {
        Objective::Stream => r.predicted.garble_us,
        Objective::Preprocessing => r.predicted.eval_us,
        Objective::Bytes => r.table_bytes as f64,
    };
    let best = rows
        .iter()
        .min_by(|a, b| key(a).total_cmp(&key(b)))
        .ok_or("no realization")?;
    let plan = Plan {
        program: format!("{:?}", args.program).to_lowercase(),
        width: args.width,
        primes: set.primes().to_vec(),
        objective: format!("{:?}", args.objective).to_lowercase(),
        recommended: best.realization.clone(),
        units,
        realizations: Vec::new(),
    };
    let plan = Plan {
        realizations: rows,
        ..plan
    };
    if args.json {
        return write_stdout(&format!("{}\n", serde_json::to_string_pretty(&plan)?));
    }
    write_stdout(&report(&plan))
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
    units: &BTreeMap<String, Unit>,
    check: bool,
    reps: usize,
    cfg: &mixgc_session::SessionConfig,
) -> Result<Row, CliError> {
    let counter = phased::count(run)?;
    let cost = counter.cost();
    let mut gadgets = BTreeMap::new();
    let mut predicted = scaled(units, "and", cost.ands as f64);
    for ((op, _), n) in counter.crt_ops() {
        let (unit, weight) = unit_of(op);
        if weight == 0 {
            continue;
        }
        *gadgets.entry(unit.to_string()).or_insert(0) += n * weight;
        let t = scaled(units, unit, (n * weight) as f64);
        predicted.garble_us += t.garble_us;
        predicted.eval_us += t.eval_us;
    }
    let measured = if check {
        eprintln!("plan: running {name} between two parties ...");
        let timed = phased::two_party_median(run, cfg, reps)?;
        Some(Unit {
            garble_us: timed.garble.as_secs_f64() * 1e6,
            eval_us: timed.eval.as_secs_f64() * 1e6,
        })
    } else {
        None
    };
    Ok(Row {
        realization: name.into(),
        ands: cost.ands,
        arithmetic_gadgets: gadgets,
        table_bytes: cost.table_bytes,
        predicted,
        measured,
    })
}

/// The calibrated unit a CRT op is priced in, and how many units it is.
fn unit_of(op: CrtOp) -> (&'static str, u64) {
    match op {
        CrtOp::Mul => ("mul", 1),
        CrtOp::Pow(_) => ("pow", 1),
        CrtOp::Mux => ("mux", 1),
        CrtOp::Compose { bits } => ("bc-bit", u64::from(bits)),
        CrtOp::Decompose => ("bd", 1),
        CrtOp::Add | CrtOp::Sub | CrtOp::Scale | CrtOp::Constant => ("free", 1),
        // Inputs are outside the timed phase; outputs are a u16 per residue.
        CrtOp::Input(_) | CrtOp::Output(_) => ("none", 0),
    }
}

fn scaled(units: &BTreeMap<String, Unit>, unit: &str, n: f64) -> Unit {
    let u = units.get(unit).copied().unwrap_or_default();
    Unit {
        garble_us: u.garble_us * n,
        eval_us: u.eval_us * n,
    }
}

/// Calibration runs per gadget kind (the median is used).
const CALIBRATION_REPS: usize = 5;

/// Unit costs at `width` bits over `set`: each gadget kind timed in a small two-party run.
fn calibrate(
    width: u32,
    set: &PrimeSet,
    cfg: &mixgc_session::SessionConfig,
) -> Result<BTreeMap<String, Unit>, CliError> {
    let mut units = BTreeMap::new();
    for kind in Micro::KINDS {
        let micro = Micro {
            kind,
            width,
            set: set.clone(),
            count: if kind == "bd" { 8 } else { 32 },
        };
        let timed = phased::two_party_median(&micro, cfg, CALIBRATION_REPS)?;
        let per = match kind {
            "and" => phased::count(&micro)?.cost().ands as f64,
            "bc-bit" => (micro.count as u32 * width) as f64,
            // Each op and its fold: two free operations.
            "free" => 2.0 * micro.count as f64,
            _ => micro.count as f64,
        };
        units.insert(
            kind.to_string(),
            Unit {
                garble_us: timed.garble.as_secs_f64() * 1e6 / per,
                eval_us: timed.eval.as_secs_f64() * 1e6 / per,
            },
        );
    }
    Ok(units)
}

/// A calibration program: `count` independent gadgets of one kind on fresh inputs, their
/// results folded for free into one revealed value.
struct Micro {
    kind: &'static str,
    width: u32,
    set: PrimeSet,
    count: usize,
}

impl Micro {
    const KINDS: [&'static str; 7] = ["and", "mul", "pow", "mux", "bc-bit", "bd", "free"];

    fn values(&self, owner: Owner) -> Vec<i128> {
        let mut rng = new_rng(Some(owner as u64), 0);
        let half = 1i128 << (self.width - 1);
        (0..self.count).map(|_| rng.gen_range(-half..half)).collect()
    }
}

/// Inputs of a calibration program.
enum MicroInputs<B: CrtBackend> {
    Boolean(Vec<SInt<B>>, Vec<SInt<B>>),
    /// Garbler's and evaluator's values, and the evaluator's 1-bit mux selector.
    Crt(Vec<Crt<B>>, Vec<Crt<B>>, UInt<B>),
}

impl Phased for Micro {
    type Inputs<B: CrtBackend> = MicroInputs<B>;

    fn name(&self) -> String {
        format!("calibrate/{}/{}", self.kind, self.width)
    }

    fn inputs<B: CrtBackend>(
        &self,
        ctx: &Ctx<B>,
        garbler: bool,
        evaluator: bool,
    ) -> Result<MicroInputs<B>, ProgramError> {
        let (x, y) = (self.values(Owner::Garbler), self.values(Owner::Evaluator));
        let pick = |v: &[i128], feed: bool, i: usize| feed.then(|| v[i]);
        if matches!(self.kind, "and" | "bc-bit") {
            let input = |owner, v: &[i128], feed| {
                (0..self.count)
                    .map(|i| ctx.input_sint(owner, self.width, pick(v, feed, i)))
                    .collect::<Result<Vec<_>, _>>()
            };
            return Ok(MicroInputs::Boolean(
                input(Owner::Garbler, &x, garbler)?,
                input(Owner::Evaluator, &y, evaluator)?,
            ));
        }
        let input = |owner, v: &[i128], feed| {
            (0..self.count)
                .map(|i| ctx.input_crt_signed(owner, &self.set, pick(v, feed, i)))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(MicroInputs::Crt(
            input(Owner::Garbler, &x, garbler)?,
            input(Owner::Evaluator, &y, evaluator)?,
            ctx.input_uint(Owner::Evaluator, 1, evaluator.then_some(1))?,
        ))
    }

    fn compute<B: CrtBackend>(
        &self,
        ctx: &Ctx<B>,
        inputs: &MicroInputs<B>,
    ) -> Result<Vec<Option<i128>>, ProgramError> {
        let none = || ProgramError::OutOfRange("no values".into());
        let reveal_bits = |v: Option<SInt<B>>| -> Result<Option<i128>, ProgramError> {
            let bits = v.ok_or_else(none)?.reveal()?;
            Ok(bits.map(|b| mixgc_program::to_u128(&b) as i128))
        };
        let reveal_crt = |v: Option<Crt<B>>| -> Result<Option<i128>, ProgramError> {
            Ok(v.ok_or_else(none)?.reveal()?.map(|v| v as i128))
        };
        let out = match (self.kind, inputs) {
            ("and", MicroInputs::Boolean(x, y)) => {
                reveal_bits(x.iter().zip(y).map(|(a, b)| a * b).reduce(|a, b| &a ^ &b))?
            }
            ("bc-bit", MicroInputs::Boolean(x, _)) => reveal_crt(
                x.iter()
                    .map(|a| Crt::from_uint(&a.as_unsigned(), &self.set))
                    .reduce(|a, b| &a + &b),
            )?,
            ("bd", MicroInputs::Crt(x, ..)) => {
                reveal_bits(x.iter().map(|a| a.to_uint().as_signed()).reduce(|a, b| &a ^ &b))?
            }
            (kind, MicroInputs::Crt(x, y, select)) => {
                let bit = select.equals(&ctx.uint(1, 1));
                let one = |a: &Crt<B>, b: &Crt<B>| -> Crt<B> {
                    match kind {
                        "mul" => a * b,
                        "pow" => a.pow(3),
                        "mux" => bit.select_crt(a, b),
                        _ => a + b,
                    }
                };
                reveal_crt(x.iter().zip(y).map(|(a, b)| one(a, b)).reduce(|a, b| &a + &b))?
            }
            _ => return Err(ProgramError::OutOfRange("inputs of another calibration".into())),
        };
        Ok(vec![out])
    }

    fn expected(&self) -> Vec<i128> {
        // The calibration checks its own result on the plaintext backend.
        let ctx = Ctx::new(mixgc_program::Plain::default());
        let result = self.inputs(&ctx, true, true).and_then(|i| self.compute(&ctx, &i));
        result.ok().and_then(|v| v[0]).into_iter().collect()
    }

    fn messages(&self) -> usize {
        1 << 12
    }
}

fn report(plan: &Plan) -> String {
    let mut out = format!(
        "{} at {} bits, CRT primes {:?}; objective: {}\n\n",
        plan.program, plan.width, plan.primes, plan.objective
    );
    out += "unit costs (garble / eval µs): ";
    let units: Vec<String> = plan
        .units
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

/// The clipped dot product with both parties' inputs.
struct ClipRun<'a> {
    problem: &'a ClipDot,
    realization: clipdot::Realization,
    x: &'a [i64],
    y: &'a [i64],
}

impl Phased for ClipRun<'_> {
    type Inputs<B: CrtBackend> = clipdot::DotInputs<B>;

    fn name(&self) -> String {
        format!("clipdot/{}/{}", self.realization.name(), self.problem.width)
    }

    fn inputs<B: CrtBackend>(
        &self,
        ctx: &Ctx<B>,
        garbler: bool,
        evaluator: bool,
    ) -> Result<Self::Inputs<B>, ProgramError> {
        let x = garbler.then_some(self.x);
        let y = evaluator.then_some(self.y);
        clipdot::inputs(ctx, self.problem, self.realization, x, y)
    }

    fn compute<B: CrtBackend>(
        &self,
        ctx: &Ctx<B>,
        inputs: &Self::Inputs<B>,
    ) -> Result<Vec<Option<i128>>, ProgramError> {
        Ok(vec![clipdot::compute(
            ctx,
            self.problem,
            self.realization,
            inputs,
        )?])
    }

    fn expected(&self) -> Vec<i128> {
        vec![clipdot::reference(self.problem, self.realization, self.x, self.y)]
    }

    fn messages(&self) -> usize {
        1 << 14
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_counted_op_has_a_unit() {
        for op in [
            CrtOp::Mul,
            CrtOp::Pow(3),
            CrtOp::Mux,
            CrtOp::Compose { bits: 9 },
            CrtOp::Decompose,
        ] {
            assert!(Micro::KINDS.contains(&unit_of(op).0), "{op:?}");
        }
    }
}
