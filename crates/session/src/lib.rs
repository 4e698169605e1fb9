//! The two-party protocol (semi-honest garbled circuits), over any [`mixgc_net::Channel`].
//!
//! A session is set up once per connection ([`GarblerSession::setup`] /
//! [`EvaluatorSession::setup`]: hello, base OTs) and can then execute several circuits.
//! Each execution: both parties compare a circuit header (digest, widths, ownership,
//! reveal); the evaluator gets its input labels by correlated OT; the garbler sends its
//! input labels and streams garbled tables in frames cut by size ([`rows`]: one framing rule
//! for every kind of row; the garbled circuit is never held whole); the outputs are revealed
//! as agreed.
//!
//! A session also runs programs gate by gate ([`GarblerSession::program`]), on Boolean
//! values and on CRT values (ABLE's arithmetic garbling, `mixgc-arith`), with one
//! arithmetic garbler per session.

mod bits;
mod codec;
mod error;
mod evaluator;
mod frames;
mod garbler;
mod handshake;
pub mod memory;
mod outlet;
mod party;
mod pipe;
mod prep;
mod primitives;
mod program;
mod rows;
pub mod sequential;
mod structure;
mod terms;

pub use error::SessionError;
pub use evaluator::EvaluatorSession;
pub use frames::{FIRST_FRAME_BYTES, MAX_TABLE_FRAME_BYTES};
pub use garbler::GarblerSession;
pub use handshake::{fuzz_handshake, malicious_hello, PROTOCOL_VERSION};
pub use mixgc_garble::Scheme;
pub use mixgc_program::{Audience, PartyId};
pub use outlet::QUEUE_FRAMES;
pub use party::{run_party, run_party_batch, PartyReport};
pub use prep::{
    evaluator_online, evaluator_online_claiming, garbler_online, garbler_online_claiming, Claim,
    EvaluatorPrep, GarblerPrep,
};
pub use program::{stop_at_failure, ProgramEvaluator, ProgramGarbler};
pub use sequential::{
    ChainInput, ChainOutput, ChainStage, CycleOutput, PortInput, SequentialRun, Specializers,
};
pub use terms::{Command, SessionConfig, Terms, MAX_THREADS};

/// What one execution produced for this party.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The output values (bits, least significant first) if this party learns them.
    pub outputs: Option<Vec<Vec<bool>>>,
    /// AND gates garbled or evaluated in this execution.
    pub ands: u64,
}
