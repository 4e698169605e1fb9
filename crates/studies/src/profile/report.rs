//! The text report of `mixgc profile`: per-width tables, ABLE §5's relative results, and
//! the equivalent-ratio tables next to ABLE's Tables 5–6.

use std::fmt::Write;

use super::ratios::{Cost, Ratio};
use super::workload::{find, Op, Record, Repr, PUB_EXP, PUB_MUL_CONST};
use crate::common::thousands;

/// The ops whose first-k and optimized primes ABLE compares (Figs. 4–5).
const CRT_OPS: [Op; 8] = [
    Op::Add,
    Op::Sub,
    Op::PubMul,
    Op::Mul,
    Op::Mux,
    Op::PubExp,
    Op::Bc,
    Op::Bd,
];

/// The common ops ABLE averages over when comparing CRT and Boolean GC (§5.2.1: "except Mux").
const AVERAGED_OPS: [Op; 5] = [Op::Add, Op::Sub, Op::PubMul, Op::Mul, Op::PubExp];

/// The width ABLE's relative results are stated at.
pub const SUMMARY_WIDTH: u32 = 16;

/// The whole report.
pub fn text(records: &[Record], ratios: &[Ratio], widths: &[u32], header: &str) -> String {
    let mut out = String::from(header);
    for &w in widths {
        width_table(&mut out, records, w);
    }
    relative(&mut out, records);
    for conversion in [Op::Bc, Op::Bd] {
        ratio_tables(&mut out, ratios, widths, conversion);
    }
    out
}

/// The header line: machine, reps, workload constants.
pub fn header(machine: &str, reps: usize) -> String {
    format!(
        "mixgc profile on {machine}: median of {reps} samples per figure, in memory, one thread\n\
         Workloads (ABLE §4): garbler's x, evaluator's y (w bits, or a CRT value < 2^w), one output\n\
         revealed to both; Pub Mul = {PUB_MUL_CONST}·y, Pub Exp = y^{PUB_EXP}, Mux = s ? x : y (garbler's bit s),\n\
         BC of the evaluator's w bits, BD of the evaluator's CRT y.\n\
         bytes: tables | garbler input labels | evaluator input (OT, CRT lift rows) | outputs\n"
    )
}

fn width_table(out: &mut String, records: &[Record], w: u32) {
    let _ = writeln!(out, "\n== {w} bits ==");
    let _ = writeln!(
        out,
        "{:<8} {:<8} {:>7} {:>9} {:>7} {:>7} {:>7} {:>9} {:>10} {:>10}  primes",
        "op", "repr", "rows", "table B", "g-in B", "OT B", "out B", "total B", "garble µs", "eval µs"
    );
    for op in Op::ALL {
        for &repr in op.reprs() {
            let Some(r) = find(records, op, repr, w) else {
                continue;
            };
            let primes: Vec<String> = r.primes.iter().map(u64::to_string).collect();
            let _ = writeln!(
                out,
                "{:<8} {:<8} {:>7} {:>9} {:>7} {:>7} {:>7} {:>9} {:>10.2} {:>10.2}  {}",
                op.title(),
                repr.name(),
                thousands(r.table_rows),
                thousands(r.table_bytes),
                thousands(r.garbler_input_bytes),
                thousands(r.ot_bytes),
                thousands(r.output_bytes),
                thousands(r.total_bytes),
                r.garble_us,
                r.eval_us,
                primes.join(",")
            );
        }
    }
}

/// Mean of `f` over `ops` where both records exist, and the op where it is largest.
fn mean_over(
    records: &[Record],
    ops: &[Op],
    pair: (Repr, Repr),
    f: impl Fn(&Record, &Record) -> f64,
) -> Option<(f64, Op, f64)> {
    let values: Vec<(Op, f64)> = ops
        .iter()
        .filter_map(|&op| {
            let a = find(records, op, pair.0, SUMMARY_WIDTH)?;
            let b = find(records, op, pair.1, SUMMARY_WIDTH)?;
            Some((op, f(a, b)))
        })
        .collect();
    let (best, top) = values.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1))?;
    Some((
        values.iter().map(|v| v.1).sum::<f64>() / values.len() as f64,
        best,
        top,
    ))
}

/// ABLE §5.1's and §5.2.1's relative results at 16 bits, ours next to theirs.
fn relative(out: &mut String, records: &[Record]) {
    let _ = writeln!(out, "\n== Relative results at {SUMMARY_WIDTH} bits (ABLE §5) ==");
    let crt = (Repr::Crt, Repr::CrtOpt);
    let comm = mean_over(records, &CRT_OPS, crt, |a, b| {
        1.0 - b.total_bytes as f64 / a.total_bytes as f64
    });
    let time = mean_over(records, &CRT_OPS, crt, |a, b| 1.0 - b.total_us() / a.total_us());
    let (Some(comm), Some(time)) = (comm, time) else {
        let _ = writeln!(out, "(needs width {SUMMARY_WIDTH} in --widths)");
        return;
    };
    let sums = find(records, Op::Bc, Repr::Crt, SUMMARY_WIDTH)
        .zip(find(records, Op::Bc, Repr::CrtOpt, SUMMARY_WIDTH))
        .map(|(a, b)| (a.primes.iter().sum::<u64>(), b.primes.iter().sum::<u64>()));
    if let Some((a, b)) = sums {
        let _ = writeln!(
            out,
            "optimized primes: prime sum {b} vs {a} first-k ({:.1}% less; ABLE: 12.1%)",
            100.0 * (1.0 - b as f64 / a as f64)
        );
    }
    let _ = writeln!(
        out,
        "optimized vs first-k primes, mean over the 8 CRT ops: communication {:.1}% less (ABLE: 14.1%), \
         garbling + evaluation time {:.1}% less (ABLE: 15.7%)",
        100.0 * comm.0,
        100.0 * time.0
    );
    let _ = writeln!(
        out,
        "  largest: communication {} {:.1}% (ABLE: BD 28%), time {} {:.1}% (ABLE: Mul 20%)",
        comm.1.title(),
        100.0 * comm.2,
        time.1.title(),
        100.0 * time.2
    );
    let vs_bool = (Repr::Bool, Repr::CrtOpt);
    let comm = mean_over(records, &AVERAGED_OPS, vs_bool, |a, b| {
        1.0 - b.total_bytes as f64 / a.total_bytes as f64
    });
    let speed = mean_over(records, &AVERAGED_OPS, vs_bool, |a, b| {
        a.total_us() / b.total_us()
    });
    if let (Some(comm), Some(speed)) = (comm, speed) {
        let _ = writeln!(
            out,
            "CRT (optimized primes) vs Boolean, mean over Add, Sub, Pub Mul, Mul, Pub Exp: communication \
             {:.1}% less (ABLE: 34.2%), garbling + evaluation {:.1}x faster (ABLE: 17.3x)",
            100.0 * comm.0,
            speed.0
        );
    }
    if let (Some(b), Some(c)) = (
        find(records, Op::Mux, Repr::Bool, SUMMARY_WIDTH),
        find(records, Op::Mux, Repr::CrtOpt, SUMMARY_WIDTH),
    ) {
        let _ = writeln!(
            out,
            "Mux: CRT {} bytes vs Boolean {} (ABLE: CRT costlier, Boolean is the better Mux)",
            thousands(c.total_bytes),
            thousands(b.total_bytes)
        );
    }
}

/// ABLE Table 5 (BC) or 6 (BD): r and 1/r per width, cost and common op.
fn ratio_tables(out: &mut String, ratios: &[Ratio], widths: &[u32], conversion: Op) {
    let name = conversion.title();
    let table = if conversion == Op::Bc { 5 } else { 6 };
    let cell = |w: u32, cost: Cost, op: Op| {
        ratios
            .iter()
            .find(|r| r.conversion == conversion && r.width == w && r.cost == cost && r.op == op)
    };
    let _ = writeln!(
        out,
        "\n== {name} equivalent ratio r = c_{name} / (c_bool - c_crt-opt): {name}s paid for by r ops \
         (\"never\": the CRT op costs more) =="
    );
    ratio_grid(out, widths, 9, |w, cost, op| match cell(w, cost, op) {
        Some(Ratio { ratio: Some(r), .. }) => format!("{r:.3}"),
        Some(_) => "never".into(),
        None => "-".into(),
    });
    let _ = writeln!(
        out,
        "\n== Inverse {name} ratio 1/r: {name}s one op pays for; ours / ABLE Table {table} \
         (negative: each op moved costs that many {name}s) =="
    );
    ratio_grid(out, widths, 15, |w, cost, op| match cell(w, cost, op) {
        Some(r) => {
            let able = r.able_inverse.map_or("-".into(), |a| format!("{a:.3}"));
            format!("{:.3} / {able}", r.inverse)
        }
        None => "-".into(),
    });
}

/// One grid of a ratio table: a header of the common ops, then a row per width and cost
/// with `text` for each op, right-aligned in columns `column` wide.
fn ratio_grid(out: &mut String, widths: &[u32], column: usize, text: impl Fn(u32, Cost, Op) -> String) {
    let mut head = format!("{:<5} {:<9}", "bits", "cost");
    for op in Op::COMMON {
        let _ = write!(head, " {:>column$}", op.title());
    }
    let _ = writeln!(out, "{head}");
    for &w in widths {
        for cost in Cost::ALL {
            let _ = write!(out, "{w:<5} {:<9}", cost.title());
            for op in Op::COMMON {
                let _ = write!(out, " {:>column$}", text(w, cost, op));
            }
            let _ = writeln!(out);
        }
    }
}
