//! Biomatch (seed Table 6), written once on [`MixedBackend`]: party 0 holds a query of
//! [`DIMENSION`] values, a database of [`VECTORS`] vectors is split round-robin over parties
//! 1..n−1 (vector j at party 1 + j mod (n − 1)); party 0 learns the minimum squared
//! Euclidean distance from the query to a database vector and the lowest index at it.
//!
//! Forms (seed §3): the distances in E form, converted to A form, the minimum in B form
//! or, with [`MinForm::Yao`], in Y form (garbled labels, after B→Y of the distances' bits).
//!
//! 1. E: party 0 encrypts the query repeated [`VECTORS`] times (slot 4j + d holds q_d).
//! 2. Party i adds Enc(q)·(−2x_j) + x_j² in slots 4j + d for its vectors x_j
//!    ([`MixedBackend::mul_add_private`]: plaintext products, re-randomized, one sum); E2A
//!    gives the A form of x_jd² − 2·q_d·x_jd = (q_d − x_jd)² − q_d²; the four slots of each
//!    vector are summed and party 0's Σ_d q_d² added: dist_j = Σ_d (q_d − x_jd)².
//! 3. A2B of the 256 distances, one batch: B form.
//! 4. A tournament on B (or Y) values: 8 rounds of pairwise comparison and selection of
//!    (distance, index), the lower index winning ties, its ANDs prepared first (B) or
//!    garbled in batches (Y), written once over [`BitForm`].
//! 5. The winner's 32 + 8 bits (back to B form from Y) are opened to party 0 only.

use super::{
    BitForm, BoolForm, MixedBackend, MixedProgramError, PrivateTerm, Recipient, Shaped, YaoForm, A2B_BITS,
    PLAINTEXT_MODULUS as P,
};

/// The form Biomatch computes its minimum in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MinForm {
    /// XOR shares, ANDs by Beaver triples (one round per AND layer).
    #[default]
    Bool,
    /// BMR garbled labels (B→Y of the distances' bits, ANDs garbled in batches, Y→B of the
    /// winner).
    Yao,
}

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

/// The inputs a backend is given: every party's (plaintext and cost backends) or one
/// party's own (the n-party backend). Checked against the roles when made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BiomatchInputs {
    parties: usize,
    query: Option<Vector>,
    /// `shards[i]`: party i's vectors where known (`shards[0]` is always `None`).
    shards: Vec<Option<Vec<Vector>>>,
}

impl BiomatchInputs {
    /// Every party's input among `parties`: the query and the whole database of
    /// [`VECTORS`] vectors, split round-robin.
    pub fn clear(
        parties: usize,
        query: Vector,
        database: &[Vector],
    ) -> Result<BiomatchInputs, MixedProgramError> {
        check_parties(parties)?;
        if database.len() != VECTORS {
            return Err(MixedProgramError::Input(format!(
                "the database holds {VECTORS} vectors, not {}",
                database.len()
            )));
        }
        let mut inputs = BiomatchInputs::none(parties)?;
        inputs.set(0, BiomatchInput::Query(query))?;
        for i in 1..parties {
            let mine = vectors_of(i, parties).iter().map(|&j| database[j]).collect();
            inputs.set(i, BiomatchInput::Database(mine))?;
        }
        Ok(inputs)
    }

    /// Party `me`'s own input only (the n-party backend's).
    pub fn party(
        parties: usize,
        me: usize,
        input: BiomatchInput,
    ) -> Result<BiomatchInputs, MixedProgramError> {
        let mut inputs = BiomatchInputs::none(parties)?;
        inputs.set(me, input)?;
        Ok(inputs)
    }

    /// No input known yet (enough for the cost backend); [`BiomatchInputs::set`] adds them.
    pub fn none(parties: usize) -> Result<BiomatchInputs, MixedProgramError> {
        check_parties(parties)?;
        Ok(BiomatchInputs {
            parties,
            query: None,
            shards: vec![None; parties],
        })
    }

    /// The parties of the run.
    pub fn parties(&self) -> usize {
        self.parties
    }

    /// Sets party `party`'s input, checked against its role ([`check_input`]).
    pub fn set(&mut self, party: usize, input: BiomatchInput) -> Result<(), MixedProgramError> {
        check_input(&input, party, self.parties)?;
        match input {
            BiomatchInput::Query(q) => self.query = Some(q),
            BiomatchInput::Database(v) => self.shards[party] = Some(v),
        }
        Ok(())
    }
}

/// The most parties: party 0 and one per database vector.
pub const MAX_PARTIES: usize = VECTORS + 1;

fn check_parties(parties: usize) -> Result<(), MixedProgramError> {
    if !(2..=MAX_PARTIES).contains(&parties) {
        return Err(MixedProgramError::Input(format!(
            "Biomatch runs among 2 to {MAX_PARTIES} parties, not {parties}"
        )));
    }
    Ok(())
}

/// The database indices party `party` (≥ 1) of `parties` holds: j with j mod (n − 1) =
/// party − 1, ascending.
pub fn vectors_of(party: usize, parties: usize) -> Vec<usize> {
    if party == 0 || parties < 2 {
        return Vec::new();
    }
    (party - 1..VECTORS).step_by(parties - 1).collect()
}

/// The clear model: the minimum squared distance and its lowest index, straight from the
/// definition. `database` holds all [`VECTORS`] vectors.
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
pub fn check_input(input: &BiomatchInput, party: usize, parties: usize) -> Result<(), MixedProgramError> {
    let bad = |s: String| Err(MixedProgramError::Input(s));
    if party >= parties {
        return Err(MixedProgramError::NoSuchParty {
            what: "Biomatch input",
            party,
            parties,
        });
    }
    let values: Vec<u64> = match (input, party) {
        (BiomatchInput::Query(q), 0) => q.to_vec(),
        (BiomatchInput::Database(_), 0) => return bad("party 0 holds the query, not database vectors".into()),
        (BiomatchInput::Query(_), _) => {
            return bad(format!("party {party} holds database vectors, not the query"))
        }
        (BiomatchInput::Database(v), _) => {
            let want = vectors_of(party, parties).len();
            if v.len() != want {
                return bad(format!(
                    "party {party} of {parties} holds {want} database vectors (indices {party}−1, +{}, …), not {}",
                    parties - 1,
                    v.len()
                ));
            }
            v.iter().flatten().copied().collect()
        }
    };
    match values.iter().position(|&v| v >= VALUE_LIMIT) {
        Some(i) => bad(format!(
            "value {i} is {}: every value must be below {VALUE_LIMIT}",
            values[i]
        )),
        None => Ok(()),
    }
}

/// Slots of the distance ciphertext: one per database value.
const SLOTS_USED: usize = VECTORS * DIMENSION;

/// ANDs of the tournament over `count` values: per comparison, 32 for [a < b] and 40 for
/// the selection of (distance, index).
pub const fn tournament_ands(count: usize) -> usize {
    (count - 1) * (2 * A2B_BITS + INDEX_BITS)
}

/// Runs Biomatch on `b` (module docs) with its minimum in B form: `Some(output)` where this
/// party learns it (party 0; every party of the plaintext backend), `None` elsewhere. Every
/// party runs it at once.
pub fn biomatch<B: MixedBackend>(
    b: &mut B,
    inputs: &BiomatchInputs,
) -> Result<Option<BiomatchOutput>, MixedProgramError> {
    biomatch_in(b, inputs, MinForm::Bool)
}

/// [`biomatch`] with its minimum in the form `form`; the same answer in either.
pub fn biomatch_in<B: MixedBackend>(
    b: &mut B,
    inputs: &BiomatchInputs,
    form: MinForm,
) -> Result<Option<BiomatchOutput>, MixedProgramError> {
    let n = b.parties();
    if inputs.parties != n {
        return Err(MixedProgramError::Input(format!(
            "Biomatch inputs for {} parties on a backend of {n}",
            inputs.parties
        )));
    }
    b.phase("Biomatch: the encrypted query");
    let query = b.private(0, SLOTS_USED, inputs.query.map(|q| q.repeat(VECTORS)))?;
    let enc_q = b.encrypt(&query)?;
    b.phase("Biomatch: the encrypted distances");
    let mut terms = Vec::with_capacity(n - 1);
    for i in 1..n {
        let slots: Vec<usize> = vectors_of(i, n)
            .iter()
            .flat_map(|&j| DIMENSION * j..DIMENSION * (j + 1))
            .collect();
        let shard = inputs.shards[i].as_ref();
        let values = |f: fn(u64) -> u64| shard.map(|v| v.iter().flatten().map(|&x| f(x)).collect());
        let factor = b.private(i, slots.len(), values(|x| (P - 2 * x % P) % P))?;
        let addend = b.private(i, slots.len(), values(|x| x * x % P))?;
        terms.push(PrivateTerm {
            slots,
            factor,
            addend,
        });
    }
    let products = b.mul_add_private(&enc_q, &terms)?;
    let slots = b.enc_to_arith(&products)?;
    let sums = b.sum_chunks(&slots, DIMENSION)?;
    let offset = inputs
        .query
        .map(|q| vec![q.iter().map(|v| v * v).sum::<u64>() % P; VECTORS]);
    let offset = b.private(0, VECTORS, offset)?;
    let offset = b.share(&offset)?;
    let distances = b.add(&sums, &offset)?;
    b.phase("Biomatch: A2B of the distances");
    let bits = b.to_bool(&distances)?;
    b.phase("Biomatch: the minimum");
    let winner = match form {
        MinForm::Bool => {
            let (value, index) = minimum::<B, BoolForm>(b, bits)?;
            b.concat(&[value, index].concat())
        }
        MinForm::Yao => {
            let labels = bits.iter().map(|x| b.to_yao(x)).collect::<Result<_, _>>()?;
            let (value, index) = minimum::<B, YaoForm>(b, labels)?;
            let winner = b.yao_concat(&[value, index].concat());
            b.yao_to_bool(&winner)?
        }
    };
    let opened = b.output_bool(&winner, Recipient::Party(0))?;
    Ok(opened.map(|bits| {
        let number = |b: &[bool]| b.iter().rev().fold(0u64, |acc, &x| acc << 1 | u64::from(x));
        BiomatchOutput {
            distance: number(&bits[..A2B_BITS]),
            index: number(&bits[A2B_BITS..]) as usize,
        }
    }))
}

/// Two vectors of bit-position vectors of form F: (left, right) or (value, index).
type Halves<V> = (Vec<V>, Vec<V>);

/// Step 4: the minimum of `values` (bit-position vectors of form F, least significant
/// first, of a power-of-two count of lanes) and its lowest index, each as bit-position
/// vectors of one lane.
fn minimum<B: MixedBackend, F: BitForm<B>>(
    b: &mut B,
    values: Vec<F::V>,
) -> Result<Halves<F::V>, MixedProgramError> {
    let count = values[0].lanes();
    if !count.is_power_of_two() || count > 1 << INDEX_BITS {
        return Err(MixedProgramError::Input(format!(
            "the tournament takes a power of two up to {} values, not {count}",
            1 << INDEX_BITS
        )));
    }
    let mut value = values;
    let mut index: Vec<F::V> = (0..INDEX_BITS)
        .map(|bit| {
            let bits: Vec<bool> = (0..count).map(|i| (i >> bit) & 1 == 1).collect();
            F::public(b, &bits)
        })
        .collect::<Result<_, _>>()?;
    F::stock_ands(b, tournament_ands(count))?;
    let w = A2B_BITS;
    while value[0].lanes() > 1 {
        let half = value[0].lanes() / 2;
        let (even, odd): (Vec<usize>, Vec<usize>) = (
            (0..half).map(|i| 2 * i).collect(),
            (0..half).map(|i| 2 * i + 1).collect(),
        );
        let mut split = |lanes: &[F::V]| -> Result<Halves<F::V>, MixedProgramError> {
            let left = lanes
                .iter()
                .map(|l| F::gather(b, l, &even))
                .collect::<Result<_, _>>()?;
            let right = lanes
                .iter()
                .map(|l| F::gather(b, l, &odd))
                .collect::<Result<_, _>>()?;
            Ok((left, right))
        };
        let (vl, vr) = split(&value)?;
        let (il, ir) = split(&index)?;
        let right_smaller = less_than::<B, F>(b, &vr, &vl)?;
        // Selected = left ⊕ [right < left]·(left ⊕ right), every bit in one AND layer.
        let diffs = vl
            .iter()
            .zip(&vr)
            .chain(il.iter().zip(&ir))
            .map(|(l, r)| F::xor(b, l, r))
            .collect::<Result<Vec<_>, _>>()?;
        let diff = F::concat(b, &diffs);
        let choose = F::concat(b, &vec![right_smaller.clone(); w + INDEX_BITS]);
        let picked = F::and(b, &choose, &diff)?;
        let mut select = |left: &[F::V], offset: usize| -> Result<Vec<F::V>, MixedProgramError> {
            left.iter()
                .enumerate()
                .map(|(bit, l)| {
                    let lanes: Vec<usize> = ((offset + bit) * half..(offset + bit + 1) * half).collect();
                    let part = F::gather(b, &picked, &lanes)?;
                    F::xor(b, l, &part)
                })
                .collect()
        };
        let (new_value, new_index) = (select(&vl, 0)?, select(&il, w)?);
        // The round's dead wires (the old vectors, whose halves were gathered from them,
        // and the selection's): freed where the form keeps wire state (Y).
        for dead in value.iter().chain(&index).chain(&diffs) {
            F::release(b, dead);
        }
        for dead in [&right_smaller, &picked] {
            F::release(b, dead);
        }
        (value, index) = (new_value, new_index);
    }
    Ok((value, index))
}

/// [a < b] lane-wise on bit-position vectors (least significant first): a < b exactly when
/// a + ¬b + 1 has no carry out of the top bit. One AND layer per bit position.
fn less_than<B: MixedBackend, F: BitForm<B>>(
    b: &mut B,
    a: &[F::V],
    c: &[F::V],
) -> Result<F::V, MixedProgramError> {
    let lanes = a[0].lanes();
    let mut carry = F::public(b, &vec![true; lanes])?;
    for (aj, cj) in a.iter().zip(c) {
        let nc = F::not(b, cj)?;
        let x = F::xor(b, aj, &carry)?;
        let y = F::xor(b, &nc, &carry)?;
        let g = F::and(b, &x, &y)?;
        let next = F::xor(b, &carry, &g)?;
        for dead in [nc, x, y, g, carry] {
            F::release(b, &dead);
        }
        carry = next;
    }
    let less = F::not(b, &carry)?;
    F::release(b, &carry);
    Ok(less)
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
        let e = check_input(&BiomatchInput::Query([0; 4]), 3, 3).unwrap_err();
        assert!(e.to_string().contains("no party 3 among 3"), "{e}");
        let e = BiomatchInputs::clear(3, [0; 4], &[[0; 4]; 5]).unwrap_err();
        assert!(e.to_string().contains("256 vectors, not 5"), "{e}");
        assert!(BiomatchInputs::clear(1, [0; 4], &[[0; 4]; VECTORS]).is_err());
    }
}
