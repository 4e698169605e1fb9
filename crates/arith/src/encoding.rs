//! How the AES row hash encodes a label (mod 2 or an odd prime) as one block and a high
//! word: the injective encoding (x, e, m) whose security argument is in `row_hash.rs`.

use mixgc_core::Block;

use crate::Modulus;

/// Output blocks per hash at most (an odd-prime label has at most 3 digit groups).
pub(crate) const MAX_BLOCKS: usize = 3;

/// A label encoded for the hash: the block x, the high word e and the input modulus m.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Encoded {
    pub(crate) x: u128,
    pub(crate) e: u32,
    pub(crate) modulus: u16,
}

/// The encoding of the label mod the odd prime `m` whose digit groups have the values
/// `groups` ([`Modulus::join_groups`]): W = G_0 + M·G_1 + M²·G_2 with M = p^j, as 192
/// bits — x = W mod 2^128, e the rest (below p², see above). G_0 + M·G_1 < M² ≤ 2^128
/// fits in a u128; M²·G_2 is added as a 192-bit product.
#[inline]
pub(crate) fn encode_groups(m: Modulus, groups: &[u64]) -> Encoded {
    let prime = m.odd_constants().expect("an odd-prime label");
    let [g0, g1, g2] = groups.try_into().expect("three digit groups");
    let (big_m, big_m2) = (
        prime.group_modulus(prime.group_len()),
        prime.group_modulus_squared(),
    );
    let low = u128::from(g0) + u128::from(big_m) * u128::from(g1);
    let (a, b) = (
        u128::from(g2) * u128::from(big_m2 as u64),
        u128::from(g2) * (big_m2 >> 64),
    );
    let (x, carry_a) = low.overflowing_add(a);
    let (x, carry_b) = x.overflowing_add(b << 64);
    let e = (b >> 64) + u128::from(carry_a) + u128::from(carry_b);
    debug_assert!(e < u128::from(prime.p()).pow(2));
    Encoded {
        x,
        e: e as u32,
        modulus: prime.p() as u16,
    }
}

pub(crate) fn boolean_encoding(block: Block) -> Encoded {
    Encoded {
        x: block.to_u128(),
        e: 0,
        modulus: 2,
    }
}
