//! Labels mod 2^k for the Boolean ↔ arithmetic conversions (Li–Liu EUROCRYPT 2024 "Efficient
//! arithmetic in garbled circuits"; ABLE §2.3, §3.2).
//!
//! A [`RingLabel`] for x ∈ Z_{2^k} is W^x = W^0 + x·Δ_{2^k} ∈ Z_{2^k}^128 (digit-wise), for
//! 1 ≤ k ≤ [`MAX_RING_BITS`] (the CRT bit decomposition of a 64-bit value needs k ≈ 69,
//! beyond the 64-bit digits of [`crate::Label`]). Digit 0 is the colour.
//!
//! Every Δ_{2^k} of a session is the truncation mod 2^k of one master offset whose colour
//! digit is 1 and whose digit-wise low bits are the Boolean free-XOR Δ. Two consequences
//! the conversions rely on, both free:
//! - nesting: a label mod 2^m (m ≤ k) scaled by 2^(k−m) is a label mod 2^k, and a label
//!   mod 2^k truncated is a label mod 2^m;
//! - slices: bit i of every digit of a label of a value y·2^i (its low i bits are zero in
//!   the value) is the free-XOR Boolean label of bit 0 of y ([`RingLabel::slice`]).
//!
//! Entropy: the weakest nonzero multiple of Δ_{2^k} is 2^(k−1)·Δ_{2^k} = 2^(k−1)·Δ_bool,
//! which keeps Δ_bool's 127 random bits (`docs/security.md`, "Ring labels mod 2^k"), as
//! free-XOR does.

use mixgc_core::Block;

use crate::ArithError;

/// The largest k of a ring label (digits are 128-bit words).
pub const MAX_RING_BITS: u32 = 128;

pub use mixgc_moduli::table_bytes::{row_bytes, RING_DIGITS};

/// A label in Z_{2^k}^128; its digits are always below 2^k.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct RingLabel {
    bits: u32,
    digits: Box<[u128]>,
}

/// 2^bits − 1 (bits in 1..=128).
#[inline]
fn mask(bits: u32) -> u128 {
    u128::MAX >> (128 - bits)
}

/// Refuses k outside 1..=[`MAX_RING_BITS`].
pub(crate) fn check_bits(bits: u32) -> Result<(), ArithError> {
    if (1..=MAX_RING_BITS).contains(&bits) {
        Ok(())
    } else {
        Err(ArithError::RingBits(bits))
    }
}

impl RingLabel {
    /// Overwrites the digits with zeros (for the ring Δ when its garbler is dropped).
    pub(crate) fn wipe(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.digits[..]);
    }

    /// The label mod 2^`bits` with these 128 digits; refuses a wrong k, length or digit.
    /// Only the ring's own code builds labels (a caller could otherwise reinterpret a label
    /// of another modulus).
    #[cfg(test)]
    pub(crate) fn new(bits: u32, digits: Vec<u128>) -> Result<RingLabel, ArithError> {
        check_bits(bits)?;
        if digits.len() != RING_DIGITS {
            return Err(ArithError::Conversion(format!(
                "a ring label needs {RING_DIGITS} digits, got {}",
                digits.len()
            )));
        }
        if let Some(&d) = digits.iter().find(|&&d| d & !mask(bits) != 0) {
            return Err(ArithError::Conversion(format!("digit {d} is not below 2^{bits}")));
        }
        Ok(RingLabel {
            bits,
            digits: digits.into(),
        })
    }

    /// Digits already masked to `bits` (checked by the caller).
    pub(crate) fn from_masked(bits: u32, digits: Vec<u128>) -> RingLabel {
        debug_assert!(digits.len() == RING_DIGITS && digits.iter().all(|&d| d & !mask(bits) == 0));
        RingLabel {
            bits,
            digits: digits.into(),
        }
    }

    /// Reduces arbitrary words mod 2^`bits`.
    pub(crate) fn from_words(bits: u32, words: impl Iterator<Item = u128>) -> RingLabel {
        RingLabel::from_masked(bits, words.map(|w| w & mask(bits)).collect())
    }

    /// The zero vector mod 2^`bits` (`bits` already checked).
    pub fn zero(bits: u32) -> RingLabel {
        RingLabel::from_masked(bits, vec![0; RING_DIGITS])
    }

    /// The ring label mod 2 whose digit i is bit i of `block` (a free-XOR label).
    pub(crate) fn from_block(block: Block) -> RingLabel {
        let v = block.to_u128();
        RingLabel::from_words(1, (0..RING_DIGITS).map(|i| v >> i))
    }

    /// k of the modulus 2^k.
    pub fn bits(&self) -> u32 {
        self.bits
    }

    pub fn digits(&self) -> &[u128] {
        &self.digits
    }

    /// The colour digit: colour(W^x) = colour(W^0) + x mod 2^k.
    pub fn colour(&self) -> u128 {
        self.digits[0]
    }

    /// self + c·other mod 2^k (the same k on both sides).
    pub fn add_scaled(&self, other: &RingLabel, c: u128) -> Result<RingLabel, ArithError> {
        if other.bits != self.bits {
            return Err(ArithError::Conversion(format!(
                "ring labels mod 2^{} and 2^{} cannot be combined",
                self.bits, other.bits
            )));
        }
        let pairs = self.digits.iter().zip(other.digits.iter());
        Ok(RingLabel::from_words(
            self.bits,
            pairs.map(|(&a, &b)| a.wrapping_add(b.wrapping_mul(c))),
        ))
    }

    /// c·self mod 2^k.
    pub fn scale(&self, c: u128) -> RingLabel {
        RingLabel::from_words(self.bits, self.digits.iter().map(|&d| d.wrapping_mul(c)))
    }

    /// The label mod 2^`bits` (bits ≤ k): the same value reduced mod 2^`bits`.
    pub fn truncate(&self, bits: u32) -> Result<RingLabel, ArithError> {
        check_bits(bits)?;
        if bits > self.bits {
            return Err(ArithError::Conversion(format!(
                "cannot widen a label mod 2^{} to 2^{bits}",
                self.bits
            )));
        }
        Ok(RingLabel::from_words(bits, self.digits.iter().copied()))
    }

    /// self ← self + c·other mod 2^k, in place, for `other` mod 2^m with m ≥ k (taken mod
    /// 2^k: a Δ_{2^k} is the master offset truncated).
    pub(crate) fn add_truncated_assign(&mut self, other: &RingLabel, c: u128) {
        debug_assert!(other.bits >= self.bits);
        let mask = mask(self.bits);
        for (a, &b) in self.digits.iter_mut().zip(other.digits.iter()) {
            *a = a.wrapping_add(b.wrapping_mul(c)) & mask;
        }
    }

    /// self ← high(z + c·offset) − self mod 2^(k − 1), in place, for self mod 2^(k − 1), z
    /// mod 2^k and `offset` mod 2^m with m ≥ k; high() keeps the upper k − 1 bits of every
    /// digit (the row of a lift, [`crate::side`]).
    pub(crate) fn subtract_from_high(&mut self, z: &RingLabel, offset: &RingLabel, c: u128) {
        debug_assert!(z.bits == self.bits + 1 && offset.bits >= z.bits);
        let (z_mask, mask) = (mask(z.bits), mask(self.bits));
        let sources = z.digits.iter().zip(offset.digits.iter());
        for (a, (&z, &o)) in self.digits.iter_mut().zip(sources) {
            let high = (z.wrapping_add(o.wrapping_mul(c)) & z_mask) >> 1;
            *a = high.wrapping_sub(*a) & mask;
        }
    }

    /// self ← self + the ring row `bytes` (same k), in place.
    pub(crate) fn add_row_assign(&mut self, bytes: &[u8]) {
        let mask = mask(self.bits);
        for (a, b) in self.digits.iter_mut().zip(row_digits(self.bits, bytes)) {
            *a = a.wrapping_add(b) & mask;
        }
    }

    /// self ← self + 2^shift·c·other mod 2^k, in place, for `other` a label of y mod
    /// 2^(k − shift): 2^shift·y is a value mod 2^k whose label is `other`'s digits shifted
    /// left (exact, by the nesting of the Δs), and (d·c mod 2^(k − shift))·2^shift =
    /// d·c·2^shift mod 2^k.
    pub fn add_shifted_assign(&mut self, other: &RingLabel, c: u128, shift: u32) {
        debug_assert_eq!(other.bits + shift, self.bits);
        let mask = mask(self.bits);
        for (a, &b) in self.digits.iter_mut().zip(other.digits.iter()) {
            *a = a.wrapping_add(b.wrapping_mul(c) << shift) & mask;
        }
    }

    /// Bit i of every digit, as a Boolean label (digit d → bit d of the block).
    pub fn slice(&self, i: u32) -> Block {
        debug_assert!(i < self.bits);
        // Two 64-digit halves gathered in 64-bit words (cheaper than 128-bit shifts).
        let half = |digits: &[u128]| {
            digits
                .iter()
                .enumerate()
                .fold(0u64, |acc, (d, &x)| acc | (((x >> i) as u64) & 1) << d)
        };
        let (low, high) = self.digits.split_at(RING_DIGITS / 2);
        Block::from_u128(half(low) as u128 | (half(high) as u128) << 64)
    }

    /// The label mod 2^(m+1) whose low digit bits are `low` and whose upper bits are the
    /// digits of `high` (mod 2^m): digit = low + 2·high.
    pub(crate) fn with_low_slice(low: Block, high: &RingLabel) -> RingLabel {
        let low = low.to_u128();
        let halves = [low as u64, (low >> 64) as u64];
        let digits = high.digits.iter().enumerate();
        let bit = |d: usize| ((halves[d / 64] >> (d % 64)) & 1) as u128;
        RingLabel::from_masked(high.bits + 1, digits.map(|(d, &h)| (h << 1) | bit(d)).collect())
    }

    /// Appends the digits packed in exactly 16·k bytes (k bits each, least significant
    /// first): every byte string of that length is a valid row. Bits are gathered in a
    /// 128-bit accumulator and flushed 64 at a time (16·k bytes are a whole number of words).
    pub(crate) fn write_row(&self, out: &mut Vec<u8>) {
        out.reserve(row_bytes(self.bits));
        let (mut acc, mut acc_bits) = (0u128, 0u32);
        for &d in self.digits.iter() {
            // Parts of at most 64 bits onto fewer than 64 pending ones: no overflow.
            for (part, width) in split_digit(d, self.bits) {
                acc |= part << acc_bits;
                acc_bits += width;
                if acc_bits >= 64 {
                    out.extend_from_slice(&(acc as u64).to_le_bytes());
                    (acc, acc_bits) = (acc >> 64, acc_bits - 64);
                }
            }
        }
        debug_assert_eq!(acc_bits, 0);
    }

    /// Reads a row written by [`RingLabel::write_row`] (`bytes.len()` = 16·`bits`).
    pub(crate) fn read_row(bits: u32, bytes: &[u8]) -> RingLabel {
        RingLabel::from_masked(bits, row_digits(bits, bytes).collect())
    }
}

/// The 128 digits mod 2^`bits` packed in `bytes` as a garbled-table row (16·`bits` bytes,
/// [`row_bytes`]), for inspecting tables; refuses a wrong k or length. Digits, not a label:
/// only the ring's own code builds labels.
pub fn ring_row_digits(bits: u32, bytes: &[u8]) -> Result<Vec<u128>, ArithError> {
    check_bits(bits)?;
    if bytes.len() != row_bytes(bits) {
        return Err(ArithError::Conversion(format!(
            "a row mod 2^{bits} has {} bytes, got {}",
            row_bytes(bits),
            bytes.len()
        )));
    }
    Ok(row_digits(bits, bytes).collect())
}

/// The 128 digits of a ring row mod 2^`bits` (`bytes.len()` = 16·`bits`), read 64 bits at a
/// time.
fn row_digits(bits: u32, bytes: &[u8]) -> impl Iterator<Item = u128> + '_ {
    debug_assert_eq!(bytes.len(), row_bytes(bits));
    let mut words = bytes
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().expect("8-byte chunk")));
    let (mut acc, mut acc_bits) = (0u128, 0u32);
    // The next `width` ≤ 64 bits.
    let mut take = move |width: u32| {
        if acc_bits < width {
            acc |= (words.next().unwrap_or(0) as u128) << acc_bits;
            acc_bits += 64;
        }
        let v = acc & mask(width);
        (acc, acc_bits) = (acc >> width, acc_bits - width);
        v
    };
    (0..RING_DIGITS).map(move |_| {
        split_digit(0, bits)
            .enumerate()
            .fold(0u128, |d, (half, (_, width))| {
                d | take(width) << (64 * half as u32)
            })
    })
}

/// A digit of `bits` bits as (low ≤ 64 bits, high rest) parts with their widths; the high
/// part only when bits > 64.
fn split_digit(d: u128, bits: u32) -> impl Iterator<Item = (u128, u32)> {
    let low = bits.min(64);
    [(d & mask(low), low), (d >> 64, bits.saturating_sub(64))]
        .into_iter()
        .filter(|&(_, w)| w > 0)
}

#[cfg(test)]
mod tests {
    use mixgc_core::new_rng;
    use rand::Rng as _;

    use super::*;

    fn random(bits: u32, rng: &mut impl rand::RngCore) -> RingLabel {
        RingLabel::from_words(bits, (0..RING_DIGITS).map(|_| rng.gen::<u128>()))
    }

    #[test]
    fn rows_round_trip_at_every_width() {
        let mut rng = new_rng(Some(1), 0);
        for bits in 1..=MAX_RING_BITS {
            let label = random(bits, &mut rng);
            let mut row = Vec::new();
            label.write_row(&mut row);
            assert_eq!(row.len(), row_bytes(bits));
            assert_eq!(RingLabel::read_row(bits, &row), label, "k = {bits}");
        }
    }

    #[test]
    fn slices_split_and_join() {
        let mut rng = new_rng(Some(2), 0);
        let block = Block::random(&mut rng);
        assert_eq!(RingLabel::from_block(block).slice(0), block);
        let label = random(9, &mut rng);
        let mut high = RingLabel::zero(8);
        high.subtract_from_high(&label, &RingLabel::zero(9), 0);
        let rebuilt = RingLabel::with_low_slice(label.slice(0), &high);
        assert_eq!(rebuilt, label);
        assert_eq!(label.truncate(1).unwrap(), RingLabel::from_block(label.slice(0)));
        let mut shifted = RingLabel::zero(9);
        shifted.add_shifted_assign(&label.truncate(3).unwrap(), 1, 6);
        assert_eq!(shifted.slice(6), label.slice(0));
    }

    #[test]
    fn constructor_and_operations_check_their_arguments() {
        assert_eq!(RingLabel::new(0, vec![0; 128]), Err(ArithError::RingBits(0)));
        assert_eq!(RingLabel::new(129, vec![0; 128]), Err(ArithError::RingBits(129)));
        assert!(RingLabel::new(4, vec![0; 127]).is_err());
        assert!(RingLabel::new(4, vec![16; 128]).is_err());
        assert!(RingLabel::new(128, vec![u128::MAX; 128]).is_ok());
        let (a, b) = (RingLabel::zero(4), RingLabel::zero(5));
        assert!(a.add_scaled(&b, 1).is_err());
        assert!(a.truncate(5).is_err());
        assert!(a.truncate(0).is_err());
    }
}
