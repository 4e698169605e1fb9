//! The cost mixed backend: counts a program's operations in the columns of the seed's
//! Table 6 (AND, MULT, B2A, A2B) plus E2A, A2E, products of A values, the Y form's garbled
//! ANDs and conversions (B→Y, Y→B) and online rounds, without computing anything.

use super::plain::check_recipient;
use super::{
    check_chunks, check_lanes, check_lengths, check_mod_p, check_slots, check_terms, check_width,
    MixedBackend, MixedProgramError, Private, PrivateTerm, Recipient, Shaped, A2B_BITS,
};

/// ANDs inside one A2B's mod-p adder (seed Figure 10 step 5, as `mixgc_mixed::a2b` runs it):
/// 31 for u + r, 32 for the subtraction of p, 32 for the selection (the first position of
/// each sum has a local carry).
pub const ANDS_PER_A2B: usize = 3 * A2B_BITS - 1;

/// Online rounds of one batched A2B: the opening of x − r, then the adder's AND layers (its
/// two ripples in lockstep, 32, then the selection).
pub const A2B_ROUNDS: usize = 1 + A2B_BITS + 1;

/// A vector of the cost backend: only its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape(pub usize);

impl Shaped for Shape {
    fn lanes(&self) -> usize {
        self.0
    }
}

/// What a program costs, per item (lanes or slots), all parties together.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MixedCost {
    /// ANDs of the program's own B-form operations (lanes of [`MixedBackend::and`]).
    pub and: usize,
    /// ANDs inside the A2B adders: [`ANDS_PER_A2B`] per A2B (the r < p check of A2B's
    /// offline phase, about 31·4/3 more per A2B, depends on the random r and is not counted).
    pub a2b_and: usize,
    /// Plaintext–ciphertext slot products (E form).
    pub mult: usize,
    /// Products of two A values (arithmetic Beaver triples).
    pub arith_mul: usize,
    /// Bits converted by B2A ([`MixedBackend::to_arith`]); each A2B also runs 32 B2A of its
    /// random r's bits, not counted here.
    pub b2a: usize,
    /// Values converted by A2B.
    pub a2b: usize,
    /// Ciphertexts converted by E2A.
    pub e2a: usize,
    /// Ciphertexts made by A2E.
    pub a2e: usize,
    /// Garbled ANDs of the Y form (lanes of [`MixedBackend::yao_and`]).
    pub yao_and: usize,
    /// Bits converted B→Y ([`MixedBackend::to_yao`]).
    pub b2y: usize,
    /// Bits converted Y→B ([`MixedBackend::yao_to_bool`]).
    pub y2b: usize,
    /// ANDs prepared ahead by [`MixedBackend::stock_ands`].
    pub stocked_ands: usize,
    /// Online communication rounds: one per AND layer, opening, conversion step,
    /// encryption, product sum and output; [`A2B_ROUNDS`] per A2B. The Y form adds none:
    /// its batches are garbled in a constant number of offline rounds each and evaluated
    /// locally, B→Y and Y→B are local.
    pub rounds: usize,
}

/// Counts a program's operations ([`MixedCost`]); private values may be omitted.
#[derive(Clone, Debug)]
pub struct MixedCounter {
    parties: usize,
    cost: MixedCost,
}

impl MixedCounter {
    /// A count among `parties` (2 or more).
    pub fn new(parties: usize) -> Result<MixedCounter, MixedProgramError> {
        if parties < 2 {
            return Err(MixedProgramError::Input(format!(
                "a mixed-mode run needs at least 2 parties, not {parties}"
            )));
        }
        Ok(MixedCounter {
            parties,
            cost: MixedCost::default(),
        })
    }

    /// What the program ran so far costs.
    pub fn cost(&self) -> MixedCost {
        self.cost
    }
}

impl MixedBackend for MixedCounter {
    type Arith = Shape;
    type Bool = Shape;
    type Enc = Shape;
    type Yao = Shape;

    fn parties(&self) -> usize {
        self.parties
    }

    fn share(&mut self, value: &Private) -> Result<Shape, MixedProgramError> {
        Ok(Shape(value.len()))
    }

    fn public_arith(&mut self, values: &[u64]) -> Result<Shape, MixedProgramError> {
        check_mod_p("public value", values)?;
        Ok(Shape(values.len()))
    }

    fn concat_arith(&mut self, parts: &[Shape]) -> Shape {
        Shape(parts.iter().map(|s| s.0).sum())
    }

    fn add(&mut self, a: &Shape, b: &Shape) -> Result<Shape, MixedProgramError> {
        check_lengths("add", a.0, b.0)?;
        Ok(*a)
    }

    fn sub(&mut self, a: &Shape, b: &Shape) -> Result<Shape, MixedProgramError> {
        check_lengths("sub", a.0, b.0)?;
        Ok(*a)
    }

    fn mul_public(&mut self, a: &Shape, k: &[u64]) -> Result<Shape, MixedProgramError> {
        check_mod_p("public factor", k)?;
        check_lengths("mul_public", a.0, k.len())?;
        Ok(*a)
    }

    fn sum_chunks(&mut self, a: &Shape, chunk: usize) -> Result<Shape, MixedProgramError> {
        check_chunks("sum_chunks", a.0, chunk)?;
        Ok(Shape(a.0 / chunk))
    }

    fn mul(&mut self, a: &Shape, b: &Shape) -> Result<Shape, MixedProgramError> {
        check_lengths("mul", a.0, b.0)?;
        self.cost.arith_mul += a.0;
        self.cost.rounds += 1;
        Ok(*a)
    }

    fn encrypt(&mut self, value: &Private) -> Result<Shape, MixedProgramError> {
        check_slots("encrypt", value.len())?;
        self.cost.rounds += 1;
        Ok(Shape(value.len()))
    }

    fn mul_add_private(&mut self, ct: &Shape, terms: &[PrivateTerm]) -> Result<Shape, MixedProgramError> {
        check_terms(terms, ct.0, self.parties)?;
        self.cost.mult += terms.iter().map(|t| t.slots.len()).sum::<usize>();
        self.cost.rounds += 1;
        Ok(*ct)
    }

    fn public_bits(&mut self, bits: &[bool]) -> Shape {
        Shape(bits.len())
    }

    fn share_bits(&mut self, value: &Private, width: usize) -> Result<Vec<Shape>, MixedProgramError> {
        check_width(value, width)?;
        Ok(vec![Shape(value.len()); width])
    }

    fn xor(&mut self, a: &Shape, b: &Shape) -> Result<Shape, MixedProgramError> {
        check_lengths("xor", a.0, b.0)?;
        Ok(*a)
    }

    fn and(&mut self, a: &Shape, b: &Shape) -> Result<Shape, MixedProgramError> {
        check_lengths("and", a.0, b.0)?;
        self.cost.and += a.0;
        self.cost.rounds += usize::from(a.0 > 0);
        Ok(*a)
    }

    fn not(&mut self, a: &Shape) -> Shape {
        *a
    }

    fn gather(&mut self, a: &Shape, lanes: &[usize]) -> Result<Shape, MixedProgramError> {
        check_lanes("gather", lanes, a.0)?;
        Ok(Shape(lanes.len()))
    }

    fn concat(&mut self, parts: &[Shape]) -> Shape {
        Shape(parts.iter().map(|s| s.0).sum())
    }

    fn stock_ands(&mut self, count: usize) -> Result<(), MixedProgramError> {
        self.cost.stocked_ands += count;
        Ok(())
    }

    fn to_arith(&mut self, bits: &Shape) -> Result<Shape, MixedProgramError> {
        self.cost.b2a += bits.0;
        self.cost.rounds += 1;
        Ok(*bits)
    }

    fn to_bool(&mut self, a: &Shape) -> Result<Vec<Shape>, MixedProgramError> {
        self.cost.a2b += a.0;
        self.cost.a2b_and += ANDS_PER_A2B * a.0;
        self.cost.rounds += A2B_ROUNDS;
        Ok(vec![*a; A2B_BITS])
    }

    fn enc_to_arith(&mut self, ct: &Shape) -> Result<Shape, MixedProgramError> {
        self.cost.e2a += 1;
        self.cost.rounds += 1;
        Ok(*ct)
    }

    fn to_enc(&mut self, a: &Shape) -> Result<Shape, MixedProgramError> {
        check_slots("to_enc", a.0)?;
        self.cost.a2e += 1;
        self.cost.rounds += 1;
        Ok(*a)
    }

    fn to_yao(&mut self, bits: &Shape) -> Result<Shape, MixedProgramError> {
        self.cost.b2y += bits.0;
        Ok(*bits)
    }

    fn yao_to_bool(&mut self, a: &Shape) -> Result<Shape, MixedProgramError> {
        self.cost.y2b += a.0;
        Ok(*a)
    }

    fn public_yao(&mut self, bits: &[bool]) -> Result<Shape, MixedProgramError> {
        Ok(Shape(bits.len()))
    }

    fn yao_xor(&mut self, a: &Shape, b: &Shape) -> Result<Shape, MixedProgramError> {
        check_lengths("yao_xor", a.0, b.0)?;
        Ok(*a)
    }

    fn yao_and(&mut self, a: &Shape, b: &Shape) -> Result<Shape, MixedProgramError> {
        check_lengths("yao_and", a.0, b.0)?;
        self.cost.yao_and += a.0;
        Ok(*a)
    }

    fn yao_not(&mut self, a: &Shape) -> Result<Shape, MixedProgramError> {
        Ok(*a)
    }

    fn yao_gather(&mut self, a: &Shape, lanes: &[usize]) -> Result<Shape, MixedProgramError> {
        self.gather(a, lanes)
    }

    fn yao_concat(&mut self, parts: &[Shape]) -> Shape {
        self.concat(parts)
    }

    fn output_arith(&mut self, _a: &Shape, to: Recipient) -> Result<Option<Vec<u64>>, MixedProgramError> {
        check_recipient(to, self.parties)?;
        self.cost.rounds += 1;
        Ok(None)
    }

    fn output_bool(&mut self, _a: &Shape, to: Recipient) -> Result<Option<Vec<bool>>, MixedProgramError> {
        check_recipient(to, self.parties)?;
        self.cost.rounds += 1;
        Ok(None)
    }
}
