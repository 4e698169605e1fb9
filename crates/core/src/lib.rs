//! Core primitives of mixgc: the 128-bit [`Block`], the tweakable hashes built on
//! fixed-key AES (Guo–Katz–Wang–Yu), and seeded or system randomness.
//!
//! Nothing in this crate does I/O; every other crate builds on these types.

mod block;
mod hash;
mod rng;

pub use block::Block;
pub use hash::{AnyHash, FixedKeyAes, HashKind, Rekeyed, Tccr, TweakableHash};
pub use rng::{new_rng, Rng};
