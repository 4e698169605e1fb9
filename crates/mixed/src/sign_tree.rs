//! XOR of the parties' bits under encryption by a binary tree of ciphertext products, so
//! that each party's traffic stays constant in n (issue #18, "linear scaling").
//!
//! For XOR-shared bits r = ⊕_i r_i (one per slot), (−1)^r = Π_i (1 − 2r_i). Every party
//! encrypts z_i = 1 − 2r_i slot-wise under the collective key, and the parties multiply
//! these along a balanced binary tree of fan-in 2 with the collective relinearization key
//! ([`crate::relin`]): depth ⌈log2 n⌉ instead of the n − 1 sequential plaintext-mask swaps
//! of the table chain ([`crate::lut`]), whose masks have uniform coefficients and cost
//! ≈ 42 bits of noise each. A relinearized product costs ≈ 48 bits (measured with
//! `SecretKey::measure_noise` for a key summed from 16 shares, N = 16384: fresh 2^15, then
//! 2^63, 2^112, 2^161, 2^210), so [`MAX_PRODUCT_DEPTH`] levels stay below
//! [`MAX_TREE_NOISE_BITS`], which E2A's flooding hides for every n ≤ 2^20.
//!
//! **Shape.** Leaves are tree positions 0..n; the internal node that splits the positions
//! [lo, hi) at mid = lo + ⌈(hi − lo)/2⌉ is computed by position mid − 1, so each position
//! computes at most one node: it sends at most two ciphertexts (its leaf, its node's
//! product) and receives at most two, whatever n (a fan-in-2 tree, not a star). Positions
//! are rotated so that the root's is party 0, E2A's root.
//!
//! **Privacy.** Every node adds a fresh public-key encryption of zero to its product (as
//! Figure 6 step 3(d) does after a swap): under RLWE the result is indistinguishable from a
//! fresh encryption for any coalition without the full key, so the parent learns nothing of
//! its children's bits. The noise, which depends on the bits, is only exposed by the final
//! E2A, whose flooding hides it (see [`crate::conversions`]).

use fhe::bfv::{Ciphertext, RelinearizationKey};
use fhe_rand::{CryptoRng, RngCore};
use mixgc_nparty::Mesh;

use crate::conversions::{flooding_bound, flooding_hides};
use crate::ops::{recv_ciphertext, send_ciphertext};
use crate::{MixedError, ThresholdKeys, PLAINTEXT_MODULUS as P};

/// The most ciphertext-product levels a value may take before its E2A: 6 levels from fresh
/// noise ≈ 2^15 reach ≈ 2^310 (48–50 bits a level, measured), below [`MAX_TREE_NOISE_BITS`].
pub const MAX_PRODUCT_DEPTH: usize = 6;

/// The noise bound (bits per coefficient) the tree's ciphertexts are held to before E2A.
pub const MAX_TREE_NOISE_BITS: u64 = 320;

/// Levels of the XOR tree for `n` parties: ⌈log2 n⌉.
pub fn tree_depth(parties: usize) -> usize {
    parties.max(1).next_power_of_two().trailing_zeros() as usize
}

/// Whether `extra` more product levels after the XOR tree of `parties` fit the noise
/// budget: the tree-based protocols use the chain of [`crate::lut`] (or OT triples) beyond.
pub fn tree_fits(parties: usize, extra: usize) -> bool {
    tree_depth(parties) + extra <= MAX_PRODUCT_DEPTH
}

/// Where a child of a node comes from: the leaf or the node computed at a tree position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    Leaf(usize),
    Node(usize),
}

/// A node: the position computing it and its two children.
#[derive(Clone, Copy, Debug)]
struct Node {
    at: usize,
    left: Source,
    right: Source,
}

/// The nodes of the balanced tree over positions [lo, hi), children before parents; the
/// subtree's output is returned.
fn build(lo: usize, hi: usize, nodes: &mut Vec<Node>) -> Source {
    if hi - lo == 1 {
        return Source::Leaf(lo);
    }
    let mid = lo + (hi - lo).div_ceil(2);
    let left = build(lo, mid, nodes);
    let right = build(mid, hi, nodes);
    nodes.push(Node {
        at: mid - 1,
        left,
        right,
    });
    Source::Node(mid - 1)
}

/// One party's part of the tree: where its leaf goes (`None`: its own node takes it), the
/// node it computes (children as parties, `None` for its own leaf) and where that goes
/// (`None`: it is the root).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Role {
    leaf_to: Option<usize>,
    node: Option<([Option<usize>; 2], Option<usize>)>,
}

/// Party `me`'s role in the tree of `n` parties (root at party 0).
fn role(n: usize, me: usize) -> Role {
    let mut nodes = Vec::with_capacity(n);
    let root = build(0, n, &mut nodes);
    let root_pos = match root {
        Source::Node(at) | Source::Leaf(at) => at,
    };
    let party = |pos: usize| (pos + n - root_pos) % n;
    let my_pos = (me + root_pos) % n;
    let parent_of = |s: Source| {
        nodes
            .iter()
            .find(|node| node.left == s || node.right == s)
            .map(|node| party(node.at))
    };
    let leaf_to = parent_of(Source::Leaf(my_pos)).filter(|&p| p != me);
    let node = nodes.iter().find(|node| node.at == my_pos).map(|node| {
        let child = |s: Source| match s {
            Source::Leaf(pos) if pos == my_pos => None,
            Source::Leaf(pos) | Source::Node(pos) => Some(party(pos)),
        };
        (
            [child(node.left), child(node.right)],
            parent_of(Source::Node(my_pos)),
        )
    });
    Role { leaf_to, node }
}

impl ThresholdKeys {
    /// The session's relinearization key, made now ([`ThresholdKeys::relinearization_key`],
    /// every party at once) if this is the first need. Call it in a session's setup to keep
    /// its cost out of the first conversion.
    pub fn prepare_products<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        rng: &mut R,
    ) -> Result<&RelinearizationKey, MixedError> {
        if let Some(rlk) = self.relin_cell().get() {
            return Ok(rlk);
        }
        let rlk = self.relinearization_key(mesh, rng)?;
        Ok(self.relin_cell().get_or_init(|| rlk))
    }

    /// a·b relinearized, plus a fresh encryption of zero.
    pub(crate) fn product<R: RngCore + CryptoRng>(
        &self,
        rlk: &RelinearizationKey,
        a: &Ciphertext,
        b: &Ciphertext,
        rng: &mut R,
    ) -> Result<Ciphertext, MixedError> {
        let mut c = a * b;
        rlk.relinearizes(&mut c)?;
        Ok(&c + &self.encrypt(&[], rng)?)
    }

    /// Party 0 gets `Some` encryption of (−1)^{r_j} in slot j, r_j = ⊕_i `bits`_i[j] (each
    /// bit 0 or 1, at most N per party, the same count everywhere); the others `None`.
    /// Every party calls it at once. See the module docs for the tree.
    ///
    /// Where the sum of the bits and its sign polynomial fit the noise budget with `extra`
    /// more product levels after it ([`crate::sign_sum::sum_fits`]) this takes the sum
    /// ([`crate::sign_sum`]: one polynomial out and in per party), else the product tree.
    pub fn xor_signs_at_root<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        bits: &[u8],
        rng: &mut R,
    ) -> Result<Option<Ciphertext>, MixedError> {
        self.xor_signs_leaving(mesh, bits, 0, rng)
    }

    /// [`ThresholdKeys::xor_signs_at_root`] for a result that takes `extra` more product
    /// levels before its E2A.
    pub(crate) fn xor_signs_leaving<R: RngCore + CryptoRng>(
        &self,
        mesh: &mut Mesh,
        bits: &[u8],
        extra: usize,
        rng: &mut R,
    ) -> Result<Option<Ciphertext>, MixedError> {
        if let Some(j) = bits.iter().position(|&b| b > 1) {
            return Err(MixedError::Usage(format!("bit {j} is {}, not 0 or 1", bits[j])));
        }
        if bits.len() > self.parameters().degree() {
            return Err(MixedError::Usage(format!(
                "{} bits do not fit the {} slots of a ciphertext",
                bits.len(),
                self.parameters().degree()
            )));
        }
        let n = mesh.parties();
        if n > 1 && crate::sign_sum::sum_fits(n, extra) {
            return self.xor_signs_by_sum(mesh, bits, rng);
        }
        if !tree_fits(n, 0) {
            return Err(MixedError::Usage(format!(
                "the XOR tree of {n} parties is {} products deep, more than the {MAX_PRODUCT_DEPTH} the noise budget allows",
                tree_depth(n)
            )));
        }
        let rlk = self.prepare_products(mesh, rng)?;
        let par = self.parameters().clone();
        mesh.set_phase("XOR tree");
        let signs: Vec<u64> = bits.iter().map(|&b| if b == 1 { P - 1 } else { 1 }).collect();
        let leaf = self.encrypt(&signs, rng)?;
        if n == 1 {
            return Ok(Some(leaf));
        }
        let role = role(n, mesh.me());
        let mut leaf = Some(leaf);
        if let Some(to) = role.leaf_to {
            if let Some(c) = leaf.take() {
                send_ciphertext(mesh, to, &c)?;
            }
            mesh.flush()?;
        }
        let Some((children, parent)) = role.node else {
            return Ok(None);
        };
        let mut operands = Vec::with_capacity(2);
        for child in children {
            operands.push(match child {
                Some(from) => recv_ciphertext(mesh, from, &par)?,
                None => leaf
                    .take()
                    .ok_or_else(|| MixedError::Usage("internal: the XOR tree uses a leaf twice".into()))?,
            });
        }
        let product = self.product(rlk, &operands[0], &operands[1], rng)?;
        match parent {
            Some(to) => {
                send_ciphertext(mesh, to, &product)?;
                mesh.flush()?;
                Ok(None)
            }
            None => Ok(Some(product)),
        }
    }
}

/// The check behind [`MAX_TREE_NOISE_BITS`]: E2A's flooding for `parties` hides it.
pub fn flooding_covers_the_tree(parties: usize) -> bool {
    let par = crate::parameters();
    flooding_bound(&par, parties).is_ok_and(|b| flooding_hides(&par, &b, MAX_TREE_NOISE_BITS))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_party_sends_and_receives_at_most_two_and_the_tree_is_balanced() {
        for n in 1..=70 {
            let roles: Vec<Role> = (0..n).map(|me| role(n, me)).collect();
            let mut received = vec![0; n];
            let mut sent = vec![0; n];
            let mut roots = 0;
            for (me, r) in roles.iter().enumerate() {
                if let Some(to) = r.leaf_to {
                    sent[me] += 1;
                    received[to] += 1;
                }
                if let Some((children, parent)) = r.node {
                    match parent {
                        Some(to) => {
                            sent[me] += 1;
                            received[to] += 1;
                        }
                        None => {
                            roots += 1;
                            assert_eq!(me, 0, "n = {n}: the root is party 0");
                        }
                    }
                    let from: Vec<usize> = children.iter().flatten().copied().collect();
                    assert!(from.iter().all(|&c| c != me));
                }
            }
            assert_eq!(roots, usize::from(n > 1), "n = {n}");
            assert_eq!(sent.iter().sum::<usize>(), received.iter().sum::<usize>());
            // n leaves and n − 1 nodes: every output but the root's is used once.
            let uses: usize = roles
                .iter()
                .filter_map(|r| r.node.as_ref())
                .map(|(c, _)| c.len())
                .sum();
            assert_eq!(uses, 2 * (n - 1), "n = {n}");
            assert!(
                sent.iter().all(|&s| s <= 2) && received.iter().all(|&r| r <= 2),
                "n = {n}"
            );
            let mut nodes = Vec::new();
            build(0, n, &mut nodes);
            assert_eq!(nodes.len(), n - 1);
        }
        assert_eq!(
            (tree_depth(2), tree_depth(3), tree_depth(16), tree_depth(17)),
            (1, 2, 4, 5)
        );
        assert!(tree_fits(64, 0) && !tree_fits(65, 0) && tree_fits(16, 2) && !tree_fits(17, 2));
    }

    #[test]
    fn flooding_hides_the_trees_noise() {
        for n in [2, 5, 16, 64, 1 << 20] {
            assert!(flooding_covers_the_tree(n), "n = {n}");
        }
    }
}
