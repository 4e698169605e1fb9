//! IEEE 754 binary32 addition, subtraction, multiplication and division, round to nearest
//! even, with
//! subnormals, signed zeros, infinities and NaN (IEEE 754-2008 §4.3.1, §6, §7.2). A value is
//! 32 wires, least significant first (fraction bits 0–22, exponent 23–30, sign 31). Every
//! NaN result is the canonical quiet NaN 0x7FC00000.
//!
//! Each operation computes an exact significand with guard and sticky information, then
//! [`round_pack`] normalizes, denormalizes below the normal range, rounds to nearest even
//! and packs; the rounding increment is added to exponent and fraction together, so a carry
//! out of the fraction raises the exponent (and reaches infinity) by itself.

use super::{add, div::sub_borrow, lt_signed, lt_unsigned, mul::mul_full, mux, sub};
use crate::Backend;

/// The canonical quiet NaN every NaN result is.
pub const CANONICAL_NAN: u32 = 0x7FC0_0000;
/// Width of the signed exponent arithmetic (covers −190 to 400 with room to spare).
const EXP_BITS: usize = 12;

fn constant<B: Backend>(b: &mut B, value: u64, width: usize) -> Vec<B::Wire> {
    (0..width)
        .map(|i| b.constant(i < 64 && value >> i & 1 == 1))
        .collect()
}

/// OR of all bits (no bits: false): n − 1 ANDs.
fn any<B: Backend>(b: &mut B, x: &[B::Wire]) -> B::Wire {
    let Some((&first, rest)) = x.split_first() else {
        return b.constant(false);
    };
    let mut nor = b.not(first);
    for &v in rest {
        let nv = b.not(v);
        nor = b.and(nor, nv);
    }
    b.not(nor)
}

fn all<B: Backend>(b: &mut B, x: &[B::Wire]) -> B::Wire {
    let Some((&first, rest)) = x.split_first() else {
        return b.constant(true);
    };
    rest.iter().fold(first, |acc, &v| b.and(acc, v))
}

fn or<B: Backend>(b: &mut B, x: B::Wire, y: B::Wire) -> B::Wire {
    let nx = b.not(x);
    let ny = b.not(y);
    let nor = b.and(nx, ny);
    b.not(nor)
}

/// The fields of one operand: sign, significand with its implicit bit (24 bits), effective
/// exponent max(e, 1) (8 bits), and its class.
struct Unpacked<W> {
    sign: W,
    significand: Vec<W>,
    exponent: Vec<W>,
    is_nan: W,
    is_inf: W,
    is_zero: W,
}

fn unpack<B: Backend>(b: &mut B, x: &[B::Wire]) -> Unpacked<B::Wire> {
    assert_eq!(x.len(), 32, "binary32 values are 32 bits");
    let (fraction, exponent) = (&x[..23], &x[23..31]);
    let exp_ones = all(b, exponent);
    let exp_nonzero = any(b, exponent);
    let frac_nonzero = any(b, fraction);
    let frac_zero = b.not(frac_nonzero);
    let exp_zero = b.not(exp_nonzero);
    let mut significand = fraction.to_vec();
    significand.push(exp_nonzero);
    // max(e, 1): e with bit 0 forced on when e = 0.
    let mut effective = exponent.to_vec();
    effective[0] = or(b, exponent[0], exp_zero);
    Unpacked {
        sign: x[31],
        significand,
        exponent: effective,
        is_nan: b.and(exp_ones, frac_nonzero),
        is_inf: b.and(exp_ones, frac_zero),
        is_zero: b.and(exp_zero, frac_zero),
    }
}

/// x ≫ s for a secret s (`amount`, least significant first), with the OR of the bits
/// shifted out; bits of `amount` at or above log2(64) clear everything.
fn shift_right_sticky<B: Backend>(b: &mut B, x: &[B::Wire], amount: &[B::Wire]) -> (Vec<B::Wire>, B::Wire) {
    let zero = b.constant(false);
    let mut cur = x.to_vec();
    let mut sticky = zero;
    for (k, &bit) in amount.iter().enumerate().take(6) {
        let step = 1usize << k;
        let lost = any(b, &cur[..step.min(cur.len())]);
        let lost = b.and(bit, lost);
        sticky = or(b, sticky, lost);
        let shifted: Vec<B::Wire> = (0..cur.len())
            .map(|i| cur.get(i + step).copied().unwrap_or(zero))
            .collect();
        cur = mux(b, bit, &cur, &shifted);
    }
    if amount.len() > 6 {
        let big = any(b, &amount[6..]);
        let rest = any(b, &cur);
        let lost = b.and(big, rest);
        sticky = or(b, sticky, lost);
        let zeros = vec![zero; cur.len()];
        cur = mux(b, big, &cur, &zeros);
    }
    (cur, sticky)
}

/// x shifted left until its top bit is set (x ≠ 0), and the shift, as 6 bits.
fn normalize<B: Backend>(b: &mut B, x: &[B::Wire]) -> (Vec<B::Wire>, Vec<B::Wire>) {
    let n = x.len();
    let zero = b.constant(false);
    let mut cur = x.to_vec();
    let mut lz = vec![zero; 6];
    for k in (0..6).rev() {
        let step = 1usize << k;
        if step >= n {
            continue;
        }
        let top_any = any(b, &cur[n - step..]);
        let top_zero = b.not(top_any);
        let shifted: Vec<B::Wire> = (0..n)
            .map(|i| if i >= step { cur[i - step] } else { zero })
            .collect();
        cur = mux(b, top_zero, &cur, &shifted);
        lz[k] = top_zero;
    }
    (cur, lz)
}

/// Rounds and packs a nonzero result: `significand` normalized (top bit set, at least 26
/// bits), `exponent` the biased exponent of its top bit as an [`EXP_BITS`]-bit signed value.
/// Below the normal range the significand is shifted right (subnormal), and above it the
/// result is infinity. Returns the 31 bits below the sign.
fn round_pack<B: Backend>(b: &mut B, significand: &[B::Wire], exponent: &[B::Wire]) -> Vec<B::Wire> {
    let n = significand.len();
    let one = constant(b, 1, EXP_BITS);
    // e ≤ 0: shift right by 1 − e and use exponent field 0.
    let subnormal = lt_signed(b, exponent, &one)[0];
    let deficit = sub(b, &one, exponent);
    let zeros = constant(b, 0, EXP_BITS);
    let amount = mux(b, subnormal, &zeros, &deficit);
    let (sig, shifted_out) = shift_right_sticky(b, significand, &amount);
    let fraction = &sig[n - 24..];
    let guard = sig[n - 25];
    let below = any(b, &sig[..n - 25]);
    let sticky = or(b, below, shifted_out);
    let odd_or_sticky = or(b, sticky, fraction[0]);
    let round_up = b.and(guard, odd_or_sticky);
    // (field − 1)·2^23 + fraction with its implicit bit: the implicit bit adds the 1 back.
    let e_minus_1 = sub(b, exponent, &one);
    let field = mux(b, subnormal, &e_minus_1, &zeros);
    let zero = b.constant(false);
    let mut high = vec![zero; 23];
    high.extend_from_slice(&field[..8]);
    let mut low = fraction.to_vec();
    low.resize(31, zero);
    let packed = add(b, &high, &low);
    let mut increment = vec![round_up];
    increment.resize(31, zero);
    let rounded = add(b, &packed, &increment);
    // e ≥ 255: infinity (rounding up into 255 gives infinity by itself).
    let max_normal = constant(b, 254, EXP_BITS);
    let overflow = lt_signed(b, &max_normal, exponent)[0];
    let infinity = constant(b, 0x7F80_0000, 31);
    mux(b, overflow, &rounded, &infinity)
}

/// Applies the special cases: NaN (canonical) where `nan`, else ±∞ where `inf` with sign
/// `inf_sign`, else ±0 where `zero` with sign `zero_sign`, else `finite`.
#[allow(clippy::too_many_arguments)]
fn specials<B: Backend>(
    b: &mut B,
    finite: Vec<B::Wire>,
    zero: B::Wire,
    zero_sign: B::Wire,
    inf: B::Wire,
    inf_sign: B::Wire,
    nan: B::Wire,
) -> Vec<B::Wire> {
    let mut zero_v = constant(b, 0, 31);
    zero_v.push(zero_sign);
    let mut inf_v = constant(b, 0x7F80_0000, 31);
    inf_v.push(inf_sign);
    let nan_v = constant(b, CANONICAL_NAN as u64, 32);
    let out = mux(b, zero, &finite, &zero_v);
    let out = mux(b, inf, &out, &inf_v);
    mux(b, nan, &out, &nan_v)
}

/// a · b in binary32, rounded to nearest even.
pub fn f32_mul<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    let (p, q) = (unpack(b, x), unpack(b, y));
    let sign = b.xor(p.sign, q.sign);
    let product = mul_full(b, &p.significand, &q.significand);
    let (normalized, lz) = normalize(b, &product);
    // Biased exponent of the top bit: e_x + e_y − 126 − lz.
    let ex = super::extend(b, &p.exponent, EXP_BITS, false);
    let ey = super::extend(b, &q.exponent, EXP_BITS, false);
    let lz = super::extend(b, &lz, EXP_BITS, false);
    let sum = add(b, &ex, &ey);
    let bias = constant(b, 126, EXP_BITS);
    let e = sub(b, &sum, &bias);
    let e = sub(b, &e, &lz);
    let mut finite = round_pack(b, &normalized, &e);
    finite.push(sign);
    let zero = or(b, p.is_zero, q.is_zero);
    let inf = or(b, p.is_inf, q.is_inf);
    let inf_times_zero = b.and(inf, zero);
    let any_nan = or(b, p.is_nan, q.is_nan);
    let nan = or(b, any_nan, inf_times_zero);
    specials(b, finite, zero, sign, inf, sign, nan)
}

/// a + b in binary32, rounded to nearest even (an exact zero sum is +0 unless both are −0).
pub fn f32_add<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    // Order by magnitude: |big| ≥ |small| (the 31 bits below the sign order as integers).
    let swap = lt_unsigned(b, &x[..31], &y[..31])[0];
    let big_v = mux(b, swap, x, y);
    let small_v = mux(b, swap, y, x);
    let (p, q) = (unpack(b, &big_v), unpack(b, &small_v));
    // Significands with 3 bits below (guard, round, sticky) and one above for the carry.
    let widen = |b: &mut B, s: &[B::Wire]| -> Vec<B::Wire> {
        let mut v = vec![b.constant(false); 3];
        v.extend_from_slice(s);
        v.push(b.constant(false));
        v
    };
    let big = widen(b, &p.significand);
    let small = widen(b, &q.significand);
    // e_big − e_small ≤ 253, 8 bits: 6 shift stages, and bits 6–7 clear everything.
    let distance = sub(b, &p.exponent, &q.exponent);
    let (aligned, sticky) = shift_right_sticky(b, &small, &distance);
    let mut aligned = aligned;
    aligned[0] = or(b, aligned[0], sticky);
    let subtract = b.xor(p.sign, q.sign);
    let sum = add(b, &big, &aligned);
    let difference = sub(b, &big, &aligned);
    let result = mux(b, subtract, &sum, &difference);
    let result_zero = {
        let nonzero = any(b, &result);
        b.not(nonzero)
    };
    let (normalized, lz) = normalize(b, &result);
    // The top bit (position 27) has biased exponent e_big + 1.
    let e = super::extend(b, &p.exponent, EXP_BITS, false);
    let lz = super::extend(b, &lz, EXP_BITS, false);
    let one = constant(b, 1, EXP_BITS);
    let e = add(b, &e, &one);
    let e = sub(b, &e, &lz);
    let mut finite = round_pack(b, &normalized, &e);
    finite.push(p.sign);
    // An exact zero: −0 only for (−0) + (−0) (equal signs), else +0.
    let not_subtract = b.not(subtract);
    let zero_sign = b.and(p.sign, not_subtract);
    let inf = or(b, p.is_inf, q.is_inf);
    let both_inf = b.and(p.is_inf, q.is_inf);
    let opposite_infs = b.and(both_inf, subtract);
    let any_nan = or(b, p.is_nan, q.is_nan);
    let nan = or(b, any_nan, opposite_infs);
    // The larger magnitude is the infinity when there is one.
    specials(b, finite, result_zero, zero_sign, inf, p.sign, nan)
}

/// a − b = a + (−b) in binary32 (NaN stays NaN whatever its sign).
pub fn f32_sub<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    let mut negated = y.to_vec();
    negated[31] = b.not(y[31]);
    f32_add(b, x, &negated)
}

/// The bits of the quotient ⌊m·2^26 / d⌋ (27 bits) of two normalized 24-bit significands
/// (top bit set, so the quotient is in [2^25, 2^27)), and whether a remainder is left (the
/// sticky bit). Restoring division: the partial remainder stays below 2d < 2^25, so each
/// of the 27 steps is a 25-bit subtraction with borrow and a 25-bit select (50 ANDs).
fn divide_significands<B: Backend>(b: &mut B, m: &[B::Wire], d: &[B::Wire]) -> (Vec<B::Wire>, B::Wire) {
    let zero = b.constant(false);
    let mut divisor = d.to_vec();
    divisor.push(zero);
    let mut remainder = m.to_vec();
    remainder.push(zero);
    let mut quotient = vec![zero; 27];
    for k in (0..27).rev() {
        let (difference, borrow) = sub_borrow(b, &remainder, &divisor);
        quotient[k] = b.not(borrow);
        let kept = mux(b, borrow, &difference, &remainder);
        if k == 0 {
            remainder = kept;
        } else {
            // Shift left: the remainder is below d < 2^24 here, so bit 24 is free.
            remainder = std::iter::once(zero).chain(kept[..24].iter().copied()).collect();
        }
    }
    let sticky = any(b, &remainder);
    (quotient, sticky)
}

/// a / b in binary32, rounded to nearest even (IEEE 754-2008 §5.4.1 division, §6.1–6.2 for
/// infinities and NaN, §7.3 for division by zero: ±∞ for a finite nonzero dividend).
///
/// Subnormal operands are normalized first; the quotient of the significands is exact to
/// 27 bits plus a sticky bit, which [`round_pack`] rounds once (to a subnormal or to ∞ when
/// the result leaves the normal range).
pub fn f32_div<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    let (p, q) = (unpack(b, x), unpack(b, y));
    let sign = b.xor(p.sign, q.sign);
    let (m, lz_m) = normalize(b, &p.significand);
    let (d, lz_d) = normalize(b, &q.significand);
    let (quotient, sticky) = divide_significands(b, &m, &d);
    // V = quotient·2 + sticky has its top bit at 27 (m ≥ d) or 26: one normalizing step.
    let mut v = vec![sticky];
    v.extend_from_slice(&quotient);
    let top_zero = b.not(v[27]);
    let shifted: Vec<B::Wire> = std::iter::once(b.constant(false))
        .chain(v[..27].iter().copied())
        .collect();
    let normalized = mux(b, top_zero, &v, &shifted);
    // Biased exponent of the top bit: (e_x − lz_x) − (e_y − lz_y) + 127 − [top bit was 0].
    let ex = super::extend(b, &p.exponent, EXP_BITS, false);
    let ey = super::extend(b, &q.exponent, EXP_BITS, false);
    let lz_m = super::extend(b, &lz_m, EXP_BITS, false);
    let lz_d = super::extend(b, &lz_d, EXP_BITS, false);
    let ex = sub(b, &ex, &lz_m);
    let ey = sub(b, &ey, &lz_d);
    let e = sub(b, &ex, &ey);
    let bias = constant(b, 127, EXP_BITS);
    let e = add(b, &e, &bias);
    let step = super::extend(b, &[top_zero], EXP_BITS, false);
    let e = sub(b, &e, &step);
    let mut finite = round_pack(b, &normalized, &e);
    finite.push(sign);
    // 0 / y and x / ∞ are zero; x / 0 and ∞ / y infinite; 0 / 0, ∞ / ∞ and NaNs NaN.
    let zero = or(b, p.is_zero, q.is_inf);
    let inf = or(b, p.is_inf, q.is_zero);
    let zero_by_zero = b.and(p.is_zero, q.is_zero);
    let inf_by_inf = b.and(p.is_inf, q.is_inf);
    let any_nan = or(b, p.is_nan, q.is_nan);
    let invalid = or(b, zero_by_zero, inf_by_inf);
    let nan = or(b, any_nan, invalid);
    specials(b, finite, zero, sign, inf, sign, nan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Plain;
    use rand::{Rng, SeedableRng};

    fn bits(v: u32) -> Vec<bool> {
        (0..32).map(|i| v >> i & 1 == 1).collect()
    }

    fn value(x: &[bool]) -> u32 {
        x.iter().rev().fold(0, |acc, &b| acc << 1 | b as u32)
    }

    type Op = fn(&mut Plain, &[bool], &[bool]) -> Vec<bool>;

    fn check(op: Op, host: fn(f32, f32) -> f32, a: u32, c: u32) {
        let mut p = Plain::default();
        let got = value(&op(&mut p, &bits(a), &bits(c)));
        let want = host(f32::from_bits(a), f32::from_bits(c));
        if want.is_nan() {
            assert_eq!(got, CANONICAL_NAN, "{a:08x} {c:08x}: want NaN, got {got:08x}");
        } else {
            assert_eq!(
                got,
                want.to_bits(),
                "{a:08x} {c:08x}: want {:08x}, got {got:08x}",
                want.to_bits()
            );
        }
    }

    const EDGES: [u32; 20] = [
        0x0000_0000,
        0x8000_0000, // ±0
        0x0000_0001,
        0x8000_0001, // ± smallest subnormal
        0x007F_FFFF,
        0x807F_FFFF, // ± largest subnormal
        0x0080_0000,
        0x8080_0000, // ± smallest normal
        0x3F80_0000,
        0xBF80_0000, // ±1
        0x3F80_0001,
        0x4000_0000, // 1 + ulp, 2
        0x7F7F_FFFF,
        0xFF7F_FFFF, // ± largest finite
        0x7F80_0000,
        0xFF80_0000, // ±∞
        0x7FC0_0000,
        0xFFC0_0001, // NaNs
        0x7F80_0001,
        0x3400_0000, // signalling NaN, 2^-23
    ];

    /// Random operands: random bit patterns, and pairs of close magnitudes (cancellation,
    /// ties) or tiny exponents (subnormal results).
    fn operands(rng: &mut impl Rng) -> (u32, u32) {
        let a: u32 = rng.gen();
        match rng.gen_range(0..4) {
            0 => (a, rng.gen()),
            1 => (
                a,
                (a ^ rng.gen_range(0..16u32)) ^ (rng.gen::<u32>() & 0x8000_0000),
            ),
            2 => (a & 0x81FF_FFFF, rng.gen::<u32>() & 0x81FF_FFFF),
            _ => (a & 0xBFFF_FFFF | 0x2000_0000, rng.gen::<u32>() & 0x8FFF_FFFF),
        }
    }

    fn sweep(op: Op, host: fn(f32, f32) -> f32, seed: u64) {
        for &a in &EDGES {
            for &c in &EDGES {
                check(op, host, a, c);
            }
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for _ in 0..200_000 {
            let (a, c) = operands(&mut rng);
            check(op, host, a, c);
        }
    }

    #[test]
    fn add_matches_host_f32() {
        sweep(f32_add::<Plain>, |a, b| a + b, 1);
    }

    #[test]
    fn sub_matches_host_f32() {
        sweep(f32_sub::<Plain>, |a, b| a - b, 2);
    }

    #[test]
    fn mul_matches_host_f32() {
        sweep(f32_mul::<Plain>, |a, b| a * b, 3);
    }

    #[test]
    fn div_matches_host_f32() {
        sweep(f32_div::<Plain>, |a, b| a / b, 4);
    }

    /// Division's own hard cases: quotients that overflow to ∞ or underflow to subnormals
    /// and zero, exact quotients, ties (a quotient exactly halfway needs a remainder of 0),
    /// subnormal dividends and divisors, and x / x.
    #[test]
    fn div_edge_quotients_match_host_f32() {
        let div = |a: f32, b: f32| a / b;
        let cases = [
            (0x7F7F_FFFF, 0x0000_0001), // max / min subnormal: overflow to ∞
            (0x7F7F_FFFF, 0x3F00_0000), // max / 0.5: overflow
            (0x0000_0001, 0x7F7F_FFFF), // min subnormal / max: underflow to 0
            (0x0080_0000, 0x4000_0000), // min normal / 2: subnormal, exact
            (0x0080_0001, 0x4000_0000), // a tie at the subnormal boundary
            (0x0000_0003, 0x4000_0000), // 3 ulp / 2: tie to even
            (0x0000_0001, 0x4000_0000), // min subnormal / 2: tie to 0
            (0x0000_0001, 0x3F00_0000), // min subnormal / 0.5
            (0x007F_FFFF, 0x0000_0001), // subnormal / subnormal
            (0x3F80_0000, 0x4040_0000), // 1 / 3: inexact
            (0x4120_0000, 0x4000_0000), // 10 / 2: exact
            (0x3F80_0000, 0x3F80_0001), // 1 / (1 + ulp): just below 1
            (0xC0E0_0000, 0x4100_0000), // −7 / 8
            (0x3A83_126F, 0x4100_0000), // 0.001 / 8, GradDesc's divisor
        ];
        for (a, c) in cases {
            check(f32_div::<Plain>, div, a, c);
            check(f32_div::<Plain>, div, c, a);
            check(f32_div::<Plain>, div, a ^ 0x8000_0000, c);
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(5);
        for _ in 0..100_000 {
            let a: u32 = rng.gen();
            check(f32_div::<Plain>, div, a, a);
            // Subnormal or tiny operands on either side.
            let tiny: u32 = rng.gen::<u32>() & 0x80FF_FFFF;
            check(f32_div::<Plain>, div, a, tiny);
            check(f32_div::<Plain>, div, tiny, a);
        }
    }
}
