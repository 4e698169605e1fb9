use std::fmt;
use std::ops::{BitAnd, BitXor, BitXorAssign};

use rand::RngCore;

/// A 128-bit value: a wire label, a ciphertext, a hash tweak or a key.
///
/// Stored as 16 bytes aligned to 16 so a slice of blocks can be handed to AES-NI
/// without copying. The byte order is fixed (byte 0 first on the wire), so every
/// platform computes the same labels and transcripts.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(C, align(16))]
pub struct Block(pub [u8; 16]);

impl Block {
    pub const ZERO: Block = Block([0; 16]);
    pub const BYTES: usize = 16;

    /// The block whose little-endian integer value is `v` (used for tweaks and indices).
    #[inline(always)]
    pub const fn from_u128(v: u128) -> Block {
        Block(v.to_le_bytes())
    }

    #[inline(always)]
    pub const fn to_u128(self) -> u128 {
        u128::from_le_bytes(self.0)
    }

    /// The point-and-permute colour bit (bit 0 of byte 0).
    #[inline(always)]
    pub fn lsb(self) -> bool {
        self.0[0] & 1 == 1
    }

    /// This block with its colour bit forced to 1 (used for the free-XOR offset Δ).
    #[inline(always)]
    pub fn with_lsb_set(mut self) -> Block {
        self.0[0] |= 1;
        self
    }

    /// `self` if `bit`, else zero; branch-free (the bit is secret on the garbler's side).
    #[inline(always)]
    pub fn and_bit(self, bit: bool) -> Block {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{__m128i, _mm_and_si128, _mm_set1_epi64x};
            // SAFETY: SSE2 is part of the x86_64 baseline; Block is 16 bytes, 16-aligned.
            unsafe {
                let mask = _mm_set1_epi64x(-(bit as i64));
                let v: __m128i = std::mem::transmute(self);
                std::mem::transmute(_mm_and_si128(v, mask))
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let mask = (bit as u128).wrapping_neg();
            Block::from_ne(self.ne() & mask)
        }
    }

    pub fn random<R: RngCore + ?Sized>(rng: &mut R) -> Block {
        let mut b = [0u8; 16];
        rng.fill_bytes(&mut b);
        Block(b)
    }

    #[inline(always)]
    fn ne(self) -> u128 {
        u128::from_ne_bytes(self.0)
    }

    #[inline(always)]
    fn from_ne(v: u128) -> Block {
        Block(v.to_ne_bytes())
    }

    /// Views a slice of blocks as bytes (for sending).
    pub fn slice_as_bytes(blocks: &[Block]) -> &[u8] {
        // SAFETY: Block is repr(C) over [u8; 16] with no padding; u8 has alignment 1.
        unsafe { std::slice::from_raw_parts(blocks.as_ptr().cast::<u8>(), blocks.len() * 16) }
    }

    /// Views a mutable slice of blocks as bytes (for receiving in place).
    pub fn slice_as_bytes_mut(blocks: &mut [Block]) -> &mut [u8] {
        // SAFETY: as above; every byte pattern is a valid Block.
        unsafe { std::slice::from_raw_parts_mut(blocks.as_mut_ptr().cast::<u8>(), blocks.len() * 16) }
    }
}

impl BitXor for Block {
    type Output = Block;
    #[inline(always)]
    fn bitxor(self, rhs: Block) -> Block {
        Block::from_ne(self.ne() ^ rhs.ne())
    }
}

impl BitXorAssign for Block {
    #[inline(always)]
    fn bitxor_assign(&mut self, rhs: Block) {
        *self = *self ^ rhs;
    }
}

impl BitAnd for Block {
    type Output = Block;
    #[inline(always)]
    fn bitand(self, rhs: Block) -> Block {
        Block::from_ne(self.ne() & rhs.ne())
    }
}

impl fmt::Debug for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xor_and_lsb() {
        let a = Block::from_u128(0b1011);
        let b = Block::from_u128(0b0110);
        assert_eq!((a ^ b).to_u128(), 0b1101);
        assert!(a.lsb());
        assert!(!b.lsb());
        assert!(b.with_lsb_set().lsb());
        assert_eq!(a.and_bit(false), Block::ZERO);
        assert_eq!(a.and_bit(true), a);
    }

    #[test]
    fn byte_views_round_trip() {
        let mut v = vec![Block::from_u128(1), Block::from_u128(u128::MAX)];
        assert_eq!(Block::slice_as_bytes(&v)[0], 1);
        Block::slice_as_bytes_mut(&mut v)[16] = 7;
        assert_eq!(v[1].0[0], 7);
    }
}
