//! Wire labels over Z_m (BMR16 "Garbling gadgets" §3; ABLE §2.2).
//!
//! A label for x ∈ Z_m is a vector W^x = W^0 + x·Δ_m ∈ Z_m^ℓ (digit-wise arithmetic), with
//! ℓ = [`Modulus::label_len`]. Digit 0 is the colour: Δ_m's colour digit is 1, so the colour
//! of W^x is colour(W^0) + x, a uniformly shifted copy of x that reveals nothing about it
//! (point-and-permute). Mod-2 labels are the free-XOR labels: 128 bits, digit i is bit i of
//! the [`Block`], colour = lsb.
//!
//! Addition, subtraction, negation and multiplication by a public constant are free and
//! identical for garbler and evaluator: they act on W^0 and on W^x the same way.

use mixgc_core::Block;
use rand::{Rng as _, RngCore};

use crate::{ArithError, Modulus};

/// A wire label in Z_m^ℓ. Its length always matches its modulus and every digit is in
/// Z_m: the constructors check both.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Label {
    modulus: Modulus,
    digits: Box<[u64]>,
}

impl Label {
    /// Overwrites the digits with zeros (for a Δ when its garbler is dropped); the result
    /// is the zero label of the same modulus.
    pub(crate) fn wipe(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.digits[..]);
    }

    /// The label with these digits; refuses a wrong length or a digit outside Z_m.
    pub fn new(modulus: Modulus, digits: Vec<u64>) -> Result<Label, ArithError> {
        let expected = modulus.label_len();
        if digits.len() != expected {
            return Err(ArithError::LabelLength {
                modulus,
                expected,
                got: digits.len(),
            });
        }
        if let Some(&d) = digits.iter().find(|&&d| d as u128 >= modulus.value()) {
            return Err(ArithError::OutOfRange {
                what: "digit",
                value: d as u128,
                modulus,
            });
        }
        Ok(Label {
            modulus,
            digits: digits.into(),
        })
    }

    /// Builds a label from digits already reduced into Z_m, of the right length.
    pub(crate) fn from_reduced(modulus: Modulus, digits: Vec<u64>) -> Label {
        debug_assert_eq!(digits.len(), modulus.label_len());
        debug_assert!(digits.iter().all(|&d| (d as u128) < modulus.value()));
        Label {
            modulus,
            digits: digits.into(),
        }
    }

    /// The all-zero label (the zero of Z_m^ℓ; not a wire label anyone should use as W^0).
    pub fn zero(modulus: Modulus) -> Label {
        Label::from_reduced(modulus, vec![0; modulus.label_len()])
    }

    /// A uniformly random label (a fresh W^0). Odd-prime digits are drawn without bias
    /// (rejection sampling in `gen_range`); power-of-two digits are masked random words.
    pub fn random<R: RngCore + ?Sized>(modulus: Modulus, rng: &mut R) -> Label {
        let digits = (0..modulus.label_len())
            .map(|_| match modulus.value_u64() {
                Some(m) if m.is_power_of_two() => rng.next_u64() & (m - 1),
                Some(m) => rng.gen_range(0..m),
                None => rng.next_u64(),
            })
            .collect();
        Label::from_reduced(modulus, digits)
    }

    /// A global offset Δ_m: uniform digits with the colour digit fixed to 1.
    pub fn random_delta<R: RngCore + ?Sized>(modulus: Modulus, rng: &mut R) -> Label {
        let mut delta = Label::random(modulus, rng);
        delta.digits[0] = 1;
        delta
    }

    /// The mod-2 label whose digit i is bit i of `block` (a free-XOR label).
    pub fn from_block(block: Block) -> Label {
        let (bits, mut label) = (block.to_u128(), Label::zero(Modulus::BOOLEAN));
        for (half, digits) in label.digits.chunks_mut(64).enumerate() {
            Modulus::BOOLEAN.split_group((bits >> (64 * half)) as u64, digits);
        }
        label
    }

    /// The free-XOR block of a mod-2 label.
    pub fn to_block(&self) -> Result<Block, ArithError> {
        if !self.modulus.is_boolean() {
            return Err(ArithError::ModulusMismatch(self.modulus, Modulus::BOOLEAN));
        }
        let half = |h: usize| Modulus::BOOLEAN.join_group(&self.digits[64 * h..64 * (h + 1)]) as u128;
        Ok(Block::from_u128(half(0) | half(1) << 64))
    }

    pub fn modulus(&self) -> Modulus {
        self.modulus
    }

    pub fn digits(&self) -> &[u64] {
        &self.digits
    }

    /// The colour digit (digit 0): colour(W^x) = colour(W^0) + x.
    pub fn colour(&self) -> u64 {
        self.digits[0]
    }

    /// self + other.
    pub fn add(&self, other: &Label) -> Result<Label, ArithError> {
        self.add_scaled(other, 1)
    }

    /// self − other.
    pub fn sub(&self, other: &Label) -> Result<Label, ArithError> {
        self.add_scaled(other, self.modulus.neg(1))
    }

    /// −self.
    pub fn neg(&self) -> Label {
        self.scale(self.modulus.neg(1))
    }

    /// c·self for a public constant c (reduced into Z_m).
    pub fn scale(&self, c: u64) -> Label {
        let m = self.modulus;
        let mut scaled = Label::zero(m);
        m.add_scaled_digits(&mut scaled.digits, &self.digits, m.reduce(c as u128));
        scaled
    }

    /// self + c·other (c reduced into Z_m): the one linear operation every gadget uses.
    pub fn add_scaled(&self, other: &Label, c: u64) -> Result<Label, ArithError> {
        if other.modulus != self.modulus {
            return Err(ArithError::ModulusMismatch(self.modulus, other.modulus));
        }
        Ok(self.plus_scaled(other, c))
    }

    /// [`Label::add_scaled`] for operands the caller knows share a modulus (a gadget's own
    /// labels and Δs); a mismatch is a bug in this crate, so it panics.
    pub(crate) fn plus_scaled(&self, other: &Label, c: u64) -> Label {
        let m = self.modulus;
        assert_eq!(other.modulus, m, "gadget combined labels of different moduli");
        Label {
            modulus: m,
            digits: m
                .scaled_sum(&self.digits, &other.digits, m.reduce(c as u128))
                .into(),
        }
    }

    /// self ← self + c·other, in place (same contract as [`Label::plus_scaled`]).
    #[inline]
    pub(crate) fn add_scaled_assign(&mut self, other: &Label, c: u64) {
        let m = self.modulus;
        assert_eq!(other.modulus, m, "gadget combined labels of different moduli");
        m.add_scaled_digits(&mut self.digits, &other.digits, m.reduce(c as u128));
    }

    /// The digits, to be overwritten in place with digits reduced into Z_m.
    pub(crate) fn digits_mut(&mut self) -> &mut [u64] {
        &mut self.digits
    }
}

#[cfg(test)]
mod tests {
    use mixgc_core::new_rng;

    use super::*;

    fn moduli() -> Vec<Modulus> {
        [2u64, 3, 5, 7, 251, 65_521, 4, 1 << 16]
            .into_iter()
            .map(|m| Modulus::new(m).unwrap())
            .chain([Modulus::power_of_two(64).unwrap()])
            .collect()
    }

    #[test]
    fn constructor_checks_length_and_digits() {
        let p = Modulus::new(5).unwrap();
        assert!(Label::new(p, vec![4; 57]).is_ok());
        assert_eq!(
            Label::new(p, vec![0; 56]),
            Err(ArithError::LabelLength {
                modulus: p,
                expected: 57,
                got: 56
            })
        );
        // A mod-5 label cut to one 128-bit block's worth of 3-bit digits is refused.
        assert!(Label::new(p, vec![0; 42]).is_err());
        let mut digits = vec![0; 57];
        digits[9] = 5;
        assert!(matches!(
            Label::new(p, digits),
            Err(ArithError::OutOfRange { value: 5, .. })
        ));
    }

    #[test]
    fn deltas_have_colour_one_and_labels_stay_in_range() {
        let mut rng = new_rng(Some(1), 0);
        for m in moduli() {
            let delta = Label::random_delta(m, &mut rng);
            assert_eq!(delta.colour(), 1);
            assert_eq!(delta.digits().len(), m.label_len());
            let w = Label::random(m, &mut rng);
            assert!(Label::new(m, w.digits().to_vec()).is_ok());
        }
    }

    #[test]
    fn free_operations_follow_the_values() {
        let mut rng = new_rng(Some(2), 0);
        for m in moduli() {
            let delta = Label::random_delta(m, &mut rng);
            let (a0, b0) = (Label::random(m, &mut rng), Label::random(m, &mut rng));
            let (x, y, c) = (rng.next_u64(), rng.next_u64(), rng.next_u64());
            let (x, y) = (m.reduce(x as u128), m.reduce(y as u128));
            let label = |zero: &Label, v: u64| zero.add_scaled(&delta, v).unwrap();
            let (a, b) = (label(&a0, x), label(&b0, y));
            let sum0 = a0.add(&b0).unwrap();
            assert_eq!(a.add(&b).unwrap(), label(&sum0, m.add(x, y)));
            assert_eq!(a.sub(&b).unwrap(), label(&a0.sub(&b0).unwrap(), m.sub(x, y)));
            assert_eq!(a.neg(), label(&a0.neg(), m.neg(x)));
            assert_eq!(a.scale(c), label(&a0.scale(c), m.mul(x, m.reduce(c as u128))));
            assert_eq!(a.colour(), m.add(a0.colour(), x));
        }
    }

    #[test]
    fn mixed_moduli_are_refused() {
        let (p, q) = (Modulus::new(3).unwrap(), Modulus::new(5).unwrap());
        assert_eq!(
            Label::zero(p).add(&Label::zero(q)),
            Err(ArithError::ModulusMismatch(p, q))
        );
        assert!(Label::zero(p).to_block().is_err());
    }

    #[test]
    fn boolean_labels_are_blocks() {
        let mut rng = new_rng(Some(3), 0);
        let (a, b) = (Block::random(&mut rng), Block::random(&mut rng));
        let (la, lb) = (Label::from_block(a), Label::from_block(b));
        assert_eq!(la.to_block().unwrap(), a);
        assert_eq!(la.add(&lb).unwrap().to_block().unwrap(), a ^ b);
        assert_eq!(la.colour() == 1, a.lsb());
    }
}
