//! Sans-IO garbling cores. The [`Garbler`] turns (zero-labels, instructions) into
//! (garbled tables, output zero-labels); the [`Evaluator`] turns (active labels, tables)
//! into output labels. Neither touches a socket: the session layer moves tables in frames,
//! which lets one core serve streaming, preprocessing and pipelined execution.
//!
//! Boolean gates use free-XOR (Kolesnikov–Schneider 2008) with a global offset Δ,
//! lsb(Δ) = 1 for point-and-permute, and half-gates ANDs (Zahur–Rosulek–Evans 2015,
//! ePrint 2014/756, §3) with tweaks j = 2g, j' = 2g + 1 from the gate's global AND index g.

use mixgc_compile::{Gate, RunKind};
use mixgc_core::Block;

mod evaluator;
mod garbler;
mod half_gates;
mod tweak;

pub use evaluator::Evaluator;
pub use garbler::Garbler;
pub use half_gates::{HalfGateEvaluator, HalfGateGarbler};

/// Executes a run of free gates: XORs (NOT is XOR with [`mixgc_compile::NOT_SLOT`]) or
/// constants (the label of constant `a` is `const_labels[a]`). Identical for garbler and
/// evaluator under free-XOR; only the labels they hold differ.
///
/// # Safety
/// Every slot operand of `gates` must be `< slots.len()`. Engines guarantee it by taking
/// `gates` from a [`mixgc_compile::Chunk`] (whose invariant bounds every operand
/// by `num_slots`) and checking `slots.len() == num_slots`.
#[inline]
unsafe fn free_run(slots: &mut [Block], const_labels: &[Block; 2], kind: RunKind, gates: &[Gate]) {
    match kind {
        RunKind::Xor => {
            for g in gates {
                // SAFETY: the caller's precondition bounds all three indices.
                unsafe {
                    let v = *slots.get_unchecked(g.a as usize) ^ *slots.get_unchecked(g.b as usize);
                    *slots.get_unchecked_mut(g.out as usize) = v;
                }
            }
        }
        RunKind::Const => {
            for g in gates {
                slots[g.out as usize] = const_labels[g.a as usize & 1];
            }
        }
        RunKind::And | RunKind::Parallel => unreachable!("not a run of free gates"),
    }
}

/// Reads slot `i`. Safety: as for [`free_run`], `i < slots.len()`.
#[inline(always)]
unsafe fn read(slots: &[Block], i: u32) -> Block {
    // SAFETY: the caller guarantees the bound.
    unsafe { *slots.get_unchecked(i as usize) }
}

/// Writes slot `i`. Safety: as for [`free_run`], `i < slots.len()`.
#[inline(always)]
unsafe fn write(slots: &mut [Block], i: u32, v: Block) {
    // SAFETY: the caller guarantees the bound.
    unsafe { *slots.get_unchecked_mut(i as usize) = v }
}

/// Garbled-table blocks per AND gate (half-gates: T_G and T_E).
pub const BLOCKS_PER_AND: usize = 2;
