//! Random authenticated shares from COT in both directions (WRK17 §3, F_aBit of Fig. 5, and the
//! authenticated shares of §2.2; realised by KOS15-checked COT as WRK17 §3 suggests).
//!
//! For n shares each party picks n random bits, obtains MACs on them as COT receiver
//! (t_j = q_j ⊕ c_j·Δ_peer), and keys on the peer's bits as COT sender under its own Δ.
//! The garbler receives first, so the two directions run one after the other over one
//! channel.

use mixgc_core::{Block, Rng};
use mixgc_net::Channel;
use rand::RngCore;

use super::cot::{CotReceiver, CotSender};
use crate::{AuthShare, MaliciousError, Role};

/// n authenticated shares, one party's view, struct-of-arrays: `bits[j]` with MAC
/// `macs[j]` under the peer's Δ, and `keys[j]` on the peer's j-th bit under this Δ.
#[derive(Clone, Debug, Default)]
pub(crate) struct Shares {
    pub(crate) bits: Vec<bool>,
    pub(crate) macs: Vec<Block>,
    pub(crate) keys: Vec<Block>,
}

impl Shares {
    pub(crate) fn len(&self) -> usize {
        self.bits.len()
    }

    pub(crate) fn get(&self, j: usize) -> AuthShare {
        AuthShare {
            bit: self.bits[j],
            mac: self.macs[j],
            key: self.keys[j],
        }
    }

    /// Overwrites the MACs and keys with zeros (they are secret), keeping the allocations.
    pub(crate) fn wipe(&mut self) {
        zeroize::Zeroize::zeroize(self.macs.as_mut_slice());
        zeroize::Zeroize::zeroize(self.keys.as_mut_slice());
    }
}

/// Sets `bits` to `n` uniformly random bits, drawn 64 at a time (no per-bit RNG call).
pub(crate) fn random_bits_into(rng: &mut Rng, n: usize, bits: &mut Vec<bool>) {
    bits.clear();
    bits.reserve(n);
    for start in (0..n).step_by(64) {
        let word = rng.next_u64();
        bits.extend((0..64.min(n - start)).map(|k| word >> k & 1 == 1));
    }
}

/// `n` random authenticated shares (WRK17 §3 / Fig. 5, F_aBit in both directions), into `out`
/// (replacing its contents; its allocations are reused).
#[inline(never)]
pub(crate) fn random_shares_into<C: Channel + ?Sized>(
    ch: &mut C,
    role: Role,
    sender: &mut CotSender,
    receiver: &mut CotReceiver,
    n: usize,
    rng: &mut Rng,
    out: &mut Shares,
) -> Result<(), MaliciousError> {
    random_bits_into(rng, n, &mut out.bits);
    match role {
        Role::Garbler => {
            receiver.extend_into(ch, &out.bits, rng, &mut out.macs)?;
            sender.extend_into(ch, n, rng, &mut out.keys)
        }
        Role::Evaluator => {
            sender.extend_into(ch, n, rng, &mut out.keys)?;
            receiver.extend_into(ch, &out.bits, rng, &mut out.macs)
        }
    }
}
