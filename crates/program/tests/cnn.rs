//! The quantized LeNet-5 of `models/`: the Rust reference against the training script's
//! predictions, every realization on the plaintext backend against the reference, the
//! planner, and the refusals of malformed models and images.

use mixgc_program::cnn::{self, npy, Arch, Arith, CnnError, Realization, Reveal, Weights};
use mixgc_program::{Ctx, Plain};

fn models() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models")
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(models().join(name)).unwrap()
}

fn lenet() -> (Arch, Weights) {
    let arch = Arch::parse(&read("lenet5.arch.json")).unwrap();
    let weights = Weights::parse(&read("lenet5.weights.json"), &arch).unwrap();
    (arch, weights)
}

fn test_images() -> Vec<Vec<u8>> {
    let (shape, data) = npy::parse_u8(&read("mnist_test_100.npy")).unwrap();
    assert_eq!(shape, [100, 28, 28]);
    data.chunks(784).map(<[u8]>::to_vec).collect()
}

#[test]
fn reference_equals_the_training_scripts_quantized_network() {
    let (arch, weights) = lenet();
    let expected: serde_json::Value = serde_json::from_slice(&read("mnist_test_100_expected.json")).unwrap();
    let mut correct = 0;
    for (i, image) in test_images().iter().enumerate() {
        let logits = cnn::reference::logits(&arch, &weights, image).unwrap();
        let want: Vec<i64> = serde_json::from_value(expected["logits"][i].clone()).unwrap();
        assert_eq!(logits, want, "image {i}");
        let class = cnn::reference::argmax(&logits);
        assert_eq!(
            class as u64,
            expected["classes"][i].as_u64().unwrap(),
            "image {i}"
        );
        correct += usize::from(class as u64 == expected["labels"][i].as_u64().unwrap());
    }
    // The script's held-out accuracy is 95 %; the first 100 images are in the same range.
    assert!(correct >= 90, "{correct}/100 correct");
}

#[test]
fn every_realization_in_plaintext_equals_the_reference() {
    let (arch, weights) = lenet();
    let images = test_images();
    let n = arch.linear().count();
    let mixed_plan: Vec<Arith> = (0..n)
        .map(|i| if i % 2 == 0 { Arith::Crt } else { Arith::Boolean })
        .collect();
    for plan in [vec![Arith::Boolean; n], vec![Arith::Crt; n], mixed_plan] {
        for (i, image) in images.iter().enumerate().take(4) {
            let want = cnn::reference::logits(&arch, &weights, image).unwrap();
            let ctx = Ctx::new(Plain::default());
            let got = cnn::infer(
                &ctx,
                &arch,
                &plan,
                Some(image),
                Some(&weights),
                Reveal::Logits,
                |_| (),
            )
            .unwrap()
            .unwrap();
            assert_eq!(got.logits.as_deref(), Some(&want[..]), "image {i}, plan {plan:?}");
            let ctx = Ctx::new(Plain::default());
            let got = cnn::infer(
                &ctx,
                &arch,
                &plan,
                Some(image),
                Some(&weights),
                Reveal::Class,
                |_| (),
            )
            .unwrap()
            .unwrap();
            assert_eq!(
                got.class,
                cnn::reference::argmax(&want),
                "image {i}, plan {plan:?}"
            );
        }
    }
}

#[test]
fn planner_picks_the_faster_arithmetic_per_layer() {
    let (arch, _) = lenet();
    let costs = cnn::layer_costs(&arch).unwrap();
    let plan = cnn::plan(&arch, Realization::Planned).unwrap();
    assert_eq!(costs.len(), plan.len());
    let times = cnn::UnitTimes::default();
    for (c, a) in costs.iter().zip(&plan) {
        // CRT layers always send fewer bytes here; the planner weighs time, not bytes.
        assert!(
            c.boolean_bytes > 0 && c.crt_bytes > 0 && c.crt_bytes < c.boolean_bytes,
            "{c:?}"
        );
        let (boolean, crt) = c.seconds(&times);
        let faster = if crt < boolean { Arith::Crt } else { Arith::Boolean };
        assert_eq!(*a, faster, "{c:?}");
    }
    let total = |p: &[Arith]| times.plan_seconds(&costs, p);
    let planned = total(&plan);
    for r in [Realization::Boolean, Realization::Mixed] {
        assert!(planned <= total(&cnn::plan(&arch, r).unwrap()) * 1.0001, "{r:?}");
    }
}

/// The architecture text with `from` replaced by `to` (which must occur).
fn edited(from: &str, to: &str) -> Vec<u8> {
    let text = String::from_utf8(read("lenet5.arch.json")).unwrap();
    assert!(text.contains(from), "{from}");
    text.replacen(from, to, 1).into_bytes()
}

#[test]
fn malformed_architectures_are_refused_with_their_reason() {
    let err = |b: &[u8]| Arch::parse(b).unwrap_err().to_string();
    assert!(err(b"{").contains("not a mixgc-cnn-1 JSON"));
    assert!(err(&edited("mixgc-cnn-1", "mixgc-cnn-9")).contains("format"));
    assert!(err(&edited("\"in_channels\": 6", "\"in_channels\": 5")).contains("in_channels is 5"));
    assert!(err(&edited("\"out_channels\": 16", "\"out_channels\": 100000")).contains("out_channels"));
    assert!(err(&edited("\"kernel\": 5", "\"kernel\": 99")).contains("kernel"));
    assert!(err(&edited("\"inputs\": 256", "\"inputs\": 255")).contains("inputs is 255"));
    assert!(err(&edited("\"weight_bits\": 4", "\"weight_bits\": 64")).contains("weight_bits"));
    assert!(err(&edited("\"relu\": false", "\"relu\": true")).contains("shift"));
    assert!(err(&edited("\"argmax\"", "\"softmax\"")).contains("argmax"));
    assert!(err(&edited("\"type\": \"maxpool\"", "\"type\": \"avgpool\"")).contains("layer 1"));
    assert!(err(&vec![b' '; (1 << 20) + 1]).contains("more than"));
}

#[test]
fn weights_must_belong_to_the_architecture_and_fit_its_widths() {
    let (arch, weights) = lenet();
    let text = String::from_utf8(read("lenet5.weights.json")).unwrap();
    let err = |b: &[u8], a: &Arch| Weights::parse(b, a).unwrap_err().to_string();
    // Another architecture (one width changed): the hash differs.
    let other = Arch::parse(&edited("\"acc_bits\": 9", "\"acc_bits\": 10")).unwrap();
    assert!(err(text.as_bytes(), &other).contains("SHA-256"));
    assert!(err(b"[1,2", &arch).contains("not a mixgc-weights-1"));
    let check = |w: &Weights| w.check(&arch).unwrap_err().to_string();
    let mut w = weights.clone();
    w.layers[0].weights.pop();
    assert!(check(&w).contains("layer 0 has 149 weights"));
    let mut w = weights.clone();
    w.layers[1].weights[0] = 8;
    assert!(check(&w).contains("does not fit 4 signed bits"));
    let mut w = weights.clone();
    w.layers[0].bias[0] = 1 << 20;
    assert!(check(&w).contains("beyond 9 signed bits"));
    let mut w = weights;
    w.layers.pop();
    assert!(check(&w).contains("4 layers of weights"));
}

#[test]
fn images_of_the_wrong_size_are_refused() {
    let (arch, weights) = lenet();
    let e = cnn::reference::logits(&arch, &weights, &[0; 783]).unwrap_err();
    assert!(matches!(e, CnnError::Image(_)), "{e}");
    assert!(e.to_string().contains("783 pixels"));
    let ctx = Ctx::new(Plain::default());
    let e = cnn::infer(
        &ctx,
        &arch,
        &[Arith::Crt; 5],
        Some(&[0; 10]),
        Some(&weights),
        Reveal::Class,
        |_| (),
    );
    assert!(e.unwrap_err().to_string().contains("10 pixels"));
    let ctx = Ctx::new(Plain::default());
    let e = cnn::infer(
        &ctx,
        &arch,
        &[Arith::Crt; 4],
        Some(&[0; 784]),
        Some(&weights),
        Reveal::Class,
        |_| (),
    );
    assert!(e.unwrap_err().to_string().contains("plan names 4"));
}
