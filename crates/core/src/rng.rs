use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

/// The cryptographic RNG used everywhere in mixgc.
pub type Rng = ChaCha20Rng;

/// A fresh RNG: from the operating system, or from `seed` for reproducible tests.
///
/// A seeded RNG makes Δ, labels and OT secrets predictable: use it only in tests
/// and transcript checks, never in a real computation. `stream` separates the RNGs
/// of different parties or components derived from one test seed.
pub fn new_rng(seed: Option<u64>, stream: u64) -> Rng {
    match seed {
        Some(s) => {
            let mut rng = ChaCha20Rng::seed_from_u64(s);
            rng.set_stream(stream);
            rng
        }
        None => ChaCha20Rng::from_entropy(),
    }
}
