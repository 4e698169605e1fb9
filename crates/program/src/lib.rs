//! The program interface: write a function once against a [`Backend`], and the same code
//! runs in plaintext ([`Plain`], the reference answer), as a recorder that emits mixgc's
//! circuit IR and Bristol files ([`Recorder`]), or as a cost counter ([`Counter`]).
//!
//! CRT values ([`crt`], ABLE's arithmetic garbling) run on backends of the arithmetic
//! extension [`ArithBackend`]: [`Plain`], [`Counter`] and the two-party backends; the
//! recorder emits Boolean circuits only.
//!
//! Gadgets are written once on the trait they need: the Boolean ones ([`gadgets`],
//! AND-minimal circuits over slices of wires, least significant bit first) on [`Backend`]
//! alone, the CRT ones, BC and BD ([`crt::gadgets`]) on [`ArithBackend`]'s primitives.
//!
//! Mixed-mode programs over n parties (A, B and E forms with explicit conversions) are
//! written on [`mixed::MixedBackend`]: plaintext, cost and `mixgc_mixed`'s n-party backend.
//!
//! Two-party execution garbles a program gate by gate, with memory bounded by its live
//! values: `mixgc_session`'s `GarblerSession::program` and `EvaluatorSession::program`
//! run it on backends whose wires are labels (`crates/session/src/program.rs`). A recorded
//! program can also be compiled and run as a circuit.

pub mod apps;
mod backend;
pub mod clipdot;
pub mod cnn;
pub mod counter;
pub mod crt;
pub mod fixed;
pub mod gadgets;
mod lanes;
pub mod lenet;
pub mod library;
pub mod mixed;
mod modular;
mod plain;
mod record;
mod slots;
pub mod tensor;
mod value;
pub mod vip;

pub use backend::{checked_input, scoped, Backend, PeerError, ProgramError};
pub use counter::{gadget_cost, Cost, CountedWire, Counter, CrtOp};
pub use crt::{ArithBackend, Crt, Modulus, PrimeSet};
pub use fixed::{to_f64, Fixed, FixedError, FixedFormat};
pub use lanes::{Lanes, MAX_LANES};
pub use mixgc_circuit::{Audience, PartyId, MAX_PARTIES};
pub use plain::{Plain, Residue, RingValue};
pub use record::{Recorded, Recorder};
pub use slots::{SlotTable, SlotsExhausted};
pub use tensor::{Element, Tensor, TensorError, MAX_DIMS};
pub use value::{to_i128, to_u128, Bit, Ctx, SInt, Selectable, UInt};
