//! The online input and output steps (Ben-Efraim–Lindell–Omri, CCS 2016, §3, "Online
//! phase": the owner of an input learns its λ and broadcasts Λ = x ⊕ λ, every party then
//! broadcasts its key for Λ; outputs are opened by the λ shares).

use mixgc_compile::StreamHeader;
use mixgc_core::Block;
use mixgc_net::Tag;

use super::frames::{recv_bits, recv_blocks, send_bits, send_blocks};
use super::state::{Active, Shares};
use crate::{Mesh, NpartyError, Roles};

/// This party's λ share and 0-key of every input bit, as made before the first batch (the
/// batch may reuse an input's slot before the inputs are exchanged).
#[derive(Default)]
pub(super) struct InputShares {
    pub lambda: Vec<bool>,
    pub key0: Vec<Block>,
}

/// Gives every party Λ_w and all n active keys of every input slot of a stream; `inputs`
/// are this party's own values in order (checked by [`Roles::check`]). Returns the rounds.
pub(super) fn exchange_inputs(
    mesh: &mut Mesh,
    roles: &Roles,
    header: &StreamHeader,
    own: &InputShares,
    delta: Block,
    act: &mut Active,
    inputs: &[Vec<bool>],
) -> Result<u64, NpartyError> {
    let widths = header.input_widths();
    let owned: Vec<Vec<usize>> = (0..mesh.parties()).map(|p| roles.bits_of(widths, p)).collect();
    let mine: Vec<bool> = inputs.iter().flatten().copied().collect();
    exchange_input_bits(mesh, &owned, header.input_slots(), own, delta, act, &mine)
}

/// The input step for the bits in `slots`: `owned[p]` are the indices (into `slots`) of
/// the bits party p owns, `mine_values` this party's own values of the bits `owned[me]`, `own`
/// this party's λ share and 0-key of every bit. Gives every party Λ_w and all n active
/// keys of every bit; returns the rounds (3, or 0 without bits).
pub(super) fn exchange_input_bits(
    mesh: &mut Mesh,
    owned: &[Vec<usize>],
    slots: &[u32],
    own: &InputShares,
    delta: Block,
    act: &mut Active,
    mine_values: &[bool],
) -> Result<u64, NpartyError> {
    let total = slots.len();
    if total == 0 {
        return Ok(0);
    }
    let (me, n) = (mesh.me(), mesh.parties());
    mesh.set_phase("the openings of the input masks");
    // Round 1: every party's λ shares of an input bit go to its owner.
    for p in mesh.peers() {
        let shares: Vec<bool> = owned[p].iter().map(|&i| own.lambda[i]).collect();
        send_bits(mesh, p, Tag::Openings, &shares)?;
    }
    // Round 2: the owner broadcasts Λ = x ⊕ λ.
    let mut masked = vec![false; total];
    let mine = &owned[me];
    if !mine.is_empty() {
        let mut opened: Vec<bool> = mine_values
            .iter()
            .zip(mine)
            .map(|(&x, &i)| x ^ own.lambda[i])
            .collect();
        for p in mesh.peers() {
            for (m, s) in opened
                .iter_mut()
                .zip(recv_bits(mesh, p, Tag::Openings, mine.len())?)
            {
                *m ^= s;
            }
        }
        for p in mesh.peers() {
            send_bits(mesh, p, Tag::Openings, &opened)?;
        }
        for (&i, m) in mine.iter().zip(opened) {
            masked[i] = m;
        }
    }
    for p in mesh.peers() {
        if !owned[p].is_empty() {
            for (&i, m) in owned[p]
                .iter()
                .zip(recv_bits(mesh, p, Tag::Openings, owned[p].len())?)
            {
                masked[i] = m;
            }
        }
    }
    // Round 3: every party broadcasts its key k^i_{w,Λ_w} of every input bit.
    mesh.set_phase("the input wire keys");
    let keys: Vec<Block> = (0..total)
        .map(|i| own.key0[i] ^ delta.and_bit(masked[i]))
        .collect();
    for p in mesh.peers() {
        send_blocks(mesh, p, Tag::WireKeys, &keys)?;
    }
    for (i, (&s, &k)) in slots.iter().zip(&keys).enumerate() {
        act.masked[s as usize] = masked[i];
        act.keys[s as usize * n + me] = k;
    }
    for p in mesh.peers() {
        for (&s, k) in slots.iter().zip(recv_blocks(mesh, p, Tag::WireKeys, total)?) {
            act.keys[s as usize * n + p] = k;
        }
    }
    Ok(3)
}

/// The output values, least significant bit first, at a member of the audience.
type Outputs = Option<Vec<Vec<bool>>>;

/// Opens the outputs of a stream to its audience (see [`open_bits`]), value by value.
pub(super) fn reveal_outputs(
    mesh: &mut Mesh,
    roles: &Roles,
    header: &StreamHeader,
    sh: &Shares,
    act: &Active,
) -> Result<(Outputs, u64), NpartyError> {
    let members: Vec<usize> = roles.audience.parties().map(|p| p.index()).collect();
    let (bits, rounds) = open_bits(mesh, &members, header.output_slots(), sh, act)?;
    let outputs = bits.map(|bits| {
        let mut rest = bits.as_slice();
        header
            .output_widths()
            .iter()
            .map(|&width| {
                let (value, tail) = rest.split_at(width as usize);
                rest = tail;
                value.to_vec()
            })
            .collect()
    });
    Ok((outputs, rounds))
}

/// Opens the wires in `slots` to the parties `members`: every party sends its λ shares to
/// every member, who computes x_w = Λ_w ⊕ λ_w. Returns the bits (at a member) and the
/// rounds.
pub(super) fn open_bits(
    mesh: &mut Mesh,
    members: &[usize],
    slots: &[u32],
    sh: &Shares,
    act: &Active,
) -> Result<(Option<Vec<bool>>, u64), NpartyError> {
    let me = mesh.me();
    let shares: Vec<bool> = slots.iter().map(|&s| sh.lambda[s as usize]).collect();
    mesh.set_phase("the openings of the outputs");
    for &p in members.iter().filter(|&&p| p != me) {
        send_bits(mesh, p, Tag::Openings, &shares)?;
    }
    let rounds = u64::from(!slots.is_empty() && !members.is_empty());
    if !members.contains(&me) {
        mesh.flush()?;
        return Ok((None, rounds));
    }
    let mut bits: Vec<bool> = slots
        .iter()
        .zip(shares)
        .map(|(&s, share)| act.masked[s as usize] ^ share)
        .collect();
    for p in mesh.peers() {
        for (b, s) in bits
            .iter_mut()
            .zip(recv_bits(mesh, p, Tag::Openings, slots.len())?)
        {
            *b ^= s;
        }
    }
    Ok((Some(bits), rounds))
}
