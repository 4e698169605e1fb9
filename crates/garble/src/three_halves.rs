//! Three-halves garbling (Rosulek–Roy, "Three Halves Make a Whole? Beating the Half-Gates
//! Lower Bound for Garbled Circuits", CRYPTO 2021, ePrint 2021/749) of independent AND
//! gates, hashed together: 1.5κ + 5 bits per AND instead of half-gates' 2κ, with free-XOR.
//!
//! Labels are cut in halves X = X_L ‖ X_R, X_L the low 64 bits (it holds the colour bit);
//! outputs are ordinary free-XOR labels. Δ must have lsb(Δ) = 1 (point-and-permute, as for
//! half-gates); correctness needs nothing else of its halves (the equations below are
//! identities in Δ_L, Δ_R), and Δ_R = 0, which would make both labels of every wire share
//! their right half, is refused. Gate g hashes under the tweaks (t₀, t₁, t₂) =
//! (3g, 3g + 1, 3g + 2); H_L(x, t) is the low half of H(x, t) and h(x, t) its bit 64. With
//! colours i = lsb(A), j = lsb(B) of the active labels and the gate's rows G0, G1, G2
//! (halves) and z0..z4 (bits):
//!
//! ```text
//! evaluator: C_L = H_L(A,t₀) ⊕ H_L(A⊕B,t₂) ⊕ i·G0 ⊕ (i⊕j)·G2 ⊕ R_ij[L]·(A_L, A_R, B_L, B_R)
//!            C_R = H_L(B,t₁) ⊕ H_L(A⊕B,t₂) ⊕ j·G1 ⊕ (i⊕j)·G2 ⊕ R_ij[R]·(A_L, A_R, B_L, B_R)
//!            r₁ = h(A,t₀) ⊕ h(A⊕B,t₂) ⊕ z0 ⊕ i·z2 ⊕ (i⊕j)·z4
//!            r₂ = h(B,t₁) ⊕ h(A⊕B,t₂) ⊕ z1 ⊕ j·z3 ⊕ (i⊕j)·z4
//!            R_ij = R_p[i,j] ⊕ r₁·S₁ ⊕ r₂·S₂        (the 2×4 matrices of `R_P`, `S1`, `S2`)
//! garbler:   p_a = lsb(A⁰), p_b = lsb(B⁰), (ā, b̄) = (¬p_a, ¬p_b) the colours of the 1 row,
//!            (r₁, r₂) random; z = (r₁, r₂, ā, b̄, ā⊕b̄) ⊕ the hash bits, so the evaluator
//!            decodes r₁ ⊕ i·ā ⊕ (i⊕j)(ā⊕b̄), r₂ ⊕ j·b̄ ⊕ (i⊕j)(ā⊕b̄): uniform, whatever (ā, b̄).
//!            C⁰, G0, G1, G2 solve C = C⁰ ⊕ (i⊕p_a)(j⊕p_b)·Δ for all four (i, j): hash terms
//!            plus linear forms in (A⁰_L, A⁰_R, B⁰_L, B⁰_R, Δ_L, Δ_R) (`GARBLER_FORMS`,
//!            derived at compile time from the evaluator's equations, computed branch-free
//!            from their normal form in (ā, b̄, r₁, r₂)). Hash terms, with H(X^c) the hash of
//!            the label of colour c: C⁰ ⊕= (H(A^0) ⊕ H(AB^0), H(B^0) ⊕ H(AB^0)),
//!            G ⊕= (H(A^0) ⊕ H(A^1), H(B^0) ⊕ H(B^1), H(AB^0) ⊕ H(AB^1)), AB = A ⊕ B.
//! ```
//!
//! The garbler hashes 6 labels per AND (A⁰, A⁰⊕Δ, B⁰, B⁰⊕Δ, A⁰⊕B⁰, A⁰⊕B⁰⊕Δ), the evaluator
//! 3. (r₁, r₂) of gate g are bits 2(g mod 64) and 2(g mod 64) + 1 of AES-128_K(⌊g/64⌋),
//! K the garbler's secret control key ([`ControlBits`]): independent of the thread that
//! garbles the gate.
//!
//! Wire layout of a group of n gates ([`group_bytes`]: 24n + ⌈5n/8⌉ bytes): G0, G1, G2 of
//! gate k as little-endian u64s at byte 24k, then ⌈5n/8⌉ bytes whose bit 5k + m
//! (little-endian bit order) is z_m of gate k.

use aes::cipher::{BlockEncrypt, KeyInit};
use aes::Aes128Enc;
use mixgc_compile::{Run, RunKind};
use mixgc_core::{Block, TweakableHash};

use crate::tweak::three_halves_tweaks;
use crate::MAX_AND_GROUP;

/// Bytes of ciphertext per AND gate: G0, G1, G2.
pub const THREE_HALVES_ROW_BYTES: usize = 24;

/// Table bytes of a group of `n` ANDs garbled together.
pub const fn group_bytes(n: usize) -> usize {
    THREE_HALVES_ROW_BYTES * n + (5 * n).div_ceil(8)
}

/// Table bytes of the AND groups of `runs` (whole runs, no markers) before each run:
/// `offsets[r]` for r in 0..=runs.len().
pub(crate) fn byte_offsets(runs: &[Run], offsets: &mut Vec<usize>) {
    offsets.clear();
    let mut at = 0;
    offsets.push(at);
    for run in runs {
        if run.kind == RunKind::And {
            at += group_bytes(run.len as usize);
        }
        offsets.push(at);
    }
}

/// A 2×4 matrix over (X_L, X_R, Y_L, Y_R) as a byte: row L in bits 0..4, row R in bits 4..8.
const fn matrix(rows: [[u8; 4]; 2]) -> u8 {
    let mut m = 0;
    let mut c = 0;
    while c < 4 {
        m |= rows[0][c] << c | rows[1][c] << (4 + c);
        c += 1;
    }
    m
}

/// R_p[i, j] at index 2i + j. The evaluator applies R_ij in the explicit form
/// R_p[i, j]·(A_L, A_R, B_L, B_R) = (¬i·B_L, ¬j·A_R), S₁·(…) = (A_L ⊕ A_R ⊕ B_L, A_L ⊕ B_R),
/// S₂·(…) = (A_L ⊕ B_R, A_R ⊕ B_L ⊕ B_R) (a test checks both agree).
const R_P: [u8; 4] = [
    matrix([[0, 0, 1, 0], [0, 1, 0, 0]]),
    matrix([[0, 0, 1, 0], [0, 0, 0, 0]]),
    matrix([[0, 0, 0, 0], [0, 1, 0, 0]]),
    matrix([[0, 0, 0, 0], [0, 0, 0, 0]]),
];
const S1: u8 = matrix([[1, 1, 1, 0], [1, 0, 0, 1]]);
const S2: u8 = matrix([[1, 0, 0, 1], [0, 1, 1, 1]]);

const fn mask8(bit: bool) -> u8 {
    0u8.wrapping_sub(bit as u8)
}

/// The evaluator's R_ij for colours (i, j) and decoded control bits (r₁, r₂).
const fn r_matrix(i: bool, j: bool, r1: bool, r2: bool) -> u8 {
    R_P[2 * i as usize + j as usize] ^ (S1 & mask8(r1)) ^ (S2 & mask8(r2))
}

/// Linear forms over (A⁰_L, A⁰_R, B⁰_L, B⁰_R, Δ_L, Δ_R), one bit each.
const A_L: u8 = 1;
const A_R: u8 = 2;
const B_L: u8 = 4;
const B_R: u8 = 8;
const D_L: u8 = 16;
const D_R: u8 = 32;

/// The linear part of the evaluator's output at colours (i, j), plus the Δ it must differ
/// from C⁰ by, as forms: equal to the linear part of C⁰ ⊕ V_ij·G for a correct garbling.
const fn evaluator_forms(p_a: bool, p_b: bool, r1: bool, r2: bool, i: bool, j: bool) -> [u8; 2] {
    let (a_bar, b_bar) = (!p_a, !p_b);
    let q1 = r1 ^ (i & a_bar) ^ ((i ^ j) & (a_bar ^ b_bar));
    let q2 = r2 ^ (j & b_bar) ^ ((i ^ j) & (a_bar ^ b_bar));
    let m = r_matrix(i, j, q1, q2);
    // The active labels: A = A⁰ ⊕ (i ⊕ p_a)·Δ, B = B⁰ ⊕ (j ⊕ p_b)·Δ.
    let (a, b) = (i ^ p_a, j ^ p_b);
    let labels = [
        A_L | (D_L & mask8(a)),
        A_R | (D_R & mask8(a)),
        B_L | (D_L & mask8(b)),
        B_R | (D_R & mask8(b)),
    ];
    let mut out = [0u8; 2];
    let mut row = 0;
    while row < 2 {
        let mut c = 0;
        while c < 4 {
            out[row] ^= labels[c] & mask8((m >> (4 * row + c)) & 1 == 1);
            c += 1;
        }
        row += 1;
    }
    // C = C⁰ ⊕ (a ∧ b)·Δ.
    out[0] ^= D_L & mask8(a & b);
    out[1] ^= D_R & mask8(a & b);
    out
}

const fn bit(x: usize, k: usize) -> bool {
    (x >> k) & 1 == 1
}

/// The forms (C⁰_L, C⁰_R, G0, G1, G2), 6 bits each from bit 0, for index
/// p_a + 2p_b + 4r₁ + 8r₂: C⁰ is the output at colours (0, 0) (V_00 = 0), and with
/// D_ij = output(i, j) ⊕ C⁰ = V_ij·G: (G0, G1) = D_11, G2 = D_10[R].
const fn garbler_forms(index: usize) -> u32 {
    let (p_a, p_b, r1, r2) = (bit(index, 0), bit(index, 1), bit(index, 2), bit(index, 3));
    let c0 = evaluator_forms(p_a, p_b, r1, r2, false, false);
    let d11 = evaluator_forms(p_a, p_b, r1, r2, true, true);
    let d10 = evaluator_forms(p_a, p_b, r1, r2, true, false);
    let forms = [c0[0], c0[1], d11[0] ^ c0[0], d11[1] ^ c0[1], d10[1] ^ c0[1]];
    let mut packed = 0;
    let mut k = 0;
    while k < 5 {
        packed |= (forms[k] as u32) << (6 * k);
        k += 1;
    }
    packed
}

/// Whether the four colour pairs' equations have a solution for every (p_a, p_b, r₁, r₂):
/// D_10 = (G0 ⊕ G2, G2), D_01 = (G2, G1 ⊕ G2), D_11 = (G0, G1) for one G.
const fn solvable() -> bool {
    let mut index = 0;
    while index < 16 {
        let (p_a, p_b, r1, r2) = (bit(index, 0), bit(index, 1), bit(index, 2), bit(index, 3));
        let c0 = evaluator_forms(p_a, p_b, r1, r2, false, false);
        let f10 = evaluator_forms(p_a, p_b, r1, r2, true, false);
        let f01 = evaluator_forms(p_a, p_b, r1, r2, false, true);
        let f11 = evaluator_forms(p_a, p_b, r1, r2, true, true);
        let d10 = [f10[0] ^ c0[0], f10[1] ^ c0[1]];
        let d01 = [f01[0] ^ c0[0], f01[1] ^ c0[1]];
        let d11 = [f11[0] ^ c0[0], f11[1] ^ c0[1]];
        let g2 = d10[1];
        if d01[0] != g2 || d10[0] ^ g2 != d11[0] || d01[1] ^ g2 != d11[1] {
            return false;
        }
        index += 1;
    }
    true
}
const _: () = assert!(solvable(), "R_p, S1, S2 admit a garbling for every case");

const GARBLER_FORMS: [u32; 16] = {
    let mut t = [0; 16];
    let mut k = 0;
    while k < 16 {
        t[k] = garbler_forms(k);
        k += 1;
    }
    t
};

/// The forms of `GARBLER_FORMS` for the 1 row at colours (ā, b̄) and control bits (r₁, r₂).
const fn forms_at(a_bar: bool, b_bar: bool, r1: bool, r2: bool) -> u32 {
    GARBLER_FORMS[!a_bar as usize | (!b_bar as usize) << 1 | (r1 as usize) << 2 | (r2 as usize) << 3]
}

/// `GARBLER_FORMS` in algebraic normal form over x = (ā, b̄, r₁, r₂) (bits 0..4 of an
/// index): entry s is the coefficient of the monomial ∏_{k ∈ s} x_k. The garbler sums the
/// fixed combinations of the monomials that hold, selected with masks: branch-free and
/// without a secret-dependent memory access.
const GARBLER_ANF: [u32; 16] = {
    let mut t = [0; 16];
    let mut x = 0;
    while x < 16 {
        t[x] = forms_at(bit(x, 0), bit(x, 1), bit(x, 2), bit(x, 3));
        x += 1;
    }
    let mut v = 0;
    while v < 4 {
        let mut x = 0;
        while x < 16 {
            if bit(x, v) {
                t[x] ^= t[x ^ (1 << v)];
            }
            x += 1;
        }
        v += 1;
    }
    t
};

/// Adds to `half` (C⁰_L, C⁰_R, G0, G1, G2) the combinations of `linear` that monomial `S`
/// of [`GARBLER_ANF`] contributes when it holds for `vars`. `S` is a constant, so the
/// combinations are fixed XORs.
#[inline(always)]
fn add_monomial<const S: usize>(vars: usize, linear: &[u64; 6], half: &mut [u64; 5]) {
    let forms = const { GARBLER_ANF[S] };
    if forms == 0 {
        return;
    }
    let on = mask64(vars & S == S);
    for (m, h) in half.iter_mut().enumerate() {
        let form = (forms >> (6 * m)) & 63;
        if form != 0 {
            *h ^= combine(form, linear) & on;
        }
    }
}

#[inline(always)]
fn mask64(bit: bool) -> u64 {
    0u64.wrapping_sub(u64::from(bit))
}

/// XOR of the `halves` whose bit is set in the low bits of `form`.
#[inline(always)]
fn combine<const N: usize>(form: u32, halves: &[u64; N]) -> u64 {
    let mut x = 0;
    for (k, &h) in halves.iter().enumerate() {
        x ^= h & mask64((form >> k) & 1 == 1);
    }
    x
}

#[inline(always)]
fn low(x: u128) -> u64 {
    x as u64
}

/// The hash bit used for the control bits: bit 64.
#[inline(always)]
fn control_bit(x: u128) -> bool {
    (x >> 64) & 1 == 1
}

/// (value of colour 0, value of colour 1) from the values at A⁰ and A⁰ ⊕ Δ, where
/// `p = lsb(A⁰)`; branch-free.
#[inline(always)]
fn by_colour(at_zero: u128, at_one: u128, p: bool) -> (u128, u128) {
    let swap = (at_zero ^ at_one) & 0u128.wrapping_sub(u128::from(p));
    (at_zero ^ swap, at_one ^ swap)
}

/// The garbler's PRG for the control bits (r₁, r₂): AES-128 in counter mode under a secret
/// key drawn by the garbler. The cipher's round keys are overwritten when it is dropped
/// (the workspace enables the `aes` crate's `zeroize` feature; checked by a test).
pub(crate) struct ControlBits(Aes128Enc);

impl ControlBits {
    pub(crate) fn new(key: Block) -> Self {
        ControlBits(Aes128Enc::new(&key.to_bytes().into()))
    }

    /// (r₁, r₂) of the `n` ≤ 16 gates from global index `first_and`, in bits 2k, 2k + 1.
    #[inline]
    fn bits(&self, first_and: u64, n: usize) -> u32 {
        debug_assert!(n <= MAX_AND_GROUP);
        let counter = u128::from(first_and / 64);
        let mut stream = [counter, counter + 1].map(|c| aes::Block::from(c.to_le_bytes()));
        self.0.encrypt_blocks(&mut stream);
        let [lo, hi] = stream.map(|b| u128::from_le_bytes(b.into()));
        let shift = 2 * (first_and % 64) as u32;
        let window = if shift == 0 {
            lo
        } else {
            (lo >> shift) | (hi << (128 - shift))
        };
        window as u32
    }
}

/// Hashing scratch space for one AND group (six hashes per gate when garbling, three when
/// evaluating).
pub(crate) struct Scratch {
    hashes: [Block; 6 * MAX_AND_GROUP],
    tweaks: [Block; 6 * MAX_AND_GROUP],
}

impl Scratch {
    pub(crate) fn new() -> Self {
        Scratch {
            hashes: [Block::ZERO; 6 * MAX_AND_GROUP],
            tweaks: [Block::ZERO; 6 * MAX_AND_GROUP],
        }
    }
}

fn halves(x: Block) -> (u64, u64) {
    let v = x.to_u128();
    (v as u64, (v >> 64) as u64)
}

/// Garbles up to [`MAX_AND_GROUP`] independent ANDs with zero-labels `inputs[k] = (A⁰, B⁰)`,
/// the first of global index `first_and`: writes C⁰ to `outputs[k]` and the group's
/// [`group_bytes`] bytes to `rows`.
#[inline]
#[allow(clippy::too_many_arguments)]
pub(crate) fn garble_rows<H: TweakableHash>(
    hash: &H,
    delta: Block,
    control: &ControlBits,
    first_and: u64,
    inputs: &[(Block, Block)],
    outputs: &mut [Block],
    rows: &mut [u8],
    scratch: &mut Scratch,
) {
    let n = inputs.len();
    assert!(
        n <= MAX_AND_GROUP && outputs.len() == n && rows.len() == group_bytes(n),
        "at most MAX_AND_GROUP gates, one output each and the group's bytes"
    );
    let (h, t) = (&mut scratch.hashes[..6 * n], &mut scratch.tweaks[..6 * n]);
    for (k, &(a0, b0)) in inputs.iter().enumerate() {
        let [ta, tb, tab] = three_halves_tweaks(first_and + k as u64);
        let ab0 = a0 ^ b0;
        h[6 * k..6 * k + 6].copy_from_slice(&[a0, a0 ^ delta, b0, b0 ^ delta, ab0, ab0 ^ delta]);
        t[6 * k..6 * k + 6].copy_from_slice(&[ta, ta, tb, tb, tab, tab]);
    }
    hash.hash_many(h, t);
    let random = if n == 0 { 0 } else { control.bits(first_and, n) };
    let (d_l, d_r) = halves(delta);
    let (ciphertexts, control_bytes) = rows.split_at_mut(THREE_HALVES_ROW_BYTES * n);
    let mut z_all = 0u128;
    for (k, &(a0, b0)) in inputs.iter().enumerate() {
        let (p_a, p_b) = (a0.lsb(), b0.lsb());
        let (r1, r2) = ((random >> (2 * k)) & 1 == 1, (random >> (2 * k + 1)) & 1 == 1);
        let hk = |m: usize| h[6 * k + m].to_u128();
        let (ha0, ha1) = by_colour(hk(0), hk(1), p_a);
        let (hb0, hb1) = by_colour(hk(2), hk(3), p_b);
        let (hab0, hab1) = by_colour(hk(4), hk(5), p_a ^ p_b);
        let masks = [ha0 ^ hab0, hb0 ^ hab0, ha0 ^ ha1, hb0 ^ hb1, hab0 ^ hab1];

        let (a_bar, b_bar) = (!p_a, !p_b);
        let (a_l, a_r) = halves(a0);
        let (b_l, b_r) = halves(b0);
        let linear = [a_l, a_r, b_l, b_r, d_l, d_r];
        let vars = usize::from(a_bar) | usize::from(b_bar) << 1 | usize::from(r1) << 2 | usize::from(r2) << 3;
        let mut half = [0; 5];
        macro_rules! add_monomials {
            ($($s:literal)*) => { $(add_monomial::<$s>(vars, &linear, &mut half);)* };
        }
        add_monomials!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        for m in 0..5 {
            half[m] ^= low(masks[m]);
        }

        outputs[k] = Block::from_u128(u128::from(half[0]) | u128::from(half[1]) << 64);
        let row = &mut ciphertexts[THREE_HALVES_ROW_BYTES * k..THREE_HALVES_ROW_BYTES * (k + 1)];
        for m in 0..3 {
            row[8 * m..8 * m + 8].copy_from_slice(&half[2 + m].to_le_bytes());
        }
        let plain = [r1, r2, a_bar, b_bar, a_bar ^ b_bar];
        let mut z = 0u128;
        for (m, (&p, &mask)) in plain.iter().zip(&masks).enumerate() {
            z |= u128::from(p ^ control_bit(mask)) << m;
        }
        z_all |= z << (5 * k);
    }
    control_bytes.copy_from_slice(&z_all.to_le_bytes()[..control_bytes.len()]);
}

/// Evaluates up to [`MAX_AND_GROUP`] independent ANDs on active labels `inputs[k] = (A, B)`,
/// the first of global index `first_and`, with the group's [`group_bytes`] bytes `rows`;
/// writes C to `outputs[k]`.
#[inline]
pub(crate) fn evaluate_rows<H: TweakableHash>(
    hash: &H,
    first_and: u64,
    inputs: &[(Block, Block)],
    rows: &[u8],
    outputs: &mut [Block],
    scratch: &mut Scratch,
) {
    let n = inputs.len();
    assert!(
        n <= MAX_AND_GROUP && outputs.len() == n && rows.len() == group_bytes(n),
        "one output per gate and the group's bytes"
    );
    let (h, t) = (&mut scratch.hashes[..3 * n], &mut scratch.tweaks[..3 * n]);
    for (k, &(a, b)) in inputs.iter().enumerate() {
        h[3 * k..3 * k + 3].copy_from_slice(&[a, b, a ^ b]);
        t[3 * k..3 * k + 3].copy_from_slice(&three_halves_tweaks(first_and + k as u64));
    }
    hash.hash_many(h, t);
    let (ciphertexts, control_bytes) = rows.split_at(THREE_HALVES_ROW_BYTES * n);
    let mut z_bytes = [0u8; 16];
    z_bytes[..control_bytes.len()].copy_from_slice(control_bytes);
    let z_all = u128::from_le_bytes(z_bytes);
    for (k, &(a, b)) in inputs.iter().enumerate() {
        let (i, j) = (a.lsb(), b.lsb());
        let hab = h[3 * k + 2].to_u128();
        let (x_l, x_r) = (h[3 * k].to_u128() ^ hab, h[3 * k + 1].to_u128() ^ hab);
        let row = &ciphertexts[THREE_HALVES_ROW_BYTES * k..THREE_HALVES_ROW_BYTES * (k + 1)];
        let g = |m: usize| u64::from_le_bytes(row[8 * m..8 * m + 8].try_into().unwrap());
        let zk = (z_all >> (5 * k)) as u32;
        let z = |m: u32| (zk >> m) & 1 == 1;
        let r1 = control_bit(x_l) ^ z(0) ^ (i & z(2)) ^ ((i ^ j) & z(4));
        let r2 = control_bit(x_r) ^ z(1) ^ (j & z(3)) ^ ((i ^ j) & z(4));
        let (a_l, a_r) = halves(a);
        let (b_l, b_r) = halves(b);
        // R_ij·(A_L, A_R, B_L, B_R) = (¬i·B_L, ¬j·A_R) ⊕ r₁·S₁·(…) ⊕ r₂·S₂·(…).
        let shared = a_l ^ b_r;
        let s1 = [a_l ^ a_r ^ b_l, shared];
        let s2 = [shared, a_r ^ b_l ^ b_r];
        let g2 = g(2) & mask64(i ^ j);
        let c_l = low(x_l)
            ^ (g(0) & mask64(i))
            ^ g2
            ^ (b_l & mask64(!i))
            ^ (s1[0] & mask64(r1))
            ^ (s2[0] & mask64(r2));
        let c_r = low(x_r)
            ^ (g(1) & mask64(j))
            ^ g2
            ^ (a_r & mask64(!j))
            ^ (s1[1] & mask64(r1))
            ^ (s2[1] & mask64(r2));
        outputs[k] = Block::from_u128(u128::from(c_l) | u128::from(c_r) << 64);
    }
}

/// Checks that `delta` suits three-halves garbling.
pub(crate) fn check_delta(delta: Block) {
    assert!(delta.lsb(), "free-XOR needs lsb(Δ) = 1 for point-and-permute");
    assert_ne!(
        halves(delta).1,
        0,
        "three-halves garbling needs a Δ with a nonzero high half"
    );
}

/// Garbler side: Δ, the hash, the control-bit PRG, the global AND index and scratch space.
pub struct ThreeHalvesGarbler<H> {
    hash: H,
    delta: Block,
    control: ControlBits,
    next_and: u64,
    scratch: Box<Scratch>,
}

/// Δ does not outlive the garbler; nor does the control key's AES schedule, which the `aes`
/// crate's cipher wipes itself (its `zeroize` feature).
impl<H> Drop for ThreeHalvesGarbler<H> {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.delta);
    }
}

impl<H: TweakableHash> ThreeHalvesGarbler<H> {
    /// A garbler with offset `delta` (lsb(Δ) = 1, high half nonzero) whose control bits come
    /// from `control_key`: secret, uniformly random and never reused by another garbler.
    pub fn new(hash: H, delta: Block, control_key: Block) -> Self {
        check_delta(delta);
        ThreeHalvesGarbler {
            hash,
            delta,
            control: ControlBits::new(control_key),
            next_and: 0,
            scratch: Box::new(Scratch::new()),
        }
    }

    pub fn delta(&self) -> Block {
        self.delta
    }

    /// Global index of the next AND gate (the number garbled so far).
    pub fn ands_garbled(&self) -> u64 {
        self.next_and
    }

    /// Garbles up to [`MAX_AND_GROUP`] independent ANDs with zero-labels
    /// `inputs[k] = (A⁰, B⁰)`: writes C⁰ to `outputs[k]` and appends the group's
    /// [`group_bytes`] bytes to `tables`.
    pub fn garble(&mut self, inputs: &[(Block, Block)], outputs: &mut [Block], tables: &mut Vec<u8>) {
        let start = tables.len();
        tables.resize(start + group_bytes(inputs.len()), 0);
        garble_rows(
            &self.hash,
            self.delta,
            &self.control,
            self.next_and,
            inputs,
            outputs,
            &mut tables[start..],
            &mut self.scratch,
        );
        self.next_and += inputs.len() as u64;
    }
}

/// Evaluator side: the hash, the global AND index and scratch space.
pub struct ThreeHalvesEvaluator<H> {
    hash: H,
    next_and: u64,
    scratch: Box<Scratch>,
}

impl<H: TweakableHash> ThreeHalvesEvaluator<H> {
    /// An evaluator whose next AND gate has global index `next_and`.
    pub fn starting_at(hash: H, next_and: u64) -> Self {
        ThreeHalvesEvaluator {
            hash,
            next_and,
            scratch: Box::new(Scratch::new()),
        }
    }

    /// Global index of the next AND gate (the number evaluated so far).
    pub fn ands_evaluated(&self) -> u64 {
        self.next_and
    }

    /// Evaluates up to [`MAX_AND_GROUP`] independent ANDs on active labels
    /// `inputs[k] = (A, B)` with the group's [`group_bytes`] bytes `rows`; writes C to
    /// `outputs[k]`.
    pub fn evaluate(&mut self, inputs: &[(Block, Block)], rows: &[u8], outputs: &mut [Block]) {
        evaluate_rows(
            &self.hash,
            self.next_and,
            inputs,
            rows,
            outputs,
            &mut self.scratch,
        );
        self.next_and += inputs.len() as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The control key's AES schedule wipes itself on drop: the `aes` crate's `zeroize`
    /// feature is on (a compile-time check).
    #[test]
    fn the_control_cipher_zeroizes_on_drop() {
        fn zeroizes_on_drop<T: zeroize::ZeroizeOnDrop>() {}
        zeroizes_on_drop::<Aes128Enc>();
    }

    /// Every case's garbling, checked by substitution: the evaluator's linear part at each
    /// colour pair equals C⁰ ⊕ V_ij·G.
    #[test]
    fn garbler_forms_solve_every_colour_pair() {
        for (index, &f) in GARBLER_FORMS.iter().enumerate() {
            let form = |m: u32| ((f >> (6 * m)) & 63) as u8;
            let (c_l, c_r, g0, g1, g2) = (form(0), form(1), form(2), form(3), form(4));
            let (p_a, p_b, r1, r2) = (bit(index, 0), bit(index, 1), bit(index, 2), bit(index, 3));
            for (i, j) in [(false, false), (false, true), (true, false), (true, true)] {
                let want = evaluator_forms(p_a, p_b, r1, r2, i, j);
                let sel = |g: u8, on: bool| if on { g } else { 0 };
                let got = [
                    c_l ^ sel(g0, i) ^ sel(g2, i ^ j),
                    c_r ^ sel(g1, j) ^ sel(g2, i ^ j),
                ];
                assert_eq!(got, want, "case {index}, colours ({i}, {j})");
            }
        }
    }

    /// The evaluator's explicit R_ij equals the matrices the garbler's forms come from.
    #[test]
    fn explicit_r_matrices_match() {
        let labels = [0x1111u64, 0x2222_0000, 0x4444_0000_0000, 0x8888_0000_0000_0000];
        let [a_l, a_r, b_l, b_r] = labels;
        for index in 0..16 {
            let (i, j, r1, r2) = (bit(index, 0), bit(index, 1), bit(index, 2), bit(index, 3));
            let m = u32::from(r_matrix(i, j, r1, r2));
            let want = [combine(m, &labels), combine(m >> 4, &labels)];
            let sel = |x: u64, on: bool| x & mask64(on);
            let got = [
                sel(b_l, !i) ^ sel(a_l ^ a_r ^ b_l, r1) ^ sel(a_l ^ b_r, r2),
                sel(a_r, !j) ^ sel(a_l ^ b_r, r1) ^ sel(a_r ^ b_l ^ b_r, r2),
            ];
            assert_eq!(got, want, "i = {i}, j = {j}, r = ({r1}, {r2})");
        }
    }

    #[test]
    fn the_normal_form_gives_every_case() {
        for x in 0..16 {
            let sum = (0..16).filter(|&s| x & s == s).fold(0, |f, s| f ^ GARBLER_ANF[s]);
            assert_eq!(
                sum,
                forms_at(bit(x, 0), bit(x, 1), bit(x, 2), bit(x, 3)),
                "case {x}"
            );
        }
    }

    #[test]
    fn control_bits_follow_the_global_index() {
        let prg = ControlBits::new(Block::from_u128(99));
        let all: Vec<u32> = (0..8).map(|b| prg.bits(16 * b, 16)).collect();
        for first in 0..100u64 {
            let got = prg.bits(first, 16);
            for k in 0..16u64 {
                let g = first + k;
                if g >= 128 {
                    continue;
                }
                let want = (all[(g / 16) as usize] >> (2 * (g % 16))) & 3;
                assert_eq!((got >> (2 * k)) & 3, want, "gate {g} from {first}");
            }
        }
    }
}
