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

use crate::tweak::{half_gate_counter, half_gate_tweaks, private_tweak};
use crate::MAX_AND_GROUP;

/// Hashing scratch space for one AND group (four hashes per gate when garbling, two when
/// evaluating; the garbler's two zero-labels and two tweaks per gate). Each thread garbling
/// part of a parallel block has its own.
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
    let x = Block::flatten_pairs(inputs);
    let counter = half_gate_counter(first_and, n);
    if let Some(j) = counter {
        if hash.try_half_gates_garble_counter(x, delta, j, rows, outputs) {
            return;
        }
    }
    // h0 = H(A⁰, j), H(B⁰, j') per gate; h1 the same on A¹ = A⁰ ⊕ Δ, B¹ = B⁰ ⊕ Δ.
    let (h0, h1) = scratch.hashes[..4 * n].split_at_mut(2 * n);
    match counter {
        Some(j) => hash.hash_offset_pairs_counter(x, delta, j, h0, h1),
        None => {
            let t = &mut scratch.tweaks[..2 * n];
            for k in 0..n {
                let (j, j1) = half_gate_tweaks(first_and + k as u64);
                t[2 * k..2 * k + 2].copy_from_slice(&[j, j1]);
            }
            hash.hash_offset_pairs(x, delta, t, h0, h1);
        }
    }
    for (k, &(a0, b0)) in inputs.iter().enumerate() {
        let (pa, pb) = (a0.lsb_mask(), b0.lsb_mask());
        let (ha0, ha1, hb0, hb1) = (h0[2 * k], h1[2 * k], h0[2 * k + 1], h1[2 * k + 1]);
        let tg = ha0 ^ ha1 ^ (delta & pb);
        let wg = ha0 ^ (tg & pa);
        let te = hb0 ^ hb1 ^ a0;
        let we = hb0 ^ ((te ^ a0) & pb);
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
    let labels = Block::flatten_pairs(inputs);
    let counter = half_gate_counter(first_and, n);
    if let Some(j) = counter {
        if hash.try_half_gates_eval_counter(labels, rows, j, outputs) {
            return;
        }
    }
    let h = &mut scratch.hashes[..2 * n];
    h.copy_from_slice(labels);
    match counter {
        Some(j) => hash.hash_counter(h, j),
        None => {
            let t = &mut scratch.tweaks[..2 * n];
            for k in 0..n {
                let (j, j1) = half_gate_tweaks(first_and + k as u64);
                t[2 * k..2 * k + 2].copy_from_slice(&[j, j1]);
            }
            hash.hash_many(h, t);
        }
    }
    for (k, &(a, b)) in inputs.iter().enumerate() {
        let (tg, te) = (rows[2 * k], rows[2 * k + 1]);
        outputs[k] = h[2 * k] ^ (tg & a.lsb_mask()) ^ h[2 * k + 1] ^ ((te ^ a) & b.lsb_mask());
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

/// Outputs per hash batch of garbler-private projections (the scratch space of one AND
/// group holds their hashes).
const PRIVATE_GROUP: usize = 2 * MAX_AND_GROUP;

impl<H: TweakableHash> HalfGateGarbler<H> {
    /// Projections Z_2 → Z_2 of one wire through tables only the garbler knows (BMR16's
    /// projection gate on a Boolean wire; ZRE15 §3's generator half gate with the garbler's
    /// bit in the table): for the wire with zero-label A⁰ (p_a = lsb(A⁰)), output m carries
    /// `tables[m][a]`. With tweak t_m, the private index `first` + m (the caller's counter,
    /// never repeated in a session):
    ///
    /// ```text
    /// T_m = H(A⁰,t_m) ⊕ H(A¹,t_m) ⊕ (t_m0 ⊕ t_m1)·Δ     W_m⁰ = H(A⁰,t_m) ⊕ p_a·T_m ⊕ t_m0·Δ
    /// ```
    ///
    /// Writes W_m⁰ to `outputs[m]` and appends the one row T_m per output, which hides the
    /// table as a half gate's row hides the garbler's bit.
    pub fn garble_private(
        &mut self,
        first: u64,
        a0: Block,
        tables: &[[bool; 2]],
        outputs: &mut [Block],
        rows: &mut Vec<Block>,
    ) {
        assert_eq!(tables.len(), outputs.len(), "one output per table");
        let (delta, a1, pa) = (self.delta, a0 ^ self.delta, a0.lsb());
        rows.reserve(tables.len());
        for (g, (tables, outputs)) in tables
            .chunks(PRIVATE_GROUP)
            .zip(outputs.chunks_mut(PRIVATE_GROUP))
            .enumerate()
        {
            let n = tables.len();
            let base = first + (g * PRIVATE_GROUP) as u64;
            let (h, t) = (&mut self.scratch.hashes[..2 * n], &mut self.scratch.tweaks[..n]);
            for k in 0..n {
                h[2 * k] = a0;
                h[2 * k + 1] = a1;
                t[k] = private_tweak(base + k as u64);
            }
            self.hash.hash_pairs(h, t);
            for (k, (&[t0, t1], out)) in tables.iter().zip(outputs.iter_mut()).enumerate() {
                let (h0, h1) = (h[2 * k], h[2 * k + 1]);
                let row = h0 ^ h1 ^ delta.and_bit(t0 ^ t1);
                *out = h0 ^ row.and_bit(pa) ^ delta.and_bit(t0);
                rows.push(row);
            }
        }
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

    /// Evaluates [`HalfGateGarbler::garble_private`] on the active label A with its rows:
    /// output m is H(A,t_m) ⊕ s_a·T_m, s_a = lsb(A).
    pub fn evaluate_private(&mut self, first: u64, a: Block, rows: &[Block], outputs: &mut [Block]) {
        assert_eq!(rows.len(), outputs.len(), "one row per output");
        let sa = a.lsb();
        for (g, (rows, outputs)) in rows
            .chunks(PRIVATE_GROUP)
            .zip(outputs.chunks_mut(PRIVATE_GROUP))
            .enumerate()
        {
            let n = rows.len();
            let base = first + (g * PRIVATE_GROUP) as u64;
            let (h, t) = (&mut self.scratch.hashes[..n], &mut self.scratch.tweaks[..n]);
            for k in 0..n {
                h[k] = a;
                t[k] = private_tweak(base + k as u64);
            }
            self.hash.hash_many(h, t);
            for ((&hk, &row), out) in h.iter().zip(rows).zip(outputs.iter_mut()) {
                *out = hk ^ row.and_bit(sa);
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use mixgc_core::{AnyHash, HashKind};
    use rand::{Rng, SeedableRng};

    /// Groups of ANDs decode to the AND of their (random) input bits, with both
    /// hashes, at AND indices where the tweaks are a counter (hashed with counter tweaks),
    /// where they stop being one inside the group and past 2^63 (tweaks written out).
    #[test]
    fn groups_decode_to_and_on_both_sides_of_the_counter_limit() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(16);
        let seed = Block::random(&mut rng);
        for kind in [HashKind::Tccr, HashKind::Rekeyed] {
            for first in [0u64, 77, (1 << 63) - 16, (1 << 63) - 5, 1 << 63, u64::MAX - 40] {
                let delta = Block::random(&mut rng).with_lsb_set();
                let mut g = HalfGateGarbler::new(AnyHash::new(kind, seed), delta);
                g.next_and = first;
                let mut e = HalfGateEvaluator::starting_at(AnyHash::new(kind, seed), first);
                let n = MAX_AND_GROUP;
                let zero: Vec<(Block, Block)> = (0..n)
                    .map(|_| (Block::random(&mut rng), Block::random(&mut rng)))
                    .collect();
                let (mut c0, mut tables) = (vec![Block::ZERO; n], Vec::new());
                g.garble(&zero, &mut c0, &mut tables);
                assert_eq!(tables.len(), 2 * n);
                let bits: Vec<(bool, bool)> = (0..n).map(|_| (rng.gen(), rng.gen())).collect();
                let active: Vec<(Block, Block)> = zero
                    .iter()
                    .zip(&bits)
                    .map(|(&(a, b), &(x, y))| (a ^ delta.and_bit(x), b ^ delta.and_bit(y)))
                    .collect();
                let mut c = vec![Block::ZERO; n];
                e.evaluate(&active, &tables, &mut c);
                for k in 0..n {
                    let (x, y) = bits[k];
                    assert_eq!(
                        c[k],
                        c0[k] ^ delta.and_bit(x & y),
                        "{kind} first={first} gate {k}"
                    );
                }
                assert_eq!(e.ands_evaluated(), first.wrapping_add(n as u64));
            }
        }
    }

    /// Every table of a private projection, on both values of the input and many outputs
    /// (more than one hash group), decodes to the table's entry; the row count is one per
    /// output.
    #[test]
    fn private_projections_decode_to_the_garblers_tables() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let seed = Block::random(&mut rng);
        for kind in [HashKind::Tccr, HashKind::Rekeyed] {
            let mut delta = Block::random(&mut rng);
            if !delta.lsb() {
                delta ^= Block::from_u128(1);
            }
            let mut g = HalfGateGarbler::new(AnyHash::new(kind, seed), delta);
            let mut e = HalfGateEvaluator::new(AnyHash::new(kind, seed));
            for (first, n) in [(0u64, 1usize), (1, 4), (5, 32), (37, 33), (70, 100)] {
                let tables: Vec<[bool; 2]> = (0..n).map(|_| [rng.gen(), rng.gen()]).collect();
                let a0 = Block::random(&mut rng);
                let (mut zero, mut rows) = (vec![Block::ZERO; n], Vec::new());
                g.garble_private(first, a0, &tables, &mut zero, &mut rows);
                assert_eq!(rows.len(), n);
                for a in [false, true] {
                    let mut out = vec![Block::ZERO; n];
                    e.evaluate_private(first, a0 ^ delta.and_bit(a), &rows, &mut out);
                    for ((w, z), t) in out.iter().zip(&zero).zip(&tables) {
                        let want = t[a as usize];
                        assert_eq!(*w, *z ^ delta.and_bit(want), "first={first} n={n} a={a}");
                    }
                }
            }
        }
    }
}
