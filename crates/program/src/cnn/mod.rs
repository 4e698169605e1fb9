//! Private inference of a quantized convolutional network (LeNet-5, issue #22): the model
//! files ([`model`]), the integer network in the clear ([`reference`]), the same network on
//! any arithmetic backend with the garbler's weights and the evaluator's image ([`secure`],
//! TinyGarble2 thesis §3.5.3 and ABLE §6), and the per-layer choice between Boolean and CRT
//! arithmetic ([`plan`], ABLE §5.2).

pub mod model;
pub mod npy;
pub mod plan;
pub mod reference;
pub mod secure;

pub use model::{
    quantize_image, Arch, CnnError, Layer, LayerWeights, Linear, LinearKind, Requant, Shape, Weights,
};
pub use plan::{layer_costs, plan, plan_name, LayerCost, Realization, UnitTimes};
pub use secure::{infer, layer_primes, Arith, Inference, Reveal};
