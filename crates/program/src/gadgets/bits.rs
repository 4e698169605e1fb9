//! Bit manipulation: shifts and rotations by public amounts (free: wiring only), popcount
//! and Hamming distance.

use super::xor;
use crate::Backend;

/// x ≪ k mod 2^w (public k; k ≥ w gives 0). Free.
pub fn shl<B: Backend>(b: &mut B, x: &[B::Wire], k: usize) -> Vec<B::Wire> {
    let zero = b.constant(false);
    let k = k.min(x.len());
    let mut out = vec![zero; k];
    out.extend_from_slice(&x[..x.len() - k]);
    out
}

/// x ≫ k, logical (zeros shifted in; k ≥ w gives 0). Free.
pub fn shr<B: Backend>(b: &mut B, x: &[B::Wire], k: usize) -> Vec<B::Wire> {
    let zero = b.constant(false);
    let k = k.min(x.len());
    let mut out = x[k..].to_vec();
    out.resize(x.len(), zero);
    out
}

/// x ≫ k, arithmetic (copies of the sign bit shifted in; k ≥ w gives all sign). Free.
pub fn sar<B: Backend>(_: &mut B, x: &[B::Wire], k: usize) -> Vec<B::Wire> {
    let Some(&sign) = x.last() else { return vec![] };
    let k = k.min(x.len());
    let mut out = x[k..].to_vec();
    out.resize(x.len(), sign);
    out
}

/// x rotated left by k (mod w). Free.
pub fn rotl<B: Backend>(_: &mut B, x: &[B::Wire], k: usize) -> Vec<B::Wire> {
    let mut out = x.to_vec();
    if !x.is_empty() {
        out.rotate_right(k % x.len());
    }
    out
}

/// x rotated right by k (mod w). Free.
pub fn rotr<B: Backend>(_: &mut B, x: &[B::Wire], k: usize) -> Vec<B::Wire> {
    let mut out = x.to_vec();
    if !x.is_empty() {
        out.rotate_left(k % x.len());
    }
    out
}

/// ⌈log2(n + 1)⌉: the bits of a count of n things.
pub fn count_bits(n: usize) -> usize {
    (usize::BITS - n.leading_zeros()) as usize
}

/// The number of ones among the n bits of x, as ⌈log2(n + 1)⌉ bits.
///
/// A carry-save compressor tree, column by column from weight 1 up: three bits of one
/// weight go through a full adder (1 AND, c' = c ⊕ ((a ⊕ c) ∧ (b ⊕ c))), a last pair through
/// a half adder (1 AND); in the top column no carry can occur (the count fits), so it is a
/// plain XOR. Each full adder removes one bit, so the count is n − (output bits) + (half
/// adders): n − H(n) ANDs, H(n) the number of ones in n's binary form, the known optimum
/// (Boyar–Peralta). Hamming-160: 158 ANDs (TinyGarble: 159). w = 8: 7, 16: 15, 32: 31, 64: 63.
pub fn popcount<B: Backend>(b: &mut B, x: &[B::Wire]) -> Vec<B::Wire> {
    let out_bits = count_bits(x.len());
    let mut columns: Vec<std::collections::VecDeque<B::Wire>> = vec![x.iter().copied().collect()];
    let mut out = Vec::with_capacity(out_bits);
    for k in 0..out_bits {
        let mut col = std::mem::take(&mut columns[k]);
        let top = k + 1 == out_bits;
        let mut carries = Vec::new();
        if top {
            // The count is < 2^out_bits, so this column holds at most one 1.
            let s = col.into_iter().reduce(|p, q| b.xor(p, q));
            out.push(s.unwrap_or_else(|| b.constant(false)));
            break;
        }
        // First-in first-out keeps the tree shallow (AND depth about log of the column).
        while col.len() >= 3 {
            let (p, q, c) = (
                col.pop_front().unwrap(),
                col.pop_front().unwrap(),
                col.pop_front().unwrap(),
            );
            let pc = b.xor(p, c);
            let qc = b.xor(q, c);
            let s = b.xor(pc, q);
            let t = b.and(pc, qc);
            carries.push(b.xor(c, t));
            col.push_back(s);
        }
        if col.len() == 2 {
            let (p, q) = (col[0], col[1]);
            carries.push(b.and(p, q));
            col = [b.xor(p, q)].into();
        }
        out.push(col.pop_front().unwrap_or_else(|| b.constant(false)));
        columns.push(carries.into());
    }
    out
}

/// [popcount(x) ≥ t] as one wire, for n = |x| bits: at most n − 1 ANDs (majority of 8: 7,
/// of 16: 15; a full popcount and a comparison would cost n − H(n) + ⌈log2(n+1)⌉).
///
/// A threshold as a carry: with k the smallest power with 2^k ≥ t and 2^k > n − t, bit k
/// of popcount(x) + (2^k − t) is the answer (the sum lies in [2^k − t, 2^k − t + n], below
/// 2^(k+1)). The constant is added for free into the columns of the compressor tree of
/// [`popcount`], of which only the carries matter: below column k each column is reduced
/// to one bit (dropped) by full adders, a constant one absorbed into a full adder
/// (a + b + 1: carry a ∨ b, 1 AND) or passed on with a lone wire (a + 1: carry a, free);
/// column k holds at most one 1, so its XOR is the answer.
pub fn at_least<B: Backend>(b: &mut B, x: &[B::Wire], t: usize) -> B::Wire {
    let n = x.len();
    if t == 0 {
        return b.constant(true);
    }
    if t > n {
        return b.constant(false);
    }
    let mut k = 0;
    while (1usize << k) < t || (1usize << k) <= n - t {
        k += 1;
    }
    let offset = (1usize << k) - t;
    let mut column: std::collections::VecDeque<B::Wire> = x.iter().copied().collect();
    for j in 0..k {
        let one = offset >> j & 1 == 1;
        let mut carries = std::collections::VecDeque::new();
        while column.len() >= 3 {
            let (p, q, c) = (
                column.pop_front().unwrap(),
                column.pop_front().unwrap(),
                column.pop_front().unwrap(),
            );
            let pc = b.xor(p, c);
            let qc = b.xor(q, c);
            let t = b.and(pc, qc);
            carries.push_back(b.xor(c, t));
            column.push_back(b.xor(pc, q));
        }
        match (column.len(), one) {
            (2, false) => carries.push_back(b.and(column[0], column[1])),
            (2, true) => {
                // a ∨ b = ¬(¬a ∧ ¬b).
                let (na, nb) = (b.not(column[0]), b.not(column[1]));
                let both_zero = b.and(na, nb);
                carries.push_back(b.not(both_zero));
            }
            (1, true) => carries.push_back(column[0]),
            _ => {}
        }
        // What is left of this column (its sum bit) is not needed.
        column = carries;
    }
    let parity = column.into_iter().reduce(|p, q| b.xor(p, q));
    parity.unwrap_or_else(|| b.constant(false))
}

/// Hamming distance: popcount(x ⊕ y) as ⌈log2(w + 1)⌉ bits, w − H(w) ANDs (XOR is free).
/// w = 8: 7, 16: 15, 32: 31, 64: 63; Hamming-160: 158 (TinyGarble: 159).
pub fn hamming<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    let d = xor(b, x, y);
    popcount(b, &d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gadgets::testing::{check2, signed, wrap, WIDTHS};
    use crate::{Counter, PartyId};
    use rand::{Rng, SeedableRng};

    fn popcount2<B: Backend>(b: &mut B, x: &[B::Wire], _: &[B::Wire]) -> Vec<B::Wire> {
        popcount(b, x)
    }

    fn shifts<B: Backend>(b: &mut B, x: &[B::Wire], k: usize) -> Vec<Vec<B::Wire>> {
        vec![
            shl(b, x, k),
            shr(b, x, k),
            sar(b, x, k),
            rotl(b, x, k),
            rotr(b, x, k),
        ]
    }

    /// Each shift by k of each test width as a two-operand gadget for check2!.
    macro_rules! by {
        ($name:ident, $k:expr, $i:expr) => {
            fn $name<B: Backend>(b: &mut B, x: &[B::Wire], _: &[B::Wire]) -> Vec<B::Wire> {
                shifts(b, x, $k)[$i].clone()
            }
        };
    }
    by!(shl3, 3, 0);
    by!(shr3, 3, 1);
    by!(sar3, 3, 2);
    by!(rotl3, 3, 3);
    by!(rotr3, 3, 4);
    by!(shl200, 200, 0);
    by!(shr200, 200, 1);
    by!(sar200, 200, 2);
    by!(rotl200, 200, 3);
    by!(rotr200, 200, 4);

    fn rot_left(x: u128, k: usize, w: usize) -> u128 {
        let k = k % w;
        if k == 0 {
            x
        } else {
            wrap(x << k | x >> (w - k), w)
        }
    }

    #[test]
    fn shifts_and_rotations_are_free_and_exact() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(41);
        for w in WIDTHS {
            for _ in 0..5 {
                let x = wrap(rng.gen(), w);
                let sx = signed(x, w);
                for k in [3usize, 200] {
                    let sh = |v: u128| if k >= w { 0 } else { wrap(v << k, w) };
                    let shr_ = |v: u128| if k >= w { 0 } else { v >> k };
                    let sar_ = wrap((sx >> k.min(127)) as u128, w);
                    let want = [sh(x), shr_(x), sar_, rot_left(x, k, w), rot_left(x, w - k % w, w)];
                    let got = if k == 3 {
                        [
                            check2!(shl3, x, 0, w),
                            check2!(shr3, x, 0, w),
                            check2!(sar3, x, 0, w),
                            check2!(rotl3, x, 0, w),
                            check2!(rotr3, x, 0, w),
                        ]
                    } else {
                        [
                            check2!(shl200, x, 0, w),
                            check2!(shr200, x, 0, w),
                            check2!(sar200, x, 0, w),
                            check2!(rotl200, x, 0, w),
                            check2!(rotr200, x, 0, w),
                        ]
                    };
                    for (i, (g, want)) in got.iter().zip(want).enumerate() {
                        assert_eq!(*g, (want, w, 0), "op {i} k={k} w={w} x={x:#x}");
                    }
                }
            }
        }
    }

    fn optimal(n: usize) -> u64 {
        (n - n.count_ones() as usize) as u64
    }

    #[test]
    fn popcount_and_hamming_match_native_with_optimal_ands() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(42);
        for w in WIDTHS {
            let top = wrap(u128::MAX, w);
            let mut cases: Vec<(u128, u128)> = (0..15)
                .map(|_| (wrap(rng.gen(), w), wrap(rng.gen(), w)))
                .collect();
            cases.extend([(0, 0), (top, 0), (0, top), (top, top), (1, 0)]);
            for (x, y) in cases {
                let (v, width, ands) = check2!(popcount2, x, y, w);
                assert_eq!(
                    (v, width, ands),
                    (x.count_ones() as u128, count_bits(w), optimal(w)),
                    "w={w}"
                );
                let (v, width, ands) = check2!(hamming, x, y, w);
                assert_eq!(
                    (v, width, ands),
                    ((x ^ y).count_ones() as u128, count_bits(w), optimal(w))
                );
            }
        }
    }

    #[test]
    fn at_least_is_a_threshold_in_at_most_n_minus_one_ands() {
        use crate::gadgets::testing::value;
        use crate::{Plain, Recorder};
        let mut rng = rand::rngs::StdRng::seed_from_u64(44);
        for n in 0..=40usize {
            for t in 0..=n + 2 {
                let mut c = Counter::default();
                let x = c.input(PartyId::GARBLER, n as u32, None).unwrap();
                at_least(&mut c, &x, t);
                assert!(c.cost().ands <= n.saturating_sub(1) as u64, "n={n} t={t}");
                let mut r = Recorder::default();
                let x = r.input(PartyId::GARBLER, n as u32, None).unwrap();
                let out = at_least(&mut r, &x, t);
                r.output(&[out]).unwrap();
                let rec = r.finish();
                assert_eq!(rec.circuit.stats().ands as u64, c.cost().ands);
                // Random inputs, and inputs with exactly t − 1, t and t + 1 ones.
                let mut cases: Vec<Vec<bool>> = (0..6).map(|_| (0..n).map(|_| rng.gen()).collect()).collect();
                for ones in [t.saturating_sub(1), t, t + 1, 0, n] {
                    cases.push((0..n).map(|i| i < ones.min(n)).collect());
                }
                for v in cases {
                    let want = v.iter().filter(|&&b| b).count() >= t;
                    let mut p = Plain::default();
                    let xs = p.input(PartyId::GARBLER, n as u32, Some(&v)).unwrap();
                    assert_eq!(at_least(&mut p, &xs, t), want, "n={n} t={t} {v:?}");
                    let replay = rec.circuit.eval_plain(std::slice::from_ref(&v)).unwrap();
                    assert_eq!(value(&replay[0]), want as u128, "recorded n={n} t={t}");
                }
            }
        }
        // Majorities (ties lose) of 8 and 16 bits: 7 and 15 ANDs.
        for (n, ands) in [(8usize, 7u64), (16, 15)] {
            let mut c = Counter::default();
            let x = c.input(PartyId::GARBLER, n as u32, None).unwrap();
            at_least(&mut c, &x, n / 2 + 1);
            assert_eq!(c.cost().ands, ands);
        }
    }

    #[test]
    fn popcount_of_any_length_costs_n_minus_its_weight() {
        use crate::gadgets::testing::value;
        use crate::Plain;
        let mut rng = rand::rngs::StdRng::seed_from_u64(43);
        for n in 0..=300usize {
            let mut c = Counter::default();
            let x = c.input(PartyId::GARBLER, n as u32, None).unwrap();
            popcount(&mut c, &x);
            let want = if n == 0 { 0 } else { optimal(n) };
            assert_eq!(c.cost().ands, want, "n={n}");
            assert!(c.cost().ands <= n.saturating_sub(1) as u64);
            // Plaintext check on random inputs, including all ones.
            for ones in [false, true] {
                let v: Vec<bool> = (0..n).map(|_| ones || rng.gen()).collect();
                let mut p = Plain::default();
                let xs = p.input(PartyId::GARBLER, n as u32, Some(&v)).unwrap();
                let out = popcount(&mut p, &xs);
                assert_eq!(out.len(), count_bits(n));
                assert_eq!(value(&out), v.iter().filter(|&&b| b).count() as u128, "n={n}");
            }
        }
        // TinyGarble Table 3.1: Hamming-160 = 159 ANDs.
        let mut c = Counter::default();
        let x = c.input(PartyId::GARBLER, 160, None).unwrap();
        let y = c.input(PartyId::EVALUATOR, 160, None).unwrap();
        hamming(&mut c, &x, &y);
        assert_eq!(c.cost().ands, 158);
    }
}
