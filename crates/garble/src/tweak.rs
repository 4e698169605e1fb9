use mixgc_core::Block;

/// Domain tag in the high 64 bits of every half-gates tweak, so gate hashes never share a
/// tweak with OT-extension hashes (whose tweaks are plain indices < 2^64).
const HALF_GATES_DOMAIN: u128 = 1 << 64;

/// The tweaks (j, j') = (2g, 2g + 1) of the AND gate with global index `g`
/// (distinct for the two halves, never repeated within a session: `docs/security.md`,
/// "Tweaks").
#[inline(always)]
pub(crate) fn half_gate_tweaks(g: u64) -> (Block, Block) {
    let j = HALF_GATES_DOMAIN | (2 * g as u128);
    (Block::from_u128(j), Block::from_u128(j + 1))
}

/// The first tweak j of AND gate `first` when the 2n tweaks of gates `first..first + n`,
/// in the order j, j' of each gate, are the counter j, j + 1, …, j + 2n − 1 (whenever
/// 2(first + n) ≤ 2^64, so the domain bit is not touched by the count; otherwise `None`).
#[inline(always)]
pub(crate) fn half_gate_counter(first: u64, n: usize) -> Option<u128> {
    match first.checked_add(n as u64) {
        Some(end) if end <= 1 << 63 => Some(HALF_GATES_DOMAIN | (2 * first as u128)),
        _ => None,
    }
}

/// Domain tag of the three-halves tweaks: above every half-gates tweak (< 2^66) and OT
/// extension tweak (< 2^64), and above 3g + 2 for every 64-bit g.
const THREE_HALVES_DOMAIN: u128 = 1 << 96;

/// The tweaks (3g, 3g + 1, 3g + 2) of the three-halves AND gate with global index `g`,
/// for the hashes of A, B and A ⊕ B (distinct per gate and per input, never repeated
/// within a session).
#[inline(always)]
pub(crate) fn three_halves_tweaks(g: u64) -> [Block; 3] {
    let t = THREE_HALVES_DOMAIN | (3 * g as u128);
    [
        Block::from_u128(t),
        Block::from_u128(t + 1),
        Block::from_u128(t + 2),
    ]
}

/// Domain tag of the tweaks of garbler-private projections ([`crate::HalfGateGarbler::garble_private`]):
/// above every three-halves tweak (< 2^96 + 2^66), below every OT-extension tweak
/// ("mixgc-ot"·2^64 > 2^126) and above every half-gates tweak.
const PRIVATE_DOMAIN: u128 = 1 << 100;

/// The tweak of the garbler-private projection with session index `i` (its own counter,
/// never repeated within a session).
#[inline(always)]
pub(crate) fn private_tweak(i: u64) -> Block {
    Block::from_u128(PRIVATE_DOMAIN | i as u128)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the counter is offered, it is exactly the gates' tweaks in order; it is refused
    /// only where the count would reach the domain bit.
    #[test]
    fn the_counter_is_the_gates_tweaks_in_order() {
        let edges = [
            0u64,
            1,
            1000,
            (1 << 63) - 17,
            (1 << 63) - 16,
            (1 << 63) - 1,
            1 << 63,
            u64::MAX - 3,
        ];
        for first in edges {
            for n in [0usize, 1, 2, 16] {
                let fits = first.checked_add(n as u64).is_some_and(|end| end <= 1 << 63);
                match half_gate_counter(first, n) {
                    Some(j) => {
                        assert!(fits, "first={first} n={n}");
                        for k in 0..n as u64 {
                            let (a, b) = half_gate_tweaks(first + k);
                            assert_eq!(a.to_u128(), j + 2 * k as u128, "first={first} k={k}");
                            assert_eq!(b.to_u128(), j + 2 * k as u128 + 1, "first={first} k={k}");
                        }
                    }
                    None => assert!(!fits, "first={first} n={n}"),
                }
            }
        }
    }
}
