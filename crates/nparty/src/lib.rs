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
//!   by every party; programs run on it gate by gate in bounded memory
//!   ([`bmr::run_program`]).

mod batches;
pub mod bits;
pub mod bmr;
mod correlations;
mod error;
pub mod gmw;
mod handshake;
mod job;
mod mesh;
mod mesh_tls;
pub mod program;
mod relay;
mod roles;
mod tcp;

pub use batches::MAX_SLOTS;
pub use correlations::{Correlations, Triples};
pub use error::NpartyError;
pub use handshake::{
    handshake, RunFacts, MAX_EXTRA, MAX_PARTIES, MAX_TEXT, MAX_VALUES, NPARTY_PROTOCOL_VERSION,
};
pub use job::{Job, Outcome, Protocol};
pub use mesh::{memory_mesh, peer, Mesh};
pub use mesh_tls::{parse_peer_pin, party_name, MeshTls, TlsFlags};
pub use program::{ProgramRecorder, RecordedProgram};
pub use roles::Roles;
pub use tcp::{connect_mesh, connect_mesh_on, join_mesh, join_mesh_on, MeshOptions};

use mixgc_core::Rng;

/// Runs `job` among the mesh's parties with `protocol` (BMR with `bmr_options`). `inputs`
/// are this party's own input values in circuit order; `session` is the id every party
/// agreed on in the handshake.
pub fn run(
    mesh: &mut Mesh,
    protocol: Protocol,
    job: &Job,
    inputs: &[Vec<bool>],
    session: &[u8; 32],
    rng: &mut Rng,
    bmr_options: &bmr::BmrOptions,
) -> Result<Outcome, NpartyError> {
    match protocol {
        Protocol::Gmw => gmw::run(mesh, job, inputs, session, rng),
        Protocol::Bmr => bmr::run(mesh, job, inputs, session, rng, bmr_options),
    }
}
