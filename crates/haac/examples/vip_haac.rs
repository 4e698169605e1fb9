//! Writes the `.haac` files `docs/haac.md`'s reproduction of HAAC §6 simulates: the eight
//! VIP-Bench workloads compiled for 16 GEs and the 2 MB window (131,072 wires) in program,
//! segment and full order, and MatMult and BubbSt also for 0.5 MB and 1 MB (Figure 7).
//! The GEs are assigned by the seed's simulator-driven method (`sim::assign_engines`).
//!
//! `cargo run --release -p mixgc-haac --example vip_haac -- OUT_DIR [NAME ...]`, then
//! `mixgc sim OUT_DIR/*.haac --plot FIGURE_DIR`.

use mixgc_haac::sim::{reassigned, Memory, SimConfig};
use mixgc_haac::{compile, file, CompileOptions, Schedule};
use mixgc_program::vip::Workload;
use mixgc_program::{Ctx, Recorder};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let out = std::path::PathBuf::from(args.next().ok_or("usage: vip_haac OUT_DIR [NAME ...]")?);
    let names: Vec<String> = args.collect();
    std::fs::create_dir_all(&out)?;
    for workload in Workload::ALL {
        let name = workload.name();
        if !names.is_empty() && !names.iter().any(|n| n == name) {
            continue;
        }
        let ctx = Ctx::new(Recorder::default());
        workload.program(&ctx, None, None)?;
        let recorded = ctx.into_inner().ok_or("the recorder is still shared")?.finish();
        let windows: &[u32] = if matches!(name, "matmult" | "bubbst") {
            &[32_768, 65_536, 131_072]
        } else {
            &[131_072]
        };
        for &window in windows {
            for schedule in [Schedule::Program, Schedule::Segment, Schedule::Full] {
                let opts = CompileOptions {
                    schedule,
                    window,
                    ges: 16,
                };
                let mut hc = compile(&recorded.circuit, recorded.garbler_values as u32, opts)?;
                hc.program = reassigned(&hc.program, &SimConfig::seed_default(16, Memory::Ddr4))?;
                let path = out.join(format!(
                    "{name}.{}.w{window}.haac",
                    format!("{schedule:?}").to_lowercase()
                ));
                file::write_file(&path, &hc)?;
                eprintln!("wrote {}", path.display());
            }
        }
    }
    Ok(())
}
