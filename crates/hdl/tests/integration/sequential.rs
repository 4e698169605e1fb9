//! The sequential designs: synthesized, run for 1, 2 and many cycles in plaintext from the
//! netlist (the format's evaluator and the program gadget that folds public bits), and
//! compared cycle by cycle with Icarus Verilog simulating the RTL source (not the netlist);
//! AND counts over C cycles against issue #21's targets.

use super::common;

use std::path::PathBuf;

use common::*;
use mixgc_circuit::sequential::{InputMode, Sequential};
use mixgc_circuit::values;
use mixgc_hdl::{synthesize, SynthOptions};
use mixgc_program::gadgets::sequential::run_cycles;
use mixgc_program::{Backend, Counter, Plain};
use rand::{Rng, SeedableRng};

/// A testbench that drives `clk` and the inputs, and prints the outputs (hex, one line a
/// cycle) just before each rising edge: the semantics of `mixgc run --cycles`.
fn testbench(top: &str, net: &Sequential, inputs: &[Vec<Vec<bool>>]) -> String {
    let mut tb = String::from("module tb;\n  reg clk = 0;\n");
    for p in &net.inputs {
        tb += &format!("  reg [{}:0] {};\n", p.width - 1, p.name);
    }
    for p in &net.outputs {
        tb += &format!("  wire [{}:0] {};\n", p.width - 1, p.name);
    }
    let conns: Vec<String> = std::iter::once(".clk(clk)".to_string())
        .chain(net.inputs.iter().map(|p| format!(".{0}({0})", p.name)))
        .chain(net.outputs.iter().map(|p| format!(".{0}({0})", p.name)))
        .collect();
    tb += &format!("  {top} dut ({});\n  initial begin\n", conns.join(", "));
    // A register set by an init port starts from the port's value, in the simulator too.
    for (p, bits) in net.inputs.iter().zip(inputs.first().into_iter().flatten()) {
        if p.mode == InputMode::Init {
            let register = mixgc_hdl::init_register(&p.name).expect("an init port's name");
            tb += &format!("    dut.{register} = {}'h{};\n", p.width, values::to_hex(bits));
        }
    }
    let fmt = vec!["%h"; net.outputs.len()].join(" ");
    let outs: Vec<&str> = net.outputs.iter().map(|p| p.name.as_str()).collect();
    for cycle in inputs {
        for (p, bits) in net.inputs.iter().zip(cycle) {
            tb += &format!("    {} = {}'h{};\n", p.name, p.width, values::to_hex(bits));
        }
        tb += &format!(
            "    #1 $display(\"{fmt}\", {});\n    clk = 1; #1 clk = 0;\n",
            outs.join(", ")
        );
    }
    tb += "    $finish;\n  end\nendmodule\n";
    tb
}

/// Synthesizes a sequential design.
fn synth(files: &[&str], top: &str, once: &[&str]) -> Sequential {
    let mut opts = SynthOptions::new(files.iter().map(|f| design(f)).collect());
    opts.top = Some(top.to_string());
    opts.once_ports = once.iter().map(|s| s.to_string()).collect();
    opts.abc = false;
    synthesize(&opts)
        .unwrap()
        .sequential
        .expect("a sequential design")
}

/// The outputs of every cycle, from the program gadget (public bits folded) on the
/// plaintext backend.
fn run_folded(net: &Sequential, inputs: &[Vec<Vec<bool>>]) -> Vec<String> {
    let mut p = Plain::default();
    let mut lines = Vec::new();
    let input = |b: &mut Plain, port: usize, t: u64| {
        let v = &inputs[t as usize][port];
        b.input(net.inputs[port].owner, v.len() as u32, Some(v))
    };
    run_cycles(&mut p, net, inputs.len() as u64, input, |_, _, outs| {
        lines.push(
            outs.iter()
                .map(|o| values::to_hex(o))
                .collect::<Vec<_>>()
                .join(" "),
        );
        Ok(())
    })
    .unwrap();
    lines
}

/// ANDs garbled over `cycles` cycles (public bits folded).
fn ands_for(net: &Sequential, cycles: u64) -> u64 {
    let mut c = Counter::default();
    let input =
        |b: &mut Counter, port: usize, _| b.input(net.inputs[port].owner, net.inputs[port].width, None);
    run_cycles(&mut c, net, cycles, input, |_, _, _| Ok(())).unwrap();
    c.cost().ands
}

/// Random inputs for `cycles` cycles (once and init ports hold their cycle-0 value); `fixed` sets
/// a port's value in every cycle.
fn random_inputs(
    net: &Sequential,
    cycles: usize,
    rng: &mut impl Rng,
    fixed: &[(usize, Vec<bool>)],
) -> Vec<Vec<Vec<bool>>> {
    let mut all: Vec<Vec<Vec<bool>>> = Vec::with_capacity(cycles);
    for t in 0..cycles {
        let cycle = net
            .inputs
            .iter()
            .enumerate()
            .map(|(i, p)| {
                if let Some((_, v)) = fixed.iter().find(|(j, _)| *j == i) {
                    v.clone()
                } else if t > 0 && p.mode != InputMode::PerCycle {
                    all[0][i].clone()
                } else {
                    (0..p.width).map(|_| rng.gen()).collect()
                }
            })
            .collect();
        all.push(cycle);
    }
    all
}

/// Checks `net` against Icarus on `inputs`: the netlist evaluator, the folding gadget and
/// the simulator agree on every cycle. Returns the lines.
fn check(files: &[&str], top: &str, net: &Sequential, inputs: &[Vec<Vec<bool>>]) -> Vec<String> {
    let sources: Vec<PathBuf> = files.iter().map(|f| design(f)).collect();
    let want = simulate(
        &sources,
        &testbench(top, net, inputs),
        &format!("{top}-{}", inputs.len()),
    );
    assert_eq!(want.len(), inputs.len(), "{top}: simulator printed {want:?}");
    let plain: Vec<String> = net
        .eval_plain(inputs.len() as u64, |port, t| inputs[t as usize][port].clone())
        .unwrap()
        .iter()
        .map(|o| o.iter().map(|v| values::to_hex(v)).collect::<Vec<_>>().join(" "))
        .collect();
    let folded = run_folded(net, inputs);
    for t in 0..inputs.len() {
        assert_eq!(plain[t], want[t], "{top}: netlist, cycle {t} of {}", inputs.len());
        assert_eq!(
            folded[t],
            want[t],
            "{top}: folded gadget, cycle {t} of {}",
            inputs.len()
        );
    }
    want
}

fn rng(tag: &str) -> rand::rngs::StdRng {
    let seed: u64 = std::env::var("MIXGC_TEST_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(rand::random);
    eprintln!("{tag}: random inputs from MIXGC_TEST_SEED={seed}");
    rand::rngs::StdRng::seed_from_u64(seed)
}

fn bits(v: u128, width: u32) -> Vec<bool> {
    (0..width).map(|i| i < 128 && v >> i & 1 == 1).collect()
}

fn hex_bits(hex: &str) -> Vec<bool> {
    values::parse_hex(hex, (hex.len() * 4) as u32).unwrap()
}

#[test]
fn serial_adder_matches_icarus_for_1_2_32_and_1000_cycles_at_one_and_a_cycle() {
    if !tools_present() {
        return;
    }
    let net = synth(&["serial_add.v"], "serial_add", &[]);
    let mut rng = rng("serial_add");
    for cycles in [1, 2, 32, 1000] {
        let inputs = random_inputs(&net, cycles, &mut rng, &[]);
        let lines = check(&["serial_add.v"], "serial_add", &net, &inputs);
        // The bits are a + b, least significant first.
        if cycles == 32 {
            let word = |port: usize| (0..32).fold(0u64, |acc, t| acc | u64::from(inputs[t][port][0]) << t);
            let sum = (word(0) + word(1)) & 0xffff_ffff;
            let got = (0..32).fold(0u64, |acc, t| acc | u64::from(lines[t] == "1") << t);
            assert_eq!(got, sum);
        }
    }
    assert!(ands_for(&net, 32) <= 32, "{}", ands_for(&net, 32));
}

#[test]
fn serial_multiplier_matches_icarus_and_multiplies() {
    if !tools_present() {
        return;
    }
    let net = synth(&["serial_mult.v"], "serial_mult", &["g_a"]);
    let mut rng = rng("serial_mult");
    for cycles in [1, 2, 64, 300] {
        let a: u64 = rng.gen::<u32>().into();
        let b: u64 = rng.gen::<u32>().into();
        let mut inputs = random_inputs(&net, cycles, &mut rng, &[(0, bits(a.into(), 32))]);
        for (t, cycle) in inputs.iter_mut().enumerate() {
            cycle[1] = vec![t < 32 && b >> t & 1 == 1];
        }
        let lines = check(&["serial_mult.v"], "serial_mult", &net, &inputs);
        if cycles >= 64 {
            let got = (0..64).fold(0u64, |acc, t| acc | u64::from(lines[t] == "1") << t);
            assert_eq!(got, a * b, "{a} * {b}");
        }
    }
    assert!(ands_for(&net, 64) <= 64 * 64);
}

#[test]
fn round_per_cycle_aes_matches_icarus_and_fips_197_in_6400_ands() {
    if !tools_present() {
        return;
    }
    let files = ["aes128_seq.v", "aes_sbox.v"];
    let net = synth(&files, "aes128_seq", &["g_key", "e_plaintext"]);
    let key = hex_bits("000102030405060708090a0b0c0d0e0f");
    let pt = hex_bits("00112233445566778899aabbccddeeff");
    let mut rng = rng("aes128_seq");
    let fips = random_inputs(&net, 10, &mut rng, &[(0, key), (1, pt)]);
    let lines = check(&files, "aes128_seq", &net, &fips);
    assert_eq!(lines[9], "69c4e0d86a7b0430d8cdb78070b4c55a");
    for cycles in [1, 2, 10, 25] {
        let inputs = random_inputs(&net, cycles, &mut rng, &[]);
        check(&files, "aes128_seq", &net, &inputs);
    }
    let ands = ands_for(&net, 10);
    eprintln!(
        "aes128_seq: {ands} ANDs for 10 cycles, core {} ANDs",
        net.core.stats().ands
    );
    assert!(ands <= 6400, "{ands}");
    // The netlist file against the unrolled circuit's (both without the ABC pass).
    let mut opts = SynthOptions::new(vec![design("aes128.v"), design("aes_sbox.v")]);
    opts.top = Some("aes128".into());
    opts.abc = false;
    let unrolled = synthesize(&opts).unwrap();
    let (mut seq_text, mut unrolled_text) = (Vec::new(), Vec::new());
    net.write(&mut seq_text).unwrap();
    mixgc_circuit::bristol::write_fashion(&unrolled.circuit, &mut unrolled_text).unwrap();
    eprintln!(
        "aes128_seq: netlist {} bytes, unrolled {} bytes (1/{:.2})",
        seq_text.len(),
        unrolled_text.len(),
        unrolled_text.len() as f64 / seq_text.len() as f64
    );
    assert!(seq_text.len() * 8 <= unrolled_text.len());
}

#[test]
fn round_per_cycle_sha256_matches_icarus_and_fips_180_4() {
    if !tools_present() {
        return;
    }
    let net = synth(&["sha256_seq.v"], "sha256_seq", &["g_h", "e_block"]);
    let iv = hex_bits("6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19");
    // "abc", padded (FIPS 180-4 §5.1.1).
    let mut block = String::from("61626380");
    block += &"0".repeat(128 - 8 - 16);
    block += "0000000000000018";
    let mut rng = rng("sha256_seq");
    let abc = random_inputs(&net, 64, &mut rng, &[(0, iv), (1, hex_bits(&block))]);
    let lines = check(&["sha256_seq.v"], "sha256_seq", &net, &abc);
    assert_eq!(
        lines[63],
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
    for cycles in [1, 2, 64] {
        let inputs = random_inputs(&net, cycles, &mut rng, &[]);
        check(&["sha256_seq.v"], "sha256_seq", &net, &inputs);
    }
    let ands = ands_for(&net, 64);
    eprintln!(
        "sha256_seq: {ands} ANDs for 64 cycles, core {} ANDs",
        net.core.stats().ands
    );
    // The program library's compression takes 22,573; the schedule's first 16 words and
    // the constant K[t] cost a little more here.
    assert!(ands <= 24_000, "{ands}");
}

#[test]
fn dot_product_matches_icarus_and_the_model() {
    if !tools_present() {
        return;
    }
    let net = synth(&["dot_product.v"], "dot_product", &[]);
    let mut rng = rng("dot_product");
    for cycles in [1, 2, 100] {
        let inputs = random_inputs(&net, cycles, &mut rng, &[]);
        let lines = check(&["dot_product.v"], "dot_product", &net, &inputs);
        let word = |bits: &[bool]| bits.iter().rev().fold(0u32, |acc, &b| acc << 1 | u32::from(b));
        let mut model = 0u32;
        for (t, cycle) in inputs.iter().enumerate() {
            model = model.wrapping_add(word(&cycle[0]).wrapping_mul(word(&cycle[1])));
            assert_eq!(lines[t], format!("{model:08x}"), "cycle {t}");
        }
    }
    assert!(ands_for(&net, 1) <= net.core.stats().ands as u64);
}

#[test]
fn a_register_initialized_by_the_evaluator_matches_icarus() {
    if !tools_present() {
        return;
    }
    let net = synth(&["acc_init.v"], "acc_init", &[]);
    let port = &net.inputs[1];
    assert_eq!((port.name.as_str(), port.mode), ("e_init_acc", InputMode::Init));
    assert!(net
        .flops
        .iter()
        .all(|f| matches!(f.init, mixgc_circuit::sequential::FlopInit::Input { port: 1, .. })));
    let mut rng = rng("acc_init");
    for cycles in [1, 2, 50] {
        let inputs = random_inputs(&net, cycles, &mut rng, &[]);
        let lines = check(&["acc_init.v"], "acc_init", &net, &inputs);
        // The model: the evaluator's start plus the garbler's values so far.
        let value = |bits: &[bool]| bits.iter().rev().fold(0u16, |a, &b| a << 1 | u16::from(b));
        let mut acc = value(&inputs[0][1]);
        for (t, line) in lines.iter().enumerate() {
            assert_eq!(*line, format!("{acc:04x}"), "cycle {t}");
            acc = acc.wrapping_add(value(&inputs[t][0]));
        }
    }
}
