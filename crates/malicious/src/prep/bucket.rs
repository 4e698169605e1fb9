//! From leaky to secure AND triples: WRK17 Fig. 9 (Π_aAND), steps 2–4. The ℓ·B leaky
//! triples are permuted with coins tossed after they were fixed, cut into ℓ buckets of B,
//! and each bucket is combined into one triple; a cheater must have guessed right in every
//! triple of some bucket to leak anything, which with B from WRK17's table (ρ = 40:
//! B = 3 for ℓ ≥ 280,000, B = 4 for ℓ ≥ 3,100; §3, "Bucket size", as emp-ag2pc uses it)
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

use super::abit::Shares;
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

/// A uniformly random permutation of 0..len from public coins (Fisher–Yates).
pub(crate) fn permutation(coins: &[u8; 32], len: usize) -> Vec<u32> {
    let mut rng = coin::public_rng(coins);
    let mut p: Vec<u32> = (0..len as u32).collect();
    for i in (1..len).rev() {
        p.swap(i, rng.gen_range(0..=i));
    }
    p
}

fn share(s: &Shares, j: usize) -> AuthShare {
    s.get(j)
}

fn scale(v: AuthShare, d: bool) -> AuthShare {
    AuthShare {
        bit: v.bit & d,
        mac: v.mac.and_bit(d),
        key: v.key.and_bit(d),
    }
}

/// Combines ℓ = `leaky.len() / (3B)` buckets of the leaky triples `leaky` = [⟨x⟩ ‖ ⟨y⟩ ‖
/// ⟨z⟩] (each of length ℓ·B) into ℓ authenticated triples.
pub(crate) fn combine<C: Channel + ?Sized>(
    ch: &mut C,
    role: Role,
    delta: Block,
    leaky: &Shares,
    bucket: usize,
    coins: &[u8; 32],
    fault: Fault,
) -> Result<Vec<AuthTriple>, MaliciousError> {
    let total = leaky.len() / 3;
    let l = total / bucket;
    debug_assert_eq!(l * bucket * 3, leaky.len());
    ch.set_phase("the bucketing of AND triples");
    let (x, y, z) = (0, total, 2 * total);
    let perm = permutation(coins, total);

    // d = y_first ⊕ y_k for k = 1..B in every bucket: my bits and the hash of their MACs.
    let opened = l * (bucket - 1);
    let mut mine = Vec::with_capacity(opened);
    let mut macs = blake3::Hasher::new_derive_key(MAC_DOMAIN);
    for b in perm.chunks_exact(bucket) {
        let first = y + b[0] as usize;
        for &t in &b[1..] {
            let t = y + t as usize;
            mine.push(leaky.bits[first] ^ leaky.bits[t]);
            macs.update(&(leaky.macs[first] ^ leaky.macs[t]).to_bytes());
        }
    }
    if fault == Fault::FlipOpenedBit {
        mine[0] ^= true;
    }
    let mut msg = pack_bits(&mine);
    msg.extend_from_slice(macs.finalize().as_bytes());
    let reply = exchange_bytes(ch, role, &msg)?;
    let (their_bits, their_digest) = reply.split_at(reply.len() - 32);
    let theirs = unpack_bits(their_bits, opened);

    // Their MACs must be K ⊕ bit·Δ under my keys.
    let mut expected = blake3::Hasher::new_derive_key(MAC_DOMAIN);
    let mut k = 0;
    for b in perm.chunks_exact(bucket) {
        let first = y + b[0] as usize;
        for &t in &b[1..] {
            let t = y + t as usize;
            let key = leaky.keys[first] ^ leaky.keys[t] ^ delta.and_bit(theirs[k]);
            expected.update(&key.to_bytes());
            k += 1;
        }
    }
    if expected.finalize().as_bytes() != their_digest {
        return Err(MaliciousError::CheckFailed { check: OPEN_CHECK });
    }

    let mut out = Vec::with_capacity(l);
    let mut k = 0;
    for b in perm.chunks_exact(bucket) {
        let first = b[0] as usize;
        let (mut a, bb, mut c) = (
            share(leaky, x + first),
            share(leaky, y + first),
            share(leaky, z + first),
        );
        for &t in &b[1..] {
            let t = t as usize;
            let d = mine[k] ^ theirs[k];
            let xt = share(leaky, x + t);
            a = a.xor(xt);
            c = c.xor(share(leaky, z + t)).xor(scale(xt, d));
            k += 1;
        }
        out.push(AuthTriple { a, b: bb, c });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_is_a_permutation_and_depends_on_the_coins() {
        let p = permutation(&[1; 32], 1000);
        let mut sorted = p.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..1000).collect::<Vec<u32>>());
        assert_ne!(p, permutation(&[2; 32], 1000));
        assert_ne!(p, sorted);
    }

    #[test]
    fn bucket_sizes_follow_the_table() {
        assert_eq!(bucket_size(3_100), 4);
        assert_eq!(bucket_size(279_999), 4);
        assert_eq!(bucket_size(280_000), 3);
        assert_eq!(bucket_size(10_000_000), 3);
    }
}
