//! Sans-IO garbling cores. The [`Garbler`] turns (zero-labels, instructions) into
//! (garbled tables, output zero-labels); the [`Evaluator`] turns (active labels, tables)
//! into output labels. Neither touches a socket: the session layer moves tables in frames,
//! which lets one core serve streaming, preprocessing and pipelined execution.
//!
//! Boolean gates use free-XOR (Kolesnikov–Schneider 2008) with a global offset Δ,
//! lsb(Δ) = 1 for point-and-permute, and half-gates ANDs (Zahur–Rosulek–Evans 2015,
//! ePrint 2014/756, §3) with tweaks j = 2g, j' = 2g + 1 from the gate's global AND index g,
//! or, chosen per core ([`Scheme`]), three-halves ANDs (Rosulek–Roy 2021, ePrint 2021/749)
//! at 1.5κ + 5 bits per AND.
//!
//! Both cores can spread the parallel blocks of a stream (full and segment layouts) over
//! several threads (`set_threads`); the tables and labels are the same for every thread
//! count.

mod evaluator;
mod garbler;
mod half_gates;
mod parallel;
mod pool;
mod runs;
mod three_halves;
mod tweak;

pub use evaluator::Evaluator;
pub use garbler::Garbler;
pub use half_gates::{HalfGateEvaluator, HalfGateGarbler};
pub use parallel::DEFAULT_SPLIT_ANDS;
pub use three_halves::{group_bytes as three_halves_group_bytes, ThreeHalvesEvaluator, ThreeHalvesGarbler};

/// Most AND gates hashed as one batch: 16 ANDs are 64 independent AES inputs per hash layer
/// when garbling, 32 when evaluating, enough to keep AES-NI's pipeline full. A compiled
/// stream's AND runs fit one batch.
pub const MAX_AND_GROUP: usize = 16;
const _: () = assert!(mixgc_compile::MAX_AND_RUN <= MAX_AND_GROUP);

/// Garbled-table blocks per AND gate (half-gates: T_G and T_E).
pub const BLOCKS_PER_AND: usize = 2;

/// How the compiled-stream cores garble AND gates; fixed when a core is made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheme {
    /// Half-gates: [`BLOCKS_PER_AND`] blocks per AND; tables are blocks
    /// ([`Garbler::garble`], [`Evaluator::evaluate`]).
    #[default]
    HalfGates,
    /// Three-halves (Rosulek–Roy 2021, ePrint 2021/749): 24 bytes and 5 bits per AND, a
    /// group of n ANDs taking [`three_halves_group_bytes`]`(n)` bytes; tables are bytes
    /// ([`Garbler::garble_bytes`], [`Evaluator::evaluate_bytes`]).
    ThreeHalves,
}

impl Scheme {
    /// The scheme's name on the command line and in messages.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::HalfGates => "half-gates",
            Scheme::ThreeHalves => "three-halves",
        }
    }
}

impl std::fmt::Display for Scheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
