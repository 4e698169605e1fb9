//! Private CNN inference in two-party runs equals the quantized plaintext network: a
//! LeNet-5 with 4× fewer channels (same layer types and code path as `models/lenet5`) on the
//! 100 committed held-out images, all in one session per plan, the weights the garbler's
//! and the images the evaluator's; the full LeNet-5 runs in `mixgc demo infer` and the CLI
//! tests.

use mixgc_net::memory_pair;
use mixgc_program::cnn::{self, npy, Arch, Arith, LayerWeights, Reveal, Weights};
use rand::{Rng, SeedableRng};

use super::common;

use common::{evaluate, garble, run};

/// LeNet-5 with channels divided by 4 (rounded up): 2, 4, then dense 64 → 30 → 21 → 10,
/// random weights of the full model's widths, accumulator widths from the weights' bounds,
/// and each shift calibrated (as the training script does) on a few test images so that
/// activations spread over their bits.
fn small_lenet(seed: u64, images: &[Vec<u8>], narrow: bool) -> (Arch, Weights) {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    // (kind, in, out, fan_in, weight_bits, in_bits, out_bits): the committed model's widths,
    // or narrow ones (2-bit weights and activations, 1-bit pixels) for the 100-image batch.
    let layers = if narrow {
        [
            ("conv", 1, 2, 25, 2, 1, Some(2)),
            ("conv", 2, 4, 50, 2, 2, Some(2)),
            ("dense", 64, 30, 64, 2, 2, Some(2)),
            ("dense", 30, 21, 30, 2, 2, Some(2)),
            ("dense", 21, 10, 21, 3, 2, None),
        ]
    } else {
        [
            ("conv", 1, 2, 25, 4, 2, Some(4)),
            ("conv", 2, 4, 50, 4, 4, Some(6)),
            ("dense", 64, 30, 64, 5, 6, Some(5)),
            ("dense", 30, 21, 30, 3, 5, Some(5)),
            ("dense", 21, 10, 21, 5, 5, None),
        ]
    };
    let input_bits = layers[0].5;
    let mut json: Vec<String> = Vec::new();
    let mut weights = Vec::new();
    let mut arch = None;
    for (n, &(kind, inputs, outputs, fan_in, wb, in_bits, out_bits)) in layers.iter().enumerate() {
        let limit = 1i64 << (wb - 1);
        // Hidden layers lean positive so that activations survive four ReLUs.
        let low = if out_bits.is_some() { -limit / 2 } else { -limit };
        let w: Vec<i64> = (0..outputs * fan_in).map(|_| rng.gen_range(low..limit)).collect();
        let b: Vec<i64> = (0..outputs).map(|_| rng.gen_range(-8..8)).collect();
        let amax = (1i64 << in_bits) - 1;
        let bound = w
            .chunks(fan_in)
            .zip(&b)
            .map(|(row, b)| b.abs() + row.iter().map(|v| v.abs() * amax).sum::<i64>())
            .max()
            .unwrap();
        let acc_bits = 64 - bound.leading_zeros() + 1;
        let shape = if kind == "conv" {
            format!(
                "\"type\": \"conv\", \"in_channels\": {inputs}, \"out_channels\": {outputs}, \"kernel\": 5"
            )
        } else {
            format!("\"type\": \"dense\", \"inputs\": {inputs}, \"outputs\": {outputs}")
        };
        let head = format!("{{{shape}, \"weight_bits\": {wb}, \"acc_bits\": {acc_bits}, ");
        weights.push(LayerWeights { weights: w, bias: b });
        // This layer as the last one: its accumulators are the "logits".
        json.push(format!("{head}\"relu\": false}}"));
        let truncated = parse(&json, input_bits);
        let tail = match out_bits {
            Some(ob) => {
                let w = Weights {
                    layers: weights.clone(),
                };
                let mut accs: Vec<i64> = images
                    .iter()
                    .take(8)
                    .flat_map(|im| cnn::reference::logits(&truncated, &w, im).unwrap())
                    .filter(|&v| v > 0)
                    .collect();
                accs.sort_unstable();
                let top = accs.get(accs.len() * 9 / 10).copied().unwrap_or(1);
                let shift = (64 - top.leading_zeros()).saturating_sub(ob);
                format!("\"relu\": true, \"shift\": {shift}, \"out_bits\": {ob}}}")
            }
            None => {
                arch = Some(truncated);
                break;
            }
        };
        json.pop();
        json.push(format!("{head}{tail}"));
        if n < 2 {
            json.push("{\"type\": \"maxpool\", \"size\": 2}".into());
        }
    }
    let arch = arch.unwrap();
    let weights = Weights { layers: weights };
    weights.check(&arch).unwrap();
    (arch, weights)
}

fn parse(layers: &[String], input_bits: u32) -> Arch {
    let text = format!(
        "{{\"format\": \"mixgc-cnn-1\", \"name\": \"lenet5-quarter\", \
         \"input\": {{\"channels\": 1, \"height\": 28, \"width\": 28, \"bits\": {input_bits}}}, \
         \"layers\": [{}], \"output\": \"argmax\"}}",
        layers.join(", ")
    );
    Arch::parse(text.as_bytes()).unwrap()
}

fn test_images() -> Vec<Vec<u8>> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../models/mnist_test_100.npy");
    let (shape, data) = npy::parse_u8(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(shape, [100, 28, 28]);
    data.chunks(784).map(<[u8]>::to_vec).collect()
}

/// Runs `images` through the network in one session (one program), the evaluator learning
/// each image's result; checks every result against the plaintext network.
fn check_two_party(arch: &Arch, weights: &Weights, plan: &[Arith], images: &[Vec<u8>], reveal: Reveal) {
    let name = format!("cnn test plan={}", cnn::plan_name(plan));
    let (g, e) = run(
        memory_pair(),
        |s| {
            garble(s, &name, |ctx| {
                for _ in images {
                    let learned = cnn::infer(ctx, arch, plan, None, Some(weights), reveal, |_| ())
                        .map_err(|e| mixgc_program::ProgramError::OutOfRange(e.to_string()))?;
                    assert!(learned.is_none(), "the garbler learns nothing");
                }
                Ok(())
            })
        },
        |s| {
            evaluate(s, &name, |ctx| {
                images
                    .iter()
                    .map(|im| {
                        cnn::infer(ctx, arch, plan, Some(im), None, reveal, |_| ())
                            .map_err(|e| mixgc_program::ProgramError::OutOfRange(e.to_string()))
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
        },
    );
    g.unwrap();
    let learned = e.unwrap();
    let mut classes = std::collections::BTreeSet::new();
    let mut distinct = std::collections::BTreeSet::new();
    for (i, (im, got)) in images.iter().zip(learned).enumerate() {
        let got = got.expect("the evaluator learns the result");
        let want = cnn::reference::logits(arch, weights, im).unwrap();
        classes.insert(got.class);
        assert_eq!(
            got.class,
            cnn::reference::argmax(&want),
            "image {i}, plan {plan:?}"
        );
        distinct.insert(want.clone());
        if reveal == Reveal::Logits {
            assert_eq!(got.logits.as_deref(), Some(&want[..]), "image {i}, plan {plan:?}");
        }
    }
    // The random network is not constant on the test images (the check is not vacuous).
    assert!(distinct.len() > 1, "every image gives the same logits");
    assert!(classes.len() > 1 || images.len() < 50, "{classes:?}");
}

#[test]
fn two_party_equals_the_plaintext_network_on_100_images() {
    let images = test_images();
    let (arch, weights) = small_lenet(1, &images, true);
    // The planner's choice (what `mixgc infer` runs by default), then a plan that mixes:
    // Boolean for the first convolution, CRT after it.
    let planned = cnn::plan(&arch, cnn::Realization::Planned).unwrap();
    check_two_party(&arch, &weights, &planned, &images[..50], Reveal::Logits);
    let mut mixed = vec![Arith::Crt; 5];
    mixed[0] = Arith::Boolean;
    check_two_party(&arch, &weights, &mixed, &images[50..], Reveal::Class);
}

#[test]
fn all_boolean_and_all_crt_equal_the_plaintext_network() {
    let images = test_images();
    let (arch, weights) = small_lenet(2, &images, false);
    check_two_party(
        &arch,
        &weights,
        &[Arith::Boolean; 5],
        &images[..4],
        Reveal::Logits,
    );
    check_two_party(&arch, &weights, &[Arith::Crt; 5], &images[8..12], Reveal::Logits);
    let alternating = [Arith::Crt, Arith::Boolean, Arith::Crt, Arith::Boolean, Arith::Crt];
    check_two_party(&arch, &weights, &alternating, &images[4..8], Reveal::Class);
    // Edge images: all black, all white, a checkerboard.
    let edges = vec![
        vec![0u8; 784],
        vec![255u8; 784],
        (0..784).map(|i| if i % 2 == 0 { 255 } else { 0 }).collect(),
    ];
    check_two_party(
        &arch,
        &weights,
        &[
            Arith::Crt,
            Arith::Crt,
            Arith::Boolean,
            Arith::Boolean,
            Arith::Boolean,
        ],
        &edges,
        Reveal::Logits,
    );
}
