//! Biomatch (seed Table 6): party 0 holds a query of [`DIMENSION`] values, a database of
//! [`VECTORS`] vectors is split round-robin over parties 1..n−1 (vector j at party
//! 1 + j mod (n − 1)); party 0 learns the minimum squared Euclidean distance from the query
//! to a database vector and the index of the first vector at that distance.
//!
//! Forms (seed §3): the distances are computed in E form and converted to A form, the
//! minimum in B form.
//!
//! 1. Party 0 encrypts the query repeated VECTORS times (slot 4j + d holds q_d) and passes
//!    it along the chain.
//! 2. Party i computes, for each of its vectors x_j, Enc(q)·(−2x_j) + x_j² in slots 4j + d
//!    (a plaintext product and sum) plus a fresh Enc(0) (so the chain learns nothing of
//!    x_j: [`crate::triples`] argues the same step); the ciphertexts are summed along the
//!    chain and passed back, then E2A (Figure 15) gives additive shares of
//!    x_jd² − 2·q_d·x_jd = (q_d − x_jd)² − q_d²; every party sums its four slots of each
//!    vector and party 0 adds Σ_d q_d²: the A form of dist_j = Σ_d (q_d − x_jd)².
//! 3. A2B (Figure 10) of the 256 distances: B form.
//! 4. A tournament on XOR shares (GMW with triples stocked ahead): 8 rounds of pairwise
//!    comparison and selection of (distance, index); the lower index wins ties.
//! 5. The winner's 32 + 8 bits are XORed along the chain into party 0 only.

use fhe_rand::{CryptoRng, RngCore};
use mixgc_nparty::Mesh;

use crate::a2b::{a2b, not, public_bits, xor, BooleanEngine, WIDTH_BITS};
use crate::conversions::sum_ciphertexts;
use crate::lut::open_bits_to;
use crate::ops::{add, add_plain, mul_plain};
use crate::{MixedError, ThresholdKeys, PLAINTEXT_MODULUS as P};

/// Values per vector.
pub const DIMENSION: usize = 4;
/// Vectors in the database.
pub const VECTORS: usize = 256;
/// Bits of an index into the database.
pub const INDEX_BITS: usize = 8;
/// Every query and database value is below this (2^14), so a squared distance is below
/// 4·2^28 = 2^30 < p and never wraps.
pub const VALUE_LIMIT: u64 = 1 << 14;

/// One vector of the query or the database.
pub type Vector = [u64; DIMENSION];

/// What one party brings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BiomatchInput {
    /// Party 0's query.
    Query(Vector),
    /// Party i ≥ 1's vectors, in the order of [`vectors_of`].
    Database(Vec<Vector>),
}

/// The result party 0 learns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BiomatchOutput {
    /// min_j Σ_d (q_d − x_jd)².
    pub distance: u64,
    /// The lowest j at that distance.
    pub index: usize,
}

/// The database indices party `party` (≥ 1) of `parties` holds: j with j mod (n − 1) =
/// party − 1, ascending.
pub fn vectors_of(party: usize, parties: usize) -> Vec<usize> {
    if party == 0 || parties < 2 {
        return Vec::new();
    }
    (party - 1..VECTORS).step_by(parties - 1).collect()
}

/// The plaintext model: the minimum squared distance and its lowest index. `database`
/// holds all [`VECTORS`] vectors.
pub fn plaintext(query: &Vector, database: &[Vector]) -> Option<BiomatchOutput> {
    database
        .iter()
        .enumerate()
        .map(|(index, x)| BiomatchOutput {
            distance: squared_distance(query, x),
            index,
        })
        .min_by_key(|o| (o.distance, o.index))
}

/// Σ_d (q_d − x_d)².
pub fn squared_distance(q: &Vector, x: &Vector) -> u64 {
    q.iter().zip(x).map(|(&a, &b)| a.abs_diff(b).pow(2)).sum()
}

/// Checks a party's input against its role: the query at party 0, exactly its share of
/// the database elsewhere, every value below [`VALUE_LIMIT`].
pub fn check_input(input: &BiomatchInput, party: usize, parties: usize) -> Result<(), MixedError> {
    let usage = |s: String| Err(MixedError::Usage(s));
    let values: Vec<u64> = match (input, party) {
        (BiomatchInput::Query(q), 0) => q.to_vec(),
        (BiomatchInput::Database(_), 0) => {
            return usage("party 0 holds the query, not database vectors".into())
        }
        (BiomatchInput::Query(_), _) => {
            return usage(format!("party {party} holds database vectors, not the query"))
        }
        (BiomatchInput::Database(v), _) => {
            let want = vectors_of(party, parties).len();
            if v.len() != want {
                return usage(format!(
                    "party {party} of {parties} holds {want} database vectors (indices {party}−1, +{}, …), not {}",
                    parties - 1,
                    v.len()
                ));
            }
            v.iter().flatten().copied().collect()
        }
    };
    match values.iter().position(|&v| v >= VALUE_LIMIT) {
        Some(i) => usage(format!(
            "value {i} is {}: every value must be below {VALUE_LIMIT}",
            values[i]
        )),
        None => Ok(()),
    }
}

/// Runs Biomatch among the mesh's parties (module docs): party 0 returns `Some(output)`,
/// every other party `None`. Every party calls it at once with its own input.
pub fn biomatch<R: RngCore + CryptoRng>(
    keys: &ThresholdKeys,
    engine: &mut BooleanEngine,
    mesh: &mut Mesh,
    input: &BiomatchInput,
    rng: &mut R,
) -> Result<Option<BiomatchOutput>, MixedError> {
    let (me, n) = (mesh.me(), mesh.parties());
    if n < 2 {
        return Err(MixedError::Usage("Biomatch needs at least 2 parties".into()));
    }
    check_input(input, me, n)?;
    let distances = distance_shares(keys, mesh, input, rng)?;
    mesh.set_phase("Biomatch: A2B of the distances");
    let bits = a2b(keys, engine, mesh, &distances, rng)?;
    mesh.set_phase("Biomatch: the minimum");
    let (value, index) = minimum(engine, mesh, &bits)?;
    let mine: Vec<u8> = value.into_iter().chain(index).collect();
    Ok(open_bits_to(mesh, 0, mine)?.map(|bits| {
        let number = |b: &[u8]| b.iter().rev().fold(0u64, |acc, &x| acc << 1 | u64::from(x));
        let w = WIDTH_BITS as usize;
        BiomatchOutput {
            distance: number(&bits[..w]),
            index: number(&bits[w..]) as usize,
        }
    }))
}

/// Steps 1–2: this party's additive shares mod p of the [`VECTORS`] distances.
fn distance_shares<R: RngCore + CryptoRng>(
    keys: &ThresholdKeys,
    mesh: &mut Mesh,
    input: &BiomatchInput,
    rng: &mut R,
) -> Result<Vec<u64>, MixedError> {
    let par = keys.parameters().clone();
    let slots = VECTORS * DIMENSION;
    mesh.set_phase("Biomatch: the encrypted query");
    let query = match input {
        BiomatchInput::Query(q) => Some(keys.encrypt(&q.repeat(VECTORS), rng)?),
        BiomatchInput::Database(_) => None,
    };
    let zero = keys.encrypt(&[], rng)?;
    // Only party 0 contributes a query; the chain sum passes it to every party.
    let enc_q = sum_ciphertexts(mesh, &par, query.unwrap_or_else(|| zero.clone()))?;
    mesh.set_phase("Biomatch: the encrypted distances");
    let mine = match input {
        BiomatchInput::Query(_) => zero,
        BiomatchInput::Database(vectors) => {
            let (mut factor, mut square) = (vec![0u64; slots], vec![0u64; slots]);
            for (&j, x) in vectors_of(mesh.me(), mesh.parties()).iter().zip(vectors) {
                for d in 0..DIMENSION {
                    factor[DIMENSION * j + d] = (P - 2 * x[d] % P) % P;
                    square[DIMENSION * j + d] = x[d] * x[d] % P;
                }
            }
            let term = add_plain(&par, &mul_plain(&par, &enc_q, &factor)?, &square)?;
            add(&term, &zero)
        }
    };
    let sum = sum_ciphertexts(mesh, &par, mine)?;
    let shares = keys.to_shares(mesh, &sum, rng)?;
    let offset = match input {
        BiomatchInput::Query(q) => q.iter().map(|v| v * v).sum::<u64>() % P,
        BiomatchInput::Database(_) => 0,
    };
    Ok((0..VECTORS)
        .map(|j| {
            let slots = &shares[DIMENSION * j..DIMENSION * (j + 1)];
            (slots.iter().sum::<u64>() + offset) % P
        })
        .collect())
}

/// XOR shares of one value per lane, by bit position: `bits[b][lane]`.
type Lanes = Vec<Vec<u8>>;

/// Step 4: the minimum of the XOR-shared 32-bit `values` (a power-of-two count) and its
/// lowest index, each as bit-position lanes of one lane.
fn minimum(
    engine: &mut BooleanEngine,
    mesh: &mut Mesh,
    values: &[u64],
) -> Result<(Vec<u8>, Vec<u8>), MixedError> {
    let me = mesh.me();
    let w = WIDTH_BITS as usize;
    let count = values.len();
    let mut value: Lanes = (0..w)
        .map(|b| values.iter().map(|v| ((v >> b) & 1) as u8).collect())
        .collect();
    let mut index: Lanes = (0..INDEX_BITS)
        .map(|b| public_bits(me, |i| ((i >> b) & 1) as u8, count))
        .collect();
    // Each round: w ANDs for the comparison, w + INDEX_BITS for the selection, per pair.
    engine.stock(mesh, (count - 1) * (2 * w + INDEX_BITS))?;
    while value[0].len() > 1 {
        let half = value[0].len() / 2;
        let split = |lanes: &Lanes| -> (Lanes, Lanes) {
            let left = lanes
                .iter()
                .map(|l| l.iter().step_by(2).copied().collect())
                .collect();
            let right = lanes
                .iter()
                .map(|l| l.iter().skip(1).step_by(2).copied().collect())
                .collect();
            (left, right)
        };
        let ((vl, vr), (il, ir)) = (split(&value), split(&index));
        let right_smaller = less_than(engine, mesh, &vr, &vl)?;
        // Selected = left ⊕ [right < left]·(left ⊕ right), every bit in one AND layer.
        let diff: Vec<u8> = vl
            .iter()
            .zip(&vr)
            .chain(il.iter().zip(&ir))
            .flat_map(|(a, b)| xor(a, b))
            .collect();
        let choose: Vec<u8> = (0..w + INDEX_BITS)
            .flat_map(|_| right_smaller.iter().copied())
            .collect();
        let picked = engine.and(mesh, &choose, &diff)?;
        let select = |left: &Lanes, offset: usize| -> Lanes {
            left.iter()
                .enumerate()
                .map(|(b, l)| xor(l, &picked[(offset + b) * half..(offset + b + 1) * half]))
                .collect()
        };
        value = select(&vl, 0);
        index = select(&il, w);
    }
    Ok((
        value.into_iter().flatten().collect(),
        index.into_iter().flatten().collect(),
    ))
}

/// [a < b] lane-wise on XOR-shared bit lanes (least significant first): a < b exactly when
/// a + ¬b + 1 has no carry out of the top bit. One AND per bit position.
fn less_than(
    engine: &mut BooleanEngine,
    mesh: &mut Mesh,
    a: &Lanes,
    b: &Lanes,
) -> Result<Vec<u8>, MixedError> {
    let me = mesh.me();
    let lanes = a[0].len();
    let mut carry = public_bits(me, |_| 1, lanes);
    for (aj, bj) in a.iter().zip(b) {
        let nb = not(me, bj);
        let g = engine.and(mesh, &xor(aj, &carry), &xor(&nb, &carry))?;
        carry = xor(&carry, &g);
    }
    Ok(not(me, &carry))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_is_split_round_robin_over_parties_1_to_n_minus_1() {
        for n in [2, 3, 5, 16] {
            let mut all: Vec<usize> = (1..n).flat_map(|i| vectors_of(i, n)).collect();
            all.sort_unstable();
            assert_eq!(all, (0..VECTORS).collect::<Vec<_>>());
            assert!(vectors_of(0, n).is_empty());
        }
        assert_eq!(vectors_of(2, 4)[..3], [1, 4, 7]);
    }

    #[test]
    fn the_plaintext_model_takes_the_lowest_index_of_the_minimum() {
        let mut db = vec![[5, 5, 5, 5]; VECTORS];
        db[7] = [1, 2, 3, 4];
        db[9] = [1, 2, 3, 4];
        let got = plaintext(&[1, 2, 3, 5], &db).unwrap();
        assert_eq!(
            got,
            BiomatchOutput {
                distance: 1,
                index: 7
            }
        );
        let max = VALUE_LIMIT - 1;
        assert_eq!(squared_distance(&[0; 4], &[max; 4]), 4 * max * max);
        assert!(4 * max * max < P);
    }

    #[test]
    fn inputs_are_checked_against_the_role() {
        assert!(check_input(&BiomatchInput::Query([1, 2, 3, 4]), 0, 3).is_ok());
        let e = check_input(&BiomatchInput::Query([1, 2, 3, VALUE_LIMIT]), 0, 3).unwrap_err();
        assert!(e.to_string().contains("below 16384"), "{e}");
        let e = check_input(&BiomatchInput::Database(vec![[0; 4]; 3]), 1, 3).unwrap_err();
        assert!(e.to_string().contains("holds 128 database vectors"), "{e}");
        assert!(check_input(&BiomatchInput::Database(vec![[0; 4]; 128]), 2, 3).is_ok());
        assert!(check_input(&BiomatchInput::Query([0; 4]), 1, 3).is_err());
        assert!(check_input(&BiomatchInput::Database(vec![]), 0, 3).is_err());
    }
}
