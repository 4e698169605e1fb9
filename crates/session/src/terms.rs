use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use mixgc_core::HashKind;

use crate::SessionError;

/// Who learns the outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Reveal {
    #[default]
    Both,
    Garbler,
    Evaluator,
}

impl Reveal {
    pub fn garbler_learns(self) -> bool {
        matches!(self, Reveal::Both | Reveal::Garbler)
    }
    pub fn evaluator_learns(self) -> bool {
        matches!(self, Reveal::Both | Reveal::Evaluator)
    }
    pub(crate) fn code(self) -> u8 {
        match self {
            Reveal::Both => 0,
            Reveal::Garbler => 1,
            Reveal::Evaluator => 2,
        }
    }
    pub(crate) fn from_code(c: u8) -> Option<Reveal> {
        [Reveal::Both, Reveal::Garbler, Reveal::Evaluator]
            .into_iter()
            .find(|r| r.code() == c)
    }
}

impl fmt::Display for Reveal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Reveal::Both => "both",
            Reveal::Garbler => "garbler",
            Reveal::Evaluator => "evaluator",
        })
    }
}

impl FromStr for Reveal {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "both" => Ok(Reveal::Both),
            "garbler" => Ok(Reveal::Garbler),
            "evaluator" => Ok(Reveal::Evaluator),
            _ => Err(format!(
                "unknown reveal mode '{s}' (expected both, garbler or evaluator)"
            )),
        }
    }
}

/// Settings of a session, fixed at setup; both parties must agree on `hash`.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    pub hash: HashKind,
    /// Test-only: a seed that makes Δ, labels, nonces and OT secrets predictable, for
    /// deterministic transcripts. `None` (the default) draws everything from the OS.
    pub insecure_seed: Option<u64>,
    /// How long to wait on a silent peer (applied by the channel; recorded here for reports).
    pub timeout: Duration,
    /// Target size of garbled-table frames, reached after a slow start from 64 KiB
    /// (64 KiB to 16 MiB; the garbler's setting decides).
    pub batch_bytes: usize,
    /// Move table frames through a dedicated I/O thread with a bounded queue, so compute
    /// and transfer overlap (`false`: everything on the calling thread, for comparison).
    pub io_thread: bool,
    /// Threads that garble (or evaluate) the parallel blocks of a stream compiled level by
    /// level (`compile_with(c, Layout::Reordered(Full | Segment, window))`), 1 to 64. The
    /// bytes on the wire are the same for every count, so each party picks its own.
    pub threads: usize,
}

/// Most compute threads a party may ask for ([`SessionConfig::threads`]).
pub const MAX_THREADS: usize = 64;

impl SessionConfig {
    /// `threads`, checked against its limits.
    pub(crate) fn checked_threads(&self) -> Result<usize, SessionError> {
        if (1..=MAX_THREADS).contains(&self.threads) {
            Ok(self.threads)
        } else {
            Err(SessionError::Input(format!(
                "the number of threads must be between 1 and {MAX_THREADS}, got {}",
                self.threads
            )))
        }
    }
}

/// The error when a core cannot start its threads.
pub(crate) fn threads_failed(threads: usize, e: std::io::Error) -> SessionError {
    SessionError::Input(format!("cannot start {threads} threads: {e}"))
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            hash: HashKind::Tccr,
            insecure_seed: None,
            timeout: Duration::from_secs(30),
            batch_bytes: 1 << 20,
            io_thread: true,
            threads: 1,
        }
    }
}

/// What the parties agree on for one execution, besides the circuit itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Terms {
    /// How many input values (of nonzero width, in circuit order) the garbler owns;
    /// `None` means ⌈n/2⌉. The evaluator owns the rest.
    pub garbler_values: Option<usize>,
    pub reveal: Reveal,
}

impl Terms {
    /// Indices of the input values owned by (garbler, evaluator).
    pub fn owners(&self, input_widths: &[u32]) -> Result<(Vec<usize>, Vec<usize>), String> {
        let nonzero: Vec<usize> = (0..input_widths.len()).filter(|&i| input_widths[i] > 0).collect();
        let k = self.garbler_values.unwrap_or(nonzero.len().div_ceil(2));
        if k > nonzero.len() {
            return Err(format!(
                "the garbler cannot own {k} values: the circuit has {} input value(s) of nonzero width",
                nonzero.len()
            ));
        }
        Ok((nonzero[..k].to_vec(), nonzero[k..].to_vec()))
    }

    pub(crate) fn resolved_garbler_values(&self, input_widths: &[u32]) -> Result<usize, String> {
        self.owners(input_widths).map(|(g, _)| g.len())
    }
}

/// Input bits of the values `owned` (indices into `widths`).
pub(crate) fn bits_of(owned: &[usize], widths: &[u32]) -> usize {
    owned.iter().map(|&v| widths[v] as usize).sum()
}

/// Checks every instance of a batch with [`check_inputs`]; errors name the instance.
pub(crate) fn check_batch(
    who: &str,
    owned: &[usize],
    widths: &[u32],
    batch: &[Vec<Vec<bool>>],
) -> Result<(), String> {
    if batch.is_empty() {
        return Err("a batch needs at least one input set".into());
    }
    for (i, inputs) in batch.iter().enumerate() {
        check_inputs(who, owned, widths, inputs).map_err(|e| {
            if batch.len() > 1 {
                format!("instance {i}: {e}")
            } else {
                e
            }
        })?;
    }
    Ok(())
}

/// Checks that `inputs` are one bit vector per owned value with the right widths.
pub(crate) fn check_inputs(
    who: &str,
    owned: &[usize],
    widths: &[u32],
    inputs: &[Vec<bool>],
) -> Result<(), String> {
    if inputs.len() != owned.len() {
        return Err(format!(
            "the {who} owns {} input value(s) but was given {}",
            owned.len(),
            inputs.len()
        ));
    }
    for (k, (&v, bits)) in owned.iter().zip(inputs).enumerate() {
        if bits.len() != widths[v] as usize {
            return Err(format!(
                "the {who}'s input #{} (circuit value {v}) must be {} bits, got {}",
                k + 1,
                widths[v],
                bits.len()
            ));
        }
    }
    Ok(())
}
