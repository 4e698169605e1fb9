//! Linear operations on authenticated shares with public values (WRK17 §2.2): adding a
//! public constant and multiplying by a public bit, the two moves Beaver's trick and the
//! garbled gates need besides [`AuthShare::xor`].

use mixgc_core::Block;

use crate::auth::{AuthShare, Role};

/// One party's view of an authenticated share of the public bit `c`: the garbler holds
/// the bit (with MAC 0), the evaluator shifts its key so that M = K ⊕ c·Δ_B still holds.
pub(crate) fn constant(c: bool, role: Role, delta: Block) -> AuthShare {
    match role {
        Role::Garbler => AuthShare {
            bit: c,
            ..AuthShare::default()
        },
        Role::Evaluator => AuthShare {
            key: delta.and_bit(c),
            ..AuthShare::default()
        },
    }
}

/// ⟨x⟩ ⊕ c for a public bit `c`.
pub(crate) fn add_constant(x: AuthShare, c: bool, role: Role, delta: Block) -> AuthShare {
    x.xor(constant(c, role, delta))
}

/// ⟨c·x⟩ for a public bit `c`.
#[inline(always)]
pub(crate) fn scale(x: AuthShare, c: bool) -> AuthShare {
    AuthShare {
        bit: x.bit & c,
        mac: x.mac.and_bit(c),
        key: x.key.and_bit(c),
    }
}

/// The MAC this party expects on the peer's bit `bit`: K ⊕ bit·Δ_self.
pub(crate) fn expected_mac(share: &AuthShare, bit: bool, delta: Block) -> Block {
    share.key ^ delta.and_bit(bit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dealer::TrustedDealer;
    use crate::Preprocessor;

    /// Constants and scaling keep the MAC equation on both views and compute the right value.
    #[test]
    fn public_operations_keep_macs_valid() {
        let (mut ga, mut ev) = TrustedDealer::pair(3);
        let (da, db) = (ga.delta().0, ev.delta().0);
        let xs = ga.random_shares(16).unwrap();
        let ys = ev.random_shares(16).unwrap();
        for (i, (x, y)) in xs.into_iter().zip(ys).enumerate() {
            let (c, k) = (i % 2 == 1, i % 4 >= 2);
            let xa = scale(add_constant(x, c, Role::Garbler, da), k);
            let yb = scale(add_constant(y, c, Role::Evaluator, db), k);
            assert_eq!(xa.bit ^ yb.bit, ((x.bit ^ y.bit) ^ c) & k);
            assert_eq!(xa.mac, expected_mac(&yb, xa.bit, db));
            assert_eq!(yb.mac, expected_mac(&xa, yb.bit, da));
        }
    }
}
