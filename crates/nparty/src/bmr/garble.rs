//! The offline phase: the joint garbling of one batch of AND gates in a constant number
//! of rounds (Ben-Efraim–Lindell–Omri, CCS 2016, §3–4, with free-XOR), whatever the
//! batch's depth.

use mixgc_core::{Block, Rng, Tccr, TweakableHash};
use mixgc_net::Tag;

use super::frames::exchange_xor_blocks;
use super::state::Shares;
use super::tweak::tweak;
use crate::batches::Op;
use crate::{Correlations, Mesh, NpartyError};

/// AND gates hashed per call to the hash while garbling.
const HASH_ANDS: usize = 256;

/// The joint garbling of one batch, what its evaluation needs.
pub(super) struct Garbled {
    /// Entry (a, b) for target party j of the batch's t-th AND at
    /// `tables[t·4n + (2a + b)·n + j]`.
    pub tables: Vec<Block>,
    /// This party's 0-key k^i_{w,0} of the t-th AND's output w, as made (its slot may hold
    /// another wire by the end of the batch).
    pub out_keys: Vec<Block>,
}

/// Garbles the batch `ops` jointly with every other party. `first_and` is the global index
/// (in stream order) of its first AND; `inputs` are the input slots, fresh (already given
/// their λ share and 0-key) in the first batch only. With `tamper`, the shares sent to the
/// peers are corrupted (tests only).
///
/// The batch is replayed twice over the slots: once for λ shares and 0-keys (local), then,
/// after the batch's products of shared bits and Δ-products, once for the D_w = [Δ_k·λ_w]
/// of every slot, each AND's table entries taking the values its wires have at that gate.
#[allow(clippy::too_many_arguments)]
pub(super) fn garble_batch(
    sh: &mut Shares,
    mesh: &mut Mesh,
    corr: &mut Correlations,
    hash: &Tccr,
    ops: &[Op],
    first_and: u64,
    inputs: &[u32],
    rng: &mut Rng,
    tamper: bool,
) -> Result<Garbled, NpartyError> {
    let (me, n) = (sh.me, sh.n);
    // Pass 1, local: λ shares and 0-keys, fresh for AND outputs, linear otherwise.
    let mut fresh: Vec<bool> = inputs.iter().map(|&s| sh.lambda[s as usize]).collect();
    let (mut x, mut y) = (Vec::new(), Vec::new());
    let mut in_keys: Vec<[Block; 2]> = Vec::new();
    let mut out_keys = Vec::new();
    for op in ops {
        match *op {
            Op::Xor { a, b, out } => sh.xor(out as usize, a as usize, b as usize),
            Op::Copy { a, out } => sh.copy(out as usize, a as usize),
            Op::Const { value, out } => sh.constant(out as usize, value),
            Op::And { a, b, out } => {
                let (a, b, w) = (a as usize, b as usize, out as usize);
                x.push(sh.lambda[a]);
                y.push(sh.lambda[b]);
                in_keys.push([sh.key0[a], sh.key0[b]]);
                sh.fresh(w, rng);
                out_keys.push(sh.key0[w]);
                fresh.push(sh.lambda[w]);
            }
        }
    }
    let m = x.len();
    let ni = inputs.len();

    // Step 1: P = λ_u·λ_v, shared. Step 2: its Δ-products with those of the fresh λ_w.
    let mut bits = if m == 0 {
        Vec::new()
    } else {
        corr.and_shares(mesh, &x, &y)?
    };
    bits.extend_from_slice(&fresh);
    let prods = if bits.is_empty() {
        vec![Vec::new(); n]
    } else {
        corr.delta_products(mesh, &bits)?
    };

    // Pass 2: D of every slot, and every table entry but its hashes:
    // G^i_{g,ab}[j] = [Δ_j·χ_ab]^i (⊕ k^j_{w,0} ⊕ ab·Δ_j at i = j), where
    // χ_ab = λ_uλ_v ⊕ b·λ_u ⊕ a·λ_v ⊕ ab ⊕ λ_w.
    for (t, &s) in inputs.iter().enumerate() {
        for (k, p) in prods.iter().enumerate() {
            sh.dprod[s as usize * n + k] = p[m + t];
        }
    }
    let mut tables = vec![Block::ZERO; m * 4 * n];
    let mut t = 0;
    for op in ops {
        match *op {
            Op::Xor { a, b, out } => sh.xor_dprod(out as usize, a as usize, b as usize),
            Op::Copy { a, out } => sh.copy_dprod(out as usize, a as usize),
            Op::Const { value, out } => sh.constant_dprod(out as usize, value),
            Op::And { a, b, out } => {
                let (du, dv) = (sh.dprod_of(a as usize), sh.dprod_of(b as usize));
                let entry = &mut tables[t * 4 * n..(t + 1) * 4 * n];
                for (row, entry) in entry.chunks_exact_mut(n).enumerate() {
                    let (a, b) = (row >> 1 == 1, row & 1 == 1);
                    for (j, e) in entry.iter_mut().enumerate() {
                        let dw = prods[j][m + ni + t];
                        *e = prods[j][t] ^ du[j].and_bit(b) ^ dv[j].and_bit(a) ^ dw;
                        if j == me {
                            *e ^= out_keys[t] ^ sh.delta.and_bit(a & b);
                        }
                    }
                }
                for (k, p) in prods.iter().enumerate() {
                    sh.dprod[out as usize * n + k] = p[m + ni + t];
                }
                t += 1;
            }
        }
    }

    // Step 3: the hashes F(k^i_{u,a}) ⊕ F(k^i_{v,b}) of every entry.
    let (mut xs, mut tweaks) = (Vec::new(), Vec::new());
    for (chunk, first) in in_keys.chunks(HASH_ANDS).zip((0..).step_by(HASH_ANDS)) {
        xs.clear();
        tweaks.clear();
        for (t, keys) in chunk.iter().enumerate() {
            let g = first_and + (first + t) as u64;
            for (pos, &key0) in keys.iter().enumerate() {
                for bit in [false, true] {
                    xs.extend(std::iter::repeat_n(key0 ^ sh.delta.and_bit(bit), n));
                    tweaks.extend((0..n).map(|j| tweak(g, me, j, pos)));
                }
            }
        }
        hash.hash_many(&mut xs, &mut tweaks);
        for (t, hashed) in xs.chunks_exact(4 * n).enumerate() {
            let t = first + t;
            let entry = &mut tables[t * 4 * n..(t + 1) * 4 * n];
            for (row, entry) in entry.chunks_exact_mut(n).enumerate() {
                let (a, b) = (row >> 1, row & 1);
                let (hu, hv) = (&hashed[a * n..], &hashed[(2 + b) * n..]);
                for (j, e) in entry.iter_mut().enumerate() {
                    *e ^= hu[j] ^ hv[j];
                }
            }
        }
    }

    // Step 4: everyone sends its shares to everyone and sums what it gets.
    mesh.set_phase("the garbled-table shares");
    if m > 0 {
        let theirs = if tamper {
            let sent: Vec<Block> = tables.iter().map(|&b| b ^ Block::from_u128(2)).collect();
            exchange_xor_blocks(mesh, Tag::TableShares, &sent)?
        } else {
            exchange_xor_blocks(mesh, Tag::TableShares, &tables)?
        };
        for (t, s) in tables.iter_mut().zip(theirs) {
            *t ^= s;
        }
    }
    Ok(Garbled { tables, out_keys })
}
