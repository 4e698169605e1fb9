//! Loading circuits and parsing the inputs a party supplies.

use std::path::Path;

use mixgc_circuit::{values, PartyId};
use mixgc_compile::{MemoryRemedy, Runnable, DEFAULT_WINDOW};

use clap::Args;

use crate::compile::ScheduleArg;
use crate::memory::Estimate;
use crate::CliError;

/// How a party compiles a Bristol circuit before running it (both parties must agree).
#[derive(Args, Clone, Debug)]
pub struct ScheduleOptions {
    /// Gate schedule for a Bristol circuit: batched (default; fastest on one thread), or
    /// HAAC's program, full or segment order (full and segment mark parallel blocks, which
    /// `--threads` splits across threads). A stream file keeps the schedule it was
    /// compiled with.
    #[arg(long, value_enum)]
    pub schedule: Option<ScheduleArg>,
    /// Window in wires for the full and segment orders.
    #[arg(long, default_value_t = DEFAULT_WINDOW)]
    pub window: usize,
}

impl ScheduleOptions {
    /// Opens `path` as a compiled-stream file if it starts with the stream magic, else as
    /// a Bristol circuit compiled with the chosen schedule.
    pub fn open(&self, path: &Path) -> Result<Runnable, CliError> {
        if self.schedule == Some(ScheduleArg::Auto) {
            return Err(crate::compile::AUTO_NEEDS_HAAC.into());
        }
        Ok(Runnable::open(
            path,
            self.schedule.map(|s| s.layout(self.window)),
        )?)
    }
}

/// This party's memory besides the frame buffers (`frame_buffers` of them), and what to do
/// when it is too much. See `mixgc run --help`.
pub fn estimate(runnable: &Runnable, frame_buffers: u64) -> (Estimate, &'static str) {
    let memory = runnable.memory();
    let est = memory
        .parts
        .into_iter()
        .fold(Estimate::new(frame_buffers), |est, (what, n)| est.with(what, n));
    let advice = match memory.remedy {
        MemoryRemedy::StreamFromDisk => {
            "stream the circuit from disk instead, which holds one chunk of gates at a time \
             (`mixgc compile FILE --out FILE.mgcs`, then `mixgc run --circuit FILE.mgcs`), \
             or raise the limit"
        }
        MemoryRemedy::FewerLiveWires => {
            "the wire slots of this schedule need that much: compile with a schedule that keeps \
             fewer wires live (`mixgc compile CIRCUIT --report` compares them), or raise the limit"
        }
    };
    (est, advice)
}

/// Parses `--input HEX[,HEX...]` for the values `owned` (indices into `widths`).
pub fn parse_inputs(
    role: PartyId,
    arg: Option<&str>,
    owned: &[usize],
    widths: &[u32],
) -> Result<Vec<Vec<bool>>, CliError> {
    parse_owned_inputs(&format!("the {role}"), arg, owned, widths)
}

/// Parses `--input HEX[,HEX...]` for the values `owned` by `who` ("the garbler", "party 3").
pub fn parse_owned_inputs(
    who: &str,
    arg: Option<&str>,
    owned: &[usize],
    widths: &[u32],
) -> Result<Vec<Vec<bool>>, CliError> {
    let given: Vec<&str> = match arg {
        None | Some("") => Vec::new(),
        Some(s) => s.split(',').map(str::trim).collect(),
    };
    if given.len() != owned.len() {
        let w: Vec<String> = owned.iter().map(|&v| format!("{} bits", widths[v])).collect();
        return Err(format!(
            "{who} owns {} input value(s) ({}) but --input gave {}",
            owned.len(),
            if w.is_empty() {
                "none".to_string()
            } else {
                w.join(", ")
            },
            given.len()
        )
        .into());
    }
    owned
        .iter()
        .zip(given)
        .enumerate()
        .map(|(k, (&v, hex))| {
            values::parse_hex(hex, widths[v]).map_err(|e| format!("--input value #{}: {e}", k + 1).into())
        })
        .collect()
}
