//! Levenshtein edit distance between two strings of secret symbols.
//!
//! The textbook dynamic program fills D[i][j] = min(D[i−1][j] + 1, D[i][j−1] + 1,
//! D[i−1][j−1] + [s_i ≠ t_j]) with D[i][0] = i, D[0][j] = j. Storing D as integers costs a
//! comparison, a mux and an adder of ⌈log2(max(n, m) + 1)⌉ bits per cell. Instead we use the
//! fact that neighbouring cells differ by at most one (as in Ukkonen's and Myers' bit-vector
//! algorithms): every cell keeps only the two differences
//!
//! - h = D[i][j] − D[i][j−1] ∈ {−1, 0, 1} (along the row) and
//! - v = D[i][j] − D[i−1][j] ∈ {−1, 0, 1} (down the column),
//!
//! each as two bits (`minus`, `plus`), never both set. With a = D[i−1][j−1], the h of the row
//! above and the v of the cell to the left, D[i][j] − a = min(1 − eq, h + 1, v + 1) is a single
//! bit
//!
//! d = ¬eq ∧ ¬h.minus ∧ ¬v.minus,
//!
//! and the cell's outputs are h' = d − v and v' = d − h. With u = d ∧ v.plus, h'.minus =
//! v.plus ⊕ u and h'.plus = v.minus ⊕ d ⊕ u (v.minus forces d = 0), and likewise for v'.
//!
//! **ANDs per cell: 11** for 8-bit symbols: 7 for the equality of the symbols (w − 1 for
//! w-bit symbols, which is optimal for equality), 2 for d (d has algebraic degree 10 in the
//! symbol bits and the two minus bits, so its 9 ANDs together with the equality are minimal), 1 each for h' and v'. Cells in the
//! first row or column see the public differences of the border (+1) and fold them: 9 ANDs,
//! and 7 for cell (1, 1). The cells of the last column skip v', which nothing reads.
//! Nothing else is secret-dependent until the end, where D[n][m] = n + Σ_j h_j over the last
//! row is summed as Σ_j (2·h_j.plus + [h_j = 0]) + n − m with a carry-save tree of full adders
//! (one AND each) truncated to the output width ⌈log2(max(n, m) + 1)⌉ bits (at least 1);
//! public bits are folded, never garbled. No cell ever stores D itself.
//!
//! For n, m ≥ 1 and 8-bit symbols the grid costs 11·(n−1)(m−1) + 9·(n+m−2) + 7 − (n−1) ANDs
//! and the final sum about 2m: **720,126 ANDs at 256 × 256** (719,617 in the grid, 509 in
//! the sum; MEG's EDT-256 circuit had 2.73 M non-XOR gates), 44,862 at 64 × 64, 2,766 at
//! 16 × 16 (pinned by the tests).

use crate::Backend;

/// A bit that is a public constant or a wire: constants fold, so border cells and the
/// constant part of the final sum cost no ANDs.
#[derive(Clone, Copy, Debug)]
enum Bit<W> {
    Const(bool),
    Wire(W),
}

fn bit_xor<B: Backend>(b: &mut B, x: Bit<B::Wire>, y: Bit<B::Wire>) -> Bit<B::Wire> {
    match (x, y) {
        (Bit::Const(p), Bit::Const(q)) => Bit::Const(p ^ q),
        (Bit::Const(false), w) | (w, Bit::Const(false)) => w,
        (Bit::Const(true), Bit::Wire(w)) | (Bit::Wire(w), Bit::Const(true)) => Bit::Wire(b.not(w)),
        (Bit::Wire(p), Bit::Wire(q)) => Bit::Wire(b.xor(p, q)),
    }
}

fn bit_and<B: Backend>(b: &mut B, x: Bit<B::Wire>, y: Bit<B::Wire>) -> Bit<B::Wire> {
    match (x, y) {
        (Bit::Const(false), _) | (_, Bit::Const(false)) => Bit::Const(false),
        (Bit::Const(true), w) | (w, Bit::Const(true)) => w,
        (Bit::Wire(p), Bit::Wire(q)) => Bit::Wire(b.and(p, q)),
    }
}

fn bit_not<B: Backend>(b: &mut B, x: Bit<B::Wire>) -> Bit<B::Wire> {
    bit_xor(b, x, Bit::Const(true))
}

fn to_wire<B: Backend>(b: &mut B, x: Bit<B::Wire>) -> B::Wire {
    match x {
        Bit::Const(v) => b.constant(v),
        Bit::Wire(w) => w,
    }
}

/// A difference of neighbouring cells, −1, 0 or +1.
#[derive(Clone, Copy, Debug)]
struct Diff<W> {
    minus: Bit<W>,
    plus: Bit<W>,
}

/// The difference along the border row and column: +1.
fn plus_one<W>() -> Diff<W> {
    Diff {
        minus: Bit::Const(false),
        plus: Bit::Const(true),
    }
}

/// d − x for a bit d and a difference x that cannot both be 1 and −1: one AND.
fn minus<B: Backend>(b: &mut B, d: Bit<B::Wire>, x: Diff<B::Wire>) -> Diff<B::Wire> {
    let u = bit_and(b, d, x.plus);
    let minus = bit_xor(b, x.plus, u);
    let t = bit_xor(b, x.minus, d);
    let plus = bit_xor(b, t, u);
    Diff { minus, plus }
}

/// Levenshtein distance between the strings `s` and `t`, each a slice of symbols of equal
/// width (8 bits for bytes), every symbol least significant bit first. Returns
/// ⌈log2(max(n, m) + 1)⌉ bits (at least one), least significant first. AND count in the
/// module docs: 11 per inner cell for 8-bit symbols, 720,126 at 256 × 256.
pub fn edit_distance<B: Backend>(b: &mut B, s: &[Vec<B::Wire>], t: &[Vec<B::Wire>]) -> Vec<B::Wire> {
    let width = s.first().or(t.first()).map_or(0, Vec::len);
    assert!(
        s.iter().chain(t).all(|x| x.len() == width),
        "all symbols must have the same width"
    );
    let (n, m) = (s.len(), t.len());
    let out_width = (usize::BITS - n.max(m).leading_zeros()).max(1) as usize;

    // Row 0: D[0][j] = j, every difference along it is +1.
    let mut row: Vec<Diff<B::Wire>> = vec![plus_one(); m];
    for si in s {
        // Column 0: D[i][0] = i, the difference down it is +1.
        let mut v: Diff<B::Wire> = plus_one();
        for (j, (h, tj)) in row.iter_mut().zip(t).enumerate() {
            let eq = Bit::Wire(super::eq(b, si, tj)[0]);
            let ne = bit_not(b, eq);
            let no_h = bit_not(b, h.minus);
            let no_v = bit_not(b, v.minus);
            let no_minus = bit_and(b, no_h, no_v);
            let d = bit_and(b, no_minus, ne);
            let h_new = minus(b, d, v);
            // The last column's v' would feed nothing: skip its AND.
            if j + 1 < m {
                v = minus(b, d, *h);
            }
            *h = h_new;
        }
    }

    // D[n][m] = (n − m) + Σ_j (h_j + 1) with h_j + 1 = 2·plus + [h_j = 0], mod 2^out_width.
    let mut columns: Vec<Vec<Bit<B::Wire>>> = vec![Vec::new(); out_width];
    for h in &row {
        let zero = bit_xor(b, h.minus, h.plus);
        columns[0].push(bit_not(b, zero));
        if out_width > 1 {
            columns[1].push(h.plus);
        }
    }
    let offset = (n as u64).wrapping_sub(m as u64);
    for (k, column) in columns.iter_mut().enumerate() {
        if offset >> k & 1 == 1 {
            column.push(Bit::Const(true));
        }
    }
    sum_columns(b, columns)
        .into_iter()
        .map(|x| to_wire(b, x))
        .collect()
}

/// Adds bits by weight (column k holds bits of weight 2^k) into one bit per column, modulo
/// 2^columns.len(): full adders (one AND) while a column has three bits, a half adder (one
/// AND) for two; the top column only XORs. Constant bits are combined first so they fold.
fn sum_columns<B: Backend>(b: &mut B, mut columns: Vec<Vec<Bit<B::Wire>>>) -> Vec<Bit<B::Wire>> {
    let top = columns.len();
    let mut result = Vec::with_capacity(top);
    for k in 0..top {
        let mut column = std::mem::take(&mut columns[k]);
        // Public bits of this column: their sum mod 2 stays here, the rest carries (as
        // constants) to higher columns, so no AND ever touches a constant needlessly.
        let ones = column.iter().filter(|x| matches!(x, Bit::Const(true))).count();
        column.retain(|x| matches!(x, Bit::Wire(_)));
        if ones % 2 == 1 {
            column.push(Bit::Const(true));
        }
        let mut carry_ones = ones / 2;
        for next in columns.iter_mut().skip(k + 1) {
            if carry_ones == 0 {
                break;
            }
            if carry_ones % 2 == 1 {
                next.push(Bit::Const(true));
            }
            carry_ones /= 2;
        }
        let mut queue = std::collections::VecDeque::from(column);
        while queue.len() > 1 {
            if k + 1 == top {
                let (x, y) = (queue.pop_front().unwrap(), queue.pop_front().unwrap());
                queue.push_back(bit_xor(b, x, y));
            } else if queue.len() >= 3 {
                let (x, y, z) = (
                    queue.pop_front().unwrap(),
                    queue.pop_front().unwrap(),
                    queue.pop_front().unwrap(),
                );
                let xy = bit_xor(b, x, y);
                let xz = bit_xor(b, x, z);
                queue.push_back(bit_xor(b, xy, z));
                let t = bit_and(b, xy, xz);
                let carry = bit_xor(b, x, t);
                columns[k + 1].push(carry);
            } else {
                let (x, y) = (queue.pop_front().unwrap(), queue.pop_front().unwrap());
                queue.push_back(bit_xor(b, x, y));
                let carry = bit_and(b, x, y);
                columns[k + 1].push(carry);
            }
        }
        result.push(queue.pop_front().unwrap_or(Bit::Const(false)));
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Counter, PartyId, Plain, Recorder};
    use rand::{Rng, SeedableRng};

    fn levenshtein(s: &[u8], t: &[u8]) -> usize {
        let mut prev: Vec<usize> = (0..=t.len()).collect();
        for (i, &a) in s.iter().enumerate() {
            let mut cur = vec![i + 1; t.len() + 1];
            for (j, &c) in t.iter().enumerate() {
                cur[j + 1] = (prev[j + 1] + 1).min(cur[j] + 1).min(prev[j] + (a != c) as usize);
            }
            prev = cur;
        }
        prev[t.len()]
    }

    fn byte_bits(x: u8) -> Vec<bool> {
        (0..8).map(|j| x >> j & 1 == 1).collect()
    }

    fn value(bits: &[bool]) -> usize {
        bits.iter().enumerate().map(|(i, &b)| (b as usize) << i).sum()
    }

    /// Runs the gadget on the plaintext backend, through the recorded circuit (one 8-bit
    /// input value per symbol, `s` first) and on the counter; returns (distance, ANDs).
    fn run(s: &[u8], t: &[u8]) -> (usize, u64) {
        let mut p = Plain::default();
        let ss: Vec<Vec<bool>> = s
            .iter()
            .map(|&x| p.input(PartyId::GARBLER, 8, Some(&byte_bits(x))).unwrap())
            .collect();
        let ts: Vec<Vec<bool>> = t
            .iter()
            .map(|&x| p.input(PartyId::EVALUATOR, 8, Some(&byte_bits(x))).unwrap())
            .collect();
        let plain = edit_distance(&mut p, &ss, &ts);
        assert_eq!(
            plain.len(),
            (usize::BITS - s.len().max(t.len()).leading_zeros()).max(1) as usize
        );

        let mut r = Recorder::default();
        let ss: Vec<Vec<u32>> = s
            .iter()
            .map(|_| r.input(PartyId::GARBLER, 8, None).unwrap())
            .collect();
        let ts: Vec<Vec<u32>> = t
            .iter()
            .map(|_| r.input(PartyId::EVALUATOR, 8, None).unwrap())
            .collect();
        let out = edit_distance(&mut r, &ss, &ts);
        r.output(&out).unwrap();
        let circuit = r.finish().circuit;
        let inputs: Vec<Vec<bool>> = s.iter().chain(t).map(|&x| byte_bits(x)).collect();
        assert_eq!(
            circuit.eval_plain(&inputs).unwrap(),
            vec![plain.clone()],
            "recorded circuit disagrees"
        );

        let ands = count(s.len(), t.len());
        assert_eq!(ands, circuit.stats().ands as u64, "counter and recorder disagree");
        (value(&plain), ands)
    }

    fn count(n: usize, m: usize) -> u64 {
        let mut c = Counter::default();
        let ss: Vec<Vec<u32>> = (0..n)
            .map(|_| c.input(PartyId::GARBLER, 8, None).unwrap())
            .collect();
        let ts: Vec<Vec<u32>> = (0..m)
            .map(|_| c.input(PartyId::EVALUATOR, 8, None).unwrap())
            .collect();
        edit_distance(&mut c, &ss, &ts);
        c.cost().ands
    }

    #[test]
    fn matches_plain_levenshtein_on_random_strings() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for case in 0..300 {
            let (n, m) = (rng.gen_range(0..=12), rng.gen_range(0..=12));
            // Small alphabets give many matches; full bytes check all symbol bits.
            let alphabet = [2u8, 4, 255][case % 3];
            let s: Vec<u8> = (0..n)
                .map(|_| rng.gen_range(0..=alphabet).wrapping_mul(37))
                .collect();
            let t: Vec<u8> = (0..m)
                .map(|_| rng.gen_range(0..=alphabet).wrapping_mul(37))
                .collect();
            let (d, ands) = run(&s, &t);
            assert_eq!(d, levenshtein(&s, &t), "s={s:?} t={t:?}");
            if n > 0 && m > 0 {
                let grid = 11 * (n as u64 - 1) * (m as u64 - 1) + 9 * (n + m - 2) as u64 + 7 - (n as u64 - 1);
                assert!(
                    ands >= grid && ands <= grid + 3 * m as u64 + 8,
                    "n={n} m={m} ands={ands}"
                );
            }
        }
        for (s, t) in [
            (&b"kitten"[..], &b"sitting"[..]),
            (b"", b""),
            (b"abc", b""),
            (b"", b"abcd"),
            (b"flaw", b"lawn"),
            (b"aaaa", b"aaaa"),
        ] {
            assert_eq!(run(s, t).0, levenshtein(s, t));
        }
        assert_eq!(levenshtein(b"kitten", b"sitting"), 3);
    }

    #[test]
    fn and_counts_are_pinned() {
        assert_eq!(count(0, 0), 0);
        assert_eq!(count(1, 1), 7);
        assert_eq!(count(16, 16), 2_766);
        assert_eq!(count(64, 64), 44_862);
        assert_eq!(count(256, 256), 720_126);
    }
}
