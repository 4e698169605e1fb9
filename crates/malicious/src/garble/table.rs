//! WRK17's authenticated garbled AND table (Fig. 2 step 4, 4 rows). For masked inputs
//! (a, b) = (ẑ_α, ẑ_β) the masked output is ẑ_γ = λ_σ ⊕ λ_γ ⊕ a·λ_β ⊕ b·λ_α ⊕ a·b, with
//! λ_σ = λ_α·λ_β; its garbler share r_γ,ab (and the evaluator's s_γ,ab) are linear in the
//! authenticated shares. Row (a, b) is
//!
//! G_ab = H(L_α,a, L_β,b, γ, ab) ⊕ ( M\[r_γ,ab\] , L_γ,0 ⊕ K\[s_γ,ab\] ⊕ r_γ,ab·Δ_A ).
//!
//! WRK17 also sends the bit r_γ,ab; here the evaluator recovers it from the MAC, which
//! must be K\[r_γ,ab\] or K\[r_γ,ab\] ⊕ Δ_B (anything else fails the check), so a row is
//! two blocks (32 bytes) and an AND gate 128 bytes. H is the TCCR hash of each label under
//! its own tweak (gate, row, block, side), the two XORed.

use mixgc_core::{Block, Tccr, TweakableHash};

use super::masks::AndMasks;
use super::share::{add_constant, scale};
use crate::auth::{AuthShare, Role};

/// Blocks in one garbled AND table: 4 rows of (MAC, label).
pub const TABLE_BLOCKS: usize = 8;

/// What the garbler knows of one AND gate when it garbles it.
#[derive(Clone, Copy)]
pub(crate) struct AndGate {
    /// L_α,0, L_β,0, L_γ,0.
    pub labels: [Block; 3],
    /// The garbler's views of ⟨λ_α⟩, ⟨λ_β⟩, ⟨λ_γ⟩.
    pub masks: AndMasks,
    /// The garbler's view of ⟨λ_σ⟩ = ⟨λ_α λ_β⟩.
    pub mask_ab: AuthShare,
}

/// This party's view of the authenticated share that row (a, b) carries:
/// λ_σ ⊕ λ_γ ⊕ a·λ_β ⊕ b·λ_α ⊕ a·b.
pub(crate) fn row_share(
    m: &AndMasks,
    mask_ab: AuthShare,
    a: bool,
    b: bool,
    role: Role,
    delta: Block,
) -> AuthShare {
    let s = mask_ab.xor(m.out).xor(scale(m.b, a)).xor(scale(m.a, b));
    add_constant(s, a & b, role, delta)
}

/// The tweak of block `k` (0: MAC, 1: label) of row `row`, hashing side `side` (0: L_α,
/// 1: L_β) of the AND gate numbered `gate` in the whole run.
fn tweak(gate: u64, row: usize, k: usize, side: usize) -> Block {
    Block::from_u128(u128::from(gate) << 4 | (row << 2 | k << 1 | side) as u128)
}

/// AND gates hashed per chunk (16 blocks each): bounds the scratch space.
const CHUNK_GATES: usize = 64;

/// Garbles `gates` (numbered from `first_gate`) into `out`, [`TABLE_BLOCKS`] blocks each.
pub(crate) fn garble(hash: &Tccr, delta_a: Block, first_gate: u64, gates: &[AndGate], out: &mut Vec<Block>) {
    let mut xs = Vec::with_capacity(16 * CHUNK_GATES);
    let mut ts = Vec::with_capacity(16 * CHUNK_GATES);
    for (c, chunk) in gates.chunks(CHUNK_GATES).enumerate() {
        xs.clear();
        ts.clear();
        for (i, g) in chunk.iter().enumerate() {
            let id = first_gate + (c * CHUNK_GATES + i) as u64;
            for row in 0..4 {
                let (a, b) = (row >> 1 == 1, row & 1 == 1);
                for k in 0..2 {
                    xs.push(g.labels[0] ^ delta_a.and_bit(a));
                    ts.push(tweak(id, row, k, 0));
                    xs.push(g.labels[1] ^ delta_a.and_bit(b));
                    ts.push(tweak(id, row, k, 1));
                }
            }
        }
        hash.hash_many(&mut xs, &mut ts);
        for (g, h) in chunk.iter().zip(xs.chunks_exact(16)) {
            for row in 0..4 {
                let (a, b) = (row >> 1 == 1, row & 1 == 1);
                let s = row_share(&g.masks, g.mask_ab, a, b, Role::Garbler, delta_a);
                let pad = &h[4 * row..4 * row + 4];
                out.push(s.mac ^ pad[0] ^ pad[1]);
                out.push(g.labels[2] ^ s.key ^ delta_a.and_bit(s.bit) ^ pad[2] ^ pad[3]);
            }
        }
    }
}

/// The evaluator's hash inputs for row (a, b) of AND gate `gate` (the pads of its MAC and
/// label blocks): four blocks and their tweaks, appended to `xs` and `ts`.
pub(crate) fn push_row_inputs(
    gate: u64,
    labels: [Block; 2],
    a: bool,
    b: bool,
    xs: &mut Vec<Block>,
    ts: &mut Vec<Block>,
) {
    let r = usize::from(a) << 1 | usize::from(b);
    xs.extend_from_slice(&[labels[0], labels[1], labels[0], labels[1]]);
    ts.extend_from_slice(&[
        tweak(gate, r, 0, 0),
        tweak(gate, r, 0, 1),
        tweak(gate, r, 1, 0),
        tweak(gate, r, 1, 1),
    ]);
}

/// The evaluator's decryption of row (a, b) of `table` with the hashes `pads` of
/// [`push_row_inputs`]: the recovered garbler share r_γ,ab when its MAC checks under `row`
/// (the evaluator's view of the row's share) and Δ_B, with the output label; `None` when
/// the MAC is neither K nor K ⊕ Δ_B.
pub(crate) fn open_row(
    delta_b: Block,
    table: &[Block],
    a: bool,
    b: bool,
    pads: &[Block],
    row: AuthShare,
) -> Option<(bool, Block)> {
    let r = usize::from(a) << 1 | usize::from(b);
    let mac = table[2 * r] ^ pads[0] ^ pads[1];
    let bit = if mac == row.key {
        false
    } else if mac == row.key ^ delta_b {
        true
    } else {
        return None;
    };
    Some((bit, table[2 * r + 1] ^ pads[2] ^ pads[3] ^ row.mac))
}
