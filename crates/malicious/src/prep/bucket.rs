//! From leaky to secure AND triples: WRK17 Fig. 9 (Π_aAND), steps 2–4. The ℓ·B leaky
//! triples are permuted with coins tossed after they were fixed, cut into ℓ buckets of B,
//! and each bucket is combined into one triple; a cheater must have guessed right in every
//! triple of some bucket to leak anything, which with B from WRK17's table (ρ = 40:
//! B = 3 for ℓ ≥ 280,000, B = 4 for ℓ ≥ 3,100, from its analysis of Π_aAND, the same
//! thresholds as emp-ag2pc's reference implementation)
//! happens with probability below 2^−40.
//!
//! Combining (x, y, z) with (x', y', z') (WRK17 Fig. 9, step 4): open d = y ⊕ y' with its
//! MACs checked, and output (x ⊕ x', y, z ⊕ z' ⊕ d·x'): (x ⊕ x')·y = z ⊕ x'·(y' ⊕ d).
//! The d of all buckets are opened in one message; the MACs of the opened bits are checked
//! through one hash (each party sends H(its MACs), the other compares with H of
//! K ⊕ bit·Δ), failing with `CheckFailed { check: "opened-bit MAC check" }`.

use mixgc_core::Block;
use mixgc_net::Channel;
use rand::Rng as _;

use super::laand::LeakyTriples;
use super::{coin, exchange_bytes, pack_bits, unpack_bits, Fault};
use crate::{AuthShare, AuthTriple, MaliciousError, Role};

pub const OPEN_CHECK: &str = "opened-bit MAC check";
const MAC_DOMAIN: &str = "mixgc/malicious/prep/open-macs/v1";

/// The fewest triples generated at once: the smallest ℓ of WRK17's table (B = 4). Smaller
/// requests are served from the surplus of a batch this big.
pub const MIN_TRIPLES: usize = 3_100;

/// WRK17's bucket size for ℓ triples at ρ = 40 (ℓ ≥ [`MIN_TRIPLES`]).
pub(crate) fn bucket_size(l: usize) -> usize {
    debug_assert!(
        l >= MIN_TRIPLES,
        "batches below {MIN_TRIPLES} triples are not covered by the table"
    );
    if l >= 280_000 {
        3
    } else {
        4
    }
}

fn mac_digest(macs: &[Block]) -> [u8; 32] {
    let mut h = blake3::Hasher::new_derive_key(MAC_DOMAIN);
    h.update(Block::slice_as_bytes(macs));
    *h.finalize().as_bytes()
}

/// Shuffles `items` (at most 2^32 of them) with a uniformly random permutation drawn
/// from public coins (Fisher–Yates, in place: one random-access pass, no index array).
/// Each swap partner is a uniform `u32` (`gen_range` on `u32` draws 32-bit words: half
/// the ChaCha12 stream of a `usize` range). The swap partners of the next [`AHEAD`]
/// steps are drawn first and prefetched, so that the cache misses of the random accesses
/// overlap; the permutation is the same as without.
pub(crate) fn shuffle<T>(coins: &[u8; 32], items: &mut [T]) {
    const AHEAD: usize = 32;
    assert!(
        u32::try_from(items.len()).is_ok(),
        "the bucketing shuffles fewer than 2^32 leaky triples"
    );
    let mut rng = coin::public_rng(coins);
    let mut partners = [0usize; AHEAD];
    let mut i = items.len();
    while i > 1 {
        // Steps i-1, i-2, …, down to 1, at most AHEAD of them.
        let steps = AHEAD.min(i - 1);
        for (k, p) in partners.iter_mut().take(steps).enumerate() {
            *p = rng.gen_range(0..=(i - 1 - k) as u32) as usize;
            prefetch(&items[*p]);
        }
        for (k, &p) in partners.iter().take(steps).enumerate() {
            items.swap(i - 1 - k, p);
        }
        i -= steps;
    }
}

/// A hint to load every cache line of `item` soon (no effect on results). A leaky
/// triple's MACs and keys are 96 bytes at 32-byte alignment, so they span exactly two
/// 64-byte lines (at 16-byte alignment every other one spanned three): all of them are
/// prefetched.
#[inline(always)]
fn prefetch<T>(item: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        const LINE: usize = 64;
        let start = item as *const T as usize;
        let first = start & !(LINE - 1);
        let last = (start + std::mem::size_of::<T>().max(1) - 1) & !(LINE - 1);
        let mut line = first;
        while line <= last {
            // SAFETY: prefetching is a hint that never faults, and SSE is part of x86_64.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line as *const i8) };
            line += LINE;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = item;
}

fn scale(v: AuthShare, d: bool) -> AuthShare {
    AuthShare {
        bit: v.bit & d,
        mac: v.mac.and_bit(d),
        key: v.key.and_bit(d),
    }
}

/// Working vectors of [`combine`], kept between batches so that their pages are faulted
/// in once per session, not once per batch (secret parts are wiped after each batch).
#[derive(Default)]
pub(crate) struct Scratch {
    perm: Vec<u32>,
    /// For the opened d = y_first ⊕ y_k: my bit, my MAC on it, my key on the peer's bit.
    mine: Vec<bool>,
    macs: Vec<Block>,
    keys: Vec<Block>,
    /// The x share of every non-first triple of a bucket (for the d·x terms).
    xs: Vec<AuthShare>,
}

/// Combines the leaky triples into ℓ = `leaky.len() / B` authenticated triples, written
/// to `out` (replacing its contents; its allocation is reused). Every leaky triple's MACs
/// and keys are wiped as they are read, before anything can fail: the caller ends with
/// [`LeakyTriples::clear_taken`].
///
/// The permutation is drawn over indices (a few MB, cheap to shuffle); the leaky triples
/// are then read once, in bucket order, with the reads prefetched ahead, and everything the
/// later passes need is written sequentially: the partial triples (a = ⊕ x, b = y_first,
/// c = ⊕ z), the x of the non-first triples (for the d·x terms) and the key differences of
/// the opened bits (for the MAC check).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn combine<C: Channel + ?Sized>(
    ch: &mut C,
    role: Role,
    delta: Block,
    leaky: &mut LeakyTriples,
    bucket: usize,
    coins: &[u8; 32],
    fault: Fault,
    scratch: &mut Scratch,
    out: &mut Vec<AuthTriple>,
) -> Result<(), MaliciousError> {
    const AHEAD: usize = 16;
    let total = leaky.len();
    let l = total / bucket;
    debug_assert_eq!(l * bucket, total);
    debug_assert!(total <= u32::MAX as usize);
    ch.set_phase("the bucketing of AND triples");
    let Scratch {
        perm,
        mine,
        macs,
        keys,
        xs,
    } = scratch;
    perm.clear();
    perm.extend(0..total as u32);
    shuffle(coins, perm);

    // One pass in bucket order. For the opened d = y_first ⊕ y_k (k = 1..B): my bits, my
    // MACs on them (hashed), my keys on the peer's (checked below).
    let opened = l * (bucket - 1);
    out.clear();
    out.reserve(l);
    for v in [&mut *macs, &mut *keys] {
        v.clear();
        v.reserve(opened);
    }
    mine.clear();
    mine.reserve(opened);
    xs.clear();
    xs.reserve(opened);
    for (i, b) in perm.chunks_exact(bucket).enumerate() {
        for &ahead in perm.iter().skip((i + 1) * bucket + AHEAD).take(bucket) {
            prefetch(&leaky.auth[ahead as usize]);
            prefetch(&leaky.bits[ahead as usize]);
        }
        // Each triple is read once, and wiped as it is read (`take`).
        let (first, first_bits) = leaky.take(b[0] as usize);
        let first_y = first.share(first_bits, 1);
        let (mut a, mut c) = (first.share(first_bits, 0), first.share(first_bits, 2));
        for &t in &b[1..] {
            let (auth, bits) = leaky.take(t as usize);
            mine.push((first_bits ^ bits) >> 1 & 1 == 1);
            macs.push(first_y.mac ^ auth.macs[1]);
            keys.push(first_y.key ^ auth.keys[1]);
            let xt = auth.share(bits, 0);
            a = a.xor(xt);
            c = c.xor(auth.share(bits, 2));
            xs.push(xt);
        }
        out.push(AuthTriple { a, b: first_y, c });
    }
    if fault == Fault::FlipOpenedBit {
        mine[0] ^= true;
    }
    let mut msg = pack_bits(mine);
    msg.extend_from_slice(&mac_digest(macs));
    let checked = exchange_bytes(ch, role, &msg).and_then(|reply| {
        let (their_bits, their_digest) = reply.split_at(reply.len() - 32);
        let theirs = unpack_bits(their_bits, opened);
        // Their MACs must be K ⊕ bit·Δ under my keys.
        for (key, &bit) in keys.iter_mut().zip(&theirs) {
            *key ^= delta.and_bit(bit);
        }
        if mac_digest(keys) != their_digest {
            return Err(MaliciousError::CheckFailed { check: OPEN_CHECK });
        }
        // c ⊕= d·x_k with the opened d.
        let per = bucket - 1;
        for (i, triple) in out.iter_mut().enumerate() {
            for k in i * per..(i + 1) * per {
                triple.c = triple.c.xor(scale(xs[k], mine[k] ^ theirs[k]));
            }
        }
        Ok(())
    });
    zeroize::Zeroize::zeroize(keys.as_mut_slice());
    zeroize::Zeroize::zeroize(macs.as_mut_slice());
    for x in xs.iter_mut() {
        *x = AuthShare::default();
    }
    std::hint::black_box(&xs);
    if checked.is_err() {
        // Nothing of a failed batch is handed out.
        for t in out.iter_mut() {
            *t = AuthTriple::default();
        }
        std::hint::black_box(&out);
        out.clear();
    }
    checked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffle_is_the_plain_fisher_yates_permutation() {
        for len in [0usize, 1, 2, 31, 32, 33, 64, 1000] {
            let mut fast: Vec<u32> = (0..len as u32).collect();
            let mut plain = fast.clone();
            shuffle(&[9; 32], &mut fast);
            let mut rng = coin::public_rng(&[9; 32]);
            for i in (1..len).rev() {
                plain.swap(i, rng.gen_range(0..=i as u32) as usize);
            }
            assert_eq!(fast, plain, "len {len}");
        }
    }

    #[test]
    fn shuffle_permutes_and_depends_on_the_coins() {
        let ordered: Vec<u32> = (0..1000).collect();
        let (mut p, mut q) = (ordered.clone(), ordered.clone());
        shuffle(&[1; 32], &mut p);
        shuffle(&[2; 32], &mut q);
        let mut sorted = p.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, ordered);
        assert_ne!(p, q);
        assert_ne!(p, ordered);
        // Position 0 takes every value about equally often over many coin choices.
        let mut first = [0u32; 4];
        for c in 0..4000u32 {
            let mut coins = [0u8; 32];
            coins[..4].copy_from_slice(&c.to_le_bytes());
            let mut v = [0u32, 1, 2, 3];
            shuffle(&coins, &mut v);
            first[v[0] as usize] += 1;
        }
        assert!(first.iter().all(|&f| (850..1150).contains(&f)), "{first:?}");
    }

    #[test]
    fn bucket_sizes_follow_the_table() {
        assert_eq!(bucket_size(3_100), 4);
        assert_eq!(bucket_size(279_999), 4);
        assert_eq!(bucket_size(280_000), 3);
        assert_eq!(bucket_size(10_000_000), 3);
    }
}
