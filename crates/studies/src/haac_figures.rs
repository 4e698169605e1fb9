//! HAAC's evaluation (§6) over workloads given as `.haac` files named `WORKLOAD.*.haac`
//! (`mixgc sim FILES --plot DIR`): Figure 6 (baseline, RO+RN, RO+RN+ESW speedups, DDR4),
//! Figure 7 (compute versus off-chip wire traffic per schedule and window), Figure 8 (GE
//! scaling with DDR4 and HBM2) as PNG and CSV, Table 3 (live / OoRW / total kilo-wires,
//! segment versus full) as CSV, and the geometric means beside the seed's. Also the pieces
//! `mixgc sim` shares with it: the model's configuration from `--set`, reading a file, and
//! mixgc's CPU baseline.
//!
//! A workload's simulations are independent, so they run on all cores ([`parallel`]); the
//! CPU baseline is measured first, alone, so that they do not disturb it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use mixgc_haac::sim::{all_live, reassigned, simulate, Memory, Role, SimConfig, SimReport};
use mixgc_haac::{file, HaacCircuit, HaacProgram, Op, Schedule};
use serde::Serialize;

use crate::bar_chart::{write_png, BarChart};
use crate::common::CliError;
use crate::cpu_time;

/// HAAC Table 2's workload order; other names follow alphabetically.
const ORDER: [&str; 8] = [
    "bubbst", "dotprod", "merse", "triangle", "hamm", "matmult", "relu", "graddesc",
];
const GES: [u16; 5] = [1, 2, 4, 8, 16];

/// The model's configuration for a file: the seed's, with the file's GE count, the chosen
/// memory and the `--set NAME=VALUE` overrides.
pub fn sim_config(set: &[String], ges: u16, memory: Memory) -> Result<SimConfig, CliError> {
    let mut cfg = SimConfig::seed_default(ges, memory);
    for item in set {
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| format!("--set {item}: expected NAME=VALUE"))?;
        cfg.set(name.trim(), value)?;
    }
    cfg.validate()?;
    Ok(cfg)
}

/// A `.haac` file, read and checked.
pub fn open(path: &Path) -> Result<HaacCircuit, CliError> {
    file::read_file(path).map_err(|e| format!("{}: {e}", path.display()).into())
}

/// mixgc's CPU time for the circuit of a `.haac` program and where it comes from.
#[derive(Clone, Debug, Serialize)]
pub struct CpuBaseline {
    pub source: &'static str,
    pub seconds: f64,
    pub ns_per_and: f64,
}

/// The CPU baseline: `ns_per_and` × ANDs when given, else the circuit garbled (Garbler) or
/// evaluated (Evaluator) in memory here ([`cpu_time::measure`]).
pub fn cpu_baseline(hc: &HaacCircuit, role: Role, ns_per_and: Option<f64>) -> Result<CpuBaseline, CliError> {
    let ands = hc
        .program
        .instructions
        .iter()
        .filter(|i| i.op == Op::And)
        .count()
        .max(1) as f64;
    if let Some(ns) = ns_per_and {
        if !(ns.is_finite() && ns > 0.0) {
            return Err(format!("--cpu-ns-per-and must be a positive number, not {ns}").into());
        }
        return Ok(CpuBaseline {
            source: "--cpu-ns-per-and",
            seconds: ns * ands * 1e-9,
            ns_per_and: ns,
        });
    }
    let circuit = mixgc_haac::to_circuit(hc)?;
    let compiled = mixgc_compile::compile(&circuit);
    let t = cpu_time::measure(&compiled, 1.0)?;
    let (source, seconds) = match role {
        Role::Garbler => ("garbling measured in memory here", t.garble_seconds),
        Role::Evaluator => ("evaluation measured in memory here", t.evaluate_seconds),
    };
    Ok(CpuBaseline {
        source,
        seconds,
        ns_per_and: seconds * 1e9 / ands,
    })
}

/// One job for [`parallel`].
pub type ParallelJob<'a, T> = Box<dyn FnOnce() -> T + Send + 'a>;

/// Runs independent jobs on up to `available_parallelism` threads; the results in the jobs'
/// order.
pub fn parallel<'a, T: Send>(jobs: Vec<ParallelJob<'a, T>>) -> Vec<T> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len());
    if threads <= 1 {
        return jobs.into_iter().map(|job| job()).collect();
    }
    let n = jobs.len();
    let queue: Vec<Mutex<Option<ParallelJob<'a, T>>>> =
        jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    let results: Vec<Mutex<Option<T>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let job = queue[i].lock().ok().and_then(|mut j| j.take());
                if let Some(job) = job {
                    let value = job();
                    if let Ok(mut slot) = results[i].lock() {
                        *slot = Some(value);
                    }
                }
            });
        }
    });
    results
        .into_iter()
        .map(|slot| {
            slot.into_inner()
                .ok()
                .flatten()
                .expect("every job ran to completion (a panicking job propagates through the scope)")
        })
        .collect()
}

/// A workload's name: its file name up to the first '.'.
fn workload(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    name.split('.').next().unwrap_or_default().to_string()
}

fn schedule_name(s: Schedule) -> &'static str {
    match s {
        Schedule::Program => "program",
        Schedule::Segment => "segment",
        Schedule::Full => "full",
    }
}

/// Everything measured for one workload.
struct Results {
    name: String,
    cpu: CpuBaseline,
    /// (schedule, window, report at DDR4 as compiled).
    files: Vec<(Schedule, u32, SimReport)>,
    /// Figure 6: baseline (program order, all live), RO+RN (full, all live), RO+RN+ESW.
    fig6: Option<[f64; 3]>,
    /// Figure 8: speedup per GE count with DDR4 (best schedule) and HBM2 (full).
    fig8_ddr4: Option<(Schedule, Vec<f64>)>,
    fig8_hbm2: Option<Vec<f64>>,
}

/// Simulates every file and writes the figures, tables and CSVs into `dir`; returns the
/// summary (the geometric means beside the seed's) for stdout.
pub fn write(
    files: &[PathBuf],
    dir: &Path,
    set: &[String],
    role: Role,
    cpu_ns: Option<f64>,
) -> Result<String, CliError> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut groups: BTreeMap<(usize, String), Vec<PathBuf>> = BTreeMap::new();
    for f in files {
        let name = workload(f);
        let rank = ORDER.iter().position(|&o| o == name).unwrap_or(ORDER.len());
        groups.entry((rank, name)).or_default().push(f.clone());
    }
    let mut all = Vec::new();
    for ((_, name), paths) in groups {
        eprintln!("sim --plot: {name} ({} files)", paths.len());
        all.push(measure(&name, &paths, set, role, cpu_ns)?);
    }
    write_outputs(dir, &all)
}

/// One simulation job of a workload.
type Job<'a> = Box<dyn FnOnce() -> Result<SimReport, CliError> + Send + 'a>;

/// A job: `program` as given (`ges` None) or reassigned to `ges` engines, at `memory`.
fn sim_job<'a>(
    name: &'a str,
    set: &'a [String],
    role: Role,
    program: &'a HaacProgram,
    ges: Option<u16>,
    memory: Memory,
    label: String,
) -> Job<'a> {
    Box::new(move || {
        let cfg = sim_config(set, ges.unwrap_or(program.ges), memory)?;
        let report = match ges {
            None => simulate(program, &cfg, role),
            Some(_) => reassigned(program, &cfg).and_then(|p| simulate(&p, &cfg, role)),
        }
        .map_err(|e| format!("{name}: {e}"))?;
        eprintln!("sim --plot: {name}: {label}: {} cycles", report.cycles);
        Ok(report)
    })
}

fn measure(
    name: &str,
    paths: &[PathBuf],
    set: &[String],
    role: Role,
    cpu_ns: Option<f64>,
) -> Result<Results, CliError> {
    let mut loaded: Vec<HaacCircuit> = paths.iter().map(|p| open(p)).collect::<Result<_, _>>()?;
    loaded.sort_by_key(|hc| (hc.program.window, hc.program.schedule as u8));
    let window = loaded.iter().map(|hc| hc.program.window).max().unwrap_or(0);
    let pick = |s: Schedule| {
        loaded
            .iter()
            .find(|hc| hc.program.schedule == s && hc.program.window == window)
    };
    let baseline = pick(Schedule::Program).unwrap_or(&loaded[0]);
    // Alone, before the simulations start: they would slow it down.
    let cpu = cpu_baseline(baseline, role, cpu_ns)?;
    let speedup = |r: &SimReport| cpu.seconds / r.seconds.max(1e-18);
    let job = |program, ges, memory, label| sim_job(name, set, role, program, ges, memory, label);
    let label = |hc: &HaacCircuit| format!("{} w{}", schedule_name(hc.program.schedule), hc.program.window);

    // Every file as compiled (DDR4); Figure 6's baselines (program order and full order with
    // every wire written back); Figure 8's HBM2 scaling of the full-order file.
    let base = pick(Schedule::Program)
        .zip(pick(Schedule::Full))
        .map(|(program, full)| [all_live(&program.program), all_live(&full.program)]);
    let mut jobs: Vec<Job> = loaded
        .iter()
        .map(|hc| job(&hc.program, None, Memory::Ddr4, label(hc)))
        .collect();
    if let Some([program, full]) = &base {
        jobs.push(job(program, None, Memory::Ddr4, "baseline (all live)".into()));
        jobs.push(job(full, None, Memory::Ddr4, "RO+RN (all live)".into()));
    }
    let hbm2_file = pick(Schedule::Full);
    if let Some(hc) = hbm2_file {
        for &g in &GES {
            jobs.push(job(
                &hc.program,
                Some(g),
                Memory::Hbm2,
                format!("full, {g} GEs, HBM2"),
            ));
        }
    }
    let mut reports = parallel(jobs).into_iter();
    let mut next = || reports.next().ok_or("a simulation result is missing")?;
    let mut files = Vec::new();
    for hc in &loaded {
        files.push((hc.program.schedule, hc.program.window, next()?));
    }
    let report_of = |s: Schedule| {
        files
            .iter()
            .find(|(fs, w, _)| *fs == s && *w == window)
            .map(|(_, _, r)| r.clone())
    };
    let fig6 = match base {
        Some(_) => {
            let (b, ro) = (next()?, next()?);
            let esw = report_of(Schedule::Full).ok_or("the full-schedule report is missing")?;
            Some([speedup(&b), speedup(&ro), speedup(&esw)])
        }
        None => None,
    };
    let fig8_hbm2 = match hbm2_file {
        Some(_) => Some(
            GES.iter()
                .map(|_| next().map(|r| speedup(&r)))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        None => None,
    };

    // Figure 8's DDR4 scaling of the better of segment and full.
    let best_ddr4 = [Schedule::Segment, Schedule::Full]
        .into_iter()
        .filter_map(|s| report_of(s).map(|r| (s, r.cycles)))
        .min_by_key(|&(_, c)| c)
        .map(|(s, _)| s);
    let fig8_ddr4 = match best_ddr4.and_then(pick) {
        Some(hc) => {
            let s = schedule_name(hc.program.schedule);
            let jobs = GES
                .iter()
                .map(|&g| job(&hc.program, Some(g), Memory::Ddr4, format!("{s}, {g} GEs, DDR4")))
                .collect();
            let runs = parallel(jobs).into_iter().map(|r| r.map(|r| speedup(&r)));
            Some((hc.program.schedule, runs.collect::<Result<Vec<_>, _>>()?))
        }
        None => None,
    };
    Ok(Results {
        name: name.to_string(),
        cpu,
        files,
        fig6,
        fig8_ddr4,
        fig8_hbm2,
    })
}

fn geomean(v: impl IntoIterator<Item = f64>) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0);
    for x in v {
        sum += x.ln();
        n += 1;
    }
    (n > 0).then(|| (sum / n as f64).exp())
}

fn save(dir: &Path, file: &str, text: &str) -> Result<(), CliError> {
    let path = dir.join(file);
    std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()).into())
}

fn write_outputs(dir: &Path, all: &[Results]) -> Result<String, CliError> {
    let mut runs = String::from(
        "workload,schedule,window,ges,role,cycles,seconds,compute_cycles,memory_cycles,\
         wire_traffic_cycles,bound,live_wires,oorw_reads,bytes_total,cpu_seconds,cpu_source,speedup\n",
    );
    let mut fig7 = String::from("workload,schedule,window,compute_us,wire_traffic_us\n");
    let mut table3 = String::from(
        "workload,window,live_k_seg,live_k_full,oorw_k_seg,oorw_k_full,total_k_seg,total_k_full\n",
    );
    let mut fig7_groups = Vec::new();
    for w in all {
        let mut t3: BTreeMap<u32, [Option<(f64, f64)>; 2]> = BTreeMap::new();
        for (s, window, r) in &w.files {
            let _ = writeln!(
                runs,
                "{},{},{},{},{:?},{},{:e},{},{},{},{:?},{},{},{},{:e},{},{:.2}",
                w.name,
                schedule_name(*s),
                window,
                r.ges,
                r.role,
                r.cycles,
                r.seconds,
                r.compute_cycles,
                r.memory_cycles,
                r.wire_traffic_cycles,
                r.bound,
                r.live_wires,
                r.oorw_reads,
                r.bytes.total,
                w.cpu.seconds,
                w.cpu.source,
                w.cpu.seconds / r.seconds.max(1e-18)
            );
            let (compute, traffic) = (r.compute_cycles as f64 / 1e3, r.wire_traffic_cycles as f64 / 1e3);
            let _ = writeln!(
                fig7,
                "{},{},{window},{compute:.3},{traffic:.3}",
                w.name,
                schedule_name(*s)
            );
            fig7_groups.push((
                format!("{} {} {}k", w.name, &schedule_name(*s)[..3], window / 1024),
                vec![compute, traffic],
            ));
            let k = match s {
                Schedule::Segment => 0,
                Schedule::Full => 1,
                Schedule::Program => continue,
            };
            t3.entry(*window).or_default()[k] = Some((r.live_wires as f64 / 1e3, r.oorw_reads as f64 / 1e3));
        }
        for (window, [seg, full]) in t3 {
            let f = |x: Option<(f64, f64)>, part: fn((f64, f64)) -> f64| {
                x.map(|v| format!("{:.2}", part(v))).unwrap_or_default()
            };
            let _ = writeln!(
                table3,
                "{},{window},{},{},{},{},{},{}",
                w.name,
                f(seg, |v| v.0),
                f(full, |v| v.0),
                f(seg, |v| v.1),
                f(full, |v| v.1),
                f(seg, |v| v.0 + v.1),
                f(full, |v| v.0 + v.1)
            );
        }
    }
    save(dir, "runs.csv", &runs)?;
    save(dir, "fig7.csv", &fig7)?;
    save(dir, "table3.csv", &table3)?;
    write_png(
        &dir.join("fig7.png"),
        &BarChart {
            title: "HAAC Figure 7: compute (GE-only) vs off-chip wire traffic, DDR4 (µs)",
            y_label: "µs",
            series: &["compute", "wire traffic"],
            groups: &fig7_groups,
            log_y: true,
        },
    )?;

    let mut fig6 = String::from("workload,baseline,ro_rn,ro_rn_esw\n");
    let fig6_groups: Vec<(String, Vec<f64>)> = all
        .iter()
        .filter_map(|w| w.fig6.map(|v| (w.name.clone(), v.to_vec())))
        .collect();
    for (name, v) in &fig6_groups {
        let _ = writeln!(fig6, "{name},{:.2},{:.2},{:.2}", v[0], v[1], v[2]);
    }
    save(dir, "fig6.csv", &fig6)?;
    write_png(
        &dir.join("fig6.png"),
        &BarChart {
            title: "HAAC Figure 6: speedup over mixgc on this CPU (16 GEs, DDR4)",
            y_label: "speedup",
            series: &["Baseline", "RO+RN", "RO+RN+ESW"],
            groups: &fig6_groups,
            log_y: true,
        },
    )?;

    let mut fig8 = String::from("workload,memory,schedule,ges_1,ges_2,ges_4,ges_8,ges_16\n");
    let mut ddr4_groups = Vec::new();
    let mut hbm2_groups = Vec::new();
    for w in all {
        if let Some((s, v)) = &w.fig8_ddr4 {
            let _ = writeln!(fig8, "{},ddr4,{},{}", w.name, schedule_name(*s), join(v));
            ddr4_groups.push((w.name.clone(), v.clone()));
        }
        if let Some(v) = &w.fig8_hbm2 {
            let _ = writeln!(fig8, "{},hbm2,full,{}", w.name, join(v));
            hbm2_groups.push((w.name.clone(), v.clone()));
        }
    }
    save(dir, "fig8.csv", &fig8)?;
    let series = ["1 GE", "2 GEs", "4 GEs", "8 GEs", "16 GEs"];
    for (file, title, groups) in [
        (
            "fig8_ddr4.png",
            "HAAC Figure 8: GE scaling, DDR4 (best of segment/full), speedup over this CPU",
            &ddr4_groups,
        ),
        (
            "fig8_hbm2.png",
            "HAAC Figure 8: GE scaling, HBM2 (full reorder), speedup over this CPU",
            &hbm2_groups,
        ),
    ] {
        write_png(
            &dir.join(file),
            &BarChart {
                title,
                y_label: "speedup",
                series: &series,
                groups,
                log_y: true,
            },
        )?;
    }
    Ok(summary(dir, &fig6_groups, &ddr4_groups, &hbm2_groups))
}

fn join(v: &[f64]) -> String {
    v.iter().map(|x| format!("{x:.2}")).collect::<Vec<_>>().join(",")
}

/// The geometric means of the figures beside the seed's stated results.
fn summary(
    dir: &Path,
    fig6: &[(String, Vec<f64>)],
    ddr4: &[(String, Vec<f64>)],
    hbm2: &[(String, Vec<f64>)],
) -> String {
    let g = |x: Option<f64>| x.map(|v| format!("{v:.1}x")).unwrap_or_else(|| "n/a".into());
    let col = |rows: &[(String, Vec<f64>)], i: usize| geomean(rows.iter().map(|(_, v)| v[i]));
    let ratio =
        |rows: &[(String, Vec<f64>)], i: usize, j: usize| geomean(rows.iter().map(|(_, v)| v[i] / v[j]));
    format!(
        "wrote {}: fig6.png fig6.csv fig7.png fig7.csv fig8_ddr4.png fig8_hbm2.png fig8.csv table3.csv runs.csv\n\
         geomeans (ours; the seed's in brackets):\n  \
         baseline over the CPU {} [82.6x average]\n  \
         RO+RN over baseline {} [3.1x]\n  \
         ESW over RO+RN {} [2.1x]\n  \
         16 GEs, DDR4, best schedule {} [589x]\n  \
         16 GEs, HBM2, full {} [2,627x]\n  \
         HBM2 1 -> 16 GEs {} [12.3x]\n",
        dir.display(),
        g(col(fig6, 0)),
        g(ratio(fig6, 1, 0)),
        g(ratio(fig6, 2, 1)),
        g(col(ddr4, 4)),
        g(col(hbm2, 4)),
        g(ratio(hbm2, 4, 0)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workload_names_and_means() {
        assert_eq!(workload(Path::new("out/matmult.full.w65536.haac")), "matmult");
        assert_eq!(workload(Path::new("relu.haac")), "relu");
        assert!((geomean([2.0, 8.0]).unwrap() - 4.0).abs() < 1e-12);
        assert_eq!(geomean(std::iter::empty()), None);
    }

    #[test]
    fn set_overrides_and_rejects() {
        let cfg = sim_config(&["xor_latency=2".into()], 4, Memory::Ddr4).unwrap();
        assert_eq!(cfg.xor_latency, 2);
        assert!(sim_config(&["xor_latency".into()], 4, Memory::Ddr4)
            .unwrap_err()
            .to_string()
            .contains("NAME=VALUE"));
        assert!(sim_config(&["nope=1".into()], 4, Memory::Ddr4).is_err());
        assert!(sim_config(&["xor_latency=0".into()], 4, Memory::Ddr4).is_err());
    }

    #[test]
    fn parallel_keeps_the_jobs_order() {
        let jobs: Vec<Box<dyn FnOnce() -> usize + Send>> = (0..37usize)
            .map(|i| Box::new(move || i * i) as Box<dyn FnOnce() -> usize + Send>)
            .collect();
        assert_eq!(parallel(jobs), (0..37).map(|i| i * i).collect::<Vec<_>>());
        assert!(parallel::<u8>(Vec::new()).is_empty());
    }
}
