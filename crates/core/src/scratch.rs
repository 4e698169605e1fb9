//! Stack scratch space that is written before it is read, so it need not be zeroed first.

use std::mem::MaybeUninit;

/// Writes `room[i] = make(i)` for every `i < n` and returns those `n` values, leaving the
/// rest of `room` untouched. For per-call scratch arrays on hot paths: a
/// `[Block::ZERO; 64]` is a 1 KiB `memset` call on every hash of an AND group, which the
/// end-to-end profile showed at 1–6 % of evaluation (issue #16).
///
/// # Panics
/// If `n > room.len()`.
pub fn fill_prefix<T: Copy>(
    room: &mut [MaybeUninit<T>],
    n: usize,
    mut make: impl FnMut(usize) -> T,
) -> &mut [T] {
    let room = &mut room[..n];
    for (i, slot) in room.iter_mut().enumerate() {
        slot.write(make(i));
    }
    // SAFETY: every element of `room` was written just above, and `MaybeUninit<T>` has the
    // layout of `T`.
    unsafe { &mut *(room as *mut [MaybeUninit<T>] as *mut [T]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_exactly_the_prefix() {
        let mut room = [MaybeUninit::<u64>::uninit(); 8];
        assert_eq!(fill_prefix(&mut room, 3, |i| 10 + i as u64), &[10, 11, 12]);
        assert!(fill_prefix(&mut room, 0, |_| 0).is_empty());
        assert_eq!(fill_prefix(&mut room, 8, |i| i as u64).len(), 8);
    }

    #[test]
    #[should_panic]
    fn refuses_more_than_the_room() {
        let mut room = [MaybeUninit::<u64>::uninit(); 2];
        fill_prefix(&mut room, 3, |_| 0);
    }
}
