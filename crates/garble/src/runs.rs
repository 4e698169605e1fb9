//! Executing runs of a compiled stream on wire slots, the same way for both cores and for
//! every thread of a parallel block.

use std::marker::PhantomData;
use std::mem::MaybeUninit;

use mixgc_compile::{Gate, Run, RunKind};
use mixgc_core::{fill_prefix, Block};

use crate::MAX_AND_GROUP;

/// Wire slots (or table rows) that several threads may access at once, each thread its own
/// elements. Unlike `&mut [T]` it can be shared; the accessors are unsafe because the
/// bounds and the disjointness are the caller's to guarantee.
pub(crate) struct SharedSlice<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

/// Wire slots shared by the threads of a parallel block.
pub(crate) type BlockPtr<'a> = SharedSlice<'a, Block>;

impl<T> Clone for SharedSlice<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SharedSlice<'_, T> {}

// SAFETY: a `SharedSlice` is a `&mut [T]` split among threads (so `T: Send` suffices);
// every access is unsafe, with the callers guaranteeing that no element is written by one
// thread while another reads or writes it.
unsafe impl<T: Send> Send for SharedSlice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for SharedSlice<'_, T> {}

impl<'a, T: Copy> SharedSlice<'a, T> {
    pub(crate) fn new(blocks: &'a mut [T]) -> Self {
        SharedSlice {
            ptr: blocks.as_mut_ptr(),
            len: blocks.len(),
            _borrow: PhantomData,
        }
    }

    /// Element `i`.
    ///
    /// # Safety
    /// `i < len`, and no other thread writes element `i` meanwhile.
    #[inline(always)]
    pub(crate) unsafe fn get(self, i: u32) -> T {
        debug_assert!((i as usize) < self.len);
        // SAFETY: in bounds of the borrowed slice, no concurrent write (caller).
        unsafe { *self.ptr.add(i as usize) }
    }

    /// Sets element `i`.
    ///
    /// # Safety
    /// `i < len`, and no other thread reads or writes element `i` meanwhile.
    #[inline(always)]
    pub(crate) unsafe fn set(self, i: u32, v: T) {
        debug_assert!((i as usize) < self.len);
        // SAFETY: in bounds of the borrowed slice, no concurrent access (caller).
        unsafe { *self.ptr.add(i as usize) = v }
    }

    /// Elements `range` as a slice.
    ///
    /// # Safety
    /// `range` lies within `0..len`, and no other thread accesses these elements while the
    /// slice lives.
    pub(crate) unsafe fn slice_mut(self, range: std::ops::Range<usize>) -> &'a mut [T] {
        debug_assert!(range.start <= range.end && range.end <= self.len);
        // SAFETY: in bounds, exclusive for the slice's life (caller).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.len()) }
    }
}

/// Executes a run of free gates: XORs (NOT is XOR with [`mixgc_compile::NOT_SLOT`]) or
/// constants (the label of constant `a` is `const_labels[a]`). Identical for garbler and
/// evaluator under free-XOR; only the labels they hold differ.
///
/// # Safety
/// Every slot operand of `gates` must be `< slots.len`, and no other thread may write a
/// slot these gates read, or touch a slot they write, meanwhile. Engines guarantee the
/// first by taking `gates` from a [`mixgc_compile::Chunk`] (whose invariant bounds every
/// operand by `num_slots`) and checking `slots.len() == num_slots`; the second by running
/// in parallel only the gates of one [`RunKind::Parallel`] block.
#[inline]
pub(crate) unsafe fn free_run(slots: BlockPtr, const_labels: &[Block; 2], kind: RunKind, gates: &[Gate]) {
    match kind {
        RunKind::Xor => {
            for g in gates {
                // SAFETY: the caller's precondition covers all three slots.
                unsafe { slots.set(g.out, slots.get(g.a) ^ slots.get(g.b)) };
            }
        }
        RunKind::Const => {
            for g in gates {
                // SAFETY: as above.
                unsafe { slots.set(g.out, const_labels[g.a as usize & 1]) };
            }
        }
        RunKind::And | RunKind::Parallel => unreachable!("not a run of free gates"),
    }
}

/// Executes one AND group: gathers the input labels (all read before any output is
/// written, as outputs may reuse input slots), computes the outputs with
/// `f(inputs, outputs)`, scatters them.
///
/// # Safety
/// As for [`free_run`].
#[inline(always)]
pub(crate) unsafe fn and_run(
    slots: BlockPtr,
    group: &[Gate],
    f: impl FnOnce(&[(Block, Block)], &mut [Block]),
) {
    let n = group.len();
    // Not zeroed first (a 512-byte `memset` call per group): every input is written.
    let mut room = [MaybeUninit::uninit(); MAX_AND_GROUP];
    // SAFETY: the caller's precondition.
    let inputs = fill_prefix(&mut room, n, |k| unsafe {
        (slots.get(group[k].a), slots.get(group[k].b))
    });
    let mut outputs = [Block::ZERO; MAX_AND_GROUP];
    f(inputs, &mut outputs[..n]);
    for (g, &c) in group.iter().zip(&outputs[..n]) {
        // SAFETY: the caller's precondition.
        unsafe { slots.set(g.out, c) };
    }
}

/// Executes whole runs (no markers): free runs directly, each AND group through
/// `and_group(ands_before, inputs, outputs)`, where `ands_before` counts the ANDs of
/// `runs` before the group.
///
/// # Safety
/// As for [`free_run`], for every gate of `runs`.
pub(crate) unsafe fn execute_runs(
    slots: BlockPtr,
    const_labels: &[Block; 2],
    runs: &[Run],
    gates: &[Gate],
    mut and_group: impl FnMut(usize, &[(Block, Block)], &mut [Block]),
) {
    let (mut next, mut ands) = (0, 0);
    for run in runs {
        let run_gates = &gates[next..next + run.kind.gates_in(run.len)];
        next += run_gates.len();
        match run.kind {
            RunKind::And => {
                // SAFETY: the caller's precondition.
                unsafe { and_run(slots, run_gates, |ins, outs| and_group(ands, ins, outs)) };
                ands += run_gates.len();
            }
            // SAFETY: the caller's precondition.
            kind => unsafe { free_run(slots, const_labels, kind, run_gates) },
        }
    }
}
