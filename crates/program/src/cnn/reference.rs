//! The quantized network in the clear, on integers: the function every two-party
//! realization computes (see the [`super::model`] docs), and the reference they are tested
//! against.

use super::model::{quantize_image, Arch, CnnError, Layer, Weights};

/// The logits of `image` (8-bit pixels, channel-major).
pub fn logits(arch: &Arch, weights: &Weights, image: &[u8]) -> Result<Vec<i64>, CnnError> {
    weights.check(arch)?;
    let mut a: Vec<i64> = quantize_image(arch, image)?
        .into_iter()
        .map(|v| v as i64)
        .collect();
    let mut linear = weights.layers.iter();
    for layer in &arch.layers {
        a = match layer {
            Layer::Linear(l) => {
                let w = linear.next().expect("checked: one entry per linear layer");
                (0..l.output.len())
                    .map(|o| {
                        let (f, taps) = l.taps(o);
                        let acc = taps.fold(w.bias[f], |acc, (i, k)| acc + a[i] * w.weights[k]);
                        match l.requant {
                            Some(r) => (acc.max(0) >> r.shift).min((1 << r.out_bits) - 1),
                            None => acc,
                        }
                    })
                    .collect()
            }
            Layer::MaxPool { size, input, .. } => {
                let (h, w) = (input.height / size, input.width / size);
                (0..input.channels * h * w)
                    .map(|o| {
                        let (c, r, col) = (o / (h * w), o / w % h, o % w);
                        (0..size * size)
                            .map(|t| {
                                a[(c * input.height + r * size + t / size) * input.width
                                    + col * size
                                    + t % size]
                            })
                            .max()
                            .expect("a window has values")
                    })
                    .collect()
            }
        };
    }
    Ok(a)
}

/// The first index of the largest logit.
pub fn argmax(logits: &[i64]) -> usize {
    logits
        .iter()
        .enumerate()
        .fold(0, |best, (i, &v)| if v > logits[best] { i } else { best })
}

/// The class of `image`.
pub fn classify(arch: &Arch, weights: &Weights, image: &[u8]) -> Result<usize, CnnError> {
    Ok(argmax(&logits(arch, weights, image)?))
}
