//! N-party secure computation, semi-honest with up to n − 1 corrupted parties.
//!
//! Every party is its own process. A [`Mesh`] holds one channel to every other party
//! (frames from `mixgc_net`); the protocols run on top of it:
//!
//! - correlations between every pair of parties, from OT between their own processes;
//! - GMW: XOR shares of every wire, AND by Beaver triples, one round per AND level;
//! - BMR: multiparty garbling with free-XOR (Ben-Efraim–Lindell–Omri, CCS 2016), the
//!   garbled tables built jointly in a constant number of rounds, then evaluated locally
//!   by every party.

mod batches;
pub mod bits;
pub mod bmr;
mod correlations;
mod error;
pub mod gmw;
mod job;
mod mesh;
mod roles;

pub use batches::MAX_SLOTS;
pub use correlations::{Correlations, Triples};
pub use error::NpartyError;
pub use job::{Job, Outcome, Protocol};
pub use mesh::{memory_mesh, peer, Mesh};
pub use roles::Roles;

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
