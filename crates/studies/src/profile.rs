//! `mixgc profile`: ABLE §4–5 on this machine. For each op (XOR, AND, Add, Sub, Pub Mul,
//! Mul, Mux, Pub Exp, Div, Mod, Geq, BC, BD), representation (Boolean, CRT over the first k
//! primes, CRT over the optimized primes) and width: the communication split into garbled
//! tables, garbler inputs, OT and outputs, and the median garbling and evaluation time in
//! memory; then ABLE's relative results and the BC/BD equivalent ratios (Tables 5–6), as
//! text, JSON and PNG plots like ABLE's Figs. 4–9.

mod boolean;
mod crt;
mod plots;
mod ratios;
mod report;
mod timing;
mod workload;

use std::path::{Path, PathBuf};

use clap::Args;
use mixgc_arith::primes::{first_primes, min_sum_primes};
use mixgc_arith::PrimeSet;

use crate::bench::machine;
use crate::common::{write_stdout, CliError};
use workload::{Op, Record, Repr};

/// Widths `--widths` accepts: the Boolean and CRT values are u128 at most, and 64 bits is
/// the widest ABLE's figures go.
const WIDTHS: std::ops::RangeInclusive<i64> = 2..=64;

#[derive(Args, Debug)]
#[command(after_long_help = AFTER_HELP)]
pub struct ProfileArgs {
    /// Operand widths in bits, comma-separated (each 2..=64).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "4,8,16,32,64",
        value_parser = clap::value_parser!(u32).range(WIDTHS),
        value_name = "W,.."
    )]
    widths: Vec<u32>,
    /// Timed samples per figure; each figure is their median. A sample runs as many op
    /// instances back to back as fill about 2 ms of garbling, and is divided by their number.
    #[arg(long, default_value_t = 41, value_parser = clap::value_parser!(u32).range(1..=1000))]
    reps: u32,
    /// Print one JSON array of records on stdout instead of the text report.
    #[arg(long)]
    json: bool,
    /// Also write profile.json, ratios.json and the plots fig4.png..fig9.png into DIR
    /// (created if missing).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    #[command(flatten)]
    feedback: crate::common::Feedback,
}

const AFTER_HELP: &str = "\
What is measured (ABLE, Mo et al., §4-5):
  Workloads: the garbler's x and the evaluator's y, w bits each (a CRT value < 2^w), the op,
  one output revealed to both parties. Pub Mul is 7*y, Pub Exp is y^5 (Boolean: square and
  multiply), Mux is s ? x : y for the garbler's secret bit s (CRT: y + s*(x - y), s composed
  into the bundle), BC converts the evaluator's w Boolean bits into a CRT value, BD the
  evaluator's CRT y into bits. Boolean-only ops (XOR, AND, Div, Mod, Geq) run as bool,
  BC and BD as crt and crt-opt, the rest in all three.
  Representations: bool (half-gates on the program interface's gadgets), crt (CRT over the
  first k primes whose product reaches 2^w), crt-opt (the primes of minimum sum, `mixgc
  primes`).
  Bytes: table (garbled rows of the op; a half-gates AND is 2 rows of 16 bytes), garbler
  input labels, evaluator input (16 bytes per OT'd bit, plus the rows lifting a CRT
  residue's bits into Z_p), outputs (decodings one way, colours back). Times: garbling and
  evaluation of the op in memory on one thread, inputs excluded, medians of --reps samples;
  before timing, each op's output is decoded and checked against the plaintext answer.
  Equivalent ratios (ABLE 5.2): r = c_BC / (c_op,bool - c_op,crt-opt) for table bytes,
  garbling time and evaluation time, and 1/r, printed next to ABLE's Tables 5 and 6;
  \"never\" where the CRT op costs at least as much as the Boolean one (1/r <= 0).

Examples:
  mixgc profile                          text report, widths 4,8,16,32,64
  mixgc profile --widths 16 --json       one JSON array of records
  mixgc profile --out profile-out        also JSON files and PNG plots (ABLE Figs. 4-9)";

/// One figure to measure: op, representation, width and (CRT) the prime set.
type Case = (Op, Repr, u32, Option<PrimeSet>);

/// Every (op, repr) to measure at each width, with its prime set.
fn cases(widths: &[u32]) -> Result<Vec<Case>, CliError> {
    let mut cases = Vec::new();
    for &w in widths {
        for op in Op::ALL {
            for &repr in op.reprs() {
                let set = match repr {
                    Repr::Bool => None,
                    Repr::Crt => Some(first_primes(w)?),
                    Repr::CrtOpt => Some(min_sum_primes(w)?),
                };
                cases.push((op, repr, w, set));
            }
        }
    }
    Ok(cases)
}

pub fn profile(args: ProfileArgs) -> Result<(), CliError> {
    let mut widths = args.widths.clone();
    widths.sort_unstable();
    widths.dedup();
    let reps = args.reps as usize;
    let cases = cases(&widths)?;
    let bar = args.feedback.steps("profile", cases.len() as u64);
    let mut records = Vec::with_capacity(cases.len());
    for (op, repr, w, set) in cases {
        bar.note(&format!("{} {} {w} bits", op.title(), repr.name()));
        let measured = match &set {
            None => boolean::profile(op, w, reps)?,
            Some(set) => crt::profile(op, set, w, reps)?,
        };
        let primes = set.map_or_else(Vec::new, |s| s.primes().to_vec());
        records.push(Record::new(op, repr, w, primes, measured));
        bar.advance(1);
    }
    bar.end();
    let ratios = ratios::ratios(&records, &widths);
    if let Some(dir) = &args.out {
        write_outputs(dir, &records, &ratios)?;
    }
    if args.json {
        return write_stdout(&format!("{}\n", serde_json::to_string(&records)?));
    }
    let mut text = report::text(&records, &ratios, &widths, &report::header(&machine(), reps));
    if let Some(dir) = &args.out {
        text += &format!(
            "\nwrote profile.json, ratios.json and {} into {}\n",
            plots::FILES.join(", "),
            dir.display()
        );
    }
    write_stdout(&text)
}

/// profile.json (the records), ratios.json and the plots.
fn write_outputs(dir: &Path, records: &[Record], ratios: &[ratios::Ratio]) -> Result<(), CliError> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
    };
    write("profile.json", serde_json::to_string_pretty(records)?)?;
    write("ratios.json", serde_json::to_string_pretty(ratios)?)?;
    plots::write_all(dir, records, ratios)
}
