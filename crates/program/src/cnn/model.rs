//! The model files of a quantized CNN: the public architecture (`*.arch.json`, format
//! `mixgc-cnn-1`, what both parties need) and the server's private integer weights
//! (`*.weights.json`, format `mixgc-weights-1`, bound to the architecture by its SHA-256).
//! Both are parsed with bounds: file sizes, layer counts and dimensions are capped before
//! anything is allocated from them, and every inconsistency is a [`CnnError`] naming it.
//!
//! The integer network they describe (written by `scripts/train_lenet.py`):
//!
//! - input: `pixel >> (8 − bits)` per pixel (unsigned, `bits` bits), channel-major;
//! - conv (k×k, stride 1, no padding) or dense layer: `acc = bias + Σ w·a` exactly;
//! - hidden layers: `a' = min(max(acc, 0) >> shift, 2^out_bits − 1)` (ReLU, requantize);
//! - maxpool (size×size, stride size) on the requantized values;
//! - the last layer's `acc` are the logits; the class is the first index of their maximum.

use serde::Deserialize;
use sha2::{Digest, Sha256};

/// Why a model, an image or a run was refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CnnError {
    /// The architecture file is malformed or out of bounds.
    #[error("architecture: {0}")]
    Arch(String),
    /// The weights file is malformed, out of bounds, or does not fit the architecture.
    #[error("weights: {0}")]
    Weights(String),
    /// The image does not fit the architecture's input.
    #[error("image: {0}")]
    Image(String),
    /// The garbler runs without weights.
    #[error("the garbler (server) needs the weights (--weights FILE)")]
    MissingWeights,
    /// The evaluator runs without an image.
    #[error("the evaluator (client) needs an image (--image FILE)")]
    MissingImage,
    #[error(transparent)]
    Program(#[from] crate::ProgramError),
}

/// Largest architecture file read (bytes).
pub const MAX_ARCH_BYTES: usize = 1 << 20;
/// Largest weights file read (bytes).
pub const MAX_WEIGHTS_BYTES: usize = 64 << 20;
/// Most layers in a network.
pub const MAX_LAYERS: usize = 32;
/// Largest channel count, side, and dense layer dimension.
pub const MAX_CHANNELS: usize = 512;
pub const MAX_SIDE: usize = 256;
pub const MAX_DENSE: usize = 8192;
/// Largest kernel side.
pub const MAX_KERNEL: usize = 11;
/// Most weights in one layer, and multiply-accumulates in the whole network.
pub const MAX_LAYER_WEIGHTS: usize = 1 << 22;
pub const MAX_MACS: u64 = 1 << 28;
/// Widths: weights 2..=16 bits, accumulators 2..=62 bits, activations 1..=16 bits.
pub const MAX_WEIGHT_BITS: u32 = 16;
pub const MAX_ACC_BITS: u32 = 62;
pub const MAX_OUT_BITS: u32 = 16;

/// A feature map's shape: channels × height × width (a dense output is n × 1 × 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub channels: usize,
    pub height: usize,
    pub width: usize,
}

impl Shape {
    pub fn len(&self) -> usize {
        self.channels * self.height * self.width
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// ReLU then requantization: `min(max(acc, 0) >> shift, 2^out_bits − 1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Requant {
    pub shift: u32,
    pub out_bits: u32,
}

/// What a linear layer computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinearKind {
    /// k×k convolution, stride 1, no padding.
    Conv {
        kernel: usize,
    },
    Dense,
}

/// A convolution or dense layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Linear {
    pub kind: LinearKind,
    pub input: Shape,
    pub output: Shape,
    /// Bits of the incoming activations (unsigned).
    pub in_bits: u32,
    /// Signed bits of each weight.
    pub weight_bits: u32,
    /// Signed bits that hold every accumulator (checked against the weights on load).
    pub acc_bits: u32,
    /// `None` for the last layer (its accumulators are the logits).
    pub requant: Option<Requant>,
}

impl Linear {
    /// Taps per output (kernel² · in channels, or inputs).
    pub fn fan_in(&self) -> usize {
        match self.kind {
            LinearKind::Conv { kernel } => kernel * kernel * self.input.channels,
            LinearKind::Dense => self.input.len(),
        }
    }

    /// Weights of the layer: outputs' channels × fan-in, row-major (filter, channel, row,
    /// column for a convolution).
    pub fn weights(&self) -> usize {
        self.output.channels * self.fan_in()
    }

    /// Multiply-accumulates of the layer.
    pub fn macs(&self) -> u64 {
        (self.output.len() * self.fan_in()) as u64
    }

    /// Output `o` (row-major in the output shape): its bias index and its (input index,
    /// weight index) taps.
    pub fn taps(&self, o: usize) -> (usize, impl Iterator<Item = (usize, usize)> + '_) {
        let Shape { height, width, .. } = self.output;
        let (f, r, c) = (o / (height * width), o / width % height, o % width);
        let fan_in = self.fan_in();
        let taps = (0..fan_in).map(move |t| {
            let input = match self.kind {
                LinearKind::Conv { kernel } => {
                    let (ch, i, j) = (t / (kernel * kernel), t / kernel % kernel, t % kernel);
                    (ch * self.input.height + r + i) * self.input.width + c + j
                }
                LinearKind::Dense => t,
            };
            (input, f * fan_in + t)
        });
        (f, taps)
    }
}

/// A layer of the network.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layer {
    Linear(Linear),
    /// size×size max pooling, stride size, on `input` (unsigned values of `bits` bits).
    MaxPool {
        size: usize,
        input: Shape,
        bits: u32,
    },
}

/// A validated architecture (public).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arch {
    pub name: String,
    pub input: Shape,
    /// Bits kept of each 8-bit pixel.
    pub input_bits: u32,
    pub layers: Vec<Layer>,
    /// SHA-256 of the file's bytes (what the parties compare and the weights name).
    pub sha256: [u8; 32],
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInput {
    channels: usize,
    height: usize,
    width: usize,
    bits: u32,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
enum RawLayer {
    Conv {
        in_channels: usize,
        out_channels: usize,
        kernel: usize,
        weight_bits: u32,
        acc_bits: u32,
        relu: bool,
        shift: Option<u32>,
        out_bits: Option<u32>,
    },
    Dense {
        inputs: usize,
        outputs: usize,
        weight_bits: u32,
        acc_bits: u32,
        relu: bool,
        shift: Option<u32>,
        out_bits: Option<u32>,
    },
    Maxpool {
        size: usize,
    },
}

#[derive(Deserialize)]
struct RawArch {
    format: String,
    name: String,
    input: RawInput,
    layers: Vec<serde_json::Value>,
    output: String,
}

fn arch_err<T>(msg: String) -> Result<T, CnnError> {
    Err(CnnError::Arch(msg))
}

fn check_range(what: &str, v: u64, lo: u64, hi: u64) -> Result<(), CnnError> {
    if v < lo || v > hi {
        return arch_err(format!("{what} is {v}, must be from {lo} to {hi}"));
    }
    Ok(())
}

/// The hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

impl Arch {
    /// Parses and validates an architecture file's bytes (`mixgc-cnn-1`).
    pub fn parse(bytes: &[u8]) -> Result<Arch, CnnError> {
        if bytes.len() > MAX_ARCH_BYTES {
            return arch_err(format!(
                "the file has {} bytes, more than the {MAX_ARCH_BYTES} an architecture may have",
                bytes.len()
            ));
        }
        let raw: RawArch = serde_json::from_slice(bytes)
            .map_err(|e| CnnError::Arch(format!("not a mixgc-cnn-1 JSON file: {e}")))?;
        if raw.format != "mixgc-cnn-1" {
            return arch_err(format!("format is '{}', expected 'mixgc-cnn-1'", raw.format));
        }
        if raw.output != "argmax" {
            return arch_err(format!("output is '{}', only 'argmax' is supported", raw.output));
        }
        if raw.layers.is_empty() || raw.layers.len() > MAX_LAYERS {
            return arch_err(format!("{} layers, must be 1 to {MAX_LAYERS}", raw.layers.len()));
        }
        let i = &raw.input;
        check_range("input channels", i.channels as u64, 1, MAX_CHANNELS as u64)?;
        check_range("input height", i.height as u64, 1, MAX_SIDE as u64)?;
        check_range("input width", i.width as u64, 1, MAX_SIDE as u64)?;
        check_range("input bits", u64::from(i.bits), 1, 8)?;
        let input = Shape {
            channels: i.channels,
            height: i.height,
            width: i.width,
        };
        let (mut shape, mut bits) = (input, i.bits);
        let mut layers = Vec::with_capacity(raw.layers.len());
        let mut macs = 0u64;
        let count = raw.layers.len();
        for (n, value) in raw.layers.into_iter().enumerate() {
            let raw: RawLayer =
                serde_json::from_value(value).map_err(|e| CnnError::Arch(format!("layer {n}: {e}")))?;
            let layer = layer(raw, shape, bits, n + 1 == count)
                .map_err(|e| CnnError::Arch(format!("layer {n}: {e}")))?;
            match &layer {
                Layer::Linear(l) => {
                    macs += l.macs();
                    shape = l.output;
                    bits = l.requant.map_or(0, |r| r.out_bits);
                }
                Layer::MaxPool { size, .. } => {
                    shape.height /= size;
                    shape.width /= size;
                }
            }
            if macs > MAX_MACS {
                return arch_err(format!("more than {MAX_MACS} multiply-accumulates"));
            }
            layers.push(layer);
        }
        if !matches!(layers.last(), Some(Layer::Linear(l)) if l.requant.is_none()) {
            return arch_err("the last layer must be a conv or dense layer without ReLU (the logits)".into());
        }
        Ok(Arch {
            name: raw.name.chars().take(64).collect(),
            input,
            input_bits: i.bits,
            layers,
            sha256: Sha256::digest(bytes).into(),
        })
    }

    /// The hex SHA-256 of the file.
    pub fn sha256_hex(&self) -> String {
        self.sha256.iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The linear layers, in order.
    pub fn linear(&self) -> impl Iterator<Item = &Linear> {
        self.layers.iter().filter_map(|l| match l {
            Layer::Linear(l) => Some(l),
            Layer::MaxPool { .. } => None,
        })
    }

    /// Classes (outputs of the last layer).
    pub fn classes(&self) -> usize {
        self.linear().last().map_or(0, |l| l.output.len())
    }

    /// Multiply-accumulates of the whole network.
    pub fn macs(&self) -> u64 {
        self.linear().map(Linear::macs).sum()
    }

    /// One line per layer, e.g. `conv 5×5 1→6 (24×24), w4 acc9, relu >>3 → 4 bits`.
    pub fn describe(&self) -> Vec<String> {
        self.layers
            .iter()
            .map(|l| match l {
                Layer::Linear(l) => {
                    let what = match l.kind {
                        LinearKind::Conv { kernel } => format!(
                            "conv {kernel}×{kernel} {}→{} ({}×{})",
                            l.input.channels, l.output.channels, l.output.height, l.output.width
                        ),
                        LinearKind::Dense => format!("dense {}→{}", l.input.len(), l.output.len()),
                    };
                    let tail = match l.requant {
                        Some(r) => format!("relu >>{} → {} bits", r.shift, r.out_bits),
                        None => "logits".into(),
                    };
                    format!("{what}, w{} acc{}, {tail}", l.weight_bits, l.acc_bits)
                }
                Layer::MaxPool { size, .. } => format!("maxpool {size}×{size}"),
            })
            .collect()
    }
}

/// Validates one layer on its input `shape` of `bits`-bit values.
fn layer(raw: RawLayer, shape: Shape, bits: u32, last: bool) -> Result<Layer, String> {
    if bits == 0 {
        return Err("follows the logits layer (which must be last)".into());
    }
    let linear = |kind,
                  output: Shape,
                  weight_bits: u32,
                  acc_bits: u32,
                  relu: bool,
                  shift: Option<u32>,
                  out_bits: Option<u32>| {
        let r = |what: &str, v: u32, lo: u32, hi: u32| {
            if v < lo || v > hi {
                Err(format!("{what} is {v}, must be from {lo} to {hi}"))
            } else {
                Ok(())
            }
        };
        r("weight_bits", weight_bits, 2, MAX_WEIGHT_BITS)?;
        r("acc_bits", acc_bits, 2, MAX_ACC_BITS)?;
        let requant = match (relu, shift, out_bits) {
            (true, Some(shift), Some(out_bits)) => {
                r("out_bits", out_bits, 1, MAX_OUT_BITS)?;
                r("shift", shift, 0, acc_bits)?;
                Some(Requant { shift, out_bits })
            }
            (true, _, _) => return Err("relu needs shift and out_bits".into()),
            (false, None, None) => None,
            (false, _, _) => return Err("shift and out_bits need relu".into()),
        };
        if requant.is_none() != last {
            return Err(if last {
                "the last layer gives the logits: relu must be false".into()
            } else {
                "only the last layer may be without relu".into()
            });
        }
        let l = Linear {
            kind,
            input: shape,
            output,
            in_bits: bits,
            weight_bits,
            acc_bits,
            requant,
        };
        if l.weights() > MAX_LAYER_WEIGHTS {
            return Err(format!("{} weights, more than {MAX_LAYER_WEIGHTS}", l.weights()));
        }
        Ok(Layer::Linear(l))
    };
    match raw {
        RawLayer::Conv {
            in_channels,
            out_channels,
            kernel,
            weight_bits,
            acc_bits,
            relu,
            shift,
            out_bits,
        } => {
            if in_channels != shape.channels {
                return Err(format!(
                    "in_channels is {in_channels}, the input has {}",
                    shape.channels
                ));
            }
            if out_channels == 0 || out_channels > MAX_CHANNELS {
                return Err(format!(
                    "out_channels is {out_channels}, must be 1 to {MAX_CHANNELS}"
                ));
            }
            if kernel == 0 || kernel > MAX_KERNEL || kernel > shape.height || kernel > shape.width {
                return Err(format!(
                    "a {kernel}×{kernel} kernel does not fit a {}×{} input (kernel 1 to {MAX_KERNEL})",
                    shape.height, shape.width
                ));
            }
            let output = Shape {
                channels: out_channels,
                height: shape.height + 1 - kernel,
                width: shape.width + 1 - kernel,
            };
            linear(
                LinearKind::Conv { kernel },
                output,
                weight_bits,
                acc_bits,
                relu,
                shift,
                out_bits,
            )
        }
        RawLayer::Dense {
            inputs,
            outputs,
            weight_bits,
            acc_bits,
            relu,
            shift,
            out_bits,
        } => {
            if inputs != shape.len() {
                return Err(format!(
                    "inputs is {inputs}, the previous layer gives {}",
                    shape.len()
                ));
            }
            if outputs == 0 || outputs > MAX_DENSE {
                return Err(format!("outputs is {outputs}, must be 1 to {MAX_DENSE}"));
            }
            let output = Shape {
                channels: outputs,
                height: 1,
                width: 1,
            };
            linear(
                LinearKind::Dense,
                output,
                weight_bits,
                acc_bits,
                relu,
                shift,
                out_bits,
            )
        }
        RawLayer::Maxpool { size } => {
            if !(2..=4).contains(&size)
                || !shape.height.is_multiple_of(size)
                || !shape.width.is_multiple_of(size)
            {
                return Err(format!(
                    "maxpool {size} must be 2 to 4 and divide the {}×{} input",
                    shape.height, shape.width
                ));
            }
            Ok(Layer::MaxPool {
                size,
                input: shape,
                bits,
            })
        }
    }
}

/// The weights and biases of one linear layer (row-major, see [`Linear::weights`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayerWeights {
    pub weights: Vec<i64>,
    pub bias: Vec<i64>,
}

/// The server's private weights, one entry per linear layer of the architecture.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Weights {
    pub layers: Vec<LayerWeights>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWeights {
    format: String,
    arch_sha256: String,
    layers: Vec<RawLayerWeights>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLayerWeights {
    weights: Vec<i64>,
    bias: Vec<i64>,
}

fn weights_err<T>(msg: String) -> Result<T, CnnError> {
    Err(CnnError::Weights(msg))
}

impl Weights {
    /// Parses a weights file (`mixgc-weights-1`) for `arch` and checks it: the architecture
    /// hash, every count, every weight within `weight_bits`, and every accumulator within
    /// `acc_bits` for any input (so no realization wraps).
    pub fn parse(bytes: &[u8], arch: &Arch) -> Result<Weights, CnnError> {
        if bytes.len() > MAX_WEIGHTS_BYTES {
            return weights_err(format!(
                "the file has {} bytes, more than the {MAX_WEIGHTS_BYTES} a weights file may have",
                bytes.len()
            ));
        }
        // The file size bounds every array serde allocates (a number takes ≥ 2 bytes).
        let raw: RawWeights = serde_json::from_slice(bytes)
            .map_err(|e| CnnError::Weights(format!("not a mixgc-weights-1 JSON file: {e}")))?;
        if raw.format != "mixgc-weights-1" {
            return weights_err(format!("format is '{}', expected 'mixgc-weights-1'", raw.format));
        }
        if raw.arch_sha256 != arch.sha256_hex() {
            return weights_err(format!(
                "they belong to the architecture with SHA-256 {}, this one is {}",
                raw.arch_sha256,
                arch.sha256_hex()
            ));
        }
        let w = Weights {
            layers: raw
                .layers
                .into_iter()
                .map(|l| LayerWeights {
                    weights: l.weights,
                    bias: l.bias,
                })
                .collect(),
        };
        w.check(arch)?;
        Ok(w)
    }

    /// Checks counts and ranges against `arch` (see [`Weights::parse`]).
    pub fn check(&self, arch: &Arch) -> Result<(), CnnError> {
        let linear: Vec<&Linear> = arch.linear().collect();
        if self.layers.len() != linear.len() {
            return weights_err(format!(
                "{} layers of weights, the architecture has {} conv/dense layers",
                self.layers.len(),
                linear.len()
            ));
        }
        for (n, (w, l)) in self.layers.iter().zip(linear).enumerate() {
            if w.weights.len() != l.weights() || w.bias.len() != l.output.channels {
                return weights_err(format!(
                    "layer {n} has {} weights and {} biases, the architecture needs {} and {}",
                    w.weights.len(),
                    w.bias.len(),
                    l.weights(),
                    l.output.channels
                ));
            }
            let limit = 1i64 << (l.weight_bits - 1);
            if let Some(bad) = w.weights.iter().find(|&&v| v < -limit || v >= limit) {
                return weights_err(format!(
                    "layer {n}: weight {bad} does not fit {} signed bits",
                    l.weight_bits
                ));
            }
            let amax = (1i128 << l.in_bits) - 1;
            let acc_limit = 1i128 << (l.acc_bits - 1);
            for (f, row) in w.weights.chunks(l.fan_in()).enumerate() {
                let bound = i128::from(w.bias[f]).abs()
                    + row.iter().map(|&v| i128::from(v).abs() * amax).sum::<i128>();
                if bound >= acc_limit {
                    return weights_err(format!(
                        "layer {n}, output channel {f}: accumulators reach ±{bound}, beyond {} signed bits",
                        l.acc_bits
                    ));
                }
            }
        }
        Ok(())
    }
}

/// The input activations of an image of 8-bit pixels (channel-major): `pixel >> (8 − bits)`.
pub fn quantize_image(arch: &Arch, pixels: &[u8]) -> Result<Vec<u64>, CnnError> {
    if pixels.len() != arch.input.len() {
        return Err(CnnError::Image(format!(
            "{} pixels, the network takes {}×{}×{} = {}",
            pixels.len(),
            arch.input.channels,
            arch.input.height,
            arch.input.width,
            arch.input.len()
        )));
    }
    Ok(pixels
        .iter()
        .map(|&p| u64::from(p >> (8 - arch.input_bits)))
        .collect())
}
