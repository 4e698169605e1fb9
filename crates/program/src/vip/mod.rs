//! The VIP-Bench workloads of HAAC (Mo et al., "HAAC: A Hardware-Software Co-Design to
//! Accelerate Garbled Circuits", §5 and Table 2), written as two-party programs on the typed
//! interface ([`Ctx`], [`SInt`], [`UInt`]) and the gadget library, each with a plaintext
//! reference model ([`model`]).
//!
//! Every workload takes and gives 32-bit words: each party's input is a fixed number of
//! words ([`Workload::garbler_words`], [`Workload::evaluator_words`]), input as one value
//! of 32·n bits, and the output is [`Workload::output_words`] words revealed as one value.
//! Bit strings (`hamm`) are packed little-endian, bit i of the string being bit i mod 32 of
//! word i / 32.

pub mod model;
mod programs;
#[cfg(test)]
mod tests;

use crate::{Backend, Counter, Ctx, PartyId, ProgramError, UInt};

pub use programs::{mt_output_count, GRADDESC_POINTS, GRADDESC_ROUNDS, HAMM_BITS, LEARNING_RATE_BITS};

/// One of the eight workloads of HAAC's Table 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Workload {
    /// Data-oblivious bubble sort, ascending, of 256 signed int32 (128 from each party).
    BubbSt,
    /// Σ a_i·b_i over 128 int32 pairs, mod 2^32.
    DotProd,
    /// MT19937 from the garbler's seed (1998 `sgenrand`), the first 1,000 outputs.
    Merse,
    /// trace(A³) / 6 of a 13×13 int32 matrix (rows 0–6 the garbler's, 7–12 the evaluator's).
    Triangle,
    /// popcount(a ⊕ b) of two 40,960-bit strings.
    Hamm,
    /// C = A·B of 8×8 int32 matrices, mod 2^32.
    MatMult,
    /// max(x, 0) on 2,048 int32 (1,024 from each party).
    Relu,
    /// 20 rounds of gradient descent for y = w·x + b on 8 points in IEEE binary32 (the
    /// garbler's y, the evaluator's x); outputs w then b as binary32 bit patterns.
    GradDesc,
}

/// HAAC Table 2's size of a workload: gates in thousands and the share of ANDs in percent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HaacSize {
    pub kilo_gates: u64,
    pub and_percent: f64,
}

impl HaacSize {
    /// Table 2's AND count: its gates (given in thousands) × its AND %, rounded.
    pub fn ands(&self) -> u64 {
        (self.kilo_gates as f64 * 1000.0 * self.and_percent / 100.0).round() as u64
    }
}

/// Why a workload could not run.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum VipError {
    #[error("unknown VIP-Bench workload `{0}` (known: bubbst, dotprod, merse, triangle, hamm, matmult, relu, graddesc)")]
    UnknownWorkload(String),
    #[error("{workload}: the {owner}'s input must be {expected} 32-bit words, got {got}")]
    InputWords {
        workload: &'static str,
        owner: PartyId,
        expected: usize,
        got: usize,
    },
    #[error(transparent)]
    Program(#[from] ProgramError),
}

impl Workload {
    pub const ALL: [Workload; 8] = [
        Workload::BubbSt,
        Workload::DotProd,
        Workload::Merse,
        Workload::Triangle,
        Workload::Hamm,
        Workload::MatMult,
        Workload::Relu,
        Workload::GradDesc,
    ];

    /// The command-line name (`mixgc vip NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Workload::BubbSt => "bubbst",
            Workload::DotProd => "dotprod",
            Workload::Merse => "merse",
            Workload::Triangle => "triangle",
            Workload::Hamm => "hamm",
            Workload::MatMult => "matmult",
            Workload::Relu => "relu",
            Workload::GradDesc => "graddesc",
        }
    }

    pub fn from_name(name: &str) -> Result<Workload, VipError> {
        Workload::ALL
            .into_iter()
            .find(|w| w.name() == name)
            .ok_or_else(|| VipError::UnknownWorkload(name.to_string()))
    }

    /// Words of the garbler's input.
    pub fn garbler_words(self) -> usize {
        match self {
            Workload::BubbSt | Workload::DotProd => 128,
            Workload::Merse => 1,
            Workload::Triangle => 7 * 13,
            Workload::Hamm => HAMM_BITS / 32,
            Workload::MatMult => 64,
            Workload::Relu => 1024,
            Workload::GradDesc => GRADDESC_POINTS,
        }
    }

    /// Words of the evaluator's input.
    pub fn evaluator_words(self) -> usize {
        match self {
            Workload::Merse => 0,
            Workload::Triangle => 6 * 13,
            w => w.garbler_words(),
        }
    }

    /// Words of the output.
    pub fn output_words(self) -> usize {
        match self {
            Workload::BubbSt => 256,
            Workload::DotProd | Workload::Triangle | Workload::Hamm => 1,
            Workload::Merse => mt_output_count(),
            Workload::MatMult => 64,
            Workload::Relu => 2048,
            Workload::GradDesc => 2,
        }
    }

    /// Whether the output words are signed int32 (else uint32, or binary32 for
    /// [`Workload::float_output`]).
    pub fn signed_output(self) -> bool {
        !matches!(self, Workload::Merse | Workload::Hamm | Workload::GradDesc)
    }

    /// Whether inputs and output words are IEEE binary32 bit patterns.
    pub fn float_output(self) -> bool {
        self == Workload::GradDesc
    }

    /// The input words of `owner`.
    pub fn input_words(self, owner: PartyId) -> usize {
        if owner == PartyId::GARBLER {
            self.garbler_words()
        } else {
            self.evaluator_words()
        }
    }

    /// HAAC Table 2's size of this workload.
    pub fn haac(self) -> HaacSize {
        let (kilo_gates, and_percent) = match self {
            Workload::BubbSt => (12_534, 33.33),
            Workload::DotProd => (381, 34.39),
            Workload::Merse => (1_444, 27.15),
            Workload::Triangle => (6_979, 34.02),
            Workload::Hamm => (328, 25.0),
            Workload::MatMult => (1_515, 34.48),
            Workload::Relu => (68, 96.97),
            Workload::GradDesc => (6_343, 42.91),
        };
        HaacSize {
            kilo_gates,
            and_percent,
        }
    }

    /// The output computed in plaintext by the reference model (lengths as
    /// [`Workload::input_words`] says).
    pub fn model(self, garbler: &[u32], evaluator: &[u32]) -> Result<Vec<u32>, VipError> {
        self.check(PartyId::GARBLER, Some(garbler))?;
        self.check(PartyId::EVALUATOR, Some(evaluator))?;
        Ok(model::run(self, garbler, evaluator))
    }

    fn check(self, owner: PartyId, words: Option<&[u32]>) -> Result<(), VipError> {
        let expected = self.input_words(owner);
        match words {
            Some(w) if w.len() != expected => Err(VipError::InputWords {
                workload: self.name(),
                owner,
                expected,
                got: w.len(),
            }),
            _ => Ok(()),
        }
    }

    /// Runs the workload as a program on `ctx`: inputs the garbler's and the evaluator's
    /// words (`None` where this party does not know them), computes, and reveals the output,
    /// returned where this party learns it.
    pub fn program<B: Backend>(
        self,
        ctx: &Ctx<B>,
        garbler: Option<&[u32]>,
        evaluator: Option<&[u32]>,
    ) -> Result<Option<Vec<u32>>, VipError> {
        self.check(PartyId::GARBLER, garbler)?;
        self.check(PartyId::EVALUATOR, evaluator)?;
        let g = input_words(ctx, PartyId::GARBLER, self.garbler_words(), garbler)?;
        let e = input_words(ctx, PartyId::EVALUATOR, self.evaluator_words(), evaluator)?;
        let out = programs::compute(self, ctx, &g, &e);
        let bits = out.reveal()?;
        Ok(bits.map(|bits| {
            bits.chunks(32)
                .map(|w| w.iter().rev().fold(0u32, |acc, &b| acc << 1 | b as u32))
                .collect()
        }))
    }

    /// The program's cost, counted without running it.
    pub fn cost(self) -> Result<crate::Cost, VipError> {
        let ctx = Ctx::new(Counter::default());
        self.program(&ctx, None, None)?;
        let counter = ctx
            .into_inner()
            .ok_or(ProgramError::Unsupported("the counter is still shared"))?;
        Ok(counter.cost())
    }
}

/// `owner`'s words as one input value of 32·n bits, split back into 32-bit values (no
/// input at all for n = 0).
fn input_words<B: Backend>(
    ctx: &Ctx<B>,
    owner: PartyId,
    n: usize,
    words: Option<&[u32]>,
) -> Result<Vec<UInt<B>>, ProgramError> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let bits: Option<Vec<bool>> = words.map(|w| {
        w.iter()
            .flat_map(|&v| (0..32).map(move |i| v >> i & 1 == 1))
            .collect()
    });
    let width = u32::try_from(32 * n).map_err(|_| ProgramError::OutOfRange("input too wide".into()))?;
    let wires = ctx.with(|b| b.input(owner, width, bits.as_deref()))?;
    Ok(wires
        .chunks(32)
        .map(|w| UInt::from_wires(ctx, w.to_vec()))
        .collect())
}
