//! Biomatch (seed Table 6), written once on [`MixedBackend`]: party 0 holds a query of
//! [`DIMENSION`] values, a database of N vectors (1 ≤ N ≤ [`MAX_VECTORS`]; the seed's Table 6
//! has N = [`VECTORS`] = 256) is split round-robin over parties 1..n−1 (vector j at party
//! 1 + j mod (n − 1)); party 0 learns the minimum squared Euclidean distance from the query
//! to a database vector and the lowest index at it.
//!
//! Forms (seed §3): the distances in E form, converted to A form, the minimum in B form
//! or, with [`MinForm::Yao`], in Y form (garbled labels, after B→Y of the distances' bits).
//!
//! 1. E: party 0 encrypts the query repeated N times (slot 4j + d holds q_d).
//! 2. Party i adds Enc(q)·(−2x_j) + x_j² in slots 4j + d for its vectors x_j
//!    ([`MixedBackend::mul_add_private`]: plaintext products, re-randomized, one sum); E2A
//!    gives the A form of x_jd² − 2·q_d·x_jd = (q_d − x_jd)² − q_d²; the four slots of each
//!    vector are summed and party 0's Σ_d q_d² added: dist_j = Σ_d (q_d − x_jd)².
//! 3. A2B of the N distances, one batch: B form.
//! 4. A tournament on B (or Y) values: ⌈log2 N⌉ rounds (8 at N = 256) of pairwise
//!    comparison and selection of (distance, index), the lower index winning ties, an odd
//!    last value passing to the next round unchanged (N − 1 comparisons in all), its ANDs
//!    prepared first (B) or garbled in batches (Y), written once over [`BitForm`].
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
/// Vectors in the database by default: the seed's Table 6 size.
pub const VECTORS: usize = 256;
/// Bits of an index into the database.
pub const INDEX_BITS: usize = 8;
/// The most vectors: every index fits [`INDEX_BITS`] bits (the tournament's and the
/// output's width; the distances' 4·256 slots are far below one ciphertext's).
pub const MAX_VECTORS: usize = 1 << INDEX_BITS;
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
    /// N, the database's vectors: every party runs with the same.
    vectors: usize,
    query: Option<Vector>,
    /// `shards[i]`: party i's vectors where known (`shards[0]` is always `None`).
    shards: Vec<Option<Vec<Vector>>>,
}

impl BiomatchInputs {
    /// Every party's input among `parties`: the query and the whole database (N =
    /// `database.len()` vectors, 1 to [`MAX_VECTORS`]), split round-robin.
    pub fn clear(
        parties: usize,
        query: Vector,
        database: &[Vector],
    ) -> Result<BiomatchInputs, MixedProgramError> {
        let mut inputs = BiomatchInputs::none(parties, database.len())?;
        inputs.set(0, BiomatchInput::Query(query))?;
        for i in 1..parties {
            let mine = vectors_of(i, parties, database.len())
                .iter()
                .map(|&j| database[j])
                .collect();
            inputs.set(i, BiomatchInput::Database(mine))?;
        }
        Ok(inputs)
    }

    /// Party `me`'s own input only (the n-party backend's), in a database of `vectors`.
    pub fn party(
        parties: usize,
        vectors: usize,
        me: usize,
        input: BiomatchInput,
    ) -> Result<BiomatchInputs, MixedProgramError> {
        let mut inputs = BiomatchInputs::none(parties, vectors)?;
        inputs.set(me, input)?;
        Ok(inputs)
    }

    /// No input known yet (enough for the cost backend) for a database of `vectors`;
    /// [`BiomatchInputs::set`] adds them.
    pub fn none(parties: usize, vectors: usize) -> Result<BiomatchInputs, MixedProgramError> {
        check_size(parties, vectors)?;
        Ok(BiomatchInputs {
            parties,
            vectors,
            query: None,
            shards: vec![None; parties],
        })
    }

    /// The parties of the run.
    pub fn parties(&self) -> usize {
        self.parties
    }

    /// N, the vectors of the database.
    pub fn vectors(&self) -> usize {
        self.vectors
    }

    /// Sets party `party`'s input, checked against its role ([`check_input`]).
    pub fn set(&mut self, party: usize, input: BiomatchInput) -> Result<(), MixedProgramError> {
        check_input(&input, party, self.parties, self.vectors)?;
        match input {
            BiomatchInput::Query(q) => self.query = Some(q),
            BiomatchInput::Database(v) => self.shards[party] = Some(v),
        }
        Ok(())
    }
}

/// The most parties: party 0 and one per database vector, at [`MAX_VECTORS`].
pub const MAX_PARTIES: usize = MAX_VECTORS + 1;

/// Checks the database size (1 to [`MAX_VECTORS`]) and the parties (2 to N + 1, so that
/// every party past 0 holds a vector).
fn check_size(parties: usize, vectors: usize) -> Result<(), MixedProgramError> {
    if !(1..=MAX_VECTORS).contains(&vectors) {
        return Err(MixedProgramError::Input(format!(
            "the Biomatch database holds 1 to {MAX_VECTORS} vectors, not {vectors}"
        )));
    }
    if !(2..=vectors + 1).contains(&parties) {
        return Err(MixedProgramError::Input(format!(
            "Biomatch of {vectors} vectors runs among 2 to {} parties, not {parties}",
            vectors + 1
        )));
    }
    Ok(())
}

/// The database indices party `party` (≥ 1) of `parties` holds in a database of
/// `vectors`: j with j mod (n − 1) = party − 1, ascending.
pub fn vectors_of(party: usize, parties: usize, vectors: usize) -> Vec<usize> {
    if party == 0 || parties < 2 {
        return Vec::new();
    }
    (party - 1..vectors).step_by(parties - 1).collect()
}

/// The clear model: the minimum squared distance and its lowest index, straight from the
/// definition (`None` for an empty database).
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
/// a database of `vectors` elsewhere, every value below [`VALUE_LIMIT`].
pub fn check_input(
    input: &BiomatchInput,
    party: usize,
    parties: usize,
    vectors: usize,
) -> Result<(), MixedProgramError> {
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
            let want = vectors_of(party, parties, vectors).len();
            if v.len() != want {
                return bad(format!(
                    "party {party} of {parties} holds {want} of the {vectors} database vectors (indices {party}−1, +{}, …), not {}",
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

/// ANDs of the tournament over `count` values (count − 1 comparisons, whatever the
/// byes): per comparison, 32 for [a < b] and 40 for the selection of (distance, index).
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
    let vectors = inputs.vectors;
    b.phase("Biomatch: the encrypted query");
    // The distance ciphertext's slots: one per database value.
    let slots_used = vectors * DIMENSION;
    let query = b.private(0, slots_used, inputs.query.map(|q| q.repeat(vectors)))?;
    let enc_q = b.encrypt(&query)?;
    b.phase("Biomatch: the encrypted distances");
    let mut terms = Vec::with_capacity(n - 1);
    for i in 1..n {
        let slots: Vec<usize> = vectors_of(i, n, vectors)
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
        .map(|q| vec![q.iter().map(|v| v * v).sum::<u64>() % P; vectors]);
    let offset = b.private(0, vectors, offset)?;
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
/// first, of 1 to 2^[`INDEX_BITS`] lanes) and its lowest index, each as bit-position
/// vectors of one lane. Each round pairs lanes (2i, 2i + 1); an odd last lane has a bye.
/// Every lane stands for an ascending range of indices, left below right, so keeping the
/// left value unless the right one is smaller keeps the lowest index at the minimum.
fn minimum<B: MixedBackend, F: BitForm<B>>(
    b: &mut B,
    values: Vec<F::V>,
) -> Result<Halves<F::V>, MixedProgramError> {
    let count = values[0].lanes();
    if !(1..=1 << INDEX_BITS).contains(&count) {
        return Err(MixedProgramError::Input(format!(
            "the tournament takes 1 to {} values, not {count}",
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
        let lanes = value[0].lanes();
        let half = lanes / 2;
        let (even, odd): (Vec<usize>, Vec<usize>) = (
            (0..half).map(|i| 2 * i).collect(),
            (0..half).map(|i| 2 * i + 1).collect(),
        );
        // The odd last lane, if any, passes to the next round unchanged.
        let bye: Vec<usize> = (2 * half..lanes).collect();
        let mut split = |lanes: &[F::V], which: &[usize]| -> Result<Vec<F::V>, MixedProgramError> {
            lanes.iter().map(|l| F::gather(b, l, which)).collect()
        };
        let (vl, vr, vbye) = (split(&value, &even)?, split(&value, &odd)?, split(&value, &bye)?);
        let (il, ir, ibye) = (split(&index, &even)?, split(&index, &odd)?, split(&index, &bye)?);
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
        let mut select =
            |left: &[F::V], byes: &[F::V], offset: usize| -> Result<Vec<F::V>, MixedProgramError> {
                left.iter()
                    .zip(byes)
                    .enumerate()
                    .map(|(bit, (l, passed))| {
                        let lanes: Vec<usize> = ((offset + bit) * half..(offset + bit + 1) * half).collect();
                        let part = F::gather(b, &picked, &lanes)?;
                        let won = F::xor(b, l, &part)?;
                        Ok(F::concat(b, &[won, passed.clone()]))
                    })
                    .collect()
            };
        let (new_value, new_index) = (select(&vl, &vbye, 0)?, select(&il, &ibye, w)?);
        // The round's dead wires (the paired halves, gathered from the old vectors, not
        // the bye, and the selection's): freed where the form keeps wire state (Y).
        for dead in vl.iter().chain(&vr).chain(&il).chain(&ir).chain(&diffs) {
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
        for (n, vectors) in [
            (2, VECTORS),
            (3, VECTORS),
            (5, VECTORS),
            (16, VECTORS),
            (3, 2),
            (4, 5),
            (2, 1),
        ] {
            let mut all: Vec<usize> = (1..n).flat_map(|i| vectors_of(i, n, vectors)).collect();
            all.sort_unstable();
            assert_eq!(all, (0..vectors).collect::<Vec<_>>());
            assert!(vectors_of(0, n, vectors).is_empty());
        }
        assert_eq!(vectors_of(2, 4, VECTORS)[..3], [1, 4, 7]);
        assert_eq!(vectors_of(2, 4, 5), [1, 4]);
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
        let check = |input: &BiomatchInput, party, parties| check_input(input, party, parties, VECTORS);
        assert!(check(&BiomatchInput::Query([1, 2, 3, 4]), 0, 3).is_ok());
        let e = check(&BiomatchInput::Query([1, 2, 3, VALUE_LIMIT]), 0, 3).unwrap_err();
        assert!(e.to_string().contains("below 16384"), "{e}");
        let e = check(&BiomatchInput::Database(vec![[0; 4]; 3]), 1, 3).unwrap_err();
        assert!(
            e.to_string().contains("holds 128 of the 256 database vectors"),
            "{e}"
        );
        assert!(check(&BiomatchInput::Database(vec![[0; 4]; 128]), 2, 3).is_ok());
        assert!(check(&BiomatchInput::Query([0; 4]), 1, 3).is_err());
        assert!(check(&BiomatchInput::Database(vec![]), 0, 3).is_err());
        let e = check(&BiomatchInput::Query([0; 4]), 3, 3).unwrap_err();
        assert!(e.to_string().contains("no party 3 among 3"), "{e}");
        assert!(BiomatchInputs::clear(1, [0; 4], &[[0; 4]; VECTORS]).is_err());
    }

    #[test]
    fn the_database_size_is_checked_and_bounds_the_parties() {
        // Of 5 vectors among 3 parties, party 1 holds 3 (0, 2, 4), party 2 holds 2 (1, 3).
        let e = check_input(&BiomatchInput::Database(vec![[0; 4]; 2]), 1, 3, 5).unwrap_err();
        assert!(e.to_string().contains("holds 3 of the 5 database vectors"), "{e}");
        assert!(check_input(&BiomatchInput::Database(vec![[0; 4]; 2]), 2, 3, 5).is_ok());
        for vectors in [0, MAX_VECTORS + 1] {
            let e = BiomatchInputs::none(2, vectors).unwrap_err();
            assert!(
                e.to_string()
                    .contains(&format!("1 to 256 vectors, not {vectors}")),
                "{e}"
            );
        }
        let e = BiomatchInputs::clear(3, [0; 4], &[]).unwrap_err();
        assert!(e.to_string().contains("1 to 256 vectors, not 0"), "{e}");
        let e = BiomatchInputs::none(4, 2).unwrap_err();
        assert!(
            e.to_string()
                .contains("2 vectors runs among 2 to 3 parties, not 4"),
            "{e}"
        );
        assert!(BiomatchInputs::none(3, 2).is_ok());
        assert!(BiomatchInputs::none(MAX_PARTIES, MAX_VECTORS).is_ok());
        let inputs = BiomatchInputs::clear(2, [0; 4], &[[1; 4]; 7]).unwrap();
        assert_eq!((inputs.parties(), inputs.vectors()), (2, 7));
    }
}
