//! The quantized network on any [`ArithBackend`]: in two-party runs the garbler (server)
//! holds the weights, the evaluator (client) the image, and only the evaluator learns the
//! class (or the logits). The same code runs on [`crate::Plain`] (it then equals
//! [`super::reference`]) and on [`crate::Counter`] (the planner's costs).
//!
//! Activations between layers are Boolean (unsigned, the layer's `out_bits`): ReLU,
//! requantization, max pooling and argmax run on bits (thesis §3.5.3's CNN library). Each
//! conv/dense layer runs in one of two arithmetics ([`Arith`], ABLE §6's per-layer choice):
//!
//! - **Boolean**: each product a·w, for an activation a = Σ_j 2^j·a_j, is the sum of the
//!   terms a_j·(w·2^j); a term's bits a_j·w_m are projections of a_j through a table the
//!   garbler fills with its weight bit (one row each: a garbler half gate, the weight never
//!   becomes a wire), and the terms are added by a tree of ripple-carry adders whose widths
//!   grow to `acc_bits`.
//! - **CRT**: the accumulator over Z_N, N ≥ 2^`acc_bits` the minimum-sum primes: per prime
//!   p, each term a_j·(w·2^j mod p) is one projection Z_2 → Z_p of a_j through the
//!   garbler's private table (BMR16's projection gates hide their tables; one row each), the
//!   bias folded into a table, and the sum is free. A bit decomposition (BD) brings the
//!   accumulator back to bits for the ReLU (ABLE's "smart convert": no BC back, the next
//!   layer consumes the bits directly).
//!
//! The evaluator's tables are never read (it decrypts the row its label selects), so it
//! passes zeros; so does the counter.

use crate::crt::{ArithBackend, Crt, PrimeSet};
use crate::gadgets::compress::weighted_sum;
use crate::value::{to_i128, to_u128, Ctx, SInt, UInt};
use crate::{Audience, PartyId};

use super::model::{quantize_image, Arch, CnnError, Layer, Linear, Requant, Weights};

/// The arithmetic of one conv/dense layer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arith {
    Boolean,
    Crt,
}

impl Arith {
    pub fn name(self) -> &'static str {
        match self {
            Arith::Boolean => "boolean",
            Arith::Crt => "crt",
        }
    }
}

/// What the evaluator learns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reveal {
    Class,
    Logits,
}

/// What the evaluator learned: the class, and the logits with [`Reveal::Logits`] (the class
/// is then their first maximum, computed in the clear).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inference {
    pub class: usize,
    pub logits: Option<Vec<i64>>,
}

/// The CRT primes of a layer: the minimum-sum set with N ≥ 2^`acc_bits`.
pub fn layer_primes(l: &Linear) -> Result<PrimeSet, CnnError> {
    mixgc_moduli::primes::min_sum_primes(l.acc_bits)
        .map_err(|e| CnnError::Arch(format!("no CRT primes for {} bits: {e}", l.acc_bits)))
}

/// Runs the network; `plan` has one [`Arith`] per conv/dense layer. The garbler passes
/// `weights`, the evaluator `image` (8-bit pixels, channel-major); plaintext runs pass both,
/// the counter neither. Returns what this party learns (the evaluator's [`Inference`]).
/// `after_layer(n)` is called after each conv/dense layer `n` (the planner reads costs there).
pub fn infer<B: ArithBackend>(
    ctx: &Ctx<B>,
    arch: &Arch,
    plan: &[Arith],
    image: Option<&[u8]>,
    weights: Option<&Weights>,
    reveal: Reveal,
    mut after_layer: impl FnMut(usize),
) -> Result<Option<Inference>, CnnError> {
    let linear_layers = arch.linear().count();
    if plan.len() != linear_layers {
        return Err(CnnError::Arch(format!(
            "the plan names {} layers, the network has {linear_layers} conv/dense layers",
            plan.len()
        )));
    }
    if let Some(w) = weights {
        w.check(arch)?;
    }
    let pixels = image.map(|im| quantize_image(arch, im)).transpose()?;
    let bits = arch.input_bits as usize;
    // Every pixel in one input (one batch of OTs), `bits` wires each, least significant first.
    let packed = pixels.map(|p| {
        p.iter()
            .flat_map(|v| (0..bits).map(move |j| v >> j & 1 == 1))
            .collect::<Vec<bool>>()
    });
    let width = (bits * arch.input.len()) as u32;
    let wires = ctx.with(|b| b.input(PartyId::EVALUATOR, width, packed.as_deref()))?;
    let mut acts: Vec<UInt<B>> = wires
        .chunks(bits)
        .map(|w| UInt::from_wires(ctx, w.to_vec()))
        .collect();
    let mut logits = Vec::new();
    let mut n = 0;
    for layer in &arch.layers {
        match layer {
            Layer::Linear(l) => {
                let w = weights.map(|w| &w.layers[n]);
                match l.requant {
                    Some(r) => acts = hidden(ctx, l, plan[n], r, &acts, w)?,
                    None => logits = output(ctx, l, plan[n], &acts, w)?,
                }
                after_layer(n);
                n += 1;
            }
            Layer::MaxPool { size, input, .. } => acts = maxpool(*size, input, &acts),
        }
    }
    let to = Audience::only(PartyId::EVALUATOR);
    match reveal {
        Reveal::Logits => {
            let values = logits
                .iter()
                .map(|l| Ok(l.reveal_to(to)?.map(|b| to_i128(&b) as i64)))
                .collect::<Result<Vec<_>, CnnError>>()?;
            let values: Option<Vec<i64>> = values.into_iter().collect();
            Ok(values.map(|v| Inference {
                class: super::reference::argmax(&v),
                logits: Some(v),
            }))
        }
        Reveal::Class => {
            let class = argmax(ctx, &logits);
            Ok(class.reveal_to(to)?.map(|b| Inference {
                class: to_u128(&b) as usize,
                logits: None,
            }))
        }
    }
}

/// The garbler's table for a product bit: `[table(0), table(1)]` where it knows the weight,
/// zeros elsewhere (the evaluator and the counter never read it).
fn private_table(known: bool, zero: u64, one: u64) -> [u64; 2] {
    if known {
        [zero, one]
    } else {
        [0, 0]
    }
}

/// A conv/dense layer, then ReLU and requantization to `r.out_bits` bits.
fn hidden<B: ArithBackend>(
    ctx: &Ctx<B>,
    l: &Linear,
    arith: Arith,
    r: Requant,
    acts: &[UInt<B>],
    w: Option<&super::model::LayerWeights>,
) -> Result<Vec<UInt<B>>, CnnError> {
    let set = layer_primes(l)?;
    let act_bits = act_bits(acts)?;
    let biases = bias_inputs(ctx, l, arith, act_bits, w)?;
    Ok((0..l.output.len())
        .map(|o| match arith {
            Arith::Boolean => {
                let acc = boolean_acc(ctx, l, o, acts, act_bits, w, &biases);
                let (sign, magnitude) = acc.wires().split_last().expect("acc_bits ≥ 2");
                requantize(ctx, *sign, magnitude, r)
            }
            Arith::Crt => {
                let x = crt_acc(ctx, l, o, acts, w, &set).to_uint();
                // x ∈ [0, N) is negative when x ≥ ⌈N/2⌉ (the offset convention).
                let n = set.product();
                let negative = !&x.less_than(&ctx.uint(x.width(), n - n / 2));
                requantize(ctx, negative.wire(), x.wires(), r)
            }
        })
        .collect())
}

/// The last layer: the logits as signed integers.
fn output<B: ArithBackend>(
    ctx: &Ctx<B>,
    l: &Linear,
    arith: Arith,
    acts: &[UInt<B>],
    w: Option<&super::model::LayerWeights>,
) -> Result<Vec<SInt<B>>, CnnError> {
    let set = layer_primes(l)?;
    let act_bits = act_bits(acts)?;
    let biases = bias_inputs(ctx, l, arith, act_bits, w)?;
    Ok((0..l.output.len())
        .map(|o| match arith {
            Arith::Boolean => boolean_acc(ctx, l, o, acts, act_bits, w, &biases),
            Arith::Crt => crt_acc(ctx, l, o, acts, w, &set).to_sint(),
        })
        .collect())
}

/// The common width of a layer's input activations (the sign correction of its Boolean
/// dot products counts every bit of every one).
fn act_bits<B: ArithBackend>(acts: &[UInt<B>]) -> Result<usize, CnnError> {
    let width = acts.first().map_or(0, |a| a.width() as usize);
    if acts.iter().any(|a| a.width() as usize != width) {
        return Err(CnnError::Arch(
            "a layer's input activations differ in width".into(),
        ));
    }
    Ok(width)
}

/// The garbler's biases of a Boolean layer, `acc_bits` each, as one input (none for CRT
/// layers, which fold them into their tables). Each carries the public correction of the
/// negative weight bits ([`sign_correction`]), so the correction costs no gates.
fn bias_inputs<B: ArithBackend>(
    ctx: &Ctx<B>,
    l: &Linear,
    arith: Arith,
    act_bits: usize,
    w: Option<&super::model::LayerWeights>,
) -> Result<Vec<SInt<B>>, CnnError> {
    if arith == Arith::Crt {
        return Ok(Vec::new());
    }
    let bits = l.acc_bits as usize;
    let correction = sign_correction(l, act_bits);
    let packed = w.map(|w| {
        w.bias
            .iter()
            .flat_map(|&b| {
                let v = i128::from(b).wrapping_add(correction);
                (0..bits).map(move |j| (v >> j) & 1 == 1)
            })
            .collect::<Vec<bool>>()
    });
    let width = (bits * l.output.channels) as u32;
    let wires = ctx.with(|b| b.input(PartyId::GARBLER, width, packed.as_deref()))?;
    Ok(wires
        .chunks(bits)
        .map(|w| SInt::from_wires(ctx, w.to_vec()))
        .collect())
}

/// The public constant of the Baugh–Wooley form of a dot product with signed weights:
/// the sign bit s of a weight of `weight_bits` = b bits weighs −2^(b−1), and the partial
/// product −a_j·s·2^(j+b−1) = ¬(a_j·s)·2^(j+b−1) − 2^(j+b−1); the complemented bit is a
/// projection like the others (the garbler fills the complemented table), the constants sum
/// to −fan_in·(2^act_bits − 1)·2^(b−1) (exact in i128: fan_in < 2^32, act_bits, b ≤ 32).
fn sign_correction(l: &Linear, act_bits: usize) -> i128 {
    let per_tap = ((1i128 << act_bits) - 1) << (l.weight_bits - 1);
    -(l.fan_in() as i128) * per_tap
}

/// Output `o`'s accumulator in Boolean, `acc_bits` wide: the partial-product bits
/// a_j·w_m·2^(j+m) of every tap (projections of a_j through the garbler's table of w_m, the
/// sign bit complemented: [`sign_correction`]) and the bias's bits, summed mod 2^acc_bits by
/// one carry-save compressor tree ([`weighted_sum`]; the sum fits `acc_bits` signed bits, so
/// the wrap is exact). Each `acts` value is read at `act_bits` bits.
fn boolean_acc<B: ArithBackend>(
    ctx: &Ctx<B>,
    l: &Linear,
    o: usize,
    acts: &[UInt<B>],
    act_bits: usize,
    w: Option<&super::model::LayerWeights>,
    biases: &[SInt<B>],
) -> SInt<B> {
    let (f, taps) = l.taps(o);
    let wb = l.weight_bits as usize;
    let acc = l.acc_bits as usize;
    let mut bits: Vec<(usize, B::Wire)> = biases[f].wires().iter().copied().enumerate().collect();
    let mut tables = Vec::with_capacity(wb);
    let sum = ctx.with(|b| {
        for (i, k) in taps {
            let weight = w.map(|w| w.weights[k]);
            let wires = acts[i].wires();
            for (j, &a) in wires.iter().enumerate().take(act_bits) {
                tables.clear();
                tables.extend((0..wb.min(acc.saturating_sub(j))).map(|m| {
                    let w_m = weight.is_some_and(|v| (v >> m) & 1 == 1);
                    match (weight.is_some(), m + 1 == wb) {
                        (false, _) => [false, false],
                        (true, false) => [false, w_m],
                        (true, true) => [true, !w_m],
                    }
                }));
                let products = b.bit_projections(a, &tables);
                bits.extend(products.into_iter().enumerate().map(|(m, p)| (j + m, p)));
            }
        }
        weighted_sum(b, bits, acc)
    });
    SInt::from_wires(ctx, sum)
}

/// Output `o`'s accumulator over Z_N: per prime, one private projection per activation bit
/// and tap, the bias folded into the first. Each bit's mod-2 wire is made once for all the
/// primes.
fn crt_acc<B: ArithBackend>(
    ctx: &Ctx<B>,
    l: &Linear,
    o: usize,
    acts: &[UInt<B>],
    w: Option<&super::model::LayerWeights>,
    set: &PrimeSet,
) -> Crt<B> {
    let (f, taps) = l.taps(o);
    let bias = w.map_or(0, |w| w.bias[f]);
    let bundle = ctx.with(|b| {
        let moduli = set.moduli();
        let mut accs: Vec<B::ModWire> = moduli.iter().map(|&m| b.mod_constant(m, 0)).collect();
        let mut first = true;
        for (i, k) in taps {
            let weight = w.map(|w| i128::from(w.weights[k]));
            for (j, &bit) in acts[i].wires().iter().enumerate() {
                let c = weight.map_or(0, |v| v << j);
                let base = if first { i128::from(bias) } else { 0 };
                first = false;
                let a = b.bit_to_mod2(bit);
                for ((acc, &m), &p) in accs.iter_mut().zip(moduli).zip(set.primes()) {
                    let residue = |v: i128| v.rem_euclid(i128::from(p)) as u64;
                    let table = private_table(w.is_some(), residue(base), residue(base + c));
                    let term = if m.is_boolean() {
                        let bit = b.mod_to_bit(&a, &table);
                        b.bit_to_mod2(bit)
                    } else {
                        b.mod_project(&a, m, &table)
                    };
                    *acc = b.mod_add(acc, &term);
                }
            }
        }
        accs
    });
    ctx.crt(set, bundle)
}

/// ReLU and requantization on bits: `min(max(x, 0) >> shift, 2^out_bits − 1)` for x given
/// by its `negative` flag and `magnitude` bits (its value where not negative).
fn requantize<B: ArithBackend>(
    ctx: &Ctx<B>,
    negative: B::Wire,
    magnitude: &[B::Wire],
    r: Requant,
) -> UInt<B> {
    let shift = (r.shift as usize).min(magnitude.len());
    let high = &magnitude[shift..];
    let out = r.out_bits as usize;
    let wires = ctx.with(|b| {
        let keep = b.not(negative);
        // over = OR of the bits above out_bits: saturate.
        let or = |b: &mut B, x: B::Wire, y: B::Wire| {
            let (nx, ny) = (b.not(x), b.not(y));
            let both = b.and(nx, ny);
            b.not(both)
        };
        let over = high.iter().skip(out).copied().reduce(|x, y| or(b, x, y));
        (0..out)
            .map(|j| {
                let bit = match (high.get(j), over) {
                    (Some(&x), Some(o)) => or(b, x, o),
                    (Some(&x), None) => x,
                    (None, Some(o)) => o,
                    (None, None) => return b.constant(false),
                };
                b.and(bit, keep)
            })
            .collect()
    });
    UInt::from_wires(ctx, wires)
}

/// size×size max pooling, stride size, on the `input`-shaped activations.
fn maxpool<B: ArithBackend>(size: usize, input: &super::model::Shape, acts: &[UInt<B>]) -> Vec<UInt<B>> {
    let (h, w) = (input.height / size, input.width / size);
    (0..input.channels * h * w)
        .map(|o| {
            let (c, r, col) = (o / (h * w), o / w % h, o % w);
            (0..size * size)
                .map(|t| {
                    &acts[(c * input.height + r * size + t / size) * input.width + col * size + t % size]
                })
                .cloned()
                .reduce(|a, b| a.max(&b))
                .expect("a window has values")
        })
        .collect()
}

/// The first index of the largest logit, as a secret unsigned integer.
fn argmax<B: ArithBackend>(ctx: &Ctx<B>, logits: &[SInt<B>]) -> UInt<B> {
    let width = (usize::BITS - logits.len().saturating_sub(1).leading_zeros()).max(1);
    let mut best = logits[0].clone();
    let mut index = ctx.uint(width, 0);
    for (i, l) in logits.iter().enumerate().skip(1) {
        // Strictly greater: ties keep the first index.
        let greater = l.greater_than(&best);
        best = greater.select(l, &best);
        index = greater.select(&ctx.uint(width, i as u128), &index);
    }
    index
}
