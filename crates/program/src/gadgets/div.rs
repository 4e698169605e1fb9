//! Division and remainder, unsigned and signed (truncating toward zero, as Rust's
//! `wrapping_div` / `wrapping_rem`).
//!
//! Restoring long division, narrowed: when quotient bit i is decided, the partial remainder
//! R = (r ≪ 1) | nᵢ has only w − i bits, so R ≥ d needs d's top i bits to be zero (one
//! running AND over d's bits from the top, w − 2 ANDs in all) and R ≥ d_low on w − i bits.
//! One subtraction with borrow-out gives both R − d_low and [R < d_low] (w − i ANDs); the
//! quotient bit is ¬borrow ∧ [d's top i bits are 0] (1 AND) and the new remainder is a mux
//! (w − i ANDs). The last mux is skipped when only the quotient is wanted.
//!
//! **Division by zero** (defined, never a panic or an undefined output):
//! - unsigned: quotient = all ones (2^w − 1), remainder = the dividend;
//! - signed: the unsigned rule applied to |n| and then the usual sign correction, so the
//!   quotient is −1 for n ≥ 0 and +1 for n < 0, and the remainder is the dividend n.
//!
//! Signed overflow wraps: MIN / −1 = MIN, MIN % −1 = 0.

use super::select::negate_if;
use crate::Backend;

/// x − y over equal widths with the borrow-out [x < y] (x + ¬y + 1, the ripple of
/// `arith.rs` with carry-in 1): one AND per bit.
pub(super) fn sub_borrow<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> (Vec<B::Wire>, B::Wire) {
    let mut c = b.constant(true);
    let mut diff = Vec::with_capacity(x.len());
    for (&xi, &yi) in x.iter().zip(y) {
        let ny = b.not(yi);
        let xc = b.xor(xi, c);
        diff.push(b.xor(xc, ny));
        let yc = b.xor(ny, c);
        let t = b.and(xc, yc);
        c = b.xor(c, t);
    }
    let borrow = b.not(c);
    (diff, borrow)
}

/// Quotient and (if `want_rem`) remainder of unsigned n / d.
fn long_division<B: Backend>(
    b: &mut B,
    n: &[B::Wire],
    d: &[B::Wire],
    want_rem: bool,
) -> (Vec<B::Wire>, Vec<B::Wire>) {
    assert_eq!(n.len(), d.len(), "operands must have equal widths");
    let w = n.len();
    // high_zero[i] = [d's top i bits are all zero], i = 1..w−1.
    let mut high_zero: Vec<Option<B::Wire>> = vec![None; w];
    for i in 1..w {
        let nz = b.not(d[w - i]);
        high_zero[i] = Some(match high_zero[i - 1] {
            None => nz,
            Some(prev) => b.and(prev, nz),
        });
    }
    let mut q = vec![b.constant(false); w];
    let mut r: Vec<B::Wire> = Vec::new();
    for i in (0..w).rev() {
        let mut big_r = Vec::with_capacity(r.len() + 1);
        big_r.push(n[i]);
        big_r.extend_from_slice(&r);
        let m = w - i;
        let (diff, borrow) = sub_borrow(b, &big_r, &d[..m]);
        let fits = b.not(borrow);
        q[i] = match high_zero[i] {
            None => fits,
            Some(z) => b.and(fits, z),
        };
        r = if i > 0 || want_rem {
            super::mux(b, q[i], &big_r, &diff)
        } else {
            big_r
        };
    }
    (q, r)
}

/// (n / d, n % d) of unsigned values (d = 0: all ones, n).
/// ANDs: w² + 3w − 3 for w ≥ 2 (2 for w = 1); w = 8: 85, 16: 301, 32: 1,117, 64: 4,285.
pub fn div_rem_unsigned<B: Backend>(b: &mut B, n: &[B::Wire], d: &[B::Wire]) -> (Vec<B::Wire>, Vec<B::Wire>) {
    long_division(b, n, d, true)
}

/// n / d of unsigned values (d = 0: all ones).
/// ANDs: w² + 2w − 3 for w ≥ 2 (1 for w = 1); w = 8: 77, 16: 285, 32: 1,085, 64: 4,221.
pub fn div_unsigned<B: Backend>(b: &mut B, n: &[B::Wire], d: &[B::Wire]) -> Vec<B::Wire> {
    long_division(b, n, d, false).0
}

/// n % d of unsigned values (d = 0: n). ANDs as [`div_rem_unsigned`].
pub fn rem_unsigned<B: Backend>(b: &mut B, n: &[B::Wire], d: &[B::Wire]) -> Vec<B::Wire> {
    long_division(b, n, d, true).1
}

/// Signed (quotient, remainder) truncating toward zero: |n| / |d| unsigned, then the
/// quotient negated if the signs differ and the remainder if n < 0 ([`negate_if`], w − 1
/// ANDs each, as for each absolute value).
fn signed_division<B: Backend>(
    b: &mut B,
    n: &[B::Wire],
    d: &[B::Wire],
    want_q: bool,
    want_r: bool,
) -> (Vec<B::Wire>, Vec<B::Wire>) {
    assert_eq!(n.len(), d.len(), "operands must have equal widths");
    let Some((&sn, &sd)) = n.last().zip(d.last()) else {
        return (vec![], vec![]);
    };
    let an = negate_if(b, sn, n);
    let ad = negate_if(b, sd, d);
    let (q, r) = long_division(b, &an, &ad, want_r);
    let q = if want_q {
        let sq = b.xor(sn, sd);
        negate_if(b, sq, &q)
    } else {
        q
    };
    let r = if want_r { negate_if(b, sn, &r) } else { r };
    (q, r)
}

/// (n / d, n % d) of two's-complement values, as `wrapping_div` / `wrapping_rem` (d = 0: see
/// the module docs). ANDs: w² + 7w − 7 for w ≥ 2; w = 8: 113, 16: 361, 32: 1,241, 64: 4,537.
pub fn div_rem_signed<B: Backend>(b: &mut B, n: &[B::Wire], d: &[B::Wire]) -> (Vec<B::Wire>, Vec<B::Wire>) {
    signed_division(b, n, d, true, true)
}

/// n / d of two's-complement values (`wrapping_div`; d = 0: −1 for n ≥ 0, 1 for n < 0).
/// ANDs: w² + 5w − 6 for w ≥ 2; w = 8: 98, 16: 330, 32: 1,178, 64: 4,410.
pub fn div_signed<B: Backend>(b: &mut B, n: &[B::Wire], d: &[B::Wire]) -> Vec<B::Wire> {
    signed_division(b, n, d, true, false).0
}

/// n % d of two's-complement values (`wrapping_rem`, sign of n; d = 0: n).
/// ANDs: w² + 6w − 6 for w ≥ 2; w = 8: 106, 16: 346, 32: 1,210, 64: 4,474.
pub fn rem_signed<B: Backend>(b: &mut B, n: &[B::Wire], d: &[B::Wire]) -> Vec<B::Wire> {
    signed_division(b, n, d, false, true).1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gadgets::testing::{check2, signed, wrap, WIDTHS};
    use rand::{Rng, SeedableRng};

    fn q_unsigned<B: Backend>(b: &mut B, n: &[B::Wire], d: &[B::Wire]) -> Vec<B::Wire> {
        div_rem_unsigned(b, n, d).0
    }
    fn q_signed<B: Backend>(b: &mut B, n: &[B::Wire], d: &[B::Wire]) -> Vec<B::Wire> {
        div_rem_signed(b, n, d).0
    }
    fn r_signed<B: Backend>(b: &mut B, n: &[B::Wire], d: &[B::Wire]) -> Vec<B::Wire> {
        div_rem_signed(b, n, d).1
    }

    fn counts(w: u64) -> [u64; 5] {
        if w == 1 {
            // divrem, div, rem unsigned; div, rem signed (no negations at w = 1).
            return [2, 1, 2, 1, 2];
        }
        [
            w * w + 3 * w - 3,
            w * w + 2 * w - 3,
            w * w + 3 * w - 3,
            w * w + 5 * w - 6,
            w * w + 6 * w - 6,
        ]
    }

    #[test]
    fn division_matches_native_arithmetic() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(31);
        for w in WIDTHS {
            let top = wrap(u128::MAX, w);
            let smin = 1u128 << (w - 1);
            let mut cases: Vec<(u128, u128)> = (0..10)
                .map(|_| (wrap(rng.gen(), w), wrap(rng.gen(), w)))
                .collect();
            // Small divisors, so quotients are not all 0 or 1.
            cases.extend((0..6).map(|_| (wrap(rng.gen(), w), wrap(rng.gen::<u128>() % 1000, w))));
            cases.extend([
                (0, 0),
                (top, 0),
                (7 & top, 0),
                (smin, 0),
                (top, top),
                (top, 1),
                (0, top),
            ]);
            cases.extend([(smin, top), (smin, 1), (smin - 1, top), (smin, smin), (top, smin)]);
            let [c_dr, c_d, c_r, c_ds, c_rs] = counts(w as u64);
            for (n, d) in cases {
                let (q, width, ands) = check2!(div_unsigned, n, d, w);
                let want_q = n.checked_div(d).unwrap_or(top);
                assert_eq!((q, width, ands), (want_q, w, c_d), "div_unsigned w={w} {n}/{d}");
                let (r, _, ands) = check2!(rem_unsigned, n, d, w);
                let want_r = n.checked_rem(d).unwrap_or(n);
                assert_eq!((r, ands), (want_r, c_r), "rem_unsigned w={w} {n}%{d}");
                assert_eq!(check2!(q_unsigned, n, d, w), (want_q, w, c_dr));

                let (sn, sd) = (signed(n, w), signed(d, w));
                let (want_q, want_r) = if sd == 0 {
                    (if sn >= 0 { -1 } else { 1 }, sn)
                } else {
                    (sn.wrapping_div(sd), sn.wrapping_rem(sd))
                };
                let (want_q, want_r) = (wrap(want_q as u128, w), wrap(want_r as u128, w));
                let (q, _, ands) = check2!(div_signed, n, d, w);
                assert_eq!((q, ands), (want_q, c_ds), "div_signed w={w} {sn}/{sd}");
                let (r, _, ands) = check2!(rem_signed, n, d, w);
                assert_eq!((r, ands), (want_r, c_rs), "rem_signed w={w} {sn}%{sd}");
                assert_eq!(check2!(q_signed, n, d, w).0, want_q);
                assert_eq!(check2!(r_signed, n, d, w).0, want_r);
            }
        }
    }

    #[test]
    fn division_by_zero_and_overflow_are_defined() {
        for w in [8usize, 32] {
            let top = wrap(u128::MAX, w);
            let smin = 1u128 << (w - 1);
            assert_eq!(check2!(div_unsigned, 200, 0, w).0, top);
            assert_eq!(check2!(rem_unsigned, 200, 0, w).0, 200);
            assert_eq!(check2!(div_signed, 5, 0, w).0, top, "5 / 0 = −1");
            assert_eq!(
                check2!(div_signed, wrap(-5i128 as u128, w), 0, w).0,
                1,
                "−5 / 0 = 1"
            );
            assert_eq!(
                check2!(rem_signed, wrap(-5i128 as u128, w), 0, w).0,
                wrap(-5i128 as u128, w)
            );
            assert_eq!(check2!(div_signed, smin, top, w).0, smin, "MIN / −1 = MIN");
            assert_eq!(check2!(rem_signed, smin, top, w).0, 0, "MIN % −1 = 0");
        }
    }
}
