//! What the arithmetic hashes read: the tweak (domain and gate) and the input label, and how
//! an input is encoded for the AES row hash.

use mixgc_core::Block;

use crate::encoding::{boolean_encoding, encode_groups, Encoded, MAX_BLOCKS};
use crate::grouped::GroupedLabel;
use crate::Label;

/// What a hash call is for; part of every tweak, so no two gadgets (or the two halves of
/// a product) ever hash under the same tweak.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(u8)]
pub enum Domain {
    /// A projection gate Z_p → Z_q (public exponentiation included).
    Projection = 1,
    /// The garbler half of a product (BMR16 generalized half gate): a projection of A.
    MulGarblerHalf = 2,
    /// The evaluator half of a product: the hash of B.
    MulEvaluatorHalf = 3,
    /// Lifting a Boolean label to a ring label mod 2^k ([`crate::ArithGarbler::lift`]: the
    /// mod-2^k compositions and each step of the decompositions inside a CRT BD).
    BitLift = 4,
}

/// A hash tweak: the domain and the gate's global index (in garbling order; never
/// repeated within a session).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Tweak {
    pub domain: Domain,
    pub gate: u64,
}

/// What a hash call reads: a label, or a mod-2 label given as its free-XOR block (packed,
/// a mod-2 label is exactly its 16 bytes LE, so both give the same hash).
#[derive(Clone, Copy)]
pub(crate) enum Input<'a> {
    Label(&'a Label),
    /// A label mod an odd prime with its group values: hashed as the same label, but packed
    /// and encoded from the group values without joining digits.
    Grouped(&'a GroupedLabel),
    Bits(Block),
}

impl Input<'_> {
    /// The colour digit of the input label.
    pub(crate) fn colour(self) -> u64 {
        match self {
            Input::Label(label) => label.colour(),
            Input::Grouped(label) => label.colour(),
            Input::Bits(block) => u64::from(block.lsb()),
        }
    }
}

/// Whether `input` has a modulus the encoding covers (2 or an odd prime).
pub(crate) fn encodable(input: Input) -> bool {
    match input {
        Input::Bits(_) => true,
        Input::Label(label) => label.modulus().is_boolean() || label.modulus().odd_prime_value().is_some(),
        Input::Grouped(_) => true,
    }
}

/// The injective encoding (x, e, m) of the module documentation.
#[inline]
pub(crate) fn encode(input: Input) -> Encoded {
    let label = match input {
        Input::Bits(block) => return boolean_encoding(block),
        Input::Grouped(label) => return label.encoded(),
        Input::Label(label) => label,
    };
    let m = label.modulus();
    if m.odd_prime_value().is_none() {
        return boolean_encoding(
            label
                .to_block()
                .expect("encodable inputs are mod 2 or odd primes"),
        );
    }
    let mut groups = [0; MAX_BLOCKS];
    let groups = &mut groups[..m.group_count()];
    m.join_groups(label.digits(), groups);
    encode_groups(m, groups)
}
