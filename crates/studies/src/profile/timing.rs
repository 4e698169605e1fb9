//! Timing one op's garbling and evaluation in memory: medians of per-instance times.
//!
//! A sample garbles `batch` instances back to back, then evaluates them in the same order
//! (each instance's gate indices follow the previous one's on both sides); its time is
//! divided by `batch`. `batch` is chosen so that a garbling sample takes about
//! [`MIN_SAMPLE`], so that sub-microsecond ops are not lost in the clock's resolution.

use std::time::{Duration, Instant};

use crate::bench::median;
use crate::common::CliError;

use super::workload::Timing;

/// The shortest sample aimed at.
const MIN_SAMPLE: Duration = Duration::from_millis(2);

/// Most instances in one sample.
const MAX_BATCH: usize = 4096;

/// One op instance that can be garbled and evaluated repeatedly.
pub trait Instance {
    /// The garbled tables of a batch.
    type Tables;

    /// Garbles and evaluates one instance and checks the decoded output against the
    /// plaintext answer, so the timings are of correct runs.
    fn check(&mut self) -> Result<(), CliError>;

    /// Garbles `n` instances.
    fn garble(&mut self, n: usize) -> Result<Self::Tables, CliError>;

    /// Evaluates the `n` instances of `tables`, and gives them back (to be dropped outside
    /// the timed region).
    fn evaluate(&mut self, tables: Self::Tables, n: usize) -> Result<Self::Tables, CliError>;
}

/// Median garbling and evaluation time of one instance over `reps` samples.
pub fn time<I: Instance>(instance: &mut I, reps: usize) -> Result<Timing, CliError> {
    instance.check()?;
    let start = Instant::now();
    let tables = instance.garble(1)?;
    let once = start.elapsed().max(Duration::from_nanos(1));
    instance.evaluate(tables, 1)?;
    let batch = (MIN_SAMPLE.as_nanos() / once.as_nanos()).clamp(1, MAX_BATCH as u128) as usize;
    let (mut garble, mut eval) = (Vec::with_capacity(reps), Vec::with_capacity(reps));
    for _ in 0..reps {
        let t = Instant::now();
        let tables = instance.garble(batch)?;
        garble.push(t.elapsed().as_secs_f64() * 1e6 / batch as f64);
        let t = Instant::now();
        let tables = instance.evaluate(tables, batch)?;
        eval.push(t.elapsed().as_secs_f64() * 1e6 / batch as f64);
        drop(tables);
    }
    Ok(Timing {
        garble_us: median(garble),
        eval_us: median(eval),
        reps,
        batch,
    })
}
