use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{BitAnd, BitXor, BitXorAssign};

use rand::RngCore;

/// A 128-bit value: a wire label, a ciphertext, a hash tweak or a key.
///
/// On x86_64 it is an SSE register value (`__m128i`), so labels stay in vector registers
/// through the garbling loops instead of being split across pairs of 64-bit registers;
/// elsewhere it is 16 bytes aligned to 16. Either way its byte order is fixed (byte 0
/// first on the wire), so every platform computes the same labels and transcripts, and a
/// slice of blocks can be handed to AES-NI or the network without copying.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Block(imp::Inner);

#[cfg(target_arch = "x86_64")]
mod imp {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cvtsi128_si32, _mm_set1_epi64x, _mm_shuffle_epi32, _mm_slli_epi32,
        _mm_srai_epi32, _mm_xor_si128,
    };

    pub type Inner = __m128i;

    // SAFETY (all functions): SSE2 is part of the x86_64 baseline, and __m128i and
    // [u8; 16] have the same size with every bit pattern valid for both.
    #[inline(always)]
    pub fn to_bytes(x: Inner) -> [u8; 16] {
        unsafe { std::mem::transmute::<__m128i, [u8; 16]>(x) }
    }
    #[inline(always)]
    pub fn xor(a: Inner, b: Inner) -> Inner {
        unsafe { _mm_xor_si128(a, b) }
    }
    #[inline(always)]
    pub fn and(a: Inner, b: Inner) -> Inner {
        unsafe { _mm_and_si128(a, b) }
    }
    #[inline(always)]
    pub fn mask(bit: bool) -> Inner {
        unsafe { _mm_set1_epi64x(-(bit as i64)) }
    }
    #[inline(always)]
    pub fn lsb(x: Inner) -> bool {
        unsafe { _mm_cvtsi128_si32(x) & 1 == 1 }
    }
    /// Bit 0 of the low 32-bit lane broadcast to every lane, then moved to the top and
    /// shifted arithmetically back: all ones or all zeros, without leaving the vector unit.
    #[inline(always)]
    pub fn lsb_mask(x: Inner) -> Inner {
        unsafe { _mm_srai_epi32::<31>(_mm_slli_epi32::<31>(_mm_shuffle_epi32::<0>(x))) }
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    #[derive(Clone, Copy)]
    #[repr(C, align(16))]
    pub struct Inner([u8; 16]);

    #[inline(always)]
    pub fn to_bytes(x: Inner) -> [u8; 16] {
        x.0
    }
    #[inline(always)]
    pub fn xor(a: Inner, b: Inner) -> Inner {
        Inner((u128::from_ne_bytes(a.0) ^ u128::from_ne_bytes(b.0)).to_ne_bytes())
    }
    #[inline(always)]
    pub fn and(a: Inner, b: Inner) -> Inner {
        Inner((u128::from_ne_bytes(a.0) & u128::from_ne_bytes(b.0)).to_ne_bytes())
    }
    #[inline(always)]
    pub fn mask(bit: bool) -> Inner {
        Inner([0u8.wrapping_sub(bit as u8); 16])
    }
    #[inline(always)]
    pub fn lsb(x: Inner) -> bool {
        x.0[0] & 1 == 1
    }
    #[inline(always)]
    pub fn lsb_mask(x: Inner) -> Inner {
        mask(lsb(x))
    }
}

impl Block {
    pub const BYTES: usize = 16;
    pub const ZERO: Block = Block::from_bytes([0; 16]);

    #[inline(always)]
    pub const fn from_bytes(b: [u8; 16]) -> Block {
        // SAFETY: Inner is 16 bytes with every bit pattern valid (see `imp`); a const
        // transmute keeps this usable in constants.
        Block(unsafe { std::mem::transmute::<[u8; 16], imp::Inner>(b) })
    }

    #[inline(always)]
    pub fn to_bytes(self) -> [u8; 16] {
        imp::to_bytes(self.0)
    }

    /// The bytes of this block, in place (for zeroizing or hashing).
    pub fn as_bytes_mut(&mut self) -> &mut [u8; 16] {
        // SAFETY: Block is repr(transparent) over a 16-byte type with every bit pattern valid.
        unsafe { &mut *(self as *mut Block).cast::<[u8; 16]>() }
    }

    /// The block whose little-endian integer value is `v` (used for tweaks and indices).
    #[inline(always)]
    pub const fn from_u128(v: u128) -> Block {
        Block::from_bytes(v.to_le_bytes())
    }

    #[inline(always)]
    pub fn to_u128(self) -> u128 {
        u128::from_le_bytes(self.to_bytes())
    }

    /// The point-and-permute colour bit (bit 0 of byte 0).
    #[inline(always)]
    pub fn lsb(self) -> bool {
        imp::lsb(self.0)
    }

    /// This block with its colour bit forced to 1 (used for the free-XOR offset Δ).
    pub fn with_lsb_set(self) -> Block {
        let mut b = self.to_bytes();
        b[0] |= 1;
        Block::from_bytes(b)
    }

    /// Pairs of blocks as one slice of blocks: (x₀, y₀), (x₁, y₁), … as x₀, y₀, x₁, y₁, ….
    #[inline(always)]
    pub fn flatten_pairs(pairs: &[(Block, Block)]) -> &[Block] {
        // A tuple's layout is not fixed by the language: these assertions make the cast
        // below fail to compile rather than misread if it ever differs.
        const _: () = assert!(
            std::mem::size_of::<(Block, Block)>() == 2 * Block::BYTES
                && std::mem::offset_of!((Block, Block), 0) == 0
                && std::mem::offset_of!((Block, Block), 1) == Block::BYTES
        );
        // SAFETY: each pair is two blocks, first then second, with no padding (asserted
        // above), so `pairs` is `2 * len` blocks with the pair's alignment, that of `Block`.
        unsafe { std::slice::from_raw_parts(pairs.as_ptr().cast::<Block>(), 2 * pairs.len()) }
    }

    /// All ones if [`Block::lsb`], else zero: `x & c.lsb_mask()` is `x.and_bit(c.lsb())`
    /// computed in the vector unit (no round trip through a general register); branch-free.
    #[inline(always)]
    pub fn lsb_mask(self) -> Block {
        Block(imp::lsb_mask(self.0))
    }

    /// `self` if `bit`, else zero; branch-free (the bit is secret on the garbler's side).
    #[inline(always)]
    pub fn and_bit(self, bit: bool) -> Block {
        Block(imp::and(self.0, imp::mask(bit)))
    }

    pub fn random<R: RngCore + ?Sized>(rng: &mut R) -> Block {
        let mut b = [0u8; 16];
        rng.fill_bytes(&mut b);
        Block::from_bytes(b)
    }

    /// Views a slice of blocks as bytes (for sending).
    pub fn slice_as_bytes(blocks: &[Block]) -> &[u8] {
        // SAFETY: Block is 16 bytes with no padding; u8 has alignment 1.
        unsafe { std::slice::from_raw_parts(blocks.as_ptr().cast::<u8>(), blocks.len() * 16) }
    }

    /// Views a mutable slice of blocks as bytes (for receiving in place).
    pub fn slice_as_bytes_mut(blocks: &mut [Block]) -> &mut [u8] {
        // SAFETY: as above; every byte pattern is a valid Block.
        unsafe { std::slice::from_raw_parts_mut(blocks.as_mut_ptr().cast::<u8>(), blocks.len() * 16) }
    }
}

#[cfg(target_arch = "x86_64")]
impl Block {
    #[inline(always)]
    pub(crate) fn into_m128(self) -> std::arch::x86_64::__m128i {
        self.0
    }

    #[inline(always)]
    pub(crate) fn from_m128(v: std::arch::x86_64::__m128i) -> Block {
        Block(v)
    }
}

/// Secrets held in blocks (Δ, seeds) are wiped with `zeroize`, which the optimiser keeps.
impl zeroize::DefaultIsZeroes for Block {}

impl Default for Block {
    fn default() -> Block {
        Block::ZERO
    }
}

impl PartialEq for Block {
    fn eq(&self, other: &Block) -> bool {
        self.to_bytes() == other.to_bytes()
    }
}

impl Eq for Block {}

impl Hash for Block {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.to_bytes().hash(state);
    }
}

impl From<[u8; 16]> for Block {
    fn from(b: [u8; 16]) -> Block {
        Block::from_bytes(b)
    }
}

impl BitXor for Block {
    type Output = Block;
    #[inline(always)]
    fn bitxor(self, rhs: Block) -> Block {
        Block(imp::xor(self.0, rhs.0))
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
        Block(imp::and(self.0, rhs.0))
    }
}

impl fmt::Debug for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.to_bytes() {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lsb_mask_is_and_bit_of_lsb() {
        use rand::{rngs::StdRng, SeedableRng};
        let mut rng = StdRng::seed_from_u64(16);
        let edges = [
            0u128,
            1,
            2,
            u128::MAX,
            u128::MAX - 1,
            1 << 127,
            (1 << 127) | 1,
            1 << 31,
            1 << 32,
        ];
        let randoms: Vec<Block> = (0..1000).map(|_| Block::random(&mut rng)).collect();
        for c in edges.into_iter().map(Block::from_u128).chain(randoms) {
            let expect = if c.lsb() { u128::MAX } else { 0 };
            assert_eq!(c.lsb_mask().to_u128(), expect, "{c:?}");
            let x = Block::random(&mut rng);
            assert_eq!(x & c.lsb_mask(), x.and_bit(c.lsb()));
        }
    }

    #[test]
    fn xor_and_lsb() {
        let a = Block::from_u128(0b1011);
        let b = Block::from_u128(0b0110);
        assert_eq!((a ^ b).to_u128(), 0b1101);
        assert_eq!((a & b).to_u128(), 0b0010);
        assert!(a.lsb());
        assert!(!b.lsb());
        assert!(b.with_lsb_set().lsb());
        assert_eq!(a.and_bit(false), Block::ZERO);
        assert_eq!(a.and_bit(true), a);
        let high = Block::from_u128(1 << 127 | 1);
        assert_eq!(high.and_bit(true), high);
    }

    #[test]
    fn byte_order_is_fixed() {
        let v = 0x0f0e0d0c0b0a09080706050403020100u128;
        assert_eq!(Block::from_u128(v).to_bytes(), core::array::from_fn(|i| i as u8));
        assert_eq!(Block::from_bytes(v.to_le_bytes()).to_u128(), v);
    }

    #[test]
    fn byte_views_round_trip() {
        let mut v = vec![Block::from_u128(1), Block::from_u128(u128::MAX)];
        assert_eq!(Block::slice_as_bytes(&v)[0], 1);
        Block::slice_as_bytes_mut(&mut v)[16] = 7;
        assert_eq!(v[1].to_bytes()[0], 7);
        let mut b = Block::from_u128(5);
        b.as_bytes_mut()[1] = 1;
        assert_eq!(b.to_u128(), 0x105);
    }
}
