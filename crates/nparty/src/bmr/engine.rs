//! One party's side of a BMR run, shared by the stream path ([`super::run_stream`]) and
//! the program path ([`super::ProgramBackend`]): its Δ, its pairwise correlations, its
//! per-slot shares and active keys, and the global AND index every party counts alike
//! (the g of the tweaks, BLO16 §3). A batch is garbled jointly, the input step for the
//! batch's fresh input slots runs, then the batch is evaluated and its tables dropped.

use std::time::{Duration, Instant};

use mixgc_core::{Block, Rng, Tccr};

use super::eval::evaluate_batch;
use super::garble::garble_batch;
use super::state::{Active, Shares};
use super::tweak;
use super::BmrOptions;
use crate::batches::Op;
use crate::{Correlations, Mesh, NpartyError};

/// This party's state of a BMR run between batches.
pub(super) struct Engine {
    pub me: usize,
    pub delta: Block,
    corr: Correlations,
    hash: Tccr,
    pub shares: Shares,
    pub active: Active,
    /// The global index of the next AND gate garbled.
    pub next_and: u64,
    /// Batches garbled so far.
    pub batches: u64,
    pub offline: Duration,
    pub online: Duration,
    pub online_rounds: u64,
    /// Bytes sent and received per party during the setup.
    pub setup_bytes: Vec<(u64, u64)>,
    /// Send corrupted table shares (tests only).
    pub tamper: bool,
}

impl Engine {
    /// Checks the settings, draws Δ and sets up the correlations with every party (base
    /// OTs); `slots` is the number of wire slots to start with.
    pub fn setup(
        mesh: &mut Mesh,
        session: &[u8; 32],
        rng: &mut Rng,
        options: &BmrOptions,
        slots: usize,
    ) -> Result<Engine, NpartyError> {
        let (me, n) = (mesh.me(), mesh.parties());
        if n > tweak::MAX_PARTIES {
            return Err(NpartyError::Usage(format!(
                "BMR runs at most {} parties, not {n}",
                tweak::MAX_PARTIES
            )));
        }
        if options.batch_ands == 0 {
            return Err(NpartyError::Usage(
                "the BMR batch must hold at least one AND gate".into(),
            ));
        }
        let start = Instant::now();
        let delta = Block::random(rng).with_lsb_set();
        let corr = Correlations::setup(mesh, session, delta, rng)?;
        Ok(Engine {
            me,
            delta,
            corr,
            hash: Tccr::default(),
            shares: Shares::new(me, n, delta, slots),
            active: Active::new(n, slots),
            next_and: 0,
            batches: 0,
            offline: start.elapsed(),
            online: Duration::ZERO,
            online_rounds: 0,
            setup_bytes: mesh.bytes(),
            tamper: false,
        })
    }

    /// Room for `slots` wire slots.
    pub fn resize(&mut self, slots: usize) {
        self.shares.resize(slots);
        self.active.resize(slots);
    }

    /// Garbles the batch `ops` jointly (with `fresh` the input slots first used in it,
    /// their λ shares and 0-keys already drawn), runs `input_step` (the online input step,
    /// returning its rounds), then evaluates the batch.
    pub fn run_batch(
        &mut self,
        mesh: &mut Mesh,
        ops: &[Op],
        fresh: &[u32],
        rng: &mut Rng,
        input_step: impl FnOnce(&mut Mesh, &mut Active, Block) -> Result<u64, NpartyError>,
    ) -> Result<(), NpartyError> {
        let t = Instant::now();
        let garbled = garble_batch(
            &mut self.shares,
            mesh,
            &mut self.corr,
            &self.hash,
            ops,
            self.next_and,
            fresh,
            rng,
            self.tamper,
        )?;
        self.offline += t.elapsed();
        let t = Instant::now();
        self.online_rounds += input_step(mesh, &mut self.active, self.delta)?;
        evaluate_batch(
            &mut self.active,
            self.me,
            self.delta,
            &self.hash,
            ops,
            self.next_and,
            &garbled,
        )?;
        self.online += t.elapsed();
        self.next_and += garbled.out_keys.len() as u64;
        self.batches += 1;
        Ok(())
    }
}
