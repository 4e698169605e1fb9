//! The workloads' programs, AND-minimal on the gadget library (AND counts per gadget in
//! [`crate::gadgets`]): each is the computation of HAAC §5 written once on the typed values.

use super::Workload;
use crate::gadgets::float::{f32_add, f32_div, f32_mul, f32_sub};
use crate::gadgets::{bits::hamming, mul::mul_const, select::relu};
use crate::{Backend, Ctx, SInt, UInt};

/// Bits of each `hamm` string (HAAC §5: 40,960-bit strings).
pub const HAMM_BITS: usize = 40_960;
/// Points, rounds and learning rate (binary32 0.001) of `graddesc`.
pub const GRADDESC_POINTS: usize = 8;
pub const GRADDESC_ROUNDS: usize = 20;
pub const LEARNING_RATE_BITS: u32 = 0x3A83_126F;
/// Sort length of `bubbst`, matrix sides of `matmult` and `triangle`.
const SORT_LEN: usize = 256;
const MATMULT_SIDE: usize = 8;
const TRIANGLE_SIDE: usize = 13;

/// MT19937's parameters (Matsumoto and Nishimura 1998, the reference `genrand`).
pub(super) mod mt {
    pub const N: usize = 624;
    pub const M: usize = 397;
    pub const MATRIX_A: u32 = 0x9908_B0DF;
    pub const UPPER_MASK: u32 = 0x8000_0000;
    pub const LOWER_MASK: u32 = 0x7FFF_FFFF;
    /// The multiplier of the 1998 `sgenrand` seeding.
    pub const SEED_MULTIPLIER: u32 = 69_069;
    /// Outputs `merse` produces (HAAC §5's `count`).
    pub const COUNT: usize = 1000;
}

/// Outputs of `merse`.
pub const fn mt_output_count() -> usize {
    mt::COUNT
}

/// The workload's output as one value (the output words concatenated, word 0 lowest), from
/// the garbler's words `g` and the evaluator's `e`.
pub(super) fn compute<B: Backend>(w: Workload, ctx: &Ctx<B>, g: &[UInt<B>], e: &[UInt<B>]) -> UInt<B> {
    let signed = |v: &[UInt<B>]| -> Vec<SInt<B>> { v.iter().map(UInt::as_signed).collect() };
    let words: Vec<UInt<B>> = match w {
        Workload::BubbSt => {
            let data: Vec<SInt<B>> = signed(g).into_iter().chain(signed(e)).collect();
            bubble_sort(ctx, data).iter().map(SInt::as_unsigned).collect()
        }
        Workload::DotProd => vec![dot(ctx, &signed(g), &signed(e)).as_unsigned()],
        Workload::MatMult => matmult(ctx, &signed(g), &signed(e)),
        Workload::Triangle => {
            let a: Vec<SInt<B>> = signed(g).into_iter().chain(signed(e)).collect();
            vec![triangle(ctx, &a).as_unsigned()]
        }
        Workload::Relu => g
            .iter()
            .chain(e)
            .map(|x| UInt::from_wires(ctx, ctx.with(|b| relu(b, x.wires()))))
            .collect(),
        Workload::Hamm => vec![hamm(ctx, g, e)],
        Workload::Merse => mersenne(ctx, &g[0]),
        Workload::GradDesc => graddesc(ctx, g, e),
    };
    let wires = words.iter().flat_map(|v| v.wires().iter().copied()).collect();
    UInt::from_wires(ctx, wires)
}

/// Bubble sort (HAAC's `BubbSt`): n(n − 1)/2 compare-exchanges in the fixed order of the
/// textbook loops, each 64 ANDs: c = [b < a] (32), d = c·(a ⊕ b) (32), a ⊕ d, b ⊕ d free.
fn bubble_sort<B: Backend>(ctx: &Ctx<B>, mut v: Vec<SInt<B>>) -> Vec<SInt<B>> {
    debug_assert_eq!(v.len(), SORT_LEN);
    let zero = ctx.sint(32, 0);
    let n = v.len();
    for pass in 0..n.saturating_sub(1) {
        for j in 0..n - 1 - pass {
            let (a, b) = (&v[j], &v[j + 1]);
            let swap = b.less_than(a);
            let d = swap.select(&(a ^ b), &zero);
            let (lo, hi) = (a ^ &d, b ^ &d);
            v[j] = lo;
            v[j + 1] = hi;
        }
    }
    v
}

/// Σ aᵢ·bᵢ mod 2^32: one 32-bit truncated product (680 ANDs) and one addition (31) a term.
fn dot<B: Backend>(ctx: &Ctx<B>, a: &[SInt<B>], b: &[SInt<B>]) -> SInt<B> {
    let mut terms = a.iter().zip(b).map(|(x, y)| x * y);
    let first = terms.next().unwrap_or_else(|| ctx.sint(32, 0));
    terms.fold(first, |acc, t| &acc + &t)
}

/// C = A·B for row-major 8×8 matrices.
fn matmult<B: Backend>(ctx: &Ctx<B>, a: &[SInt<B>], b: &[SInt<B>]) -> Vec<UInt<B>> {
    let n = MATMULT_SIDE;
    let mut c = Vec::with_capacity(n * n);
    for i in 0..n {
        for j in 0..n {
            let row: Vec<SInt<B>> = (0..n).map(|k| a[i * n + k].clone()).collect();
            let col: Vec<SInt<B>> = (0..n).map(|k| b[k * n + j].clone()).collect();
            c.push(dot(ctx, &row, &col).as_unsigned());
        }
    }
    c
}

/// trace(A³) / 6 (the number of triangles of a graph given by its adjacency matrix),
/// truncating toward zero: A² whole (n³ products), then Σᵢⱼ (A²)ᵢⱼ·Aⱼᵢ (n² products) — the
/// diagonal of A³ is all the trace needs — and one signed division by the constant 6.
fn triangle<B: Backend>(ctx: &Ctx<B>, a: &[SInt<B>]) -> SInt<B> {
    let n = TRIANGLE_SIDE;
    let mut square = Vec::with_capacity(n * n);
    for i in 0..n {
        for j in 0..n {
            let row: Vec<SInt<B>> = (0..n).map(|k| a[i * n + k].clone()).collect();
            let col: Vec<SInt<B>> = (0..n).map(|k| a[k * n + j].clone()).collect();
            square.push(dot(ctx, &row, &col));
        }
    }
    let transposed: Vec<SInt<B>> = (0..n * n).map(|ij| a[(ij % n) * n + ij / n].clone()).collect();
    let trace = dot(ctx, &square, &transposed);
    &trace / &ctx.sint(32, 6)
}

/// popcount(a ⊕ b) over the packed strings: n − H(n) ANDs ([`hamming`]), zero-extended to
/// 32 bits.
fn hamm<B: Backend>(ctx: &Ctx<B>, a: &[UInt<B>], b: &[UInt<B>]) -> UInt<B> {
    let bits = |v: &[UInt<B>]| -> Vec<B::Wire> { v.iter().flat_map(|w| w.wires().to_vec()).collect() };
    let (x, y) = (bits(a), bits(b));
    let count = ctx.with(|b| hamming(b, &x, &y));
    UInt::from_wires(ctx, count).resize(32)
}

/// MT19937 with the 1998 `sgenrand` seeding, the first [`mt::COUNT`] outputs of `genrand`.
///
/// Only the seeding costs ANDs: each step s ← 69069·s + 1 is a multiplication by a public
/// constant ([`mul_const`]) and an increment. The recurrence and the tempering are XORs,
/// shifts and masks by public constants, which select wires and cost nothing.
fn mersenne<B: Backend>(ctx: &Ctx<B>, seed: &UInt<B>) -> Vec<UInt<B>> {
    let mut s: Vec<B::Wire> = seed.wires().to_vec();
    let mut state: Vec<Vec<B::Wire>> = Vec::with_capacity(mt::N);
    ctx.with(|b| {
        let step = |b: &mut B, s: &[B::Wire]| -> Vec<B::Wire> {
            let product = mul_const(b, s, mt::SEED_MULTIPLIER as u128);
            increment(b, &product)
        };
        for _ in 0..mt::N {
            // mt[i] = s & 0xFFFF0000; s = 69069·s + 1; mt[i] |= (s & 0xFFFF0000) >> 16; s = …
            let high = s[16..].to_vec();
            s = step(b, &s);
            let mut word: Vec<B::Wire> = s[16..].to_vec();
            word.extend(high);
            state.push(word);
            s = step(b, &s);
        }
    });
    let mut out = Vec::with_capacity(mt::COUNT);
    let mut index = mt::N;
    ctx.with(|b| {
        for _ in 0..mt::COUNT {
            if index == mt::N {
                regenerate(b, &mut state);
                index = 0;
            }
            out.push(temper(b, &state[index]));
            index += 1;
        }
    });
    out.into_iter().map(|w| UInt::from_wires(ctx, w)).collect()
}

/// x + 1 mod 2^w: bit i is xᵢ ⊕ cᵢ with c₀ = 1, c₁ = x₀, cᵢ₊₁ = xᵢ·cᵢ: w − 2 ANDs.
fn increment<B: Backend>(b: &mut B, x: &[B::Wire]) -> Vec<B::Wire> {
    let mut out = Vec::with_capacity(x.len());
    let mut carry: Option<B::Wire> = None; // None: the carry is the constant 1
    for (i, &xi) in x.iter().enumerate() {
        match carry {
            None => {
                out.push(b.not(xi));
                carry = Some(xi);
            }
            Some(c) => {
                out.push(b.xor(xi, c));
                if i + 1 < x.len() {
                    carry = Some(b.and(xi, c));
                }
            }
        }
    }
    out
}

/// The next 624 words of the state (the reference `genrand`'s regeneration loop): free.
fn regenerate<B: Backend>(b: &mut B, mt: &mut [Vec<B::Wire>]) {
    let zero = b.constant(false);
    for k in 0..mt::N {
        let next = &mt[(k + 1) % mt::N];
        // y = (mt[k] & UPPER) | (mt[k+1] & LOWER): bit 31 from mt[k], bits 0..31 from mt[k+1].
        let y: Vec<B::Wire> = (0..32)
            .map(|i| if i == 31 { mt[k][i] } else { next[i] })
            .collect();
        let from = mt[(k + mt::M) % mt::N].clone();
        let word: Vec<B::Wire> = (0..32)
            .map(|i| {
                let shifted = if i < 31 { y[i + 1] } else { zero };
                let mut v = b.xor(from[i], shifted);
                if mt::MATRIX_A >> i & 1 == 1 {
                    v = b.xor(v, y[0]);
                }
                v
            })
            .collect();
        mt[k] = word;
    }
}

/// The reference tempering: y ^= y >> 11; y ^= (y << 7) & 0x9D2C5680; y ^= (y << 15) &
/// 0xEFC60000; y ^= y >> 18. Free.
fn temper<B: Backend>(b: &mut B, y: &[B::Wire]) -> Vec<B::Wire> {
    let y = xor_shifted(b, y, 11, false, u32::MAX);
    let y = xor_shifted(b, &y, 7, true, 0x9D2C_5680);
    let y = xor_shifted(b, &y, 15, true, 0xEFC6_0000);
    xor_shifted(b, &y, 18, false, u32::MAX)
}

/// y ⊕ ((y ≪ k or y ≫ k) & mask) for a public mask: XORs only where the shifted bit exists
/// and the mask has a one.
fn xor_shifted<B: Backend>(b: &mut B, y: &[B::Wire], k: usize, left: bool, mask: u32) -> Vec<B::Wire> {
    (0..32)
        .map(|i: usize| {
            let source = if left {
                i.checked_sub(k)
            } else {
                Some(i + k).filter(|&j| j < 32)
            };
            match source {
                Some(j) if mask >> i & 1 == 1 => b.xor(y[i], y[j]),
                _ => y[i],
            }
        })
        .collect()
}

/// Gradient descent for y = w·x + b (VIP-Bench `GradDesc`, issue #20's statement): every
/// operation a binary32 gadget ([`crate::gadgets::float`]) in source order, each Σ from +0
/// over i = 0..7:
/// dW = (−2·Σ xᵢ·(yᵢ − (w·xᵢ + b))) / 8; w −= L·dW; dB = (−2·Σ (yᵢ − (w·xᵢ + b))) / 8 with the
/// new w; b −= L·dB. The divisions by 8 are [`f32_div`] gadgets, as the source writes them.
fn graddesc<B: Backend>(ctx: &Ctx<B>, y: &[UInt<B>], x: &[UInt<B>]) -> Vec<UInt<B>> {
    let (w, bias) = ctx.with(|b| {
        let word =
            |b: &mut B, v: u32| -> Vec<B::Wire> { (0..32).map(|i| b.constant(v >> i & 1 == 1)).collect() };
        let zero = word(b, 0);
        let minus_two = word(b, (-2.0f32).to_bits());
        let eight = word(b, 8.0f32.to_bits());
        let rate = word(b, LEARNING_RATE_BITS);
        let (mut w, mut bias) = (zero.clone(), zero.clone());
        for _ in 0..GRADDESC_ROUNDS {
            // Residual yᵢ − (w·xᵢ + b).
            let residual = |b: &mut B, w: &[B::Wire], bias: &[B::Wire], xi: &[B::Wire], yi: &[B::Wire]| {
                let wx = f32_mul(b, w, xi);
                let fit = f32_add(b, &wx, bias);
                f32_sub(b, yi, &fit)
            };
            let mut sum = zero.clone();
            for (xi, yi) in x.iter().zip(y).take(GRADDESC_POINTS) {
                let r = residual(b, &w, &bias, xi.wires(), yi.wires());
                let term = f32_mul(b, xi.wires(), &r);
                sum = f32_add(b, &sum, &term);
            }
            let scaled = f32_mul(b, &minus_two, &sum);
            let dw = f32_div(b, &scaled, &eight);
            let step = f32_mul(b, &rate, &dw);
            w = f32_sub(b, &w, &step);
            let mut sum = zero.clone();
            for (xi, yi) in x.iter().zip(y).take(GRADDESC_POINTS) {
                let r = residual(b, &w, &bias, xi.wires(), yi.wires());
                sum = f32_add(b, &sum, &r);
            }
            let scaled = f32_mul(b, &minus_two, &sum);
            let db = f32_div(b, &scaled, &eight);
            let step = f32_mul(b, &rate, &db);
            bias = f32_sub(b, &bias, &step);
        }
        (w, bias)
    });
    vec![UInt::from_wires(ctx, w), UInt::from_wires(ctx, bias)]
}
