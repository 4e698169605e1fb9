//! Library ops (millionaires, auction, ...) run between two parties, gate by gate.

use std::time::Instant;

use mixgc_net::Channel;
use mixgc_program::library::{self, Supply};
use mixgc_program::PartyId;
use mixgc_session::{
    stop_at_failure, Audience, EvaluatorSession, GarblerSession, PartyReport, SessionConfig,
};
use rand::Rng;

use super::malicious::{agree_on_name, MaliciousSession};
use super::CliError;
use mixgc_malicious::{MaliciousProgram, Preprocessor, Settings};

/// A library op ready to run between two parties.
pub struct LibraryRun {
    name: String,
    width: Option<u32>,
    size: Option<usize>,
    /// Owner and width of each input value, in order.
    inputs: Vec<(PartyId, u32)>,
    /// The most wires alive at once on the cost counter (see [`mixgc_program::Counter`]).
    pub peak_live_wires: u64,
}

impl LibraryRun {
    pub fn new(name: &str, width: Option<u32>, size: Option<usize>) -> Result<Self, CliError> {
        let shape = library::shape(name, width, size)?;
        Ok(LibraryRun {
            name: name.into(),
            width,
            size,
            inputs: shape.inputs().to_vec(),
            peak_live_wires: shape.peak_live_wires(),
        })
    }

    /// The input values `role` owns (indices) and every input's width.
    pub fn owned(&self, role: PartyId) -> (Vec<usize>, Vec<u32>) {
        let owned = (0..self.inputs.len())
            .filter(|&i| self.inputs[i].0 == role)
            .collect();
        (owned, self.inputs.iter().map(|&(_, w)| w).collect())
    }

    /// Runs `role` with its `inputs` over `ch`: session setup, then the op gate by gate.
    pub fn run<C: Channel + 'static>(
        &self,
        ch: C,
        role: PartyId,
        cfg: &SessionConfig,
        inputs: Vec<Vec<bool>>,
    ) -> Result<PartyReport, CliError> {
        let start = Instant::now();
        // Checks the parameters; the handshake binds them as `key=value` words, so a
        // mismatch names the differing one with both values.
        library::run_name(&self.name, self.width, self.size)?;
        let info = library::op(&self.name)?;
        let shown = |v: Option<String>| v.unwrap_or_else(|| "none".into());
        let run_name = format!(
            "library op={} width={} size={}",
            self.name,
            shown(self.width.or(info.default_width).map(|w| w.to_string())),
            shown(self.size.or(info.default_size).map(|n| n.to_string()))
        );
        let mut supply = Supply::of(role, inputs);
        let (name, width, size) = (self.name.as_str(), self.width, self.size);
        // The same run on either party's session (the two types share no trait).
        macro_rules! run_on {
            ($session:ty) => {{
                let mut s = <$session>::setup(ch, cfg)?;
                let mut backend = s.program(&run_name, Audience::BOTH)?;
                let (learned, ands) = stop_at_failure(|| -> Result<_, CliError> {
                    let learned = library::build(&mut backend, name, width, size, &mut supply)?;
                    Ok((learned, backend.finish()?))
                })?;
                let ch = s.channel();
                (
                    learned,
                    ands,
                    ch.bytes_sent(),
                    ch.bytes_received(),
                    s.base_ot_time(),
                )
            }};
        }
        let (learned, ands, sent, received, base_ot) = if role == PartyId::GARBLER {
            run_on!(GarblerSession<C>)
        } else {
            run_on!(EvaluatorSession<C>)
        };
        let outputs = learned.into_iter().collect::<Option<Vec<_>>>();
        Ok(PartyReport {
            role,
            outputs,
            ands,
            bytes_sent: sent,
            bytes_received: received,
            elapsed: start.elapsed(),
            base_ot,
        })
    }

    /// Runs `role` in the malicious model: the op gate by gate on a `MaliciousProgram`
    /// (the same program, thesis §3.4.1), in batches of `batch_ands` AND gates.
    pub fn run_malicious<C: Channel>(
        &self,
        session: &mut MaliciousSession<C>,
        batch_ands: usize,
        insecure_seed: Option<u64>,
        inputs: Vec<Vec<bool>>,
    ) -> Result<PartyReport, CliError> {
        library::run_name(&self.name, self.width, self.size)?;
        let info = library::op(&self.name)?;
        let shown = |v: Option<String>| v.unwrap_or_else(|| "none".into());
        let run_name = format!(
            "library op={} width={} size={}",
            self.name,
            shown(self.width.or(info.default_width).map(|w| w.to_string())),
            shown(self.size.or(info.default_size).map(|n| n.to_string()))
        );
        agree_on_name(&mut session.ch, session.role, &run_name)?;
        // The op's AND count (the counter backend, constant memory) is announced to the
        // preprocessing up to one `--batch-ands` batch, which bounds its memory (B = 3 from
        // 280,000 triples, WRK17 Fig. 9, takes a batch that large).
        let ands = library::cost(&self.name, self.width, self.size)?.ands;
        session.prep.plan_triples(ands.min(batch_ands as u64));
        let mut supply = Supply::of(session.role_id(), inputs);
        let settings = Settings {
            insecure_seed,
            ..Settings::default()
        };
        let (learned, ands) = {
            let mut backend =
                MaliciousProgram::new(&mut session.ch, &mut session.prep, batch_ands, &settings)?;
            let learned = library::build(&mut backend, &self.name, self.width, self.size, &mut supply)?;
            (learned, backend.ands())
        };
        let outputs = learned.into_iter().collect::<Option<Vec<_>>>();
        Ok(session.report(outputs, ands))
    }

    /// The op on the plaintext backend: the reference answer.
    pub fn plain(
        &self,
        garbler: Vec<Vec<bool>>,
        evaluator: Vec<Vec<bool>>,
    ) -> Result<Vec<Vec<bool>>, CliError> {
        let mut p = mixgc_program::Plain::default();
        let out = library::build(
            &mut p,
            &self.name,
            self.width,
            self.size,
            &mut Supply::both(garbler, evaluator),
        )?;
        Ok(out.into_iter().flatten().collect())
    }
}

/// Uniformly random values for the `owned` input values.
pub fn random_values(owned: &[usize], widths: &[u32]) -> Vec<Vec<bool>> {
    let mut rng = rand::thread_rng();
    owned
        .iter()
        .map(|&v| (0..widths[v]).map(|_| rng.gen()).collect())
        .collect()
}
