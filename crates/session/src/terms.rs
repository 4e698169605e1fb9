use std::time::Duration;

use mixgc_core::{HashKind, Reporter, Unit};
use mixgc_garble::Scheme;
use mixgc_program::{Audience, PartyId};

use crate::SessionError;

/// The wire code of a two-party audience (in the circuit and program headers and the
/// garbler's preprocessing state): both 0, the garbler 1, the evaluator 2.
pub(crate) fn reveal_code(to: Audience) -> Result<u8, SessionError> {
    match to {
        Audience::BOTH => Ok(0),
        _ if to == Audience::only(PartyId::GARBLER) => Ok(1),
        _ if to == Audience::only(PartyId::EVALUATOR) => Ok(2),
        _ => Err(SessionError::Input(format!(
            "a two-party run reveals to both, the garbler or the evaluator, not to {to}"
        ))),
    }
}

/// The audience of wire code `code` ([`reveal_code`]).
pub(crate) fn reveal_of_code(code: u8) -> Option<Audience> {
    match code {
        0 => Some(Audience::BOTH),
        1 => Some(Audience::only(PartyId::GARBLER)),
        2 => Some(Audience::only(PartyId::EVALUATOR)),
        _ => None,
    }
}

/// The command a party runs, named in the hello so that two different commands stop at
/// once with both named (a library user who composes sessions freely leaves it `Library`,
/// which matches any).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Command {
    #[default]
    Library,
    Run,
    Example,
    Preprocess,
    Lenet,
    Bench,
    Plan,
    Infer,
}

impl Command {
    const ALL: [Command; 8] = [
        Command::Library,
        Command::Run,
        Command::Example,
        Command::Preprocess,
        Command::Lenet,
        Command::Bench,
        Command::Plan,
        Command::Infer,
    ];

    /// The wire code (pinned in transcripts).
    pub(crate) fn code(self) -> u8 {
        self as u8
    }

    pub(crate) fn from_code(code: u8) -> Option<Command> {
        Command::ALL.into_iter().find(|c| c.code() == code)
    }
}

impl std::fmt::Display for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Command::Library => "a library session",
            Command::Run => "`mixgc run`",
            Command::Example => "`mixgc example`",
            Command::Preprocess => "`mixgc preprocess`",
            Command::Lenet => "`mixgc lenet`",
            Command::Bench => "`mixgc bench`",
            Command::Plan => "`mixgc plan`",
            Command::Infer => "`mixgc infer`",
        })
    }
}

/// Settings of a session, fixed at setup; both parties must agree on `hash` and `garbling`.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    pub hash: HashKind,
    /// How compiled circuits garble their AND gates: half-gates (32 bytes per AND) or
    /// three-halves (about 25 bytes per AND, about twice the hashing); programs and
    /// preprocessing too.
    pub garbling: Scheme,
    /// The command this party runs (checked against the peer's in the hello).
    pub command: Command,
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
    /// Where the session reports its progress (base OT, ANDs garbled or evaluated), once
    /// per frame or chunk, never per gate. None by default.
    pub progress: Reporter,
}

/// Most compute threads a party may ask for ([`SessionConfig::threads`]).
pub const MAX_THREADS: usize = 64;

impl SessionConfig {
    /// This configuration, for `command`.
    pub fn for_command(mut self, command: Command) -> Self {
        self.command = command;
        self
    }

    /// This configuration, reporting progress to `progress`.
    pub fn with_progress(mut self, progress: Reporter) -> Self {
        self.progress = progress;
        self
    }

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

/// Runs `work` as a phase of `progress` named `what`, ending the phase however it returns.
pub(crate) fn phase<T>(
    progress: &Reporter,
    what: &str,
    total: Option<u64>,
    unit: Unit,
    work: impl FnOnce() -> T,
) -> T {
    progress.begin(what, total, unit);
    let out = work();
    progress.end();
    out
}

/// The error when a core cannot start its threads.
pub(crate) fn threads_failed(threads: usize, e: std::io::Error) -> SessionError {
    SessionError::Input(format!("cannot start {threads} threads: {e}"))
}

impl Default for SessionConfig {
    fn default() -> Self {
        SessionConfig {
            hash: HashKind::default(),
            garbling: Scheme::HalfGates,
            command: Command::Library,
            insecure_seed: None,
            timeout: Duration::from_secs(30),
            batch_bytes: 1 << 20,
            io_thread: true,
            threads: 1,
            progress: Reporter::none(),
        }
    }
}

/// What the parties agree on for one execution, besides the circuit itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Terms {
    /// How many input values (of nonzero width, in circuit order) the garbler owns;
    /// `None` means ⌈n/2⌉. The evaluator owns the rest.
    pub garbler_values: Option<usize>,
    pub reveal: Audience,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reveal_codes_are_the_pinned_ones_and_other_audiences_are_refused() {
        let (g, e) = (PartyId::GARBLER, PartyId::EVALUATOR);
        for (to, code) in [
            (Audience::BOTH, 0),
            (Audience::only(g), 1),
            (Audience::only(e), 2),
        ] {
            assert_eq!(reveal_code(to).unwrap(), code);
            assert_eq!(reveal_of_code(code), Some(to));
        }
        assert_eq!(reveal_of_code(3), None);
        let third = Audience::only(PartyId::new(2).unwrap()).with(g);
        let err = reveal_code(third).unwrap_err().to_string();
        assert!(err.contains("not to garbler, party 2"), "{err}");
    }
}
