//! Multiplication: truncated (w×w → w) and full (w×w → 2w) products of secret values, and
//! multiplication by a public constant.
//!
//! Secret × secret uses radix-4 Booth recoding of the multiplier y: digit
//! dᵢ = y₂ᵢ₋₁ + y₂ᵢ − 2·y₂ᵢ₊₁ ∈ {−2, …, 2}, so only ⌈w/2⌉ partial products are added. A
//! partial product is `neg ⊕ sel` plus `neg` as the carry-in of its addition (two's
//! complement, free), where `sel = one·X ⊕ two·(X ≪ 1)` with one-hot selectors
//! `one = [|d| = 1]`, `two = [|d| = 2]`. Because `one` and `two` are exclusive, `sel` is the
//! GF(2) polynomial product (one + two·z)·X(z), which Karatsuba evaluates with 3 ANDs per pair
//! of bits of x (one·x₂ₖ, two·x₂ₖ₊₁ and (one ⊕ two)·(x₂ₖ ⊕ x₂ₖ₊₁)) instead of 4. Each bit of a
//! partial product thus costs 1.5 ANDs to select and 1 to add: about 5w²/8 ANDs in all,
//! against w² − w + 1 for the schoolbook array (TinyGarble's Mult-32 = 993). Narrow widths,
//! where the Booth overhead does not pay, use the schoolbook array.
//!
//! Internally bits are `Option<Wire>`, `None` being a known zero, so no AND is ever spent on a
//! constant.

use crate::Backend;

/// A bit that may be a known zero.
type Bit<W> = Option<W>;

fn xor_o<B: Backend>(b: &mut B, p: Bit<B::Wire>, q: Bit<B::Wire>) -> Bit<B::Wire> {
    match (p, q) {
        (Some(p), Some(q)) => Some(b.xor(p, q)),
        (p, None) | (None, p) => p,
    }
}

fn and_o<B: Backend>(b: &mut B, p: Bit<B::Wire>, q: Bit<B::Wire>) -> Bit<B::Wire> {
    match (p, q) {
        (Some(p), Some(q)) => Some(b.and(p, q)),
        _ => None,
    }
}

/// `acc += v + cin` where `v[k]` and `cin` sit at `acc[0]`'s position and carries out of the
/// last position are dropped. A position with two known bits is a half adder, three a full
/// adder (1 AND each, c' = c ⊕ ((a ⊕ c) ∧ (v ⊕ c))), fewer is free; the last position is free.
pub(crate) fn add_into<B: Backend>(
    b: &mut B,
    acc: &mut [Bit<B::Wire>],
    v: &[Bit<B::Wire>],
    cin: Bit<B::Wire>,
) {
    let mut c = cin;
    let n = acc.len();
    for (j, slot) in acc.iter_mut().enumerate() {
        let last = j + 1 == n;
        let p = v.get(j).copied().flatten();
        // The known-nonzero operands among (slot, p, c), packed to the front, without
        // allocating (this loop runs for every bit of every partial product).
        let mut live = [None; 3];
        for (k, w) in [*slot, p, c].into_iter().flatten().enumerate() {
            live[k] = Some(w);
        }
        match live {
            [None, ..] => c = None,
            [Some(s), None, _] => {
                *slot = Some(s);
                c = None;
            }
            [Some(u), Some(v), None] => {
                *slot = Some(b.xor(u, v));
                c = if last { None } else { Some(b.and(u, v)) };
            }
            [Some(u), Some(v), Some(cc)] => {
                let uc = b.xor(u, cc);
                *slot = Some(b.xor(uc, v));
                c = if last {
                    None
                } else {
                    let vc = b.xor(v, cc);
                    let t = b.and(uc, vc);
                    Some(b.xor(cc, t))
                };
            }
        }
    }
}

fn finish<B: Backend>(b: &mut B, acc: Vec<Bit<B::Wire>>) -> Vec<B::Wire> {
    let zero = b.constant(false);
    acc.into_iter().map(|v| v.unwrap_or(zero)).collect()
}

/// Schoolbook array: x·y mod 2^n with rows yᵢ·x added at position i.
fn schoolbook<B: Backend>(b: &mut B, x: &[Bit<B::Wire>], y: &[Bit<B::Wire>], n: usize) -> Vec<Bit<B::Wire>> {
    let mut acc: Vec<Bit<B::Wire>> = vec![None; n];
    for (i, &yi) in y.iter().enumerate().take(n) {
        let row: Vec<Bit<B::Wire>> = x.iter().take(n - i).map(|&xj| and_o(b, xj, yi)).collect();
        add_into(b, &mut acc[i..], &row, None);
    }
    acc
}

/// Radix-4 Booth with Karatsuba selection (see the module docs): x·y mod 2^n, x and y
/// unsigned (zero above their lengths).
fn booth<B: Backend>(b: &mut B, x: &[Bit<B::Wire>], y: &[Bit<B::Wire>], n: usize) -> Vec<Bit<B::Wire>> {
    let yb = |k: isize| {
        if k < 0 {
            None
        } else {
            y.get(k as usize).copied().flatten()
        }
    };
    let xb = |t: usize| x.get(t).copied().flatten();
    let mut acc: Vec<Bit<B::Wire>> = vec![None; n];
    for i in 0..y.len().div_ceil(2) + 1 {
        let lo = 2 * i;
        if lo >= n {
            break;
        }
        let k = lo as isize;
        let (ym, y0, y1) = (yb(k - 1), yb(k), yb(k + 1));
        let m = n - lo;
        let neg = y1;
        let one = xor_o(b, y0, ym);
        // two = [(y1, y0, ym) ∈ {(1,0,0), (0,1,1)}] = (y1 ⊕ y0) ∧ ¬one; unused in a 1-bit row.
        let two = if m < 2 {
            None
        } else {
            let q = xor_o(b, y1, y0);
            match one {
                None => q,
                Some(o) => {
                    let no = b.not(o);
                    and_o(b, q, Some(no))
                }
            }
        };
        // sel_t = one·x_t ⊕ two·x_{t−1}, t < m.
        let mut sel: Vec<Bit<B::Wire>> = vec![None; m];
        let mut t = 0;
        while t < m {
            let (x0, x1) = (xb(t), xb(t + 1));
            let full = t + 1 < m && one.is_some() && two.is_some() && x0.is_some() && x1.is_some();
            if full {
                // Karatsuba: (one + two z)(x0 + x1 z) = A + (M ⊕ A ⊕ C) z + C z².
                let a = and_o(b, one, x0);
                let c = and_o(b, two, x1);
                let s = xor_o(b, one, two);
                let xx = xor_o(b, x0, x1);
                let mm = and_o(b, s, xx);
                let mid = xor_o(b, mm, a);
                let mid = xor_o(b, mid, c);
                sel[t] = xor_o(b, sel[t], a);
                sel[t + 1] = xor_o(b, sel[t + 1], mid);
                if t + 2 < m {
                    sel[t + 2] = xor_o(b, sel[t + 2], c);
                }
            } else {
                for (tt, xv) in [(t, x0), (t + 1, x1)] {
                    if tt < m {
                        let p = and_o(b, one, xv);
                        sel[tt] = xor_o(b, sel[tt], p);
                    }
                    if tt + 1 < m {
                        let p = and_o(b, two, xv);
                        sel[tt + 1] = xor_o(b, sel[tt + 1], p);
                    }
                }
            }
            t += 2;
        }
        let row: Vec<Bit<B::Wire>> = sel.into_iter().map(|s| xor_o(b, s, neg)).collect();
        add_into(b, &mut acc[lo..], &row, neg);
    }
    acc
}

fn known<W: Copy>(x: &[W]) -> Vec<Option<W>> {
    x.iter().map(|&v| Some(v)).collect()
}

/// Widths from which Booth beats the schoolbook array (truncated, full product).
const BOOTH_FROM_TRUNCATED: usize = 5;
const BOOTH_FROM_FULL: usize = 7;

/// x·y mod 2^w (truncated product).
///
/// w ≤ 4: schoolbook array, w² − w + 1 ANDs. w ≥ 5: radix-4 Booth with Karatsuba selection
/// (module docs): 5w(w + 2)/8 ANDs for even w, (5w² + 8w − 5)/8 for odd w. AND counts:
/// w = 8: 50, 16: 180, 32: 680 (TinyGarble's Mult-32: 993), 64: 2,640, 128: 10,400.
pub fn mul<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    assert_eq!(x.len(), y.len(), "operands must have equal widths");
    let w = x.len();
    let (xs, ys) = (known(x), known(y));
    let acc = if w < BOOTH_FROM_TRUNCATED {
        schoolbook(b, &xs, &ys, w)
    } else {
        booth(b, &xs, &ys, w)
    };
    finish(b, acc)
}

/// x·y as 2w bits (full product of unsigned values).
///
/// w ≤ 6: schoolbook array, 2w² − w ANDs. w ≥ 7: radix-4 Booth over 2w bits with x
/// zero-extended (partial products sign-extended to the top): (3w² + 5w − 2)/2 ANDs for even
/// w (odd w are pinned by the tests). AND counts: w = 8: 115, 16: 423, 32: 1,615, 64: 6,303.
pub fn mul_full<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    assert_eq!(x.len(), y.len(), "operands must have equal widths");
    let w = x.len();
    let (xs, ys) = (known(x), known(y));
    let acc = if w < BOOTH_FROM_FULL {
        schoolbook(b, &xs, &ys, 2 * w)
    } else {
        booth(b, &xs, &ys, 2 * w)
    };
    finish(b, acc)
}

/// Signed digits of `c` (least significant first), each −1, 0 or 1.
fn naf(mut c: u128) -> Vec<i8> {
    let mut d = Vec::new();
    let mut carry = false; // c's value is c + carry·2^128 (for the top digit of 128-bit constants)
    while c != 0 || carry {
        if c & 1 == 1 {
            if c & 2 == 2 {
                d.push(-1);
                let (s, o) = c.overflowing_add(1);
                c = s;
                carry |= o;
            } else {
                d.push(1);
                c -= 1;
            }
        } else {
            d.push(0);
        }
        c >>= 1;
        if carry {
            c |= 1 << 127;
            carry = false;
        }
    }
    d
}

/// ANDs of adding the signed terms `digits` (low to high) into a w-bit accumulator.
fn terms_cost(digits: &[i8], w: usize) -> usize {
    let mut first = true;
    let mut cost = 0;
    for (k, &d) in digits.iter().enumerate().take(w) {
        if d == 0 {
            continue;
        }
        if !first || d < 0 {
            cost += w - k - 1;
        }
        first = false;
    }
    cost
}

/// x·c mod 2^w for a public constant c.
///
/// c is recoded into signed digits (non-adjacent form, NAF) or kept in binary, whichever is
/// cheaper; the terms ±(x ≪ k) are added from the lowest k up. The first term is free when
/// positive (w − k − 1 ANDs when negative, as −x is then computed), every later term costs
/// w − k − 1 ANDs. So the count is at most (w − 1) × (number of nonzero NAF digits of c mod
/// 2^w), and often far less (c = 2^k: 0; c = 3: w − 2; c = 10: w − 4).
pub fn mul_const<B: Backend>(b: &mut B, x: &[B::Wire], c: u128) -> Vec<B::Wire> {
    let w = x.len();
    let c = if w >= 128 { c } else { c & ((1u128 << w) - 1) };
    let naf_digits = naf(c);
    let bin_digits: Vec<i8> = (0..128).map(|k| (c >> k & 1) as i8).collect();
    let digits = if terms_cost(&bin_digits, w) < terms_cost(&naf_digits, w) {
        bin_digits
    } else {
        naf_digits
    };
    let mut acc: Vec<Bit<B::Wire>> = vec![None; w];
    for (k, &d) in digits.iter().enumerate().take(w) {
        match d {
            1 => add_into(b, &mut acc[k..], &known(x), None),
            -1 => {
                // acc − (x ≪ k) = acc + ¬(x ≪ k) + 1 at positions ≥ k.
                let nx: Vec<Bit<B::Wire>> = x.iter().map(|&v| Some(b.not(v))).collect();
                let one = b.constant(true);
                add_into(b, &mut acc[k..], &nx, Some(one));
            }
            _ => {}
        }
    }
    finish(b, acc)
}

/// ANDs of [`mul_const`] for width w and constant c (what the circuit will contain).
pub fn mul_const_ands(w: usize, c: u128) -> usize {
    let c = if w >= 128 { c } else { c & ((1u128 << w) - 1) };
    let bin_digits: Vec<i8> = (0..128).map(|k| (c >> k & 1) as i8).collect();
    terms_cost(&naf(c), w).min(terms_cost(&bin_digits, w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gadgets::add;
    use crate::gadgets::testing::{check2, wrap, WIDTHS};
    use crate::{Counter, PartyId};
    use rand::{Rng, SeedableRng};

    /// 256-bit product of two u128 as (low, high).
    fn mul_wide(a: u128, b: u128) -> (u128, u128) {
        let m = u64::MAX as u128;
        let (a0, a1, b0, b1) = (a & m, a >> 64, b & m, b >> 64);
        let (p00, p01, p10, p11) = (a0 * b0, a0 * b1, a1 * b0, a1 * b1);
        let mid = (p00 >> 64) + (p01 & m) + (p10 & m);
        let lo = (p00 & m) | (mid << 64);
        let hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
        (lo, hi)
    }

    fn mul_ands(w: usize, full: bool) -> u64 {
        let mut c = Counter::default();
        let x = c.input(PartyId::GARBLER, w as u32, None).unwrap();
        let y = c.input(PartyId::EVALUATOR, w as u32, None).unwrap();
        if full {
            mul_full(&mut c, &x, &y);
        } else {
            mul(&mut c, &x, &y);
        }
        c.cost().ands
    }

    /// The full product's high half, so check2! can see all 2w bits at w = 128.
    fn mul_full_high<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
        mul_full(b, x, y)[x.len()..].to_vec()
    }

    #[test]
    fn products_match_native_arithmetic() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        for w in WIDTHS {
            let top = wrap(u128::MAX, w);
            let mut cases: Vec<(u128, u128)> =
                (0..6).map(|_| (wrap(rng.gen(), w), wrap(rng.gen(), w))).collect();
            cases.extend([(0, 0), (top, top), (0, top), (top, 1), (1, top), (top >> 1, top)]);
            for (x, y) in cases {
                let (v, width, ands) = check2!(mul, x, y, w);
                assert_eq!(
                    (v, width, ands),
                    (wrap(x.wrapping_mul(y), w), w, mul_ands(w, false)),
                    "mul w={w} {x} {y}"
                );
                let (lo, hi) = mul_wide(x, y);
                let (v, width, _) = check2!(mul_full, x, y, w);
                assert_eq!(width, 2 * w);
                if w <= 64 {
                    assert_eq!(v, lo, "mul_full w={w} {x} {y}");
                } else {
                    // 2w > 128 bits: v holds the low 128 bits, the high half is checked apart.
                    assert_eq!(v, lo, "mul_full low w={w}");
                    let (h, _, _) = check2!(mul_full_high, x, y, w);
                    let want_hi = if w == 128 {
                        hi
                    } else {
                        (lo >> w) | (hi << (128 - w))
                    };
                    assert_eq!(h, wrap(want_hi, w), "mul_full high w={w} {x} {y}");
                }
            }
        }
    }

    #[test]
    fn product_and_counts_beat_tinygarble() {
        let want_trunc = [
            (1, 1),
            (7, 37),
            (8, 50),
            (16, 180),
            (31, 631),
            (32, 680),
            (64, 2640),
            (128, 10_400),
        ];
        for (w, ands) in want_trunc {
            assert_eq!(mul_ands(w, false), ands, "mul w={w}");
        }
        let want_full = [
            (1, 1),
            (7, 88),
            (8, 115),
            (16, 423),
            (31, 1504),
            (32, 1615),
            (64, 6303),
            (128, 24_895),
        ];
        for (w, ands) in want_full {
            assert_eq!(mul_ands(w, true), ands, "mul_full w={w}");
        }
        for w in 1..=4 {
            assert_eq!(mul_ands(w, false), (w * w - w + 1) as u64);
        }
        for w in 5..=70 {
            let booth = if w % 2 == 0 {
                5 * w * (w + 2) / 8
            } else {
                (5 * w * w + 8 * w - 5) / 8
            };
            assert_eq!(mul_ands(w, false), booth as u64, "Booth formula w={w}");
            if w >= 7 && w % 2 == 0 {
                assert_eq!(
                    mul_ands(w, true),
                    ((3 * w * w + 5 * w - 2) / 2) as u64,
                    "full Booth w={w}"
                );
            }
        }
        for w in 1..=64 {
            assert!(
                mul_ands(w, false) <= (w * w - w + 1) as u64,
                "never worse than schoolbook, w={w}"
            );
            assert!(mul_ands(w, true) <= (2 * w * w - w) as u64, "full product w={w}");
        }
        // TinyGarble Table 3.1: Mult-32 = 993 ANDs.
        assert!(mul_ands(32, false) <= 993);
        // MatrixMult 5×5 32-bit = 127,225 ANDs: 125 products and 100 additions.
        let mut c = Counter::default();
        let a: Vec<Vec<u32>> = (0..25)
            .map(|_| c.input(PartyId::GARBLER, 32, None).unwrap())
            .collect();
        let m: Vec<Vec<u32>> = (0..25)
            .map(|_| c.input(PartyId::EVALUATOR, 32, None).unwrap())
            .collect();
        for i in 0..5 {
            for j in 0..5 {
                let mut s = mul(&mut c, &a[i * 5], &m[j]);
                for k in 1..5 {
                    let p = mul(&mut c, &a[i * 5 + k], &m[k * 5 + j]);
                    s = add(&mut c, &s, &p);
                }
            }
        }
        assert_eq!(c.cost().ands, 125 * 680 + 100 * 31);
        assert!(c.cost().ands <= 127_225);
    }

    /// mul_const on all three backends: (value, ANDs).
    fn run_const(x: u128, c: u128, w: usize) -> (u128, u64) {
        use crate::gadgets::testing::{bits, value};
        use crate::{Plain, Recorder};
        let mut p = Plain::default();
        let xs = p.input(PartyId::GARBLER, w as u32, Some(&bits(x, w))).unwrap();
        let plain = mul_const(&mut p, &xs, c);
        let mut r = Recorder::default();
        let xs = r.input(PartyId::GARBLER, w as u32, None).unwrap();
        let out = mul_const(&mut r, &xs, c);
        let _ = r.output(&out);
        let rec = r.finish();
        assert_eq!(
            rec.circuit.eval_plain(&[bits(x, w)]).unwrap(),
            vec![plain.clone()]
        );
        let mut k = Counter::default();
        let xs = k.input(PartyId::GARBLER, w as u32, None).unwrap();
        mul_const(&mut k, &xs, c);
        assert_eq!(k.cost().ands, rec.circuit.stats().ands as u64);
        (value(&plain), k.cost().ands)
    }

    #[test]
    fn constant_products_match_native_with_naf_cost() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(12);
        for w in WIDTHS {
            let top = wrap(u128::MAX, w);
            let mut consts: Vec<u128> = (0..6).map(|_| wrap(rng.gen(), w)).collect();
            consts.extend([
                0,
                1,
                2,
                3,
                7,
                10,
                0x5555_5555_5555_5555,
                top,
                top >> 1,
                (top >> 1) + 1,
            ]);
            for c in consts {
                let x = wrap(rng.gen(), w);
                let c_w = wrap(c, w);
                let (v, ands) = run_const(x, c_w, w);
                assert_eq!(v, wrap(x.wrapping_mul(c_w), w), "mul_const w={w} c={c_w}");
                assert_eq!(ands as usize, mul_const_ands(w, c_w));
                let nnz = naf(c_w).iter().take(w).filter(|&&d| d != 0).count();
                assert!(ands as usize <= (w.max(1) - 1) * nnz, "w={w} c={c_w}");
            }
        }
        assert_eq!(mul_const_ands(32, 1 << 5), 0);
        assert_eq!(mul_const_ands(32, 3), 30);
        assert_eq!(mul_const_ands(32, 10), 28);
    }

    #[test]
    fn naf_is_non_adjacent_and_exact() {
        for c in [
            0u128,
            1,
            3,
            7,
            0xff,
            0xdead_beef,
            u128::MAX,
            u128::MAX >> 1,
            1 << 127,
        ] {
            let d = naf(c);
            assert!(d.windows(2).all(|p| p[0] == 0 || p[1] == 0), "{c}");
            let v = d.iter().enumerate().fold(0u128, |acc, (k, &di)| {
                let t = if k < 128 { 1u128 << k } else { 0 };
                match di {
                    1 => acc.wrapping_add(t),
                    -1 => acc.wrapping_sub(t),
                    _ => acc,
                }
            });
            assert_eq!(v, c);
        }
    }
}
