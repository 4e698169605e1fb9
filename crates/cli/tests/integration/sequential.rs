//! Sequential netlists between two real processes: `mixgc synth` of the shipped sequential
//! designs, then `mixgc run --cycles` (garbler and evaluator as child processes over TCP),
//! against native arithmetic, FIPS-197 and the netlist's plaintext evaluation (which
//! `crates/hdl/tests/integration/sequential.rs` checks against Icarus Verilog on the RTL); and the
//! errors of `--cycles`.

use super::common;

use common::*;
use mixgc_circuit::sequential::Sequential;
use mixgc_circuit::values;
use rand::Rng;

fn verilog(name: &str) -> String {
    format!("{}/../../verilog/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn yosys_present() -> bool {
    let ok = std::process::Command::new("yosys").arg("-V").output().is_ok();
    if !ok {
        assert!(std::env::var_os("CI").is_none(), "yosys missing under CI");
        eprintln!("skipped: yosys is not installed (apt-get install yosys)");
    }
    ok
}

/// `mixgc synth FILES --out OUT --report` plus `extra`; returns the report.
fn synth(files: &[&str], extra: &[&str], out: &TempFile) -> String {
    let paths: Vec<String> = files.iter().map(|f| verilog(f)).collect();
    let mut args: Vec<&str> = vec!["synth"];
    args.extend(paths.iter().map(String::as_str));
    args.extend(["--out", out.path(), "--report"]);
    args.extend(extra);
    let o = run1(&args);
    o.assert_ok("synth");
    assert!(o.stderr.contains("--cycles"), "{o:#?}");
    o.stdout
}

/// Per-cycle bit list `b0:b1:…`.
fn bit_list(bits: &[bool]) -> String {
    bits.iter()
        .map(|&b| if b { "1" } else { "0" })
        .collect::<Vec<_>>()
        .join(":")
}

#[test]
fn serial_adder_adds_in_two_processes_for_1_2_and_32_cycles() {
    if !yosys_present() {
        return;
    }
    let out = TempFile::new("serial_add.txt", b"");
    let report = synth(&["serial_add.v"], &[], &out);
    assert!(
        report.contains("flip-flops 1") && report.contains("ANDs       1\n"),
        "{report}"
    );
    let mut rng = test_rng();
    for cycles in [1usize, 2, 32] {
        let a: Vec<bool> = (0..cycles).map(|_| rng.gen()).collect();
        let b: Vec<bool> = (0..cycles).map(|_| rng.gen()).collect();
        let c = cycles.to_string();
        let (g, e) = garbler_listens(
            out.path(),
            &["--cycles", &c, "--reveal-every-cycle", "--input", &bit_list(&a)],
            &["--cycles", &c, "--reveal-every-cycle", "--input", &bit_list(&b)],
        );
        // The model: the bits of a + b, least significant first.
        let mut carry = false;
        let mut want = String::new();
        for t in 0..cycles {
            want += if a[t] ^ b[t] ^ carry { "1\n" } else { "0\n" };
            carry = (a[t] & b[t]) | (carry & (a[t] ^ b[t]));
        }
        for (who, o) in [("garbler", &g), ("evaluator", &e)] {
            o.assert_ok(who);
            assert_eq!(o.stdout, want, "{who}: {cycles} cycles");
            // One AND a cycle: cycle 0's carry is public, so its AND is a · b alone.
            assert!(
                o.stderr.contains(&format!("{who}: {cycles} ANDs")),
                "{}",
                o.stderr
            );
        }
    }
    // Without --reveal-every-cycle: the last cycle's output only; a held value.
    let (g, e) = garbler_listens(
        out.path(),
        &["--cycles", "3", "--input", "1"],
        &["--cycles", "3", "--input", "1:0:0"],
    );
    for (who, o) in [("garbler", &g), ("evaluator", &e)] {
        o.assert_ok(who);
        // a = 111, b = 001: sum bits 0, 0, 0 with carries 1, 1 → cycle 2 prints 0.
        assert_eq!(o.stdout, "0\n", "{who}");
    }
}

#[test]
fn serial_multiplier_multiplies_in_two_processes() {
    if !yosys_present() {
        return;
    }
    let out = TempFile::new("serial_mult.txt", b"");
    let report = synth(&["serial_mult.v"], &["--once-ports", "g_a"], &out);
    assert!(
        report.contains("once") && report.contains("flip-flops 32"),
        "{report}"
    );
    let mut rng = test_rng();
    let (a, b): (u32, u32) = (rng.gen(), rng.gen());
    let b_bits: Vec<bool> = (0..64).map(|t| t < 32 && b >> t & 1 == 1).collect();
    let (g, e) = garbler_listens(
        out.path(),
        &[
            "--cycles",
            "64",
            "--reveal-every-cycle",
            "--input",
            &format!("{a:x}"),
        ],
        &[
            "--cycles",
            "64",
            "--reveal-every-cycle",
            "--input",
            &bit_list(&b_bits),
        ],
    );
    for (who, o) in [("garbler", &g), ("evaluator", &e)] {
        o.assert_ok(who);
        let lines: Vec<&str> = o.stdout.lines().collect();
        assert_eq!(lines.len(), 64, "{who}");
        let got = lines
            .iter()
            .enumerate()
            .fold(0u64, |acc, (t, l)| acc | u64::from(*l == "1") << t);
        assert_eq!(got, u64::from(a) * u64::from(b), "{who}: {a} * {b}");
    }
}

#[test]
fn round_per_cycle_aes_encrypts_in_two_processes() {
    if !yosys_present() {
        return;
    }
    let out = TempFile::new("aes128_seq.txt", b"");
    synth(
        &["aes128_seq.v", "aes_sbox.v"],
        &[
            "--top",
            "aes128_seq",
            "--once-ports",
            "g_key,e_plaintext",
            "--no-abc",
        ],
        &out,
    );
    let net = Sequential::read_file(std::path::Path::new(out.path())).unwrap();
    let mut rng = test_rng();
    let random = |rng: &mut rand::rngs::StdRng| -> String {
        (0..16).map(|_| format!("{:02x}", rng.gen::<u8>())).collect()
    };
    let cases = [
        (
            "000102030405060708090a0b0c0d0e0f".to_string(),
            "00112233445566778899aabbccddeeff".to_string(),
        ),
        (random(&mut rng), random(&mut rng)),
    ];
    for (key, pt) in cases {
        let (g, e) = garbler_listens(
            out.path(),
            &["--cycles", "10", "--input", &key],
            &["--cycles", "10", "--input", &pt],
        );
        let bits = |h: &str| values::parse_hex(h, 128).unwrap();
        let want = net
            .eval_plain(10, |port, _| if port == 0 { bits(&key) } else { bits(&pt) })
            .unwrap();
        let want = values::to_hex(&want[9][0]) + "\n";
        if key.starts_with("000102") {
            assert_eq!(want, "69c4e0d86a7b0430d8cdb78070b4c55a\n");
        }
        for (who, o) in [("garbler", &g), ("evaluator", &e)] {
            o.assert_ok(who);
            assert_eq!(o.stdout, want, "{who}: key {key}, plaintext {pt}");
            assert!(o.stderr.contains("6,400 ANDs"), "{who}: {}", o.stderr);
        }
    }
}

#[test]
fn cycle_errors_are_named() {
    if !yosys_present() {
        return;
    }
    let out = TempFile::new("serial_add_err.txt", b"");
    synth(&["serial_add.v"], &[], &out);
    let run = |extra: &[&str]| {
        let mut args = run_args(out.path(), "evaluator", extra);
        args.extend(["--connect".to_string(), "127.0.0.1:1".to_string()]);
        run1(&strs(&args))
    };
    run(&["--input", "1"]).assert_error("no --cycles", &["sequential netlist", "--cycles C"]);
    run(&["--cycles", "0", "--input", "1"]).assert_error("0 cycles", &["--cycles 0"]);
    run(&["--cycles", "99999999999999", "--input", "1"]).assert_error("huge", &["at most"]);
    run(&["--cycles", "3", "--input", "1:0"])
        .assert_error("list length", &["2 per-cycle values for --cycles 3"]);
    run(&["--cycles", "3", "--input", "1,1"]).assert_error("count", &["owns 1 input port"]);
    run(&["--cycles", "3", "--input", "1", "--garbler-values", "1"])
        .assert_error("garbler-values", &["--garbler-values"]);
    // Parties that disagree on the cycles both name it.
    let (g, e) = garbler_listens(
        out.path(),
        &["--cycles", "4", "--input", "1"],
        &["--cycles", "5", "--input", "1"],
    );
    g.assert_error("garbler", &["cycles: ours 4, the peer's 5"]);
    e.assert_error("evaluator", &["cycles: ours 5, the peer's 4"]);
    // --cycles on a combinational circuit.
    let comb = TempFile::new("and.txt", b"1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n");
    let mut args = run_args(comb.path(), "evaluator", &["--cycles", "2", "--input", "1"]);
    args.extend(["--connect".to_string(), "127.0.0.1:1".to_string()]);
    run1(&strs(&args)).assert_error("combinational", &["--cycles is for a sequential netlist"]);
}

#[test]
fn dot_product_accumulates_in_two_processes() {
    if !yosys_present() {
        return;
    }
    let out = TempFile::new("dot_product.txt", b"");
    synth(&["dot_product.v"], &[], &out);
    let mut rng = test_rng();
    let x: Vec<u16> = (0..8).map(|_| rng.gen()).collect();
    let y: Vec<u16> = (0..8).map(|_| rng.gen()).collect();
    let list = |v: &[u16]| v.iter().map(|e| format!("{e:x}")).collect::<Vec<_>>().join(":");
    let (g, e) = garbler_listens(
        out.path(),
        &["--cycles", "8", "--input", &list(&x)],
        &["--cycles", "8", "--input", &list(&y)],
    );
    let dot = x.iter().zip(&y).fold(0u32, |acc, (&a, &b)| {
        acc.wrapping_add(u32::from(a) * u32::from(b))
    });
    for (who, o) in [("garbler", &g), ("evaluator", &e)] {
        o.assert_ok(who);
        assert_eq!(o.stdout, format!("{dot:08x}\n"), "{who}");
    }
}

#[test]
fn run_help_explains_cycles_and_executions() {
    let help = run1(&["run", "--help"]);
    help.assert_ok("run --help");
    for needle in [
        "--cycles",
        "--reveal-every-cycle",
        "--executions",
        "V0:V1",
        "Sequential netlists",
        "mixgc-chain 1",
    ] {
        assert!(
            help.stdout.contains(needle),
            "run --help lacks {needle}: {}",
            help.stdout
        );
    }
}

#[test]
fn a_register_initialized_by_the_evaluator_accumulates_in_two_processes() {
    if !yosys_present() {
        return;
    }
    let out = TempFile::new("acc_init.txt", b"");
    let report = synth(&["acc_init.v"], &[], &out);
    assert!(report.contains("flip-flops 16"), "{report}");
    let mut rng = test_rng();
    let start: u16 = rng.gen();
    let x: Vec<u16> = (0..5).map(|_| rng.gen()).collect();
    let list = x.iter().map(|e| format!("{e:x}")).collect::<Vec<_>>().join(":");
    let (g, e) = garbler_listens(
        out.path(),
        &["--cycles", "5", "--reveal-every-cycle", "--input", &list],
        &[
            "--cycles",
            "5",
            "--reveal-every-cycle",
            "--input",
            &format!("{start:x}"),
        ],
    );
    let mut want = String::new();
    let mut acc = start;
    for v in &x {
        want += &format!("{acc:04x}\n");
        acc = acc.wrapping_add(*v);
    }
    for (who, o) in [("garbler", &g), ("evaluator", &e)] {
        o.assert_ok(who);
        assert_eq!(o.stdout, want, "{who}");
    }
    // An init port takes one value.
    let (_, e) = garbler_listens(
        out.path(),
        &["--cycles", "2", "--input", "1:2"],
        &["--cycles", "2", "--input", "1:2"],
    );
    assert!(
        e.stderr
            .contains("`e_init_acc`: it is read once (at cycle 0, as registers' initial values)"),
        "{}",
        e.stderr
    );
}

/// The last stage's outputs of a chain in plaintext (Eq. 3.2): each stage's netlist
/// evaluated for its cycles, its last cycle's outputs feeding the next stage's first ports;
/// `input(stage, port, cycle)` gives the other ports.
fn chain_plain(
    stages: &[(&Sequential, u64)],
    mut input: impl FnMut(usize, usize, u64) -> Vec<bool>,
) -> Vec<Vec<bool>> {
    let mut carried: Vec<Vec<bool>> = Vec::new();
    for (k, (net, cycles)) in stages.iter().enumerate() {
        let fed = carried.len();
        let outs = net
            .eval_plain(*cycles, |port, t| {
                if port < fed {
                    carried[port].clone()
                } else {
                    input(k, port, t)
                }
            })
            .unwrap();
        carried = outs.into_iter().last().unwrap();
    }
    carried
}

#[test]
fn chains_run_in_two_processes_against_plaintext_and_bad_links_are_named() {
    if !yosys_present() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("mixgc-chain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let acc = dir.join("acc.txt");
    let dot = dir.join("dot.txt");
    for (design, out) in [("acc_init.v", &acc), ("dot_product.v", &dot)] {
        let o = run1(&["synth", &verilog(design), "--out", out.to_str().unwrap()]);
        o.assert_ok("synth");
    }
    let acc_net = Sequential::read_file(&acc).unwrap();
    let mut rng = test_rng();
    let hex16 = |v: u16| format!("{v:x}");
    // Eq. 3.3: the accumulator three times in a row, 4 cycles each; stage k + 1's g_x is
    // stage k's total, so the garbler gives g_x for stage 1 only.
    let chain = dir.join("acc3.chain");
    std::fs::write(
        &chain,
        "mixgc-chain 1\n# the accumulator, three times\nstage acc.txt 4 x3\n",
    )
    .unwrap();
    let x: Vec<u16> = (0..4).map(|_| rng.gen()).collect();
    let inits: Vec<u16> = (0..3).map(|_| rng.gen()).collect();
    let g_input = format!("{};;", x.iter().map(|&v| hex16(v)).collect::<Vec<_>>().join(":"));
    let e_input = inits.iter().map(|&v| hex16(v)).collect::<Vec<_>>().join(";");
    let (g, e) = garbler_listens(
        chain.to_str().unwrap(),
        &["--input", &g_input],
        &["--input", &e_input],
    );
    let bits = |v: u16| values::parse_hex(&hex16(v), 16).unwrap();
    let want = chain_plain(&[(&acc_net, 4), (&acc_net, 4), (&acc_net, 4)], |k, port, t| {
        if port == 0 {
            bits(x[t as usize])
        } else {
            bits(inits[k])
        }
    });
    // The model: stage 1 gives init0 + x0 + x1 + x2, each next stage init + 3 · previous.
    let mut model = inits[0].wrapping_add(x[0]).wrapping_add(x[1]).wrapping_add(x[2]);
    for &init in &inits[1..] {
        model = init.wrapping_add(model.wrapping_mul(3));
    }
    assert_eq!(values::to_hex(&want[0]), format!("{model:04x}"));
    for (who, o) in [("garbler", &g), ("evaluator", &e)] {
        o.assert_ok(who);
        assert_eq!(o.stdout, format!("{model:04x}\n"), "{who}");
    }
    // Eq. 3.2, different functions, garbled with three-halves: the accumulator for 3
    // cycles, then the dot product for 5 cycles with g_x = the accumulator's total held
    // and e_y per cycle; random inputs, against the netlists chained in plaintext.
    let dot_net = Sequential::read_file(&dot).unwrap();
    let mixed = dir.join("mixed.chain");
    std::fs::write(
        &mixed,
        "mixgc-chain 1
stage acc.txt 3
stage dot.txt 5
",
    )
    .unwrap();
    let x: Vec<u16> = (0..3).map(|_| rng.gen()).collect();
    let init: u16 = rng.gen();
    let y: Vec<u16> = (0..5).map(|_| rng.gen()).collect();
    let list = |v: &[u16]| v.iter().map(|&v| hex16(v)).collect::<Vec<_>>().join(":");
    let (g, e) = garbler_listens(
        mixed.to_str().unwrap(),
        &["--input", &format!("{};", list(&x)), "--garbling", "three-halves"],
        &[
            "--input",
            &format!("{};{}", hex16(init), list(&y)),
            "--garbling",
            "three-halves",
        ],
    );
    let want = chain_plain(&[(&acc_net, 3), (&dot_net, 5)], |k, port, t| match (k, port) {
        (0, 0) => bits(x[t as usize]),
        (0, _) => bits(init),
        _ => bits(y[t as usize]),
    });
    // The model: total = init + x0 + x1 (the value before the third edge), then
    // dot = Σ total · y_t over the 5 cycles, mod 2^32.
    let total = u32::from(init.wrapping_add(x[0]).wrapping_add(x[1]));
    let model = y.iter().fold(0u32, |s, &v| s.wrapping_add(total * u32::from(v)));
    assert_eq!(values::to_hex(&want[0]), format!("{model:08x}"));
    for (who, o) in [("garbler", &g), ("evaluator", &e)] {
        o.assert_ok(who);
        assert_eq!(o.stdout, format!("{model:08x}\n"), "{who}");
    }
    // Eq. 3.2 with a width mismatch: the dot product's 32-bit output cannot feed the
    // accumulator's 16-bit g_x; both parties name the stages and widths before connecting.
    let bad = dir.join("bad.chain");
    std::fs::write(&bad, "mixgc-chain 1\nstage dot.txt 2\nstage acc.txt 3\n").unwrap();
    let bad_path = bad.to_str().unwrap();
    let g = run1(&[
        "run",
        "--circuit",
        bad_path,
        "--role",
        "garbler",
        "--listen",
        "127.0.0.1:0",
        "--input",
        "1:2;",
    ]);
    let e = run1(&[
        "run",
        "--circuit",
        bad_path,
        "--role",
        "evaluator",
        "--connect",
        "127.0.0.1:9",
        "--input",
        "3:4;5",
    ]);
    for o in [&g, &e] {
        assert!(
            o.stderr.contains("width mismatch: stage 1 (")
                && o.stderr
                    .contains("dot.txt) output `dot` is 32 bits, but stage 2 (")
                && o.stderr.contains("acc.txt) input port `g_x` it feeds is 16 bits"),
            "{}",
            o.stderr
        );
    }
    // Wrong group counts and a bad stage line are named too.
    let e = run1(&[
        "run",
        "--circuit",
        chain.to_str().unwrap(),
        "--role",
        "evaluator",
        "--connect",
        "127.0.0.1:9",
        "--input",
        "1;2",
    ]);
    assert!(
        e.stderr.contains("chain of 3 stages needs 3 groups"),
        "{}",
        e.stderr
    );
    std::fs::write(&bad, "mixgc-chain 1\nstage acc.txt zero\n").unwrap();
    let o = run1(&[
        "run",
        "--circuit",
        bad.to_str().unwrap(),
        "--role",
        "evaluator",
        "--connect",
        "127.0.0.1:9",
    ]);
    assert!(
        o.stderr.contains("bad.chain:2: `zero` is not a number of cycles"),
        "{}",
        o.stderr
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
