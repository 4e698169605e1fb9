//! Function-dependent preprocessing of one batch (WRK17 Fig. 2 steps 2–3): the wire masks
//! ⟨λ_w⟩ (fresh random shares for AND outputs, linear for XOR/NOT/copy/constant) and
//! ⟨λ_σ⟩ = ⟨λ_α λ_β⟩ for every AND gate from a random triple by Beaver's trick: d = λ_α ⊕ a
//! and e = λ_β ⊕ b are opened with their MACs checked, then λ_σ = c ⊕ d·b ⊕ e·a ⊕ d·e.

use std::ops::Range;

use mixgc_circuit::{Circuit, GateKind};
use mixgc_core::Block;
use mixgc_net::Channel;

use super::checks::AND_MASK_OPENING;
use super::open::open_both;
use super::share::{add_constant, constant, scale};
use crate::auth::{AuthShare, AuthTriple, Role};
use crate::MaliciousError;

/// The gates of the batch that starts at gate `start`: up to and including its
/// `batch_ands`-th AND gate, or to the end of the circuit.
pub(crate) fn next_batch(circuit: &Circuit, start: usize, batch_ands: usize) -> (Range<usize>, usize) {
    let mut ands = 0;
    for (i, &k) in circuit.kind.iter().enumerate().skip(start) {
        if k == GateKind::And {
            ands += 1;
            if ands == batch_ands {
                return (start..i + 1, ands);
            }
        }
    }
    (start..circuit.kind.len(), ands)
}

/// Sets the mask of every output wire of `gates`, taking AND outputs' masks from `fresh`
/// in order; returns the batch's AND gates (indices into the circuit).
pub(crate) fn mask_gates(
    circuit: &Circuit,
    gates: Range<usize>,
    masks: &mut [AuthShare],
    fresh: &[AuthShare],
    role: Role,
    delta: Block,
) -> Vec<usize> {
    let mut ands = Vec::with_capacity(fresh.len());
    for g in gates {
        let (a, b, out) = (circuit.a[g] as usize, circuit.b[g] as usize, circuit.out[g] as usize);
        masks[out] = match circuit.kind[g] {
            GateKind::Xor => masks[a].xor(masks[b]),
            // ¬x: λ_out = λ_a ⊕ 1, so the masked value and the label carry over unchanged.
            GateKind::Not => add_constant(masks[a], true, role, delta),
            GateKind::Copy => masks[a],
            // A constant c: λ = c, so its masked value is 0 (label L_zero).
            GateKind::Const => constant(a != 0, role, delta),
            GateKind::And => {
                let m = fresh[ands.len()];
                ands.push(g);
                m
            }
        };
    }
    ands
}

/// ⟨λ_α λ_β⟩ for every AND gate in `ands`, from `triples` by Beaver's trick with the MACs
/// on d and e checked both ways. `tamper`: a cheating party's wrong MAC hash.
#[allow(clippy::too_many_arguments)]
pub(crate) fn and_masks<C: Channel + ?Sized>(
    ch: &mut C,
    circuit: &Circuit,
    ands: &[usize],
    masks: &[AuthShare],
    triples: &[AuthTriple],
    role: Role,
    delta: Block,
    tamper: bool,
) -> Result<Vec<AuthShare>, MaliciousError> {
    ch.set_phase("the Beaver opening of the AND masks");
    let mut de = Vec::with_capacity(2 * ands.len());
    for (&g, t) in ands.iter().zip(triples) {
        de.push(masks[circuit.a[g] as usize].xor(t.a));
        de.push(masks[circuit.b[g] as usize].xor(t.b));
    }
    let opened = open_both(ch, role, delta, &de, AND_MASK_OPENING, tamper)?;
    Ok(triples
        .iter()
        .zip(opened.chunks_exact(2))
        .map(|(t, de)| {
            let (d, e) = (de[0], de[1]);
            let s = t.c.xor(scale(t.b, d)).xor(scale(t.a, e));
            add_constant(s, d & e, role, delta)
        })
        .collect())
}
