//! Integer square root.

use crate::Backend;

/// ⌊√x⌋ of an unsigned w-bit value, as ⌈w/2⌉ bits.
///
/// Digit-by-digit (restoring) square root, one root bit per pair of x's bits from the top.
/// With k root bits found, the remainder is ≤ 2·root < 2^(k+1); the next pair is shifted in,
/// R = 4·rem + pair (k + 3 bits), and the trial 4·root + 1 = [1, 0, root…] is subtracted with
/// a borrow-out: the constant low bits of the trial make bit 0 free and bit 1 one AND, the
/// root bits one AND each and the top bit one AND. The root bit is ¬borrow, and the new
/// remainder (whose top bit is known to be 0) is a mux over k + 1 bits (bit 0 is free: R₀ and
/// R₀ − 1 differ in it always); the last step needs no remainder. The first pair costs 1 AND.
/// With h = ⌈w/2⌉ that is h² + h − 2 ANDs for even w ≥ 4 and h² + h − 4 for odd w ≥ 3 (the
/// top pair has one bit: free); w = 8: 18, 16: 70, 32: 270, 64: 1,054.
pub fn sqrt<B: Backend>(b: &mut B, x: &[B::Wire]) -> Vec<B::Wire> {
    let w = x.len();
    let h = w.div_ceil(2);
    if h == 0 {
        return vec![];
    }
    let xb = |t: usize| x.get(t).copied();
    // First pair (a, c) = (x_{2h−1}, x_{2h−2}): root bit a ∨ c, remainder pair − root bit.
    let (mut root, mut rem): (Vec<B::Wire>, Vec<Option<B::Wire>>) = match (xb(2 * h - 1), xb(2 * h - 2)) {
        (Some(a), Some(c)) => {
            let ac = b.and(a, c);
            let t = b.xor(a, c);
            let q = b.xor(t, ac);
            let r0 = b.xor(a, ac); // a ∧ ¬c
            (vec![q], vec![Some(r0), Some(ac)])
        }
        (None, Some(c)) => (vec![c], vec![None, None]),
        _ => unreachable!("h ≥ 1 means x has bit 2h − 2"),
    };
    for i in (0..h - 1).rev() {
        let k = root.len();
        let last = i == 0;
        // R = 4·rem + (x_{2i+1} x_{2i}), k + 3 bits, None = known zero.
        let mut r: Vec<Option<B::Wire>> = vec![Some(x[2 * i]), Some(x[2 * i + 1])];
        r.extend(rem.iter().copied());
        r.resize(k + 3, None);
        // D = R − (4·root + 1) with carry c = ¬borrow.
        let mut d: Vec<Option<B::Wire>> = Vec::with_capacity(k + 3);
        let r0 = r[0].expect("x bit");
        let nr0 = b.not(r0);
        d.push(Some(nr0));
        let mut c = r0; // R₀ − 1: no borrow iff R₀ = 1
        let r1 = r[1].expect("x bit");
        d.push(Some(b.xor(r1, nr0))); // R₁ ⊕ borrow
        c = {
            // carry' = R₁ ∨ c
            let t = b.and(r1, c);
            let u = b.xor(r1, c);
            b.xor(u, t)
        };
        for j in 2..k + 2 {
            let ny = b.not(root[j - 2]);
            let d_j = match r[j] {
                Some(rj) => {
                    let xc = b.xor(rj, c);
                    let dj = b.xor(xc, ny);
                    let yc = b.xor(ny, c);
                    let t = b.and(xc, yc);
                    c = b.xor(c, t);
                    dj
                }
                None => {
                    // 0 + ¬y + c: sum ¬y ⊕ c, carry ¬y ∧ c.
                    let dj = b.xor(ny, c);
                    c = b.and(ny, c);
                    dj
                }
            };
            d.push(Some(d_j));
        }
        // Top bit k + 2: trial bit 0, so carry' = R_{k+2} ∨ c (the difference bit is 0).
        if let Some(rt) = r[k + 2] {
            let t = b.and(rt, c);
            let u = b.xor(rt, c);
            c = b.xor(u, t);
        }
        let q = c;
        if !last {
            let zero = b.constant(false);
            let mut next = Vec::with_capacity(k + 2);
            next.push(Some(b.xor(r0, q))); // bit 0: R₀ or ¬R₀
            for j in 1..k + 2 {
                let rj = r[j].unwrap_or(zero);
                let dj = d[j].expect("difference bit");
                let diff = b.xor(rj, dj);
                let t = b.and(q, diff);
                next.push(Some(b.xor(rj, t)));
            }
            rem = next;
        }
        root.insert(0, q);
    }
    root
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gadgets::testing::{check2, wrap, WIDTHS};
    use crate::{Counter, PartyId};
    use rand::{Rng, SeedableRng};

    fn sqrt2<B: Backend>(b: &mut B, x: &[B::Wire], _: &[B::Wire]) -> Vec<B::Wire> {
        sqrt(b, x)
    }

    fn isqrt(x: u128) -> u128 {
        x.isqrt()
    }

    fn ands(w: usize) -> u64 {
        let mut c = Counter::default();
        let x = c.input(PartyId::GARBLER, w as u32, None).unwrap();
        sqrt(&mut c, &x);
        c.cost().ands
    }

    #[test]
    fn square_root_matches_native() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(51);
        for w in WIDTHS {
            let top = wrap(u128::MAX, w);
            let mut cases: Vec<u128> = (0..20).map(|_| wrap(rng.gen(), w)).collect();
            // Perfect squares and their neighbours, small values, the extremes.
            for _ in 0..10 {
                let r = wrap(rng.gen(), w.div_ceil(2));
                let s = r.wrapping_mul(r);
                if w == 128 || s <= top {
                    cases.extend([s, s.wrapping_sub(1) & top, s.wrapping_add(1) & top]);
                }
            }
            cases.extend([0, 1, 2, 3, 4, top, top - 1, top >> 1].map(|v| v & top));
            let want_ands = ands(w);
            for x in cases {
                let (v, width, a) = check2!(sqrt2, x, 0, w);
                assert_eq!((v, width, a), (isqrt(x), w.div_ceil(2), want_ands), "w={w} x={x}");
            }
        }
        // Exhaustive at small widths.
        for w in 1..=10usize {
            for x in 0..1u128 << w {
                assert_eq!(check2!(sqrt2, x, 0, w).0, isqrt(x), "w={w} x={x}");
            }
        }
    }

    #[test]
    fn square_root_and_counts() {
        for w in (4..=128).step_by(2) {
            let h = (w / 2) as u64;
            assert_eq!(ands(w), h * h + h - 2, "w={w}");
        }
        for w in (3usize..=127).step_by(2) {
            let h = w.div_ceil(2) as u64;
            assert_eq!(ands(w), h * h + h - 4, "w={w}");
        }
        let pinned = [
            (1, 0),
            (2, 1),
            (7, 16),
            (8, 18),
            (16, 70),
            (31, 268),
            (32, 270),
            (64, 1054),
            (65, 1118),
        ];
        for (w, a) in pinned {
            assert_eq!(ands(w), a, "w={w}");
        }
    }
}
