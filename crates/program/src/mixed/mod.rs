//! Mixed-mode programs for n parties (issue #18 point 7; the seed "Scalable Mixed-Mode MPC",
//! §3 Figures 2–3 for the forms, §5 for the conversions): one primitive trait,
//! [`MixedBackend`], that every backend implements, and applications written once on top of
//! it ([`biomatch`], [`kmeans`]).
//!
//! Values live in one of four forms, each a vector of lanes (the apps' operations are
//! vectors, so a backend converts a whole vector in one batch):
//!
//! - A: additive shares modulo [`PLAINTEXT_MODULUS`] (the seed's p = 2^32 − 2^30 + 1);
//! - B: XOR-shared bits;
//! - E: a threshold ciphertext packing up to [`SLOTS`] values mod p;
//! - Y: BMR garbled labels of bits (free XOR, ANDs garbled jointly in batches).
//!
//! Every conversion is explicit: [`MixedBackend::to_bool`] (A2B, Figure 10),
//! [`MixedBackend::to_arith`] (B2A, Figure 9), [`MixedBackend::enc_to_arith`] (E2A,
//! Figure 15), [`MixedBackend::to_enc`] (A2E), [`MixedBackend::to_yao`] (B→Y) and
//! [`MixedBackend::yao_to_bool`] (Y→B). Gadgets on bits are written once for the B and Y
//! forms over [`BitForm`]. A party's own clear values enter as a
//! [`Private`]. Backends: [`MixedPlain`] (the clear answer, the reference),
//! [`MixedCounter`] (operation counts in the seed's Table 6 columns) and the n-party
//! protocol in `mixgc_mixed::program`.

pub mod biomatch;
mod bit_forms;
mod cost;
pub mod kmeans;
mod kmeans_circuits;
mod local;
mod plain;

pub use bit_forms::{BitForm, BoolForm, YaoForm};
pub use cost::{MixedCost, MixedCounter, Shape};
pub use local::{
    add_mod_p, mul_mod_p, mul_public_mod_p, private_share, public_share, sub_mod_p, sum_chunks_mod_p,
};
pub use plain::MixedPlain;

use crate::PeerError;

/// The seed's plaintext prime p = 2^32 − 2^30 + 1 = 3·2^30 + 1: the A and E forms compute
/// modulo it (`mixgc_mixed`'s BFV plaintext modulus is this constant).
pub const PLAINTEXT_MODULUS: u64 = (1 << 32) - (1 << 30) + 1;

/// Slots of one E-form ciphertext: the ring degree N = 16384 of `mixgc_mixed`'s parameters.
pub const SLOTS: usize = 16384;

/// Bits A2B gives per value: every value mod p is below 2^32.
pub const A2B_BITS: usize = 32;

/// Why a mixed program could not run on a backend.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum MixedProgramError {
    /// Two operands of a lane-wise operation differ in length.
    #[error("{op}: operands of {left} and {right} lanes")]
    Lengths {
        op: &'static str,
        left: usize,
        right: usize,
    },
    /// More values than one ciphertext's [`SLOTS`].
    #[error("{op}: {len} values do not fit the {SLOTS} slots of a ciphertext")]
    TooManySlots { op: &'static str, len: usize },
    /// A value of the A or E form that is not below p.
    #[error("{what}: value {index} is {value}, not below p = {PLAINTEXT_MODULUS}")]
    NotModP {
        what: &'static str,
        index: usize,
        value: u64,
    },
    /// A backend that computes on a party's values was not given them.
    #[error("this backend needs the values of party {owner}'s private input")]
    MissingInput { owner: usize },
    /// A private input of another length than declared.
    #[error("party {owner}'s private input has {got} values, {expected} declared")]
    InputLength {
        owner: usize,
        expected: usize,
        got: usize,
    },
    /// A party the run does not have.
    #[error("{what}: there is no party {party} among {parties}")]
    NoSuchParty {
        what: &'static str,
        party: usize,
        parties: usize,
    },
    /// A lane index past the end of a vector.
    #[error("{op}: lane {lane} of a vector of {len}")]
    NoSuchLane {
        op: &'static str,
        lane: usize,
        len: usize,
    },
    /// A vector that does not split into equal chunks.
    #[error("{op}: {len} lanes do not split into chunks of {chunk}")]
    Chunks {
        op: &'static str,
        len: usize,
        chunk: usize,
    },
    /// Two private terms of one party in one product sum, or terms that disagree.
    #[error("{0}")]
    Terms(String),
    /// An application's input that breaks its rules (its message says which).
    #[error("{0}")]
    Input(String),
    /// An operation this backend does not offer.
    #[error("{0}")]
    Unsupported(&'static str),
    /// The n-party backend failed (a peer stopped, sent a malformed message, or the HE
    /// library refused); its own error (`mixgc_mixed::MixedError`) is kept whole.
    #[error(transparent)]
    Backend(PeerError),
}

/// Who learns an output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recipient {
    /// One party: the others get `None`.
    Party(usize),
    /// Every party.
    All,
}

/// A handle of a mixed-mode vector: its length in lanes (slots for the E form).
pub trait Shaped: Clone + std::fmt::Debug {
    fn lanes(&self) -> usize;
}

impl<T: Clone + std::fmt::Debug> Shaped for Vec<T> {
    fn lanes(&self) -> usize {
        self.len()
    }
}

/// A vector of clear values mod p held by one party (`owner`): the values where this
/// backend has them (every party's in plaintext, only its own at an n-party party).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Private {
    owner: usize,
    len: usize,
    values: Option<Vec<u64>>,
}

impl Private {
    /// `owner`'s vector of `len` values, each checked below p; `values` where known.
    pub fn new(owner: usize, len: usize, values: Option<Vec<u64>>) -> Result<Private, MixedProgramError> {
        if let Some(v) = &values {
            if v.len() != len {
                return Err(MixedProgramError::InputLength {
                    owner,
                    expected: len,
                    got: v.len(),
                });
            }
            check_mod_p("private input", v)?;
        }
        Ok(Private { owner, len, values })
    }

    pub fn owner(&self) -> usize {
        self.owner
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The values, where this backend has them.
    pub fn values(&self) -> Option<&[u64]> {
        self.values.as_deref()
    }

    /// The values, or [`MixedProgramError::MissingInput`].
    pub fn known(&self) -> Result<&[u64], MixedProgramError> {
        self.values()
            .ok_or(MixedProgramError::MissingInput { owner: self.owner })
    }
}

/// A party's term of [`MixedBackend::mul_add_private`]: in the public `slots` (strictly
/// increasing), ct·factor + addend with the owner's factor and addend (one value per slot);
/// zero in every other slot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrivateTerm {
    pub slots: Vec<usize>,
    pub factor: Private,
    pub addend: Private,
}

impl PrivateTerm {
    /// The factor and addend spread over `len` slots (zero outside [`PrivateTerm::slots`]),
    /// where this backend has them.
    pub fn spread(&self, len: usize) -> Option<(Vec<u64>, Vec<u64>)> {
        let (f, g) = (self.factor.values()?, self.addend.values()?);
        let (mut factor, mut addend) = (vec![0; len], vec![0; len]);
        for (k, &s) in self.slots.iter().enumerate() {
            factor[s] = f[k];
            addend[s] = g[k];
        }
        Some((factor, addend))
    }
}

/// The primitives of a mixed-mode program over n parties (seed Figure 2's ABB, per form).
///
/// Every party runs the same program, calling the same operations in the same order; an
/// n-party backend communicates inside them. Vectors are lane-wise: an operation on k
/// lanes is one batch (one round where it needs one).
pub trait MixedBackend {
    /// A form: a vector of values mod p.
    type Arith: Shaped;
    /// B form: a vector of bits.
    type Bool: Shaped;
    /// E form: a packed ciphertext of up to [`SLOTS`] values mod p.
    type Enc: Shaped;
    /// Y form: a vector of bits as BMR garbled labels.
    type Yao: Shaped;

    /// The parties of the run (n ≥ 2).
    fn parties(&self) -> usize;

    /// Names the step that follows, for progress reports and error messages.
    fn phase(&mut self, _name: &'static str) {}

    /// `owner`'s private vector of `len` values mod p. `values` is the owner's secret:
    /// backends that compute on values need it (the n-party backend only at the owner).
    fn private(
        &mut self,
        owner: usize,
        len: usize,
        values: Option<Vec<u64>>,
    ) -> Result<Private, MixedProgramError> {
        check_party("private input", owner, self.parties())?;
        Private::new(owner, len, values)
    }

    /// A form of a private vector (the owner's share is the value, the others' zero).
    fn share(&mut self, value: &Private) -> Result<Self::Arith, MixedProgramError>;
    /// The lanes of `parts`, one after the other (local).
    fn concat_arith(&mut self, parts: &[Self::Arith]) -> Self::Arith;
    /// A form of public values mod p.
    fn public_arith(&mut self, values: &[u64]) -> Result<Self::Arith, MixedProgramError>;
    /// Lane-wise a + b mod p.
    fn add(&mut self, a: &Self::Arith, b: &Self::Arith) -> Result<Self::Arith, MixedProgramError>;
    /// Lane-wise a − b mod p.
    fn sub(&mut self, a: &Self::Arith, b: &Self::Arith) -> Result<Self::Arith, MixedProgramError>;
    /// Lane-wise a · k mod p for public `k` (each < p).
    fn mul_public(&mut self, a: &Self::Arith, k: &[u64]) -> Result<Self::Arith, MixedProgramError>;
    /// The sums of consecutive chunks of `chunk` lanes (a local linear map).
    fn sum_chunks(&mut self, a: &Self::Arith, chunk: usize) -> Result<Self::Arith, MixedProgramError>;
    /// Lane-wise a · b mod p of two A values (Beaver triples from threshold HE, seed §3.3,
    /// where the backend has them).
    fn mul(&mut self, a: &Self::Arith, b: &Self::Arith) -> Result<Self::Arith, MixedProgramError>;

    /// E form of a private vector: the owner encrypts it under the collective key.
    fn encrypt(&mut self, value: &Private) -> Result<Self::Enc, MixedProgramError>;
    /// Σ_i (ct · factor_i + addend_i) over the parties' private terms (at most one per
    /// party, see [`PrivateTerm`]), re-randomized: E-form plaintext products, one slot
    /// product per slot of a term.
    fn mul_add_private(
        &mut self,
        ct: &Self::Enc,
        terms: &[PrivateTerm],
    ) -> Result<Self::Enc, MixedProgramError>;

    /// B form of public bits.
    fn public_bits(&mut self, bits: &[bool]) -> Self::Bool;
    /// B form of a private vector: its `width` low bits by position (element j holds bit j
    /// of every lane, as [`MixedBackend::to_bool`]); the owner's share is the value, the
    /// others' zero. Every known value must be below 2^`width` (`width` ≤ [`A2B_BITS`]).
    fn share_bits(&mut self, value: &Private, width: usize) -> Result<Vec<Self::Bool>, MixedProgramError>;
    /// Lane-wise XOR.
    fn xor(&mut self, a: &Self::Bool, b: &Self::Bool) -> Result<Self::Bool, MixedProgramError>;
    /// Lane-wise AND: one batch of ANDs, one round.
    fn and(&mut self, a: &Self::Bool, b: &Self::Bool) -> Result<Self::Bool, MixedProgramError>;
    /// Lane-wise NOT.
    fn not(&mut self, a: &Self::Bool) -> Self::Bool;
    /// The lanes of `a` at `lanes`, in that order (repeats allowed; local).
    fn gather(&mut self, a: &Self::Bool, lanes: &[usize]) -> Result<Self::Bool, MixedProgramError>;
    /// The lanes of `parts`, one after the other (local).
    fn concat(&mut self, parts: &[Self::Bool]) -> Self::Bool;
    /// Prepares `count` ANDs ahead of use (the offline phase); later ANDs use them first.
    fn stock_ands(&mut self, count: usize) -> Result<(), MixedProgramError>;

    /// B2A (seed Figure 9): each bit to 0 or 1 mod p.
    fn to_arith(&mut self, bits: &Self::Bool) -> Result<Self::Arith, MixedProgramError>;
    /// A2B (seed Figure 10): the [`A2B_BITS`] bits of every value, by bit position:
    /// element j holds bit j of every lane.
    fn to_bool(&mut self, a: &Self::Arith) -> Result<Vec<Self::Bool>, MixedProgramError>;
    /// E2A (seed Figure 15): the ciphertext's slots as an A vector.
    fn enc_to_arith(&mut self, ct: &Self::Enc) -> Result<Self::Arith, MixedProgramError>;
    /// A2E: an A vector (at most [`SLOTS`] lanes) as a ciphertext.
    fn to_enc(&mut self, a: &Self::Arith) -> Result<Self::Enc, MixedProgramError>;

    /// B→Y: the bits as garbled labels. In BMR, each party's λ share of a new wire is its
    /// XOR share, so the masked value is 0: no online message (docs/mixed-mode.md).
    fn to_yao(&mut self, bits: &Self::Bool) -> Result<Self::Yao, MixedProgramError>;
    /// Y→B (seed §6.2, Figure 12 step 9): XOR shares of the bits, local once the pending
    /// garbled batch is evaluated.
    fn yao_to_bool(&mut self, a: &Self::Yao) -> Result<Self::Bool, MixedProgramError>;
    /// Y form of public bits (free: a constant wire has public labels).
    fn public_yao(&mut self, bits: &[bool]) -> Result<Self::Yao, MixedProgramError>;
    /// Lane-wise XOR of Y vectors (free).
    fn yao_xor(&mut self, a: &Self::Yao, b: &Self::Yao) -> Result<Self::Yao, MixedProgramError>;
    /// Lane-wise AND of Y vectors: garbled ANDs, joined to the pending batch.
    fn yao_and(&mut self, a: &Self::Yao, b: &Self::Yao) -> Result<Self::Yao, MixedProgramError>;
    /// Lane-wise NOT of a Y vector (free).
    fn yao_not(&mut self, a: &Self::Yao) -> Result<Self::Yao, MixedProgramError>;
    /// The lanes of a Y vector at `lanes`, in that order (repeats allowed; local).
    fn yao_gather(&mut self, a: &Self::Yao, lanes: &[usize]) -> Result<Self::Yao, MixedProgramError>;
    /// The lanes of Y vectors `parts`, one after the other (local).
    fn yao_concat(&mut self, parts: &[Self::Yao]) -> Self::Yao;
    /// Frees the wires of `a` (local): neither `a` nor any vector sharing its lanes (by
    /// gather or concat) may be used afterwards. Backends without wire state do nothing.
    fn yao_release(&mut self, _a: &Self::Yao) {}

    /// Opens an A vector to `to`: its values where this party learns them.
    fn output_arith(&mut self, a: &Self::Arith, to: Recipient)
        -> Result<Option<Vec<u64>>, MixedProgramError>;
    /// Opens a B vector to `to`: its bits where this party learns them.
    fn output_bool(&mut self, a: &Self::Bool, to: Recipient) -> Result<Option<Vec<bool>>, MixedProgramError>;
}

/// Checks that `party` is one of `parties`.
pub fn check_party(what: &'static str, party: usize, parties: usize) -> Result<(), MixedProgramError> {
    if party < parties {
        Ok(())
    } else {
        Err(MixedProgramError::NoSuchParty { what, party, parties })
    }
}

/// Checks that every value is below p.
pub fn check_mod_p(what: &'static str, values: &[u64]) -> Result<(), MixedProgramError> {
    match values.iter().position(|&v| v >= PLAINTEXT_MODULUS) {
        Some(index) => Err(MixedProgramError::NotModP {
            what,
            index,
            value: values[index],
        }),
        None => Ok(()),
    }
}

/// Checks that two operands have as many lanes.
pub fn check_lengths(op: &'static str, left: usize, right: usize) -> Result<(), MixedProgramError> {
    if left == right {
        Ok(())
    } else {
        Err(MixedProgramError::Lengths { op, left, right })
    }
}

/// Checks that `len` values fit one ciphertext.
pub fn check_slots(op: &'static str, len: usize) -> Result<(), MixedProgramError> {
    if len <= SLOTS {
        Ok(())
    } else {
        Err(MixedProgramError::TooManySlots { op, len })
    }
}

/// Checks that `width` ≤ [`A2B_BITS`] and that every known value of `value` is below
/// 2^`width` (for [`MixedBackend::share_bits`]).
pub fn check_width(value: &Private, width: usize) -> Result<(), MixedProgramError> {
    if width > A2B_BITS {
        return Err(MixedProgramError::Input(format!(
            "share_bits: {width} bits, more than the {A2B_BITS} of a value mod p"
        )));
    }
    if let Some(v) = value.values() {
        if let Some(index) = v.iter().position(|&x| x >> width != 0) {
            return Err(MixedProgramError::Input(format!(
                "share_bits: party {}'s value {index} is {}, not below 2^{width}",
                value.owner(),
                v[index]
            )));
        }
    }
    Ok(())
}

/// Bit j of every value, for j below `width`: the bit-position layout of B vectors (as
/// `bool`s in the clear, as one-byte XOR shares at an n-party backend).
pub fn bit_rows<T: From<bool>>(values: &[u64], width: usize) -> Vec<Vec<T>> {
    (0..width)
        .map(|j| values.iter().map(|v| T::from((v >> j) & 1 == 1)).collect())
        .collect()
}

/// Checks that `lanes` index a vector of `len`.
pub fn check_lanes(op: &'static str, lanes: &[usize], len: usize) -> Result<(), MixedProgramError> {
    match lanes.iter().find(|&&l| l >= len) {
        Some(&lane) => Err(MixedProgramError::NoSuchLane { op, lane, len }),
        None => Ok(()),
    }
}

/// Checks that `len` splits into chunks of `chunk` ≥ 1.
pub fn check_chunks(op: &'static str, len: usize, chunk: usize) -> Result<(), MixedProgramError> {
    if chunk > 0 && len.is_multiple_of(chunk) {
        Ok(())
    } else {
        Err(MixedProgramError::Chunks { op, len, chunk })
    }
}

/// Checks the terms of [`MixedBackend::mul_add_private`] on a ciphertext of `len` slots:
/// each term's factor and addend of one owner and one value per slot, its slots strictly
/// increasing and below `len`, at most one term per party.
pub fn check_terms(terms: &[PrivateTerm], len: usize, parties: usize) -> Result<(), MixedProgramError> {
    let mut seen = vec![false; parties];
    for t in terms {
        let owner = t.factor.owner();
        check_party("private term", owner, parties)?;
        if t.addend.owner() != owner {
            return Err(MixedProgramError::Terms(format!(
                "a private term's factor is party {owner}'s, its addend party {}'s",
                t.addend.owner()
            )));
        }
        check_lengths("private term factor", t.slots.len(), t.factor.len())?;
        check_lengths("private term addend", t.slots.len(), t.addend.len())?;
        check_lanes("private term", &t.slots, len)?;
        if t.slots.windows(2).any(|w| w[0] >= w[1]) {
            return Err(MixedProgramError::Terms(format!(
                "party {owner}'s term names its slots out of order or twice"
            )));
        }
        if std::mem::replace(&mut seen[owner], true) {
            return Err(MixedProgramError::Terms(format!(
                "party {owner} has two terms in one sum of private products"
            )));
        }
    }
    Ok(())
}
