//! Half-gates garbling (Zahur–Rosulek–Evans 2015, ePrint 2014/756, Fig. 2) of independent
//! AND gates, hashed together. Shared by the compiled-stream cores and the program
//! backends, so the crypto exists once.
//!
//! With tweaks j = 2g, j' = 2g + 1 from the global AND index g and p_a = lsb(A⁰),
//! p_b = lsb(B⁰) (why the tweaks differ: `docs/security.md`, "Tweaks"):
//!
//! ```text
//! garbler:   T_G = H(A⁰,j) ⊕ H(A¹,j) ⊕ p_b·Δ      W_G⁰ = H(A⁰,j) ⊕ p_a·T_G
//!            T_E = H(B⁰,j') ⊕ H(B¹,j') ⊕ A⁰       W_E⁰ = H(B⁰,j') ⊕ p_b·(T_E ⊕ A⁰)
//!            C⁰ = W_G⁰ ⊕ W_E⁰, send (T_G, T_E)
//! evaluator: C = H(A,j) ⊕ s_a·T_G ⊕ H(B,j') ⊕ s_b·(T_E ⊕ A)     s_a = lsb(A), s_b = lsb(B)
//! ```

use std::mem::MaybeUninit;

use mixgc_core::{Block, TweakableHash};

use crate::tweak::half_gate_tweaks;
use crate::MAX_AND_GROUP;

/// Hashing scratch space for one AND group (four hashes per gate when garbling, two when
/// evaluating; two tweaks per gate). Each thread garbling part of a parallel block has its own.
pub(crate) struct Scratch {
    hashes: [Block; 4 * MAX_AND_GROUP],
    tweaks: [Block; 2 * MAX_AND_GROUP],
}

impl Scratch {
    pub(crate) fn new() -> Self {
        Scratch {
            hashes: [Block::ZERO; 4 * MAX_AND_GROUP],
            tweaks: [Block::ZERO; 2 * MAX_AND_GROUP],
        }
    }
}

/// Garbles up to [`MAX_AND_GROUP`] independent ANDs with zero-labels
/// `inputs[k] = (A⁰, B⁰)`, the first of global index `first_and`: writes C⁰ to `outputs[k]`
/// and (T_G, T_E) to `rows[2k..2k + 2]` (every row: they may start uninitialised).
#[inline]
pub(crate) fn garble_rows<H: TweakableHash>(
    hash: &H,
    delta: Block,
    first_and: u64,
    inputs: &[(Block, Block)],
    outputs: &mut [Block],
    rows: &mut [MaybeUninit<Block>],
    scratch: &mut Scratch,
) {
    let n = inputs.len();
    assert!(
        n <= MAX_AND_GROUP && outputs.len() == n && rows.len() == 2 * n,
        "at most MAX_AND_GROUP gates, one output and two rows each"
    );
    let (h, t) = (&mut scratch.hashes[..4 * n], &mut scratch.tweaks[..2 * n]);
    for (k, &(a0, b0)) in inputs.iter().enumerate() {
        let (j, j1) = half_gate_tweaks(first_and + k as u64);
        h[4 * k..4 * k + 4].copy_from_slice(&[a0, a0 ^ delta, b0, b0 ^ delta]);
        t[2 * k..2 * k + 2].copy_from_slice(&[j, j1]);
    }
    hash.hash_pairs(h, t); // (A⁰, A¹) under j, (B⁰, B¹) under j'
    for (k, &(a0, b0)) in inputs.iter().enumerate() {
        let (pa, pb) = (a0.lsb(), b0.lsb());
        let (ha0, ha1, hb0, hb1) = (h[4 * k], h[4 * k + 1], h[4 * k + 2], h[4 * k + 3]);
        let tg = ha0 ^ ha1 ^ delta.and_bit(pb);
        let wg = ha0 ^ tg.and_bit(pa);
        let te = hb0 ^ hb1 ^ a0;
        let we = hb0 ^ (te ^ a0).and_bit(pb);
        rows[2 * k].write(tg);
        rows[2 * k + 1].write(te);
        outputs[k] = wg ^ we;
    }
}

/// Evaluates up to [`MAX_AND_GROUP`] independent ANDs on active labels
/// `inputs[k] = (A, B)`, the first of global index `first_and`, with their rows
/// `rows[2k..2k + 2]`; writes C to `outputs[k]`.
#[inline]
pub(crate) fn evaluate_rows<H: TweakableHash>(
    hash: &H,
    first_and: u64,
    inputs: &[(Block, Block)],
    rows: &[Block],
    outputs: &mut [Block],
    scratch: &mut Scratch,
) {
    let n = inputs.len();
    assert!(
        n <= MAX_AND_GROUP && outputs.len() == n && rows.len() == 2 * n,
        "one output, two rows per gate"
    );
    let (h, t) = (&mut scratch.hashes[..2 * n], &mut scratch.tweaks[..2 * n]);
    for (k, &(a, b)) in inputs.iter().enumerate() {
        let (j, j1) = half_gate_tweaks(first_and + k as u64);
        h[2 * k..2 * k + 2].copy_from_slice(&[a, b]);
        t[2 * k..2 * k + 2].copy_from_slice(&[j, j1]);
    }
    hash.hash_many(h, t);
    for (k, &(a, b)) in inputs.iter().enumerate() {
        let (tg, te) = (rows[2 * k], rows[2 * k + 1]);
        outputs[k] = h[2 * k] ^ tg.and_bit(a.lsb()) ^ h[2 * k + 1] ^ (te ^ a).and_bit(b.lsb());
    }
}

/// Garbler side: Δ, the hash, the global AND index and hashing scratch space.
pub struct HalfGateGarbler<H> {
    hash: H,
    delta: Block,
    next_and: u64,
    scratch: Scratch,
}

/// Δ and the last group's hashes do not outlive the garbler.
impl<H> Drop for HalfGateGarbler<H> {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.delta.zeroize();
        self.scratch.hashes.zeroize();
    }
}

impl<H: TweakableHash> HalfGateGarbler<H> {
    /// A garbler with offset `delta`; its least significant bit must be 1.
    pub fn new(hash: H, delta: Block) -> Self {
        assert!(delta.lsb(), "free-XOR needs lsb(Δ) = 1 for point-and-permute");
        HalfGateGarbler {
            hash,
            delta,
            next_and: 0,
            scratch: Scratch::new(),
        }
    }

    pub fn delta(&self) -> Block {
        self.delta
    }

    /// Global index of the next AND gate (the number garbled so far).
    pub fn ands_garbled(&self) -> u64 {
        self.next_and
    }

    pub(crate) fn hash(&self) -> &H {
        &self.hash
    }

    /// Counts `n` ANDs garbled elsewhere (by the threads of a parallel block).
    pub(crate) fn advance(&mut self, n: usize) {
        self.next_and += n as u64;
    }

    /// Garbles up to [`MAX_AND_GROUP`] independent ANDs with zero-labels
    /// `inputs[k] = (A⁰, B⁰)`: writes C⁰ to `outputs[k]` and appends (T_G, T_E) per gate.
    #[inline]
    pub fn garble(&mut self, inputs: &[(Block, Block)], outputs: &mut [Block], tables: &mut Vec<Block>) {
        let n = inputs.len();
        tables.reserve(2 * n);
        let rows = &mut tables.spare_capacity_mut()[..2 * n];
        garble_rows(
            &self.hash,
            self.delta,
            self.next_and,
            inputs,
            outputs,
            rows,
            &mut self.scratch,
        );
        // SAFETY: `garble_rows` wrote all 2n rows after the old end, within the capacity.
        unsafe { tables.set_len(tables.len() + 2 * n) };
        self.next_and += n as u64;
    }
}

/// Evaluator side: the hash, the global AND index and hashing scratch space.
pub struct HalfGateEvaluator<H> {
    hash: H,
    next_and: u64,
    scratch: Scratch,
}

impl<H: TweakableHash> HalfGateEvaluator<H> {
    pub fn new(hash: H) -> Self {
        HalfGateEvaluator {
            hash,
            next_and: 0,
            scratch: Scratch::new(),
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

    /// Moves the next AND index past `n` gates evaluated by someone else (a garbling stored
    /// for later), so the tweaks stay in step with the garbler's.
    pub fn skip_ands(&mut self, n: u64) {
        self.next_and += n;
    }

    pub(crate) fn hash(&self) -> &H {
        &self.hash
    }

    /// Counts `n` ANDs evaluated elsewhere (by the threads of a parallel block).
    pub(crate) fn advance(&mut self, n: usize) {
        self.next_and += n as u64;
    }

    /// Evaluates up to [`MAX_AND_GROUP`] independent ANDs on active labels
    /// `inputs[k] = (A, B)` with their rows `tables[2k..2k + 2]`; writes C to `outputs[k]`.
    #[inline]
    pub fn evaluate(&mut self, inputs: &[(Block, Block)], tables: &[Block], outputs: &mut [Block]) {
        evaluate_rows(
            &self.hash,
            self.next_and,
            inputs,
            tables,
            outputs,
            &mut self.scratch,
        );
        self.next_and += inputs.len() as u64;
    }
}
