//! This process's CPU time, user + system over all its threads
//! (`clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`, POSIX): what `mixgc bench --mixed` charges
//! each party for a phase, independent of how many other processes share the cores.

/// Seconds of CPU this process has used so far.
pub fn process_cpu_seconds() -> Result<f64, String> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable `timespec` for the duration of the call, which
    // only writes into it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Err(format!(
            "cannot read this process's CPU time (clock_gettime): {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9)
}

#[cfg(test)]
mod tests {
    use super::process_cpu_seconds;

    /// Busy work shows up (the readings never go back); the reading is whole seconds plus
    /// nanoseconds, not clock ticks. Other tests' threads share the process, so only lower
    /// bounds and monotonicity are asserted.
    #[test]
    fn cpu_time_is_monotone_and_counts_busy_work() {
        let start = process_cpu_seconds().unwrap();
        let (mut last, mut x) = (start, 0u64);
        while last - start < 0.02 {
            x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
            let now = process_cpu_seconds().unwrap();
            assert!(now >= last, "CPU time went back from {last} to {now}");
            last = now;
        }
        assert!(last - start >= 0.02 && last.is_finite());
    }
}
