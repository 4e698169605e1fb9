//! The base OTs' group operations on two threads: each OT's scalar multiplications are
//! independent of the others', so halving the list halves the wall time on two idle cores.

/// Below this many items per thread one thread does all (a thread costs ~20-50 µs to start,
/// a scalar multiplication ~15-50 µs).
const MIN_PER_THREAD: usize = 16;

/// `work(first, part)` on the first and second half of `items` on two threads (one when
/// there are few items or one core), the results concatenated in order; the first error
/// (by position) wins.
pub(crate) fn in_parallel<T: Sync, R: Send, E: Send>(
    items: &[T],
    work: impl Fn(usize, &[T]) -> Result<Vec<R>, E> + Sync,
) -> Result<Vec<R>, E> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 || items.len() < 2 * MIN_PER_THREAD {
        return work(0, items);
    }
    let mid = items.len() / 2;
    let (head, tail) = items.split_at(mid);
    let work = &work;
    let (first, second) = std::thread::scope(|scope| {
        // No thread to be had: the tail on this one, after the head.
        let helper = std::thread::Builder::new()
            .name("mixgc-base-ot".into())
            .spawn_scoped(scope, move || work(mid, tail))
            .ok();
        let first = work(0, head);
        let second = match helper {
            Some(h) => h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => work(mid, tail),
        };
        (first, second)
    });
    let mut out = first?;
    out.extend(second?);
    Ok(out)
}
