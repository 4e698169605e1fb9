//! The Y form on the seed's distributed garbling (§6.2, Figures 11–12, [`crate::distgarble`])
//! instead of BMR: the `Lut` engine of [`crate::yao::YaoState`].
//!
//! The seed's Y form takes "the inputs and outputs of the parties [as] Boolean sharings"
//! (§6.2): B→Y opens e_w = x_w ⊕ λ_w and sums every party's key share k^i_{w,e_w} along the
//! chain into the evaluator (Figure 12 steps 6–7); Y→B gives party 0 e_w ⊕ λ^0_w and every
//! other party λ^i_w (step 9, local). Both are linear in n in total: the opening is
//! [`crate::lut::open_bits`] (chain into party 0 and back, n = 2 a swap) and the key sum a
//! chain, so each party sends and receives one message of each whatever n.
//!
//! Here a Y value is a handle. Y ops record gates of a pending circuit; the batch is garbled
//! ([`garble`], offline) and evaluated ([`GarbledCircuit::evaluate`], online) when a value
//! leaves the Y form or the batch holds its ANDs. Every handle still alive then becomes this
//! party's XOR share of its value (a circuit output, step 9). A handle used again in a later
//! batch is an input of that batch's circuit (its B→Y, steps 6–7): a Y wire that lives past
//! a batch is carried by Y→B then B→Y at the edge, costing one B→Y (one opened bit and one
//! key of L coefficients mod p into the chain) per carried wire, only if it is used again.

use std::time::{Duration, Instant};

use mixgc_circuit::{Circuit, GateKind};
use mixgc_net::Tag;
use mixgc_nparty::{Mesh, NpartyError};

use crate::a2b::BooleanEngine;
use crate::distgarble::{garble, KeySelection};
use crate::keyhom::KeyHomParams;
use crate::{MixedError, MixedRng, ThresholdKeys};

/// At most this many ANDs per garbled batch (an AND costs megabytes and ~0.1 s; the rows
/// the evaluator holds, 4 ciphertexts of the key ring per garbled gate, bound the memory).
pub const MAX_BATCH_ANDS: usize = 256;

/// What the Lut engine needs besides its own state: the mesh, the threshold keys (the
/// lookups of Figure 11) and the Boolean engine (λ_u·λ_v).
pub struct LutEnv<'a> {
    pub mesh: &'a mut Mesh,
    pub keys: &'a ThresholdKeys,
    pub engine: &'a mut BooleanEngine,
}

/// A handle's state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slot {
    Released,
    /// This party's XOR share of the value (after the batch that made it was evaluated).
    Share(u8),
    /// A wire of the pending circuit.
    Pending(u32),
}

/// How a wire of the pending circuit is made.
#[derive(Clone, Copy, Debug)]
enum Node {
    /// Input `j` of the batch (this party's XOR share in `Pending::inputs[j]`).
    Input(u32),
    /// A gate on earlier wires (a `Const` gate's `a` is its value).
    Gate(GateKind, u32, u32),
}

/// The circuit recorded since the last garbled batch.
#[derive(Default)]
struct Pending {
    nodes: Vec<Node>,
    inputs: Vec<u8>,
    gates: u32,
    ands: usize,
}

impl Pending {
    fn push(&mut self, node: Node) -> u32 {
        match node {
            Node::Input(_) => {}
            Node::Gate(kind, ..) => {
                self.gates += 1;
                self.ands += usize::from(kind == GateKind::And);
            }
        }
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    fn input(&mut self, share: u8) -> u32 {
        self.inputs.push(share);
        self.push(Node::Input(self.inputs.len() as u32 - 1))
    }

    /// The circuit: the batch's inputs first (wires 0..k), then the gates in recording
    /// order; `outputs` (node ids) its output wires.
    fn circuit(&self, outputs: &[u32]) -> Circuit {
        let k = self.inputs.len() as u32;
        let mut wire = Vec::with_capacity(self.nodes.len());
        let mut gate = k;
        let mut c = Circuit {
            num_wires: k + self.gates,
            input_widths: if k > 0 { vec![k] } else { Vec::new() },
            output_widths: vec![outputs.len() as u32],
            output_wires: Vec::new(),
            kind: Vec::new(),
            a: Vec::new(),
            b: Vec::new(),
            out: Vec::new(),
        };
        for node in &self.nodes {
            match *node {
                Node::Input(j) => wire.push(j),
                Node::Gate(kind, a, b) => {
                    let read = |x: u32, used: bool| if used { wire[x as usize] } else { x };
                    c.kind.push(kind);
                    c.a.push(read(a, kind.arity() >= 1));
                    c.b.push(read(b, kind.arity() == 2));
                    c.out.push(gate);
                    wire.push(gate);
                    gate += 1;
                }
            }
        }
        c.output_wires = outputs.iter().map(|&o| wire[o as usize]).collect();
        c
    }
}

/// This party's Y-form state on distributed garbling.
pub struct LutYao {
    params: KeyHomParams,
    /// The run's Y session id; batch t garbles under a session derived from it and t.
    session: [u8; 32],
    batch_ands: usize,
    rng: MixedRng,
    slots: Vec<Slot>,
    released: Vec<u32>,
    pending: Pending,
    ands: u64,
    batches: u64,
    times: [Duration; 2],
    bytes: [[u64; 2]; 2],
}

impl LutYao {
    /// The state for a run whose parties agreed on `session`; at most `batch_ands`
    /// (capped at [`MAX_BATCH_ANDS`]) ANDs per garbled batch, on the 128-bit key ring.
    pub fn new(session: [u8; 32], batch_ands: usize, rng: MixedRng) -> Result<LutYao, MixedError> {
        Ok(LutYao {
            params: KeyHomParams::standard()?,
            session,
            batch_ands: batch_ands.clamp(1, MAX_BATCH_ANDS),
            rng,
            slots: Vec::new(),
            released: Vec::new(),
            pending: Pending::default(),
            ands: 0,
            batches: 0,
            times: [Duration::ZERO; 2],
            bytes: [[0; 2]; 2],
        })
    }

    pub fn ands(&self) -> u64 {
        self.ands
    }

    pub fn batches(&self) -> u64 {
        self.batches
    }

    /// Time in garbling (offline) and evaluation (online) so far.
    pub fn times(&self) -> [Duration; 2] {
        self.times
    }

    /// Bytes [sent, received] in garbling (offline) and evaluation (online) so far.
    pub fn bytes(&self) -> [[u64; 2]; 2] {
        self.bytes
    }

    pub fn slots(&self) -> u32 {
        (self.slots.len() - self.released.len()) as u32
    }

    fn handle(&mut self, slot: Slot) -> u32 {
        match self.released.pop() {
            Some(h) => {
                self.slots[h as usize] = slot;
                h
            }
            None => {
                self.slots.push(slot);
                self.slots.len() as u32 - 1
            }
        }
    }

    /// The pending wire of handle `h`; a settled share becomes an input of the batch.
    fn wire(&mut self, h: u32) -> Result<u32, MixedError> {
        match self.slots.get(h as usize) {
            Some(Slot::Pending(w)) => Ok(*w),
            Some(&Slot::Share(s)) => {
                let w = self.pending.input(s);
                self.slots[h as usize] = Slot::Pending(w);
                Ok(w)
            }
            Some(Slot::Released) => Err(MixedError::Usage(format!("Y wire {h} was released"))),
            None => Err(MixedError::Usage(format!("Y wire {h} does not exist"))),
        }
    }

    /// B→Y of this party's XOR shares (bits): inputs of the pending batch.
    pub fn from_shares(&mut self, shares: &[u8]) -> Vec<u32> {
        shares
            .iter()
            .map(|&s| {
                let w = self.pending.input(s & 1);
                self.handle(Slot::Pending(w))
            })
            .collect()
    }

    /// A gate on the handles `a`, `b` (those its kind reads; a constant's value is `a`).
    pub fn gate(&mut self, env: &mut LutEnv, kind: GateKind, a: u32, b: u32) -> Result<u32, MixedError> {
        let a = if kind.arity() >= 1 { self.wire(a)? } else { a };
        let b = if kind.arity() == 2 { self.wire(b)? } else { 0 };
        let w = self.pending.push(Node::Gate(kind, a, b));
        let h = self.handle(Slot::Pending(w));
        if self.pending.ands >= self.batch_ands {
            self.flush(env)?;
        }
        Ok(h)
    }

    /// Y→B: this party's XOR shares of `handles` (their batch evaluated first if pending).
    pub fn to_shares(&mut self, env: &mut LutEnv, handles: &[u32]) -> Result<Vec<u8>, MixedError> {
        let pending = |s: Option<&Slot>| matches!(s, Some(Slot::Pending(_)));
        if handles.iter().any(|&h| pending(self.slots.get(h as usize))) {
            self.flush(env)?;
        }
        handles
            .iter()
            .map(|&h| match self.slots.get(h as usize) {
                Some(&Slot::Share(s)) => Ok(s),
                _ => Err(MixedError::Usage(format!(
                    "Y wire {h} was released or does not exist"
                ))),
            })
            .collect()
    }

    pub fn release(&mut self, handles: &[u32]) {
        for &h in handles {
            if let Some(slot) = self.slots.get_mut(h as usize) {
                if *slot != Slot::Released {
                    *slot = Slot::Released;
                    self.released.push(h);
                }
            }
        }
    }

    /// The batch's session id: a hash of the run's session, the batch number and the
    /// circuit, checked around the ring (each party sends it to the next and compares the
    /// previous one's: 32 B a party a batch, whatever n), so that a program diverging in Y
    /// ops is a [`NpartyError::Mismatch`] naming a diverging neighbour before any garbling.
    fn agree_on_batch(&self, mesh: &mut Mesh, circuit: &Circuit) -> Result<[u8; 32], MixedError> {
        let mut hasher = blake3::Hasher::new_derive_key("mixgc mixed Y form, distributed garbling batch");
        hasher.update(&self.session);
        hasher.update(&self.batches.to_le_bytes());
        for (what, v) in [
            ("inputs", &circuit.input_widths),
            ("gates a", &circuit.a),
            ("gates b", &circuit.b),
            ("outputs", &circuit.output_wires),
        ] {
            hasher.update(what.as_bytes());
            hasher.update(&(v.len() as u64).to_le_bytes());
            v.iter().for_each(|x| {
                hasher.update(&x.to_le_bytes());
            });
        }
        hasher.update(&circuit.kind.iter().map(|&k| k as u8).collect::<Vec<u8>>());
        let digest = *hasher.finalize().as_bytes();
        let (me, n) = (mesh.me(), mesh.parties());
        let (next, previous) = ((me + 1) % n, (me + n - 1) % n);
        mesh.set_phase("the Y batch's digest");
        mesh.send(next, Tag::ProgramHeader, &digest)?;
        mesh.flush()?;
        if mesh.recv_exact(previous, Tag::ProgramHeader, digest.len())? != digest {
            return Err(MixedError::Mesh(NpartyError::Mismatch {
                party: previous,
                what: format!(
                    "its program diverged from this party's in the Y form before garbled batch #{}: \
                     different gates, conversions or outputs",
                    self.batches + 1
                ),
            }));
        }
        Ok(digest)
    }

    /// Garbles and evaluates the pending circuit, its outputs the live handles' wires, which
    /// become this party's XOR shares. Nothing is sent if no live handle is pending.
    pub fn flush(&mut self, env: &mut LutEnv) -> Result<(), MixedError> {
        let live: Vec<(usize, u32)> = self
            .slots
            .iter()
            .enumerate()
            .filter_map(|(h, s)| match s {
                Slot::Pending(w) => Some((h, *w)),
                _ => None,
            })
            .collect();
        let pending = std::mem::take(&mut self.pending);
        if live.is_empty() {
            return Ok(());
        }
        let outputs: Vec<u32> = live.iter().map(|&(_, w)| w).collect();
        let circuit = pending.circuit(&outputs);
        let mesh = &mut *env.mesh;
        let total = |m: &Mesh| m.bytes().iter().fold([0, 0], |[s, r], &(a, b)| [s + a, r + b]);
        let (start, before) = (Instant::now(), total(mesh));
        let session = self.agree_on_batch(mesh, &circuit)?;
        let gc = garble(
            env.keys,
            env.engine,
            mesh,
            &circuit,
            &self.params,
            &session,
            KeySelection::Products,
            &mut self.rng,
        )?;
        let (middle, garbled) = (Instant::now(), total(mesh));
        let shares = gc.evaluate(mesh, &pending.inputs)?;
        let after = total(mesh);
        self.times[0] += middle - start;
        self.times[1] += middle.elapsed();
        for (phase, (a, b)) in [(before, garbled), (garbled, after)].into_iter().enumerate() {
            self.bytes[phase][0] += b[0] - a[0];
            self.bytes[phase][1] += b[1] - a[1];
        }
        for (&(h, _), s) in live.iter().zip(shares) {
            self.slots[h] = Slot::Share(s);
        }
        self.ands += pending.ands as u64;
        self.batches += 1;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pending_circuit_puts_inputs_first_and_keeps_gate_order() {
        let mut p = Pending::default();
        let x = p.input(1);
        let one = p.push(Node::Gate(GateKind::Const, 1, 0));
        let y = p.input(0);
        let nx = p.push(Node::Gate(GateKind::Not, x, 0));
        let and = p.push(Node::Gate(GateKind::And, nx, y));
        let xor = p.push(Node::Gate(GateKind::Xor, and, one));
        let c = p.circuit(&[xor, y]);
        c.validate().unwrap();
        assert_eq!((c.num_wires, c.input_widths.clone()), (6, vec![2]));
        assert_eq!(
            c.kind,
            [GateKind::Const, GateKind::Not, GateKind::And, GateKind::Xor]
        );
        assert_eq!((c.a.clone(), c.b.clone()), (vec![1, 0, 3, 4], vec![0, 0, 1, 2]));
        assert_eq!(c.out, [2, 3, 4, 5]);
        assert_eq!(c.output_wires, [5, 1]);
        assert_eq!((p.ands, p.gates, p.inputs.clone()), (1, 4, vec![1, 0]));
        // (¬x ∧ y) ⊕ 1 and y, in plaintext on (x, y) = (1, 0): (0 ∧ 0) ⊕ 1 = 1, and 0.
        assert_eq!(c.eval_plain(&[vec![true, false]]).unwrap(), [vec![true, false]]);
    }

    #[test]
    fn released_and_unknown_handles_are_refused() {
        let mut y = LutYao::new([0; 32], 4, crate::rng_from_seed([1; 32])).unwrap();
        let h = y.from_shares(&[1, 0]);
        assert_eq!(y.slots(), 2);
        y.release(&[h[0], h[0]]);
        assert_eq!(y.slots(), 1);
        assert!(y.wire(h[0]).unwrap_err().to_string().contains("was released"));
        assert!(y.wire(9).unwrap_err().to_string().contains("does not exist"));
        // A released slot is reused.
        assert_eq!(y.from_shares(&[1]), [h[0]]);
    }
}
