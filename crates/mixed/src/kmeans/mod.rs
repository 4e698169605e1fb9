//! Kmeans (seed Table 6): one iteration of k-means, the assignment of every point to its
//! nearest centroid and the centroid update. Inputs as in Biomatch (`mixgc_program::mixed::biomatch`): party 0
//! holds the k current centroids, the points are split round-robin over parties 1..n−1
//! (point j at party 1 + j mod (n − 1)); party 0 learns the new centroids and the cluster
//! sizes. A centroid whose cluster is empty stays where it was.
//!
//! The seed gives only operation counts for its Kmeans (Table 6: 1,568,660 AND, 8800 MULT,
//! 118 B2A, 116 A2B, compiled by Silph), not the sizes; this module takes the sizes as a
//! [`KmeansSize`] ([`KmeansSize::DEFAULT`]: 256 points of 2 values, 4 clusters) and
//! [`KmeansSize::cost`] counts its operations in the seed's columns.
//!
//! Forms (seed §3), with explicit conversions:
//!
//! 1. E: party 0 encrypts the centroids, repeated once per point (slot (j·k + c)·d + e
//!    holds centroid c's value e), and the chain passes the ciphertext to every party. The
//!    holder of point x_j adds Enc(c)·(−2x_j) + x_j² in its slots (plaintext products) and a
//!    fresh Enc(0); the chain sums the parties' ciphertexts.
//! 2. E → A (E2A, Figure 15); every party sums the d slots of each (point, centroid) and
//!    party 0 adds Σ_e c_e²: the A form of the squared distances.
//! 3. A → B (A2B, Figure 10); per point, the one-hot position of the nearest centroid by a
//!    tournament of comparisons on XOR shares (ties to the lower centroid).
//! 4. B → A (B2A, Figure 9) of the one-hot bits; their sums over the points are the A form
//!    of the cluster sizes.
//! 5. A → E (A2E): the one-hot bits, repeated d times, encrypted under the collective key;
//!    the holder of x_j multiplies its slots by x_j (plaintext products) and adds a fresh
//!    Enc(0); chain sum, E2A, and sums over the points: the A form of each cluster's sum.
//! 6. A → B (A2B) of the sums and sizes; restoring division on XOR shares gives the means,
//!    and a size of zero selects party 0's old centroid.
//! 7. The new centroids and the sizes are XORed along the chain into party 0 only.

mod boolean;

use fhe_rand::{CryptoRng, RngCore};
use mixgc_nparty::Mesh;

use crate::a2b::{a2b, public_bits, BooleanEngine, ANDS_PER_A2B, WIDTH_BITS};
use crate::b2a::{b2a_bits, b2a_preprocess};
use crate::conversions::sum_ciphertexts;
use crate::lut::open_bits_to;
use crate::ops::{add, add_plain, mul_plain};
use crate::{Ciphertext, MixedError, ThresholdKeys, DEGREE, PLAINTEXT_MODULUS as P};
use boolean::{Gates, Lanes};

/// Every centroid and point value is below this (2^14), as in Biomatch.
pub const VALUE_LIMIT: u64 = 1 << 14;
/// Bits of a value.
pub const VALUE_BITS: usize = 14;
/// The most values per point (a squared distance stays below 8·2^28 < p).
pub const MAX_DIMENSION: usize = 8;
/// The most centroids.
pub const MAX_CLUSTERS: usize = 16;
/// The most points (a cluster's sum stays below 2^12·2^14 = 2^26).
pub const MAX_POINTS: usize = 4096;

/// The shape of a Kmeans instance: every party runs with the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KmeansSize {
    /// Points in the data set.
    pub points: usize,
    /// Centroids (k).
    pub clusters: usize,
    /// Values per point and centroid (d).
    pub dimension: usize,
}

/// Operations of one run, in the columns of the seed's Table 6.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KmeansCost {
    /// Plaintext–ciphertext slot products (steps 1 and 5): 2·points·k·d.
    pub mult: usize,
    /// B2A conversions of bits (step 4): points·k.
    pub b2a: usize,
    /// A2B conversions of 32-bit values (steps 3 and 6): points·k + k·d + k.
    pub a2b: usize,
    /// ANDs of the argmin and the division (steps 3 and 6), not counting A2B's own.
    pub and: usize,
    /// ANDs inside the A2B adders: [`ANDS_PER_A2B`] per A2B.
    pub a2b_and: usize,
}

impl KmeansSize {
    /// The size `mixgc mixed --example kmeans` runs: 256 points of 2 values, 4 clusters.
    pub const DEFAULT: KmeansSize = KmeansSize {
        points: 256,
        clusters: 4,
        dimension: 2,
    };

    /// Checks every bound: 1 to [`MAX_POINTS`] points, [`MAX_CLUSTERS`] clusters and
    /// [`MAX_DIMENSION`] values, and points·k·d within one ciphertext's N slots.
    pub fn check(&self) -> Result<(), MixedError> {
        let bounds = [
            ("points", self.points, MAX_POINTS),
            ("clusters", self.clusters, MAX_CLUSTERS),
            ("dimension", self.dimension, MAX_DIMENSION),
        ];
        for (what, value, max) in bounds {
            if !(1..=max).contains(&value) {
                return Err(MixedError::Usage(format!(
                    "Kmeans {what} is {value}: it must be 1 to {max}"
                )));
            }
        }
        if self.slots() > DEGREE {
            return Err(MixedError::Usage(format!(
                "Kmeans of {} points, {} clusters, {} values needs {} slots, more than the {DEGREE} of a ciphertext",
                self.points,
                self.clusters,
                self.dimension,
                self.slots()
            )));
        }
        Ok(())
    }

    /// Slots of the distance and update ciphertexts: points·k·d.
    fn slots(&self) -> usize {
        self.points * self.clusters * self.dimension
    }

    /// Bits of a cluster size (up to `points`).
    pub fn size_bits(&self) -> usize {
        bits_of(self.points as u64)
    }

    /// Bits of a cluster's sum (up to points·(2^14 − 1)).
    pub fn sum_bits(&self) -> usize {
        bits_of(self.points as u64 * (VALUE_LIMIT - 1))
    }

    /// What one run costs, in the seed's Table 6 columns.
    pub fn cost(&self) -> KmeansCost {
        let (n, k, d) = (self.points, self.clusters, self.dimension);
        let w = WIDTH_BITS as usize;
        let a2b = n * k + k * d + k;
        // Argmin: k − 1 comparisons per point, each w ANDs and a selection of w + k rows.
        let argmin = n * (k - 1) * (2 * w + k);
        // Per (cluster, value) lane: the division, the zero test of the size, the selection.
        let division = self.sum_bits() * 2 * (self.size_bits() + 1);
        let lane = division + self.size_bits() - 1 + VALUE_BITS;
        KmeansCost {
            mult: 2 * n * k * d,
            b2a: n * k,
            a2b,
            and: argmin + k * d * lane,
            a2b_and: ANDS_PER_A2B * a2b,
        }
    }

    /// The points party `party` (≥ 1) of `parties` holds: j with j mod (n − 1) = party − 1,
    /// ascending.
    pub fn points_of(&self, party: usize, parties: usize) -> Vec<usize> {
        if party == 0 || parties < 2 {
            return Vec::new();
        }
        (party - 1..self.points).step_by(parties - 1).collect()
    }
}

/// Bits to write `v`: at least 1.
fn bits_of(v: u64) -> usize {
    (u64::BITS - v.leading_zeros()).max(1) as usize
}

/// What one party brings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KmeansInput {
    /// Party 0's k centroids, each of d values.
    Centroids(Vec<Vec<u64>>),
    /// Party i ≥ 1's points, in the order of [`KmeansSize::points_of`].
    Points(Vec<Vec<u64>>),
}

/// What party 0 learns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KmeansOutput {
    /// Per cluster, ⌊(sum of its points) / size⌋ per value, or the old centroid if empty.
    pub centroids: Vec<Vec<u64>>,
    /// Per cluster, how many points are nearest to its centroid.
    pub sizes: Vec<u64>,
}

/// Σ_e (a_e − b_e)².
pub fn squared_distance(a: &[u64], b: &[u64]) -> u64 {
    a.iter().zip(b).map(|(&x, &y)| x.abs_diff(y).pow(2)).sum()
}

/// The position of the centroid nearest to `x` (the lowest among equals).
pub fn nearest(centroids: &[Vec<u64>], x: &[u64]) -> usize {
    (0..centroids.len())
        .min_by_key(|&c| (squared_distance(&centroids[c], x), c))
        .unwrap_or(0)
}

/// The plaintext model: one assignment and update step over all points.
pub fn plaintext(centroids: &[Vec<u64>], points: &[Vec<u64>]) -> KmeansOutput {
    let mut sizes = vec![0u64; centroids.len()];
    let mut sums: Vec<Vec<u64>> = centroids.iter().map(|c| vec![0; c.len()]).collect();
    for x in points {
        let c = nearest(centroids, x);
        sizes[c] += 1;
        sums[c].iter_mut().zip(x).for_each(|(s, v)| *s += v);
    }
    let centroids = centroids
        .iter()
        .zip(&sums)
        .zip(&sizes)
        .map(|((old, sum), &size)| match size {
            0 => old.clone(),
            _ => sum.iter().map(|s| s / size).collect(),
        })
        .collect();
    KmeansOutput { centroids, sizes }
}

/// Checks a party's input against its role and `size`: k centroids at party 0, exactly its
/// points elsewhere, every vector of d values below [`VALUE_LIMIT`].
pub fn check_input(
    input: &KmeansInput,
    party: usize,
    parties: usize,
    size: &KmeansSize,
) -> Result<(), MixedError> {
    size.check()?;
    let usage = |s: String| Err(MixedError::Usage(s));
    let (what, vectors, want) = match (input, party) {
        (KmeansInput::Centroids(c), 0) => ("centroid", c, size.clusters),
        (KmeansInput::Points(_), 0) => return usage("party 0 holds the centroids, not points".into()),
        (KmeansInput::Centroids(_), _) => {
            return usage(format!("party {party} holds points, not the centroids"))
        }
        (KmeansInput::Points(p), _) => ("point", p, size.points_of(party, parties).len()),
    };
    if vectors.len() != want {
        return usage(format!(
            "party {party} of {parties} holds {want} {what}s, not {}",
            vectors.len()
        ));
    }
    for (i, v) in vectors.iter().enumerate() {
        if v.len() != size.dimension {
            return usage(format!(
                "{what} {i} has {} values, not {}",
                v.len(),
                size.dimension
            ));
        }
        if let Some(&bad) = v.iter().find(|&&x| x >= VALUE_LIMIT) {
            return usage(format!(
                "{what} {i} holds {bad}: every value must be below {VALUE_LIMIT}"
            ));
        }
    }
    Ok(())
}

/// Runs one Kmeans iteration among the mesh's parties (module docs): party 0 returns
/// `Some(output)`, every other party `None`. Every party calls it at once with its own
/// input and the same `size`.
pub fn kmeans<R: RngCore + CryptoRng>(
    keys: &ThresholdKeys,
    engine: &mut BooleanEngine,
    mesh: &mut Mesh,
    size: &KmeansSize,
    input: &KmeansInput,
    rng: &mut R,
) -> Result<Option<KmeansOutput>, MixedError> {
    kmeans_counted(keys, engine, mesh, size, input, rng).map(|(output, _)| output)
}

/// [`kmeans`], also returning the operations this party ran: `b2a`, `a2b`, `and` and
/// `a2b_and` as every party runs them, `mult` the slot products of its own points (their
/// sum over the parties is [`KmeansSize::cost`]'s).
pub fn kmeans_counted<R: RngCore + CryptoRng>(
    keys: &ThresholdKeys,
    engine: &mut BooleanEngine,
    mesh: &mut Mesh,
    size: &KmeansSize,
    input: &KmeansInput,
    rng: &mut R,
) -> Result<(Option<KmeansOutput>, KmeansCost), MixedError> {
    let (me, n) = (mesh.me(), mesh.parties());
    if n < 2 {
        return Err(MixedError::Usage("Kmeans needs at least 2 parties".into()));
    }
    check_input(input, me, n, size)?;
    let (k, d) = (size.clusters, size.dimension);
    let mut cost = KmeansCost::default();

    let distances = distance_shares(keys, mesh, size, input, &mut cost, rng)?;
    mesh.set_phase("Kmeans: A2B of the distances");
    cost.a2b += distances.len();
    let distance_bits = a2b(keys, engine, mesh, &distances, rng)?;

    mesh.set_phase("Kmeans: the nearest centroids");
    let candidates: Vec<Lanes> = (0..k)
        .map(|c| {
            let column: Vec<u64> = (0..size.points).map(|j| distance_bits[j * k + c]).collect();
            to_lanes(&column, WIDTH_BITS as usize)
        })
        .collect();
    let mut gates = Gates {
        engine,
        mesh,
        ands: 0,
    };
    gates.engine.stock(gates.mesh, size.cost().and)?;
    let one_hot = gates.argmin_one_hot(candidates)?;
    // Bit (j, c) at j·k + c.
    let one_hot: Vec<u8> = (0..size.points)
        .flat_map(|j| one_hot.iter().map(move |row| row[j]))
        .collect();
    let Gates { engine, mesh, ands } = gates;
    let mut ands_so_far = ands;

    mesh.set_phase("Kmeans: B2A of the assignment");
    cost.b2a += one_hot.len();
    let tables = b2a_preprocess(keys, mesh, one_hot.len(), rng)?;
    let assignment = b2a_bits(mesh, tables, &one_hot)?;
    let sizes: Vec<u64> = (0..k)
        .map(|c| (0..size.points).fold(0, |acc, j| (acc + assignment[j * k + c]) % P))
        .collect();
    let sums = cluster_sums(keys, mesh, size, input, &assignment, &mut cost, rng)?;

    mesh.set_phase("Kmeans: A2B of the sums and sizes");
    let values: Vec<u64> = sums.iter().chain(&sizes).copied().collect();
    cost.a2b += values.len();
    let bits = a2b(keys, engine, mesh, &values, rng)?;
    let (sum_bits, size_bits) = bits.split_at(k * d);

    mesh.set_phase("Kmeans: the means");
    let lane_size: Vec<u64> = (0..k * d).map(|l| size_bits[l / d]).collect();
    let old: Vec<u64> = match input {
        KmeansInput::Centroids(c) => c.iter().flatten().copied().collect(),
        KmeansInput::Points(_) => vec![0; k * d],
    };
    let mut gates = Gates {
        engine,
        mesh,
        ands: 0,
    };
    let sizes_lanes = to_lanes(&lane_size, size.size_bits());
    let means = gates.divide(&to_lanes(sum_bits, size.sum_bits()), &sizes_lanes)?;
    let empty = gates.is_zero(&sizes_lanes)?;
    let old_lanes: Lanes = (0..VALUE_BITS)
        .map(|b| public_bits(me, |l| ((old[l] >> b) & 1) as u8, k * d))
        .collect();
    let centroids = gates.select(&empty, &means[..VALUE_BITS], &old_lanes)?;
    let Gates { mesh, ands, .. } = gates;
    ands_so_far += ands;
    cost.and = ands_so_far;
    cost.a2b_and = ANDS_PER_A2B * cost.a2b;

    let size_lanes = to_lanes(size_bits, size.size_bits());
    let mine: Vec<u8> = centroids.into_iter().chain(size_lanes).flatten().collect();
    let opened = open_bits_to(mesh, 0, mine)?;
    let output = opened.map(|bits| {
        // Row b of `lanes` lanes starting at bit `offset`: lane `lane`'s value.
        let number = |offset: usize, rows: usize, lanes: usize, lane: usize| {
            (0..rows).fold(0u64, |acc, b| {
                acc | u64::from(bits[offset + b * lanes + lane]) << b
            })
        };
        let sizes_at = VALUE_BITS * k * d;
        KmeansOutput {
            centroids: (0..k)
                .map(|c| (0..d).map(|e| number(0, VALUE_BITS, k * d, c * d + e)).collect())
                .collect(),
            sizes: (0..k).map(|c| number(sizes_at, size.size_bits(), k, c)).collect(),
        }
    });
    Ok((output, cost))
}

/// XOR-shared values as bit-position lanes of `width` bits (the values' higher bits, zero
/// in the sum of the shares, dropped).
fn to_lanes(values: &[u64], width: usize) -> Lanes {
    (0..width)
        .map(|b| values.iter().map(|v| ((v >> b) & 1) as u8).collect())
        .collect()
}

/// The chain step of 1 and 5, then E2A: the point holders contribute `base`·factor + offset
/// (`factor`, zero outside their points' slots), every party a fresh Enc(0) (which keeps
/// the next party on the chain from dividing out a factor, as in [`crate::triples`]); this
/// party's additive shares of the sum's slots.
fn products_to_shares<R: RngCore + CryptoRng>(
    keys: &ThresholdKeys,
    mesh: &mut Mesh,
    base: &Ciphertext,
    factor: Option<(Vec<u64>, Vec<u64>)>,
    rng: &mut R,
) -> Result<Vec<u64>, MixedError> {
    let par = keys.parameters().clone();
    let zero = keys.encrypt(&[], rng)?;
    let mine = match factor {
        Some((factor, offset)) => add(
            &add_plain(&par, &mul_plain(&par, base, &factor)?, &offset)?,
            &zero,
        ),
        None => zero,
    };
    let sum = sum_ciphertexts(mesh, &par, mine)?;
    keys.to_shares(mesh, &sum, rng)
}

/// Steps 1–2: this party's additive shares mod p of the squared distance of point j to
/// centroid c, at j·k + c.
fn distance_shares<R: RngCore + CryptoRng>(
    keys: &ThresholdKeys,
    mesh: &mut Mesh,
    size: &KmeansSize,
    input: &KmeansInput,
    cost: &mut KmeansCost,
    rng: &mut R,
) -> Result<Vec<u64>, MixedError> {
    let par = keys.parameters().clone();
    let (k, d) = (size.clusters, size.dimension);
    mesh.set_phase("Kmeans: the encrypted centroids");
    let mine = match input {
        KmeansInput::Centroids(c) => {
            let flat: Vec<u64> = c.iter().flatten().copied().collect();
            keys.encrypt(&flat.repeat(size.points), rng)?
        }
        KmeansInput::Points(_) => keys.encrypt(&[], rng)?,
    };
    // Only party 0 contributes centroids; the chain sum passes them to every party.
    let centroids = sum_ciphertexts(mesh, &par, mine)?;
    mesh.set_phase("Kmeans: the encrypted distances");
    let factor = match input {
        KmeansInput::Centroids(_) => None,
        KmeansInput::Points(points) => {
            let (mut factor, mut square) = (vec![0u64; size.slots()], vec![0u64; size.slots()]);
            for (&j, x) in size.points_of(mesh.me(), mesh.parties()).iter().zip(points) {
                for (c, e) in (0..k).flat_map(|c| (0..d).map(move |e| (c, e))) {
                    let slot = (j * k + c) * d + e;
                    factor[slot] = (P - 2 * x[e] % P) % P;
                    square[slot] = x[e] * x[e] % P;
                    cost.mult += 1;
                }
            }
            Some((factor, square))
        }
    };
    let shares = products_to_shares(keys, mesh, &centroids, factor, rng)?;
    let offsets: Vec<u64> = match input {
        KmeansInput::Centroids(c) => c
            .iter()
            .map(|v| v.iter().map(|x| x * x).sum::<u64>() % P)
            .collect(),
        KmeansInput::Points(_) => vec![0; k],
    };
    Ok((0..size.points * k)
        .map(|jc| {
            let slots = &shares[jc * d..(jc + 1) * d];
            (slots.iter().sum::<u64>() + offsets[jc % k]) % P
        })
        .collect())
}

/// Step 5: this party's additive shares mod p of Σ_j [j in cluster c]·x_je, at c·d + e,
/// from its shares of the one-hot assignment (at j·k + c).
fn cluster_sums<R: RngCore + CryptoRng>(
    keys: &ThresholdKeys,
    mesh: &mut Mesh,
    size: &KmeansSize,
    input: &KmeansInput,
    assignment: &[u64],
    cost: &mut KmeansCost,
    rng: &mut R,
) -> Result<Vec<u64>, MixedError> {
    let (k, d) = (size.clusters, size.dimension);
    mesh.set_phase("Kmeans: A2E of the assignment");
    let repeated: Vec<u64> = assignment
        .iter()
        .flat_map(|&a| std::iter::repeat_n(a, d))
        .collect();
    let encrypted = keys.from_shares(mesh, &repeated, rng)?;
    mesh.set_phase("Kmeans: the encrypted sums");
    let factor = match input {
        KmeansInput::Centroids(_) => None,
        KmeansInput::Points(points) => {
            let mut factor = vec![0u64; size.slots()];
            for (&j, x) in size.points_of(mesh.me(), mesh.parties()).iter().zip(points) {
                for (c, e) in (0..k).flat_map(|c| (0..d).map(move |e| (c, e))) {
                    factor[(j * k + c) * d + e] = x[e];
                    cost.mult += 1;
                }
            }
            Some((factor, Vec::new()))
        }
    };
    let shares = products_to_shares(keys, mesh, &encrypted, factor, rng)?;
    Ok((0..k * d)
        .map(|ce| {
            let (c, e) = (ce / d, ce % d);
            (0..size.points).fold(0, |acc, j| (acc + shares[(j * k + c) * d + e]) % P)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_points_are_split_round_robin_over_parties_1_to_n_minus_1() {
        let size = KmeansSize::DEFAULT;
        for n in [2, 3, 5, 16] {
            let mut all: Vec<usize> = (1..n).flat_map(|i| size.points_of(i, n)).collect();
            all.sort_unstable();
            assert_eq!(all, (0..size.points).collect::<Vec<_>>());
            assert!(size.points_of(0, n).is_empty());
        }
        assert_eq!(size.points_of(2, 4)[..3], [1, 4, 7]);
    }

    #[test]
    fn the_plaintext_model_assigns_ties_low_and_keeps_empty_centroids() {
        let centroids = vec![vec![0, 0], vec![10, 0], vec![0, 10], vec![500, 500]];
        // (5, 0) is as near to 0 as to 1: it goes to 0.
        let points = vec![vec![5, 0], vec![1, 1], vec![9, 0], vec![12, 1], vec![0, 9]];
        let out = plaintext(&centroids, &points);
        assert_eq!(out.sizes, [2, 2, 1, 0]);
        assert_eq!(
            out.centroids,
            [vec![3, 0], vec![10, 0], vec![0, 9], vec![500, 500]]
        );
    }

    #[test]
    fn sizes_and_inputs_are_checked() {
        let size = KmeansSize::DEFAULT;
        assert!(size.check().is_ok());
        assert_eq!((size.size_bits(), size.sum_bits()), (9, 22));
        let big = KmeansSize {
            points: 4096,
            clusters: 4,
            dimension: 2,
        };
        let e = big.check().unwrap_err().to_string();
        assert!(e.contains("32768 slots"), "{e}");
        let none = KmeansSize { clusters: 0, ..size };
        assert!(none.check().unwrap_err().to_string().contains("clusters is 0"));
        let c = KmeansInput::Centroids(vec![vec![1, 2]; 4]);
        assert!(check_input(&c, 0, 3, &size).is_ok());
        let e = check_input(&c, 1, 3, &size).unwrap_err().to_string();
        assert!(e.contains("party 1 holds points"), "{e}");
        let e = check_input(&KmeansInput::Centroids(vec![vec![1, 2]; 3]), 0, 3, &size)
            .unwrap_err()
            .to_string();
        assert!(e.contains("holds 4 centroids, not 3"), "{e}");
        let e = check_input(&KmeansInput::Points(vec![vec![1, 2]; 128]), 2, 3, &size);
        assert!(e.is_ok());
        let mut pts = vec![vec![1, 2]; 128];
        pts[5] = vec![1, VALUE_LIMIT];
        let e = check_input(&KmeansInput::Points(pts), 2, 3, &size)
            .unwrap_err()
            .to_string();
        assert!(e.contains("point 5 holds 16384"), "{e}");
        let e = check_input(&KmeansInput::Points(vec![vec![1]; 128]), 2, 3, &size)
            .unwrap_err()
            .to_string();
        assert!(e.contains("point 0 has 1 values, not 2"), "{e}");
    }

    #[test]
    fn the_default_costs_in_the_seed_s_columns() {
        let cost = KmeansSize::DEFAULT.cost();
        assert_eq!(cost.mult, 2 * 256 * 4 * 2);
        assert_eq!((cost.b2a, cost.a2b), (1024, 1024 + 8 + 4));
        // Argmin 256·3·68; per lane 22·2·10 + 8 + 14, eight lanes.
        assert_eq!(cost.and, 256 * 3 * 68 + 8 * (440 + 22));
    }
}
