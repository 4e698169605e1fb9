//! Plaintext reference models of the workloads, on host integers: the answers the
//! programs are checked against.

use super::programs::{mt, GRADDESC_POINTS, GRADDESC_ROUNDS, HAMM_BITS, LEARNING_RATE_BITS};
use super::Workload;

/// The workload's output words from the parties' words (lengths already checked).
pub(super) fn run(w: Workload, g: &[u32], e: &[u32]) -> Vec<u32> {
    let signed = |v: &[u32]| -> Vec<i32> { v.iter().map(|&x| x as i32).collect() };
    let unsigned = |v: Vec<i32>| -> Vec<u32> { v.into_iter().map(|x| x as u32).collect() };
    match w {
        Workload::BubbSt => {
            let mut data: Vec<i32> = signed(g).into_iter().chain(signed(e)).collect();
            data.sort_unstable();
            unsigned(data)
        }
        Workload::DotProd => vec![dot(&signed(g), &signed(e)) as u32],
        Workload::MatMult => unsigned(matmult(&signed(g), &signed(e), 8)),
        Workload::Triangle => {
            let a: Vec<i32> = signed(g).into_iter().chain(signed(e)).collect();
            vec![triangle(&a, 13) as u32]
        }
        Workload::Relu => g.iter().chain(e).map(|&x| (x as i32).max(0) as u32).collect(),
        Workload::Hamm => vec![hamm(g, e)],
        Workload::Merse => mersenne(g[0], mt::COUNT),
        Workload::GradDesc => {
            let floats = |v: &[u32]| -> Vec<f32> { v.iter().map(|&b| f32::from_bits(b)).collect() };
            let (w, b) = graddesc(&floats(g), &floats(e));
            vec![canonical_bits(w), canonical_bits(b)]
        }
    }
}

/// Σ aᵢ·bᵢ with wrapping products and sums.
pub fn dot(a: &[i32], b: &[i32]) -> i32 {
    a.iter()
        .zip(b)
        .fold(0i32, |acc, (&x, &y)| acc.wrapping_add(x.wrapping_mul(y)))
}

/// C = A·B for row-major n×n matrices, mod 2^32.
pub fn matmult(a: &[i32], b: &[i32], n: usize) -> Vec<i32> {
    let mut c = vec![0i32; n * n];
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                c[i * n + j] = c[i * n + j].wrapping_add(a[i * n + k].wrapping_mul(b[k * n + j]));
            }
        }
    }
    c
}

/// trace(A·A·A) / 6 mod 2^32, the division truncating toward zero.
pub fn triangle(a: &[i32], n: usize) -> i32 {
    let cube = matmult(&matmult(a, a, n), a, n);
    let trace = (0..n).fold(0i32, |acc, i| acc.wrapping_add(cube[i * n + i]));
    trace / 6
}

/// popcount(a ⊕ b) of the packed strings.
pub fn hamm(a: &[u32], b: &[u32]) -> u32 {
    debug_assert_eq!(a.len() * 32, HAMM_BITS);
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

/// The first `count` outputs of MT19937 seeded by the 1998 `sgenrand` (the reference C
/// code of Matsumoto and Nishimura, `genrand` unchanged).
pub fn mersenne(seed: u32, count: usize) -> Vec<u32> {
    let mut state = [0u32; mt::N];
    let mut s = seed;
    for word in state.iter_mut() {
        *word = s & 0xFFFF_0000;
        s = s.wrapping_mul(mt::SEED_MULTIPLIER).wrapping_add(1);
        *word |= (s & 0xFFFF_0000) >> 16;
        s = s.wrapping_mul(mt::SEED_MULTIPLIER).wrapping_add(1);
    }
    let mag01 = [0, mt::MATRIX_A];
    let mut index = mt::N;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        if index == mt::N {
            for kk in 0..mt::N - mt::M {
                let y = (state[kk] & mt::UPPER_MASK) | (state[kk + 1] & mt::LOWER_MASK);
                state[kk] = state[kk + mt::M] ^ (y >> 1) ^ mag01[(y & 1) as usize];
            }
            for kk in mt::N - mt::M..mt::N - 1 {
                let y = (state[kk] & mt::UPPER_MASK) | (state[kk + 1] & mt::LOWER_MASK);
                state[kk] = state[kk + mt::M - mt::N] ^ (y >> 1) ^ mag01[(y & 1) as usize];
            }
            let y = (state[mt::N - 1] & mt::UPPER_MASK) | (state[0] & mt::LOWER_MASK);
            state[mt::N - 1] = state[mt::M - 1] ^ (y >> 1) ^ mag01[(y & 1) as usize];
            index = 0;
        }
        let mut y = state[index];
        index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9D2C_5680;
        y ^= (y << 15) & 0xEFC6_0000;
        y ^= y >> 18;
        out.push(y);
    }
    out
}

/// The bits of `v`, any NaN as the canonical quiet NaN 0x7FC00000.
pub fn canonical_bits(v: f32) -> u32 {
    if v.is_nan() {
        0x7FC0_0000
    } else {
        v.to_bits()
    }
}

/// Gradient descent for y = w·x + b on host binary32 (no fused operations; Rust's f32
/// arithmetic is IEEE round to nearest even), in the statement's source order.
pub fn graddesc(y: &[f32], x: &[f32]) -> (f32, f32) {
    let rate = f32::from_bits(LEARNING_RATE_BITS);
    let (mut w, mut b) = (0.0f32, 0.0f32);
    for _ in 0..GRADDESC_ROUNDS {
        let mut sum = 0.0f32;
        for (&xi, &yi) in x.iter().zip(y).take(GRADDESC_POINTS) {
            sum += xi * (yi - (w * xi + b));
        }
        let dw = (-2.0 * sum) / 8.0;
        w -= rate * dw;
        let mut sum = 0.0f32;
        for (&xi, &yi) in x.iter().zip(y).take(GRADDESC_POINTS) {
            sum += yi - (w * xi + b);
        }
        let db = (-2.0 * sum) / 8.0;
        b -= rate * db;
    }
    (w, b)
}
