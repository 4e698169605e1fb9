//! Garbled-table cost of the CRT conversions at a bit width, measured by garbling them
//! (not by a formula), next to ABLE's Table 1.

use mixgc_core::{new_rng, Block};

use crate::primes::min_sum_primes;
use crate::{ArithError, ArithGarbler, PrimeSet};

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
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TableCost {
    pub rows: u64,
    pub bytes: usize,
}

/// The cost of converting a `width`-bit value between Boolean labels and a CRT bundle over
/// the minimum-sum primes of that width ([`min_sum_primes`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ConversionCost {
    pub width: u32,
    pub primes: PrimeSet,
    /// Boolean → bundle ([`ArithGarbler::crt_compose`]).
    pub compose: TableCost,
    /// Bundle → Boolean ([`ArithGarbler::crt_decompose`]).
    pub decompose: TableCost,
}

/// The rows and bytes `gadget` garbles.
fn measure(
    garbler: &mut ArithGarbler,
    gadget: impl FnOnce(&mut ArithGarbler, &mut Vec<u8>) -> Result<(), ArithError>,
) -> Result<TableCost, ArithError> {
    let (before, mut rows) = (garbler.table_rows(), Vec::new());
    gadget(garbler, &mut rows)?;
    Ok(TableCost {
        rows: garbler.table_rows() - before,
        bytes: rows.len(),
    })
}

/// Garbles one CRT bit composition and one CRT bit decomposition at `width` bits (1..=127,
/// as prime selection) and reports their tables. Fails where the CRT sum of the
/// decomposition exceeds 128 bits (widths near 127).
pub fn conversion_cost(width: u32) -> Result<ConversionCost, ArithError> {
    let primes = min_sum_primes(width)?;
    let mut rng = new_rng(Some(u64::from(width)), 0);
    let mut garbler = ArithGarbler::new(
        new_rng(Some(u64::from(width)), 1),
        Block::random(&mut rng).with_lsb_set(),
    )?;
    let bits: Vec<Block> = (0..width).map(|_| Block::random(&mut rng)).collect();
    let compose = measure(&mut garbler, |g, rows| {
        g.crt_compose(&bits, &primes, rows).map(drop)
    })?;
    let bundle = garbler.new_bundle(&primes);
    let decompose = measure(&mut garbler, |g, rows| g.crt_decompose(&bundle, rows).map(drop))?;
    Ok(ConversionCost {
        width,
        primes,
        compose,
        decompose,
    })
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
    fn out_of_range_widths_are_errors() {
        assert_eq!(conversion_cost(0), Err(ArithError::WidthOutOfRange(0)));
        assert!(matches!(conversion_cost(127), Err(ArithError::Conversion(_))));
    }
}
