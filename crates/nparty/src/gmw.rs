//! GMW (Goldreich–Micali–Wigderson, STOC 1987) for n parties, semi-honest with up to n − 1
//! corruptions: every wire XOR-shared among all parties, XOR and NOT free, each AND by a
//! Boolean Beaver triple (a, b, c = a·b) from [`Correlations::triples`]: the parties open
//! d = x ⊕ a and e = y ⊕ b and take z = c ⊕ d·b ⊕ e·a ⊕ d·e (the last term at party 0).
//!
//! The circuit is levelled first: all ANDs of one AND depth are opened in one round, so a
//! run takes as many online rounds as the circuit has AND levels, never one per gate.

use std::time::Instant;

use mixgc_circuit::{Circuit, GateKind};
use mixgc_core::{Block, Rng};
use mixgc_net::Tag;
use rand::Rng as _;

use crate::bits::{pack, unpack};
use crate::{Correlations, Job, Mesh, NpartyError, Outcome};

/// Runs `job` with GMW. `inputs` are this party's own input values, in circuit order.
pub fn run(
    mesh: &mut Mesh,
    job: &Job,
    inputs: &[Vec<bool>],
    session: &[u8; 32],
    rng: &mut Rng,
) -> Result<Outcome, NpartyError> {
    let me = mesh.me();
    job.check(me, mesh.parties(), inputs)?;
    job.circuit
        .validate()
        .map_err(|e| NpartyError::Usage(format!("the circuit is not valid: {e}")))?;
    let c = job.circuit;
    let ands = c.kind.iter().filter(|&&k| k == GateKind::And).count();

    let start = Instant::now();
    let mut corr = Correlations::setup(mesh, session, Block::random(rng), rng)?;
    let setup_bytes = mesh.bytes();
    let triples = corr.triples(mesh, ands, rng)?;
    let offline = start.elapsed();

    let start = Instant::now();
    let mut wires = share_inputs(mesh, job, inputs, rng)?;
    wires.resize(c.num_wires as usize, false);
    let levels = Levels::of(c);
    mesh.set_phase("the AND levels");
    let mut used = 0;
    for level in &levels.by_level {
        let (level_ands, free): (Vec<u32>, Vec<u32>) =
            level.iter().partition(|&&g| c.kind[g as usize] == GateKind::And);
        if !level_ands.is_empty() {
            and_round(mesh, c, &level_ands, &mut wires, &triples, used)?;
            used += level_ands.len();
        }
        for g in free {
            free_gate(c, g as usize, &mut wires, me);
        }
    }
    let outputs = reveal(mesh, job, &wires)?;
    Ok(Outcome {
        outputs,
        ands: ands as u64,
        offline,
        online: start.elapsed(),
        online_rounds: levels.and_levels,
        setup_bytes,
    })
}

/// This party's shares of the input wires (wires 0..total input bits): it splits each of
/// its values into n random shares, sends party j its share and keeps the rest.
fn share_inputs(
    mesh: &mut Mesh,
    job: &Job,
    inputs: &[Vec<bool>],
    rng: &mut Rng,
) -> Result<Vec<bool>, NpartyError> {
    let c = job.circuit;
    let me = mesh.me();
    let ranges = c.input_wire_ranges();
    let mut wires = vec![false; c.total_input_bits() as usize];
    let mine: Vec<usize> = job.mine(me).collect();
    for (&v, x) in mine.iter().zip(inputs) {
        wires[ranges[v].start as usize..ranges[v].end as usize].copy_from_slice(x);
    }
    mesh.set_phase("the sharing of inputs");
    for j in mesh.peers() {
        let share: Vec<bool> = mine
            .iter()
            .flat_map(|&v| ranges[v].clone())
            .map(|w| {
                let r: bool = rng.gen();
                wires[w as usize] ^= r;
                r
            })
            .collect();
        mesh.send(j, Tag::Openings, &pack(&share))?;
    }
    for j in mesh.peers() {
        let theirs: Vec<u32> = job.mine(j).flat_map(|v| ranges[v].clone()).collect();
        let got = mesh.recv_exact(j, Tag::Openings, theirs.len().div_ceil(8))?;
        for (w, b) in theirs.iter().zip(unpack(&got, theirs.len())) {
            wires[*w as usize] = b;
        }
    }
    Ok(wires)
}

/// Opens d = x ⊕ a and e = y ⊕ b for the ANDs `gates` (one frame to and from every party)
/// and sets their outputs' shares. `first` is the index of the first unused triple.
fn and_round(
    mesh: &mut Mesh,
    c: &Circuit,
    gates: &[u32],
    wires: &mut [bool],
    t: &crate::Triples,
    first: usize,
) -> Result<(), NpartyError> {
    let m = gates.len();
    let mut de = Vec::with_capacity(2 * m);
    for (k, &g) in gates.iter().enumerate() {
        de.push(wires[c.a[g as usize] as usize] ^ t.a[first + k]);
    }
    for (k, &g) in gates.iter().enumerate() {
        de.push(wires[c.b[g as usize] as usize] ^ t.b[first + k]);
    }
    mesh.send_all(Tag::Openings, &pack(&de))?;
    let mut open = de;
    for j in mesh.peers() {
        let got = mesh.recv_exact(j, Tag::Openings, (2 * m).div_ceil(8))?;
        for (o, b) in open.iter_mut().zip(unpack(&got, 2 * m)) {
            *o ^= b;
        }
    }
    let lead = mesh.me() == 0;
    for (k, &g) in gates.iter().enumerate() {
        let (d, e) = (open[k], open[m + k]);
        let i = first + k;
        wires[c.out[g as usize] as usize] = t.c[i] ^ (d & t.b[i]) ^ (e & t.a[i]) ^ (lead & d & e);
    }
    Ok(())
}

/// A gate that needs no communication. Party 0 holds the constants and applies NOT.
fn free_gate(c: &Circuit, g: usize, wires: &mut [bool], me: usize) {
    let (a, b) = (c.a[g] as usize, c.b[g] as usize);
    wires[c.out[g] as usize] = match c.kind[g] {
        GateKind::Xor => wires[a] ^ wires[b],
        GateKind::Not => wires[a] ^ (me == 0),
        GateKind::Copy => wires[a],
        GateKind::Const => me == 0 && c.a[g] == 1,
        GateKind::And => unreachable!("ANDs are opened by level"),
    };
}

/// Every party sends its shares of the output wires to each member of the audience; a
/// member XORs them.
fn reveal(mesh: &mut Mesh, job: &Job, wires: &[bool]) -> Result<Option<Vec<Vec<bool>>>, NpartyError> {
    let c = job.circuit;
    let me = mesh.me();
    let mut out: Vec<bool> = c.output_wires.iter().map(|&w| wires[w as usize]).collect();
    mesh.set_phase("the outputs");
    for j in mesh.peers().filter(|&j| job.learns(j)) {
        mesh.send(j, Tag::Openings, &pack(&out))?;
    }
    if !job.learns(me) {
        mesh.flush()?;
        return Ok(None);
    }
    let len = out.len();
    for j in mesh.peers() {
        let got = mesh.recv_exact(j, Tag::Openings, len.div_ceil(8))?;
        for (o, b) in out.iter_mut().zip(unpack(&got, len)) {
            *o ^= b;
        }
    }
    let mut bits = out.into_iter();
    Ok(Some(
        c.output_widths
            .iter()
            .map(|&w| bits.by_ref().take(w as usize).collect())
            .collect(),
    ))
}

/// The gates grouped by AND depth: `by_level[ℓ]` holds, in circuit order, the ANDs whose
/// inputs are ready after ℓ − 1 rounds and the free gates that need ℓ rounds.
struct Levels {
    by_level: Vec<Vec<u32>>,
    and_levels: u64,
}

impl Levels {
    fn of(c: &Circuit) -> Levels {
        let mut depth = vec![0u32; c.num_wires as usize];
        let mut by_level: Vec<Vec<u32>> = vec![Vec::new()];
        for g in 0..c.num_gates() {
            let (a, b) = (c.a[g] as usize, c.b[g] as usize);
            let d = match c.kind[g] {
                GateKind::And => depth[a].max(depth[b]) + 1,
                GateKind::Xor => depth[a].max(depth[b]),
                GateKind::Not | GateKind::Copy => depth[a],
                GateKind::Const => 0,
            };
            depth[c.out[g] as usize] = d;
            if by_level.len() <= d as usize {
                by_level.resize(d as usize + 1, Vec::new());
            }
            by_level[d as usize].push(g as u32);
        }
        let and_levels = by_level.len() as u64 - 1;
        Levels { by_level, and_levels }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_count_and_depth() {
        // out = (x0 ∧ x1) ∧ x2, plus a free gate on the first AND.
        let c = Circuit {
            num_wires: 6,
            input_widths: vec![1, 1, 1],
            output_widths: vec![1],
            output_wires: vec![5],
            kind: vec![GateKind::And, GateKind::Not, GateKind::And],
            a: vec![0, 3, 4],
            b: vec![1, 0, 2],
            out: vec![3, 4, 5],
        };
        let l = Levels::of(&c);
        assert_eq!(l.and_levels, 2);
        assert_eq!(l.by_level, [vec![], vec![0, 1], vec![2]]);
    }
}
