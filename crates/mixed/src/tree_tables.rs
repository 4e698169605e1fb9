//! Masked tables of 2^m entries, public (Case 1, m ≥ 2) and private (Case 2, any m), from
//! the XOR of the mask bits under encryption ([`crate::sign_sum`], [`crate::sign_tree`])
//! instead of the table chain of seed Figure 6 ([`crate::lut`]): the functionality of
//! Figures 4 and 7 with per-party traffic constant in n.
//!
//! **Indicators.** Each party samples r_i ∈ [0, M), M = 2^m; the mask is r = ⊕ r_i. For
//! every bit b < m the XOR sum gives party 0 E(z_b), z_b = (−1)^{r_b}, in slot j for table
//! j. Then [r_b = w_b] = (1 + (−1)^{w_b}·z_b)/2, so with I_w = Π_b (1 + (−1)^{w_b}·z_b)
//! = 2^m·[r = w] (products along a balanced tree over the bits: ⌈log2 m⌉ levels, the
//! factor 2^m removed after E2A, where it costs no noise).
//!
//! **Public tables.** T'[v] = T[r ⊕ v] = Σ_w [r = w]·T[w ⊕ v] is linear in the indicators:
//! E2A of the I_w gives shares y_w, and each party's share of T'[v] is
//! 2^−m·Σ_w T[w ⊕ v]·y_w, computed locally.
//!
//! **Private tables.** Every party's additive shares t_i[u] of the entries are encrypted
//! collectively (h_i = −s_i·a + Δ·t_i + e_i for a fresh common random a, summed along the
//! chain into party 0, as the XOR sum does), so party 0 holds E(T[u]). It permutes them
//! bit by bit (a butterfly, no indicators): stage b maps every pair (x, y) = (X[u],
//! X[u ⊕ 2^b]) with u_b = 0 to 2X'[u] = x + y − z_b·(y − x), 2X'[u ⊕ 2^b] = x + y +
//! z_b·(y − x), which is X[u ⊕ r_b·2^b] times 2: one product a pair, (M/2)·m products and m
//! levels in all (the indicators times the entries would take M² products, too slow at
//! party 0 for M ≥ 8), and E2A gives shares of 2^m·T[r ⊕ v].
//!
//! **Noise.** The XOR sum leaves E(z_b) at ⌈log2 n⌉ + 1 product levels
//! ([`crate::sign_sum::sum_fits`]; ⌈log2 n⌉ for the product tree beyond it), the public
//! indicators add ⌈log2 m⌉ levels and a private table's butterfly m ([`tree_table_levels`]);
//! a sum of M indicator terms adds at most log2 M ≤ 4 bits, inside the margin between 6
//! measured levels (≈ 2^310) and [`crate::sign_tree::MAX_TREE_NOISE_BITS`] = 320, which the
//! switched E2A's flooding hides ([`crate::switched_e2a`]). [`tree_tables_fit`] says where
//! this holds; the table chain takes the other cases. Additions of plaintexts and of
//! ciphertexts of equal level cost no level.
//!
//! **Privacy.** Party 0 sees only ciphertexts under the collective key, and every
//! decryption is an E2A with flooding; the relays of the sums see RLWE samples, as in
//! [`crate::sign_sum`].
//!
//! **Traffic per party and batch of N tables** (constant in n): m sum polynomials, M more
//! for a private table's entries, and M switched E2As (c1 and one share at three primes).

use fhe::bfv::{Ciphertext, RelinearizationKey};
use fhe_rand::{CryptoRng, Rng, RngCore};
use mixgc_nparty::Mesh;

use crate::conversions::scaled_plaintext;
use crate::lut::{MaskedTables, Tables};
use crate::ops::add_plain;
use crate::sign_sum::sum_fits;
use crate::sign_tree::{tree_depth, tree_fits};
use crate::wire::zero_secret_key;
use crate::{MixedError, ThresholdKeys, PLAINTEXT_MODULUS as P};

fn mul_mod(a: u64, b: u64) -> u64 {
    ((u128::from(a) * u128::from(b)) % u128::from(P)) as u64
}

/// 2^−m mod p.
fn inverse_power_of_two(m: u32) -> u64 {
    let half = P.div_ceil(2);
    (0..m).fold(1, |acc, _| mul_mod(acc, half))
}

/// Product levels after the XOR of the mask bits that tables of `size` = 2^m entries take:
/// ⌈log2 m⌉ for a public table's indicators, m for a private table's butterfly.
pub fn tree_table_levels(size: usize, private: bool) -> usize {
    let bits = size.max(1).trailing_zeros() as usize;
    match (private, bits) {
        (true, _) => bits,
        (false, 0 | 1) => 0,
        (false, _) => tree_depth(bits),
    }
}

/// Whether tables of `size` entries (private or not) among `parties` parties fit the noise
/// budget on this path (the XOR sum, or the product tree beyond it).
pub fn tree_tables_fit(parties: usize, size: usize, private: bool) -> bool {
    let extra = tree_table_levels(size, private);
    (parties > 1 && sum_fits(parties, extra)) || tree_fits(parties, extra)
}

impl ThresholdKeys {
    /// Masked tables (the functionality of seed Figures 4 and 7) of `size` entries for
    /// k ≤ N tables (`entries` checked by the caller) through the indicators of the mask
    /// (see the module docs). Every party calls it at once; the caller checks
    /// [`tree_tables_fit`].
    pub(crate) fn masked_tables_by_tree<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        tables: Tables<'_>,
        rng: &mut R,
    ) -> Result<MaskedTables, MixedError> {
        let (entries, private) = match tables {
            Tables::Public { entries } => (entries, false),
            Tables::Private { entry_shares } => (entry_shares, true),
        };
        let size = entries.len();
        let k = entries.first().map_or(0, |e| e.len());
        let m = size.trailing_zeros();
        let extra = tree_table_levels(size, private);
        let mask: Vec<u8> = (0..k).map(|_| rng.random_range(0..size) as u8).collect();
        let rlk = self.prepare_products(mesh, rng)?;

        let mut signs = Vec::with_capacity(m as usize);
        for b in 0..m {
            let bits: Vec<u8> = mask.iter().map(|&r| (r >> b) & 1).collect();
            signs.push(self.xor_signs_leaving(mesh, &bits, extra, rng)?);
        }
        let encrypted = if private {
            mesh.set_phase("tree tables: the entries' collective encryption");
            let mut sums = Vec::with_capacity(size);
            for e in entries {
                sums.push(self.collective_encryption_at_root(mesh, e, rng)?);
            }
            Some(sums)
        } else {
            None
        };

        mesh.set_phase("tree tables: indicators");
        let roots: Option<Vec<Ciphertext>> = match signs.into_iter().collect::<Option<Vec<_>>>() {
            Some(signs) if mesh.me() == 0 => Some(match encrypted {
                None => self.indicators(rlk, &signs)?,
                Some(cts) => {
                    let cts: Vec<Ciphertext> =
                        cts.into_iter().collect::<Option<_>>().ok_or_else(root_lost)?;
                    butterfly(rlk, cts, &signs)?
                }
            }),
            None if mesh.me() != 0 => None,
            _ => return Err(root_lost()),
        };

        let mut shares = Vec::with_capacity(size);
        for v in 0..size {
            let held = roots.as_ref().map(|r| r[v].clone());
            let mut y = self.switched_shares_from_root(mesh, held, rng)?;
            y.truncate(k);
            shares.push(y);
        }
        let scale = inverse_power_of_two(m);
        let out: Vec<Vec<u64>> = if private {
            shares
                .iter()
                .map(|y| y.iter().map(|&x| mul_mod(x, scale)).collect())
                .collect()
        } else {
            (0..size)
                .map(|v| {
                    (0..k)
                        .map(|j| {
                            let sum = (0..size).fold(0u64, |acc, w| {
                                (acc + mul_mod(entries[w ^ v][j], shares[w][j])) % P
                            });
                            mul_mod(sum, scale)
                        })
                        .collect()
                })
                .collect()
        };
        Ok(MaskedTables::from_parts(mask, out))
    }

    /// Party 0 gets `Some` encryption of Σ_i `shares`_i (slot-wise mod p, at most N values
    /// each < p), the others `None`: Mouchet et al.'s collective encryption with a fresh
    /// common random polynomial, its sum along the chain (one polynomial out and in).
    fn collective_encryption_at_root<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        shares: &[u64],
        rng: &mut R,
    ) -> Result<Option<Ciphertext>, MixedError> {
        let par = self.parameters().clone();
        let a = self.next_crp()?;
        let mut h = scaled_plaintext(&par, &zero_secret_key(&par)?, shares, rng)?;
        let mut sa = (*self.secret_poly()?).clone();
        sa *= &a;
        h -= &sa;
        match self.sum_polys_to(mesh, 0, h, "table entry share")? {
            Some(total) => Ok(Some(Ciphertext::new(vec![total, a], &par)?)),
            None => Ok(None),
        }
    }

    /// I_w = Π_b (1 + (−1)^{w_b}·z_b) = 2^m·[r = w] for w < 2^m from `signs` = E(z_b),
    /// b < m: the products along a balanced tree over the bits (⌈log2 m⌉ levels).
    fn indicators(
        &self,
        rlk: &RelinearizationKey,
        signs: &[Ciphertext],
    ) -> Result<Vec<Ciphertext>, MixedError> {
        let par = self.parameters();
        let ones = vec![1u64; par.degree()];
        if let [z] = signs {
            return Ok(vec![add_plain(par, z, &ones)?, add_plain(par, &-z, &ones)?]);
        }
        if signs.is_empty() {
            return Err(MixedError::Usage("internal: indicators of no mask bits".into()));
        }
        let mid = signs.len().div_ceil(2);
        let low = self.indicators(rlk, &signs[..mid])?;
        let high = self.indicators(rlk, &signs[mid..])?;
        let mut out = Vec::with_capacity(low.len() * high.len());
        for h in &high {
            for l in &low {
                out.push(relinearized_product(rlk, l, h)?);
            }
        }
        Ok(out)
    }
}

/// a·b relinearized (party 0's own products: no one sees them before the flooded E2A).
fn relinearized_product(
    rlk: &RelinearizationKey,
    a: &Ciphertext,
    b: &Ciphertext,
) -> Result<Ciphertext, MixedError> {
    let mut c = a * b;
    rlk.relinearizes(&mut c)?;
    Ok(c)
}

/// E(2^m·X[v ⊕ r]) for every v from `entries` = E(X[u]) and `signs` = E((−1)^{r_b}),
/// b < m: stage b maps (x, y) = (X[u], X[u ⊕ 2^b]), u_b = 0, to
/// (x + y − z_b·(y − x), x + y + z_b·(y − x)), one product a pair (see the module docs).
fn butterfly(
    rlk: &RelinearizationKey,
    mut entries: Vec<Ciphertext>,
    signs: &[Ciphertext],
) -> Result<Vec<Ciphertext>, MixedError> {
    for (b, z) in signs.iter().enumerate() {
        let step = 1usize << b;
        for u in (0..entries.len()).filter(|u| u & step == 0) {
            let (x, y) = (&entries[u], &entries[u | step]);
            let sum = x + y;
            let twisted = relinearized_product(rlk, z, &(y - x))?;
            entries[u] = &sum - &twisted;
            entries[u | step] = &sum + &twisted;
        }
    }
    Ok(entries)
}

/// An internal invariant broke: party 0 lacks what the XOR sums gave it.
fn root_lost() -> MixedError {
    MixedError::Usage("internal: party 0 should hold the encrypted mask signs and entries".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_fit() {
        assert_eq!(tree_table_levels(2, false), 0);
        assert_eq!(tree_table_levels(2, true), 1);
        assert_eq!(tree_table_levels(4, false), 1);
        assert_eq!(tree_table_levels(8, false), 2);
        assert_eq!(tree_table_levels(8, true), 3);
        assert_eq!(tree_table_levels(16, true), 4);
        // The XOR sum where it fits, the product tree (no scalar level) beyond: private
        // pairs up to n = 32, public 16-entry tables up to 16, private 8-entry tables up
        // to 8 and 16-entry ones up to 4.
        assert!(tree_tables_fit(32, 2, true) && !tree_tables_fit(33, 2, true));
        assert!(tree_tables_fit(16, 16, false) && !tree_tables_fit(17, 16, false));
        assert!(tree_tables_fit(8, 8, true) && !tree_tables_fit(9, 8, true));
        assert!(tree_tables_fit(4, 16, true) && !tree_tables_fit(5, 16, true));
        assert!(tree_tables_fit(1, 16, true));
        assert_eq!(mul_mod(inverse_power_of_two(4), 16), 1);
    }
}
