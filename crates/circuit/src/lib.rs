//! mixgc's circuit layer: the flat Boolean circuit IR, Bristol readers and writers, the
//! plaintext evaluator (the reference result for every garbled run), gate statistics and
//! a digest that lets two parties check they hold the same circuit.
//!
//! ```
//! use mixgc_circuit::{bristol, values};
//!
//! // out = a AND b, for 1-bit a and b, in Bristol Fashion.
//! let text = "1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n";
//! let c = bristol::parse(text, "and.txt").unwrap();
//! let out = c.eval_plain(&[vec![true], vec![true]]).unwrap();
//! assert_eq!(values::to_hex(&out[0]), "1");
//! ```
//!
//! Value convention everywhere: a value of width `w` is `w` bits, least significant bit
//! first; wire `i` of a value is bit `i`.

mod digest;
mod error;
mod eval;
mod ir;
mod party;
mod random;
mod stats;
mod validate;
mod writers;

pub mod bristol;
pub mod sequential;
pub mod shipped;
pub mod values;

pub use error::{CircuitError, ParseError, ValueError};
pub use ir::{Circuit, GateKind};
pub use party::{Audience, PartyId, MAX_PARTIES};
pub use stats::CircuitStats;
