//! The online evaluation of one garbled batch, local to every party (Ben-Efraim–Lindell–
//! Omri, CCS 2016, §3, "Online phase", with free-XOR).

use mixgc_core::{Block, Tccr, TweakableHash};

use super::garble::Garbled;
use super::state::Active;
use super::tweak::tweak;
use crate::batches::Op;
use crate::NpartyError;

/// Evaluates the batch `ops` with its joint garbling (as [`super::garble::garble_batch`]
/// returns it); `first_and` is the global index of its first AND, `me` and `delta` this
/// party's id and Δ. An AND gate g with masked inputs (a, b) = (Λ_u, Λ_v) gives, for every
/// party j, K_w[j] = T_g[ab][j] ⊕ ⊕_i (F(K_u[i]; g, i, j, 0) ⊕ F(K_v[i]; g, i, j, 1)) =
/// k^j_{w,Λ_w}, whose lsb is Λ_w. Every lsb must agree and K_w[me] must be one of this
/// party's own two keys of w, else a party deviated.
pub(super) fn evaluate_batch(
    act: &mut Active,
    me: usize,
    delta: Block,
    hash: &Tccr,
    ops: &[Op],
    first_and: u64,
    garbled: &Garbled,
) -> Result<(), NpartyError> {
    let n = act.n;
    let (mut xs, mut tweaks) = (vec![Block::ZERO; 2 * n * n], vec![Block::ZERO; 2 * n * n]);
    let mut t = 0;
    for op in ops {
        match *op {
            Op::Xor { a, b, out } => act.xor(out as usize, a as usize, b as usize),
            Op::Copy { a, out } => act.copy(out as usize, a as usize),
            Op::Const { out, .. } => act.constant(out as usize),
            Op::And { a, b, out } => {
                let (u, v, w) = (a as usize, b as usize, out as usize);
                let index = first_and + t as u64;
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
                let at = t * 4 * n + row * n;
                let out = act.keys_of_mut(w);
                out.copy_from_slice(&garbled.tables[at..at + n]);
                for hashed in xs.chunks_exact(n) {
                    for (o, &h) in out.iter_mut().zip(hashed) {
                        *o ^= h;
                    }
                }
                let masked = out[0].lsb();
                if out.iter().any(|k| k.lsb() != masked)
                    || out[me] != garbled.out_keys[t] ^ delta.and_bit(masked)
                {
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
