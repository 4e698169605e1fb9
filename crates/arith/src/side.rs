//! The two sides of a conversion. Bit composition and decomposition are the same linear
//! label arithmetic for garbler (on zero-labels) and evaluator (on active labels); only a
//! few primitive gadgets differ. [`Side`] names them, so each conversion is written once
//! ([`crate::convert`]) and run by [`GarbleSide`] or [`EvalSide`].

use mixgc_core::Block;

use crate::codec::TableReader;
use crate::ring::RingLabel;
use crate::{ArithError, ArithEvaluator, ArithGarbler, Label, Modulus};

/// One bit composition: the Boolean labels of the bits b_j (LSB first) and the odd prime
/// m of Σ_j 2^j·b_j mod m ([`Side::compose_powers`]).
pub type Term<'a> = (&'a [Block], Modulus);

/// The projections of a list of bit compositions, in gate and row order (term by term, bit
/// by bit): each one's term index, bit label and weight 2^j mod m.
pub(crate) fn composition_jobs(terms: &[Term]) -> Vec<(usize, Block, u64)> {
    let mut jobs = Vec::with_capacity(terms.iter().map(|(bits, _)| bits.len()).sum());
    for (k, &(bits, m)) in terms.iter().enumerate() {
        let weights = std::iter::successors(Some(m.reduce(1)), |&w| Some(m.add(w, w)));
        jobs.extend(bits.iter().zip(weights).map(|(&bit, w)| (k, bit, w)));
    }
    jobs
}

/// The primitive gadgets of a conversion, on Boolean (free-XOR) labels, mod-p labels and
/// ring labels.
pub(crate) trait Side {
    /// The ring label mod 2^`bits` of the bit carried by the Boolean label `bit`, whose
    /// digit-wise low bits are `bit` itself; `bits` − 1 rows (none for `bits` = 1).
    fn lift(&mut self, bit: Block, bits: u32) -> Result<RingLabel, ArithError>;

    /// A row-reduced projection of `wire` to Z_2 by `table` (the garbler's; the evaluator
    /// ignores it), the output as its free-XOR block.
    fn project_to_bit(&mut self, wire: &Label, table: &[u64]) -> Result<Block, ArithError>;

    /// Bit compositions Σ_j 2^j·b_j mod m, one per term (bits, m) with m an odd prime: one
    /// row-reduced projection b ↦ 2^j·b per bit (one gate and one row each, term by term,
    /// bit by bit), summed per term ([`composition_jobs`]).
    fn compose_powers(&mut self, terms: &[Term]) -> Result<Vec<Label>, ArithError>;

    /// a ∧ b: a product of two mod-2 wires (2 rows).
    fn and(&mut self, a: Block, b: Block) -> Result<Block, ArithError>;

    /// ¬a (free).
    fn not(&mut self, a: Block) -> Block;
}

/// The garbler's side: zero-labels, rows appended to `rows`.
pub(crate) struct GarbleSide<'a> {
    garbler: &'a mut ArithGarbler,
    rows: &'a mut Vec<u8>,
    boolean_delta: Block,
}

impl<'a> GarbleSide<'a> {
    pub(crate) fn new(garbler: &'a mut ArithGarbler, rows: &'a mut Vec<u8>) -> Result<Self, ArithError> {
        let boolean_delta = garbler.delta(Modulus::BOOLEAN).to_block()?;
        Ok(GarbleSide {
            garbler,
            rows,
            boolean_delta,
        })
    }
}

impl Side for GarbleSide<'_> {
    fn lift(&mut self, bit: Block, bits: u32) -> Result<RingLabel, ArithError> {
        self.garbler.lift(bit, bits, self.rows)
    }

    fn project_to_bit(&mut self, wire: &Label, table: &[u64]) -> Result<Block, ArithError> {
        self.garbler.project_to_bit(wire, table, self.rows)
    }

    fn compose_powers(&mut self, terms: &[Term]) -> Result<Vec<Label>, ArithError> {
        self.garbler.compose_powers(terms, self.rows)
    }

    fn and(&mut self, a: Block, b: Block) -> Result<Block, ArithError> {
        Ok(self.garbler.and_blocks(a, b, self.rows))
    }

    /// The zero-label of ¬x is the one-label of x.
    fn not(&mut self, a: Block) -> Block {
        a ^ self.boolean_delta
    }
}

/// The evaluator's side: active labels, rows read from `tables`.
pub(crate) struct EvalSide<'a, 'b> {
    pub(crate) evaluator: &'a mut ArithEvaluator,
    pub(crate) tables: &'a mut TableReader<'b>,
}

impl Side for EvalSide<'_, '_> {
    fn lift(&mut self, bit: Block, bits: u32) -> Result<RingLabel, ArithError> {
        self.evaluator.lift(bit, bits, self.tables)
    }

    fn project_to_bit(&mut self, wire: &Label, _table: &[u64]) -> Result<Block, ArithError> {
        self.evaluator.project_to_bit(wire, self.tables)
    }

    fn compose_powers(&mut self, terms: &[Term]) -> Result<Vec<Label>, ArithError> {
        self.evaluator.compose_powers(terms, self.tables)
    }

    fn and(&mut self, a: Block, b: Block) -> Result<Block, ArithError> {
        self.evaluator.and_blocks(a, b, self.tables)
    }

    /// The evaluator's label of ¬x is its label of x.
    fn not(&mut self, a: Block) -> Block {
        a
    }
}

/// A Boolean value inside a conversion circuit: a public constant or a wire. Gates on
/// constants are folded, so constant operands (the bits of N in the reduction mod N) cost
/// nothing.
#[derive(Clone, Copy)]
pub(crate) enum Bit {
    Const(bool),
    Wire(Block),
}

impl Bit {
    pub(crate) fn and<S: Side>(self, other: Bit, side: &mut S) -> Result<Bit, ArithError> {
        Ok(match (self, other) {
            (Bit::Const(false), _) | (_, Bit::Const(false)) => Bit::Const(false),
            (Bit::Const(true), x) | (x, Bit::Const(true)) => x,
            (Bit::Wire(a), Bit::Wire(b)) => Bit::Wire(side.and(a, b)?),
        })
    }

    pub(crate) fn not<S: Side>(self, side: &mut S) -> Bit {
        match self {
            Bit::Const(v) => Bit::Const(!v),
            Bit::Wire(a) => Bit::Wire(side.not(a)),
        }
    }

    /// self ⊕ c for a public c.
    pub(crate) fn xor_const<S: Side>(self, c: bool, side: &mut S) -> Bit {
        if c {
            self.not(side)
        } else {
            self
        }
    }

    /// The wire `wire` ⊕ self (free).
    pub(crate) fn xor_into<S: Side>(self, wire: Block, side: &mut S) -> Block {
        match self {
            Bit::Const(false) => wire,
            Bit::Const(true) => side.not(wire),
            Bit::Wire(a) => wire ^ a,
        }
    }
}
