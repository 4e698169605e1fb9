//! The two sides of a conversion. Bit composition and decomposition are the same linear
//! label arithmetic for garbler (on zero-labels) and evaluator (on active labels); only a
//! few primitive gadgets differ. [`Side`] names them, so each conversion is written once
//! ([`crate::convert`]) and run by [`GarbleSide`] or [`EvalSide`].

use mixgc_core::Block;

use crate::codec::TableReader;
use crate::ring::{check_bits, row_bytes, RingLabel};
use crate::tweak::{Domain, Input, Tweak};
use crate::{ArithError, ArithEvaluator, ArithGarbler, Label, Modulus};

/// One bit composition: the Boolean labels of the bits b_j (LSB first) and the odd prime
/// m of Σ_j 2^j·b_j mod m ([`Side::compose_powers`]).
pub(crate) type Term<'a> = (&'a [Block], Modulus);

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

fn lift_tweak(gate: u64) -> Tweak {
    Tweak {
        domain: Domain::BitLift,
        gate,
    }
}

impl Side for GarbleSide<'_> {
    /// Row-reduced lift (ABLE Fig. 3 bit composition, one bit, with the low bits free):
    /// Z = K + 2·U digit-wise, where U ∈ Z_{2^(bits−1)}^128. The value π whose Boolean label
    /// K^π has colour 0 gets U^π = H(K^π, t), so its row is zero and not sent; Z^0 follows
    /// as Z^π − π·Δ_{2^bits}. The one row sent is T = U^(1−π) − H(K^(1−π), t). The low bits
    /// of Z^(1−π) = Z^π ± Δ are K^π ⊕ Δ_bool = K^(1−π): they never need sending.
    fn lift(&mut self, bit: Block, bits: u32) -> Result<RingLabel, ArithError> {
        if bits == 1 {
            return Ok(RingLabel::from_block(bit));
        }
        check_bits(bits)?;
        let garbler = &mut *self.garbler;
        let tweak = lift_tweak(garbler.take_gate());
        // π (the garbler's permute bit) is secret: no branch or index depends on it here.
        let pi = bit.lsb();
        let k_pi = bit ^ self.boolean_delta.and_bit(pi);
        let k_other = k_pi ^ self.boolean_delta;
        let high = garbler.hash.hash_to_ring(Input::Bits(k_pi), tweak, bits - 1);
        let mut row = garbler.hash.hash_to_ring(Input::Bits(k_other), tweak, bits - 1);
        let delta = garbler.ring_master_delta(); // Δ_{2^bits} is its truncation
        let mut z0 = RingLabel::with_low_slice(k_pi, &high); // Z^π
                                                             // Z^0 = Z^π − π·Δ.
        z0.add_truncated_assign(delta, u128::from(pi).wrapping_neg());
        // Z^(1−π) is Z^0 for π = 1 and Z^0 + Δ for π = 0; the row is its high part minus the pad.
        row.subtract_from_high(&z0, delta, u128::from(!pi));
        row.write_row(self.rows);
        garbler.table_rows += u64::from(bits - 1);
        Ok(z0)
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
    /// U = H(K, t) + colour(K)·T, Z = K + 2·U (see [`GarbleSide::lift`]).
    fn lift(&mut self, bit: Block, bits: u32) -> Result<RingLabel, ArithError> {
        if bits == 1 {
            return Ok(RingLabel::from_block(bit));
        }
        let tweak = lift_tweak(self.evaluator.take_gate());
        let row = self.tables.take_bytes(row_bytes(bits - 1))?;
        let mut high = self
            .evaluator
            .hash
            .hash_to_ring(Input::Bits(bit), tweak, bits - 1);
        if bit.lsb() {
            high.add_row_assign(row);
        }
        Ok(RingLabel::with_low_slice(bit, &high))
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
