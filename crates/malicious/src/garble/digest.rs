//! A running BLAKE3 hash of blocks, fed 1,024 blocks at a time (a 16-byte update per block
//! would cost more than the hashing), for the checks that compare many blocks at once.

use mixgc_core::Block;

/// Blocks buffered before they are hashed.
const BUFFER: usize = 1024;

pub(crate) struct BlockDigest {
    hasher: blake3::Hasher,
    context: &'static str,
    buffer: Vec<Block>,
}

impl BlockDigest {
    /// An empty digest, domain-separated by `context`.
    pub fn new(context: &'static str) -> BlockDigest {
        BlockDigest {
            hasher: blake3::Hasher::new_derive_key(context),
            context,
            buffer: Vec::with_capacity(BUFFER),
        }
    }

    pub fn push(&mut self, b: Block) {
        self.buffer.push(b);
        if self.buffer.len() == BUFFER {
            self.hasher.update(Block::slice_as_bytes(&self.buffer));
            self.buffer.clear();
        }
    }

    /// The digest of everything pushed since the last one; starts afresh.
    pub fn take(&mut self) -> [u8; 32] {
        self.hasher.update(Block::slice_as_bytes(&self.buffer));
        self.buffer.clear();
        let d = *self.hasher.finalize().as_bytes();
        self.hasher = blake3::Hasher::new_derive_key(self.context);
        d
    }
}

/// The context of the AND consistency digest (both parties).
pub(crate) const CONSISTENCY: &str = "mixgc malicious: KRRW18 AND consistency v1";
/// The context of the evaluator's AND-output label digest (both parties).
pub(crate) const AND_LABELS: &str = "mixgc malicious: evaluator AND-output labels v1";
