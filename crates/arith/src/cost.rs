//! Garbled-table cost of the arithmetic gadgets, from the formulas of [`crate::table_bytes`]
//! (checked there against the garbler): the CRT conversions at a bit width next to ABLE's
//! Table 1 ([`conversion_cost`]), any gadget over any prime set ([`gadget_cost`], what the
//! program cost counter uses), and the bytes of CRT inputs and outputs ([`protocol`]).

use crate::primes::min_sum_primes;
use crate::{table_bytes, ArithError, PrimeSet};

/// ABLE Table 1, optimized columns: (bit width, BD rows, BC rows).
pub const ABLE_TABLE_1: [(u32, u64, u64); 5] = [
    (4, 275, 8),
    (8, 937, 24),
    (16, 2582, 80),
    (32, 9322, 288),
    (64, 32377, 960),
];

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
    /// a·b ([`crate::ArithGarbler::mul_bundle`]): Σ 2(p − 1) rows.
    Mul,
    /// a^e for a public e ([`crate::ArithGarbler::pow_bundle`]): Σ (p − 1) rows.
    Pow(u64),
    /// The multiplexer s ? yes : no, computed as no + BC(s)·(yes − no): a one-bit
    /// [`Gadget::Compose`] of the select bit, then a [`Gadget::Mul`] (ABLE §4's Mux).
    Mux,
    /// Bit composition of `bits` Boolean bits ([`crate::ArithGarbler::crt_compose`]); 0 bits is
    /// an error.
    Compose { bits: u32 },
    /// Bit decomposition ([`crate::ArithGarbler::crt_decompose`]); an error where the CRT sum
    /// exceeds 128 bits (products near 2^127).
    Decompose,
}

/// The cost of converting a `width`-bit value between Boolean labels and a CRT bundle over
/// the minimum-sum primes of that width ([`min_sum_primes`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ConversionCost {
    pub width: u32,
    pub primes: PrimeSet,
    /// Boolean → bundle ([`crate::ArithGarbler::crt_compose`]).
    pub compose: TableCost,
    /// Bundle → Boolean ([`crate::ArithGarbler::crt_decompose`]).
    pub decompose: TableCost,
}

/// The tables of one CRT bit composition and one CRT bit decomposition at `width` bits
/// (1..=127, as prime selection). Fails where the CRT sum of the decomposition exceeds 128
/// bits (widths near 127).
pub fn conversion_cost(width: u32) -> Result<ConversionCost, ArithError> {
    let primes = min_sum_primes(width)?;
    Ok(ConversionCost {
        width,
        compose: gadget_cost(Gadget::Compose { bits: width }, &primes)?,
        decompose: gadget_cost(Gadget::Decompose, &primes)?,
        primes,
    })
}

/// The table `gadget` sends over `set` ([`table_bytes::gadget`]). Errors are the
/// garbler's, e.g. a decomposition of a set whose CRT sum exceeds 128 bits, or a
/// composition of no bits.
pub fn gadget_cost(gadget: Gadget, set: &PrimeSet) -> Result<TableCost, ArithError> {
    table_bytes::gadget(gadget, set)
}

/// Bytes on the wire of CRT inputs and outputs in a two-party program run, by the
/// protocol of `mixgc-session` (one place, so the cost counter, the profiler and the
/// session agree; the session's tests compare them with the bytes actually sent).
pub mod protocol {
    use crate::codec::label_bytes;
    use crate::{table_bytes, PrimeSet};

    /// Bytes one correlated OT costs the receiver in IKNP extension: one 128-bit column
    /// entry (base OTs and the chunk framing are amortised away).
    pub const OT_BYTES: u64 = 16;

    /// Bytes of one residue's decoding (garbler → evaluator) or active colour (evaluator
    /// → garbler) when a CRT value is revealed: a little-endian u16 (primes are ≤ 65,521).
    pub const OUTPUT_BYTES_PER_RESIDUE: u64 = 2;

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
    /// the evaluator's colours); revealing to both parties sends both.
    pub fn output_bytes(set: &PrimeSet, to_both: bool) -> u64 {
        let one_way = set.primes().len() as u64 * OUTPUT_BYTES_PER_RESIDUE;
        one_way * if to_both { 2 } else { 1 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Measured (width, BC rows, BC bytes, BD rows, BD bytes). BC meets ABLE exactly (one
    /// row per bit and odd prime, the same prime counts); BD is 3.1–4.0× below ABLE: free
    /// Boolean slices and low bits (k(k − 1)/2 instead of (k² + 3k − 2)/2 per mod-2^k
    /// decomposition), weights' trailing zeros skipped in the composition, and the
    /// reduction mod N done by Boolean conditional subtraction.
    const MEASURED: [(u32, u64, usize, u64, usize); 5] = [
        (4, 8, 136, 68, 1_088),
        (8, 24, 416, 232, 3_712),
        (16, 80, 1_392, 841, 13_456),
        (32, 288, 5_056, 2_880, 46_080),
        (64, 960, 16_896, 10_039, 160_624),
    ];

    #[test]
    fn table_1_is_met_or_beaten() {
        for ((width, able_bd, able_bc), (w, bc_rows, bc_bytes, bd_rows, bd_bytes)) in
            ABLE_TABLE_1.into_iter().zip(MEASURED)
        {
            assert_eq!(width, w);
            let cost = conversion_cost(width).unwrap();
            assert_eq!(
                cost.compose,
                TableCost {
                    rows: bc_rows,
                    bytes: bc_bytes
                },
                "BC {width}"
            );
            assert_eq!(
                cost.decompose,
                TableCost {
                    rows: bd_rows,
                    bytes: bd_bytes
                },
                "BD {width}"
            );
            assert!(bc_rows <= able_bc && bd_rows < able_bd, "width {width}");
        }
    }

    #[test]
    fn input_costs_follow_the_residues() {
        let set = PrimeSet::new(&[2, 3, 5, 11]).unwrap();
        // Residue bits: 1 + 2 + 3 + 4 OTs; lifting rows for 3 and 5 (17 B labels) and 11 (18 B).
        assert_eq!(
            protocol::evaluator_input_cost(&set),
            (10, 2 * 17 + 3 * 17 + 4 * 18)
        );
        assert_eq!(protocol::garbler_input_bytes(&set), 16 + 17 + 17 + 18);
        assert_eq!(protocol::output_bytes(&set, true), 16);
    }

    #[test]
    fn gadget_costs_follow_the_primes() {
        let set = PrimeSet::new(&[2, 3, 5, 11]).unwrap();
        let odd: u64 = [3, 5, 11].iter().map(|p| p - 1).sum();
        let mul = gadget_cost(Gadget::Mul, &set).unwrap();
        // 2(p − 1) rows per prime; the mod-2 product is one AND (two 16-byte rows).
        assert_eq!(mul.rows, 2 * (odd + 1));
        for e in [0, 1, 2, 7, u64::MAX] {
            assert_eq!(
                gadget_cost(Gadget::Pow(e), &set).unwrap().rows,
                odd + 1,
                "e = {e}"
            );
        }
        let compose = |bits| gadget_cost(Gadget::Compose { bits }, &set).unwrap();
        assert_eq!(compose(1).rows, 3);
        assert_eq!(compose(200).rows, 200 * 3);
        assert_eq!(gadget_cost(Gadget::Mux, &set).unwrap(), compose(1) + mul);
        let bd = conversion_cost(8).unwrap();
        assert_eq!(gadget_cost(Gadget::Decompose, &bd.primes).unwrap(), bd.decompose);
        assert!(matches!(
            gadget_cost(Gadget::Compose { bits: 0 }, &set),
            Err(ArithError::Conversion(_))
        ));
        let wide = crate::primes::first_primes(127).unwrap();
        assert!(matches!(
            gadget_cost(Gadget::Decompose, &wide),
            Err(ArithError::Conversion(_))
        ));
        assert_eq!(
            mul.times(3) + TableCost::default(),
            TableCost {
                rows: mul.rows * 3,
                bytes: mul.bytes * 3
            }
        );
    }

    #[test]
    fn out_of_range_widths_are_errors() {
        assert_eq!(conversion_cost(0), Err(ArithError::WidthOutOfRange(0)));
        assert!(matches!(conversion_cost(127), Err(ArithError::Conversion(_))));
    }
}
