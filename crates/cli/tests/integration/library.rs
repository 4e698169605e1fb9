//! `mixgc export` and `mixgc ops`: library circuits as files that `mixgc run` executes.

use super::common;

use common::*;
use mixgc_circuit::{bristol, values};
use serde_json::Value;

/// Exports `name` (at `width`, for ops that take one) to a temporary file unique to this
/// test (`tag`) and returns its path.
fn export(tag: &str, name: &str, width: Option<u32>) -> String {
    let w = width.map_or("fixed".to_string(), |w| w.to_string());
    let file = format!("mixgc-export-{tag}-{name}-{w}-{}.txt", std::process::id());
    let path = std::env::temp_dir().join(file);
    let path = path.to_string_lossy().to_string();
    let mut args = vec!["export", name, "--out", &path];
    if width.is_some() {
        args.extend(["--width", &w]);
    }
    run1(&args).assert_ok("export");
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
            let path = export("reimport", name, Some(w));
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
    let path = export("two-process", "add", Some(64));
    let (g, e) = garbler_listens(&path, &["--input", "fffffffffffffff0"], &["--input", "21"]);
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert_eq!(g.stdout, "0000000000000011\n");
    assert_eq!(e.stdout, "0000000000000011\n");
    std::fs::remove_file(&path).ok();
}

#[test]
fn exported_aes128_gives_the_fips_197_ciphertext_between_two_processes() {
    let path = export("fips", "aes128", None);
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
        "mul                    50        180        680      2,640",
        "div                    77        285      1,085      4,221",
        "sqrt                   18         70        270      1,054",
        "lt                      8         16         32         64",
        "eq                      7         15         31         63",
        "hamming                 7         15         31         63",
        "relu                    7         15         31         63",
        "matmul             41,760    133,200    460,080  1,689,840",
        "Sum-1024                          1,023        1,023   TinyGarble2 Table 3.1",
        "Hamming-160                         159          158   TinyGarble2 Table 3.1",
        "Mult-32                             993          680   TinyGarble2 Table 3.1",
        "MatrixMult 5x5, 32-bit          127,225       71,110   TinyGarble2 Table 3.1",
        "AES-128                           6,400        6,400   TinyGarble2 Table 3.1",
        "SHA-256 compression              22,573       22,573   Bristol sha256.txt",
        "EDT-256 (edit distance)       2,730,000      720,126   MEG, non-XOR gates",
        // The n-party applications: parties, the thesis's optimized ANDs, mixgc's.
        "auction, 16-bit bids             4           97           97   TinyGarble2 Table 3.5",
        "auction, 16-bit bids             8          228          228   TinyGarble2 Table 3.5",
        "auction, 16-bit bids            16          492          491   TinyGarble2 Table 3.5",
        "auction, 32-bit bids             4          194          193   TinyGarble2 Table 3.5",
        "auction, 32-bit bids             8          454          452   TinyGarble2 Table 3.5",
        "auction, 32-bit bids            16          975          971   TinyGarble2 Table 3.5",
        "voting, 2 candidates             8            8            7   TinyGarble2 Table 3.6",
        "voting, 2 candidates            16           16           15   TinyGarble2 Table 3.6",
        "voting, 4 candidates             4           37           32   TinyGarble2 Table 3.6",
        "voting, 4 candidates             8           79           57   TinyGarble2 Table 3.6",
        "voting, 4 candidates            16          147          102   TinyGarble2 Table 3.6",
        "voting, 8 candidates            16          388          253   TinyGarble2 Table 3.6",
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
    run1(&["export", "matmul", "--size", "100000", "--out", &out])
        .assert_error("huge size", &["size between 1 and 1024"]);
    run1(&["export", "edit-distance", "--size", "0", "--out", &out])
        .assert_error("zero size", &["size between 1"]);
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
    // The drawn input is in the message, so a failure can be replayed with `--input`.
    assert_eq!(eo.stdout, format!("{want}\n"), "evaluator input {shown}");
    assert_eq!(go.stdout, eo.stdout);
}

#[test]
fn puf_auth_and_matmul_examples_run_between_two_processes() {
    // 10 differing bits of 128 with the default threshold 16: accepted.
    let g = [
        "example",
        "puf-auth",
        "--role",
        "garbler",
        "--input",
        "0123456789abcdef0123456789abcdef",
    ];
    let e = [
        "example",
        "puf-auth",
        "--role",
        "evaluator",
        "--input",
        "0123456789abcdef0123456789abc210",
    ];
    let (go, eo) = pair(&g, &e);
    go.assert_ok("garbler");
    assert_eq!((go.stdout.as_str(), eo.stdout.as_str()), ("1\n", "1\n"));
    // 2x2 8-bit: [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]].
    let g = [
        "example", "matmul", "--size", "2", "--width", "8", "--role", "garbler", "--input", "1,2,3,4",
    ];
    let e = [
        "example",
        "matmul",
        "--size",
        "2",
        "--width",
        "8",
        "--role",
        "evaluator",
        "--input",
        "5,6,7,8",
    ];
    let (go, eo) = pair(&g, &e);
    go.assert_ok("garbler");
    eo.assert_ok("evaluator");
    assert_eq!(eo.stdout, "13\n16\n2b\n32\n");
    assert_eq!(go.stdout, eo.stdout);
    // Parties that disagree on the size stop with a message.
    let g = [
        "example", "matmul", "--size", "2", "--width", "8", "--role", "garbler",
    ];
    let e = [
        "example",
        "matmul",
        "--size",
        "3",
        "--width",
        "8",
        "--role",
        "evaluator",
    ];
    let (go, eo) = pair(&g, &e);
    go.assert_error("garbler", &["program differs"]);
    eo.assert_error("evaluator", &["program differs"]);
}

#[test]
fn demo_of_a_library_example_checks_itself_against_plaintext() {
    let out = run1(&["demo", "auction"]);
    out.assert_ok("demo auction");
    assert!(out.stdout.contains("(= plaintext evaluation)"), "{}", out.stdout);
    run1(&["demo", "nonsense"]).assert_error("unknown example", &["unknown op 'nonsense'"]);
}

/// Every library op, run by `mixgc example` in two processes under `--garbling
/// three-halves` (issue #16, point 4), equals the plaintext backend on random inputs and on
/// the edges (all zeros, all ones); a garbler and an evaluator whose schemes differ both
/// name the difference.
#[test]
fn every_example_matches_plaintext_under_three_halves_in_two_processes() {
    use mixgc_program::library::{build, shape, Supply, OPS};
    use mixgc_program::{PartyId, Plain};
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(16);
    for info in OPS {
        let name = info.name;
        // Small sizes keep the matrix product and the chains short.
        let size = info.default_size.map(|n| n.min(3));
        let inputs = shape(name, None, size).unwrap().inputs().to_vec();
        for case in ["random", "zeros", "ones"] {
            let values: Vec<Vec<bool>> = inputs
                .iter()
                .map(|&(_, w)| {
                    (0..w)
                        .map(|_| match case {
                            "random" => rng.gen(),
                            other => other == "ones",
                        })
                        .collect()
                })
                .collect();
            let of = |p: PartyId| -> Vec<Vec<bool>> {
                inputs
                    .iter()
                    .zip(&values)
                    .filter(|((owner, _), _)| *owner == p)
                    .map(|(_, v)| v.clone())
                    .collect()
            };
            let (g_values, e_values) = (of(PartyId::GARBLER), of(PartyId::EVALUATOR));
            let plain = build(
                &mut Plain::default(),
                name,
                None,
                size,
                &mut Supply::both(g_values.clone(), e_values.clone()),
            )
            .unwrap();
            let want: String = plain
                .iter()
                .map(|v| values::to_hex(v.as_ref().expect("the plaintext run learns all")) + "\n")
                .collect();
            let args = |role: &str, own: &[Vec<bool>]| -> Vec<String> {
                let mut a: Vec<String> = ["example", name, "--role", role, "--garbling", "three-halves"]
                    .map(String::from)
                    .to_vec();
                if let Some(n) = size {
                    a.extend(["--size".into(), n.to_string()]);
                }
                if !own.is_empty() {
                    let hex: Vec<String> = own.iter().map(|v| values::to_hex(v)).collect();
                    a.extend(["--input".into(), hex.join(",")]);
                }
                a
            };
            let (g, e) = (args("garbler", &g_values), args("evaluator", &e_values));
            let (go, eo) = pair(&strs(&g), &strs(&e));
            go.assert_ok(&format!("{name} ({case}), garbler"));
            eo.assert_ok(&format!("{name} ({case}), evaluator"));
            assert_eq!(go.stdout, want, "{name} ({case}), garbler");
            assert_eq!(eo.stdout, want, "{name} ({case}), evaluator");
        }
    }
    let g = ["example", "auction", "--role", "garbler", "--input", "500"];
    let e = [
        "example",
        "auction",
        "--role",
        "evaluator",
        "--input",
        "4ff",
        "--garbling",
        "three-halves",
    ];
    let (go, eo) = pair(&g, &e);
    for (who, out) in [("garbler", go), ("evaluator", eo)] {
        out.assert_error(who, &["garbling scheme differs", "half-gates", "three-halves"]);
    }
}
