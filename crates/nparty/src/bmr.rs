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
//! The circuit runs as a compiled stream (`mixgc_compile`: scheduled, slot-allocated, in
//! memory or read chunk by chunk from a file), with every per-wire array indexed by slot,
//! in batches of at most [`BmrOptions::batch_ands`] AND gates in stream order: each batch
//! is garbled, then evaluated, and its tables dropped. Memory is O(live wires + batch),
//! not O(circuit).

mod engine;
mod eval;
mod frames;
mod garble;
mod io;
mod labels;
mod program;
#[cfg(test)]
mod program_tests;
mod state;
#[cfg(test)]
mod tests;
mod tweak;

use std::time::Instant;

use mixgc_compile::GateStream;
use mixgc_core::{Reporter, Rng, Unit};

use crate::batches::{for_each_batch, slot_count, Op};
use crate::{Job, Mesh, NpartyError, Outcome, Roles};
use engine::Engine;
use io::InputShares;
pub use labels::Labels;
pub use program::{run_program, ProgramBackend, ProgramRun};

/// Settings of a BMR run (`batch_ands` the same at every party).
#[derive(Clone, Debug)]
pub struct BmrOptions {
    /// Most AND gates garbled (and their tables held) at once; at least 1. The default,
    /// 2^14, keeps a party of 3 near 22 MiB of peak RSS on a chain of any length (2^16:
    /// about 57 MiB), with the same speed.
    pub batch_ands: usize,
    /// Told the ANDs garbled and evaluated after each batch, in one phase "garbling and
    /// evaluating" of the stream's AND count (default: nowhere).
    pub progress: Reporter,
}

impl Default for BmrOptions {
    fn default() -> Self {
        BmrOptions {
            batch_ands: 1 << 14,
            progress: Reporter::none(),
        }
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
    let compiled = job.compiled(mesh.me(), mesh.parties(), inputs)?;
    let roles = job.roles();
    run_stream_with(
        mesh,
        &mut compiled.stream(),
        &roles,
        inputs,
        session,
        rng,
        options,
        hooks,
    )
}

/// Runs a compiled stream (in memory or from a file) by BMR as this party of `mesh`:
/// `roles` says who owns each input value and who learns the outputs, `inputs` are this
/// party's own values in the header's order, `session` the run's session id. Every party
/// must run the same stream (compare [`mixgc_compile::StreamHeader::stream_digest`]).
pub fn run_stream(
    mesh: &mut Mesh,
    stream: &mut dyn GateStream,
    roles: &Roles,
    inputs: &[Vec<bool>],
    session: &[u8; 32],
    rng: &mut Rng,
    options: &BmrOptions,
) -> Result<Outcome, NpartyError> {
    run_stream_with(
        mesh,
        stream,
        roles,
        inputs,
        session,
        rng,
        options,
        &mut Hooks::default(),
    )
}

#[allow(clippy::too_many_arguments)]
fn run_stream_with(
    mesh: &mut Mesh,
    stream: &mut dyn GateStream,
    roles: &Roles,
    inputs: &[Vec<bool>],
    session: &[u8; 32],
    rng: &mut Rng,
    options: &BmrOptions,
    hooks: &mut Hooks,
) -> Result<Outcome, NpartyError> {
    let (me, n) = (mesh.me(), mesh.parties());
    let header = stream.header().clone();
    roles.check(header.input_widths(), me, n, inputs)?;
    let slots = slot_count(&header)?;
    let mut engine = Engine::setup(mesh, session, rng, options, slots)?;
    engine.tamper = hooks.corrupt_table_shares;
    hooks.setup_sent = engine.setup_bytes.iter().map(|b| b.0).sum();
    let t = Instant::now();
    let input_slots = header.input_slots();
    for &s in input_slots {
        engine.shares.fresh(s as usize, rng);
    }
    // Kept aside: the first batch may reuse an input's slot before the inputs are exchanged.
    let own_inputs = InputShares {
        lambda: input_slots
            .iter()
            .map(|&s| engine.shares.lambda[s as usize])
            .collect(),
        key0: input_slots
            .iter()
            .map(|&s| engine.shares.key0[s as usize])
            .collect(),
    };
    engine.offline += t.elapsed();
    let mut first = true;
    let progress = &options.progress;
    progress.begin("garbling and evaluating", Some(header.num_ands()), Unit::Ands);
    let ands = for_each_batch(stream, options.batch_ands, |ops: &[Op]| {
        let fresh = if first { input_slots } else { &[] };
        let before = engine.next_and;
        engine.run_batch(mesh, ops, fresh, rng, |mesh, active, delta| {
            if !std::mem::take(&mut first) {
                return Ok(0);
            }
            io::exchange_inputs(mesh, roles, &header, &own_inputs, delta, active, inputs)
        })?;
        progress.advance(engine.next_and - before);
        Ok(())
    });
    progress.end();
    let ands = ands?;
    let t = Instant::now();
    let (outputs, rounds) = io::reveal_outputs(mesh, roles, &header, &engine.shares, &engine.active)?;
    let online = engine.online + t.elapsed();
    Ok(Outcome {
        outputs,
        ands,
        offline: engine.offline,
        online,
        online_rounds: engine.online_rounds + rounds,
        setup_bytes: engine.setup_bytes,
    })
}
