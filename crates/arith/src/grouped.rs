//! Labels mod an odd prime held together with the values of their digit groups, for the
//! garbler's rows: the row hash encodes a label from its group values
//! ([`crate::encoding::encode_groups`]) and a row packs its target's group values
//! ([`crate::codec::write_masked_groups`]), so neither joins digits in base p.
//!
//! A projection's garbler hashes its input at every colour, A, A + Δ, A + 2Δ, …, and for
//! a linear φ (the two halves of a product) its row targets step by a fixed label too.
//! Adding S to A digit-wise mod p changes the value of a group of digits a_i, s_i
//! (i = 0 … len − 1, value G = Σ a_i·p^i) by a known amount: with the carries
//! c_i = [a_i + s_i ≥ p], the new digits are a_i + s_i − c_i·p, so
//!
//!   G(A + S) = G(A) + G(S) − Σ_i c_i·p^(i+1),
//!
//! an identity between integers whose result is below p^len < 2^64, so wrapping 64-bit
//! arithmetic computes it exactly. The digit-wise reduction computes the carries anyway;
//! the step adds their masked weights p^(i+1) — no multiplication and no dependent chain,
//! so the loop vectorizes.

use std::borrow::Cow;

use crate::encoding::{encode_groups, Encoded, MAX_BLOCKS};
use crate::{Label, Modulus};

/// The longest label mod an odd prime: ℓ = 82 for p = 3 (tested).
pub(crate) const MAX_ODD_LABEL_LEN: usize = 82;

/// The longest group mod an odd prime: j = 40 for p = 3, as 3^40 ≤ 2^64 < 3^41 (tested).
const MAX_GROUP_LEN: usize = 40;

/// Bytes of digits per group: one 512-bit vector. A group mod p < 256 is at most 40
/// one-byte digits, one mod p > 256 at most 7 two-byte digits (p^8 > 2^64; tested).
const SLOT_BYTES: usize = 64;

/// Digits per entry of a step's carry table ([`StepShape::carry_sums`]).
const LANES: usize = 8;

/// Primes below this have one-byte digits, the others two-byte (p < 2^16).
const BYTE_DIGITS_BELOW: u64 = 256;

/// One group's digits, little-endian, zero past the group's end (zero digits never carry,
/// so a step runs over the whole vector).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Slot([u8; SLOT_BYTES]);

/// Whether digits mod `m` take two bytes.
fn wide_digits(m: Modulus) -> bool {
    m.value() >= u128::from(BYTE_DIGITS_BELOW)
}

/// A label mod an odd prime p: its digits and the values of its digit groups
/// ([`Modulus::join_groups`]), kept in step. Group g's digits fill slot g, one byte each
/// for p < 256 and two bytes each otherwise, so a step mod any prime of a 16-bit CRT
/// product moves a whole group (up to 64 digits) with one 512-bit vector, and a label is
/// ~0.25 KB to copy.
#[derive(Clone)]
pub(crate) struct GroupedLabel {
    slots: [Slot; MAX_BLOCKS],
    groups: [u64; MAX_BLOCKS],
    modulus: Modulus,
}

impl GroupedLabel {
    /// Overwrites the digits with zeros (for Δ_p and its multiples when their garbler is
    /// dropped).
    pub(crate) fn wipe(&mut self) {
        use zeroize::Zeroize;
        for slot in &mut self.slots {
            slot.0.zeroize();
        }
        self.groups.zeroize();
    }

    /// Digit i of group g.
    #[inline]
    fn digit(&self, g: usize, i: usize) -> u32 {
        let slot = &self.slots[g].0;
        if wide_digits(self.modulus) {
            u32::from(u16::from_le_bytes([slot[2 * i], slot[2 * i + 1]]))
        } else {
            u32::from(slot[i])
        }
    }

    /// Sets digit i of group g to `d` (< p).
    #[inline]
    fn set_digit(&mut self, g: usize, i: usize, d: u32) {
        let slot = &mut self.slots[g].0;
        if wide_digits(self.modulus) {
            slot[2 * i..2 * i + 2].copy_from_slice(&(d as u16).to_le_bytes());
        } else {
            slot[i] = d as u8;
        }
    }

    /// Writes `digits` (ℓ of them) into the groups' slots, which must be zero (a fresh
    /// label): on AVX-512 eight digits narrowed per instruction, else one by one.
    fn set_digits(&mut self, digits: &[u64]) {
        debug_assert!(
            self.slots.iter().all(|slot| slot.0 == [0; SLOT_BYTES]),
            "a fresh label"
        );
        self.set_digits_with(VectorKernel::detect(), digits);
    }

    /// [`GroupedLabel::set_digits`] on `kernel`, which the CPU must support.
    #[inline(always)]
    fn set_digits_with(&mut self, kernel: VectorKernel, digits: &[u64]) {
        match kernel {
            // SAFETY: the CPU supports AVX-512F (`VectorKernel::detect`).
            #[cfg(target_arch = "x86_64")]
            VectorKernel::Avx512 => unsafe { self.set_digits_avx512(digits) },
            _ => self.set_digits_portable(digits),
        }
    }

    /// [`GroupedLabel::set_digits`] on AVX-512F: each chunk of up to 8 digits loaded under a
    /// lane mask and narrowed to bytes (`vpmovqb`) or two-byte words (`vpmovqw`); the lanes
    /// past a group's end are zero, as the slot was.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn set_digits_avx512(&mut self, digits: &[u64]) {
        use std::arch::x86_64::*;
        let wide = wide_digits(self.modulus);
        let j = self.modulus.group_len();
        // Narrow: ≤ 40 digits, 8 bytes per chunk; wide: ≤ 7 digits, one 16-byte chunk.
        debug_assert!(j <= MAX_GROUP_LEN && (!wide || j < LANES));
        // Group ranges by multiplication: `chunks(j)` would divide by j.
        for (g, (slot, len)) in self.slots.iter_mut().zip(group_lengths(self.modulus)).enumerate() {
            for (k, chunk) in digits[g * j..g * j + len].chunks(LANES).enumerate() {
                let lanes = ((1u16 << chunk.len()) - 1) as u8;
                // SAFETY: the masked load reads only the chunk's `chunk.len()` digits; the
                // store is 8 bytes at 8k (k < 5) or 16 at 0 (k = 0) of the 64-byte slot.
                unsafe {
                    let v = _mm512_maskz_loadu_epi64(lanes, chunk.as_ptr().cast());
                    let to = slot.0.as_mut_ptr();
                    if wide {
                        _mm_storeu_si128(to.add(16 * k).cast(), _mm512_cvtepi64_epi16(v));
                    } else {
                        _mm_storel_epi64(to.add(LANES * k).cast(), _mm512_cvtepi64_epi8(v));
                    }
                }
            }
        }
    }

    /// The reference [`GroupedLabel::set_digits`], digit by digit.
    fn set_digits_portable(&mut self, digits: &[u64]) {
        let j = self.modulus.group_len();
        let wide = wide_digits(self.modulus);
        for (slot, group) in self.slots.iter_mut().zip(digits.chunks(j)) {
            if wide {
                for (to, &d) in slot.0.chunks_exact_mut(2).zip(group) {
                    to.copy_from_slice(&(d as u16).to_le_bytes());
                }
            } else {
                for (to, &d) in slot.0.iter_mut().zip(group) {
                    *to = d as u8;
                }
            }
        }
    }

    /// The label mod the odd prime `m` with these digits (ℓ of them, reduced).
    pub(crate) fn from_digits(m: Modulus, digits: &[u64]) -> GroupedLabel {
        let mut label = GroupedLabel::zero(m);
        label.fill_from_digits(digits);
        label
    }

    /// [`GroupedLabel::from_digits`] into this fresh label ([`GroupedLabel::zero`]): in
    /// place, as a label returned by value is copied (0.25 KB).
    pub(crate) fn fill_from_digits(&mut self, digits: &[u64]) {
        let m = self.modulus;
        self.set_digits(digits);
        // The two full groups' Horner chains side by side.
        m.join_groups(digits, &mut self.groups[..m.group_count()]);
    }

    /// The label mod the odd prime `m` whose digit groups have the values `groups`.
    #[cfg(test)]
    fn from_groups(m: Modulus, groups: &[u64]) -> GroupedLabel {
        let mut label = GroupedLabel::zero(m);
        label.fill_from_groups(groups);
        label
    }

    /// [`GroupedLabel::from_groups`] into this fresh label ([`GroupedLabel::zero`]), in
    /// place.
    pub(crate) fn fill_from_groups(&mut self, groups: &[u64]) {
        let m = self.modulus;
        let mut digits = [0; MAX_ODD_LABEL_LEN];
        let digits = &mut digits[..m.label_len()];
        m.split_groups(groups, digits);
        self.set_digits(digits);
        let count = m.group_count();
        self.groups[..count].copy_from_slice(&groups[..count]);
    }

    /// The label 0 mod the odd prime `m`: every digit and group zero.
    pub(crate) fn zero(m: Modulus) -> GroupedLabel {
        assert!(
            m.odd_prime_value().is_some(),
            "grouped labels are mod odd primes, not {m}"
        );
        GroupedLabel {
            slots: [Slot([0; SLOT_BYTES]); MAX_BLOCKS],
            groups: [0; MAX_BLOCKS],
            modulus: m,
        }
    }

    pub(crate) fn modulus(&self) -> Modulus {
        self.modulus
    }

    pub(crate) fn groups(&self) -> &[u64] {
        &self.groups[..self.modulus.group_count()]
    }

    /// The colour digit.
    pub(crate) fn colour(&self) -> u64 {
        u64::from(self.digit(0, 0))
    }

    /// The row hash's encoding of this label.
    #[inline]
    pub(crate) fn encoded(&self) -> Encoded {
        encode_groups(self.modulus, self.groups())
    }

    /// The label's digits, ℓ of them.
    fn digits(&self) -> Vec<u64> {
        let m = self.modulus;
        let wide = wide_digits(m);
        let mut digits = Vec::with_capacity(m.label_len());
        for (slot, len) in self.slots.iter().zip(group_lengths(m)) {
            if wide {
                let pairs = slot.0.chunks_exact(2).take(len);
                digits.extend(pairs.map(|d| u64::from(u16::from_le_bytes([d[0], d[1]]))));
            } else {
                digits.extend(slot.0[..len].iter().map(|&d| u64::from(d)));
            }
        }
        digits
    }

    /// The label as a [`Label`].
    pub(crate) fn to_label(&self) -> Label {
        Label::from_reduced(self.modulus, self.digits())
    }

    /// self ← self + `by` digit-wise (a label of the same modulus), group values updated by
    /// the carries (module documentation). On x86-64 CPUs with AVX-512BW or AVX2 (detected
    /// at run time, [`VectorKernel::detect`]; the result is the same) a group's digits move
    /// as one 512-bit vector or two 256-bit ones.
    #[inline]
    pub(crate) fn add_step(&mut self, by: &GroupedLabel, shape: &StepShape) {
        self.add_step_with(VectorKernel::detect(), by, shape);
    }

    /// [`GroupedLabel::add_step`] on `kernel`, which the CPU must support
    /// ([`VectorKernel::detect`]).
    #[inline(always)]
    fn add_step_with(&mut self, kernel: VectorKernel, by: &GroupedLabel, shape: &StepShape) {
        debug_assert!(by.modulus == self.modulus && u128::from(shape.p) == self.modulus.value());
        match kernel {
            // SAFETY: the CPU supports the kernel's features (`VectorKernel::detect`).
            #[cfg(target_arch = "x86_64")]
            VectorKernel::Avx512 => unsafe { self.add_step_avx512(by, shape) },
            #[cfg(target_arch = "x86_64")]
            VectorKernel::Avx2 => unsafe { self.add_step_avx2(by, shape) },
            VectorKernel::Portable => self.add_step_portable(by, shape),
        }
    }

    /// [`GroupedLabel::add_step`] on AVX-512BW, one 512-bit vector per group: with
    /// t = p − b, a digit carries iff a ≥ t (`vpcmpub`/`vpcmpuw` into a mask register) and
    /// becomes a − t, else a + b (a masked subtraction), so the sum never needs a wider
    /// lane; the mask's bytes index [`StepShape::carry_sums`].
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn add_step_avx512(&mut self, by: &GroupedLabel, shape: &StepShape) {
        use std::arch::x86_64::*;
        let groups = self.modulus.group_count();
        for g in 0..groups {
            let to = self.slots[g].0.as_mut_ptr();
            let from = by.slots[g].0.as_ptr();
            // SAFETY: both slots are 64 bytes aligned to 64 (`Slot`): one aligned 512-bit
            // access each.
            let carries = unsafe {
                let a = _mm512_load_si512(to.cast_const().cast());
                let b = _mm512_load_si512(from.cast());
                if shape.wide {
                    let t = _mm512_sub_epi16(_mm512_set1_epi16(shape.p as u16 as i16), b);
                    let carries = _mm512_cmpge_epu16_mask(a, t);
                    let sum = _mm512_mask_sub_epi16(_mm512_add_epi16(a, b), carries, a, t);
                    _mm512_store_si512(to.cast(), sum);
                    u64::from(carries)
                } else {
                    let t = _mm512_sub_epi8(_mm512_set1_epi8(shape.p as u8 as i8), b);
                    let carries = _mm512_cmpge_epu8_mask(a, t);
                    let sum = _mm512_mask_sub_epi8(_mm512_add_epi8(a, b), carries, a, t);
                    _mm512_store_si512(to.cast(), sum);
                    carries
                }
            };
            let carried = shape.carried(g, carries);
            self.groups[g] = self.groups[g].wrapping_add(by.groups[g]).wrapping_sub(carried);
        }
    }

    /// [`GroupedLabel::add_step`] on AVX2: as on AVX-512, 32 one-byte or 16 two-byte digits
    /// per vector, the unsigned a ≥ t as max(a, t) = a, the carries as a byte mask
    /// (`vpmovmskb`; two-byte lanes packed to bytes first).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn add_step_avx2(&mut self, by: &GroupedLabel, shape: &StepShape) {
        use std::arch::x86_64::*;
        let groups = self.modulus.group_count();
        for g in 0..groups {
            let mut carries = 0u64;
            for v in 0..shape.vectors[g] {
                // SAFETY: v < 2 (`StepShape::vectors`): 32 bytes at offset 32·v of a 64-byte
                // slot aligned to 64, one aligned 256-bit access each.
                let mask = unsafe {
                    let to = self.slots[g].0.as_mut_ptr().add(32 * v);
                    let from = by.slots[g].0.as_ptr().add(32 * v);
                    let a = _mm256_load_si256(to.cast_const().cast());
                    let b = _mm256_load_si256(from.cast());
                    if shape.wide {
                        let t = _mm256_sub_epi16(_mm256_set1_epi16(shape.p as u16 as i16), b);
                        let carry = _mm256_cmpeq_epi16(_mm256_max_epu16(a, t), a);
                        let sum = _mm256_blendv_epi8(_mm256_add_epi16(a, b), _mm256_sub_epi16(a, t), carry);
                        _mm256_store_si256(to.cast(), sum);
                        // Bytes 0–7 and 16–23 of the packed mask are lanes 0–7 and 8–15.
                        let packed = _mm256_movemask_epi8(_mm256_packs_epi16(carry, carry)) as u32;
                        u64::from(packed & 0xff | (packed >> 8) & 0xff00)
                    } else {
                        let t = _mm256_sub_epi8(_mm256_set1_epi8(shape.p as u8 as i8), b);
                        let carry = _mm256_cmpeq_epi8(_mm256_max_epu8(a, t), a);
                        let sum = _mm256_blendv_epi8(_mm256_add_epi8(a, b), _mm256_sub_epi8(a, t), carry);
                        _mm256_store_si256(to.cast(), sum);
                        u64::from(_mm256_movemask_epi8(carry) as u32)
                    }
                };
                carries |= mask << (v * if shape.wide { 16 } else { 32 });
            }
            let carried = shape.carried(g, carries);
            self.groups[g] = self.groups[g].wrapping_add(by.groups[g]).wrapping_sub(carried);
        }
    }

    /// The reference step, digit by digit. Out of line, so that [`GroupedLabel::add_step`]'s
    /// dispatch stays a few instructions that inline into the garbler's loops.
    #[inline(never)]
    fn add_step_portable(&mut self, by: &GroupedLabel, shape: &StepShape) {
        let p = shape.p;
        for g in 0..self.modulus.group_count() {
            let mut carried = 0u64;
            for i in 0..shape.lens[g] {
                let (a, b) = (self.digit(g, i), by.digit(g, i));
                let carry = a + b >= p;
                self.set_digit(g, i, if carry { a + b - p } else { a + b });
                if carry {
                    carried = carried.wrapping_add(shape.carry_weights[i]);
                }
            }
            self.groups[g] = self.groups[g].wrapping_add(by.groups[g]).wrapping_sub(carried);
        }
    }

    /// c·self digit-wise (c reduced).
    pub(crate) fn scaled(&self, c: u64) -> GroupedLabel {
        let m = self.modulus;
        let digits: Vec<u64> = self.digits().iter().map(|&d| m.mul(d, c)).collect();
        GroupedLabel::from_digits(m, &digits)
    }
}

/// The vector instructions a step runs on, chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VectorKernel {
    /// Plain Rust, digit by digit: the reference.
    Portable,
    /// 256-bit vectors.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// 512-bit vectors with mask registers (AVX-512F and BW).
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl VectorKernel {
    /// The widest kernel this CPU supports.
    #[inline]
    pub(crate) fn detect() -> VectorKernel {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
            {
                return VectorKernel::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return VectorKernel::Avx2;
            }
        }
        VectorKernel::Portable
    }

    /// Every kernel this CPU supports, the portable one first.
    #[cfg(test)]
    pub(crate) fn available() -> Vec<VectorKernel> {
        let mut kernels = vec![VectorKernel::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                kernels.push(VectorKernel::Avx2);
            }
            if VectorKernel::detect() == VectorKernel::Avx512 {
                kernels.push(VectorKernel::Avx512);
            }
        }
        kernels
    }
}

/// The digit count of each group of a label mod m.
fn group_lengths(m: Modulus) -> impl Iterator<Item = usize> {
    let (j, len) = (m.group_len(), m.label_len());
    (0..m.group_count()).map(move |g| j.min(len - g * j))
}

/// What a step mod p ([`GroupedLabel::add_step`]) needs of its modulus: the carry weights
/// p^(i+1) of a digit at position i of a group, summed per carry mask, and each group's
/// length.
#[derive(Clone)]
pub(crate) struct StepShape {
    p: u32,
    /// Two-byte digits (p > 256).
    wide: bool,
    /// Each group's digit count (0 past the last group).
    lens: [usize; MAX_BLOCKS],
    /// Each group's chunks of [`LANES`] digits, rounded up.
    chunks: [usize; MAX_BLOCKS],
    /// Each group's 256-bit vectors (1 or 2), for the AVX2 step.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    vectors: [usize; MAX_BLOCKS],
    carry_weights: [u64; MAX_GROUP_LEN],
    /// For the k-th chunk of [`LANES`] digits of a group and each carry mask b (bit i: the
    /// digit at 8k + i carries), Σ_i b_i·p^(8k+i+1): a chunk's carries in one load.
    carry_sums: Box<[[u64; 1 << LANES]; MAX_GROUP_LEN / LANES]>,
}

impl StepShape {
    /// The shape of steps mod the odd prime `m`.
    pub(crate) fn new(m: Modulus) -> StepShape {
        let p = m.odd_prime_value().expect("grouped labels are mod odd primes");
        let wide = wide_digits(m);
        let mut carry_weights = [0; MAX_GROUP_LEN];
        let mut weight = p;
        for w in &mut carry_weights[..m.group_len()] {
            *w = weight;
            weight = weight.wrapping_mul(p); // p^(j+1) wraps, but is never used
        }
        let lens: [usize; MAX_BLOCKS] = std::array::from_fn(|g| group_lengths(m).nth(g).unwrap_or(0));
        debug_assert!(lens[0].div_ceil(LANES) <= MAX_GROUP_LEN / LANES && MAX_GROUP_LEN / LANES == 5);
        let digit_bytes = if wide { 2 } else { 1 };
        StepShape {
            p: p as u32,
            wide,
            lens,
            chunks: lens.map(|len| len.div_ceil(LANES)),
            vectors: lens.map(|len| (len * digit_bytes).div_ceil(32)),
            carry_weights,
            carry_sums: Box::new(std::array::from_fn(|k| {
                let weights = &carry_weights[k * LANES..(k + 1) * LANES];
                std::array::from_fn(|mask| {
                    let carrying = weights.iter().enumerate().filter(|&(i, _)| mask >> i & 1 == 1);
                    carrying.fold(0u64, |sum, (_, &w)| sum.wrapping_add(w))
                })
            })),
        }
    }

    /// Σ p^(i+1) over the digits i of group g whose bit is set in `carries`: one table
    /// load per chunk of [`LANES`] digits, written out (as a loop, LLVM turns the few loads
    /// into a slower vector gather).
    #[inline(always)]
    fn carried(&self, g: usize, carries: u64) -> u64 {
        let (sums, chunks) = (&self.carry_sums, self.chunks[g]);
        let chunk = |k: usize| sums[k][(carries >> (LANES * k)) as usize & 0xff];
        let mut sum = chunk(0);
        if chunks > 1 {
            sum = sum.wrapping_add(chunk(1));
            if chunks > 2 {
                sum = sum.wrapping_add(chunk(2));
                if chunks > 3 {
                    sum = sum.wrapping_add(chunk(3));
                    if chunks > 4 {
                        sum = sum.wrapping_add(chunk(4));
                    }
                }
            }
        }
        sum
    }
}

/// Δ_p as a grouped label, with the shape of steps mod p and, for small p, the multiples
/// c·Δ_p: what stepping a label through its colours, or moving it by a multiple of Δ_p,
/// needs.
pub(crate) struct GroupedDelta {
    pub(crate) delta: GroupedLabel,
    pub(crate) shape: StepShape,
    /// The labels whose digits are all p − 1, and all 1 ([`GroupedDelta::negate`]).
    top: GroupedLabel,
    ones: GroupedLabel,
    /// c·Δ_p for c = 0 … p − 1 when p ≤ [`MAX_CACHED_MULTIPLES`] (empty otherwise).
    multiples: Vec<GroupedLabel>,
}

/// The largest p whose multiples of Δ_p are kept (p labels of 0.25 KiB each).
const MAX_CACHED_MULTIPLES: u64 = 257;

impl GroupedDelta {
    /// Overwrites Δ_p and its cached multiples with zeros (the other fields are public
    /// constants of p).
    pub(crate) fn wipe(&mut self) {
        self.delta.wipe();
        for c_delta in &mut self.multiples {
            c_delta.wipe();
        }
    }

    /// Whether Δ_p and its multiples are all zero (after [`GroupedDelta::wipe`]).
    #[cfg(test)]
    pub(crate) fn is_wiped(&self) -> bool {
        std::iter::once(&self.delta)
            .chain(&self.multiples)
            .all(|l| l.slots.iter().all(|s| s.0 == [0; SLOT_BYTES]) && l.groups.iter().all(|&g| g == 0))
    }

    pub(crate) fn new(delta: &Label) -> GroupedDelta {
        let m = delta.modulus();
        let (delta, shape) = (GroupedLabel::from_digits(m, delta.digits()), StepShape::new(m));
        let p = m.odd_prime_value().expect("grouped labels are mod odd primes");
        let mut multiples = Vec::new();
        if p <= MAX_CACHED_MULTIPLES {
            let mut c_delta = GroupedLabel::zero(m);
            for _ in 0..p {
                multiples.push(c_delta.clone());
                c_delta.add_step(&delta, &shape);
            }
        }
        let len = m.label_len();
        GroupedDelta {
            delta,
            shape,
            top: GroupedLabel::from_digits(m, &vec![p - 1; len]),
            ones: GroupedLabel::from_digits(m, &vec![1; len]),
            multiples,
        }
    }

    /// −a, digit-wise: the complement p − 1 − a_i of every digit (no carries, so each group
    /// value is p^len − 1 − G), plus the all-ones label.
    pub(crate) fn negate(&self, a: &GroupedLabel) -> GroupedLabel {
        let mut negated = self.top.clone();
        // No digit borrows (p − 1 ≥ a_i, and padding is 0 in both), so the slots subtract
        // as whole 64-bit words, whatever the digits' width.
        for (n, a) in negated.slots.iter_mut().zip(&a.slots) {
            for (n, a) in n.0.chunks_exact_mut(8).zip(a.0.chunks_exact(8)) {
                let word = |w: &[u8]| u64::from_le_bytes(w.try_into().expect("8 bytes"));
                let difference = word(n) - word(a);
                n.copy_from_slice(&difference.to_le_bytes());
            }
        }
        for (n, &g) in negated.groups.iter_mut().zip(&a.groups) {
            *n -= g;
        }
        negated.add_step(&self.ones, &self.shape);
        negated
    }

    /// c·Δ_p (c reduced).
    pub(crate) fn multiple(&self, c: u64) -> Cow<'_, GroupedLabel> {
        match self.multiples.get(c as usize) {
            Some(label) => Cow::Borrowed(label),
            None => Cow::Owned(self.delta.scaled(c)),
        }
    }

    /// `label` + c·Δ_p (c reduced).
    pub(crate) fn add_multiple(&self, label: &mut GroupedLabel, c: u64) {
        label.add_step(&self.multiple(c), &self.shape);
    }
}

#[cfg(test)]
mod tests {
    use mixgc_core::new_rng;
    use rand::Rng as _;

    use super::*;
    use crate::primes::is_prime;
    use crate::tweak::encode;

    #[test]
    fn the_largest_shapes_are_those_of_three() {
        let three = Modulus::new(3).unwrap();
        assert_eq!(three.label_len(), MAX_ODD_LABEL_LEN);
        assert_eq!(three.group_len(), MAX_GROUP_LEN);
        assert_eq!(MAX_GROUP_LEN % LANES, 0);
        for p in (3..=crate::MAX_ODD_PRIME).step_by(2).filter(|&p| is_prime(p)) {
            let m = Modulus::new(p).unwrap();
            assert!(m.label_len() <= MAX_ODD_LABEL_LEN && m.group_len() <= MAX_GROUP_LEN);
            assert!(m.group_count() <= MAX_BLOCKS, "p = {p}");
            // A group's digits fill at most one slot, and fit the AVX2 step's two vectors.
            let digit_bytes = if wide_digits(m) { 2 } else { 1 };
            assert!(m.group_len() * digit_bytes <= SLOT_BYTES, "p = {p}");
            assert_eq!(wide_digits(m), p > 255);
        }
    }

    /// Stepping keeps the group values equal to those joined from the digits, and the
    /// digits equal to digit-wise addition, for every carry pattern a random walk meets.
    #[test]
    fn steps_keep_groups_and_digits_in_agreement() {
        let mut rng = new_rng(Some(31), 0);
        for p in [3u64, 5, 7, 11, 13, 17, 131, 251, 257, 65_521] {
            let m = Modulus::new(p).unwrap();
            let start = Label::random(m, &mut rng);
            let by = Label::random(m, &mut rng);
            // A step whose digits are all p − 1 carries at every nonzero digit.
            let all_carry = Label::new(m, vec![p - 1; m.label_len()]).unwrap();
            for by in [by, all_carry] {
                let (step, shape) = (GroupedLabel::from_digits(m, by.digits()), StepShape::new(m));
                let (mut grouped, mut plain) = (GroupedLabel::from_digits(m, start.digits()), start.clone());
                for _ in 0..2 * p.min(40) {
                    grouped.add_step(&step, &shape);
                    plain = plain.add(&by).unwrap();
                    assert_eq!(grouped.to_label(), plain, "p = {p}");
                    let mut joined = [0; MAX_BLOCKS];
                    m.join_groups(plain.digits(), &mut joined[..m.group_count()]);
                    assert_eq!(grouped.groups(), &joined[..m.group_count()], "p = {p}");
                    assert_eq!(grouped.encoded(), encode(crate::tweak::Input::Label(&plain)));
                }
            }
            let c = rng.gen_range(0..p);
            let scaled = GroupedLabel::from_digits(m, start.digits()).scaled(c);
            assert_eq!(scaled.to_label(), start.scale(c));
            let from_groups = GroupedLabel::from_groups(m, scaled.groups());
            assert_eq!(from_groups.to_label(), scaled.to_label());
        }
    }

    /// Δ's cached multiples (and, past the cache, its computed ones) are c·Δ digit-wise with
    /// their group values; `negate` is −a; `add_multiple` adds c·Δ.
    #[test]
    fn multiples_of_delta_and_negation_match_label_arithmetic() {
        let mut rng = new_rng(Some(33), 0);
        for p in [3u64, 17, 251, 257, 263, 65_521] {
            let m = Modulus::new(p).unwrap();
            let delta = Label::random_delta(m, &mut rng);
            let grouped = GroupedDelta::new(&delta);
            let a = Label::random(m, &mut rng);
            for c in [0, 1, 2, p / 2, p - 1] {
                let multiple = grouped.multiple(c);
                assert_eq!(multiple.to_label(), delta.scale(c), "p = {p}, c = {c}");
                let mut joined = [0; MAX_BLOCKS];
                m.join_groups(multiple.to_label().digits(), &mut joined[..m.group_count()]);
                assert_eq!(multiple.groups(), &joined[..m.group_count()]);
                let mut moved = GroupedLabel::from_digits(m, a.digits());
                grouped.add_multiple(&mut moved, c);
                assert_eq!(moved.to_label(), a.plus_scaled(&delta, c));
            }
            let negated = grouped.negate(&GroupedLabel::from_digits(m, a.digits()));
            assert_eq!(negated.to_label(), a.neg());
            assert_eq!(
                negated.groups(),
                GroupedLabel::from_digits(m, a.neg().digits()).groups()
            );
            let zero = GroupedLabel::from_digits(m, Label::zero(m).digits());
            assert_eq!(grouped.negate(&zero).to_label(), Label::zero(m));
        }
    }

    /// Every kernel the CPU supports (AVX-512, AVX2) steps as the portable loop does, slot
    /// bytes (padding included) and group values, on random steps and on those whose digits
    /// are all p − 1 (every nonzero digit carries: every bit of the carry masks), all 1 or
    /// all 0, from random, all-(p − 1) and all-zero labels; for the primes of a 16-bit CRT
    /// product and those at the edges of the digit widths: sums past a byte (p ≥ 131), the
    /// largest one-byte prime 251, the first two-byte one 257, two-byte digits past 2^15 and
    /// the largest prime.
    #[test]
    fn the_vector_kernels_match_the_portable_one() {
        let mut rng = new_rng(Some(32), 0);
        let kernels = VectorKernel::available();
        eprintln!("kernels tested: {kernels:?}");
        let past_2_15 = (1u64 << 15..).find(|&p| is_prime(p)).unwrap();
        let primes = [
            3u64, 5, 7, 11, 13, 17, 19, 127, 131, 241, 251, 257, 263, past_2_15, 65_521,
        ];
        for p in primes {
            let m = Modulus::new(p).unwrap();
            let shape = StepShape::new(m);
            let edges = [
                vec![p - 1; m.label_len()],
                vec![1; m.label_len()],
                vec![0; m.label_len()],
            ];
            let random = || Label::random(m, &mut new_rng(None, 0)).digits().to_vec();
            for by in std::iter::once(random()).chain(edges.clone()) {
                let step = GroupedLabel::from_digits(m, &by);
                for start in [random(), edges[0].clone(), edges[2].clone()] {
                    let start = GroupedLabel::from_digits(m, &start);
                    for &kernel in &kernels {
                        let (mut stepped, mut portable) = (start.clone(), start.clone());
                        for _ in 0..50 {
                            stepped.add_step_with(kernel, &step, &shape);
                            portable.add_step_portable(&step, &shape);
                            let bytes = |l: &GroupedLabel| l.slots.map(|s| s.0);
                            assert_eq!(bytes(&stepped), bytes(&portable), "p = {p}, {kernel:?}");
                            assert_eq!(stepped.groups(), portable.groups(), "p = {p}, {kernel:?}");
                        }
                    }
                }
            }
            // Digits written into fresh slots, on every kernel.
            for digits in std::iter::once(random()).chain(edges.clone()) {
                for &kernel in &kernels {
                    let (mut set, mut portable) = (GroupedLabel::zero(m), GroupedLabel::zero(m));
                    set.set_digits_with(kernel, &digits);
                    portable.set_digits_portable(&digits);
                    let bytes = |l: &GroupedLabel| l.slots.map(|s| s.0);
                    assert_eq!(bytes(&set), bytes(&portable), "p = {p}, {kernel:?}");
                    assert_eq!(set.digits(), digits, "p = {p}, {kernel:?}");
                }
            }
            // The portable step itself against label arithmetic.
            let (a, b) = (Label::random(m, &mut rng), Label::random(m, &mut rng));
            let mut stepped = GroupedLabel::from_digits(m, a.digits());
            stepped.add_step_portable(&GroupedLabel::from_digits(m, b.digits()), &shape);
            assert_eq!(stepped.to_label(), a.add(&b).unwrap(), "p = {p}");
        }
    }

    #[test]
    #[should_panic(expected = "odd primes")]
    fn powers_of_two_are_refused() {
        GroupedLabel::from_digits(Modulus::BOOLEAN, &[0; 128]);
    }
}
