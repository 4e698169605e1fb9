//! `mixgc run --executions K` (TinyGarble's amortized execution, thesis §3.3.1): K
//! independent instances in one session between two real processes, against native
//! arithmetic; and its errors.

use super::common;

use common::*;
use rand::Rng;

fn adder() -> String {
    format!("{}/../../circuits/adder_32bit.txt", env!("CARGO_MANIFEST_DIR"))
}

/// `adder_32bit.txt`'s output for a + b: 33 bits, 9 hex digits.
fn sum(a: u32, b: u32) -> String {
    format!("{:09x}\n", u64::from(a) + u64::from(b))
}

#[test]
fn k_executions_print_each_outputs_with_a_blank_line_between() {
    let mut rng = test_rng();
    let a: Vec<u32> = (0..4).map(|_| rng.gen()).collect();
    let b: u32 = rng.gen();
    let groups: Vec<String> = a.iter().map(|v| format!("{v:x}")).collect();
    let (g, e) = garbler_listens(
        &adder(),
        &["--executions", "4", "--input", &groups.join(";")],
        &["--executions", "4", "--input", &format!("{b:x}")],
    );
    let want: Vec<String> = a.iter().map(|&x| sum(x, b)).collect();
    let want = want.join("\n");
    for (who, o) in [("garbler", &g), ("evaluator", &e)] {
        o.assert_ok(who);
        assert_eq!(o.stdout, want, "{who}");
        assert!(o.stderr.contains("4 executions, mean"), "{who}: {}", o.stderr);
    }
}

#[test]
fn execution_errors_are_named() {
    let run = |extra: &[&str]| {
        let mut args = run_args(&adder(), "garbler", extra);
        args.extend(["--connect".to_string(), "127.0.0.1:1".to_string()]);
        run1(&strs(&args))
    };
    run(&["--executions", "3", "--input", "1;2"]).assert_error("groups", &["2 groups", "--executions 3"]);
    run(&["--executions", "0", "--input", "1"]).assert_error("zero", &["from 1 to"]);
    run(&["--executions", "2", "--input", "1;zz"]).assert_error("bad hex", &["execution 2"]);
    // Parties that disagree on K both name it.
    let (g, e) = garbler_listens(
        &adder(),
        &["--executions", "2", "--input", "1"],
        &["--executions", "3", "--input", "1"],
    );
    g.assert_error("garbler", &["ours 2, the peer's 3"]);
    e.assert_error("evaluator", &["ours 3, the peer's 2"]);
}
