//! Selection: min/max, argmax, absolute value, conditional negation and ReLU.

use super::{lt_signed, lt_unsigned, mux};
use crate::Backend;

/// min(x, y) of unsigned values: one comparison and one mux, 2w ANDs.
pub fn min_unsigned<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    let c = lt_unsigned(b, y, x)[0];
    mux(b, c, x, y)
}

/// max(x, y) of unsigned values: 2w ANDs.
pub fn max_unsigned<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    let c = lt_unsigned(b, x, y)[0];
    mux(b, c, x, y)
}

/// min(x, y) of two's-complement values: 2w ANDs.
pub fn min_signed<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    let c = lt_signed(b, y, x)[0];
    mux(b, c, x, y)
}

/// max(x, y) of two's-complement values: 2w ANDs.
pub fn max_signed<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    let c = lt_signed(b, x, y)[0];
    mux(b, c, x, y)
}

/// An index bit that may be a public constant (so muxing it with a constant is free).
#[derive(Clone, Copy)]
enum IndexBit<W> {
    Known(bool),
    Wire(W),
}

/// A contestant of the argmax tournament: its index bits and its value.
type Candidate<W> = (Vec<IndexBit<W>>, Vec<W>);

/// `if c { q } else { p }` on index bits: free when both are constants, 1 AND otherwise.
fn mux_index<B: Backend>(
    b: &mut B,
    c: B::Wire,
    p: IndexBit<B::Wire>,
    q: IndexBit<B::Wire>,
) -> IndexBit<B::Wire> {
    use IndexBit::*;
    match (p, q) {
        (Known(u), Known(v)) if u == v => Known(u),
        (Known(false), Known(true)) => Wire(c),
        (Known(true), Known(false)) => Wire(b.not(c)),
        _ => {
            let mut wire = |v: IndexBit<B::Wire>| match v {
                Known(k) => b.constant(k),
                Wire(w) => w,
            };
            let (p, q) = (wire(p), wire(q));
            Wire(mux(b, c, &[p], &[q])[0])
        }
    }
}

/// The position of the largest of `values` (unsigned, equal widths) as ⌈log2 n⌉ bits, the
/// lowest position on ties, together with that largest value: `(index, max)`.
///
/// A tournament tree: each match is one comparison [left < right] (w ANDs; the left
/// operand, holding the lower positions, wins ties) and a mux of the values (w ANDs) and of
/// the index bits that are not yet public (an index bit decided in the match itself is the
/// comparison result, free). So 2w(n − 1) ANDs for the values plus at most
/// Σ_matches (depth − 1) for the index (n = 2^k: n − 1 − k).
pub fn argmax_with_max<B: Backend>(b: &mut B, values: &[Vec<B::Wire>]) -> (Vec<B::Wire>, Vec<B::Wire>) {
    tournament(b, values, true)
}

/// The tournament of [`argmax_with_max`]; without `keep_max` the final match skips its
/// value mux (w ANDs fewer) and the returned value is the final's left operand.
fn tournament<B: Backend>(
    b: &mut B,
    values: &[Vec<B::Wire>],
    keep_max: bool,
) -> (Vec<B::Wire>, Vec<B::Wire>) {
    assert!(!values.is_empty(), "argmax of an empty list");
    let w = values[0].len();
    assert!(
        values.iter().all(|v| v.len() == w),
        "values must have equal widths"
    );
    let n = values.len();
    let bits = index_bits(n);
    let mut cand: Vec<Candidate<B::Wire>> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            (
                (0..bits).map(|k| IndexBit::Known(i >> k & 1 == 1)).collect(),
                v.clone(),
            )
        })
        .collect();
    while cand.len() > 1 {
        let last_round = cand.len() == 2;
        let mut next = Vec::with_capacity(cand.len().div_ceil(2));
        let mut it = cand.into_iter();
        while let Some((li, lv)) = it.next() {
            match it.next() {
                None => next.push((li, lv)),
                Some((ri, rv)) => {
                    let c = lt_unsigned(b, &lv, &rv)[0];
                    let v = if last_round && !keep_max {
                        lv
                    } else {
                        mux(b, c, &lv, &rv)
                    };
                    let i = li.iter().zip(&ri).map(|(&p, &q)| mux_index(b, c, p, q)).collect();
                    next.push((i, v));
                }
            }
        }
        cand = next;
    }
    let (index, max) = cand.pop().expect("one candidate left");
    let index = index
        .into_iter()
        .map(|v| match v {
            IndexBit::Known(k) => b.constant(k),
            IndexBit::Wire(w) => w,
        })
        .collect();
    (index, max)
}

/// ⌈log2 n⌉: the bits of an index into n values.
pub fn index_bits(n: usize) -> usize {
    if n <= 1 {
        0
    } else {
        (usize::BITS - (n - 1).leading_zeros()) as usize
    }
}

/// The position of the largest of `values` (unsigned) as ⌈log2 n⌉ bits, lowest on ties:
/// the tournament of [`argmax_with_max`] without the final match's value mux, so
/// (2w + ⌈log2 n⌉)(n − 1) − w ANDs at most (n = 2^k: 2w(n − 1) − w + n − 1 − k).
pub fn argmax<B: Backend>(b: &mut B, values: &[Vec<B::Wire>]) -> Vec<B::Wire> {
    tournament(b, values, false).0
}

/// `if s { −x } else { x }` mod 2^w: (x ⊕ s) + s, an incrementer with carry-in s,
/// w − 1 ANDs (0 for w ≤ 1).
pub fn negate_if<B: Backend>(b: &mut B, s: B::Wire, x: &[B::Wire]) -> Vec<B::Wire> {
    let mut c = s;
    let mut out = Vec::with_capacity(x.len());
    for (i, &xi) in x.iter().enumerate() {
        let v = b.xor(xi, s);
        out.push(b.xor(v, c));
        if i + 1 < x.len() {
            c = b.and(v, c);
        }
    }
    out
}

/// |x| of a two's-complement value, wrapping like Rust's `wrapping_abs` (|MIN| = MIN):
/// [`negate_if`] on the sign bit, w − 1 ANDs (0 for w ≤ 1).
pub fn abs<B: Backend>(b: &mut B, x: &[B::Wire]) -> Vec<B::Wire> {
    match x.last() {
        None => vec![],
        Some(&s) => negate_if(b, s, x),
    }
}

/// ReLU of a two's-complement value: x if x ≥ 0, else 0. Each bit below the sign is
/// xᵢ ∧ ¬sign and the sign bit of the result is 0: exactly w − 1 ANDs.
pub fn relu<B: Backend>(b: &mut B, x: &[B::Wire]) -> Vec<B::Wire> {
    let Some(&s) = x.last() else { return vec![] };
    let keep = b.not(s);
    let mut out: Vec<B::Wire> = x[..x.len() - 1].iter().map(|&v| b.and(v, keep)).collect();
    out.push(b.constant(false));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gadgets::testing::{bits, check2, signed, value, wrap, WIDTHS};
    use crate::{Counter, PartyId, Plain, Recorder};
    use rand::{Rng, SeedableRng};

    fn abs2<B: Backend>(b: &mut B, x: &[B::Wire], _: &[B::Wire]) -> Vec<B::Wire> {
        abs(b, x)
    }
    fn relu2<B: Backend>(b: &mut B, x: &[B::Wire], _: &[B::Wire]) -> Vec<B::Wire> {
        relu(b, x)
    }
    fn negate_if2<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
        negate_if(b, y[0], x)
    }

    #[test]
    fn min_max_abs_relu_match_native() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(21);
        for w in WIDTHS {
            let top = wrap(u128::MAX, w);
            let smin = 1u128 << (w - 1);
            let mut cases: Vec<(u128, u128)> = (0..12)
                .map(|_| (wrap(rng.gen(), w), wrap(rng.gen(), w)))
                .collect();
            cases.extend([
                (0, 0),
                (top, top),
                (0, top),
                (top, 0),
                (smin, smin - 1),
                (smin - 1, smin),
                (smin, 0),
            ]);
            let w64 = w as u64;
            for (x, y) in cases {
                let (sx, sy) = (signed(x, w), signed(y, w));
                let as_u = |v: i128| wrap(v as u128, w);
                assert_eq!(check2!(min_unsigned, x, y, w), (x.min(y), w, 2 * w64), "w={w}");
                assert_eq!(check2!(max_unsigned, x, y, w), (x.max(y), w, 2 * w64));
                assert_eq!(check2!(min_signed, x, y, w), (as_u(sx.min(sy)), w, 2 * w64));
                assert_eq!(check2!(max_signed, x, y, w), (as_u(sx.max(sy)), w, 2 * w64));
                let wabs = if w == 128 { sx.wrapping_abs() } else { sx.abs() };
                assert_eq!(check2!(abs2, x, y, w), (as_u(wabs), w, w64 - 1), "abs w={w} {x}");
                assert_eq!(
                    check2!(relu2, x, y, w),
                    (as_u(sx.max(0)), w, w64 - 1),
                    "relu w={w} {x}"
                );
                let want = if y & 1 == 1 { wrap(x.wrapping_neg(), w) } else { x };
                assert_eq!(check2!(negate_if2, x, y, w), (want, w, w64 - 1));
            }
        }
    }

    /// argmax on all three backends: (index, max, ANDs).
    fn run_argmax(vals: &[u128], w: usize) -> (u128, u128, u64) {
        let n = vals.len();
        let mut p = Plain::default();
        let xs: Vec<Vec<bool>> = vals
            .iter()
            .map(|&v| p.input(PartyId::GARBLER, w as u32, Some(&bits(v, w))).unwrap())
            .collect();
        let (pi, pm) = argmax_with_max(&mut p, &xs);
        let mut r = Recorder::default();
        let xs: Vec<Vec<u32>> = (0..n)
            .map(|_| r.input(PartyId::GARBLER, w as u32, None).unwrap())
            .collect();
        let (ri, rm) = argmax_with_max(&mut r, &xs);
        let _ = r.output(&ri);
        let _ = r.output(&rm);
        let rec = r.finish();
        let inputs: Vec<Vec<bool>> = vals.iter().map(|&v| bits(v, w)).collect();
        assert_eq!(
            rec.circuit.eval_plain(&inputs).unwrap(),
            vec![pi.clone(), pm.clone()]
        );
        let mut c = Counter::default();
        let xs: Vec<Vec<u32>> = (0..n)
            .map(|_| c.input(PartyId::GARBLER, w as u32, None).unwrap())
            .collect();
        argmax_with_max(&mut c, &xs);
        assert_eq!(c.cost().ands, rec.circuit.stats().ands as u64);
        assert_eq!(pi.len(), index_bits(n));
        // The index alone: the same answer, one value mux fewer when there is a match.
        let mut r = Recorder::default();
        let xs: Vec<Vec<u32>> = (0..n)
            .map(|_| r.input(PartyId::GARBLER, w as u32, None).unwrap())
            .collect();
        let ri = argmax(&mut r, &xs);
        let _ = r.output(&ri);
        let rec_index = r.finish();
        assert_eq!(rec_index.circuit.eval_plain(&inputs).unwrap(), vec![pi.clone()]);
        let saved = if n > 1 { w } else { 0 };
        assert_eq!(
            rec_index.circuit.stats().ands + saved,
            rec.circuit.stats().ands,
            "argmax alone"
        );
        (value(&pi), value(&pm), c.cost().ands)
    }

    #[test]
    fn argmax_finds_the_first_largest() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(22);
        for w in WIDTHS {
            for n in [1usize, 2, 3, 5, 8] {
                for trial in 0..3 {
                    let mut vals: Vec<u128> = (0..n).map(|_| wrap(rng.gen(), w)).collect();
                    if trial == 1 {
                        vals = (0..n)
                            .map(|i| wrap(rng.gen::<u128>() % 3, w) * (i as u128 % 2))
                            .collect();
                    }
                    if trial == 2 {
                        vals = vec![wrap(u128::MAX, w); n];
                    }
                    let max = *vals.iter().max().unwrap();
                    let first = vals.iter().position(|&v| v == max).unwrap() as u128;
                    let (i, m, ands) = run_argmax(&vals, w);
                    assert_eq!((i, m), (first, max), "w={w} {vals:?}");
                    assert!(ands <= (2 * w as u64 + index_bits(n) as u64) * (n as u64 - 1));
                }
            }
        }
        // n = 8 = 2^3: 7 matches of 2w ANDs plus 8 − 1 − 3 index muxes.
        let (_, _, ands) = run_argmax(&[0; 8], 32);
        assert_eq!(ands, 7 * 64 + 4);
    }
}
