//! The online evaluation of one garbled segment, local to every party (Ben-Efraim–Lindell–
//! Omri, CCS 2016, §3, "Online phase", with free-XOR).

use mixgc_circuit::{Circuit, GateKind};
use mixgc_core::{Block, Tccr, TweakableHash};

use super::garble::Segment;
use super::state::{Active, Shares};
use super::tweak::tweak;
use crate::NpartyError;

/// Evaluates the gates of `seg` with its joint garbled `tables` (as
/// [`super::garble::garble_segment`] returns them). An AND gate g with masked inputs
/// (a, b) = (Λ_u, Λ_v) gives, for every party j,
/// K_w[j] = T_g[ab][j] ⊕ ⊕_i (F(K_u[i]; g, i, j, 0) ⊕ F(K_v[i]; g, i, j, 1)) = k^j_{w,Λ_w},
/// whose lsb is Λ_w. Every lsb must agree and K_w[me] must be one of this party's own two
/// keys of w, else a party deviated.
pub(super) fn evaluate_segment(
    act: &mut Active,
    sh: &Shares,
    hash: &Tccr,
    c: &Circuit,
    seg: &Segment,
    tables: &[Block],
) -> Result<(), NpartyError> {
    let n = act.n;
    let (mut xs, mut tweaks) = (vec![Block::ZERO; 2 * n * n], vec![Block::ZERO; 2 * n * n]);
    let mut t = 0;
    for g in seg.gates.clone() {
        let (u, v, w) = (c.a[g] as usize, c.b[g] as usize, c.out[g] as usize);
        match c.kind[g] {
            GateKind::Xor => act.xor(w, u, v),
            GateKind::Not | GateKind::Copy => act.copy(w, u),
            GateKind::Const => act.constant(w),
            GateKind::And => {
                let index = seg.first_and + t as u64;
                for (pos, wire) in [u, v].into_iter().enumerate() {
                    for (i, &k) in act.keys_of(wire).iter().enumerate() {
                        let at = pos * n * n + i * n;
                        xs[at..at + n].fill(k);
                        for (j, tw) in tweaks[at..at + n].iter_mut().enumerate() {
                            *tw = tweak(index, i, j, pos);
                        }
                    }
                }
                hash.hash_many(&mut xs, &mut tweaks);
                let row = 2 * usize::from(act.masked[u]) + usize::from(act.masked[v]);
                let entry = &tables[t * 4 * n + row * n..t * 4 * n + (row + 1) * n];
                let out = act.keys_of_mut(w);
                out.copy_from_slice(entry);
                for hashed in xs.chunks_exact(n) {
                    for (o, &h) in out.iter_mut().zip(hashed) {
                        *o ^= h;
                    }
                }
                let masked = out[0].lsb();
                if out.iter().any(|k| k.lsb() != masked) || out[sh.me] != sh.key(w, masked) {
                    return Err(NpartyError::Deviation(format!(
                        "the joint garbled table of AND #{index} does not decode: some party \
                         deviated from the protocol"
                    )));
                }
                act.masked[w] = masked;
                t += 1;
            }
        }
    }
    Ok(())
}
