//! Sums of many weighted bits (a multiplier's or a dot product's partial products) by a
//! carry-save compressor tree: Wallace's column compression (Wallace 1964, "A suggestion for
//! a fast multiplier") with the one-AND full adder of free-XOR garbling.

use std::collections::VecDeque;

use crate::Backend;

/// Σ_i 2^(weight_i)·bit_i mod 2^`width`, as `width` bits, for the (weight, bit) pairs in
/// `bits` (weights ≥ `width` drop out: they cannot change the result).
///
/// Column by column from weight 0 up, first in first out: three bits of one weight go
/// through a full adder (1 AND: c' = c ⊕ ((a ⊕ c) ∧ (b ⊕ c)), s = a ⊕ b ⊕ c) whose carry joins
/// the next column, a last pair through a half adder (1 AND); the top column is one XOR of
/// all its bits (its carries would fall off). A full adder removes one bit, so with n bits
/// below the top column the count is at most n ANDs (n − (columns below the top) + half
/// adders) — against a tree of ripple-carry adders over sign-extended operands, which also
/// pays for every extension bit.
pub fn weighted_sum<B: Backend>(
    b: &mut B,
    bits: impl IntoIterator<Item = (usize, B::Wire)>,
    width: usize,
) -> Vec<B::Wire> {
    let mut columns: Vec<VecDeque<B::Wire>> = vec![VecDeque::new(); width];
    for (weight, bit) in bits {
        if let Some(column) = columns.get_mut(weight) {
            column.push_back(bit);
        }
    }
    let mut out = Vec::with_capacity(width);
    for k in 0..width {
        let mut column = std::mem::take(&mut columns[k]);
        if k + 1 == width {
            let s = column.into_iter().reduce(|p, q| b.xor(p, q));
            out.push(s.unwrap_or_else(|| b.constant(false)));
            break;
        }
        let mut carries = VecDeque::new();
        while column.len() >= 3 {
            let (p, q, c) = (
                column.pop_front().expect("three bits"),
                column.pop_front().expect("three bits"),
                column.pop_front().expect("three bits"),
            );
            let pc = b.xor(p, c);
            let qc = b.xor(q, c);
            let t = b.and(pc, qc);
            carries.push_back(b.xor(c, t));
            column.push_back(b.xor(pc, q));
        }
        if column.len() == 2 {
            let (p, q) = (column[0], column[1]);
            carries.push_back(b.and(p, q));
            column = [b.xor(p, q)].into();
        }
        out.push(column.pop_front().unwrap_or_else(|| b.constant(false)));
        columns[k + 1].extend(carries);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gadgets::testing::value;
    use crate::{Counter, PartyId, Plain, Recorder};
    use rand::{Rng, SeedableRng};

    /// Runs `weighted_sum` on the plaintext backend, the recorder (replayed) and the
    /// counter; returns (value, ANDs).
    fn run(weights: &[usize], values: &[bool], width: usize) -> (u128, u64) {
        let n = weights.len() as u32;
        let mut p = Plain::default();
        let xs = p.input(PartyId::GARBLER, n, Some(values)).unwrap();
        let plain = weighted_sum(&mut p, weights.iter().copied().zip(xs), width);
        assert_eq!(plain.len(), width);
        let mut r = Recorder::default();
        let xs = r.input(PartyId::GARBLER, n, None).unwrap();
        let out = weighted_sum(&mut r, weights.iter().copied().zip(xs), width);
        r.output(&out).unwrap();
        let rec = r.finish();
        let replay = rec.circuit.eval_plain(&[values.to_vec()]).unwrap();
        assert_eq!(
            replay,
            vec![plain.clone()],
            "recorded circuit disagrees with plaintext"
        );
        let mut c = Counter::default();
        let xs = c.input(PartyId::GARBLER, n, None).unwrap();
        weighted_sum(&mut c, weights.iter().copied().zip(xs), width);
        assert_eq!(c.cost().ands, rec.circuit.stats().ands as u64);
        (value(&plain), c.cost().ands)
    }

    fn expected(weights: &[usize], values: &[bool], width: usize) -> u128 {
        let sum = weights
            .iter()
            .zip(values)
            .filter(|&(&w, &v)| v && w < 128)
            .fold(0u128, |s, (&w, _)| s.wrapping_add(1u128 << w));
        if width >= 128 {
            sum
        } else {
            sum & ((1u128 << width) - 1)
        }
    }

    #[test]
    fn weighted_sums_match_native_arithmetic_in_at_most_one_and_per_bit() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(51);
        for width in [0usize, 1, 2, 5, 9, 13, 17, 64, 128] {
            for n in [0usize, 1, 2, 3, 7, 40, 300] {
                for _ in 0..6 {
                    let weights: Vec<usize> = (0..n).map(|_| rng.gen_range(0..width + 3)).collect();
                    let values: Vec<bool> = (0..n).map(|_| rng.gen()).collect();
                    let (got, ands) = run(&weights, &values, width);
                    assert_eq!(got, expected(&weights, &values, width), "width={width} n={n}");
                    let below_top = weights.iter().filter(|&&w| w + 1 < width).count();
                    assert!(ands <= below_top as u64, "width={width} n={n}: {ands} ANDs");
                }
            }
        }
    }

    #[test]
    fn edge_sums_all_ones_all_zeros_and_one_column() {
        for width in [1usize, 8, 16] {
            for n in [1usize, 2, 3, 4, 255, 256] {
                // Every bit in column 0: the sum is n mod 2^width (a popcount).
                let zeros = vec![0usize; n];
                for fill in [false, true] {
                    let values = vec![fill; n];
                    let (got, _) = run(&zeros, &values, width);
                    assert_eq!(got, expected(&zeros, &values, width), "width={width} n={n}");
                }
                // Every bit in the top column: its XOR, free.
                let top = vec![width - 1; n];
                let values = vec![true; n];
                let (got, ands) = run(&top, &values, width);
                assert_eq!((got, ands), (expected(&top, &values, width), 0));
                // A full triangle of ones across every column wraps exactly.
                let weights: Vec<usize> = (0..n).map(|i| i % width).collect();
                let (got, _) = run(&weights, &values, width);
                assert_eq!(got, expected(&weights, &values, width));
            }
        }
    }
}
