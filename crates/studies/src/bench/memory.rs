//! `mixgc bench --memory`: peak RSS (VmHWM) of both parties, each in its own process over
//! loopback TCP, when a computation is streamed gate by gate as a program versus when its
//! whole circuit is recorded, compiled and held in memory (MEG §V reports 80.27 MB → 2 MB for
//! EDT-256), and for a chain of AES-128 encryptions long enough (≥ 10^8 ANDs by default) that
//! only streaming can run it in small memory.

use mixgc_program::library;
use serde::Serialize;

use super::{machine, median, two_processes, BenchArgs};
use crate::common::thousands;
use crate::common::{write_stdout, CliError};

/// One workload: `bench-party` arguments, and how often to run it.
struct Case {
    workload: String,
    party_args: Vec<String>,
    runs: usize,
}

/// One `--memory` record; times and RSS are medians over the runs.
#[derive(Serialize)]
struct MemoryFigures {
    workload: String,
    runs: usize,
    ands: u64,
    /// Session setup to output, base OT included, slower party.
    seconds: f64,
    mand_per_s: f64,
    /// Both directions.
    bytes: u64,
    peak_rss_garbler_kib: u64,
    peak_rss_evaluator_kib: u64,
}

fn op_args(op: &str, size: usize) -> Vec<String> {
    vec!["--op".into(), op.into(), "--size".into(), size.to_string()]
}

fn cases(args: &BenchArgs) -> Result<Vec<Case>, CliError> {
    let n = args.edit_size;
    let per_encryption = library::cost("aes-chain", None, Some(1))?.ands;
    let encryptions = args.chain_ands.div_ceil(per_encryption).max(1) as usize;
    if encryptions > library::MAX_CHAIN {
        return Err(format!(
            "--chain-ands {} needs {encryptions} AES-128 encryptions; at most {} are allowed",
            args.chain_ands,
            library::MAX_CHAIN
        )
        .into());
    }
    let edit = op_args("edit-distance", n);
    let mut whole = edit.clone();
    whole.push("--whole-circuit".into());
    Ok(vec![
        Case {
            workload: format!("EDT-{n} streamed (program, gate by gate)"),
            party_args: edit,
            runs: args.runs,
        },
        Case {
            workload: format!("EDT-{n} whole circuit (recorded, compiled, in memory)"),
            party_args: whole,
            runs: args.runs,
        },
        Case {
            // Long: run once whatever --runs says.
            workload: format!(
                "AES-128 chain x {} streamed (program, gate by gate)",
                thousands(encryptions as u64)
            ),
            party_args: op_args("aes-chain", encryptions),
            runs: 1,
        },
    ])
}

pub(super) fn memory(args: &BenchArgs) -> Result<(), CliError> {
    let cases = cases(args)?;
    let bar = args
        .feedback
        .steps("bench --memory", cases.iter().map(|c| c.runs as u64).sum());
    let mut records = Vec::with_capacity(cases.len());
    for case in cases {
        let (mut secs, mut rg, mut re) = (Vec::new(), Vec::new(), Vec::new());
        let mut last = (0, 0);
        for run in 0..case.runs {
            bar.note(&format!("{}: run {}/{}", case.workload, run + 1, case.runs));
            let (g, e) = two_processes(&case.party_args)?;
            secs.push(g.elapsed_ns.max(e.elapsed_ns) as f64 / 1e9);
            rg.push(g.peak_rss_kib as f64);
            re.push(e.peak_rss_kib as f64);
            last = (g.ands, g.bytes_sent + e.bytes_sent);
            bar.advance(1);
        }
        let seconds = median(secs);
        records.push(MemoryFigures {
            workload: case.workload,
            runs: case.runs,
            ands: last.0,
            seconds,
            mand_per_s: last.0 as f64 / seconds / 1e6,
            bytes: last.1,
            peak_rss_garbler_kib: median(rg) as u64,
            peak_rss_evaluator_kib: median(re) as u64,
        });
    }
    bar.end();
    if args.json {
        return write_stdout(&format!("{}\n", serde_json::to_string(&records)?));
    }
    let mut out = format!(
        "mixgc bench --memory on {} (two processes over 127.0.0.1; median of the runs)\n",
        machine()
    );
    out += &format!(
        "{:<56} {:>5} {:>13} {:>9} {:>8} {:>12} {:>12}\n",
        "workload", "runs", "ANDs", "seconds", "M AND/s", "RSS g (MiB)", "RSS e (MiB)"
    );
    for r in &records {
        out += &format!(
            "{:<56} {:>5} {:>13} {:>9.2} {:>8.2} {:>12.1} {:>12.1}\n",
            r.workload,
            r.runs,
            thousands(r.ands),
            r.seconds,
            r.mand_per_s,
            r.peak_rss_garbler_kib as f64 / 1024.0,
            r.peak_rss_evaluator_kib as f64 / 1024.0
        );
    }
    out += "RSS: each party's peak resident set (VmHWM), the process's code and libraries included.\n\
seconds: session setup to output, base OT included; the whole-circuit runs record and compile first (not counted).\n";
    write_stdout(&out)
}
