//! The lift of a Boolean label to a ring label mod 2^k (ABLE Fig. 3 bit composition, one
//! bit, row-reduced, with the low bits free): the primitive of the mod-2^k compositions
//! and decompositions inside a CRT bit decomposition.

use mixgc_core::Block;

use crate::codec::TableReader;
use crate::ring::{check_bits, row_bytes, RingLabel};
use crate::tweak::{Domain, Input, Tweak};
use crate::{ArithError, ArithEvaluator, ArithGarbler};

fn lift_tweak(gate: u64) -> Tweak {
    Tweak {
        domain: Domain::BitLift,
        gate,
    }
}

impl ArithGarbler {
    /// The zero-label mod 2^`bits` of the bit whose Boolean zero-label is `bit`; its
    /// digit-wise low bits are `bit` itself. Appends one row of `bits` − 1 bits (none for
    /// `bits` = 1, counted as `bits` − 1 rows).
    ///
    /// Z = K + 2·U digit-wise, where U ∈ Z_{2^(bits−1)}^128. The value π whose Boolean label
    /// K^π has colour 0 gets U^π = H(K^π, t), so its row is zero and not sent; Z^0 follows
    /// as Z^π − π·Δ_{2^bits}. The one row sent is T = U^(1−π) − H(K^(1−π), t). The low bits
    /// of Z^(1−π) = Z^π ± Δ are K^π ⊕ Δ_bool = K^(1−π): they never need sending.
    pub fn lift(&mut self, bit: Block, bits: u32, rows: &mut Vec<u8>) -> Result<RingLabel, ArithError> {
        if bits == 1 {
            return Ok(RingLabel::from_block(bit));
        }
        check_bits(bits)?;
        let boolean_delta = self.boolean_delta;
        let tweak = lift_tweak(self.take_gate());
        // π (the garbler's permute bit) is secret: no branch or index depends on it here.
        let pi = bit.lsb();
        let k_pi = bit ^ boolean_delta.and_bit(pi);
        let k_other = k_pi ^ boolean_delta;
        let high = self.hash.hash_to_ring(Input::Bits(k_pi), tweak, bits - 1);
        let mut row = self.hash.hash_to_ring(Input::Bits(k_other), tweak, bits - 1);
        let delta = self.ring_master_delta(); // Δ_{2^bits} is its truncation
        let mut z0 = RingLabel::with_low_slice(k_pi, &high); // Z^π
        z0.add_truncated_assign(delta, u128::from(pi).wrapping_neg()); // Z^0 = Z^π − π·Δ
                                                                       // Z^(1−π) is Z^0 for π = 1 and Z^0 + Δ for π = 0; the row is its high part minus the pad.
        row.subtract_from_high(&z0, delta, u128::from(!pi));
        row.write_row(rows);
        self.table_rows += u64::from(bits - 1);
        Ok(z0)
    }
}

impl ArithEvaluator {
    /// Evaluates [`ArithGarbler::lift`] on the active label `bit`: U = H(K, t) + colour(K)·T,
    /// Z = K + 2·U.
    pub fn lift(&mut self, bit: Block, bits: u32, tables: &mut TableReader) -> Result<RingLabel, ArithError> {
        if bits == 1 {
            return Ok(RingLabel::from_block(bit));
        }
        check_bits(bits)?;
        let tweak = lift_tweak(self.take_gate());
        let row = tables.take_bytes(row_bytes(bits - 1))?;
        let mut high = self.hash.hash_to_ring(Input::Bits(bit), tweak, bits - 1);
        if bit.lsb() {
            high.add_row_assign(row);
        }
        Ok(RingLabel::with_low_slice(bit, &high))
    }
}

impl ArithGarbler {
    /// What the evaluator needs to decode a ring wire with zero-label `zero`: its colour.
    pub fn ring_decoding(zero: &RingLabel) -> u128 {
        zero.colour()
    }
}

impl ArithEvaluator {
    /// The value of a ring wire: colour(W^x) − colour(W^0) mod 2^k.
    pub fn decode_ring(label: &RingLabel, decoding: u128) -> u128 {
        label.colour().wrapping_sub(decoding) & (u128::MAX >> (128 - label.bits()))
    }
}
