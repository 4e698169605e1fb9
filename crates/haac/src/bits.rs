//! Packing fields of a few bits into bytes, least significant bit first (the `.haac` file's
//! instruction streams and engine map).

/// Appends fields of up to 32 bits to a byte vector, LSB first (a 64-bit accumulator, so
/// a field costs a shift and an OR rather than a loop over its bits).
#[derive(Default)]
pub(crate) struct BitWriter {
    bytes: Vec<u8>,
    /// Bits not yet written out, least significant first.
    acc: u64,
    /// How many bits of `acc` are pending (always < 8 between calls).
    pending: u32,
}

impl BitWriter {
    /// Appends the low `bits` bits of `value` (`bits` ≤ 32; higher bits are ignored).
    pub(crate) fn put(&mut self, value: u32, bits: u32) {
        debug_assert!(bits <= 32);
        let mask = if bits >= 32 {
            u64::from(u32::MAX)
        } else {
            (1u64 << bits) - 1
        };
        self.acc |= (u64::from(value) & mask) << self.pending;
        self.pending += bits;
        while self.pending >= 8 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.pending -= 8;
        }
    }

    /// The bytes, the last one padded with zero bits.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        if self.pending > 0 {
            self.bytes.push(self.acc as u8);
        }
        self.bytes
    }
}

/// Reads fields back from bytes written by [`BitWriter`]; the caller sized `bytes` for every
/// field it reads, so reading past the end yields zero bits rather than a panic.
pub(crate) struct BitReader<'a> {
    bytes: &'a [u8],
    pos: u64,
}

impl<'a> BitReader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        BitReader { bytes, pos: 0 }
    }

    /// The next `bits` bits (≤ 32) as a value: the (up to) 5 bytes holding them are loaded
    /// at once, bytes past the end reading as zero.
    pub(crate) fn get(&mut self, bits: u32) -> u32 {
        debug_assert!(bits <= 32);
        let first = usize::try_from(self.pos / 8).unwrap_or(usize::MAX);
        let mut window = [0u8; 8];
        if let Some(rest) = self.bytes.get(first..) {
            let n = rest.len().min(8);
            window[..n].copy_from_slice(&rest[..n]);
        }
        let word = u64::from_le_bytes(window) >> (self.pos % 8);
        self.pos += u64::from(bits);
        let mask = if bits >= 32 {
            u64::from(u32::MAX)
        } else {
            (1u64 << bits) - 1
        };
        (word & mask) as u32
    }
}

/// Bytes that `count` fields of `bits` bits take, packed.
pub(crate) fn packed_bytes(count: u64, bits: u32) -> u64 {
    (count * u64::from(bits)).div_ceil(8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip_across_byte_boundaries() {
        let fields = [(5u32, 3u32), (0x1ffff, 17), (0, 1), (1, 1), (0xabcd, 16), (3, 2)];
        let mut w = BitWriter::default();
        for &(v, b) in &fields {
            w.put(v, b);
        }
        let bytes = w.finish();
        assert_eq!(bytes.len() as u64, packed_bytes(1, 3 + 17 + 1 + 1 + 16 + 2));
        let mut r = BitReader::new(&bytes);
        for &(v, b) in &fields {
            assert_eq!(r.get(b), v);
        }
        assert_eq!(r.get(32), 0, "past the end reads zero bits");
    }

    /// The word-at-a-time packing equals the definition: bit k of field j at bit
    /// (offset of j + k) of the stream, LSB first, on random widths and values.
    #[test]
    fn packing_matches_the_bit_by_bit_definition() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let fields: Vec<(u32, u32)> = (0..2_000)
            .map(|_| {
                let bits = rng.gen_range(1..=32u32);
                (rng.gen::<u32>(), bits)
            })
            .collect();
        let mut w = BitWriter::default();
        let mut expected: Vec<bool> = Vec::new();
        for &(v, b) in &fields {
            w.put(v, b);
            expected.extend((0..b).map(|i| v >> i & 1 == 1));
        }
        let bytes = w.finish();
        assert_eq!(bytes.len(), expected.len().div_ceil(8));
        for (i, &bit) in expected.iter().enumerate() {
            assert_eq!(bytes[i / 8] >> (i % 8) & 1 == 1, bit, "bit {i}");
        }
        if !expected.len().is_multiple_of(8) {
            let last = bytes[bytes.len() - 1];
            assert_eq!(last >> (expected.len() % 8), 0, "padding bits are zero");
        }
        let mut r = BitReader::new(&bytes);
        for &(v, b) in &fields {
            let mask = if b == 32 { u32::MAX } else { (1 << b) - 1 };
            assert_eq!(r.get(b), v & mask);
        }
    }
}
