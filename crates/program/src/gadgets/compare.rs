//! Comparisons and selection.

use crate::Backend;

/// [x = y] as one wire: w − 1 ANDs (AND of the XNORs).
pub fn eq<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    assert_eq!(x.len(), y.len(), "operands must have equal widths");
    let mut same: Vec<B::Wire> = x
        .iter()
        .zip(y)
        .map(|(&p, &q)| {
            let d = b.xor(p, q);
            b.not(d)
        })
        .collect();
    if same.is_empty() {
        return vec![b.constant(true)];
    }
    // Balanced tree: AND depth ⌈log2 w⌉.
    while same.len() > 1 {
        let next: Vec<B::Wire> = same
            .chunks(2)
            .map(|p| if p.len() == 2 { b.and(p[0], p[1]) } else { p[0] })
            .collect();
        same = next;
    }
    same
}

/// [x < y] for unsigned values as one wire: w ANDs. Carry chain
/// c' = y ⊕ ((y ⊕ c) ∧ (x ⊕ c)) from bit 0 up; the most significant differing bit decides
/// (Kolesnikov–Sadeghi–Schneider 2009).
pub fn lt_unsigned<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    assert_eq!(x.len(), y.len(), "operands must have equal widths");
    let mut c = b.constant(false);
    for (&xi, &yi) in x.iter().zip(y) {
        let yc = b.xor(yi, c);
        let xc = b.xor(xi, c);
        let t = b.and(yc, xc);
        c = b.xor(yi, t);
    }
    vec![c]
}

/// [x < y] for two's-complement values as one wire: w ANDs (the unsigned comparison with
/// the sign bits swapped).
pub fn lt_signed<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    assert_eq!(x.len(), y.len(), "operands must have equal widths");
    let (mut x2, mut y2) = (x.to_vec(), y.to_vec());
    if let (Some(xt), Some(yt)) = (x2.last_mut(), y2.last_mut()) {
        std::mem::swap(xt, yt);
    }
    lt_unsigned(b, &x2, &y2)
}

/// `if s { y } else { x }` per bit: x ⊕ (s ∧ (x ⊕ y)), w ANDs.
pub fn mux<B: Backend>(b: &mut B, s: B::Wire, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    assert_eq!(x.len(), y.len(), "operands must have equal widths");
    x.iter()
        .zip(y)
        .map(|(&p, &q)| {
            let d = b.xor(p, q);
            let t = b.and(s, d);
            b.xor(p, t)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gadgets::testing::{check2, signed, wrap, WIDTHS};
    use rand::{Rng, SeedableRng};

    /// mux with the selector taken from y's bit 0 and the data from x and ¬x.
    fn mux_test<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
        let nx: Vec<B::Wire> = x.iter().map(|&v| b.not(v)).collect();
        mux(b, y[0], x, &nx)
    }

    #[test]
    fn comparisons_and_mux_match_native_with_minimal_ands() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(2);
        for w in WIDTHS {
            let mut cases: Vec<(u128, u128)> = (0..20)
                .map(|_| (wrap(rng.gen(), w), wrap(rng.gen(), w)))
                .collect();
            let top = if w == 128 { u128::MAX } else { (1u128 << w) - 1 };
            cases.extend([
                (0, 0),
                (top, top),
                (0, top),
                (top, 0),
                (1 & top, 0),
                (top >> 1, (top >> 1) + 1),
            ]);
            for &(x, y) in &cases {
                let y = wrap(y, w);
                let (v, width, ands) = check2!(eq, x, y, w);
                assert_eq!((v, width, ands), ((x == y) as u128, 1, w as u64 - 1), "eq w={w}");
                let (v, _, ands) = check2!(lt_unsigned, x, y, w);
                assert_eq!(
                    (v, ands),
                    ((x < y) as u128, w as u64),
                    "lt_unsigned w={w} {x} {y}"
                );
                let (v, _, ands) = check2!(lt_signed, x, y, w);
                assert_eq!(
                    (v, ands),
                    ((signed(x, w) < signed(y, w)) as u128, w as u64),
                    "lt_signed w={w}"
                );
                let (v, _, ands) = check2!(mux_test, x, y, w);
                let want = if y & 1 == 1 { wrap(!x, w) } else { x };
                assert_eq!((v, ands), (want, w as u64), "mux w={w}");
            }
        }
    }
}
