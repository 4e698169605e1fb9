//! Core primitives of mixgc: the 128-bit [`Block`], the AES kernels chosen at run time
//! ([`AesKernel`]), the tweakable hashes built on them (Guo–Katz–Wang–Yu), seeded or
//! system randomness, and the progress reports long work makes ([`Progress`]).
//!
//! Nothing in this crate does I/O; every other crate builds on these types.

mod aes;
mod block;
mod hash;
mod progress;
mod rng;
mod scratch;

pub use self::aes::{cpu_features, AesKernel, AesKernelError, RoundKeys, AES_KERNEL_ENV};
pub use block::Block;
pub use hash::{AnyHash, FixedKeyAes, HashKind, Rekeyed, Tccr, TweakableHash};
pub use progress::{Progress, Reporter, Unit};
pub use rng::{new_rng, Rng};
pub use scratch::fill_prefix;
