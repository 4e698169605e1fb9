//! Commitments and coin tossing (the F_Rand / F_coin / F_EQ that KOS15 Fig. 7 and WRK17
//! Fig. 8–9 assume), from BLAKE3 as a random oracle: com(v) = H(dom ‖ v) for a 256-bit
//! random v is hiding and binding in the random-oracle model.

use mixgc_core::{Block, FixedKeyAes, Rng};
use mixgc_net::Channel;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha12Rng;

use crate::MaliciousError;

const COMMIT: &str = "mixgc/malicious/prep/commit/v1";
const COINS: &str = "mixgc/malicious/prep/coins/v1";
const CHI_KEY: &str = "mixgc/malicious/prep/kos-chi-key/v1";

/// A 32-byte commitment to a 32-byte uniformly random seed.
pub(crate) fn commit(seed: &[u8; 32]) -> [u8; 32] {
    blake3::derive_key(COMMIT, seed)
}

/// Fresh coins agreed by both parties, unpredictable to either when it fixed its earlier
/// messages: the committer commits to s_c, the other sends s_o, the committer opens
/// s_c; coins = H(s_c ‖ s_o). The opener's commitment is checked, failing with
/// `CheckFailed { check }` when it does not open. Flushes after each send.
pub(crate) fn toss<C: Channel + ?Sized>(
    ch: &mut C,
    committer: bool,
    rng: &mut Rng,
    check: &'static str,
) -> Result<[u8; 32], MaliciousError> {
    let mut mine = [0u8; 32];
    rng.fill_bytes(&mut mine);
    let mut theirs = [0u8; 32];
    if committer {
        ch.send(&commit(&mine))?;
        ch.flush()?;
        ch.recv(&mut theirs)?;
        ch.send(&mine)?;
        ch.flush()?;
        Ok(combine(&mine, &theirs))
    } else {
        let mut com = [0u8; 32];
        ch.recv(&mut com)?;
        ch.send(&mine)?;
        ch.flush()?;
        ch.recv(&mut theirs)?;
        if commit(&theirs) != com {
            return Err(MaliciousError::CheckFailed { check });
        }
        Ok(combine(&theirs, &mine))
    }
}

fn combine(committed: &[u8; 32], other: &[u8; 32]) -> [u8; 32] {
    let mut h = blake3::Hasher::new_derive_key(COINS);
    h.update(committed);
    h.update(other);
    *h.finalize().as_bytes()
}

/// A ChaCha12 stream keyed by agreed coins: public randomness that only has to be
/// unpredictable when the parties fixed their earlier messages (ChaCha12 as in `rand`'s
/// `StdRng`); it draws the bucketing permutation.
pub(crate) fn public_rng(coins: &[u8; 32]) -> ChaCha12Rng {
    ChaCha12Rng::from_seed(*coins)
}

/// Public random blocks from agreed coins (the χ_j of KOS15 Fig. 7): AES-128 in counter
/// mode, χ_j = AES_k(j), under k derived from the coins. The key becomes known only once
/// the coins are tossed, after the messages χ must not be predictable for; AES-NI makes
/// this several times cheaper than a ChaCha stream on this hot path.
pub(crate) struct BlockStream {
    aes: FixedKeyAes,
    next: u128,
}

impl BlockStream {
    pub(crate) fn new(coins: &[u8; 32]) -> BlockStream {
        let key = blake3::derive_key(CHI_KEY, coins);
        BlockStream {
            aes: FixedKeyAes::with_public_key(key[..16].try_into().expect("16 bytes")),
            next: 0,
        }
    }

    /// Fills `out` with the next blocks of the stream.
    pub(crate) fn fill(&mut self, out: &mut [Block]) {
        for b in out.iter_mut() {
            *b = Block::from_u128(self.next);
            self.next += 1;
        }
        self.aes.permute_many(out);
    }
}

#[cfg(test)]
fn expand_blocks(coins: &[u8; 32], n: usize) -> Vec<Block> {
    let mut out = vec![Block::ZERO; n];
    BlockStream::new(coins).fill(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mixgc_core::new_rng;
    use mixgc_net::memory_pair;
    use std::thread;

    #[test]
    fn both_sides_agree_and_tosses_differ() {
        let run = |seed| {
            let (mut a, mut b) = memory_pair();
            let t = thread::spawn(move || toss(&mut a, true, &mut new_rng(seed, 1), "t").unwrap());
            let mine = toss(&mut b, false, &mut new_rng(seed, 2), "t").unwrap();
            let theirs = t.join().unwrap();
            assert_eq!(mine, theirs);
            mine
        };
        assert_ne!(run(None), run(None));
        let coins = run(Some(1));
        assert_eq!(coins, run(Some(1)));
        let chi = expand_blocks(&coins, 300);
        assert_eq!(chi, expand_blocks(&coins, 300));
        // Streamed in runs, the same blocks; all distinct; other coins, other blocks.
        let mut stream = BlockStream::new(&coins);
        let mut runs = vec![Block::ZERO; 300];
        for part in runs.chunks_mut(7) {
            stream.fill(part);
        }
        assert_eq!(runs, chi);
        assert_eq!(chi.iter().collect::<std::collections::HashSet<_>>().len(), 300);
        assert_ne!(expand_blocks(&[0; 32], 3), chi[..3]);
    }

    #[test]
    fn a_wrong_opening_fails_the_named_check() {
        let (mut a, mut b) = memory_pair();
        let t = thread::spawn(move || {
            use mixgc_net::Channel;
            a.send(&commit(&[1; 32])).unwrap();
            a.flush().unwrap();
            let mut other = [0u8; 32];
            a.recv(&mut other).unwrap();
            a.send(&[2; 32]).unwrap(); // opens something else
            a.flush().unwrap();
        });
        let r = toss(&mut b, false, &mut new_rng(Some(1), 2), "coin check");
        t.join().unwrap();
        assert!(
            matches!(r, Err(MaliciousError::CheckFailed { check: "coin check" })),
            "{r:?}"
        );
    }
}
