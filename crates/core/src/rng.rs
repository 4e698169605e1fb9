use rand::{CryptoRng, RngCore, SeedableRng};
use rand_chacha::ChaCha20Rng;
use zeroize::{Zeroize, ZeroizeOnDrop};

/// The cryptographic RNG used everywhere in mixgc: ChaCha20 (`rand_chacha`), whose state —
/// key, counter and buffered output, from which every later label, Δ and OT secret it draws
/// follows — is overwritten when it is dropped or [`Zeroize::zeroize`]d.
///
/// The wipe costs one state-sized write per RNG, never anything per draw.
pub struct Rng(ChaCha20Rng);

/// The state a wiped RNG holds: ChaCha20 under the all-zero key, which depends on nothing
/// secret.
fn wiped() -> ChaCha20Rng {
    ChaCha20Rng::from_seed([0; 32])
}

impl Zeroize for Rng {
    fn zeroize(&mut self) {
        // SAFETY: `self.0` is a valid, aligned, exclusively borrowed `ChaCha20Rng`, plain
        // data (arrays and integers, no pointer and no destructor), so overwriting it with
        // another valid value leaks nothing and leaves it valid. The volatile write and the
        // fence keep the compiler from dropping the store as dead.
        unsafe { std::ptr::write_volatile(&mut self.0, wiped()) };
        std::sync::atomic::compiler_fence(std::sync::atomic::Ordering::SeqCst);
    }
}

impl Drop for Rng {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl ZeroizeOnDrop for Rng {}

impl RngCore for Rng {
    #[inline]
    fn next_u32(&mut self) -> u32 {
        self.0.next_u32()
    }

    #[inline]
    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    #[inline]
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.0.fill_bytes(dest)
    }

    #[inline]
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand::Error> {
        self.0.try_fill_bytes(dest)
    }
}

impl CryptoRng for Rng {}

impl SeedableRng for Rng {
    type Seed = [u8; 32];

    fn from_seed(seed: [u8; 32]) -> Rng {
        Rng(ChaCha20Rng::from_seed(seed))
    }
}

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
            Rng(rng)
        }
        None => Rng(ChaCha20Rng::from_entropy()),
    }
}

#[cfg(test)]
mod tests {
    use std::mem::ManuallyDrop;

    use super::*;

    /// The next 64 bytes of `rng`'s stream.
    fn output(rng: &mut ChaCha20Rng) -> [u8; 64] {
        let mut out = [0u8; 64];
        rng.fill_bytes(&mut out);
        out
    }

    #[test]
    fn draws_are_chacha20s() {
        let mut ours = new_rng(Some(9), 4);
        let mut theirs = ChaCha20Rng::seed_from_u64(9);
        theirs.set_stream(4);
        let mut a = [0u8; 64];
        ours.fill_bytes(&mut a);
        assert_eq!(a, output(&mut theirs));
        assert_eq!(ours.next_u64(), theirs.next_u64());
        assert_eq!(
            output(&mut Rng::from_seed([7; 32]).0),
            output(&mut ChaCha20Rng::from_seed([7; 32]))
        );
    }

    #[test]
    fn zeroize_leaves_the_all_zero_key_state() {
        let mut rng = new_rng(None, 0);
        let mut used = [0u8; 10];
        rng.fill_bytes(&mut used); // a partly consumed buffer, too
        rng.zeroize();
        assert_eq!(output(&mut rng.0), output(&mut wiped()));
    }

    #[test]
    fn dropping_overwrites_the_state() {
        let mut rng = ManuallyDrop::new(new_rng(Some(5), 1));
        let before = output(&mut rng.0.clone());
        assert_ne!(before, output(&mut wiped()));
        // SAFETY: dropped once; the destructor leaves a valid ChaCha20 state behind (see
        // `ManuallyDrop::drop`: the memory keeps what the destructor wrote), read below and
        // never dropped again.
        unsafe { ManuallyDrop::drop(&mut rng) };
        assert_eq!(output(&mut rng.0.clone()), output(&mut wiped()));
    }
}
