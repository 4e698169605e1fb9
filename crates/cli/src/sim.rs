//! `mixgc sim`: the HAAC accelerator's cycle-level model (HAAC §3, §5) on `.haac` files,
//! with the speedup over mixgc's own CPU time; `--plot DIR`: the seed's figures over the
//! files given ([`mixgc_studies::haac_figures`]).

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use mixgc_haac::sim::{simulate, Bound, Memory, Role, SimConfig, SimReport};
use mixgc_studies::haac_figures::{self, cpu_baseline, open, sim_config, CpuBaseline};
use serde::Serialize;

use crate::summary::{bytes, thousands};
use crate::{write_stdout, CliError};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum RoleArg {
    Garbler,
    Evaluator,
}

impl From<RoleArg> for Role {
    fn from(r: RoleArg) -> Role {
        match r {
            RoleArg::Garbler => Role::Garbler,
            RoleArg::Evaluator => Role::Evaluator,
        }
    }
}

#[derive(Args, Debug)]
#[command(
    after_help = "Models each file on the HAAC accelerator cycle by cycle: per gate engine \
an in-order pipeline (fetch, decode, three wire-read stages, the half-gate unit: 18 cycles for \
the evaluator, 21 for the garbler, one-cycle FreeXOR, two-cycle write-back), forwarding across \
engines, 4 single-port SWW banks per engine at 2 GHz, and instruction / table / OoRW queues fed \
by a DRAM of the given bandwidth. The GE count and window come from the file (`mixgc compile \
--isa haac --ges G --window N`). Reports cycles, seconds at 1 GHz, the GE-only and \
bandwidth-only bounds, stalls by cause, off-chip bytes by kind, and the speedup over mixgc's \
CPU time for the same circuit on this machine: measured here (garbling or evaluation in memory, \
one thread) unless --cpu-ns-per-and gives it. --cpu-only prints that CPU baseline alone \
(no simulation), e.g. to re-measure it on a quiet machine for `scripts/haac_tables.py --cpu`.\n\n\
With --plot DIR and files named WORKLOAD.*.haac (e.g. from `mixgc compile --vip NAME`), writes \
HAAC's Figures 6-8 (PNG and CSV) and Table 3 (CSV) over the workloads: fig6 needs each \
workload's program- and full-schedule files, fig7 compares the files' schedules (and windows), \
fig8 reassigns the best DDR4 file and the full-schedule file to 1, 2, 4, 8 and 16 engines.\n\n\
Examples:\n  mixgc sim dotprod.haac\n  mixgc sim dotprod.haac --memory hbm2 --role garbler --json\n  \
mixgc sim dotprod.haac --set and_latency_evaluator=24 --set dram_latency_cycles=200\n  \
mixgc sim out/*.haac --plot figures"
)]
pub struct SimArgs {
    /// `.haac` files (`mixgc compile --isa haac --out F.haac`).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Off-chip memory: ddr4 (35.2 GB/s), hbm2 (512 GB/s) or a bandwidth in GB/s.
    #[arg(long, default_value = "ddr4", value_parser = parse_memory)]
    memory: Memory,
    /// Which half-gate unit the engines carry.
    #[arg(long, value_enum, default_value_t = RoleArg::Evaluator)]
    role: RoleArg,
    /// One JSON object per file instead of text.
    #[arg(long)]
    json: bool,
    /// Write the seed's figures over the files into DIR.
    #[arg(long, value_name = "DIR")]
    plot: Option<PathBuf>,
    /// mixgc's CPU time per AND gate in ns, instead of measuring it here.
    #[arg(long, value_name = "NS")]
    cpu_ns_per_and: Option<f64>,
    /// Only measure and print each file's CPU baseline (mixgc's in-memory time for its
    /// circuit in the --role), without simulating.
    #[arg(long, conflicts_with_all = ["plot", "cpu_ns_per_and"])]
    cpu_only: bool,
    /// Set a model parameter (repeatable), e.g. and_latency_evaluator=18, dram_latency_cycles=100,
    /// table_queue_bytes=2048 (names: `SimConfig` in crates/haac/src/sim/config.rs).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
}

fn parse_memory(s: &str) -> Result<Memory, String> {
    match s.to_ascii_lowercase().as_str() {
        "ddr4" => Ok(Memory::Ddr4),
        "hbm2" => Ok(Memory::Hbm2),
        other => match other.parse::<f64>() {
            Ok(g) if g.is_finite() && g > 0.0 => Ok(Memory::GBps(g)),
            _ => Err(format!("'{s}' is not ddr4, hbm2 or a positive bandwidth in GB/s")),
        },
    }
}

/// One file's result as `--json` prints it.
#[derive(Serialize)]
struct JsonLine<'a> {
    file: String,
    schedule: String,
    #[serde(flatten)]
    report: &'a SimReport,
    cpu: &'a CpuBaseline,
    speedup: f64,
}

pub fn sim(args: SimArgs) -> Result<(), CliError> {
    if let Some(dir) = &args.plot {
        let summary =
            haac_figures::write(&args.files, dir, &args.set, args.role.into(), args.cpu_ns_per_and)?;
        return write_stdout(&summary);
    }
    let role = Role::from(args.role);
    if args.cpu_only {
        return cpu_only(&args.files, role, args.json);
    }
    for path in &args.files {
        let hc = open(path)?;
        let cfg = sim_config(&args.set, hc.program.ges, args.memory)?;
        let report = simulate(&hc.program, &cfg, role).map_err(|e| format!("{}: {e}", path.display()))?;
        let cpu = cpu_baseline(&hc, role, args.cpu_ns_per_and)?;
        let speedup = cpu.seconds / report.seconds.max(1e-18);
        let schedule = format!("{:?}", hc.program.schedule).to_lowercase();
        let out = if args.json {
            let line = JsonLine {
                file: path.display().to_string(),
                schedule,
                report: &report,
                cpu: &cpu,
                speedup,
            };
            serde_json::to_string(&line)? + "\n"
        } else {
            text(path, &schedule, &cfg, &report, &cpu, speedup)
        };
        write_stdout(&out)?;
    }
    Ok(())
}

/// `--cpu-only` as `--json` prints it: the workload is the file name up to its first dot.
#[derive(Serialize)]
struct CpuLine<'a> {
    file: String,
    workload: &'a str,
    role: String,
    cpu: &'a CpuBaseline,
}

fn cpu_only(files: &[PathBuf], role: Role, json: bool) -> Result<(), CliError> {
    for path in files {
        let hc = open(path)?;
        let cpu = cpu_baseline(&hc, role, None)?;
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let workload = name.split('.').next().unwrap_or_default();
        let role_name = format!("{role:?}").to_lowercase();
        let out = if json {
            let line = CpuLine {
                file: path.display().to_string(),
                workload,
                role: role_name,
                cpu: &cpu,
            };
            serde_json::to_string(&line)? + "\n"
        } else {
            format!(
                "{}: CPU (mixgc, {}): {} ({:.1} ns/AND)\n",
                path.display(),
                cpu.source,
                seconds(cpu.seconds),
                cpu.ns_per_and
            )
        };
        write_stdout(&out)?;
    }
    Ok(())
}

fn memory_name(m: Memory) -> String {
    match m {
        Memory::Ddr4 => "DDR4 (35.2 GB/s)".into(),
        Memory::Hbm2 => "HBM2 (512 GB/s)".into(),
        Memory::GBps(g) => format!("{g} GB/s"),
    }
}

fn text(
    path: &Path,
    schedule: &str,
    cfg: &SimConfig,
    r: &SimReport,
    cpu: &CpuBaseline,
    speedup: f64,
) -> String {
    let s = &r.stalls;
    let b = &r.bytes;
    let bound = match r.bound {
        Bound::Compute => "compute-bound",
        Bound::Memory => "memory-bound",
    };
    format!(
        "{}: {schedule} schedule, window {} wires, {} GEs, {}, {}\n  \
         {} instructions ({} AND), {} live wires, {} OoRW reads\n  \
         {} cycles = {} at {} GHz: {bound} (GE-only bound {} cycles, bandwidth-only bound {}, wire traffic alone {})\n  \
         GE cycles without an issue: dependency {}, SWW bank {}, instruction queue {}, table queue {}, \
         OoRW queue {}, write buffer {}, pipeline fill {}; after the last instruction {}\n  \
         off-chip: tables {}, instructions {}, live write-backs {}, outputs {}, OoRW labels {}, \
         OoRW addresses {}, inputs {}; total {}\n  \
         CPU (mixgc, {}): {} ({:.1} ns/AND), HAAC speedup {:.1}x\n",
        path.display(),
        thousands(u64::from(r.window)),
        r.ges,
        format!("{:?}", r.role).to_lowercase(),
        memory_name(cfg.memory),
        thousands(r.instructions),
        thousands(r.ands),
        thousands(r.live_wires),
        thousands(r.oorw_reads),
        thousands(r.cycles),
        seconds(r.seconds),
        cfg.ge_clock_ghz,
        thousands(r.compute_cycles),
        thousands(r.memory_cycles),
        thousands(r.wire_traffic_cycles),
        thousands(s.dependency),
        thousands(s.bank_conflict),
        thousands(s.instruction_queue),
        thousands(s.table_queue),
        thousands(s.oorw_queue),
        thousands(s.write_buffer),
        thousands(s.pipeline_fill),
        thousands(r.drained),
        bytes(b.tables),
        bytes(b.instructions),
        bytes(b.live_writebacks),
        bytes(b.outputs),
        bytes(b.oorw_reads),
        bytes(b.oorw_addresses),
        bytes(b.inputs),
        bytes(b.total),
        cpu.source,
        seconds(cpu.seconds),
        cpu.ns_per_and,
        speedup,
    )
}

/// Seconds in a readable unit.
pub fn seconds(s: f64) -> String {
    match s {
        s if s >= 1.0 => format!("{s:.3} s"),
        s if s >= 1e-3 => format!("{:.3} ms", s * 1e3),
        s => format!("{:.3} µs", s * 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_names_and_bandwidths_parse() {
        assert_eq!(parse_memory("DDR4"), Ok(Memory::Ddr4));
        assert_eq!(parse_memory("hbm2"), Ok(Memory::Hbm2));
        assert_eq!(parse_memory("100"), Ok(Memory::GBps(100.0)));
        assert!(parse_memory("0").is_err());
        assert!(parse_memory("fast").unwrap_err().contains("fast"));
    }
}
