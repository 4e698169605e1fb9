//! The tweaks of the BMR gate hash F (Ben-Efraim–Lindell–Omri, CCS 2016, §3: the
//! "PRF" F_k(g‖j) keyed by a party's wire key, one output per gate and target party).
//!
//! F(k; g, i, j, pos) = H(k, τ) with H the tweakable correlation-robust hash `Tccr` and the
//! 128-bit tweak τ laid out (bit 0 least significant) as
//!
//! | bits     | field                                                      |
//! |----------|------------------------------------------------------------|
//! | 0..64    | g, the global index of the AND gate in the circuit          |
//! | 64       | pos, 0 for the gate's first input wire, 1 for its second    |
//! | 65..71   | j, the target party whose key the table entry hides (< 64) |
//! | 71..77   | i, the party who owns the key k (< 64)                      |
//! | 77..80   | zero                                                       |
//! | 80..128  | the domain tag, ASCII "mixbmr"                              |
//!
//! so every (g, i, j, pos) of a run has its own tweak, and no BMR tweak equals a tweak of
//! the two-party garblers (half-gates: bits ≥ 66 zero; three-halves: bits 96..128 equal
//! to 1) or of OT extension (bits 64..128 the ASCII "mixgc-ot", which differs from
//! "mixbmr\0\0" in bits 96..104: 'g' against 'b').

use mixgc_core::Block;

/// The domain tag in bits 80..128.
const BMR_DOMAIN: u128 = (u64::from_be_bytes(*b"mixbmr\0\0") as u128) << 64;

/// Most parties the layout has room for (6 bits each for i and j).
pub(super) const MAX_PARTIES: usize = 64;

/// The tweak of F(·; g, owner, target, pos) (see the module docs for the layout).
#[inline(always)]
pub(super) fn tweak(g: u64, owner: usize, target: usize, pos: usize) -> Block {
    debug_assert!(owner < MAX_PARTIES && target < MAX_PARTIES && pos < 2);
    Block::from_u128(
        BMR_DOMAIN | (owner as u128) << 71 | (target as u128) << 65 | (pos as u128) << 64 | g as u128,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn tweaks_are_unique_and_out_of_the_other_domains() {
        let mut seen = HashSet::new();
        for g in [0u64, 1, 2, u64::MAX] {
            for i in [0, 1, 63] {
                for j in [0, 5, 63] {
                    for pos in 0..2 {
                        let t = tweak(g, i, j, pos).to_u128();
                        assert!(seen.insert(t), "tweak ({g}, {i}, {j}, {pos}) repeats");
                        assert_eq!(t >> 80, u128::from(u64::from_be_bytes(*b"\0\0mixbmr")));
                        // Half-gates: < 2^66; three-halves: bits 96.. equal to 1; IKNP: bits
                        // 64.. equal to "mixgc-ot".
                        assert!(t >> 66 != 0);
                        assert_ne!(t >> 96, 1);
                        assert_ne!(t >> 64, u128::from(u64::from_be_bytes(*b"mixgc-ot")));
                    }
                }
            }
        }
    }
}
