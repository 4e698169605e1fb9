//! The offline phase: the joint garbling of one batch of AND gates in a constant number
//! of rounds (Ben-Efraim–Lindell–Omri, CCS 2016, §3–4, with free-XOR), whatever the
//! batch's depth.

use std::ops::Range;

use mixgc_circuit::{Circuit, GateKind};
use mixgc_core::{Block, Rng, Tccr, TweakableHash};
use mixgc_net::Tag;

use super::frames::{recv_xor_blocks, send_blocks};
use super::state::Shares;
use super::tweak::tweak;
use crate::{Correlations, Mesh, NpartyError};

/// A run of consecutive gates holding at most the batch's number of AND gates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Segment {
    pub gates: Range<usize>,
    /// Global index (in circuit order) of the segment's first AND gate.
    pub first_and: u64,
    /// AND gates in the segment.
    pub ands: usize,
}

/// The circuit cut into segments of at most `batch_ands` AND gates each (`batch_ands ≥ 1`),
/// in circuit order; always at least one segment (the inputs go with the first).
pub(super) fn segments(c: &Circuit, batch_ands: usize) -> Vec<Segment> {
    let mut out = Vec::new();
    let (mut start, mut ands, mut first_and) = (0, 0, 0u64);
    for (g, &kind) in c.kind.iter().enumerate() {
        if kind == GateKind::And {
            if ands == batch_ands {
                out.push(Segment {
                    gates: start..g,
                    first_and,
                    ands,
                });
                first_and += ands as u64;
                (start, ands) = (g, 0);
            }
            ands += 1;
        }
    }
    out.push(Segment {
        gates: start..c.kind.len(),
        first_and,
        ands,
    });
    out
}

/// AND gates hashed per call to the hash while garbling.
const HASH_ANDS: usize = 256;

/// Garbles one segment jointly with every other party and returns the full joint garbled
/// tables of its AND gates: entry (a, b) for target party j of the segment's t-th AND at
/// `tables[t·4n + (2a + b)·n + j]`. `inputs` are the input wires, fresh in the first batch
/// only. With `tamper`, the shares sent to the peers are corrupted (tests only).
#[allow(clippy::too_many_arguments)]
pub(super) fn garble_segment(
    sh: &mut Shares,
    mesh: &mut Mesh,
    corr: &mut Correlations,
    hash: &Tccr,
    c: &Circuit,
    seg: &Segment,
    inputs: Range<usize>,
    rng: &mut Rng,
    tamper: bool,
) -> Result<Vec<Block>, NpartyError> {
    let (me, n) = (sh.me, sh.n);
    // λ shares and 0-keys, all local: fresh for inputs and AND outputs, linear otherwise.
    let mut fresh: Vec<usize> = inputs.collect();
    for &w in &fresh {
        sh.fresh(w, rng);
    }
    let mut ands: Vec<[usize; 3]> = Vec::with_capacity(seg.ands);
    for g in seg.gates.clone() {
        let (a, b, w) = (c.a[g] as usize, c.b[g] as usize, c.out[g] as usize);
        match c.kind[g] {
            GateKind::Xor => sh.xor(w, a, b),
            GateKind::Not => sh.not(w, a),
            GateKind::Copy => sh.copy(w, a),
            GateKind::Const => sh.constant(w, a == 1),
            GateKind::And => {
                sh.fresh(w, rng);
                fresh.push(w);
                ands.push([a, b, w]);
            }
        }
    }
    let m = ands.len();

    // Step 1: P = λ_u·λ_v, shared. Step 2: its Δ-products with those of the fresh λ_w.
    let mut bits = if m == 0 {
        Vec::new()
    } else {
        let x: Vec<bool> = ands.iter().map(|&[u, _, _]| sh.lambda[u]).collect();
        let y: Vec<bool> = ands.iter().map(|&[_, v, _]| sh.lambda[v]).collect();
        corr.and_shares(mesh, &x, &y)?
    };
    bits.extend(fresh.iter().map(|&w| sh.lambda[w]));
    let prods = if bits.is_empty() {
        vec![Vec::new(); n]
    } else {
        corr.delta_products(mesh, &bits)?
    };
    for (t, &w) in fresh.iter().enumerate() {
        for (k, p) in prods.iter().enumerate() {
            sh.dprod[w * n + k] = p[m + t];
        }
    }
    for g in seg.gates.clone() {
        let (a, b, w) = (c.a[g] as usize, c.b[g] as usize, c.out[g] as usize);
        match c.kind[g] {
            GateKind::Xor => sh.xor_dprod(w, a, b),
            GateKind::Not => sh.not_dprod(w, a),
            GateKind::Copy => sh.copy_dprod(w, a),
            GateKind::Const => sh.constant_dprod(w, a == 1),
            GateKind::And => {}
        }
    }

    // Step 3: this party's shares of every table entry.
    let mut tables = vec![Block::ZERO; m * 4 * n];
    let (mut xs, mut tweaks) = (Vec::new(), Vec::new());
    for (chunk, first) in ands.chunks(HASH_ANDS).zip((0..).step_by(HASH_ANDS)) {
        xs.clear();
        tweaks.clear();
        for (t, &[u, v, _]) in chunk.iter().enumerate() {
            let g = seg.first_and + (first + t) as u64;
            for (wire, pos) in [(u, 0), (v, 1)] {
                for bit in [false, true] {
                    xs.extend(std::iter::repeat_n(sh.key(wire, bit), n));
                    tweaks.extend((0..n).map(|j| tweak(g, me, j, pos)));
                }
            }
        }
        hash.hash_many(&mut xs, &mut tweaks);
        for (t, (&[u, v, w], hashed)) in chunk.iter().zip(xs.chunks_exact(4 * n)).enumerate() {
            let t = first + t;
            let (du, dv, dw) = (sh.dprod_of(u), sh.dprod_of(v), sh.dprod_of(w));
            let entry = &mut tables[t * 4 * n..(t + 1) * 4 * n];
            for (row, entry) in entry.chunks_exact_mut(n).enumerate() {
                let (a, b) = (row >> 1 == 1, row & 1 == 1);
                let (hu, hv) = (&hashed[usize::from(a) * n..], &hashed[(2 + usize::from(b)) * n..]);
                for (j, e) in entry.iter_mut().enumerate() {
                    // G^i_{g,ab}[j] = F(k^i_{u,a}) ⊕ F(k^i_{v,b}) ⊕ [Δ_j·χ_ab]^i (⊕ k^j_{w,0}
                    // at i = j), χ_ab = λ_uλ_v ⊕ b·λ_u ⊕ a·λ_v ⊕ ab ⊕ λ_w.
                    *e = hu[j] ^ hv[j] ^ prods[j][t] ^ du[j].and_bit(b) ^ dv[j].and_bit(a) ^ dw[j];
                    if j == me {
                        *e ^= sh.key0[w] ^ sh.delta.and_bit(a & b);
                    }
                }
            }
        }
    }

    // Step 4: everyone sends its shares to everyone and sums what it gets.
    let corrupted;
    let sent: &[Block] = if tamper {
        corrupted = tables
            .iter()
            .map(|&b| b ^ Block::from_u128(2))
            .collect::<Vec<_>>();
        &corrupted
    } else {
        &tables
    };
    mesh.set_phase("the garbled-table shares");
    for p in mesh.peers() {
        send_blocks(mesh, p, Tag::TableShares, sent)?;
    }
    for p in mesh.peers() {
        recv_xor_blocks(mesh, p, Tag::TableShares, &mut tables)?;
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_hold_at_most_a_batch_of_ands() {
        use GateKind::*;
        let c = Circuit {
            kind: vec![Xor, And, And, Not, And, Xor],
            ..Circuit::default()
        };
        let seg = |gates, first_and, ands| Segment {
            gates,
            first_and,
            ands,
        };
        assert_eq!(
            segments(&c, 1),
            [seg(0..2, 0, 1), seg(2..4, 1, 1), seg(4..6, 2, 1)]
        );
        assert_eq!(segments(&c, 2), [seg(0..4, 0, 2), seg(4..6, 2, 1)]);
        assert_eq!(segments(&c, 7), [seg(0..6, 0, 3)]);
        assert_eq!(segments(&Circuit::default(), 3), [seg(0..0, 0, 0)]);
    }
}
