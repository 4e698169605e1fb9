//! Every shipped design: synthesized, evaluated in plaintext on edge and random inputs, and
//! compared with Icarus Verilog simulating the RTL source (not the netlist); AND counts
//! against TinyGarble's Table 3.1 (thesis §3.5). The large designs skip the ABC mapping
//! (it only ever replaces the structural netlist by one with fewer ANDs, and the small
//! designs exercise it), to keep the suite short.

use super::common;

use std::path::PathBuf;

use common::*;
use mixgc_circuit::values;
use mixgc_hdl::{synthesize, Mapping, SynthOptions, Synthesized};
use rand::{Rng, SeedableRng};

/// Random vectors per design, besides all-zero and all-one inputs.
const RANDOM_VECTORS: usize = 24;
/// Random vectors for AES-128, whose event-driven simulation takes seconds a vector: one,
/// besides the all-zero and all-one vectors (and FIPS-197's vector, on the netlist only);
/// each is a full encryption, 200 S-box lookups, compared output for output.
const AES_RANDOM_VECTORS: usize = 1;

/// A testbench that applies each input vector (hex per port, in circuit order), waits,
/// and prints every output port in hex on one line.
fn testbench(s: &Synthesized, vectors: &[Vec<String>]) -> String {
    let mut tb = String::from("module tb;\n");
    for p in &s.inputs {
        tb += &format!("  reg [{}:0] {};\n", p.width - 1, p.name);
    }
    for p in &s.outputs {
        tb += &format!("  wire [{}:0] {};\n", p.width - 1, p.name);
    }
    let conns: Vec<String> = s
        .inputs
        .iter()
        .chain(&s.outputs)
        .map(|p| format!(".{0}({0})", p.name))
        .collect();
    tb += &format!("  {} dut ({});\n  initial begin\n", s.top, conns.join(", "));
    let fmt = vec!["%h"; s.outputs.len()].join(" ");
    let outs: Vec<&str> = s.outputs.iter().map(|p| p.name.as_str()).collect();
    for v in vectors {
        for (p, hex) in s.inputs.iter().zip(v) {
            tb += &format!("    {} = {}'h{};\n", p.name, p.width, hex);
        }
        tb += &format!("    #1 $display(\"{fmt}\", {});\n", outs.join(", "));
    }
    tb += "    $finish;\n  end\nendmodule\n";
    tb
}

/// Synthesizes `file`, checks it against the simulator and returns it.
fn check_against_icarus(file: &str) -> Option<Synthesized> {
    check_files_against_icarus(&[file], true, RANDOM_VECTORS)
}

/// Synthesizes `files` (the top module in the first), with or without the ABC mapping,
/// checks the netlist against the simulator on the sources and returns it.
fn check_files_against_icarus(files: &[&str], abc: bool, random_vectors: usize) -> Option<Synthesized> {
    let sources: Vec<PathBuf> = files.iter().map(|f| design(f)).collect();
    check_sources_against_icarus(files[0], sources, abc, random_vectors)
}

/// [`check_files_against_icarus`] on any source paths; `file` names them in messages.
fn check_sources_against_icarus(
    file: &str,
    sources: Vec<PathBuf>,
    abc: bool,
    random_vectors: usize,
) -> Option<Synthesized> {
    if !tools_present() {
        return None;
    }
    let mut opts = SynthOptions::new(sources.clone());
    opts.abc = abc;
    let s = synthesize(&opts).unwrap();
    let seed: u64 = std::env::var("MIXGC_TEST_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("{file}: random inputs from MIXGC_TEST_SEED={seed}");
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let mut inputs: Vec<Vec<Vec<bool>>> = Vec::new();
    for k in 0..random_vectors + 2 {
        inputs.push(
            s.inputs
                .iter()
                .map(|p| {
                    (0..p.width)
                        .map(|_| if k < 2 { k == 1 } else { rng.gen() })
                        .collect()
                })
                .collect(),
        );
    }
    let hex: Vec<Vec<String>> = inputs
        .iter()
        .map(|v| v.iter().map(|bits| values::to_hex(bits)).collect())
        .collect();
    let expected = simulate(&sources, &testbench(&s, &hex), &s.top);
    assert_eq!(
        expected.len(),
        inputs.len(),
        "{file}: simulator printed {expected:?}"
    );
    for (v, want) in inputs.iter().zip(&expected) {
        let got = s.circuit.eval_plain(v).unwrap();
        let got: Vec<String> = got.iter().map(|bits| values::to_hex(bits)).collect();
        assert_eq!(
            &got.join(" "),
            want,
            "{file}: inputs {:?}",
            v.iter().map(|b| values::to_hex(b)).collect::<Vec<_>>()
        );
    }
    Some(s)
}

fn ands(s: &Synthesized) -> usize {
    s.circuit.stats().ands
}

#[test]
fn adder_matches_icarus_with_n_minus_1_ands() {
    if let Some(s) = check_against_icarus("adder.v") {
        assert_eq!(ands(&s), 31);
        assert_eq!(s.garbler_values, 1);
    }
}

#[test]
fn sum1024_matches_icarus_at_table_3_1() {
    if let Some(s) = check_files_against_icarus(&["sum1024.v"], false, RANDOM_VECTORS) {
        assert!(ands(&s) <= 1023, "{}", s.circuit.stats());
    }
}

#[test]
fn subtractor_matches_icarus() {
    if let Some(s) = check_against_icarus("subtractor.v") {
        assert_eq!(ands(&s), 32);
    }
}

#[test]
fn comparator_matches_icarus() {
    if let Some(s) = check_against_icarus("comparator.v") {
        // lt and lt_signed share 31 borrows: 32 + 1 + (31 ORs for eq), or fewer.
        assert!(ands(&s) <= 64, "{}", s.circuit.stats());
    }
}

#[test]
fn compare1024_matches_icarus_at_table_3_1() {
    if let Some(s) = check_files_against_icarus(&["compare1024.v"], false, RANDOM_VECTORS) {
        assert!(ands(&s) <= 1023, "{}", s.circuit.stats());
    }
}

#[test]
fn mux_tree_matches_icarus() {
    if let Some(s) = check_against_icarus("mux_tree.v") {
        // 7 two-way muxes of 32 bits, plus the select decoding.
        assert!(ands(&s) <= 7 * 32 + 16, "{}", s.circuit.stats());
        assert_eq!(s.garbler_values, 8);
    }
}

#[test]
fn mult32_matches_icarus_at_table_3_1() {
    if let Some(s) = check_files_against_icarus(&["mult32.v"], false, RANDOM_VECTORS) {
        assert!(ands(&s) <= 993, "{}", s.circuit.stats());
    }
}

#[test]
fn hamming160_matches_icarus_below_table_3_1() {
    if let Some(s) = check_against_icarus("hamming160.v") {
        // 160 - popcount(160) = 158; Table 3.1: 159.
        assert!(ands(&s) <= 158, "{}", s.circuit.stats());
    }
}

#[test]
fn aes128_matches_icarus_and_fips_197_with_6400_ands() {
    if let Some(s) = check_files_against_icarus(&["aes128.v", "aes_sbox.v"], false, AES_RANDOM_VECTORS) {
        assert_eq!(ands(&s), 6400, "{}", s.circuit.stats());
        let key = values::parse_hex("000102030405060708090a0b0c0d0e0f", 128).unwrap();
        let pt = values::parse_hex("00112233445566778899aabbccddeeff", 128).unwrap();
        let out = s.circuit.eval_plain(&[key, pt]).unwrap();
        assert_eq!(values::to_hex(&out[0]), "69c4e0d86a7b0430d8cdb78070b4c55a");
    }
}

#[test]
fn present_sbox_case_table_takes_abcs_netlist_and_matches_icarus() {
    if let Some(s) = check_against_icarus("present_sbox.v") {
        assert_eq!(s.mapping, Mapping::Abc, "{}", s.circuit.stats());
        assert!(ands(&s) <= 16, "{}", s.circuit.stats());
    }
}

/// Hamming weights of widths 1 to 12 and some wider ones: one-bit sums map to the
/// popcount techmap, N - popcount(N) ANDs, checked against the simulator.
#[test]
fn bit_sums_of_many_widths_match_icarus_with_n_minus_popcount_ands() {
    let dir = std::env::temp_dir().join(format!("mixgc-hdl-popcount-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for n in (1usize..=12).chain([15, 16, 17, 31, 32, 33, 63, 64, 65, 100]) {
        let path = dir.join(format!("popcount{n}.v"));
        let text = format!(
            "module popcount{n} (input [{m}:0] g_a, input [{m}:0] e_b, output reg [7:0] count);\n\
             integer i;\n\
             always @* begin\n  count = 0;\n  for (i = 0; i < {n}; i = i + 1) count = count + (g_a[i] ^ e_b[i]);\nend\n\
             endmodule\n",
            m = n - 1
        );
        std::fs::write(&path, text).unwrap();
        let Some(s) = check_sources_against_icarus(&format!("popcount{n}.v"), vec![path], false, 8) else {
            return;
        };
        let bound = n - n.count_ones() as usize;
        assert!(ands(&s) <= bound, "n = {n}: {}", s.circuit.stats());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
