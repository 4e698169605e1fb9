//! `mixgc synth`: Verilog through Yosys to a Bristol file, then real two-process 2PC
//! (`mixgc run`) on it, with outputs compared against native arithmetic; and the command's
//! errors.

use super::common;

use std::time::{Duration, Instant};

use common::*;
use rand::Rng;

/// How long one `mixgc synth` may take before the test calls it hung.
const SYNTH_DEADLINE: Duration = Duration::from_secs(120);

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

/// `mixgc synth FILE --out OUT --report`; returns the report.
fn synth(file: &str, out: &TempFile) -> String {
    // Yosys alone may take 20 s on a loaded machine; the deadline only guards against a hang.
    let o = spawn(&["synth", &verilog(file), "--out", out.path(), "--report"])
        .finish(Instant::now() + SYNTH_DEADLINE);
    o.assert_ok("synth");
    assert!(o.stderr.contains("--garbler-values"), "{o:#?}");
    o.stdout
}

#[test]
fn synthesized_mult32_runs_in_two_party() {
    if !yosys_present() {
        return;
    }
    let out = TempFile::new("mult32.txt", b"");
    let report = synth("mult32.v", &out);
    assert!(report.contains("ANDs       993"), "{report}");
    let mut rng = test_rng();
    for (a, b) in [(0u32, 0u32), (u32::MAX, u32::MAX), (rng.gen(), rng.gen())] {
        let (g, e) = garbler_listens(
            out.path(),
            &["--garbler-values", "1", "--input", &format!("{a:x}")],
            &["--garbler-values", "1", "--input", &format!("{b:x}")],
        );
        let want = format!("{:08x}\n", a.wrapping_mul(b));
        for (who, o) in [("garbler", &g), ("evaluator", &e)] {
            o.assert_ok(who);
            assert_eq!(o.stdout, want, "{who}: {a:x} * {b:x}");
        }
    }
}

#[test]
fn synthesized_mux_tree_runs_with_garbler_ports_first() {
    if !yosys_present() {
        return;
    }
    let out = TempFile::new("mux_tree.txt", b"");
    let report = synth("mux_tree.v", &out);
    assert!(report.contains("e_sel"), "{report}");
    let mut rng = test_rng();
    let words: Vec<u32> = (0..8).map(|_| rng.gen()).collect();
    let g_input: Vec<String> = words.iter().map(|w| format!("{w:x}")).collect();
    let sel = rng.gen_range(0..8usize);
    let (g, e) = garbler_listens(
        out.path(),
        &["--garbler-values", "8", "--input", &g_input.join(",")],
        &["--garbler-values", "8", "--input", &format!("{sel:x}")],
    );
    for (who, o) in [("garbler", &g), ("evaluator", &e)] {
        o.assert_ok(who);
        assert_eq!(o.stdout, format!("{:08x}\n", words[sel]), "{who}: sel {sel}");
    }
}

#[test]
fn synth_errors_are_one_clear_line() {
    if !yosys_present() {
        return;
    }
    let bad = TempFile::new(
        "bad_syntax.v",
        b"module m(input g_a, output y);\n  assign y = g_a +;\nendmodule\n",
    );
    run1(&["synth", bad.path()]).assert_error("syntax", &["bad_syntax.v:2", "syntax error"]);
    let seq = TempFile::new(
        "seq.v",
        b"module s(input clk, input g_a, output reg y);\nalways @(posedge clk) y <= g_a;\nendmodule\n",
    );
    run1(&["synth", seq.path()]).assert_error("clk", &["register `y` has no initial value"]);
    run1(&["synth", &verilog("adder.v"), "--yosys", "/nonexistent/yosys"])
        .assert_error("no yosys", &["apt-get install yosys"]);
    run1(&["synth", &verilog("adder.v"), "--top", "nope"]).assert_error("top", &["nope"]);
}

#[test]
fn synth_help_explains_ports_and_gives_an_example() {
    let help = run1(&["synth", "--help"]);
    help.assert_ok("synth --help");
    for needle in [
        "--top",
        "--out",
        "--report",
        "--garbler-ports",
        "--no-abc",
        "--once-ports",
        "--cycles",
        "g_*",
        "--garbler-values",
        "Example",
        "apt-get install yosys",
    ] {
        assert!(
            help.stdout.contains(needle),
            "synth --help lacks {needle}: {}",
            help.stdout
        );
    }
    let top = run1(&["--help"]);
    assert!(top.stdout.contains("synth"), "{}", top.stdout);
}
