//! `mixgc infer` as two processes over TCP on the committed LeNet-5: the class and the
//! logits equal the training script's quantized predictions; PNG and .npy images; every
//! bad input and every disagreement between the parties is a clear error on both sides.

use super::common;

use std::time::{Duration, Instant};

use common::{run1, spawn, Output, TempFile};

/// The listener and the connector as two processes; a whole LeNet-5 may take a while on a
/// loaded machine, so the deadline is longer than `common::pair`'s.
fn pair(listener: &[&str], connector: &[&str]) -> (Output, Output) {
    let deadline = Instant::now() + Duration::from_secs(180);
    let mut l_args = listener.to_vec();
    l_args.extend(["--listen", "127.0.0.1:0"]);
    let mut l = spawn(&l_args);
    let addr = l.listening_addr();
    let mut c_args = connector.to_vec();
    c_args.extend(["--connect", &addr]);
    let c = spawn(&c_args);
    let c_out = c.finish(deadline);
    (l.finish(deadline), c_out)
}

fn model(name: &str) -> String {
    format!("{}/../../models/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn expected() -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(model("mnist_test_100_expected.json")).unwrap()).unwrap()
}

/// Held-out image `i`: 784 pixels.
fn image(i: usize) -> Vec<u8> {
    let bytes = std::fs::read(model("mnist_test_100.npy")).unwrap();
    let data = &bytes[bytes.len() - 100 * 784..];
    data[i * 784..(i + 1) * 784].to_vec()
}

/// A uint8 .npy file of `shape` over `data`.
fn npy(shape: &str, data: &[u8]) -> Vec<u8> {
    let mut header = format!("{{'descr': '|u1', 'fortran_order': False, 'shape': {shape}, }}");
    while (header.len() + 11) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut v = b"\x93NUMPY\x01\x00".to_vec();
    v.extend((header.len() as u16).to_le_bytes());
    v.extend(header.as_bytes());
    v.extend(data);
    v
}

/// A PNG of `side`×`side` pixels of `color`.
fn png(side: u32, color: png::ColorType, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut e = png::Encoder::new(&mut out, side, side);
    e.set_color(color);
    e.set_depth(png::BitDepth::Eight);
    let mut w = e.write_header().unwrap();
    w.write_image_data(data).unwrap();
    w.finish().unwrap();
    out
}

fn garbler(extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "infer",
        "--arch",
        &model("lenet5.arch.json"),
        "--weights",
        &model("lenet5.weights.json"),
        "--role",
        "garbler",
        "--timeout",
        "60",
    ]
    .map(String::from)
    .to_vec();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn evaluator(arch: &str, image: &str, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "infer",
        "--arch",
        arch,
        "--image",
        image,
        "--role",
        "evaluator",
        "--timeout",
        "60",
    ]
    .map(String::from)
    .to_vec();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn two_processes_reveal_the_logits_of_an_npy_image() {
    let i = 3;
    let file = TempFile::new("infer-3.npy", &npy("(28, 28)", &image(i)));
    let (g, e) = pair(
        &strs(&garbler(&["--logits", "--realization", "mixed"])),
        &strs(&evaluator(
            &model("lenet5.arch.json"),
            file.path(),
            &["--logits", "--realization", "mixed"],
        )),
    );
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    let want: Vec<String> = expected()["logits"][i]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.to_string())
        .collect();
    assert_eq!(e.stdout.lines().collect::<Vec<_>>(), want);
    assert!(g.stdout.is_empty(), "the garbler learns nothing: {g:#?}");
    for (out, role) in [(&g, "garbler"), (&e, "evaluator")] {
        assert!(
            out.stderr.contains("plan (mixed): crt,crt,crt,crt,crt"),
            "{out:#?}"
        );
        assert!(
            out.stderr.contains(&format!("{role}: ")) && out.stderr.contains("peak RSS"),
            "{out:#?}"
        );
    }
}

#[test]
fn two_processes_classify_a_png_image_with_the_planned_realization() {
    let i = 7;
    let file = TempFile::new("infer-7.png", &png(28, png::ColorType::Grayscale, &image(i)));
    let (g, e) = pair(
        &strs(&garbler(&[])),
        &strs(&evaluator(&model("lenet5.arch.json"), file.path(), &[])),
    );
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert_eq!(e.stdout, format!("{}\n", expected()["classes"][i]));
    assert!(
        e.stderr.contains("plan (planned)") && e.stderr.contains("counted: boolean"),
        "{e:#?}"
    );
}

#[test]
fn a_different_architecture_or_realization_stops_both_parties_at_the_handshake() {
    let image = TempFile::new("infer-0.npy", &npy("(784,)", &image(0)));
    let text = std::fs::read_to_string(model("lenet5.arch.json")).unwrap();
    let other = TempFile::new(
        "other.arch.json",
        text.replacen("\"shift\": 3", "\"shift\": 4", 1).as_bytes(),
    );
    let (g, e) = pair(
        &strs(&garbler(&[])),
        &strs(&evaluator(other.path(), image.path(), &[])),
    );
    g.assert_error("garbler", &["arch: ours sha256:"]);
    e.assert_error("evaluator", &["arch: ours sha256:"]);
    let (g, e) = pair(
        &strs(&garbler(&["--realization", "boolean"])),
        &strs(&evaluator(
            &model("lenet5.arch.json"),
            image.path(),
            &["--realization", "mixed"],
        )),
    );
    g.assert_error("garbler", &["realization: ours boolean, the peer's mixed"]);
    e.assert_error("evaluator", &["realization: ours mixed, the peer's boolean"]);
}

#[test]
fn bad_local_inputs_are_refused_before_connecting() {
    let arch = model("lenet5.arch.json");
    let listen = ["--listen", "127.0.0.1:0"];
    let with = |mut v: Vec<String>| {
        v.extend(listen.map(String::from));
        run1(&strs(&v))
    };
    // The garbler without weights.
    with(
        ["infer", "--arch", &arch, "--role", "garbler"]
            .map(String::from)
            .to_vec(),
    )
    .assert_error("no weights", &["garbler (server) needs the weights"]);
    // The evaluator without an image, and with the garbler's weights.
    with(
        ["infer", "--arch", &arch, "--role", "evaluator"]
            .map(String::from)
            .to_vec(),
    )
    .assert_error("no image", &["needs an image"]);
    let w = model("lenet5.weights.json");
    let f = TempFile::new("infer-x.npy", &npy("(28, 28)", &image(0)));
    with(evaluator(&arch, f.path(), &["--weights", &w]))
        .assert_error("weights", &["--weights are the garbler's"]);
    // Images of the wrong size, type or format.
    let cases: [(&str, Vec<u8>, &[&str]); 5] = [
        (
            "small.npy",
            npy("(27, 27)", &[0; 729]),
            &["shape [27, 27]", "expected (28, 28)"],
        ),
        ("short.npy", npy("(28, 28)", &[0; 700]), &["needs 784 bytes"]),
        (
            "rgb.png",
            png(28, png::ColorType::Rgb, &[0; 784 * 3]),
            &["expected 8-bit grayscale"],
        ),
        (
            "big.png",
            png(32, png::ColorType::Grayscale, &[0; 1024]),
            &["32×32", "28×28"],
        ),
        ("text.txt", b"hello".to_vec(), &["neither a .npy file nor a PNG"]),
    ];
    for (name, bytes, needles) in cases {
        let f = TempFile::new(name, &bytes);
        with(evaluator(&arch, f.path(), &[])).assert_error(name, needles);
    }
    // A malformed architecture, and weights for another one.
    let bad = TempFile::new("bad.arch.json", br#"{"format": "mixgc-cnn-1", "layers": 5}"#);
    with(evaluator(bad.path(), f.path(), &[])).assert_error("bad arch", &["architecture", "bad.arch.json"]);
    let text = std::fs::read_to_string(&arch).unwrap();
    let other = TempFile::new(
        "other2.arch.json",
        text.replacen("\"shift\": 3", "\"shift\": 4", 1).as_bytes(),
    );
    with(
        [
            "infer",
            "--arch",
            other.path(),
            "--weights",
            &w,
            "--role",
            "garbler",
        ]
        .map(String::from)
        .to_vec(),
    )
    .assert_error("weights of another arch", &["weights", "SHA-256"]);
}
