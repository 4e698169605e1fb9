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

    #[test]
    fn print_costs() {
        for (w, bd, bc) in ABLE_TABLE_1 {
            let c = conversion_cost(w).unwrap();
            println!(
                "{w}: primes {:?} BC {:?} (ABLE {bc}) BD {:?} (ABLE {bd})",
                c.primes.primes(),
                c.compose,
                c.decompose
            );
        }
    }
}
