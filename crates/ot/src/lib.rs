//! Oblivious transfer for mixgc: how the evaluator obtains the garbled labels of its own
//! inputs without the garbler learning which ones it took.
//!
//! Two layers:
//!
//! - [`base`]: 1-out-of-2 OT over the Ristretto group (a Chou–Orlandi-style "simplest OT"
//!   with a hardened key derivation: the OT index, the choice bit and the whole transcript
//!   are hashed into every key, so a receiver cannot force k₀ = k₁ — the 2025 "NIL-CIRC"
//!   attack; `docs/security.md`, "Base OT").
//! - [`endemic`]: the maliciously secure endemic OT of Masny–Rindal (CCS 2019) over
//!   Ristretto, the base OT of the malicious preprocessing (KOS15 setup).
//! - IKNP OT extension ([`OtSender`], [`OtReceiver`]; Ishai–Kilian–Nissim–Petrank,
//!   CRYPTO 2003) with the optimisations of Asharov–Lindell–Schneider–Zohner (CCS 2013):
//!   128 base OTs with roles reversed, then any number of OTs for the cost of symmetric
//!   crypto and 16 bytes per OT in each direction. The final hash is the fixed-key TCCR
//!   hash of `mixgc-core` with a global, never-restarting OT index as tweak.
//!
//! Roles in a garbled-circuit session: the garbler is the OT *sender* ([`OtSender`]),
//! the evaluator the OT *receiver* ([`OtReceiver`]). Security is semi-honest.
//!
//! Every OT pair in garbling is (W, W ⊕ Δ): one weak OT leaks Δ and with it every input,
//! so this crate is tested against the known attacks (see the regression tests).

pub mod base;
pub mod endemic;
mod error;
mod iknp;
mod parallel;
mod prg;
mod transpose;

pub use error::OtError;
pub use iknp::{OtReceiver, OtReceiverStart, OtSender, OtSenderStart};
