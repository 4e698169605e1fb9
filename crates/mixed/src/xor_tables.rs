//! Masked public tables of size 2 from the XOR tree ([`crate::sign_tree`]): the functionality
//! of seed Figure 4 (Case 1) without the table chain of Figure 6.
//!
//! For a public table T = (t0, t1), T'[b] = T[r ⊕ b] needs only shares of the mask
//! r = ⊕_i r_i: T'[0] = t0 + (t1 − t0)·r and T'[1] = t1 − (t1 − t0)·r are affine in r. The
//! tree gives party 0 an encryption of (−1)^r; one E2A (Figure 15) turns it into additive
//! shares of z = (−1)^r, and r = (1 − z)/2 is a local linear map of the shares. Per party
//! (n ≤ 32, [`crate::sign_sum`]): one polynomial out and in for the sum, and c1 and one E2A
//! share at three primes ([`crate::switched_e2a`]): constant in n, within 1.25× of n = 2
//! (see `docs/mixed-mode.md`).

use fhe_rand::{CryptoRng, Rng, RngCore};
use mixgc_nparty::Mesh;

use crate::lut::MaskedTables;
use crate::{MixedError, ThresholdKeys, PLAINTEXT_MODULUS as P};

/// 2^−1 mod p.
const HALF: u64 = P.div_ceil(2);

fn mul_mod(a: u64, b: u64) -> u64 {
    ((u128::from(a) * u128::from(b)) % u128::from(P)) as u64
}

impl ThresholdKeys {
    /// Additive shares mod p of r_j = ⊕_i `bits`_i[j] (every party's bits, each 0 or 1, at
    /// most N, the same count at every party): the "daBits" both forms of a random bit need.
    /// Every party calls it at once.
    pub fn xor_to_shares<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        bits: &[u8],
        rng: &mut R,
    ) -> Result<Vec<u64>, MixedError> {
        let k = bits.len();
        let signs = self.xor_signs_at_root(mesh, bits, rng)?;
        let mut z = self.switched_shares_from_root(mesh, signs, rng)?;
        z.truncate(k);
        let first = u64::from(mesh.me() == 0);
        Ok(z.iter().map(|&zi| mul_mod((first + P - zi) % P, HALF)).collect())
    }

    /// k ≤ N masked size-2 public tables (t0[j], t1[j]) through the XOR tree: random mask
    /// bits, shares of T'[b] = T[r ⊕ b] (see the module docs). Every party calls it at once
    /// with the same tables.
    pub(crate) fn masked_public_pairs<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        t0: &[u64],
        t1: &[u64],
        rng: &mut R,
    ) -> Result<MaskedTables, MixedError> {
        let mask: Vec<u8> = (0..t0.len()).map(|_| rng.random_range(0..2u8)).collect();
        let r = self.xor_to_shares(mesh, &mask, rng)?;
        let first = mesh.me() == 0;
        let (mut e0, mut e1) = (Vec::with_capacity(r.len()), Vec::with_capacity(r.len()));
        for ((&a, &b), &ri) in t0.iter().zip(t1).zip(&r) {
            let dr = mul_mod((b + P - a) % P, ri);
            let (a, b) = if first { (a, b) } else { (0, 0) };
            e0.push((a + dr) % P);
            e1.push((b + P - dr) % P);
        }
        Ok(MaskedTables::from_parts(mask, vec![e0, e1]))
    }
}
