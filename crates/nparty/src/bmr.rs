//! BMR: semi-honest n-party garbling with free-XOR (Ben-Efraim, Lindell, Omri, "Optimizing
//! Semi-Honest Secure Multiparty Computation for the Internet", CCS 2016 — BLO16; the BMR
//! baseline of the seed paper and of the TinyGarble2 thesis §2.5).
//!
//! Every party i holds a global offset Δ_i (lsb 1) and, per wire w, a share λ^i_w of the
//! wire's mask λ_w and a key pair (k^i_{w,0}, k^i_{w,0} ⊕ Δ_i). XOR gates are free (shares
//! and keys XOR). Offline, the parties jointly build each AND gate's table of 4 rows × n
//! keys, XOR-shared, in a constant number of rounds per batch of AND gates (products of
//! shared bits and Δ-products from pairwise OT, see [`Correlations`]); each party then
//! broadcasts its shares. Online, the input owners publish their masked values Λ = x ⊕ λ,
//! everyone publishes its keys for them, and every party evaluates the whole circuit
//! locally; the audience learns the outputs from the λ shares of the output wires.
//!
//! The circuit goes in batches of at most [`BmrOptions::batch_ands`] AND gates, in circuit
//! order: each batch is garbled, then evaluated, and its tables dropped.

mod eval;
mod frames;
mod garble;
mod io;
mod state;
#[cfg(test)]
mod tests;
mod tweak;

use std::time::{Duration, Instant};

use mixgc_core::{Block, Rng, Tccr};

use crate::{Correlations, Job, Mesh, NpartyError, Outcome};
use garble::{garble_segment, segments};
use state::{Active, Shares};

/// Settings of a BMR run (the same at every party).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BmrOptions {
    /// Most AND gates garbled (and their tables held) at once; at least 1.
    pub batch_ands: usize,
}

impl Default for BmrOptions {
    fn default() -> Self {
        BmrOptions { batch_ands: 1 << 16 }
    }
}

/// Test-only deviations from the protocol and observations of a run.
#[derive(Clone, Copy, Debug, Default)]
struct Hooks {
    /// Send corrupted garbled-table shares in every batch.
    corrupt_table_shares: bool,
    /// Set by the run: the bytes this party sent during the setup (base OTs).
    setup_sent: u64,
}

/// Runs `job` by BMR as this party of `mesh`, with `inputs` this party's own input values
/// in circuit order and `session` the run's session id (the same at every party).
pub fn run(
    mesh: &mut Mesh,
    job: &Job,
    inputs: &[Vec<bool>],
    session: &[u8; 32],
    rng: &mut Rng,
    options: &BmrOptions,
) -> Result<Outcome, NpartyError> {
    run_with(mesh, job, inputs, session, rng, options, &mut Hooks::default())
}

fn run_with(
    mesh: &mut Mesh,
    job: &Job,
    inputs: &[Vec<bool>],
    session: &[u8; 32],
    rng: &mut Rng,
    options: &BmrOptions,
    hooks: &mut Hooks,
) -> Result<Outcome, NpartyError> {
    let (me, n) = (mesh.me(), mesh.parties());
    job.check(me, n, inputs)?;
    if n > tweak::MAX_PARTIES {
        return Err(NpartyError::Usage(format!(
            "BMR runs at most {} parties, not {n}",
            tweak::MAX_PARTIES
        )));
    }
    if options.batch_ands == 0 {
        return Err(NpartyError::Usage(
            "the BMR batch must hold at least one AND gate".into(),
        ));
    }
    let c = job.circuit;
    c.validate()
        .map_err(|e| NpartyError::Usage(format!("the circuit is not valid: {e}")))?;

    let start = Instant::now();
    let delta = Block::random(rng).with_lsb_set();
    let mut corr = Correlations::setup(mesh, session, delta, rng)?;
    let setup_bytes = mesh.bytes();
    hooks.setup_sent = setup_bytes.iter().map(|b| b.0).sum();
    let hash = Tccr::default();
    let num_wires = c.num_wires as usize;
    let mut shares = Shares::new(me, n, delta, num_wires);
    let mut active = Active::new(n, num_wires);
    let mut offline = start.elapsed();
    let mut online = Duration::ZERO;
    let mut online_rounds = 0;
    for (k, seg) in segments(c, options.batch_ands).iter().enumerate() {
        let t = Instant::now();
        let fresh_inputs = if k == 0 {
            0..c.total_input_bits() as usize
        } else {
            0..0
        };
        let tables = garble_segment(
            &mut shares,
            mesh,
            &mut corr,
            &hash,
            c,
            seg,
            fresh_inputs,
            rng,
            hooks.corrupt_table_shares,
        )?;
        offline += t.elapsed();
        let t = Instant::now();
        if k == 0 {
            online_rounds += io::exchange_inputs(mesh, job, &shares, &mut active, inputs)?;
        }
        eval::evaluate_segment(&mut active, &shares, &hash, c, seg, &tables)?;
        online += t.elapsed();
    }
    let t = Instant::now();
    let (outputs, rounds) = io::reveal_outputs(mesh, job, &shares, &active)?;
    online += t.elapsed();
    Ok(Outcome {
        outputs,
        ands: c
            .kind
            .iter()
            .filter(|&&k| k == mixgc_circuit::GateKind::And)
            .count() as u64,
        offline,
        online,
        online_rounds: online_rounds + rounds,
        setup_bytes,
    })
}
