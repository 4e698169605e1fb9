//! A collision-resistant fingerprint of a circuit, so two parties can check that they
//! hold the same circuit before running a protocol on it.

use crate::Circuit;

/// Domain-separation tag at the start of the serialization.
const TAG: &[u8] = b"mixgc-circuit-digest-v1\n";

impl Circuit {
    /// BLAKE3 hash of a canonical serialization of every field of the circuit.
    ///
    /// The serialization (all integers little-endian) is:
    ///
    /// 1. the 24-byte ASCII tag `mixgc-circuit-digest-v1\n`;
    /// 2. `num_wires` as a `u32`;
    /// 3. for each of `input_widths`, `output_widths`, `output_wires`: its length as a
    ///    `u64`, then its entries as `u32`s;
    /// 4. `kind`: its length as a `u64`, then one byte per gate (the `repr(u8)` value:
    ///    Xor 0, And 1, Not 2, Copy 3, Const 4);
    /// 5. for each of `a`, `b`, `out`: its length as a `u64`, then its entries as `u32`s.
    ///
    /// Every array carries its own length, so the encoding is unambiguous (even for a
    /// circuit whose arrays disagree in length). Unused `b` fields are hashed as they are;
    /// the Bristol reader sets them to 0.
    pub fn digest(&self) -> [u8; 32] {
        let mut h = Hasher::new();
        h.bytes(TAG);
        h.bytes(&self.num_wires.to_le_bytes());
        h.u32s(&self.input_widths);
        h.u32s(&self.output_widths);
        h.u32s(&self.output_wires);
        h.len(self.kind.len());
        for &k in &self.kind {
            h.bytes(&[k as u8]);
        }
        h.u32s(&self.a);
        h.u32s(&self.b);
        h.u32s(&self.out);
        h.finish()
    }
}

/// BLAKE3 fed through a buffer, so small writes stay cheap.
struct Hasher {
    inner: blake3::Hasher,
    buf: Vec<u8>,
}

impl Hasher {
    const CHUNK: usize = 1 << 16;

    fn new() -> Self {
        Hasher {
            inner: blake3::Hasher::new(),
            buf: Vec::with_capacity(Self::CHUNK),
        }
    }

    fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
        if self.buf.len() >= Self::CHUNK {
            self.inner.update(&self.buf);
            self.buf.clear();
        }
    }

    fn len(&mut self, n: usize) {
        self.bytes(&(n as u64).to_le_bytes());
    }

    fn u32s(&mut self, xs: &[u32]) {
        self.len(xs.len());
        for &x in xs {
            self.bytes(&x.to_le_bytes());
        }
    }

    fn finish(mut self) -> [u8; 32] {
        self.inner.update(&self.buf);
        *self.inner.finalize().as_bytes()
    }
}
