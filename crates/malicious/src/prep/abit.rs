//! Random authenticated shares from COT in both directions (WRK17 §3, F_aBit and the
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

    pub(crate) fn to_auth(&self) -> Vec<AuthShare> {
        (0..self.len()).map(|j| self.get(j)).collect()
    }
}

/// `n` uniformly random bits, packed from one RNG fill (no per-bit RNG call).
pub(crate) fn random_bits(rng: &mut Rng, n: usize) -> Vec<bool> {
    let mut bytes = vec![0u8; n.div_ceil(8)];
    rng.fill_bytes(&mut bytes);
    (0..n).map(|j| bytes[j / 8] >> (j % 8) & 1 == 1).collect()
}

/// `n` random authenticated shares (WRK17 §3, F_aBit in both directions).
#[inline(never)]
pub(crate) fn random_shares<C: Channel + ?Sized>(
    ch: &mut C,
    role: Role,
    sender: &mut CotSender,
    receiver: &mut CotReceiver,
    n: usize,
    rng: &mut Rng,
) -> Result<Shares, MaliciousError> {
    let bits = random_bits(rng, n);
    let (macs, keys) = match role {
        Role::Garbler => {
            let macs = receiver.extend(ch, &bits, rng)?;
            (macs, sender.extend(ch, n, rng)?)
        }
        Role::Evaluator => {
            let keys = sender.extend(ch, n, rng)?;
            (receiver.extend(ch, &bits, rng)?, keys)
        }
    };
    Ok(Shares { bits, macs, keys })
}
