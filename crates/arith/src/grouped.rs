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

/// Digit slots per group: the longest group mod an odd prime (j = 40 for p = 3, as
/// 3^40 ≤ 2^64 < 3^41; tested), a multiple of [`LANES`].
const SLOT: usize = 40;

/// Digits a step handles together: its loops run over whole chunks of this many.
const LANES: usize = 8;

/// A label mod an odd prime p: its digits and the values of its digit groups
/// ([`Modulus::join_groups`]), kept in step. Group g's digits sit in slots g·[`SLOT`] …,
/// as u32 (p < 2^16, so a sum of two digits fits), zero past the group's end: zero digits
/// never carry, so a step runs over whole chunks of [`LANES`] digits.
#[derive(Clone)]
pub(crate) struct GroupedLabel {
    modulus: Modulus,
    slots: [u32; MAX_BLOCKS * SLOT],
    groups: [u64; MAX_BLOCKS],
}

impl GroupedLabel {
    /// Overwrites the digits with zeros (for Δ_p and its multiples when their garbler is
    /// dropped).
    pub(crate) fn wipe(&mut self) {
        use zeroize::Zeroize;
        self.slots.zeroize();
        self.groups.zeroize();
    }

    /// The label mod the odd prime `m` with these digits (ℓ of them, reduced).
    pub(crate) fn from_digits(m: Modulus, digits: &[u64]) -> GroupedLabel {
        let mut label = GroupedLabel::zero(m);
        for (g, chunk) in digits.chunks(m.group_len()).enumerate() {
            for (slot, &d) in label.slots[g * SLOT..].iter_mut().zip(chunk) {
                *slot = d as u32;
            }
        }
        // The two full groups' Horner chains side by side.
        m.join_groups(digits, &mut label.groups[..m.group_count()]);
        label
    }

    /// The label mod the odd prime `m` whose digit groups have the values `groups`.
    pub(crate) fn from_groups(m: Modulus, groups: &[u64]) -> GroupedLabel {
        let mut digits = [0; MAX_ODD_LABEL_LEN];
        let digits = &mut digits[..m.label_len()];
        m.split_groups(groups, digits);
        let mut label = GroupedLabel::zero(m);
        for (g, chunk) in digits.chunks(m.group_len()).enumerate() {
            for (slot, &d) in label.slots[g * SLOT..].iter_mut().zip(chunk) {
                *slot = d as u32;
            }
            label.groups[g] = groups[g];
        }
        label
    }

    fn zero(m: Modulus) -> GroupedLabel {
        assert!(
            m.odd_prime_value().is_some(),
            "grouped labels are mod odd primes, not {m}"
        );
        GroupedLabel {
            modulus: m,
            slots: [0; MAX_BLOCKS * SLOT],
            groups: [0; MAX_BLOCKS],
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
        u64::from(self.slots[0])
    }

    /// The row hash's encoding of this label.
    #[inline]
    pub(crate) fn encoded(&self) -> Encoded {
        encode_groups(self.modulus, self.groups())
    }

    /// The label as a [`Label`].
    pub(crate) fn to_label(&self) -> Label {
        let m = self.modulus;
        let mut digits = Vec::with_capacity(m.label_len());
        for (g, len) in group_lengths(m).enumerate() {
            digits.extend(self.slots[g * SLOT..g * SLOT + len].iter().map(|&d| u64::from(d)));
        }
        Label::from_reduced(m, digits)
    }

    /// self ← self + `by` digit-wise (a label of the same modulus), group values updated by
    /// the carries (module documentation). On x86-64 CPUs with AVX-512F or AVX2 (detected
    /// at run time, [`VectorKernel::detect`]; the result is the same) the loop runs on
    /// 512- or 256-bit vectors.
    #[inline]
    pub(crate) fn add_step(&mut self, by: &GroupedLabel, shape: &StepShape) {
        self.add_step_with(VectorKernel::detect(), by, shape);
    }

    /// [`GroupedLabel::add_step`] on `kernel`, which the CPU must support
    /// ([`VectorKernel::detect`]).
    #[inline(always)]
    fn add_step_with(&mut self, kernel: VectorKernel, by: &GroupedLabel, shape: &StepShape) {
        debug_assert!(by.modulus == self.modulus && shape.p as u64 == self.modulus.value() as u64);
        match kernel {
            // SAFETY: the CPU supports the kernel's features (`VectorKernel::detect`).
            #[cfg(target_arch = "x86_64")]
            VectorKernel::Avx512 => unsafe { self.add_step_avx512(by, shape) },
            #[cfg(target_arch = "x86_64")]
            VectorKernel::Avx2 => unsafe { self.add_step_avx2(by, shape) },
            VectorKernel::Portable => self.add_step_portable(by, shape),
        }
    }

    /// [`GroupedLabel::add_step`] on AVX-512F: 16 digits per vector (a group's last 8, if
    /// any, as on AVX2), reduced under the carry mask (`vpcmpud`, a masked `vpsubd`), whose
    /// two bytes index [`StepShape::carry_sums`] of two consecutive 8-digit chunks.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx2")]
    fn add_step_avx512(&mut self, by: &GroupedLabel, shape: &StepShape) {
        use std::arch::x86_64::*;
        let (p, top) = (
            _mm512_set1_epi32(shape.p as i32),
            _mm512_set1_epi32(shape.p as i32 - 1),
        );
        let (p8, top8) = (
            _mm256_set1_epi32(shape.p as i32),
            _mm256_set1_epi32(shape.p as i32 - 1),
        );
        for g in 0..self.modulus.group_count() {
            let width = shape.widths[g];
            let digits = &mut self.slots[g * SLOT..g * SLOT + width];
            let b = &by.slots[g * SLOT..g * SLOT + width];
            let mut carried = 0u64;
            let mut k = 0; // the 8-digit chunk
            while (k + 2) * LANES <= width {
                let at = k * LANES;
                // SAFETY: at + 16 ≤ width, within both slices: one unaligned 512-bit access
                // each.
                let carries = unsafe {
                    let to = digits.as_mut_ptr().add(at);
                    let sum = _mm512_add_epi32(
                        _mm512_loadu_si512(to.cast_const().cast()),
                        _mm512_loadu_si512(b.as_ptr().add(at).cast()),
                    );
                    let carries = _mm512_cmpgt_epu32_mask(sum, top);
                    _mm512_storeu_si512(to.cast(), _mm512_mask_sub_epi32(sum, carries, sum, p));
                    carries as usize
                };
                carried = carried
                    .wrapping_add(shape.carry_sums[k][carries & 0xff])
                    .wrapping_add(shape.carry_sums[k + 1][carries >> 8]);
                k += 2;
            }
            if k * LANES < width {
                let at = k * LANES;
                // SAFETY: width is a multiple of 8, so at + 8 = width: one 256-bit access
                // each.
                let carries = unsafe {
                    let to = digits.as_mut_ptr().add(at);
                    let sum = _mm256_add_epi32(
                        _mm256_loadu_si256(to.cast_const().cast()),
                        _mm256_loadu_si256(b.as_ptr().add(at).cast()),
                    );
                    let carry = _mm256_cmpgt_epi32(sum, top8);
                    _mm256_storeu_si256(to.cast(), _mm256_sub_epi32(sum, _mm256_and_si256(carry, p8)));
                    _mm256_movemask_ps(_mm256_castsi256_ps(carry)) as usize
                };
                carried = carried.wrapping_add(shape.carry_sums[k][carries & 0xff]);
            }
            self.groups[g] = self.groups[g].wrapping_add(by.groups[g]).wrapping_sub(carried);
        }
    }

    /// [`GroupedLabel::add_step`] on AVX2: 8 digits per vector, whose carries come out as
    /// an 8-bit mask (the sign bits of sum − p) that indexes the shape's table of summed
    /// carry weights ([`StepShape::carry_sums`]), so no carry is widened to 64 bits.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn add_step_avx2(&mut self, by: &GroupedLabel, shape: &StepShape) {
        use std::arch::x86_64::*;
        let p = _mm256_set1_epi32(shape.p as i32);
        let slots = self.slots.chunks_exact_mut(SLOT).zip(by.slots.chunks_exact(SLOT));
        let groups = self.groups.iter_mut().zip(&by.groups).zip(&shape.widths);
        for ((digits, by), ((group, &by_group), &width)) in slots.zip(groups) {
            let chunks = digits[..width]
                .chunks_exact_mut(LANES)
                .zip(by[..width].chunks_exact(LANES))
                .zip(shape.carry_sums.iter());
            let mut carried = 0u64;
            for ((digits, by), sums) in chunks {
                // SAFETY: both chunks are LANES = 8 u32s, one unaligned 256-bit access each.
                unsafe {
                    let sum = _mm256_add_epi32(
                        _mm256_loadu_si256(digits.as_ptr().cast()),
                        _mm256_loadu_si256(by.as_ptr().cast()),
                    );
                    let t = _mm256_castsi256_ps(_mm256_sub_epi32(sum, p));
                    // Sign bit set: the sum is below p (no carry), keep it; else sum − p.
                    let below = _mm256_movemask_ps(t) as usize;
                    let reduced = _mm256_blendv_ps(t, _mm256_castsi256_ps(sum), t);
                    _mm256_storeu_si256(digits.as_mut_ptr().cast(), _mm256_castps_si256(reduced));
                    carried = carried.wrapping_add(sums[!below & 0xff]);
                }
            }
            *group = group.wrapping_add(by_group).wrapping_sub(carried);
        }
    }

    /// Out of line, so that [`GroupedLabel::add_step`]'s dispatch stays a few instructions
    /// that inline into the garbler's loops (with this loop inlined, the dispatcher saved
    /// and restored several registers around every vector step: ~4 % of a product's garbling).
    #[inline(never)]
    fn add_step_portable(&mut self, by: &GroupedLabel, shape: &StepShape) {
        let p = shape.p;
        let slots = self.slots.chunks_exact_mut(SLOT).zip(by.slots.chunks_exact(SLOT));
        let groups = self.groups.iter_mut().zip(&by.groups).zip(&shape.widths);
        for ((digits, by), ((group, &by_group), &width)) in slots.zip(groups) {
            let chunks = digits[..width]
                .chunks_exact_mut(LANES)
                .zip(by[..width].chunks_exact(LANES))
                .zip(shape.carry_weights[..width].chunks_exact(LANES));
            let mut carried = [0u64; LANES];
            for ((digits, by), weights) in chunks {
                for k in 0..LANES {
                    let t = (digits[k] + by[k]).wrapping_sub(p);
                    let below = ((t as i32) >> 31) as u32; // all ones when the sum is below p
                    digits[k] = t.wrapping_add(p & below);
                    carried[k] = carried[k].wrapping_add(weights[k] & !(below as i32 as i64 as u64));
                }
            }
            let carried = carried.iter().fold(0u64, |a, &c| a.wrapping_add(c));
            *group = group.wrapping_add(by_group).wrapping_sub(carried);
        }
    }

    /// c·self digit-wise (c reduced).
    pub(crate) fn scaled(&self, c: u64) -> GroupedLabel {
        let m = self.modulus;
        let mut label = GroupedLabel::zero(m);
        let mut digits = [0; SLOT];
        for (g, len) in group_lengths(m).enumerate() {
            let (from, to) = (&self.slots[g * SLOT..], &mut label.slots[g * SLOT..]);
            for ((d, to), &from) in digits[..len].iter_mut().zip(to).zip(from) {
                *d = m.mul(u64::from(from), c);
                *to = *d as u32;
            }
            label.groups[g] = m.join_group(&digits[..len]);
        }
        label
    }
}

/// The vector instructions a step runs on, chosen at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VectorKernel {
    /// Plain Rust, digit by digit: the reference.
    Portable,
    /// 256-bit vectors, 8 digits each.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// 512-bit vectors, 16 digits each (AVX-512F, with AVX2 for a group's last 8 digits).
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl VectorKernel {
    /// The widest kernel this CPU supports.
    #[inline]
    pub(crate) fn detect() -> VectorKernel {
        #[cfg(target_arch = "x86_64")]
        {
            let avx2 = std::arch::is_x86_feature_detected!("avx2");
            if avx2 && std::arch::is_x86_feature_detected!("avx512f") {
                return VectorKernel::Avx512;
            }
            if avx2 {
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
/// p^(i+1) of a digit at position i of a group, and the slots a group's loop covers.
#[derive(Clone)]
pub(crate) struct StepShape {
    p: u32,
    /// Each group's length rounded up to whole [`LANES`] (≤ [`SLOT`]; 0 past the last
    /// group).
    widths: [usize; MAX_BLOCKS],
    carry_weights: [u64; SLOT],
    /// For the k-th chunk of [`LANES`] digits of a group and each carry mask b (bit i: the
    /// digit at 8k + i carries), Σ_i b_i·p^(8k+i+1): the AVX2 step's carries in one load.
    #[cfg(target_arch = "x86_64")]
    carry_sums: Box<[[u64; 1 << LANES]; SLOT / LANES]>,
}

impl StepShape {
    /// The shape of steps mod the odd prime `m`.
    pub(crate) fn new(m: Modulus) -> StepShape {
        let p = m.odd_prime_value().expect("grouped labels are mod odd primes");
        let mut carry_weights = [0; SLOT];
        let mut weight = p;
        for w in &mut carry_weights[..m.group_len()] {
            *w = weight;
            weight = weight.wrapping_mul(p); // p^(j+1) wraps, but is never used
        }
        StepShape {
            p: p as u32,
            widths: std::array::from_fn(|g| group_lengths(m).nth(g).unwrap_or(0).next_multiple_of(LANES)),
            carry_weights,
            #[cfg(target_arch = "x86_64")]
            carry_sums: Box::new(std::array::from_fn(|k| {
                let weights = &carry_weights[k * LANES..(k + 1) * LANES];
                std::array::from_fn(|mask| {
                    let carrying = weights.iter().enumerate().filter(|&(i, _)| mask >> i & 1 == 1);
                    carrying.fold(0u64, |sum, (_, &w)| sum.wrapping_add(w))
                })
            })),
        }
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

/// The largest p whose multiples of Δ_p are kept (p labels of ~0.5 KiB each).
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
            .all(|l| l.slots.iter().all(|&s| s == 0) && l.groups.iter().all(|&g| g == 0))
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
        // Padding slots are 0 in both, so they stay 0.
        for (n, &d) in negated.slots.iter_mut().zip(&a.slots) {
            *n -= d;
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
        assert_eq!(three.group_len(), SLOT);
        assert_eq!(SLOT % LANES, 0);
        for p in (3..=crate::MAX_ODD_PRIME).step_by(2).filter(|&p| is_prime(p)) {
            let m = Modulus::new(p).unwrap();
            assert!(m.label_len() <= MAX_ODD_LABEL_LEN && m.group_len() <= SLOT);
            assert!(m.group_count() <= MAX_BLOCKS, "p = {p}");
        }
    }

    /// Stepping keeps the group values equal to those joined from the digits, and the
    /// digits equal to digit-wise addition, for every carry pattern a random walk meets.
    #[test]
    fn steps_keep_groups_and_digits_in_agreement() {
        let mut rng = new_rng(Some(31), 0);
        for p in [3u64, 5, 7, 11, 13, 17, 251, 257, 65_521] {
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

    /// Every kernel the CPU supports (AVX-512, AVX2) steps as the portable loop does, on
    /// random steps and on those whose digits are all p − 1 (every nonzero digit carries:
    /// every bit of the carry masks) or all 1, for primes whose groups end in a whole
    /// 16-digit vector, a half one, or both.
    #[test]
    fn the_vector_kernels_match_the_portable_one() {
        let mut rng = new_rng(Some(32), 0);
        let kernels = VectorKernel::available();
        eprintln!("kernels tested: {kernels:?}");
        for p in [3u64, 5, 7, 11, 13, 17, 19, 251, 257, 65_521] {
            let m = Modulus::new(p).unwrap();
            let shape = StepShape::new(m);
            for by in [
                Label::random(m, &mut rng).digits().to_vec(),
                vec![p - 1; m.label_len()],
                vec![1; m.label_len()],
            ] {
                let step = GroupedLabel::from_digits(m, &by);
                let start = GroupedLabel::from_digits(m, Label::random(m, &mut rng).digits());
                for &kernel in &kernels {
                    let (mut stepped, mut portable) = (start.clone(), start.clone());
                    for _ in 0..50 {
                        stepped.add_step_with(kernel, &step, &shape);
                        portable.add_step_portable(&step, &shape);
                        assert_eq!(stepped.to_label(), portable.to_label(), "p = {p}, {kernel:?}");
                        assert_eq!(stepped.groups(), portable.groups(), "p = {p}, {kernel:?}");
                    }
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "odd primes")]
    fn powers_of_two_are_refused() {
        GroupedLabel::from_digits(Modulus::BOOLEAN, &[0; 128]);
    }
}
