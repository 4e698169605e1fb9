//! Garbled-table costs: [`TableCost`], the CRT gadgets whose tables depend on their prime
//! set ([`Gadget`]; costed by `mixgc_program::gadget_cost`, the gadget run on the counter's
//! primitives, whose tables are [`crate::table_bytes`]), and the bytes of CRT inputs and
//! outputs ([`protocol`]).

/// The garbled table of one gadget: rows as ABLE counts them (a mod-2 or mod-p label is one
/// row, a ring label mod 2^k is k rows) and the bytes actually sent.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct TableCost {
    pub rows: u64,
    pub bytes: usize,
}

impl TableCost {
    /// The cost of `n` such gadgets.
    pub fn times(self, n: u64) -> TableCost {
        TableCost {
            rows: self.rows * n,
            bytes: self.bytes * n as usize,
        }
    }
}

impl std::ops::Add for TableCost {
    type Output = TableCost;
    fn add(self, other: TableCost) -> TableCost {
        TableCost {
            rows: self.rows + other.rows,
            bytes: self.bytes + other.bytes,
        }
    }
}

impl std::ops::AddAssign for TableCost {
    fn add_assign(&mut self, other: TableCost) {
        *self = *self + other;
    }
}

impl std::iter::Sum for TableCost {
    fn sum<I: Iterator<Item = TableCost>>(costs: I) -> TableCost {
        costs.fold(TableCost::default(), |a, b| a + b)
    }
}

/// A gadget on CRT bundles whose garbled table depends on its prime set and the
/// parameters named here, never on the values (free operations have none).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub enum Gadget {
    /// a·b: Σ 2(p − 1) rows (an AND for p = 2).
    Mul,
    /// a^e for a public e: Σ (p − 1) rows.
    Pow(u64),
    /// The multiplexer s ? yes : no, computed as no + BC(s)·(yes − no): a one-bit
    /// [`Gadget::Compose`] of the select bit, then a [`Gadget::Mul`] (ABLE §4's Mux).
    Mux,
    /// Bit composition (BC) of `bits` Boolean bits; 0 bits is an error.
    Compose { bits: u32 },
    /// Bit decomposition (BD); an error where the CRT sum exceeds 128 bits (products near
    /// 2^127).
    Decompose,
}

/// Bytes on the wire of CRT inputs and outputs in a two-party program run, by the
/// protocol of `mixgc-session` (one place, so the cost counter, the profiler and the
/// session agree; the session's tests compare them with the bytes actually sent).
pub mod protocol {
    use crate::table_bytes::label_bytes;
    use crate::{table_bytes, PrimeSet};

    /// Bytes one correlated OT costs the receiver in IKNP extension: one 128-bit column
    /// entry (base OTs and the chunk framing are amortised away).
    pub const OT_BYTES: u64 = 16;

    /// Bytes of one residue's decoding (garbler → evaluator) or active colour (evaluator
    /// → garbler) when a CRT value is revealed: a little-endian u16 (primes are ≤ 65,521).
    pub const OUTPUT_BYTES_PER_RESIDUE: u64 = 2;
    /// Each output frame of a program run ends with a digest of the run's structure, which
    /// the receiver compares with its own (so different program code stops both parties).
    pub const STRUCTURE_DIGEST_BYTES: u64 = 8;

    /// A garbler-owned input: the active label of each residue, packed.
    pub fn garbler_input_bytes(set: &PrimeSet) -> u64 {
        set.moduli().iter().map(|&m| label_bytes(m) as u64).sum()
    }

    /// Bits of the residue mod `p` the evaluator feeds to OT: bitlen(p − 1).
    pub fn residue_bits(p: u64) -> u32 {
        64 - (p - 1).leading_zeros()
    }

    /// An evaluator-owned input: one correlated OT per bit of each residue
    /// ([`residue_bits`]); for an odd prime p each OT'd bit b_j is then lifted to Z_p by a
    /// one-row projection b ↦ 2^j·b (its row is a label mod p). Returns (OTs, bytes of
    /// those rows).
    pub fn evaluator_input_cost(set: &PrimeSet) -> (u64, u64) {
        let ots = set.primes().iter().map(|&p| u64::from(residue_bits(p))).sum();
        (ots, table_bytes::residues_from_bits(set) as u64)
    }

    /// Revealing a value to one party: one u16 per residue (the garbler's decodings, or
    /// the evaluator's colours) and the structure digest; revealing to both sends both.
    pub fn output_bytes(set: &PrimeSet, to_both: bool) -> u64 {
        let one_way = set.primes().len() as u64 * OUTPUT_BYTES_PER_RESIDUE + STRUCTURE_DIGEST_BYTES;
        one_way * if to_both { 2 } else { 1 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PrimeSet;

    #[test]
    fn input_costs_follow_the_residues() {
        let set = PrimeSet::new(&[2, 3, 5, 11]).unwrap();
        // Residue bits: 1 + 2 + 3 + 4 OTs; lifting rows for 3 and 5 (17 B labels) and 11 (18 B).
        assert_eq!(
            protocol::evaluator_input_cost(&set),
            (10, 2 * 17 + 3 * 17 + 4 * 18)
        );
        assert_eq!(protocol::garbler_input_bytes(&set), 16 + 17 + 17 + 18);
        assert_eq!(protocol::output_bytes(&set, true), 2 * (8 + 8));
    }
}
