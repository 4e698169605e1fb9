//! N-party secure computation, semi-honest with up to n − 1 corrupted parties.
//!
//! Every party is its own process. A [`Mesh`] holds one channel to every other party
//! (frames from `mixgc_net`): over TCP from [`connect_mesh`] (the lower id dials the
//! higher; sends never wait on the peer; an optional emulated latency), in memory from
//! [`memory_mesh`]. Before anything secret, [`handshake`] checks on every pair that the
//! parties agree on the run ([`RunFacts`]) and derives a session id from every party's
//! nonce. The protocols run on top of it:
//!
//! - correlations between every pair of parties, from OT between their own processes;
//! - GMW: XOR shares of every wire, AND by Beaver triples, one round per AND level;
//! - BMR: multiparty garbling with free-XOR (Ben-Efraim–Lindell–Omri, CCS 2016), the
//!   garbled tables built jointly in a constant number of rounds, then evaluated locally
//!   by every party.

mod error;
mod handshake;
mod mesh;
mod tcp;

pub use error::NpartyError;
pub use handshake::{
    handshake, RunFacts, MAX_EXTRA, MAX_PARTIES, MAX_TEXT, MAX_VALUES, NPARTY_PROTOCOL_VERSION,
};
pub use mesh::{memory_mesh, peer, Mesh};
pub use tcp::{connect_mesh, connect_mesh_on, join_mesh, MeshOptions};
