//! GMW (Goldreich–Micali–Wigderson, STOC 1987) for n parties, semi-honest with up to n − 1
//! corruptions: every wire XOR-shared among all parties, XOR and NOT free, each AND by a
//! Boolean Beaver triple (a, b, c = a·b) from [`Correlations::triples`]: the parties open
//! d = x ⊕ a and e = y ⊕ b and take z = c ⊕ d·b ⊕ e·a ⊕ d·e (the last term at party 0).
//!
//! The circuit runs as a compiled stream (`mixgc_compile`), its shares indexed by slot, in
//! batches of at most [`GmwOptions::batch_ands`] ANDs: each batch's triples are made, then
//! the batch is levelled and all ANDs of one AND depth are opened in one round, so a batch
//! takes as many online rounds as it has AND levels, never one per gate.

use std::time::Instant;

use mixgc_compile::{GateStream, StreamHeader, NOT_SLOT};
use mixgc_core::{Block, Reporter, Rng, Unit};
use mixgc_net::Tag;
use rand::Rng as _;

use crate::batches::{for_each_batch, slot_count, Op};
use crate::bits::{pack, unpack};
use crate::Roles;
use crate::{Correlations, Job, Mesh, NpartyError, Outcome};

/// Settings of a GMW run on a stream (`batch_ands` the same at every party).
#[derive(Clone, Debug)]
pub struct GmwOptions {
    /// Most AND gates levelled (and their triples held) at once; at least 1.
    pub batch_ands: usize,
    /// Told the ANDs evaluated after each batch, in one phase "evaluating" of the stream's
    /// AND count (default: nowhere).
    pub progress: Reporter,
}

impl Default for GmwOptions {
    fn default() -> Self {
        GmwOptions {
            batch_ands: 1 << 16,
            progress: Reporter::none(),
        }
    }
}

/// Runs `job` with GMW. `inputs` are this party's own input values, in circuit order.
pub fn run(
    mesh: &mut Mesh,
    job: &Job,
    inputs: &[Vec<bool>],
    session: &[u8; 32],
    rng: &mut Rng,
) -> Result<Outcome, NpartyError> {
    let compiled = job.compiled(mesh.me(), mesh.parties(), inputs)?;
    let roles = job.roles();
    run_stream(
        mesh,
        &mut compiled.stream(),
        &roles,
        inputs,
        session,
        rng,
        &GmwOptions::default(),
    )
}

/// Runs a compiled stream with GMW, batch by batch: per batch, its Beaver triples
/// (offline), then one round per AND level of the batch. Memory is the stream's slots (one
/// bit each) plus one batch. `inputs` are this party's own values, in the header's order.
pub fn run_stream(
    mesh: &mut Mesh,
    stream: &mut dyn GateStream,
    roles: &Roles,
    inputs: &[Vec<bool>],
    session: &[u8; 32],
    rng: &mut Rng,
    options: &GmwOptions,
) -> Result<Outcome, NpartyError> {
    let me = mesh.me();
    let header = stream.header().clone();
    roles.check(header.input_widths(), me, mesh.parties(), inputs)?;
    if options.batch_ands == 0 {
        return Err(NpartyError::Usage(
            "the GMW batch must hold at least one AND gate".into(),
        ));
    }
    let mut wires = vec![false; slot_count(&header)?];
    wires[NOT_SLOT as usize] = me == 0;

    let start = Instant::now();
    let mut corr = Correlations::setup(mesh, session, Block::random(rng), rng)?;
    let setup_bytes = mesh.bytes();
    let mut offline = start.elapsed();

    let start = Instant::now();
    share_inputs(mesh, roles, &header, inputs, &mut wires, rng)?;
    let mut online = start.elapsed();
    let mut rounds = 0;
    let mut level = Levelled::new(wires.len());
    let progress = &options.progress;
    progress.begin("evaluating", Some(header.num_ands()), Unit::Ands);
    let ands = for_each_batch(stream, options.batch_ands, |ops| {
        let t = Instant::now();
        let ands = ops.iter().filter(|op| matches!(op, Op::And { .. })).count();
        let triples = if ands == 0 {
            crate::Triples::default()
        } else {
            corr.triples(mesh, ands, rng)?
        };
        offline += t.elapsed();
        let t = Instant::now();
        rounds += level.run(mesh, ops, &mut wires, &triples)?;
        online += t.elapsed();
        progress.advance(ands as u64);
        Ok(())
    });
    progress.end();
    let ands = ands?;
    let t = Instant::now();
    let outputs = reveal(mesh, roles, &header, &wires)?;
    online += t.elapsed();
    Ok(Outcome {
        outputs,
        ands,
        offline,
        online,
        online_rounds: rounds,
        setup_bytes,
    })
}

/// Sets this party's shares of the input slots: it splits each of its input bits into n
/// random shares, sends party j its share and keeps the rest.
fn share_inputs(
    mesh: &mut Mesh,
    roles: &Roles,
    header: &StreamHeader,
    inputs: &[Vec<bool>],
    wires: &mut [bool],
    rng: &mut Rng,
) -> Result<(), NpartyError> {
    let me = mesh.me();
    let (widths, slots) = (header.input_widths(), header.input_slots());
    let mine = roles.bits_of(widths, me);
    let mut kept: Vec<bool> = inputs.iter().flatten().copied().collect();
    mesh.set_phase("the sharing of inputs");
    for j in mesh.peers() {
        let share: Vec<bool> = kept
            .iter_mut()
            .map(|x| {
                let r: bool = rng.gen();
                *x ^= r;
                r
            })
            .collect();
        mesh.send(j, Tag::Openings, &pack(&share))?;
    }
    for (&i, x) in mine.iter().zip(kept) {
        wires[slots[i] as usize] = x;
    }
    for j in mesh.peers() {
        let theirs = roles.bits_of(widths, j);
        let got = mesh.recv_exact(j, Tag::Openings, theirs.len().div_ceil(8))?;
        for (&i, b) in theirs.iter().zip(unpack(&got, theirs.len())) {
            wires[slots[i] as usize] = b;
        }
    }
    Ok(())
}

/// A batch renamed into fresh local wires (so its gates can run out of order although the
/// stream reuses slots) and grouped by AND depth: `by_level[ℓ]` holds, in stream order, the
/// ANDs whose inputs are ready after ℓ − 1 rounds and the free gates that need ℓ rounds.
struct Levelled {
    /// The local wire of each slot the batch has touched, `u32::MAX` where none.
    local_of: Vec<u32>,
    touched: Vec<u32>,
    /// The batch's ops over local wires.
    ops: Vec<Op>,
    values: Vec<bool>,
    depth: Vec<u32>,
    by_level: Vec<Vec<u32>>,
}

impl Levelled {
    fn new(slots: usize) -> Levelled {
        Levelled {
            local_of: vec![u32::MAX; slots],
            touched: Vec::new(),
            ops: Vec::new(),
            values: Vec::new(),
            depth: Vec::new(),
            by_level: Vec::new(),
        }
    }

    /// Renames `ops` over local wires, the slots they read first taking their values from
    /// `wires`, and levels them. Returns the AND levels.
    fn level(&mut self, ops: &[Op], wires: &[bool]) -> u64 {
        self.ops.clear();
        self.values.clear();
        self.depth.clear();
        self.by_level.iter_mut().for_each(Vec::clear);
        let mut levels = 0;
        for op in ops {
            let (local, d) = match *op {
                Op::Xor { a, b, out } => {
                    let (a, b) = (self.read(a, wires), self.read(b, wires));
                    let d = self.depth[a as usize].max(self.depth[b as usize]);
                    (Op::Xor { a, b, out }, d)
                }
                Op::And { a, b, out } => {
                    let (a, b) = (self.read(a, wires), self.read(b, wires));
                    let d = self.depth[a as usize].max(self.depth[b as usize]) + 1;
                    (Op::And { a, b, out }, d)
                }
                Op::Copy { a, out } => {
                    let a = self.read(a, wires);
                    (Op::Copy { a, out }, self.depth[a as usize])
                }
                Op::Const { value, out } => (Op::Const { value, out }, 0),
            };
            let slot = output(op);
            let out = self.values.len() as u32;
            self.values.push(false);
            self.depth.push(d);
            self.map(slot, out);
            let local = with_output(local, out);
            if self.by_level.len() <= d as usize {
                self.by_level.resize(d as usize + 1, Vec::new());
            }
            self.by_level[d as usize].push(self.ops.len() as u32);
            self.ops.push(local);
            levels = levels.max(d);
        }
        u64::from(levels)
    }

    /// The local wire holding `slot`, a new one with its value from `wires` if the batch
    /// has not touched it.
    fn read(&mut self, slot: u32, wires: &[bool]) -> u32 {
        match self.local_of[slot as usize] {
            u32::MAX => {
                let w = self.values.len() as u32;
                self.values.push(wires[slot as usize]);
                self.depth.push(0);
                self.map(slot, w);
                w
            }
            w => w,
        }
    }

    fn map(&mut self, slot: u32, w: u32) {
        if self.local_of[slot as usize] == u32::MAX {
            self.touched.push(slot);
        }
        self.local_of[slot as usize] = w;
    }

    /// Runs one batch: levels it, opens each level's ANDs in one round, and writes the
    /// touched slots back. Returns the rounds.
    fn run(
        &mut self,
        mesh: &mut Mesh,
        ops: &[Op],
        wires: &mut [bool],
        t: &crate::Triples,
    ) -> Result<u64, NpartyError> {
        let rounds = self.level(ops, wires);
        let me = mesh.me();
        mesh.set_phase("the AND levels");
        let mut used = 0;
        let mut ands = Vec::new();
        for l in 0..self.by_level.len() {
            ands.clear();
            ands.extend(
                self.by_level[l]
                    .iter()
                    .copied()
                    .filter(|&k| matches!(self.ops[k as usize], Op::And { .. })),
            );
            if !ands.is_empty() {
                and_round(mesh, &self.ops, &ands, &mut self.values, t, used)?;
                used += ands.len();
            }
            for &k in &self.by_level[l] {
                free_gate(self.ops[k as usize], &mut self.values, me);
            }
        }
        for s in self.touched.drain(..) {
            wires[s as usize] = self.values[self.local_of[s as usize] as usize];
            self.local_of[s as usize] = u32::MAX;
        }
        Ok(rounds)
    }
}

/// The slot or wire an op writes.
fn output(op: &Op) -> u32 {
    match *op {
        Op::Xor { out, .. } | Op::And { out, .. } | Op::Copy { out, .. } | Op::Const { out, .. } => out,
    }
}

/// `op` writing `out` instead.
fn with_output(op: Op, out: u32) -> Op {
    match op {
        Op::Xor { a, b, .. } => Op::Xor { a, b, out },
        Op::And { a, b, .. } => Op::And { a, b, out },
        Op::Copy { a, .. } => Op::Copy { a, out },
        Op::Const { value, .. } => Op::Const { value, out },
    }
}

/// Opens d = x ⊕ a and e = y ⊕ b for the ANDs `ops[k]`, k in `gates` (one frame to and
/// from every party) and sets their outputs' shares. `first` is the first unused triple.
fn and_round(
    mesh: &mut Mesh,
    ops: &[Op],
    gates: &[u32],
    wires: &mut [bool],
    t: &crate::Triples,
    first: usize,
) -> Result<(), NpartyError> {
    let m = gates.len();
    let operands = |k: u32| match ops[k as usize] {
        Op::And { a, b, out } => (a as usize, b as usize, out as usize),
        _ => unreachable!("only ANDs are opened"),
    };
    let mut de = Vec::with_capacity(2 * m);
    for (k, &g) in gates.iter().enumerate() {
        de.push(wires[operands(g).0] ^ t.a[first + k]);
    }
    for (k, &g) in gates.iter().enumerate() {
        de.push(wires[operands(g).1] ^ t.b[first + k]);
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
        wires[operands(g).2] = t.c[i] ^ (d & t.b[i]) ^ (e & t.a[i]) ^ (lead & d & e);
    }
    Ok(())
}

/// A gate that needs no communication (ANDs are skipped: they are opened by level). Party
/// 0 holds the constants (NOT is XOR with the constant-1 slot).
fn free_gate(op: Op, wires: &mut [bool], me: usize) {
    match op {
        Op::Xor { a, b, out } => wires[out as usize] = wires[a as usize] ^ wires[b as usize],
        Op::Copy { a, out } => wires[out as usize] = wires[a as usize],
        Op::Const { value, out } => wires[out as usize] = value && me == 0,
        Op::And { .. } => {}
    }
}

/// Every party sends its shares of the output slots to each member of the audience; a
/// member XORs them.
fn reveal(
    mesh: &mut Mesh,
    roles: &Roles,
    header: &StreamHeader,
    wires: &[bool],
) -> Result<Option<Vec<Vec<bool>>>, NpartyError> {
    let me = mesh.me();
    let mut out: Vec<bool> = header.output_slots().iter().map(|&s| wires[s as usize]).collect();
    mesh.set_phase("the outputs");
    for j in mesh.peers().filter(|&j| roles.learns(j)) {
        mesh.send(j, Tag::Openings, &pack(&out))?;
    }
    if !roles.learns(me) {
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
        header
            .output_widths()
            .iter()
            .map(|&w| bits.by_ref().take(w as usize).collect())
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_count_and_depth() {
        // out = (x0 ∧ x1) ∧ x2, plus a free gate on the first AND; slots 1..=3 inputs.
        let ops = [
            Op::And { a: 1, b: 2, out: 4 },
            Op::Xor { a: 4, b: 0, out: 5 },
            Op::And { a: 5, b: 3, out: 4 },
        ];
        let mut l = Levelled::new(6);
        assert_eq!(l.level(&ops, &[true; 6]), 2);
        // Local wires: 0, 1 (slots 1, 2), 2 (AND), 3 (slot 0), 4 (XOR), 5 (slot 3), 6 (AND).
        assert_eq!(l.by_level, [vec![], vec![0, 1], vec![2]]);
        assert_eq!(l.ops[2], Op::And { a: 4, b: 5, out: 6 });
    }
}
