//! The PRG G of IKNP: one ChaCha20 keystream per base-OT key.
//!
//! Each stream is created once, when the OT extension is set up, and only ever continues
//! where it stopped: a restarted stream would reuse the pads of earlier OT columns and
//! leak the receiver's choice bits (`docs/security.md`, "OT extension (IKNP)").

use mixgc_core::{Block, Rng};
use rand::{RngCore, SeedableRng};

/// BLAKE3 key-derivation context turning a 128-bit base-OT key into a ChaCha20 key.
const DOMAIN: &str = "mixgc/iknp-prg/v1";

/// A never-restarting keystream seeded by one base-OT key; its ChaCha20 state is wiped
/// when it is dropped ([`Rng`]).
pub(crate) struct Prg(Rng);

impl Prg {
    /// The stream G(k) for base-OT key `k`, the `column`-th of the extension matrix.
    pub(crate) fn new(key: Block, column: usize) -> Prg {
        let mut material = [0u8; 24];
        material[..16].copy_from_slice(&key.to_bytes());
        material[16..].copy_from_slice(&(column as u64).to_le_bytes());
        let prg = Prg(Rng::from_seed(blake3::derive_key(DOMAIN, &material)));
        zeroize::Zeroize::zeroize(&mut material);
        prg
    }

    /// The next `out.len()` bytes of the stream.
    pub(crate) fn fill(&mut self, out: &mut [u8]) {
        self.0.fill_bytes(out);
    }
}
