//! Little-endian field encoding for headers and stored preprocessing state.

use mixgc_core::Block;

/// Reads fields off the front of a byte slice; every read is `None` past the end.
pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl<'a> Reader<'a> {
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    pub(crate) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    /// A length-prefixed list of u32 (at most `max` items).
    pub(crate) fn u32s(&mut self, max: usize) -> Option<Vec<u32>> {
        let n = self.u32()? as usize;
        (n <= max).then(|| (0..n).map(|_| self.u32()).collect::<Option<_>>())?
    }

    /// A length-prefixed list of blocks (the length must fit in what is left).
    pub(crate) fn blocks(&mut self) -> Option<Vec<Block>> {
        let n = self.u64()? as usize;
        let bytes = self.take(n.checked_mul(16)?)?;
        Some(
            bytes
                .chunks_exact(16)
                .map(|c| Block::from_bytes(c.try_into().unwrap()))
                .collect(),
        )
    }

    /// A length-prefixed bit vector, packed.
    pub(crate) fn bits(&mut self) -> Option<Vec<bool>> {
        let n = self.u64()? as usize;
        crate::bits::unpack(self.take(n.div_ceil(8))?, n)
    }
}

/// Appends fields in the encoding [`Reader`] reads.
#[derive(Default)]
pub(crate) struct Writer(pub(crate) Vec<u8>);

impl Writer {
    pub(crate) fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.0.extend_from_slice(b);
        self
    }

    pub(crate) fn u32(&mut self, v: u32) -> &mut Self {
        self.bytes(&v.to_le_bytes())
    }

    pub(crate) fn u64(&mut self, v: u64) -> &mut Self {
        self.bytes(&v.to_le_bytes())
    }

    pub(crate) fn u32s(&mut self, v: &[u32]) -> &mut Self {
        self.u32(v.len() as u32);
        v.iter().for_each(|&x| {
            self.u32(x);
        });
        self
    }

    pub(crate) fn blocks(&mut self, v: &[Block]) -> &mut Self {
        self.u64(v.len() as u64).bytes(Block::slice_as_bytes(v))
    }

    pub(crate) fn bits(&mut self, v: &[bool]) -> &mut Self {
        self.u64(v.len() as u64).bytes(&crate::bits::pack(v))
    }
}
