use mixgc_compile::{CompiledCircuit, Gate, RunKind, NOT_SLOT};
use mixgc_core::{Block, TweakableHash};

use crate::tweak::half_gate_tweaks;
use crate::{free_run, read, write};

use mixgc_compile::MAX_AND_GROUP;

/// Most ANDs per group (from the compiler), times the 4 hashes each AND needs.
const MAX_HASHES: usize = MAX_AND_GROUP * 4;

/// Garbler core: holds Δ, the wire slots (zero-labels) of the circuit in progress, the
/// global AND counter and the position in the instruction stream.
pub struct Garbler<H> {
    hash: H,
    delta: Block,
    slots: Vec<Block>,
    /// Zero-labels of the constant-0 and constant-1 wires of the current circuit.
    const_labels: [Block; 2],
    /// Global index of the next AND gate; never reset within a session.
    next_and: u64,
    /// Position in the stream: the next run, and the index of its first gate.
    run: usize,
    gate: usize,
    /// Hash inputs and tweaks of one AND group (kept here so nothing is zeroed per group).
    hashes: [Block; MAX_HASHES],
    tweaks: [Block; MAX_HASHES],
}

impl<H: TweakableHash> Garbler<H> {
    /// A garbler with offset `delta`; its least significant bit must be 1.
    pub fn new(hash: H, delta: Block) -> Self {
        assert!(delta.lsb(), "free-XOR needs lsb(Δ) = 1 for point-and-permute");
        Garbler {
            hash,
            delta,
            slots: Vec::new(),
            const_labels: [Block::ZERO; 2],
            next_and: 0,
            run: 0,
            gate: 0,
            hashes: [Block::ZERO; MAX_HASHES],
            tweaks: [Block::ZERO; MAX_HASHES],
        }
    }

    pub fn delta(&self) -> Block {
        self.delta
    }

    /// Global index of the next AND gate (the number garbled so far in this session).
    pub fn ands_garbled(&self) -> u64 {
        self.next_and
    }

    /// Starts garbling `circuit` with the given zero-labels of its input bits and of the
    /// constant-0 / constant-1 wires.
    pub fn start(
        &mut self,
        circuit: &CompiledCircuit,
        input_zero_labels: &[Block],
        const_labels: [Block; 2],
    ) {
        assert_eq!(
            input_zero_labels.len(),
            circuit.input_slots().len(),
            "one label per input bit"
        );
        self.slots.clear();
        self.slots.resize(circuit.num_slots() as usize, Block::ZERO);
        self.slots[NOT_SLOT as usize] = self.delta; // ¬x = x ⊕ Δ under free-XOR
        for (&s, &l) in circuit.input_slots().iter().zip(input_zero_labels) {
            self.slots[s as usize] = l;
        }
        self.const_labels = const_labels;
        (self.run, self.gate) = (0, 0);
    }

    /// Garbles until at least `min_blocks` table blocks have been appended to `tables` or the
    /// circuit ends; stops only between AND groups. Returns true when the circuit is done.
    pub fn garble(&mut self, circuit: &CompiledCircuit, tables: &mut Vec<Block>, min_blocks: usize) -> bool {
        let target = tables.len().saturating_add(min_blocks);
        let (runs, gates) = (circuit.runs(), circuit.gates());
        // With this, the circuit's invariant bounds every slot operand by `slots.len()`.
        assert_eq!(
            self.slots.len(),
            circuit.num_slots() as usize,
            "garble() called with another circuit than start()"
        );
        while self.run < runs.len() {
            let run = runs[self.run];
            let run_gates = &gates[self.gate..self.gate + run.len as usize];
            self.run += 1;
            self.gate += run_gates.len();
            if run.kind == RunKind::And {
                self.garble_group(run_gates, tables);
                if tables.len() >= target {
                    return self.run == runs.len();
                }
            } else {
                // SAFETY: operands < num_slots == slots.len() (asserted above).
                unsafe { free_run(&mut self.slots, &self.const_labels, run.kind, run_gates) };
            }
        }
        true
    }

    /// Half-gates garbling of independent ANDs (ZRE15 Fig. 2; SECURITY-NOTES):
    /// T_G = H(A⁰,j) ⊕ H(A¹,j) ⊕ p_b·Δ,  W_G⁰ = H(A⁰,j) ⊕ p_a·T_G,
    /// T_E = H(B⁰,j') ⊕ H(B¹,j') ⊕ A⁰,    W_E⁰ = H(B⁰,j') ⊕ p_b·(T_E ⊕ A⁰),
    /// C⁰ = W_G⁰ ⊕ W_E⁰; (T_G, T_E) is sent.
    #[inline]
    fn garble_group(&mut self, group: &[Gate], tables: &mut Vec<Block>) {
        let n = group.len();
        let Garbler {
            hash,
            delta,
            slots,
            hashes,
            tweaks,
            next_and,
            ..
        } = self;
        let delta = *delta;
        let (h, t) = (&mut hashes[..4 * n], &mut tweaks[..4 * n]);
        // Inputs are read before any output is written (outputs may reuse input slots).
        let mut a0s = [Block::ZERO; MAX_AND_GROUP];
        let mut pbs = [false; MAX_AND_GROUP];
        for (k, g) in group.iter().enumerate() {
            // SAFETY: operands < num_slots == slots.len() (asserted in `garble`).
            let (a0, b0) = unsafe { (read(slots, g.a), read(slots, g.b)) };
            let (j, j1) = half_gate_tweaks(*next_and + k as u64);
            h[4 * k..4 * k + 4].copy_from_slice(&[a0, a0 ^ delta, b0, b0 ^ delta]);
            t[4 * k..4 * k + 4].copy_from_slice(&[j, j, j1, j1]);
            a0s[k] = a0;
            pbs[k] = b0.lsb();
        }
        hash.hash_many(h, t);
        let mut rows = [Block::ZERO; 2 * MAX_AND_GROUP];
        for (k, g) in group.iter().enumerate() {
            let (a0, pa, pb) = (a0s[k], a0s[k].lsb(), pbs[k]);
            let (ha0, ha1, hb0, hb1) = (h[4 * k], h[4 * k + 1], h[4 * k + 2], h[4 * k + 3]);
            let tg = ha0 ^ ha1 ^ delta.and_bit(pb);
            let wg = ha0 ^ tg.and_bit(pa);
            let te = hb0 ^ hb1 ^ a0;
            let we = hb0 ^ (te ^ a0).and_bit(pb);
            rows[2 * k] = tg;
            rows[2 * k + 1] = te;
            // SAFETY: as above.
            unsafe { write(slots, g.out, wg ^ we) };
        }
        tables.extend_from_slice(&rows[..2 * n]);
        *next_and += n as u64;
    }

    /// Zero-labels of the output bits; valid once [`Garbler::garble`] returned true.
    pub fn output_zero_labels(&self, circuit: &CompiledCircuit) -> Vec<Block> {
        circuit
            .output_slots()
            .iter()
            .map(|&s| self.slots[s as usize])
            .collect()
    }
}
