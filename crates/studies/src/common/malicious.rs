//! `--security malicious`: the flags, and one party's run under authenticated garbling
//! (`mixgc-malicious`, WRK17 with KRRW18) over the user's single connection — the hello
//! that compares the security model, the real preprocessing (`Kos15Preprocessor`), then
//! the circuit or program batch by batch (TinyGarble2 thesis §3.3.2).

use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use mixgc_compile::GateStream;
use mixgc_core::new_rng;
use mixgc_malicious::{
    preprocess_over, run_evaluator_stream, run_garbler_stream, Kos15Preprocessor, Preprocessor, Role,
    Settings, SharedChannel, Terms, DEFAULT_BATCH_ANDS, MAX_BATCH_ANDS,
};
use mixgc_net::Channel;
use mixgc_program::PartyId;
use mixgc_session::{malicious_hello, Command, PartyReport};
use rand::RngCore;

use super::CliError;

/// The security model of a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum SecurityModel {
    /// Both parties follow the protocol (half-gates garbling, the default).
    #[default]
    SemiHonest,
    /// Either party may deviate arbitrarily: authenticated garbling (WRK17/KRRW18),
    /// secure with abort.
    Malicious,
}

impl std::fmt::Display for SecurityModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SecurityModel::SemiHonest => "semi-honest",
            SecurityModel::Malicious => "malicious",
        })
    }
}

/// The flags of the security model (`run`, `example`, `demo`, `bench`).
#[derive(Args, Clone, Debug)]
pub struct ModelOptions {
    /// Security model: semi-honest (half-gates garbling) or malicious (authenticated
    /// garbling, WRK17/KRRW18: a deviating peer is caught and the run aborts). Both
    /// parties must give the same.
    #[arg(long, value_enum, default_value_t = SecurityModel::SemiHonest)]
    pub security: SecurityModel,
    /// Malicious model: AND gates preprocessed and garbled per batch (memory grows with
    /// it, time shrinks a little; the default keeps a party's peak RSS under 256 MiB
    /// whatever the circuit, see docs/malicious.md); both parties must give the same.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_BATCH_ANDS, value_parser = parse_batch_ands)]
    pub batch_ands: usize,
}

impl ModelOptions {
    pub fn malicious(&self) -> bool {
        self.security == SecurityModel::Malicious
    }

    /// Refuses `what` in the malicious model, naming it.
    pub fn refuse(&self, what: &str) -> Result<(), CliError> {
        if self.malicious() {
            return Err(format!("{what} is not supported with --security malicious").into());
        }
        Ok(())
    }
}

fn parse_batch_ands(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if (1..=MAX_BATCH_ANDS).contains(&n) => Ok(n),
        _ => Err(format!(
            "expected a number of AND gates per batch from 1 to {MAX_BATCH_ANDS}, got '{s}'"
        )),
    }
}

/// One execution's outputs, when this party learns them.
pub type Outputs = Option<Vec<Vec<bool>>>;

/// One party's malicious session over its connection: the hello, then the real
/// preprocessing's setup; the channel handle is shared with the preprocessor.
pub struct MaliciousSession<C: Channel> {
    pub ch: SharedChannel<C>,
    pub prep: Kos15Preprocessor<SharedChannel<C>>,
    pub role: Role,
    start: Instant,
    /// The base OTs of the preprocessing's setup.
    pub setup: Duration,
}

fn role_of(party: PartyId) -> Result<Role, CliError> {
    match party {
        PartyId::GARBLER => Ok(Role::Garbler),
        PartyId::EVALUATOR => Ok(Role::Evaluator),
        other => Err(format!("a two-party run has a garbler and an evaluator, not {other}").into()),
    }
}

impl<C: Channel> MaliciousSession<C> {
    /// Exchanges hellos (a semi-honest peer stops both sides, naming both models), then
    /// sets up the preprocessing over the same channel. `insecure_seed`: tests only.
    pub fn setup(
        mut ch: C,
        party: PartyId,
        command: Command,
        insecure_seed: Option<u64>,
    ) -> Result<Self, CliError> {
        let start = Instant::now();
        let role = role_of(party)?;
        let mut rng = new_rng(insecure_seed, 0x6d61_6c69 + u64::from(role == Role::Evaluator));
        let mut nonce = [0u8; 32];
        rng.fill_bytes(&mut nonce);
        let session = malicious_hello(&mut ch, party, command, nonce)?;
        let (ch, prep) = preprocess_over(ch, role, &session, rng)?;
        Ok(MaliciousSession {
            ch,
            prep,
            role,
            start,
            setup: start.elapsed(),
        })
    }

    /// Runs `stream` once per input set in `batch` (`run --executions K`: the executions
    /// share the base OTs and the preprocessing's surplus triples). Returns the report (the
    /// first execution's outputs) and every execution's outputs.
    pub fn run_stream(
        &mut self,
        stream: &mut dyn GateStream,
        terms: &Terms,
        batch: &[Vec<Vec<bool>>],
        insecure_seed: Option<u64>,
    ) -> Result<(PartyReport, Vec<Outputs>), CliError> {
        let settings = Settings {
            insecure_seed,
            ..Settings::default()
        };
        // The executions' triples are announced up to one `--batch-ands` batch ahead, so
        // the preprocessing makes them in batches that large across executions (B = 3 from
        // 280,000 triples; WRK17 Fig. 9 and its table) within the memory the batch allows.
        let ands = stream.header().num_ands();
        let mut outcomes = Vec::with_capacity(batch.len());
        for (done, inputs) in batch.iter().enumerate() {
            let left = ands.saturating_mul((batch.len() - done) as u64);
            self.prep.plan_triples(left.min(terms.batch_ands as u64));
            let out = match self.role {
                Role::Garbler => {
                    run_garbler_stream(&mut self.ch, &mut self.prep, stream, terms, inputs, &settings)?
                }
                Role::Evaluator => {
                    run_evaluator_stream(&mut self.ch, &mut self.prep, stream, terms, inputs, &settings)?
                }
            };
            outcomes.push(out);
        }
        let ands = ands * batch.len() as u64;
        Ok((self.report(outcomes.first().cloned().flatten(), ands), outcomes))
    }

    /// This party's id.
    pub fn role_id(&self) -> PartyId {
        match self.role {
            Role::Garbler => PartyId::GARBLER,
            Role::Evaluator => PartyId::EVALUATOR,
        }
    }

    /// The report of the run so far.
    pub fn report(&self, outputs: Option<Vec<Vec<bool>>>, ands: u64) -> PartyReport {
        PartyReport {
            role: self.role_id(),
            outputs,
            ands,
            bytes_sent: self.ch.bytes_sent(),
            bytes_received: self.ch.bytes_received(),
            elapsed: self.start.elapsed(),
            base_ot: self.setup,
        }
    }
}

/// Both parties compare what they run (`name`, e.g. a library op with its parameters), the
/// garbler first; a difference names both.
pub fn agree_on_name<C: Channel>(ch: &mut C, role: Role, name: &str) -> Result<(), CliError> {
    /// The longest name compared.
    const MAX_NAME: usize = 1024;
    let ours = &name.as_bytes()[..name.len().min(MAX_NAME)];
    let mut msg = (ours.len() as u16).to_le_bytes().to_vec();
    msg.extend_from_slice(ours);
    let receive = |ch: &mut C| -> Result<Vec<u8>, CliError> {
        let mut len = [0u8; 2];
        ch.recv(&mut len)?;
        let len = u16::from_le_bytes(len) as usize;
        if len > MAX_NAME {
            return Err(format!("the peer sent a run name of {len} bytes (at most {MAX_NAME})").into());
        }
        let mut theirs = vec![0u8; len];
        ch.recv(&mut theirs)?;
        Ok(theirs)
    };
    let theirs = if role == Role::Garbler {
        ch.send(&msg)?;
        ch.flush()?;
        receive(ch)?
    } else {
        let theirs = receive(ch)?;
        ch.send(&msg)?;
        ch.flush()?;
        theirs
    };
    if theirs != ours {
        return Err(format!(
            "the parties disagree: this party runs '{name}', the peer '{}'",
            String::from_utf8_lossy(&theirs)
        )
        .into());
    }
    Ok(())
}
