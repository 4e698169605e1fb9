//! `mixgc export` and `mixgc ops`: library circuits as files that `mixgc run` executes.

mod common;

use common::*;
use mixgc_circuit::{bristol, values};
use serde_json::Value;

/// Exports `name` to a temporary file unique to this test (`tag`) and returns its path.
fn export(tag: &str, name: &str, width: u32) -> String {
    let file = format!("mixgc-export-{tag}-{name}-{width}-{}.txt", std::process::id());
    let path = std::env::temp_dir().join(file);
    let path = path.to_string_lossy().to_string();
    run1(&["export", name, "--width", &width.to_string(), "--out", &path]).assert_ok("export");
    path
}

/// The function an exported op computes on w-bit operands.
type Reference = fn(u128, u128, u32) -> u128;

#[test]
fn exported_ops_reimport_and_compute_the_documented_function() {
    let cases: [(&str, Reference); 4] = [
        ("add", |x, y, w| (x + y) & ((1 << w) - 1)),
        ("sub", |x, y, w| x.wrapping_sub(y) & ((1 << w) - 1)),
        ("lt", |x, y, _| (x < y) as u128),
        ("eq", |x, y, _| (x == y) as u128),
    ];
    for (name, f) in cases {
        for w in [1u32, 7, 8, 33, 64] {
            let path = export("reimport", name, w);
            let c = bristol::read_file(std::path::Path::new(&path)).unwrap();
            assert_eq!(c.input_widths, vec![w, w], "{name}");
            let mask = (1u128 << w) - 1;
            for (x, y) in [
                (0u128, 0u128),
                (mask, 1 & mask),
                (0x5a5a5a5a5a5a5a5a & mask, 0x1234567890abcdef & mask),
            ] {
                let bits = |v: u128| values::parse_hex(&format!("{v:x}"), w).unwrap();
                let out = c.eval_plain(&[bits(x), bits(y)]).unwrap();
                let want = f(x, y, w);
                let got: u128 = out[0].iter().enumerate().map(|(i, &b)| (b as u128) << i).sum();
                assert_eq!(got, want, "{name} w={w} x={x:x} y={y:x}");
            }
            std::fs::remove_file(&path).ok();
        }
    }
}

#[test]
fn an_exported_op_runs_between_two_processes() {
    let path = export("two-process", "add", 64);
    let (g, e) = garbler_listens(&path, &["--input", "fffffffffffffff0"], &["--input", "21"]);
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert_eq!(g.stdout, "0000000000000011\n");
    assert_eq!(e.stdout, "0000000000000011\n");
    std::fs::remove_file(&path).ok();
}

#[test]
fn exported_aes128_gives_the_fips_197_ciphertext_between_two_processes() {
    let path = export("fips", "aes128", 128);
    let (g, e) = garbler_listens(
        &path,
        &["--input", "000102030405060708090a0b0c0d0e0f"],
        &["--input", "00112233445566778899aabbccddeeff"],
    );
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert_eq!(e.stdout, "69c4e0d86a7b0430d8cdb78070b4c55a\n");
    assert_eq!(g.stdout, e.stdout);
    std::fs::remove_file(&path).ok();
}

#[test]
fn ops_table_is_pinned() {
    let out = run1(&["ops", "--table"]);
    out.assert_ok("ops --table");
    // AND counts at w = 8, 16, 32, 64; a regression in any gadget changes these on purpose.
    for line in [
        "add                     7         15         31         63",
        "sub                     7         15         31         63",
        "lt                      8         16         32         64",
        "eq                      7         15         31         63",
        "Sum-1024                          1,023        1,023",
        "AES-128                           6,400        6,400",
        "SHA-256 compression              22,573       22,573",
        "EDT-256 (edit distance)       2,730,000      720,126",
    ] {
        assert!(out.stdout.contains(line), "missing `{line}` in\n{}", out.stdout);
    }
    let json: Value = serde_json::from_str(&run1(&["ops", "--json"]).stdout).unwrap();
    let add64 = json
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["op"] == "add" && r["width"] == 64)
        .unwrap();
    assert_eq!(add64["ands"], 63);
}

#[test]
fn unknown_ops_and_bad_widths_are_clear_errors() {
    let out = std::env::temp_dir().join("mixgc-never-written.txt");
    let out = out.to_string_lossy();
    run1(&["export", "frobnicate", "--out", &out])
        .assert_error("unknown op", &["unknown op 'frobnicate'", "add"]);
    run1(&["export", "add", "--width", "0", "--out", &out]).assert_error("width 0", &["width between 1"]);
    run1(&["export", "add", "--out", "/nonexistent-dir/x.txt"]).assert_error("bad path", &["cannot write"]);
}

#[test]
fn examples_run_between_two_processes_like_the_exported_circuit() {
    // auction: garbler bids 0x500, evaluator 0x4ff -> garbler wins, price 0x500 (32-bit default).
    let g = ["example", "auction", "--role", "garbler", "--input", "500"];
    let e = ["example", "auction", "--role", "evaluator", "--input", "4ff"];
    let (go, eo) = pair(&g, &e);
    go.assert_ok("garbler");
    eo.assert_ok("evaluator");
    assert_eq!(go.stdout, "1\n00000500\n");
    assert_eq!(eo.stdout, "1\n00000500\n");

    // An input left out is random and shown on stderr (after the listener's first line).
    let g = [
        "example",
        "millionaires",
        "--role",
        "garbler",
        "--input",
        "8000000000000000",
    ];
    let e = ["example", "millionaires", "--role", "evaluator"];
    let (go, eo) = pair(&g, &e);
    go.assert_ok("garbler");
    eo.assert_ok("evaluator");
    assert!(go.stderr.starts_with("listening on "), "{}", go.stderr);
    let shown = eo
        .stderr
        .lines()
        .find_map(|l| l.strip_prefix("evaluator input (random): "))
        .expect("echoed input");
    let theirs = u64::from_str_radix(shown, 16).unwrap();
    let want = (0x8000_0000_0000_0000u64 > theirs) as u8;
    assert_eq!(eo.stdout, format!("{want}\n"));
    assert_eq!(go.stdout, eo.stdout);
}

#[test]
fn demo_of_a_library_example_checks_itself_against_plaintext() {
    let out = run1(&["demo", "auction"]);
    out.assert_ok("demo auction");
    assert!(out.stdout.contains("(= plaintext evaluation)"), "{}", out.stdout);
    run1(&["demo", "nonsense"]).assert_error("unknown example", &["unknown op 'nonsense'"]);
}
