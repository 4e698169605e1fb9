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
use std::sync::atomic::{AtomicUsize, Ordering};

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
        let variants: Vec<(u32, Schedule)> = windows
            .iter()
            .flat_map(|&w| [Schedule::Program, Schedule::Segment, Schedule::Full].map(|s| (w, s)))
            .collect();
        // The variants are independent (each a compile and an assignment run of the model):
        // one thread per core.
        let next = AtomicUsize::new(0);
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads.min(variants.len()))
                .map(|_| {
                    scope.spawn(|| -> Result<(), String> {
                        loop {
                            let Some(&(window, schedule)) =
                                variants.get(next.fetch_add(1, Ordering::Relaxed))
                            else {
                                return Ok(());
                            };
                            write_variant(&out, name, &recorded, window, schedule)
                                .map_err(|e| format!("{name} {schedule:?} w{window}: {e}"))?;
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err("a compile thread panicked".into()))
                })
                .collect()
        });
        for r in results {
            r?;
        }
    }
    Ok(())
}

/// Compiles one (window, schedule) variant, assigns its GEs the seed's way and writes it.
fn write_variant(
    out: &std::path::Path,
    name: &str,
    recorded: &mixgc_program::Recorded,
    window: u32,
    schedule: Schedule,
) -> Result<(), Box<dyn std::error::Error>> {
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
    Ok(())
}
