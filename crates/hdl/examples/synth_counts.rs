//! Prints the AND count of each shipped Verilog design: `cargo run --release -p mixgc-hdl
//! --example synth_counts`.

use std::path::PathBuf;

fn main() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../verilog");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("verilog/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "v"))
        .collect();
    files.sort();
    // The S-box is a submodule of aes128.v, synthesized with it.
    let sbox = dir.join("aes_sbox.v");
    files.retain(|f| *f != sbox);
    for file in files {
        let started = std::time::Instant::now();
        let mut sources = vec![file.clone()];
        if file.ends_with("aes128.v") {
            sources.push(sbox.clone());
        }
        match mixgc_hdl::synthesize(&mixgc_hdl::SynthOptions::new(sources)) {
            Ok(s) => println!(
                "{:<16} {} ({:?}, {:.1} s)",
                s.top,
                s.circuit.stats(),
                s.mapping,
                started.elapsed().as_secs_f64()
            ),
            Err(e) => println!("{}: {e}", file.display()),
        }
    }
}
