//! The Y form of the n-party mixed backend: BMR garbled labels (BLO16, free-XOR) on the
//! one BMR wire-state machine of the n-party crate, [`Labels`], made on the first B→Y on
//! the program's own mesh, its messages in program order among the others.
//!
//! A Y value is this party's vector of wire slots. XOR, NOT, public constants, gathers and
//! concatenations are free; ANDs join the pending batch, garbled jointly (constant rounds
//! per batch) and evaluated when it is full or a value leaves the Y form. B→Y and Y→B send
//! nothing of their own (see [`Labels::from_shares`], [`Labels::to_shares`]).

use fhe_rand::{CryptoRng, RngCore};
use mixgc_core::Rng as CoreRng;
use mixgc_net::Tag;
use mixgc_nparty::bmr::{BmrOptions, Labels};
use mixgc_nparty::{Mesh, NpartyError};
use rand::SeedableRng;

use crate::MixedError;

/// This party's Y-form state: the BMR wires and the RNG drawing their λ shares and keys.
pub struct YaoState {
    labels: Labels,
    rng: CoreRng,
}

impl YaoState {
    /// Agrees on a session id with every party (each sends 32 random bytes; the id is the
    /// hash of all of them in party order, fresh if any one party is honest) and sets up
    /// BMR (Δ, base OTs with every party). `batch_ands` ANDs at most per garbled batch.
    pub fn setup<R: RngCore + CryptoRng>(
        mesh: &mut Mesh,
        rng: &mut R,
        batch_ands: usize,
    ) -> Result<YaoState, MixedError> {
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let mut core = CoreRng::from_seed(seed);
        let mut mine = [0u8; 32];
        rand::RngCore::fill_bytes(&mut core, &mut mine);
        mesh.set_phase("the Y form's session id");
        mesh.send_all(Tag::ProgramHeader, &mine)?;
        let mut hasher = blake3::Hasher::new_derive_key("mixgc mixed Y form session id");
        for p in 0..mesh.parties() {
            if p == mesh.me() {
                hasher.update(&mine);
            } else {
                hasher.update(&mesh.recv_exact(p, Tag::ProgramHeader, mine.len())?);
            }
        }
        let session = *hasher.finalize().as_bytes();
        let options = BmrOptions {
            batch_ands,
            ..BmrOptions::default()
        };
        mesh.set_phase("the Y form's setup (base OTs)");
        let labels = Labels::setup(mesh, &session, &mut core, &options)?;
        Ok(YaoState { labels, rng: core })
    }

    /// AND gates garbled so far.
    pub fn ands(&self) -> u64 {
        self.labels.ands()
    }

    /// Batches garbled so far.
    pub fn batches(&self) -> u64 {
        self.labels.batches()
    }

    /// Seconds so far in the garbling (offline) and the evaluation (online) of batches.
    pub fn times(&self) -> (f64, f64) {
        let (offline, online) = self.labels.times();
        (offline.as_secs_f64(), online.as_secs_f64())
    }

    /// Garbles and evaluates the pending batch now.
    pub fn flush(&mut self, mesh: &mut Mesh) -> Result<(), MixedError> {
        Ok(self.labels.flush(mesh, &mut self.rng)?)
    }

    /// Wire slots taken so far (what this party's Y state grows with).
    pub fn slots(&self) -> u32 {
        self.labels.slots()
    }

    /// One new wire per lane `i` of `count`, made by `gate`.
    pub fn lanes(
        &mut self,
        mesh: &mut Mesh,
        count: usize,
        mut gate: impl FnMut(&mut Labels, &mut Mesh, &mut CoreRng, usize) -> Result<u32, NpartyError>,
    ) -> Result<Vec<u32>, MixedError> {
        (0..count)
            .map(|i| gate(&mut self.labels, mesh, &mut self.rng, i).map_err(MixedError::from))
            .collect()
    }

    /// B→Y of this party's XOR shares (one byte a bit).
    pub fn from_shares(&mut self, mesh: &mut Mesh, shares: &[u8]) -> Result<Vec<u32>, MixedError> {
        let bits: Vec<bool> = shares.iter().map(|&b| b & 1 == 1).collect();
        Ok(self.labels.from_shares(mesh, &mut self.rng, &bits)?)
    }

    /// Y→B: this party's XOR shares (one byte a bit) of `wires`.
    pub fn to_shares(&mut self, mesh: &mut Mesh, wires: &[u32]) -> Result<Vec<u8>, MixedError> {
        let bits = self.labels.to_shares(mesh, &mut self.rng, wires)?;
        Ok(bits.into_iter().map(u8::from).collect())
    }

    /// Frees the slots of `wires` (a released wire must not be used again).
    pub fn release(&mut self, wires: &[u32]) {
        self.labels.release(wires);
    }
}
