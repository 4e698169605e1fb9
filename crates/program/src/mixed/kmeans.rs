//! Kmeans (seed Table 6), written once on [`MixedBackend`]: one iteration of k-means, the
//! assignment of every point to its nearest centroid and the centroid update. Inputs as in
//! Biomatch ([`super::biomatch`]): party 0 holds the k current centroids, the points are
//! split round-robin over parties 1..n−1 (point j at party 1 + j mod (n − 1)); party 0
//! learns the new centroids and the cluster sizes. A centroid whose cluster is empty stays
//! where it was.
//!
//! The seed gives only operation counts for its Kmeans (Table 6: 1,568,660 AND, 8800 MULT,
//! 118 B2A, 116 A2B, compiled by Silph), not the sizes; this module takes the sizes as a
//! [`KmeansSize`] ([`KmeansSize::DEFAULT`]: 256 points of 2 values, 4 clusters).
//!
//! Forms (seed §3), with explicit conversions (E → A → B → A → E → A → B):
//!
//! 1. E: party 0 encrypts the centroids, repeated once per point (slot (j·k + c)·d + e
//!    holds centroid c's value e). The holder of point x_j adds Enc(c)·(−2x_j) + x_j² in
//!    its slots ([`MixedBackend::mul_add_private`]: plaintext products, re-randomized).
//! 2. E → A ([`MixedBackend::enc_to_arith`], Figure 15); the d slots of each (point,
//!    centroid) are summed and party 0's Σ_e c_e² added: the squared distances (A).
//! 3. A → B ([`MixedBackend::to_bool`], Figure 10); per point, the one-hot position of the
//!    nearest centroid by a tournament of comparisons (ties to the lower centroid), its
//!    ANDs (and the division's) stocked first.
//! 4. B → A ([`MixedBackend::to_arith`], Figure 9) of the one-hot bits, cluster-major
//!    (lane c·points + j); their sums over the points are the cluster sizes (A).
//! 5. A → E ([`MixedBackend::to_enc`]) of the one-hot bits repeated d times (slot
//!    (e·k + c)·points + j); the holder of x_j multiplies its slots by x_je (plaintext
//!    products); E2A and sums over the points: each cluster's sum per value (A).
//! 6. A → B of the sums and sizes in one batch; restoring division on B values gives the
//!    means, and a size of zero selects party 0's old centroid ([`MixedBackend::share_bits`]).
//! 7. The new centroids and the sizes are opened to party 0 only.

use super::cost::ANDS_PER_A2B;
use super::kmeans_circuits::{argmin_one_hot, divide, is_zero, select, Rows};
use super::{
    MixedBackend, MixedCost, MixedProgramError, PrivateTerm, Recipient, A2B_BITS, PLAINTEXT_MODULUS as P,
    SLOTS,
};

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
/// The most parties: party 0 and one per point.
pub const MAX_PARTIES: usize = MAX_POINTS + 1;

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

impl KmeansSize {
    /// The size `mixgc mixed --example kmeans` runs: 256 points of 2 values, 4 clusters.
    pub const DEFAULT: KmeansSize = KmeansSize {
        points: 256,
        clusters: 4,
        dimension: 2,
    };

    /// Checks every bound: 1 to [`MAX_POINTS`] points, [`MAX_CLUSTERS`] clusters and
    /// [`MAX_DIMENSION`] values, and points·k·d within one ciphertext's [`SLOTS`].
    pub fn check(&self) -> Result<(), MixedProgramError> {
        let bounds = [
            ("points", self.points, MAX_POINTS),
            ("clusters", self.clusters, MAX_CLUSTERS),
            ("dimension", self.dimension, MAX_DIMENSION),
        ];
        for (what, value, max) in bounds {
            if !(1..=max).contains(&value) {
                return Err(MixedProgramError::Input(format!(
                    "Kmeans {what} is {value}: it must be 1 to {max}"
                )));
            }
        }
        if self.slots() > SLOTS {
            return Err(MixedProgramError::Input(format!(
                "Kmeans of {} points, {} clusters, {} values needs {} slots, more than the {SLOTS} of a ciphertext",
                self.points,
                self.clusters,
                self.dimension,
                self.slots()
            )));
        }
        Ok(())
    }

    /// Slots of the distance and update ciphertexts: points·k·d.
    pub fn slots(&self) -> usize {
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

    /// ANDs of the program's B-form steps (3 and 6), not counting A2B's own: per point
    /// k − 1 comparisons of 32 bits and selections of 32 + k rows; per (cluster, value)
    /// lane the division, the zero test of the size and the selection of 14 bits.
    pub fn ands(&self) -> usize {
        let (n, k, d) = (self.points, self.clusters, self.dimension);
        let argmin = n * (k - 1) * (2 * A2B_BITS + k);
        let division = self.sum_bits() * 2 * (self.size_bits() + 1);
        let lane = division + self.size_bits() - 1 + VALUE_BITS;
        argmin + k * d * lane
    }

    /// What one run costs, in [`MixedCost`]'s columns (what [`super::MixedCounter`]
    /// counts): MULT 2·points·k·d, B2A points·k, A2B points·k + k·d + k, ANDs
    /// [`KmeansSize::ands`] (all stocked) plus [`ANDS_PER_A2B`] (95) per A2B, E2A 2, A2E 1.
    pub fn cost(&self) -> MixedCost {
        let (n, k, d) = (self.points, self.clusters, self.dimension);
        let a2b = n * k + k * d + k;
        MixedCost {
            and: self.ands(),
            a2b_and: ANDS_PER_A2B * a2b,
            mult: 2 * n * k * d,
            b2a: n * k,
            a2b,
            e2a: 2,
            a2e: 1,
            stocked_ands: self.ands(),
            ..MixedCost::default()
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

/// The inputs a backend is given: every party's (plaintext and cost backends) or one
/// party's own (the n-party backend), with the size every party runs. Checked against the
/// roles when set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KmeansInputs {
    parties: usize,
    size: KmeansSize,
    centroids: Option<Vec<Vec<u64>>>,
    /// `shards[i]`: party i's points where known (`shards[0]` is always `None`).
    shards: Vec<Option<Vec<Vec<u64>>>>,
}

impl KmeansInputs {
    /// No input known yet (enough for the cost backend); [`KmeansInputs::set`] adds them.
    pub fn none(parties: usize, size: KmeansSize) -> Result<KmeansInputs, MixedProgramError> {
        if !(2..=MAX_PARTIES).contains(&parties) {
            return Err(MixedProgramError::Input(format!(
                "Kmeans runs among 2 to {MAX_PARTIES} parties, not {parties}"
            )));
        }
        size.check()?;
        Ok(KmeansInputs {
            parties,
            size,
            centroids: None,
            shards: vec![None; parties],
        })
    }

    /// Every party's input among `parties`: the centroids and all the points, split
    /// round-robin.
    pub fn clear(
        parties: usize,
        size: KmeansSize,
        centroids: &[Vec<u64>],
        points: &[Vec<u64>],
    ) -> Result<KmeansInputs, MixedProgramError> {
        let mut inputs = KmeansInputs::none(parties, size)?;
        if points.len() != size.points {
            return Err(MixedProgramError::Input(format!(
                "Kmeans of {} points given {}",
                size.points,
                points.len()
            )));
        }
        inputs.set(0, KmeansInput::Centroids(centroids.to_vec()))?;
        for i in 1..parties {
            let mine = size
                .points_of(i, parties)
                .iter()
                .map(|&j| points[j].clone())
                .collect();
            inputs.set(i, KmeansInput::Points(mine))?;
        }
        Ok(inputs)
    }

    /// Party `me`'s own input only (the n-party backend's).
    pub fn party(
        parties: usize,
        size: KmeansSize,
        me: usize,
        input: KmeansInput,
    ) -> Result<KmeansInputs, MixedProgramError> {
        let mut inputs = KmeansInputs::none(parties, size)?;
        inputs.set(me, input)?;
        Ok(inputs)
    }

    /// The parties of the run.
    pub fn parties(&self) -> usize {
        self.parties
    }

    /// The size of the run.
    pub fn size(&self) -> KmeansSize {
        self.size
    }

    /// Sets party `party`'s input, checked against its role ([`check_input`]).
    pub fn set(&mut self, party: usize, input: KmeansInput) -> Result<(), MixedProgramError> {
        check_input(&input, party, self.parties, &self.size)?;
        match input {
            KmeansInput::Centroids(c) => self.centroids = Some(c),
            KmeansInput::Points(p) => self.shards[party] = Some(p),
        }
        Ok(())
    }
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

/// The clear model: one assignment and update step over all points, straight from the
/// definition.
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
) -> Result<(), MixedProgramError> {
    size.check()?;
    if party >= parties {
        return Err(MixedProgramError::NoSuchParty {
            what: "Kmeans input",
            party,
            parties,
        });
    }
    let bad = |s: String| Err(MixedProgramError::Input(s));
    let (what, vectors, want) = match (input, party) {
        (KmeansInput::Centroids(c), 0) => ("centroid", c, size.clusters),
        (KmeansInput::Points(_), 0) => return bad("party 0 holds the centroids, not points".into()),
        (KmeansInput::Centroids(_), _) => {
            return bad(format!("party {party} holds points, not the centroids"))
        }
        (KmeansInput::Points(p), _) => ("point", p, size.points_of(party, parties).len()),
    };
    if vectors.len() != want {
        return bad(format!(
            "party {party} of {parties} holds {want} {what}s, not {}",
            vectors.len()
        ));
    }
    for (i, v) in vectors.iter().enumerate() {
        if v.len() != size.dimension {
            return bad(format!(
                "{what} {i} has {} values, not {}",
                v.len(),
                size.dimension
            ));
        }
        if let Some(&over) = v.iter().find(|&&x| x >= VALUE_LIMIT) {
            return bad(format!(
                "{what} {i} holds {over}: every value must be below {VALUE_LIMIT}"
            ));
        }
    }
    Ok(())
}

/// Runs one Kmeans iteration on `b` (module docs): `Some(output)` where this party learns
/// it (party 0; every party of the plaintext backend), `None` elsewhere. Every party runs
/// it at once with the same size.
pub fn kmeans<B: MixedBackend>(
    b: &mut B,
    inputs: &KmeansInputs,
) -> Result<Option<KmeansOutput>, MixedProgramError> {
    let n = b.parties();
    if inputs.parties != n {
        return Err(MixedProgramError::Input(format!(
            "Kmeans inputs for {} parties on a backend of {n}",
            inputs.parties
        )));
    }
    let size = inputs.size;
    let (points, k, d) = (size.points, size.clusters, size.dimension);

    // Steps 1–2: the squared distance of point j to centroid c at lane j·k + c.
    b.phase("Kmeans: the encrypted centroids");
    let flat = inputs.centroids.as_ref().map(|c| c.concat().repeat(points));
    let centroids = b.private(0, size.slots(), flat)?;
    let enc_centroids = b.encrypt(&centroids)?;
    b.phase("Kmeans: the encrypted distances");
    let terms = point_terms(b, inputs, distance_slots, |x| ((P - 2 * x % P) % P, x * x % P))?;
    let products = b.mul_add_private(&enc_centroids, &terms)?;
    let slot_values = b.enc_to_arith(&products)?;
    let partial = b.sum_chunks(&slot_values, d)?;
    let offsets = inputs.centroids.as_ref().map(|c| {
        let squares: Vec<u64> = c
            .iter()
            .map(|v| v.iter().map(|x| x * x).sum::<u64>() % P)
            .collect();
        squares.repeat(points)
    });
    let offsets = b.private(0, points * k, offsets)?;
    let offsets = b.share(&offsets)?;
    let distances = b.add(&partial, &offsets)?;

    // Step 3: the one-hot nearest centroid, row c over the points.
    b.phase("Kmeans: A2B of the distances");
    let bits = b.to_bool(&distances)?;
    b.phase("Kmeans: the nearest centroids");
    b.stock_ands(size.ands())?;
    let mut candidates = Vec::with_capacity(k);
    for c in 0..k {
        let lanes: Vec<usize> = (0..points).map(|j| j * k + c).collect();
        let rows = bits
            .iter()
            .map(|row| b.gather(row, &lanes))
            .collect::<Result<Rows<B>, _>>()?;
        candidates.push(rows);
    }
    let one_hot = argmin_one_hot(b, candidates)?;
    let one_hot = b.concat(&one_hot);

    // Step 4: the assignment at lane c·points + j, and the sizes.
    b.phase("Kmeans: B2A of the assignment");
    let assignment = b.to_arith(&one_hot)?;
    let sizes = b.sum_chunks(&assignment, points)?;

    // Step 5: Σ_j [j in c]·x_je at lane e·k + c.
    b.phase("Kmeans: A2E of the assignment");
    let repeated = b.concat_arith(&vec![assignment; d]);
    let enc_assignment = b.to_enc(&repeated)?;
    b.phase("Kmeans: the encrypted sums");
    let terms = point_terms(b, inputs, sum_slots, |x| (x, 0))?;
    let products = b.mul_add_private(&enc_assignment, &terms)?;
    let slot_values = b.enc_to_arith(&products)?;
    let sums = b.sum_chunks(&slot_values, points)?;

    // Step 6: the means, per lane e·k + c, or the old centroid where the size is 0.
    b.phase("Kmeans: A2B of the sums and sizes");
    let both = b.concat_arith(&[sums, sizes]);
    let bits = b.to_bool(&both)?;
    b.phase("Kmeans: the means");
    let kd = k * d;
    let sum_lanes: Vec<usize> = (0..kd).collect();
    let size_lanes: Vec<usize> = (kd..kd + k).collect();
    let lane_size: Vec<usize> = (0..kd).map(|l| kd + l % k).collect();
    let mut rows = |lanes: &[usize], width: usize| -> Result<Rows<B>, MixedProgramError> {
        bits[..width].iter().map(|row| b.gather(row, lanes)).collect()
    };
    let sum_rows = rows(&sum_lanes, size.sum_bits())?;
    let size_rows = rows(&size_lanes, size.size_bits())?;
    let lane_size_rows = rows(&lane_size, size.size_bits())?;
    let means = divide(b, &sum_rows, &lane_size_rows)?;
    let empty = is_zero(b, &lane_size_rows)?;
    let old = inputs
        .centroids
        .as_ref()
        .map(|c| (0..kd).map(|l| c[l % k][l / k]).collect());
    let old = b.private(0, kd, old)?;
    let old = b.share_bits(&old, VALUE_BITS)?;
    let new = select(b, &empty, &means[..VALUE_BITS], &old)?;

    // Step 7: opened to party 0.
    let all = b.concat(&[new, size_rows].concat());
    let opened = b.output_bool(&all, Recipient::Party(0))?;
    Ok(opened.map(|bits| {
        // Row r of `lanes` lanes starting at bit `offset`: lane `lane`'s value.
        let number = |offset: usize, rows: usize, lanes: usize, lane: usize| {
            (0..rows).fold(0u64, |acc, r| {
                acc | u64::from(bits[offset + r * lanes + lane]) << r
            })
        };
        let sizes_at = VALUE_BITS * kd;
        KmeansOutput {
            centroids: (0..k)
                .map(|c| (0..d).map(|e| number(0, VALUE_BITS, kd, e * k + c)).collect())
                .collect(),
            sizes: (0..k).map(|c| number(sizes_at, size.size_bits(), k, c)).collect(),
        }
    }))
}

/// Step 1's slots of point j with their values' positions: (j·k + c)·d + e for every c, e.
fn distance_slots(j: usize, size: &KmeansSize) -> Vec<(usize, usize)> {
    let (k, d) = (size.clusters, size.dimension);
    (0..k * d).map(|ce| ((j * k) * d + ce, ce % d)).collect()
}

/// Step 5's slots of point j with their values' positions: (e·k + c)·points + j.
fn sum_slots(j: usize, size: &KmeansSize) -> Vec<(usize, usize)> {
    let (k, d) = (size.clusters, size.dimension);
    (0..k * d).map(|ec| (ec * size.points + j, ec / k)).collect()
}

/// Every point holder's [`PrivateTerm`]: in the slots `slots(j)` of its points j (with the
/// value e each slot multiplies), factor and addend `f(x_je)`; slots sorted ascending.
fn point_terms<B: MixedBackend>(
    b: &mut B,
    inputs: &KmeansInputs,
    slots: impl Fn(usize, &KmeansSize) -> Vec<(usize, usize)>,
    f: impl Fn(u64) -> (u64, u64),
) -> Result<Vec<PrivateTerm>, MixedProgramError> {
    let (n, size) = (inputs.parties, &inputs.size);
    let mut terms = Vec::with_capacity(n - 1);
    for i in 1..n {
        // (slot, index of the point among party i's, value position e).
        let mut at: Vec<(usize, usize, usize)> = size
            .points_of(i, n)
            .iter()
            .enumerate()
            .flat_map(|(p, &j)| slots(j, size).into_iter().map(move |(s, e)| (s, p, e)))
            .collect();
        at.sort_unstable();
        let values = inputs.shards[i]
            .as_ref()
            .map(|pts| at.iter().map(|&(_, p, e)| f(pts[p][e])).collect::<Vec<_>>());
        let factor = b.private(
            i,
            at.len(),
            values.as_ref().map(|v| v.iter().map(|x| x.0).collect()),
        )?;
        let addend = b.private(i, at.len(), values.map(|v| v.iter().map(|x| x.1).collect()))?;
        terms.push(PrivateTerm {
            slots: at.iter().map(|&(s, _, _)| s).collect(),
            factor,
            addend,
        });
    }
    Ok(terms)
}

/// Edge inputs that the Kmeans tests of every backend share (`crates/program/tests/mixed_kmeans.rs`
/// on the plaintext and cost backends, `crates/mixed/tests/kmeans.rs` on the n-party one);
/// each test checks the answer against its own clear model. Not part of the interface.
#[doc(hidden)]
pub mod edge_inputs {
    use super::{KmeansSize, VALUE_LIMIT};

    const MAX: u64 = VALUE_LIMIT - 1;

    /// Centroids and points of one Kmeans input.
    pub type Inputs = (KmeansSize, Vec<Vec<u64>>, Vec<Vec<u64>>);

    /// 12 points, 3 clusters, 2 dimensions. Centroid 2 repeats centroid 0, so ties send
    /// every point of theirs to 0 and cluster 2 stays empty (its centroid kept); the points
    /// include 0, the largest value and (MAX, 0), as near to centroid 0 as to 1; the other
    /// 8 points take their coordinates from `fill`.
    pub fn empty_cluster_and_ties(mut fill: impl FnMut() -> u64) -> Inputs {
        let size = KmeansSize {
            points: 12,
            clusters: 3,
            dimension: 2,
        };
        let centroids = vec![vec![0, 0], vec![MAX, MAX], vec![0, 0]];
        let mut points = vec![vec![0, 0], vec![MAX, MAX], vec![MAX, 0], vec![0, MAX]];
        points.extend((4..size.points).map(|_| vec![fill(), fill()]));
        (size, centroids, points)
    }

    /// 16 points of the largest value everywhere, 4 clusters, 3 dimensions: one cluster
    /// holds all 16 (the largest sum, 16·MAX), the others stay where they were.
    pub fn every_point_largest() -> Inputs {
        let size = KmeansSize {
            points: 16,
            clusters: 4,
            dimension: 3,
        };
        let centroids = vec![
            vec![0, 0, 0],
            vec![1, 2, 3],
            vec![MAX, MAX, MAX - 1],
            vec![MAX; 3],
        ];
        (size, centroids, vec![vec![MAX; 3]; 16])
    }
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
    fn every_slot_is_used_once_by_each_pass() {
        let size = KmeansSize {
            points: 5,
            clusters: 3,
            dimension: 2,
        };
        for slots in [distance_slots, sum_slots] {
            let mut all: Vec<usize> = (0..size.points)
                .flat_map(|j| slots(j, &size).into_iter().map(|(s, _)| s))
                .collect();
            all.sort_unstable();
            assert_eq!(all, (0..size.slots()).collect::<Vec<_>>());
        }
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
        let e = check_input(&c, 3, 3, &size).unwrap_err().to_string();
        assert!(e.contains("no party 3 among 3"), "{e}");
        let e = check_input(&KmeansInput::Centroids(vec![vec![1, 2]; 3]), 0, 3, &size)
            .unwrap_err()
            .to_string();
        assert!(e.contains("holds 4 centroids, not 3"), "{e}");
        assert!(check_input(&KmeansInput::Points(vec![vec![1, 2]; 128]), 2, 3, &size).is_ok());
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
        assert!(KmeansInputs::none(1, size).is_err());
        assert!(KmeansInputs::none(MAX_PARTIES + 1, size).is_err());
        let e = KmeansInputs::clear(3, size, &vec![vec![0, 0]; 4], &vec![vec![0, 0]; 5]).unwrap_err();
        assert!(e.to_string().contains("256 points given 5"), "{e}");
    }

    #[test]
    fn the_default_costs_in_the_seed_s_columns() {
        let cost = KmeansSize::DEFAULT.cost();
        assert_eq!(cost.mult, 2 * 256 * 4 * 2);
        assert_eq!((cost.b2a, cost.a2b), (1024, 1024 + 8 + 4));
        // Argmin 256·3·68; per lane 22·2·10 + 8 + 14, eight lanes.
        assert_eq!(cost.and, 256 * 3 * 68 + 8 * (440 + 22));
        assert_eq!((cost.and, cost.a2b_and), (55_920, 98_420));
    }
}
