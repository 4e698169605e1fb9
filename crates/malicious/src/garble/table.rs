//! KRRW18's half-size authenticated garbling (ePrint 2018/578, §4, Fig. 3 for two parties):
//! half-gates over the *distributed* garbled circuit, two blocks and one bit per AND gate.
//!
//! For a wire x, ⟨λ_x·Δ_A⟩ is shared as r_x·Δ_A ⊕ K\[s_x\] (garbler) and M\[s_x\]
//! (evaluator). For AND gate (α, β, γ) with L_α,0, L_β,0 and tweaks t_α, t_β the garbler
//! sends
//!
//! G_0 = H(L_α,0, t_α) ⊕ H(L_α,1, t_α) ⊕ ⟨λ_β Δ_A⟩_A,
//! G_1 = H(L_β,0, t_β) ⊕ H(L_β,1, t_β) ⊕ L_α,0 ⊕ ⟨λ_α Δ_A⟩_A,
//! b_γ = lsb(L_γ,0) with L_γ,0 = H(L_α,0, t_α) ⊕ H(L_β,0, t_β) ⊕ ⟨λ_σ Δ_A⟩_A ⊕ ⟨λ_γ Δ_A⟩_A,
//!
//! and the evaluator, holding L_α, L_β, ẑ_α, ẑ_β, gets
//! L_γ = H(L_α) ⊕ H(L_β) ⊕ ẑ_α·G_0 ⊕ ẑ_β·(G_1 ⊕ L_α) ⊕ ⟨(λ_σ ⊕ λ_γ ⊕ ẑ_α λ_β ⊕ ẑ_β λ_α) Δ_A⟩_B
//! = L_γ,0 ⊕ ẑ_γ·Δ_A and ẑ_γ = b_γ ⊕ lsb(L_γ) (lsb(Δ_A) = 1). Nothing here is
//! authenticated: the AND consistency check ([`check_block`]) catches a wrong ẑ_γ.

use mixgc_core::{Block, Tccr, TweakableHash};

use super::masks::AndMasks;
use super::share::{add_constant, scale};
use crate::auth::{AuthShare, Role};

/// Blocks per garbled AND gate (G_0, G_1); one bit b_γ travels beside them.
pub const TABLE_BLOCKS: usize = 2;

/// What the garbler knows of one AND gate when it garbles it. The masks are borrowed
/// from the batch's vectors: a copy was 192 bytes per gate (a `memcpy` call each).
#[derive(Clone, Copy)]
pub(crate) struct AndGate<'m> {
    /// L_α,0, L_β,0.
    pub labels: [Block; 2],
    /// The garbler's views of ⟨λ_α⟩, ⟨λ_β⟩, ⟨λ_γ⟩.
    pub masks: &'m AndMasks,
    /// The garbler's view of ⟨λ_σ⟩ = ⟨λ_α λ_β⟩.
    pub mask_ab: &'m AuthShare,
}

/// This party's view of ⟨λ_σ ⊕ λ_γ ⊕ a·λ_β ⊕ b·λ_α ⊕ a·b⟩ for public bits (a, b): the
/// share of the masked output ẑ_γ when (a, b) = (ẑ_α, ẑ_β).
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

/// The garbler's share of ⟨λ·Δ_A⟩ from its view of ⟨λ⟩: r·Δ_A ⊕ K\[s\].
fn garbler_times_delta(x: AuthShare, delta_a: Block) -> Block {
    x.key ^ delta_a.and_bit(x.bit)
}

/// The hash tweak of side `side` (0: α, 1: β) of AND gate `gate` (numbered in the run).
fn tweak(gate: u64, side: u64) -> Block {
    Block::from_u128(u128::from(gate) << 1 | u128::from(side))
}

/// Garbles `gates` (independent, numbered from `first_gate`): appends G_0, G_1 to `tables`
/// and b_γ to `bits`; returns each gate's L_γ,0.
pub(crate) fn garble(
    hash: &Tccr,
    delta_a: Block,
    first_gate: u64,
    gates: &[AndGate<'_>],
    tables: &mut Vec<Block>,
    bits: &mut Vec<bool>,
) -> Vec<Block> {
    let mut xs = Vec::with_capacity(4 * gates.len());
    let mut ts = Vec::with_capacity(4 * gates.len());
    for (i, g) in gates.iter().enumerate() {
        let id = first_gate + i as u64;
        let [la, lb] = g.labels;
        xs.extend_from_slice(&[la, la ^ delta_a, lb, lb ^ delta_a]);
        ts.extend_from_slice(&[tweak(id, 0), tweak(id, 0), tweak(id, 1), tweak(id, 1)]);
    }
    hash.hash_many(&mut xs, &mut ts);
    gates
        .iter()
        .zip(xs.chunks_exact(4))
        .map(|(g, h)| {
            let m = g.masks;
            tables.push(h[0] ^ h[1] ^ garbler_times_delta(m.b, delta_a));
            tables.push(h[2] ^ h[3] ^ g.labels[0] ^ garbler_times_delta(m.a, delta_a));
            let out0 = h[0] ^ h[2] ^ garbler_times_delta(g.mask_ab.xor(m.out), delta_a);
            bits.push(out0.lsb());
            out0
        })
        .collect()
}

/// What the evaluator knows of one AND gate when it evaluates it (the masks borrowed, as
/// in [`AndGate`]).
#[derive(Clone, Copy)]
pub(crate) struct AndInput<'m> {
    /// L_α,ẑ_α and L_β,ẑ_β.
    pub labels: [Block; 2],
    /// ẑ_α, ẑ_β.
    pub masked: [bool; 2],
    /// The evaluator's views of ⟨λ_α⟩, ⟨λ_β⟩, ⟨λ_γ⟩ and ⟨λ_σ⟩.
    pub masks: &'m AndMasks,
    pub mask_ab: &'m AuthShare,
}

/// Evaluates `gates` (independent, numbered from `first_gate`) with their tables (G_0, G_1
/// each) and bits: returns (ẑ_γ, L_γ,ẑ_γ) of each.
pub(crate) fn evaluate(
    hash: &Tccr,
    first_gate: u64,
    gates: &[AndInput<'_>],
    tables: &[Block],
    bits: &[bool],
) -> Vec<(bool, Block)> {
    let mut xs = Vec::with_capacity(2 * gates.len());
    let mut ts = Vec::with_capacity(2 * gates.len());
    for (i, g) in gates.iter().enumerate() {
        let id = first_gate + i as u64;
        xs.extend_from_slice(&g.labels);
        ts.extend_from_slice(&[tweak(id, 0), tweak(id, 1)]);
    }
    hash.hash_many(&mut xs, &mut ts);
    gates
        .iter()
        .zip(xs.chunks_exact(2))
        .zip(tables.chunks_exact(2).zip(bits))
        .map(|((g, h), (t, &b))| {
            let [za, zb] = g.masked;
            let m = g.masks;
            // ⟨(λ_σ ⊕ λ_γ ⊕ ẑ_α λ_β ⊕ ẑ_β λ_α) Δ_A⟩_B: the evaluator's MACs.
            let shares = g.mask_ab.xor(m.out).xor(scale(m.b, za)).xor(scale(m.a, zb));
            let label = h[0] ^ h[1] ^ t[0].and_bit(za) ^ (t[1] ^ g.labels[0]).and_bit(zb) ^ shares.mac;
            (b ^ label.lsb(), label)
        })
        .collect()
}

/// KRRW18's AND consistency check, one block per AND gate: with c = ẑ_γ ⊕ λ_σ ⊕ λ_γ ⊕
/// ẑ_α λ_β ⊕ ẑ_β λ_α ⊕ ẑ_α ẑ_β (0 exactly when ẑ_γ is right), the garbler's block is its
/// MAC M\[c_A\] and the evaluator's is K\[c_A\] ⊕ c_B·Δ_B, equal exactly when c_A = c_B.
/// Each side hashes its blocks; a garbler that made any ẑ_γ wrong would have to forge a MAC.
pub(crate) fn check_block(
    m: &AndMasks,
    mask_ab: AuthShare,
    masked: [bool; 3],
    role: Role,
    delta: Block,
) -> Block {
    let [za, zb, zg] = masked;
    let c = add_constant(row_share(m, mask_ab, za, zb, role, delta), zg, role, delta);
    match role {
        Role::Garbler => c.mac,
        Role::Evaluator => c.key ^ delta.and_bit(c.bit),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dealer::TrustedDealer;
    use crate::Preprocessor;

    /// For every masked input pair the evaluator gets L_γ,0 ⊕ ẑ_γ·Δ_A and the right ẑ_γ,
    /// and the two check blocks agree; a flipped ẑ_γ makes them differ.
    #[test]
    fn half_gates_over_authenticated_shares_decode_and_check() {
        let (mut ga, mut ev) = TrustedDealer::pair(21);
        let (da, db) = (ga.delta().0, ev.delta().0);
        let hash = Tccr::default();
        let (sa, sb) = (ga.random_shares(4).unwrap(), ev.random_shares(4).unwrap());
        let value = |i: usize| sa[i].bit ^ sb[i].bit;
        let am = AndMasks {
            a: sa[0],
            b: sa[1],
            out: sa[2],
        };
        let bm = AndMasks {
            a: sb[0],
            b: sb[1],
            out: sb[2],
        };
        // ⟨λ_σ⟩ with λ_σ = λ_α λ_β, from the dealer's share of a random bit and a fix.
        let sigma_bit = value(0) & value(1);
        let fix = sigma_bit ^ value(3);
        let sig_a = add_constant(sa[3], fix, Role::Garbler, da);
        let sig_b = add_constant(sb[3], fix, Role::Evaluator, db);
        let labels0 = [Block::from_u128(11), Block::from_u128(22)];
        let (mut tables, mut bits) = (Vec::new(), Vec::new());
        let gate = AndGate {
            labels: labels0,
            masks: &am,
            mask_ab: &sig_a,
        };
        let out0 = garble(&hash, da, 5, &[gate], &mut tables, &mut bits)[0];
        for (za, zb) in [(false, false), (false, true), (true, false), (true, true)] {
            let input = AndInput {
                labels: [labels0[0] ^ da.and_bit(za), labels0[1] ^ da.and_bit(zb)],
                masked: [za, zb],
                masks: &bm,
                mask_ab: &sig_b,
            };
            let (zg, label) = evaluate(&hash, 5, &[input], &tables, &bits)[0];
            let (x, y) = (za ^ value(0), zb ^ value(1));
            assert_eq!(zg, (x & y) ^ value(2), "ẑ_γ for ({za}, {zb})");
            assert_eq!(label, out0 ^ da.and_bit(zg));
            let ours = check_block(&am, sig_a, [za, zb, zg], Role::Garbler, da);
            assert_eq!(ours, check_block(&bm, sig_b, [za, zb, zg], Role::Evaluator, db));
            assert_ne!(ours, check_block(&bm, sig_b, [za, zb, !zg], Role::Evaluator, db));
        }
    }
}
