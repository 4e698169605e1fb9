//! The Y form of the n-party mixed backend, on one of two engines ([`YaoEngine`]):
//!
//! - `Bmr` (default): BMR garbled labels (BLO16, free-XOR) on the one BMR wire-state
//!   machine of the n-party crate, [`Labels`], made on the first B→Y on the program's own
//!   mesh, its messages in program order among the others. XOR, NOT, public constants,
//!   gathers and concatenations are free; ANDs join the pending batch, garbled jointly
//!   (constant rounds per batch) and evaluated when it is full or a value leaves the Y
//!   form. B→Y and Y→B send nothing of their own (see [`Labels::from_shares`],
//!   [`Labels::to_shares`]); B→Y's Δ-products are pairwise (16·(n − 1) B a bit a party).
//! - `Lut`: the seed's distributed garbling (§6.2, Figures 11–12), [`crate::yao_lut`]:
//!   B→Y and Y→B are Figure 12's own input and output steps, linear in n in total.
//!
//! A Y value is this party's vector of wire handles; the program's gadgets are written
//! once, on [`YaoState`]'s methods, whatever the engine.

use std::time::Duration;

use fhe_rand::{CryptoRng, RngCore};
use mixgc_circuit::GateKind;
use mixgc_core::Rng as CoreRng;
use mixgc_net::Tag;
use mixgc_nparty::bmr::{BmrOptions, Labels};
use mixgc_nparty::Mesh;
use rand::SeedableRng;

use crate::a2b::BooleanEngine;
use crate::yao_lut::{LutEnv, LutYao};
use crate::{rng_from_seed, MixedError, ThresholdKeys};

/// Which protocol runs the Y form; every party must choose the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum YaoEngine {
    /// BMR (BLO16) garbled labels.
    #[default]
    Bmr,
    /// The seed's distributed garbling from lookup tables (§6.2).
    Lut,
}

impl YaoEngine {
    /// The engine's name on the command line: `bmr` or `lut`.
    pub fn name(self) -> &'static str {
        match self {
            YaoEngine::Bmr => "bmr",
            YaoEngine::Lut => "lut",
        }
    }
}

impl std::str::FromStr for YaoEngine {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "bmr" => Ok(YaoEngine::Bmr),
            "lut" => Ok(YaoEngine::Lut),
            other => Err(format!("'{other}' is no Y engine (bmr or lut)")),
        }
    }
}

/// What a Y operation may use besides the Y state: the mesh always; the threshold keys and
/// the Boolean engine with the `Lut` engine (its garbling's lookups and λ products).
pub struct YaoEnv<'a> {
    pub mesh: &'a mut Mesh,
    pub keys: &'a ThresholdKeys,
    pub engine: &'a mut BooleanEngine,
}

impl YaoEnv<'_> {
    fn lut(&mut self) -> LutEnv<'_> {
        LutEnv {
            mesh: self.mesh,
            keys: self.keys,
            engine: self.engine,
        }
    }
}

/// This party's Y-form state.
pub enum YaoState {
    /// The BMR wires and the RNG drawing their λ shares and keys.
    Bmr {
        labels: Box<Labels>,
        rng: Box<CoreRng>,
    },
    Lut(Box<LutYao>),
}

/// Agrees on a session id with every party: with BMR each sends 32 random bytes to every
/// other and the id is the hash of all of them in party order; with Lut the 32-byte strings
/// are XORed along the chain ([`crate::lut::open_bits`]'s path, linear in n) and hashed.
/// Fresh if any one party is honest.
fn session_id(mesh: &mut Mesh, mine: [u8; 32], engine: YaoEngine) -> Result<[u8; 32], MixedError> {
    let mut hasher = blake3::Hasher::new_derive_key("mixgc mixed Y form session id");
    mesh.set_phase("the Y form's session id");
    match engine {
        YaoEngine::Bmr => {
            mesh.send_all(Tag::ProgramHeader, &mine)?;
            for p in 0..mesh.parties() {
                if p == mesh.me() {
                    hasher.update(&mine);
                } else {
                    hasher.update(&mesh.recv_exact(p, Tag::ProgramHeader, mine.len())?);
                }
            }
        }
        YaoEngine::Lut => {
            let bits: Vec<u8> = (0..256).map(|i| (mine[i / 8] >> (i % 8)) & 1).collect();
            let xored = crate::lut::open_bits(mesh, bits)?;
            hasher.update(b"lut");
            hasher.update(&xored);
        }
    }
    Ok(*hasher.finalize().as_bytes())
}

impl YaoState {
    /// Agrees on a session id with every party and sets up the engine: BMR's Δ and base
    /// OTs with every party; Lut's key ring (nothing sent). `batch_ands` ANDs at most per
    /// garbled batch (Lut caps it at [`crate::yao_lut::MAX_BATCH_ANDS`]).
    pub fn setup<R: RngCore + CryptoRng>(
        mesh: &mut Mesh,
        rng: &mut R,
        batch_ands: usize,
        engine: YaoEngine,
    ) -> Result<YaoState, MixedError> {
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let mut core = CoreRng::from_seed(seed);
        let mut mine = [0u8; 32];
        rand::RngCore::fill_bytes(&mut core, &mut mine);
        let session = session_id(mesh, mine, engine)?;
        match engine {
            YaoEngine::Bmr => {
                let options = BmrOptions {
                    batch_ands,
                    ..BmrOptions::default()
                };
                mesh.set_phase("the Y form's setup (base OTs)");
                let labels = Labels::setup(mesh, &session, &mut core, &options)?;
                Ok(YaoState::Bmr {
                    labels: Box::new(labels),
                    rng: Box::new(core),
                })
            }
            YaoEngine::Lut => {
                let mut lut_seed = [0u8; 32];
                rand::RngCore::fill_bytes(&mut core, &mut lut_seed);
                let lut = LutYao::new(session, batch_ands, rng_from_seed(lut_seed))?;
                Ok(YaoState::Lut(Box::new(lut)))
            }
        }
    }

    pub fn engine(&self) -> YaoEngine {
        match self {
            YaoState::Bmr { .. } => YaoEngine::Bmr,
            YaoState::Lut(_) => YaoEngine::Lut,
        }
    }

    /// AND gates garbled so far.
    pub fn ands(&self) -> u64 {
        match self {
            YaoState::Bmr { labels, .. } => labels.ands(),
            YaoState::Lut(l) => l.ands(),
        }
    }

    /// Batches garbled so far.
    pub fn batches(&self) -> u64 {
        match self {
            YaoState::Bmr { labels, .. } => labels.batches(),
            YaoState::Lut(l) => l.batches(),
        }
    }

    /// Seconds so far in the garbling (offline) and the evaluation (online) of batches.
    pub fn times(&self) -> (f64, f64) {
        let (offline, online): (Duration, Duration) = match self {
            YaoState::Bmr { labels, .. } => labels.times(),
            YaoState::Lut(l) => (l.times()[0], l.times()[1]),
        };
        (offline.as_secs_f64(), online.as_secs_f64())
    }

    /// With Lut: bytes [sent, received] so far in garbling (offline) and in evaluation
    /// (online); BMR does not split them (`None`).
    pub fn lut_bytes(&self) -> Option<[[u64; 2]; 2]> {
        match self {
            YaoState::Bmr { .. } => None,
            YaoState::Lut(l) => Some(l.bytes()),
        }
    }

    /// Garbles and evaluates the pending batch now.
    pub fn flush(&mut self, env: &mut YaoEnv) -> Result<(), MixedError> {
        match self {
            YaoState::Bmr { labels, rng } => Ok(labels.flush(env.mesh, rng)?),
            YaoState::Lut(l) => l.flush(&mut env.lut()),
        }
    }

    /// Wire slots taken so far (what this party's Y state grows with).
    pub fn slots(&self) -> u32 {
        match self {
            YaoState::Bmr { labels, .. } => labels.slots(),
            YaoState::Lut(l) => l.slots(),
        }
    }

    /// One new wire per lane: gate `kind` on `a[i]` and `b[i]` (those it reads; a
    /// constant's value is `a[i]`).
    fn lanes(
        &mut self,
        env: &mut YaoEnv,
        kind: GateKind,
        a: &[u32],
        b: &[u32],
    ) -> Result<Vec<u32>, MixedError> {
        (0..a.len())
            .map(|i| {
                let bi = b.get(i).copied().unwrap_or(0);
                match self {
                    YaoState::Bmr { labels, rng } => {
                        let m = &mut *env.mesh;
                        Ok(match kind {
                            GateKind::And => labels.and(m, rng, a[i], bi)?,
                            GateKind::Xor => labels.xor(m, rng, a[i], bi)?,
                            GateKind::Not => labels.not(m, rng, a[i])?,
                            _ => labels.constant(m, rng, a[i] == 1)?,
                        })
                    }
                    YaoState::Lut(l) => l.gate(&mut env.lut(), kind, a[i], bi),
                }
            })
            .collect()
    }

    pub fn and(&mut self, env: &mut YaoEnv, a: &[u32], b: &[u32]) -> Result<Vec<u32>, MixedError> {
        self.lanes(env, GateKind::And, a, b)
    }

    pub fn xor(&mut self, env: &mut YaoEnv, a: &[u32], b: &[u32]) -> Result<Vec<u32>, MixedError> {
        self.lanes(env, GateKind::Xor, a, b)
    }

    pub fn not(&mut self, env: &mut YaoEnv, a: &[u32]) -> Result<Vec<u32>, MixedError> {
        self.lanes(env, GateKind::Not, a, &[])
    }

    /// Public constants.
    pub fn constants(&mut self, env: &mut YaoEnv, bits: &[bool]) -> Result<Vec<u32>, MixedError> {
        let values: Vec<u32> = bits.iter().map(|&b| u32::from(b)).collect();
        self.lanes(env, GateKind::Const, &values, &[])
    }

    /// B→Y of this party's XOR shares (one byte a bit).
    pub fn from_shares(&mut self, env: &mut YaoEnv, shares: &[u8]) -> Result<Vec<u32>, MixedError> {
        match self {
            YaoState::Bmr { labels, rng } => {
                let bits: Vec<bool> = shares.iter().map(|&b| b & 1 == 1).collect();
                Ok(labels.from_shares(env.mesh, rng, &bits)?)
            }
            YaoState::Lut(l) => Ok(l.from_shares(shares)),
        }
    }

    /// Y→B: this party's XOR shares (one byte a bit) of `wires`.
    pub fn to_shares(&mut self, env: &mut YaoEnv, wires: &[u32]) -> Result<Vec<u8>, MixedError> {
        match self {
            YaoState::Bmr { labels, rng } => {
                let bits = labels.to_shares(env.mesh, rng, wires)?;
                Ok(bits.into_iter().map(u8::from).collect())
            }
            YaoState::Lut(l) => l.to_shares(&mut env.lut(), wires),
        }
    }

    /// Frees the slots of `wires` (a released wire must not be used again).
    pub fn release(&mut self, wires: &[u32]) {
        match self {
            YaoState::Bmr { labels, .. } => labels.release(wires),
            YaoState::Lut(l) => l.release(wires),
        }
    }
}
