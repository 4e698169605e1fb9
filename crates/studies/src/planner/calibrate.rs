//! The planner's cost model (ABLE §5.2): unit costs of Boolean ANDs and of every CRT
//! gadget kind, calibrated on this machine by timing small two-party runs of each
//! ([`calibrate`]), and predictions for any counted program ([`UnitCosts::predict`]):
//! Σ count × unit cost. Table bytes need no model: the cost counter is exact.

use std::collections::BTreeMap;

use mixgc_core::new_rng;
use mixgc_program::counter::CrtOp;
use mixgc_program::{ArithBackend, Counter, Crt, Ctx, PartyId, PrimeSet, ProgramError, SInt, UInt};
use rand::Rng;

use std::time::Duration;

use super::phased::{count, two_party, Phased, RunError, Timed};
use mixgc_session::SessionConfig;

/// Garbling and evaluation time, in µs.
#[derive(Clone, Copy, Default, Debug, PartialEq, serde::Serialize)]
pub struct Unit {
    pub garble_us: f64,
    pub eval_us: f64,
}

/// Calibrated unit costs by unit name: `and` (one Boolean AND), `mul`, `pow`, `mux`, `bd`
/// (one gadget over the calibrated prime set), `bc-bit` (one composed bit), `free` (one
/// addition, subtraction, scaling or constant).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct UnitCosts(BTreeMap<String, Unit>);

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

impl UnitCosts {
    /// The cost of `n` units of `unit` (zero for a unit never calibrated).
    fn times(&self, unit: &str, n: f64) -> Unit {
        let u = self.0.get(unit).copied().unwrap_or_default();
        Unit {
            garble_us: u.garble_us * n,
            eval_us: u.eval_us * n,
        }
    }

    /// Every unit and its cost.
    pub fn units(&self) -> &BTreeMap<String, Unit> {
        &self.0
    }

    /// Predicted garbling and evaluation time of the program `counter` counted: its ANDs
    /// and its arithmetic gadgets, each times its unit cost. Also returns the gadgets in
    /// units (e.g. `bc-bit` counts composed bits).
    pub fn predict(&self, counter: &Counter) -> (Unit, BTreeMap<String, u64>) {
        let mut gadgets = BTreeMap::new();
        let mut predicted = self.times("and", counter.cost().ands as f64);
        for ((op, _), n) in counter.crt_ops() {
            let (unit, weight) = unit_of(op);
            if weight == 0 {
                continue;
            }
            *gadgets.entry(unit.to_string()).or_insert(0) += n * weight;
            let t = self.times(unit, (n * weight) as f64);
            predicted.garble_us += t.garble_us;
            predicted.eval_us += t.eval_us;
        }
        (predicted, gadgets)
    }
}

/// Calibration runs per gadget kind and size (the fastest is used).
pub const CALIBRATION_REPS: usize = 5;

/// Unit costs at `width` bits over `set`: each gadget kind timed in small two-party runs
/// of n and 2n gadgets (the fastest of [`CALIBRATION_REPS`]), outputs checked against
/// plaintext. The unit is the slope, (t(2n) − t(n)) / n, so what every run pays once
/// (frames, the output reveal, finishing) is not spread over the gadgets.
pub fn calibrate(width: u32, set: &PrimeSet, cfg: &SessionConfig) -> Result<UnitCosts, RunError> {
    let mut units = BTreeMap::new();
    for kind in Micro::KINDS {
        let n = if kind == "bd" { 8 } else { 64 };
        let [first, second] = [n, 2 * n].map(|count| -> Result<(Timed, f64), RunError> {
            let micro = Micro {
                kind,
                width,
                set: set.clone(),
                count,
            };
            // The fastest of the runs: slow periods of a shared machine are not the gadget's.
            let runs = (0..CALIBRATION_REPS)
                .map(|_| two_party(&micro, cfg))
                .collect::<Result<Vec<_>, _>>()?;
            let best = |f: fn(&Timed) -> Duration| runs.iter().map(f).min().unwrap_or_default();
            let timed = Timed {
                garble: best(|t| t.garble),
                eval: best(|t| t.eval),
                checked: runs.iter().map(|t| t.checked).sum(),
            };
            Ok((timed, micro.units()?))
        });
        let ((t1, u1), (t2, u2)) = (first?, second?);
        // Noise can make the difference negative for the cheapest kinds: never below 0.
        let slope = |a: Duration, b: Duration| (b.as_secs_f64() - a.as_secs_f64()).max(0.0) * 1e6 / (u2 - u1);
        units.insert(
            kind.to_string(),
            Unit {
                garble_us: slope(t1.garble, t2.garble),
                eval_us: slope(t1.eval, t2.eval),
            },
        );
    }
    remove_folds(&mut units, width);
    Ok(UnitCosts(units))
}

/// Each calibration gadget is folded into the revealed result by one free addition, which
/// its slope includes but which programs count as a free operation of their own: take it
/// out of the CRT gadgets' units (a bc-bit carries 1/width of its value's addition; the
/// Boolean folds are XORs, free in time too).
fn remove_folds(units: &mut BTreeMap<String, Unit>, width: u32) {
    let Some(&free) = units.get("free") else {
        return;
    };
    for (kind, unit) in units.iter_mut() {
        let share = match kind.as_str() {
            "mul" | "pow" | "mux" => 1.0,
            "bc-bit" => 1.0 / f64::from(width),
            _ => continue,
        };
        unit.garble_us = (unit.garble_us - share * free.garble_us).max(0.0);
        unit.eval_us = (unit.eval_us - share * free.eval_us).max(0.0);
    }
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
    /// The units this program's compute phase holds: ANDs, composed bits, free operations
    /// (each op and its fold), or gadgets.
    fn units(&self) -> Result<f64, RunError> {
        Ok(match self.kind {
            "and" => count(self)?.cost().ands as f64,
            "bc-bit" => (self.count as u32 * self.width) as f64,
            "free" => 2.0 * self.count as f64,
            _ => self.count as f64,
        })
    }

    const KINDS: [&'static str; 7] = ["and", "mul", "pow", "mux", "bc-bit", "bd", "free"];

    fn values(&self, owner: PartyId) -> Vec<i128> {
        let mut rng = new_rng(Some(owner.index() as u64), 0);
        let half = 1i128 << (self.width - 1);
        (0..self.count).map(|_| rng.gen_range(-half..half)).collect()
    }
}

/// Inputs of a calibration program.
enum MicroInputs<B: ArithBackend> {
    Boolean(Vec<SInt<B>>, Vec<SInt<B>>),
    /// Garbler's and evaluator's values, and the evaluator's 1-bit mux selector.
    Crt(Vec<Crt<B>>, Vec<Crt<B>>, UInt<B>),
}

impl Phased for Micro {
    type Inputs<B: ArithBackend> = MicroInputs<B>;

    fn name(&self) -> String {
        format!("calibrate/{}/{}", self.kind, self.width)
    }

    fn inputs<B: ArithBackend>(
        &self,
        ctx: &Ctx<B>,
        garbler: bool,
        evaluator: bool,
    ) -> Result<MicroInputs<B>, ProgramError> {
        let (x, y) = (self.values(PartyId::GARBLER), self.values(PartyId::EVALUATOR));
        let pick = |v: &[i128], feed: bool, i: usize| feed.then(|| v[i]);
        if matches!(self.kind, "and" | "bc-bit") {
            let input = |owner, v: &[i128], feed| {
                (0..self.count)
                    .map(|i| ctx.input_sint(owner, self.width, pick(v, feed, i)))
                    .collect::<Result<Vec<_>, _>>()
            };
            return Ok(MicroInputs::Boolean(
                input(PartyId::GARBLER, &x, garbler)?,
                input(PartyId::EVALUATOR, &y, evaluator)?,
            ));
        }
        let input = |owner, v: &[i128], feed| {
            (0..self.count)
                .map(|i| ctx.input_crt_signed(owner, &self.set, pick(v, feed, i)))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(MicroInputs::Crt(
            input(PartyId::GARBLER, &x, garbler)?,
            input(PartyId::EVALUATOR, &y, evaluator)?,
            ctx.input_uint(PartyId::EVALUATOR, 1, evaluator.then_some(1))?,
        ))
    }

    fn compute<B: ArithBackend>(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fold_addition_is_taken_out_of_the_gadget_units() {
        let unit = |garble_us, eval_us| Unit { garble_us, eval_us };
        let mut units = BTreeMap::from([
            ("free".to_string(), unit(1.0, 0.5)),
            ("mul".to_string(), unit(10.0, 4.0)),
            ("bc-bit".to_string(), unit(2.0, 1.0)),
            ("and".to_string(), unit(0.1, 0.1)),
            ("pow".to_string(), unit(0.5, 0.25)),
        ]);
        remove_folds(&mut units, 8);
        assert_eq!(units["mul"], unit(9.0, 3.5));
        assert_eq!(units["bc-bit"], unit(2.0 - 1.0 / 8.0, 1.0 - 0.5 / 8.0));
        assert_eq!(units["and"], unit(0.1, 0.1));
        assert_eq!(units["free"], unit(1.0, 0.5));
        assert_eq!(units["pow"], unit(0.0, 0.0), "never below zero");
    }

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
