//! The online input and output steps (Ben-Efraim–Lindell–Omri, CCS 2016, §3, "Online
//! phase": the owner of an input learns its λ and broadcasts Λ = x ⊕ λ, every party then
//! broadcasts its key for Λ; outputs are opened by the λ shares).

use mixgc_circuit::Circuit;
use mixgc_net::Tag;

use super::frames::{recv_bits, recv_blocks, send_bits, send_blocks};
use super::state::{Active, Shares};
use crate::{Job, Mesh, NpartyError};

/// The input wires of the values `party` owns, in circuit order.
fn wires_of(job: &Job, party: usize) -> Vec<usize> {
    let ranges = job.circuit.input_wire_ranges();
    job.mine(party)
        .flat_map(|v| ranges[v].clone())
        .map(|w| w as usize)
        .collect()
}

/// Gives every party Λ_w and all n active keys of every input wire; `inputs` are this
/// party's own values in circuit order (checked by [`Job::check`]). Returns the rounds.
pub(super) fn exchange_inputs(
    mesh: &mut Mesh,
    job: &Job,
    sh: &Shares,
    act: &mut Active,
    inputs: &[Vec<bool>],
) -> Result<u64, NpartyError> {
    let total = job.circuit.total_input_bits() as usize;
    if total == 0 {
        return Ok(0);
    }
    let (me, n) = (mesh.me(), mesh.parties());
    mesh.set_phase("the openings of the input masks");
    let owned: Vec<Vec<usize>> = (0..n).map(|p| wires_of(job, p)).collect();
    // Round 1: every party's λ shares of an input wire go to its owner.
    for p in mesh.peers() {
        let shares: Vec<bool> = owned[p].iter().map(|&w| sh.lambda[w]).collect();
        send_bits(mesh, p, Tag::Openings, &shares)?;
    }
    // Round 2: the owner broadcasts Λ_w = x_w ⊕ λ_w.
    let mine = &owned[me];
    if !mine.is_empty() {
        let mut masked: Vec<bool> = inputs
            .iter()
            .flatten()
            .zip(mine)
            .map(|(&x, &w)| x ^ sh.lambda[w])
            .collect();
        for p in mesh.peers() {
            for (m, s) in masked
                .iter_mut()
                .zip(recv_bits(mesh, p, Tag::Openings, mine.len())?)
            {
                *m ^= s;
            }
        }
        for p in mesh.peers() {
            send_bits(mesh, p, Tag::Openings, &masked)?;
        }
        for (&w, m) in mine.iter().zip(masked) {
            act.masked[w] = m;
        }
    }
    for p in mesh.peers() {
        if !owned[p].is_empty() {
            let masked = recv_bits(mesh, p, Tag::Openings, owned[p].len())?;
            for (&w, m) in owned[p].iter().zip(masked) {
                act.masked[w] = m;
            }
        }
    }
    // Round 3: every party broadcasts its key k^i_{w,Λ_w} of every input wire.
    mesh.set_phase("the input wire keys");
    let keys: Vec<_> = (0..total).map(|w| sh.key(w, act.masked[w])).collect();
    for p in mesh.peers() {
        send_blocks(mesh, p, Tag::WireKeys, &keys)?;
    }
    for (w, &k) in keys.iter().enumerate() {
        act.keys[w * n + me] = k;
    }
    for p in mesh.peers() {
        for (w, k) in recv_blocks(mesh, p, Tag::WireKeys, total)?
            .into_iter()
            .enumerate()
        {
            act.keys[w * n + p] = k;
        }
    }
    Ok(3)
}

/// The output values, least significant bit first, at a member of the audience.
type Outputs = Option<Vec<Vec<bool>>>;

/// Opens the outputs to the audience: every party sends its λ shares of the output wires
/// to every member, who computes x_w = Λ_w ⊕ λ_w. Returns the outputs (at a member) and the
/// rounds.
pub(super) fn reveal_outputs(
    mesh: &mut Mesh,
    job: &Job,
    sh: &Shares,
    act: &Active,
) -> Result<(Outputs, u64), NpartyError> {
    let c: &Circuit = job.circuit;
    let me = mesh.me();
    let wires: Vec<usize> = c.output_wires.iter().map(|&w| w as usize).collect();
    let shares: Vec<bool> = wires.iter().map(|&w| sh.lambda[w]).collect();
    mesh.set_phase("the openings of the outputs");
    let members: Vec<usize> = job.audience.parties().map(|p| p.index()).collect();
    for &p in members.iter().filter(|&&p| p != me) {
        send_bits(mesh, p, Tag::Openings, &shares)?;
    }
    let rounds = u64::from(!wires.is_empty() && !members.is_empty());
    if !job.learns(me) {
        mesh.flush()?;
        return Ok((None, rounds));
    }
    let mut bits: Vec<bool> = wires
        .iter()
        .zip(shares)
        .map(|(&w, s)| act.masked[w] ^ s)
        .collect();
    for p in mesh.peers() {
        for (b, s) in bits
            .iter_mut()
            .zip(recv_bits(mesh, p, Tag::Openings, wires.len())?)
        {
            *b ^= s;
        }
    }
    let mut rest = bits.as_slice();
    let outputs = c
        .output_widths
        .iter()
        .map(|&width| {
            let (value, tail) = rest.split_at(width as usize);
            rest = tail;
            value.to_vec()
        })
        .collect();
    Ok((Some(outputs), rounds))
}
