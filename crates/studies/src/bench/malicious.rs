//! `mixgc bench --security malicious`: authenticated garbling (WRK17/KRRW18 with the real
//! preprocessing) between two `bench-party` processes over loopback, against the targets
//! of issue #19, and 64-bit matrix products beside TinyGarble2's thesis Table 3.2;
//! `--sweep-batch`: the 10×10 matrix product's run time vs peak RSS over `--batch-ands`
//! (thesis Fig. 3.2; `--dims` and `--sweep-batches` choose others).

use serde::Serialize;

use super::{machine, median, two_processes, BenchArgs, PartyReport};
use crate::common::{thousands, write_stdout, CliError};

/// TinyGarble2 thesis Table 3.2 (their Xeon, ms): D, TinyGarble2, EMP (`None`: out of memory).
const TABLE_3_2: [(usize, f64, Option<f64>); 3] = [
    (10, 13_746.0, Some(12_291.0)),
    (20, 112_003.0, Some(96_110.0)),
    (30, 375_689.0, None),
];

/// Batch sizes of `--sweep-batch`.
const SWEEP: [usize; 5] = [1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20];

/// AND gates of one AES-128.
const AES_ANDS: u64 = 6_400;

/// One two-process run, as reported.
#[derive(Serialize)]
struct Figures {
    workload: String,
    batch_ands: usize,
    ands: u64,
    /// Slower party, from the established connection to the output.
    ms: f64,
    mand_per_s: f64,
    /// Both directions.
    bytes: u64,
    peak_rss_garbler_mib: f64,
    peak_rss_evaluator_mib: f64,
}

fn figures(workload: String, batch_ands: usize, g: &PartyReport, e: &PartyReport) -> Figures {
    let ms = g.elapsed_ns.max(e.elapsed_ns) as f64 / 1e6;
    Figures {
        workload,
        batch_ands,
        ands: g.ands,
        ms,
        mand_per_s: g.ands as f64 / ms / 1e3,
        bytes: g.bytes_sent + e.bytes_sent,
        peak_rss_garbler_mib: g.peak_rss_kib as f64 / 1024.0,
        peak_rss_evaluator_mib: e.peak_rss_kib as f64 / 1024.0,
    }
}

fn run(workload: String, batch_ands: usize, party_args: &[String]) -> Result<Figures, CliError> {
    let mut a = party_args.to_vec();
    a.extend([
        "--security".into(),
        "malicious".into(),
        "--batch-ands".into(),
        batch_ands.to_string(),
    ]);
    let (g, e) = two_processes(&a)?;
    Ok(figures(workload, batch_ands, &g, &e))
}

fn aes(executions: usize) -> Vec<String> {
    ["--workload", "aes128", "--executions", &executions.to_string()]
        .map(String::from)
        .to_vec()
}

fn matmul(d: usize) -> Vec<String> {
    ["--op", "matmul", "--size", &d.to_string(), "--width", "64"]
        .map(String::from)
        .to_vec()
}

fn row(f: &Figures) -> String {
    format!(
        "{:<44} {:>9} {:>12} {:>11.1} {:>7.2} {:>9.1} {:>9.1}\n",
        f.workload,
        thousands(f.batch_ands as u64),
        thousands(f.ands),
        f.ms,
        f.mand_per_s,
        f.peak_rss_garbler_mib,
        f.peak_rss_evaluator_mib
    )
}

const HEADER: &str = "workload                                     batch/AND         ANDs          ms   MAND/s  RSS G MiB RSS E MiB\n";

pub(super) fn bench_malicious(args: &BenchArgs) -> Result<(), CliError> {
    let batch = args.model.batch_ands;
    let mut rows = Vec::new();
    if args.sweep_batch {
        let batches = args.sweep_batches.clone().unwrap_or_else(|| SWEEP.to_vec());
        let dims = args.dims.clone().unwrap_or_else(|| vec![10]);
        for d in dims {
            for &b in &batches {
                rows.push(run(format!("matmul {d}x{d}, 64-bit"), b, &matmul(d))?);
            }
        }
        return report(args, &rows, None);
    }
    // AES-128 from connect: the median of --runs.
    let mut latencies = Vec::new();
    for _ in 0..args.runs {
        latencies.push(run("AES-128 from connect".into(), batch, &aes(1))?);
    }
    let mid = median(latencies.iter().map(|f| f.ms).collect());
    let at = latencies.iter().position(|f| f.ms == mid).unwrap_or(0);
    rows.push(latencies.swap_remove(at));
    let mut amortized = run("AES-128 x 1,000 (one session)".into(), batch, &aes(1_000))?;
    amortized.workload += &format!(", {:.2} ms per AES", amortized.ms / 1e3);
    rows.push(amortized);
    let chain = args.ands.unwrap_or(10_000_000).div_ceil(AES_ANDS).max(1) as usize;
    rows.push(run(
        format!("AES-128 x {} (≥ 10^7 ANDs)", thousands(chain as u64)),
        batch,
        &aes(chain),
    )?);
    let dims = args.dims.clone().unwrap_or_else(|| vec![10, 20, 30]);
    let mut thesis = Vec::new();
    for d in dims {
        let f = run(format!("matmul {d}x{d}, 64-bit"), batch, &matmul(d))?;
        if let Some(&(_, tg2, emp)) = TABLE_3_2.iter().find(|t| t.0 == d) {
            thesis.push(format!(
                "D = {d}: mixgc {:.0} ms, TinyGarble2 {tg2:.0} ms, EMP {}\n",
                f.ms,
                emp.map_or("out of memory".into(), |e| format!("{e:.0} ms"))
            ));
        }
        rows.push(f);
    }
    report(args, &rows, Some(&thesis))
}

fn report(args: &BenchArgs, rows: &[Figures], thesis: Option<&[String]>) -> Result<(), CliError> {
    if args.json {
        let json = serde_json::json!({
            "machine": machine(),
            "security": "malicious",
            "runs": rows,
        });
        return write_stdout(&format!("{json}\n"));
    }
    let mut text = format!("malicious model (authenticated garbling, WRK17/KRRW18), loopback TCP\n{HEADER}");
    rows.iter().for_each(|f| text += &row(f));
    if let Some(lines) = thesis {
        text += "\nbeside TinyGarble2 thesis Table 3.2 (their Xeon):\n";
        lines.iter().for_each(|l| text += l);
    }
    write_stdout(&text)
}
