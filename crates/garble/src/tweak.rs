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
