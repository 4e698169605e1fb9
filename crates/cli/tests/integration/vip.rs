//! `mixgc vip`: VIP-Bench workloads between two processes over TCP, compared with the
//! plaintext models; JSON errors; `--report`.

use super::common;

use common::*;
use mixgc_program::vip::Workload;
use rand::Rng;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// Runs `name` between a listening garbler and a connecting evaluator on the given JSON
/// files' contents, with `extra` flags for both; returns (garbler, evaluator) outputs.
fn vip_pair(name: &str, garbler: &Value, evaluator: &Value, extra: &[&str]) -> (Output, Output) {
    let tag = format!("{name}-{}", rand::thread_rng().gen::<u32>());
    let g = TempFile::new(&format!("vip-{tag}-g.json"), garbler.to_string().as_bytes());
    let e = TempFile::new(&format!("vip-{tag}-e.json"), evaluator.to_string().as_bytes());
    let mut g_args = vec!["vip", name, "--role", "garbler", "--input-file", g.path()];
    let mut e_args = vec!["vip", name, "--role", "evaluator", "--input-file", e.path()];
    g_args.extend(extra);
    e_args.extend(extra);
    pair(&g_args, &e_args)
}

/// The output line a learning party must print, from the model (value, hash over LE words).
fn expected_line(w: Workload, g: &[u32], e: &[u32], value: impl Fn(&[u32]) -> Value) -> Value {
    let words = w.model(g, e).unwrap();
    let mut h = Sha256::new();
    for x in &words {
        h.update(x.to_le_bytes());
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    json!({"benchmark": w.name(), "output": value(&words), "output_sha256": hex})
}

fn printed(out: &Output) -> Value {
    out.assert_ok("vip party");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one JSON line: {out:#?}");
    serde_json::from_str(lines[0]).expect("the line is JSON")
}

fn ints(words: &[u32]) -> Value {
    json!(words.iter().map(|&x| x as i32).collect::<Vec<_>>())
}

#[test]
fn dotprod_edge_and_random_inputs_between_two_processes() {
    // INT32_MIN, −1, 0, INT32_MAX and products that wrap around.
    let edges = [0x8000_0000u32, u32::MAX, 0, 0x7FFF_FFFF, 0x0001_0000, 0xFFFF_0000];
    let a: Vec<u32> = (0..128).map(|i| edges[i % edges.len()]).collect();
    let mut rng = rand::thread_rng();
    let b: Vec<u32> = (0..128)
        .map(|i| {
            if i < 64 {
                edges[(i + 1) % edges.len()]
            } else {
                rng.gen()
            }
        })
        .collect();
    let (g, e) = vip_pair("dotprod", &json!({"a": ints(&a)}), &json!({"b": ints(&b)}), &[]);
    let want = expected_line(Workload::DotProd, &a, &b, |w| json!(w[0] as i32));
    assert_eq!(printed(&g), want);
    assert_eq!(printed(&e), want);
}

#[test]
fn matmult_random_inputs_between_two_processes_revealed_to_the_evaluator() {
    let mut rng = rand::thread_rng();
    let a: Vec<u32> = (0..64).map(|_| rng.gen()).collect();
    let mut b: Vec<u32> = (0..64).map(|_| rng.gen()).collect();
    b[0] = 0x8000_0000;
    b[9] = u32::MAX;
    let rows = |v: &[u32]| json!(v.chunks(8).map(ints).collect::<Vec<_>>());
    let (g, e) = vip_pair(
        "matmult",
        &json!({"a": rows(&a)}),
        &json!({"b": rows(&b)}),
        &["--reveal", "evaluator"],
    );
    g.assert_ok("garbler");
    assert!(g.stdout.is_empty(), "the garbler learns nothing: {g:#?}");
    let want = expected_line(Workload::MatMult, &a, &b, |w| rows(w));
    assert_eq!(printed(&e), want);
}

#[test]
fn merse_seed_42_between_two_processes() {
    let (g, e) = vip_pair("merse", &json!({"seed": 42}), &json!({}), &[]);
    let want = expected_line(Workload::Merse, &[42], &[], |w| json!(w));
    let got = printed(&g);
    assert_eq!(got, want);
    assert_eq!(got["output"][0], 4_179_544_424u64);
    assert_eq!(got["output"][1], 615_236_124u64);
    assert_eq!(got["output"][2], 4_165_290_828u64);
    assert_eq!(printed(&e), want);
}

#[test]
fn hamm_and_relu_random_files_between_two_processes() {
    let dir = std::env::temp_dir().join(format!("mixgc-vip-random-{}", std::process::id()));
    let d = dir.to_str().unwrap();
    for name in ["hamm", "relu"] {
        run1(&["vip", name, "--random-inputs", d]).assert_ok("random inputs");
        let file = |what: &str| format!("{d}/{name}.{what}.json");
        let (g_file, e_file) = (file("garbler"), file("evaluator"));
        let (g, e) = pair(
            &["vip", name, "--role", "garbler", "--input-file", &g_file],
            &["vip", name, "--role", "evaluator", "--input-file", &e_file],
        );
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(file("expected")).unwrap()).unwrap();
        assert_eq!(printed(&g), expected, "{name}");
        assert_eq!(printed(&e), expected, "{name}");
    }
    // The expected file is the model's: check it independently for relu.
    let read = |what: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(format!("{d}/relu.{what}.json")).unwrap()).unwrap()
    };
    let words = |v: &Value| -> Vec<u32> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_i64().unwrap() as u32)
            .collect()
    };
    let (lo, hi) = (words(&read("garbler")["x_lo"]), words(&read("evaluator")["x_hi"]));
    let relu: Vec<i64> = lo.iter().chain(&hi).map(|&x| (x as i32).max(0) as i64).collect();
    assert_eq!(read("expected")["output"], json!(relu));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_input_files_are_clear_errors_naming_the_key() {
    let cases: [(&str, &str, &[&str]); 5] = [
        ("dotprod", "{\"a\": [1, 2, 3]}", &["\"a\"", "128 entries, got 3"]),
        ("dotprod", "{\"b\": []}", &["unknown key \"b\""]),
        (
            "triangle",
            "{\"rows_0_6\": [[1]]}",
            &["\"rows_0_6\"", "7 entries"],
        ),
        ("merse", "{\"seed\": \"42\"}", &["\"seed\"", "[0, 2^32)"]),
        ("relu", "not json", &["not valid JSON"]),
    ];
    for (name, text, needles) in cases {
        let f = TempFile::new(&format!("vip-bad-{name}.json"), text.as_bytes());
        run1(&[
            "vip",
            name,
            "--role",
            "garbler",
            "--listen",
            "127.0.0.1:0",
            "--input-file",
            f.path(),
        ])
        .assert_error(name, needles);
    }
    let bad_float = json!({"x": vec![json!({"f32_bits": "zz"}); 8]}).to_string();
    let f = TempFile::new("vip-bad-graddesc.json", bad_float.as_bytes());
    run1(&[
        "vip",
        "graddesc",
        "--role",
        "evaluator",
        "--connect",
        "127.0.0.1:9",
        "--input-file",
        f.path(),
    ])
    .assert_error("graddesc", &["\"x\": entry 0", "8 hex digits"]);
    run1(&["vip", "nope", "--report"]).assert_error("unknown", &["unknown VIP-Bench workload `nope`"]);
}

#[test]
fn report_lists_counts_beside_haac_table_2() {
    let out = run1(&["vip", "all", "--report"]);
    out.assert_ok("report");
    for w in Workload::ALL {
        let line = out
            .stdout
            .lines()
            .find(|l| l.starts_with(w.name()))
            .expect("a line per workload");
        let ands = w.cost().unwrap().ands.to_string();
        assert!(line.contains(&ands), "{line}");
        assert!(line.contains(&format!("{}k", w.haac().kilo_gates)), "{line}");
    }
}

#[test]
fn bubbst_and_triangle_edge_inputs_between_two_processes() {
    // Sorting: INT32_MIN, −1, 0, INT32_MAX, duplicates and random values across both halves.
    let mut rng = rand::thread_rng();
    let edges = [0x8000_0000u32, u32::MAX, 0, 0x7FFF_FFFF, 1, 0x8000_0000];
    let lo: Vec<u32> = (0..128)
        .map(|i| if i % 3 == 0 { edges[i % 6] } else { rng.gen() })
        .collect();
    let hi: Vec<u32> = (0..128)
        .map(|i| if i % 2 == 0 { edges[(i + 1) % 6] } else { rng.gen() })
        .collect();
    let (g, e) = vip_pair(
        "bubbst",
        &json!({"data_lo": ints(&lo)}),
        &json!({"data_hi": ints(&hi)}),
        &[],
    );
    let want = expected_line(Workload::BubbSt, &lo, &hi, ints);
    assert_eq!(printed(&g), want);
    assert_eq!(printed(&e), want);

    // Triangle: large entries so that A³'s products and trace wrap around, and a negative
    // trace that must divide toward zero.
    let a: Vec<u32> = (0..169)
        .map(|i| match i % 4 {
            0 => 0x8000_0000,
            1 => u32::MAX,
            2 => rng.gen(),
            _ => 0x7FFF_FFFF,
        })
        .collect();
    let rows = |v: &[u32]| json!(v.chunks(13).map(ints).collect::<Vec<_>>());
    let (g, e) = vip_pair(
        "triangle",
        &json!({"rows_0_6": rows(&a[..91])}),
        &json!({"rows_7_12": rows(&a[91..])}),
        &[],
    );
    let want = expected_line(Workload::Triangle, &a[..91], &a[91..], |w| json!(w[0] as i32));
    assert_eq!(printed(&g), want);
    assert_eq!(printed(&e), want);
}

#[test]
fn graddesc_between_two_processes() {
    let f = |v: f32| json!({"f32_bits": format!("{:08x}", v.to_bits())});
    let xs = [-3.5f32, -1.0, 0.0, 0.5, 1.25, 2.0, 4.0, 7.5];
    let ys: Vec<f32> = xs.iter().map(|x| 3.0 * x + 2.0).collect();
    // An edge point: a subnormal x.
    let mut x_bits: Vec<u32> = xs.iter().map(|v| v.to_bits()).collect();
    x_bits[2] = 1;
    let y_bits: Vec<u32> = ys.iter().map(|v| v.to_bits()).collect();
    let garbler = json!({"y": ys.iter().map(|&v| f(v)).collect::<Vec<_>>()});
    let evaluator = json!({"x": x_bits.iter().map(|&b| f(f32::from_bits(b))).collect::<Vec<_>>()});
    let (g, e) = vip_pair("graddesc", &garbler, &evaluator, &[]);
    let want = expected_line(Workload::GradDesc, &y_bits, &x_bits, |w| {
        json!(w
            .iter()
            .map(|&b| json!({"f32_bits": format!("{b:08x}")}))
            .collect::<Vec<_>>())
    });
    assert_eq!(printed(&g), want);
    assert_eq!(printed(&e), want);
    // The descent moved toward w = 3, b = 2 (L = 0.001, 20 rounds: a small step).
    let w = f32::from_bits(u32::from_str_radix(want["output"][0]["f32_bits"].as_str().unwrap(), 16).unwrap());
    assert!(w > 0.0 && w < 3.0, "{w}");
}
