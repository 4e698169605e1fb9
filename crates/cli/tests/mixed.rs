//! `mixgc lenet` and `mixgc plan`: mixed Boolean/arithmetic programs through real
//! two-party runs (in one process, and as two processes over TCP), outputs checked against
//! the plaintext programs by the commands themselves; bad input gives clear errors.

mod common;

use common::{pair, run1};
use serde_json::Value;

#[test]
fn lenet_runs_between_two_processes_in_every_realization() {
    for realization in ["pure-boolean", "full-convert", "smart-convert", "pure-arithmetic"] {
        let args = |role| {
            vec![
                "lenet",
                "--role",
                role,
                "--width",
                "8",
                "--input",
                "5",
                "--filters",
                "2",
                "--seed",
                "11",
                "--realization",
                realization,
            ]
        };
        let (garbler, evaluator) = pair(&args("garbler"), &args("evaluator"));
        garbler.assert_ok(realization);
        evaluator.assert_ok(realization);
        assert!(
            evaluator
                .stdout
                .contains("18 outputs, all equal to the plaintext layer"),
            "{realization}: {evaluator:#?}"
        );
        assert!(garbler.stdout.contains("18 outputs garbled"), "{garbler:#?}");
    }
}

#[test]
fn lenet_study_reports_every_realization_checked() {
    let out = run1(&[
        "lenet",
        "--widths",
        "4,9",
        "--input",
        "5",
        "--filters",
        "1",
        "--json",
    ]);
    out.assert_ok("lenet --json");
    let records: Vec<Value> = serde_json::from_str(&out.stdout).expect("one JSON array");
    assert_eq!(records.len(), 8);
    for r in &records {
        assert_eq!(r["outputs_checked"], 9, "{r}");
        assert_eq!(r["measured_filters"], 1);
        assert!(r["table_bytes"].as_u64().unwrap() > 0);
        assert!(r["garble_us"].as_f64().unwrap() > 0.0 && r["eval_us"].as_f64().unwrap() > 0.0);
    }
    // ABLE's Table 4 is shown only for the full layer's widths (4 bits here).
    assert!(records[0]["able_table_kbit"].is_number());
    assert!(records[4]["able_table_kbit"].is_null());
}

#[test]
fn plan_predicts_checks_and_recommends() {
    let out = run1(&[
        "plan", "clipdot", "--width", "12", "--size", "16", "--check", "--json",
    ]);
    out.assert_ok("plan --json");
    let plan: Value = serde_json::from_str(&out.stdout).unwrap();
    let rows = plan["realizations"].as_array().unwrap();
    let names: Vec<&str> = rows.iter().map(|r| r["realization"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["pure-boolean", "boolean+bc+arithmetic", "arithmetic+bd+boolean"]
    );
    assert!(names.contains(&plan["recommended"].as_str().unwrap()));
    for r in rows {
        assert!(r["predicted"]["garble_us"].as_f64().unwrap() > 0.0, "{r}");
        assert!(r["measured"]["garble_us"].as_f64().unwrap() > 0.0, "{r}");
    }
    // BC and BD show up exactly where the realization converts.
    assert!(rows[0]["arithmetic_gadgets"].as_object().unwrap().is_empty());
    assert_eq!(rows[1]["arithmetic_gadgets"]["mul"], 16);
    assert_eq!(rows[2]["arithmetic_gadgets"]["bd"], 32);

    let text = run1(&[
        "plan",
        "lenet",
        "--width",
        "6",
        "--size",
        "1",
        "--objective",
        "bytes",
    ]);
    text.assert_ok("plan lenet");
    assert!(text.stdout.contains("recommended for bytes: "), "{text:#?}");
}

#[test]
fn bad_arguments_are_clear_errors() {
    run1(&["lenet", "--widths", "2", "--count-only"]).assert_error("width 2", &["width"]);
    run1(&["plan", "clipdot", "--width", "99"]).assert_error("width 99", &["width"]);
    run1(&["plan", "lenet", "--size", "33"]).assert_error("33 filters", &["filters"]);
    // A timed run buffers the whole garbling: too large an instance is refused up front.
    run1(&[
        "lenet",
        "--widths",
        "16",
        "--filters",
        "32",
        "--realizations",
        "pure-arithmetic",
    ])
    .assert_error(
        "1.2 GiB of tables",
        &["MiB of garbled tables", "smaller instance"],
    );
    let bad = run1(&["lenet", "--realizations", "quantum"]);
    assert!(
        !bad.success() && bad.stderr.contains("unknown realization"),
        "{bad:#?}"
    );
}
