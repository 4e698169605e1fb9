//! Function-dependent preprocessing of one batch (WRK17 Fig. 2 steps 2–3): the wire masks
//! ⟨λ_w⟩ (fresh random shares for AND outputs, linear for XOR and constants; NOT is XOR
//! with the constant-1 slot) and ⟨λ_σ⟩ = ⟨λ_α λ_β⟩ for every AND gate from a random triple
//! by Beaver's trick: d = λ_α ⊕ a and e = λ_β ⊕ b are opened with their MACs checked, then
//! λ_σ = c ⊕ d·b ⊕ e·a ⊕ d·e.

use mixgc_compile::RunKind;
use mixgc_core::Block;
use mixgc_net::Channel;

use super::batch::Batch;
use super::checks::AND_MASK_OPENING;
use super::open::open_both;
use super::share::{add_constant, constant, scale};
use crate::auth::{AuthShare, AuthTriple, Role};
use crate::MaliciousError;

/// The masks of one AND gate's wires (α, β, γ) as they were when the gate ran.
#[derive(Clone, Copy)]
pub(crate) struct AndMasks {
    pub a: AuthShare,
    pub b: AuthShare,
    pub out: AuthShare,
}

/// Sets the mask of every slot the batch writes, taking AND outputs' masks from `fresh`
/// in order; returns each AND gate's masks (slots are reused, so they are kept here).
pub(crate) fn mask_batch(
    batch: &Batch,
    masks: &mut [AuthShare],
    fresh: &[AuthShare],
    role: Role,
    delta: Block,
) -> Vec<AndMasks> {
    let mut ands: Vec<AndMasks> = Vec::with_capacity(fresh.len());
    for (kind, gates) in batch.runs() {
        match kind {
            RunKind::Xor => {
                for g in gates {
                    masks[g.out as usize] = masks[g.a as usize].xor(masks[g.b as usize]);
                }
            }
            // A constant c: λ = c, so its masked value is always 0 (label L_zero).
            RunKind::Const => {
                for g in gates {
                    masks[g.out as usize] = constant(g.a == 1, role, delta);
                }
            }
            // All inputs of an AND run are read before any output is written.
            RunKind::And => {
                let first = ands.len();
                let outs = &fresh[first..first + gates.len()];
                // Written field by field into the spare capacity: a `push` (or `extend`)
                // built each 144-byte record on the stack and copied it with a `memcpy`
                // call, a few per cent of the amortized run's time.
                ands.reserve(gates.len());
                let slots = &mut ands.spare_capacity_mut()[..gates.len()];
                for ((slot, g), &out) in slots.iter_mut().zip(gates).zip(outs) {
                    let p = slot.as_mut_ptr();
                    // SAFETY: `p` points to an `AndMasks` slot of the spare capacity,
                    // valid for writes; each field is written once.
                    unsafe {
                        std::ptr::addr_of_mut!((*p).a).write(masks[g.a as usize]);
                        std::ptr::addr_of_mut!((*p).b).write(masks[g.b as usize]);
                        std::ptr::addr_of_mut!((*p).out).write(out);
                    }
                }
                // SAFETY: the `gates.len()` slots after `first` were all written above.
                unsafe { ands.set_len(first + gates.len()) };
                for (g, m) in gates.iter().zip(&ands[first..]) {
                    masks[g.out as usize] = m.out;
                }
            }
            RunKind::Parallel => {}
        }
    }
    ands
}

/// ⟨λ_α λ_β⟩ for every AND gate, from `triples` by Beaver's trick with the MACs on d and
/// e checked both ways. `tamper`: a cheating party's wrong MAC hash.
pub(crate) fn and_masks<C: Channel + ?Sized>(
    ch: &mut C,
    ands: &[AndMasks],
    triples: &[AuthTriple],
    role: Role,
    delta: Block,
    tamper: bool,
) -> Result<Vec<AuthShare>, MaliciousError> {
    ch.set_phase("the Beaver opening of the AND masks");
    let mut de = Vec::with_capacity(2 * ands.len());
    for (m, t) in ands.iter().zip(triples) {
        de.push(m.a.xor(t.a));
        de.push(m.b.xor(t.b));
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
