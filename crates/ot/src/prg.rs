//! The PRG G of IKNP: one AES-128 counter-mode keystream per base-OT key.
//!
//! Each stream is created once, when the OT extension is set up, and only ever continues
//! where it stopped: a restarted stream would reuse the pads of earlier OT columns and
//! leak the receiver's choice bits (`docs/security.md`, "OT extension (IKNP)").
//!
//! G(k) = AES_k'(0) ‖ AES_k'(1) ‖ … with k' = BLAKE3-derive-key(k ‖ column), the usual
//! AES-CTR PRG of OT-extension implementations (AES is a PRF), run on the widest AES kernel
//! of the CPU (`mixgc_core::AesKernel`): several times faster than ChaCha20 in software.

use mixgc_core::{AesKernel, Block, RoundKeys};

/// BLAKE3 key-derivation context turning a 128-bit base-OT key into an AES-128 key.
const DOMAIN: &str = "mixgc/iknp-prg/aes-ctr/v2";

/// Counter blocks encrypted per kernel call.
const RUN: usize = 256;

/// A never-restarting keystream seeded by one base-OT key; its key schedule is wiped when
/// it is dropped (`RoundKeys`).
pub(crate) struct Prg {
    kernel: AesKernel,
    keys: RoundKeys,
    /// The counter of the next block.
    counter: u128,
    /// Keystream bytes produced but not yet handed out (fewer than 16: a partial block).
    left: [u8; 16],
    left_len: usize,
}

impl Prg {
    /// The stream G(k) for base-OT key `k`, the `column`-th of the extension matrix.
    pub(crate) fn new(key: Block, column: usize) -> Prg {
        let mut material = [0u8; 24];
        material[..16].copy_from_slice(&key.to_bytes());
        material[16..].copy_from_slice(&(column as u64).to_le_bytes());
        let mut derived = blake3::derive_key(DOMAIN, &material);
        let aes_key = Block::from_bytes(derived[..16].try_into().expect("16 bytes"));
        let kernel = AesKernel::active();
        let keys = kernel.expand(aes_key);
        zeroize::Zeroize::zeroize(&mut material);
        zeroize::Zeroize::zeroize(&mut derived);
        Prg {
            kernel,
            keys,
            counter: 0,
            left: [0; 16],
            left_len: 0,
        }
    }

    /// The next `out.len()` bytes of the stream. Where `out` is 16-byte aligned after
    /// the bytes left over from the last call (the IKNP columns are), the whole blocks are
    /// encrypted in place (no keystream copy); the rest goes through a buffer.
    pub(crate) fn fill(&mut self, mut out: &mut [u8]) {
        // Bytes left over from the last partial block come first.
        if self.left_len > 0 {
            let take = self.left_len.min(out.len());
            let from = 16 - self.left_len;
            out[..take].copy_from_slice(&self.left[from..from + take]);
            self.left_len -= take;
            out = &mut out[take..];
        }
        // SAFETY: `Block` is `repr(transparent)` over a 16-byte type for which every bit
        // pattern is valid, so any aligned 16 bytes of `out` are a `Block`.
        let (head, blocks, _) = unsafe { out.align_to_mut::<Block>() };
        if head.is_empty() && !blocks.is_empty() {
            let n = blocks.len();
            self.fill_blocks(blocks);
            out = &mut out[16 * n..];
        }
        self.fill_buffered(out);
    }

    /// The next `blocks.len()` blocks of the stream, encrypted where they lie.
    fn fill_blocks(&mut self, blocks: &mut [Block]) {
        for b in blocks.iter_mut() {
            *b = Block::from_u128(self.counter);
            self.counter += 1;
        }
        self.kernel.encrypt_many(&self.keys, blocks);
    }

    /// The next `out.len()` bytes through a keystream buffer (any alignment), keeping
    /// the rest of a partial last block for the next call.
    fn fill_buffered(&mut self, mut out: &mut [u8]) {
        let mut run = [Block::ZERO; RUN];
        let mut used = 0;
        while !out.is_empty() {
            let blocks = out.len().div_ceil(16).min(RUN);
            used = used.max(blocks);
            let run = &mut run[..blocks];
            self.fill_blocks(run);
            let bytes = Block::slice_as_bytes(run);
            let take = bytes.len().min(out.len());
            out[..take].copy_from_slice(&bytes[..take]);
            if take < bytes.len() {
                // A partial last block: keep the rest for the next call.
                let rest = &bytes[take..];
                self.left[16 - rest.len()..].copy_from_slice(rest);
                self.left_len = rest.len();
            }
            out = &mut out[take..];
        }
        // Only the blocks used, 16 bytes per volatile write: wiping the whole buffer byte
        // by byte on every call was most of this function's time.
        zeroize::Zeroize::zeroize(&mut run[..used]);
    }
}

impl Drop for Prg {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.left);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Split reads give the same stream as one read, whatever the split points.
    #[test]
    fn the_stream_does_not_depend_on_how_it_is_read() {
        let key = Block::from_u128(0x0123_4567_89ab_cdef_0011_2233_4455_6677);
        let mut whole = vec![0u8; 9000];
        Prg::new(key, 3).fill(&mut whole);
        let mut pieces = vec![0u8; 9000];
        let mut prg = Prg::new(key, 3);
        let mut at = 0;
        for len in [0usize, 1, 15, 16, 17, 5, 4096, 33, 2000].iter().cycle() {
            let end = (at + len).min(whole.len());
            prg.fill(&mut pieces[at..end]);
            at = end;
            if at == whole.len() {
                break;
            }
        }
        assert_eq!(whole, pieces);
    }

    /// The stream is AES-CTR under the derived key, and columns and keys give other streams.
    #[test]
    fn the_stream_is_aes_ctr_and_depends_on_key_and_column() {
        let key = Block::from_u128(7);
        let mut out = [0u8; 48];
        Prg::new(key, 0).fill(&mut out);
        let mut material = [0u8; 24];
        material[..16].copy_from_slice(&key.to_bytes());
        let derived = blake3::derive_key(DOMAIN, &material);
        let keys = AesKernel::Portable.expand(Block::from_bytes(derived[..16].try_into().unwrap()));
        let mut ctr = [Block::from_u128(0), Block::from_u128(1), Block::from_u128(2)];
        AesKernel::Portable.encrypt_many(&keys, &mut ctr);
        assert_eq!(&out[..], Block::slice_as_bytes(&ctr));
        let mut other_column = [0u8; 48];
        Prg::new(key, 1).fill(&mut other_column);
        let mut other_key = [0u8; 48];
        Prg::new(Block::from_u128(8), 0).fill(&mut other_key);
        assert_ne!(out, other_column);
        assert_ne!(out, other_key);
    }
    /// Aligned and unaligned destinations, at every start offset and length around a
    /// block, give the same stream as the plain AES-CTR model.
    #[test]
    fn in_place_and_buffered_fills_give_the_same_stream() {
        let key = Block::from_u128(0xfeed);
        let mut model = vec![Block::ZERO; 80];
        let mut prg = Prg::new(key, 5);
        prg.fill_buffered(Block::slice_as_bytes_mut(&mut model));
        let model = Block::slice_as_bytes(&model).to_vec();
        for offset in 0..17 {
            for first in [0usize, 1, 15, 16, 17, 33] {
                // Backed by blocks, so `offset` 0 is 16-byte aligned.
                let mut backing = vec![Block::ZERO; 80];
                let buf = &mut Block::slice_as_bytes_mut(&mut backing)[offset..offset + 1200];
                let mut prg = Prg::new(key, 5);
                prg.fill(&mut buf[..first]);
                prg.fill(&mut buf[first..]);
                assert_eq!(&buf[..], &model[..1200], "offset {offset}, first {first}");
            }
        }
    }
}
