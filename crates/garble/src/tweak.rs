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
