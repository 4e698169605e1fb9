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
            // Two gates' six operands in three 64-bit loads instead of six 32-bit ones: the
            // loop is bound by its memory operations (index loads, two label loads and a
            // store per gate), not by arithmetic.
            let pairs = gates.chunks_exact(2);
            let rest = pairs.remainder();
            for pair in pairs {
                let [(a0, b0), (o0, a1), (b1, o1)] = operand_words(pair);
                // SAFETY: the caller's precondition covers all six slots; gate 0's output
                // is stored before gate 1 reads (gates run in order).
                unsafe {
                    slots.set(o0, slots.get(a0) ^ slots.get(b0));
                    slots.set(o1, slots.get(a1) ^ slots.get(b1));
                }
            }
            for g in rest {
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

/// The operands (a₀, b₀, out₀, a₁, b₁, out₁) of two consecutive gates, read as three
/// 64-bit words, each split into its two 32-bit halves in memory order.
#[inline(always)]
fn operand_words(pair: &[Gate]) -> [(u32, u32); 3] {
    // `Gate` is three `u32`s in order with no padding, so two gates are 24 bytes of operands.
    const _: () = assert!(
        std::mem::size_of::<Gate>() == 12
            && std::mem::offset_of!(Gate, a) == 0
            && std::mem::offset_of!(Gate, b) == 4
            && std::mem::offset_of!(Gate, out) == 8
    );
    assert_eq!(pair.len(), 2);
    let p = pair.as_ptr().cast::<u64>();
    // SAFETY: the two gates are 24 initialised bytes at `p` (asserted above); the reads
    // are unaligned-tolerant.
    let words = unsafe {
        [
            p.read_unaligned(),
            p.add(1).read_unaligned(),
            p.add(2).read_unaligned(),
        ]
    };
    // The first `u32` in memory is the low half on little-endian targets, the high on others.
    words.map(|w| {
        let (low, high) = (w as u32, (w >> 32) as u32);
        if cfg!(target_endian = "little") {
            (low, high)
        } else {
            (high, low)
        }
    })
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
