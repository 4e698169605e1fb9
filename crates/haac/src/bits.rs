//! Packing fields of a few bits into bytes, least significant bit first (the `.haac` file's
//! instruction streams and engine map).

/// Appends fields of up to 32 bits to a byte vector, LSB first.
#[derive(Default)]
pub(crate) struct BitWriter {
    bytes: Vec<u8>,
    /// Bits used in the last byte (0 = the next field starts a new byte).
    used: u32,
}

impl BitWriter {
    pub(crate) fn put(&mut self, value: u32, bits: u32) {
        for i in 0..bits {
            if self.used == 0 {
                self.bytes.push(0);
            }
            let bit = (value >> i & 1) as u8;
            if let Some(last) = self.bytes.last_mut() {
                *last |= bit << self.used;
            }
            self.used = (self.used + 1) % 8;
        }
    }

    /// The bytes, the last one padded with zero bits.
    pub(crate) fn finish(self) -> Vec<u8> {
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

    pub(crate) fn get(&mut self, bits: u32) -> u32 {
        let mut value = 0u32;
        for i in 0..bits {
            let byte = self.bytes.get((self.pos / 8) as usize).copied().unwrap_or(0);
            value |= u32::from(byte >> (self.pos % 8) & 1) << i;
            self.pos += 1;
        }
        value
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
    }
}
