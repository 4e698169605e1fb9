//! Half-gates garbling (Zahur–Rosulek–Evans 2015, ePrint 2014/756, Fig. 2) of independent
//! AND gates, hashed together. Shared by the compiled-stream cores and the program
//! backends, so the crypto exists once.
//!
//! With tweaks j = 2g, j' = 2g + 1 from the global AND index g and p_a = lsb(A⁰),
//! p_b = lsb(B⁰) (SECURITY-NOTES):
//!
//! ```text
//! garbler:   T_G = H(A⁰,j) ⊕ H(A¹,j) ⊕ p_b·Δ      W_G⁰ = H(A⁰,j) ⊕ p_a·T_G
//!            T_E = H(B⁰,j') ⊕ H(B¹,j') ⊕ A⁰       W_E⁰ = H(B⁰,j') ⊕ p_b·(T_E ⊕ A⁰)
//!            C⁰ = W_G⁰ ⊕ W_E⁰, send (T_G, T_E)
//! evaluator: C = H(A,j) ⊕ s_a·T_G ⊕ H(B,j') ⊕ s_b·(T_E ⊕ A)     s_a = lsb(A), s_b = lsb(B)
//! ```

use mixgc_compile::MAX_AND_GROUP;
use mixgc_core::{Block, TweakableHash};

use crate::tweak::half_gate_tweaks;

/// Garbler side: Δ, the hash, the global AND index and hashing scratch space.
pub struct HalfGateGarbler<H> {
    hash: H,
    delta: Block,
    next_and: u64,
    hashes: [Block; 4 * MAX_AND_GROUP],
    tweaks: [Block; 4 * MAX_AND_GROUP],
}

impl<H: TweakableHash> HalfGateGarbler<H> {
    /// A garbler with offset `delta`; its least significant bit must be 1.
    pub fn new(hash: H, delta: Block) -> Self {
        assert!(delta.lsb(), "free-XOR needs lsb(Δ) = 1 for point-and-permute");
        let zero = [Block::ZERO; 4 * MAX_AND_GROUP];
        HalfGateGarbler {
            hash,
            delta,
            next_and: 0,
            hashes: zero,
            tweaks: zero,
        }
    }

    pub fn delta(&self) -> Block {
        self.delta
    }

    /// Global index of the next AND gate (the number garbled so far).
    pub fn ands_garbled(&self) -> u64 {
        self.next_and
    }

    /// Garbles up to [`MAX_AND_GROUP`] independent ANDs with zero-labels
    /// `inputs[k] = (A⁰, B⁰)`: writes C⁰ to `outputs[k]` and appends (T_G, T_E) per gate.
    #[inline]
    pub fn garble(&mut self, inputs: &[(Block, Block)], outputs: &mut [Block], tables: &mut Vec<Block>) {
        let n = inputs.len();
        assert!(
            n <= MAX_AND_GROUP && outputs.len() == n,
            "at most MAX_AND_GROUP gates, one output each"
        );
        let delta = self.delta;
        let (h, t) = (&mut self.hashes[..4 * n], &mut self.tweaks[..4 * n]);
        for (k, &(a0, b0)) in inputs.iter().enumerate() {
            let (j, j1) = half_gate_tweaks(self.next_and + k as u64);
            h[4 * k..4 * k + 4].copy_from_slice(&[a0, a0 ^ delta, b0, b0 ^ delta]);
            t[4 * k..4 * k + 4].copy_from_slice(&[j, j, j1, j1]);
        }
        self.hash.hash_many(h, t);
        let mut rows = [Block::ZERO; 2 * MAX_AND_GROUP];
        for (k, &(a0, b0)) in inputs.iter().enumerate() {
            let (pa, pb) = (a0.lsb(), b0.lsb());
            let (ha0, ha1, hb0, hb1) = (h[4 * k], h[4 * k + 1], h[4 * k + 2], h[4 * k + 3]);
            let tg = ha0 ^ ha1 ^ delta.and_bit(pb);
            let wg = ha0 ^ tg.and_bit(pa);
            let te = hb0 ^ hb1 ^ a0;
            let we = hb0 ^ (te ^ a0).and_bit(pb);
            rows[2 * k] = tg;
            rows[2 * k + 1] = te;
            outputs[k] = wg ^ we;
        }
        tables.extend_from_slice(&rows[..2 * n]);
        self.next_and += n as u64;
    }
}

/// Evaluator side: the hash, the global AND index and hashing scratch space.
pub struct HalfGateEvaluator<H> {
    hash: H,
    next_and: u64,
    hashes: [Block; 2 * MAX_AND_GROUP],
    tweaks: [Block; 2 * MAX_AND_GROUP],
}

impl<H: TweakableHash> HalfGateEvaluator<H> {
    pub fn new(hash: H) -> Self {
        let zero = [Block::ZERO; 2 * MAX_AND_GROUP];
        HalfGateEvaluator {
            hash,
            next_and: 0,
            hashes: zero,
            tweaks: zero,
        }
    }

    /// An evaluator whose next AND gate has global index `next_and` (to evaluate, later, a
    /// garbling made at that point of a session).
    pub fn starting_at(hash: H, next_and: u64) -> Self {
        HalfGateEvaluator {
            next_and,
            ..HalfGateEvaluator::new(hash)
        }
    }

    /// Global index of the next AND gate (the number evaluated so far).
    pub fn ands_evaluated(&self) -> u64 {
        self.next_and
    }

    /// Evaluates up to [`MAX_AND_GROUP`] independent ANDs on active labels
    /// `inputs[k] = (A, B)` with their rows `tables[2k..2k + 2]`; writes C to `outputs[k]`.
    #[inline]
    pub fn evaluate(&mut self, inputs: &[(Block, Block)], tables: &[Block], outputs: &mut [Block]) {
        let n = inputs.len();
        assert!(
            n <= MAX_AND_GROUP && outputs.len() == n && tables.len() == 2 * n,
            "one output, two rows per gate"
        );
        let (h, t) = (&mut self.hashes[..2 * n], &mut self.tweaks[..2 * n]);
        for (k, &(a, b)) in inputs.iter().enumerate() {
            let (j, j1) = half_gate_tweaks(self.next_and + k as u64);
            h[2 * k..2 * k + 2].copy_from_slice(&[a, b]);
            t[2 * k..2 * k + 2].copy_from_slice(&[j, j1]);
        }
        self.hash.hash_many(h, t);
        for (k, &(a, b)) in inputs.iter().enumerate() {
            let (tg, te) = (tables[2 * k], tables[2 * k + 1]);
            outputs[k] = h[2 * k] ^ tg.and_bit(a.lsb()) ^ h[2 * k + 1] ^ (te ^ a).and_bit(b.lsb());
        }
        self.next_and += n as u64;
    }
}
