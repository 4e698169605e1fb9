//! A2B: additive shares mod p to XOR shares of the value's 32 bits (seed §5.2, Figure 10),
//! for the seed's p = 2^31 + 2^30 + 1.
//!
//! 1. Random r < p, XOR-shared bit by bit (Figure 10 steps 1 and 3 with §5.2's shortcut for
//!    this p): every party samples 32 random bits per candidate; r ≥ p exactly when
//!    r[31] ∧ r[30] ∧ (r[0..30] ≠ 0). That bit is computed on XOR shares and opened, and the
//!    candidates with r ≥ p are dropped: the bit says nothing about a kept r, which is
//!    uniform in [0, p). [`candidates_for`] draws enough candidates that a second round is
//!    needed with probability ≤ 2^−20 (Hoeffding's bound), so the bytes are the same from
//!    run to run.
//! 2. B2A of r ([`crate::b2a::b2a`], Figure 9; step 2).
//! 3. u = x − r mod p is opened to every party, chain-aggregated (step 4; the figure opens it
//!    to P_1 only, but u is uniform and independent of x, so opening it to all reveals no
//!    more).
//! 4. A Boolean mod-p adder on u (public) and r (XOR-shared) (step 5): s = u + r in 33 bits,
//!    t = s + (2^33 − p) mod 2^33, whose carry out c says s ≥ p; the output is s ⊕ c·(t ⊕ s).
//!    Each full adder costs one AND: carry' = c ⊕ ((a ⊕ c) ∧ (b ⊕ c)); the first position of
//!    each sum needs none (its carry in is 0 and one addend public). The two ripples run in
//!    lockstep: bit j of s is final once s's carry into j is, so t's carry out of j is
//!    computed in the same AND layer as s's carry out of j, and both go in one opening.
//!    33 AND layers (31 with two carries, one with t's last, one for the selection) instead
//!    of 66 one after the other; 31 + 32 + 32 = 95 ANDs.
//!
//! The ANDs use GMW with Boolean Beaver triples (a deviation from the seed, which evaluates
//! the adder with its own lookup tables): from threshold HE
//! ([`ThresholdKeys::boolean_triples`], per-party traffic constant in n) where their noise
//! fits (n ≤ 16, [`crate::bool_triples::he_triples_fit`]), else from
//! `mixgc_nparty::Correlations` (OT extension between every pair, linear in n per party).
//! The openings of d = x ⊕ a, e = y ⊕ b are chain-aggregated ([`crate::lut`]), constant per
//! party.

use fhe_rand::{CryptoRng, Rng, RngCore};
use mixgc_core::Block;
use mixgc_nparty::{Correlations, Mesh, Triples};
use rand::SeedableRng;

use crate::b2a::b2a;
use crate::bool_triples::he_triples_fit;
use crate::chain::{sum_to_all, sum_to_root};
use crate::keygen::malformed;
use crate::lut::open_bits;
use crate::{MixedError, ThresholdKeys, PLAINTEXT_MODULUS as P};
use mixgc_net::Tag;

/// The bits of a value mod p.
const WIDTH: usize = 32;

/// The bits of a value mod p, as A2B outputs them.
pub const WIDTH_BITS: u32 = WIDTH as u32;

/// ANDs the mod-p adder of one A2B costs: 31 (u + r's carries into bits 2..=32), 32
/// (t = s + 2^33 − p's carries into bits 2..=33) and 32 (the selection).
pub const ANDS_PER_A2B: usize = 3 * WIDTH - 1;

/// AND layers of the mod-p adder, after the opening of x − r: the lockstep ripples end with
/// t's carry out (layer 32), then the selection.
pub const ADDER_LAYERS: usize = WIDTH + 1;

/// ANDs of the r < p check per candidate: 29 for ¬r[0] ∧ … ∧ ¬r[29], 2 more with r[31], r[30].
const CHECK_ANDS: usize = 31;

/// How many uniform 32-bit candidates to draw so that at least `count` are below p except
/// with probability ≤ 2^−20.
///
/// A candidate is kept (r < p) with probability q = p/2^32 = 3/4 + 2^−32 ≥ 3/4,
/// independently, so the number kept K of L candidates is Binomial(L, q) with mean ≥ 3L/4.
/// Hoeffding's inequality gives P(K ≤ 3L/4 − t) ≤ exp(−2t²/L); with t = 3L/4 − count
/// (> 0), P(K < count) ≤ exp(−2t²/L) ≤ 2^−20 once 2t²/L ≥ 20·ln 2, i.e. (3L − 4·count)² ≥
/// 8·20·ln 2·L = 110.9035…·L. This returns the least such L, checked in integers with
/// 110.9036 (rounded up, so the bound only gets safer) and the same at every party. The
/// margin is about √(110.9·L)/3: 36 % more than 4/3·count at 100 values, 14 % at 512,
/// 2.4 % at 16384 (the exact binomial tail is then ≈ 2^−29, unit test).
pub fn candidates_for(count: usize) -> usize {
    if count == 0 {
        return 0;
    }
    let fits = |lanes: usize| {
        let (lanes, count) = (lanes as u128, count as u128);
        3 * lanes > 4 * count && (3 * lanes - 4 * count).pow(2) * 10_000 >= 1_109_036 * lanes
    };
    let mut lanes = (4 * count).div_ceil(3);
    while !fits(lanes) {
        lanes += 1;
    }
    lanes
}

/// This party's side of the Boolean engine A2B runs its adder on: pairwise OT extensions
/// for Beaver triples (set up once per session), and triples made ahead of use.
pub struct BooleanEngine {
    correlations: Correlations,
    rng: mixgc_core::Rng,
    /// Triples made by [`BooleanEngine::stock`]; `stock.a[used..]` are still unused.
    stock: Triples,
    used: usize,
}

impl std::fmt::Debug for BooleanEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BooleanEngine").finish_non_exhaustive()
    }
}

/// XOR shares of one bit per lane (each 0 or 1).
type Bits = Vec<u8>;

impl BooleanEngine {
    /// Runs the base OTs with every peer (every party calls it at once; `session` the same
    /// at every party).
    pub fn setup<R: RngCore + CryptoRng>(
        mesh: &mut Mesh,
        session: &[u8; 32],
        rng: &mut R,
    ) -> Result<Self, MixedError> {
        let mut seed = [0u8; 32];
        rng.fill_bytes(&mut seed);
        let mut core_rng = mixgc_core::Rng::from_seed(seed);
        let delta = Block::random(&mut core_rng);
        let correlations = Correlations::setup(mesh, session, delta, &mut core_rng)?;
        Ok(BooleanEngine {
            correlations,
            rng: core_rng,
            stock: Triples::default(),
            used: 0,
        })
    }

    /// `count` fresh Boolean Beaver triples (pairwise OT extension with every peer; every
    /// party calls it at once).
    pub fn triples(&mut self, mesh: &mut Mesh, count: usize) -> Result<Triples, MixedError> {
        Ok(self.correlations.triples(mesh, count, &mut self.rng)?)
    }

    /// Makes `count` triples now (the offline phase) for later ANDs, which use the stock
    /// first. Every party calls it at once with the same count.
    pub fn stock(&mut self, mesh: &mut Mesh, count: usize) -> Result<(), MixedError> {
        let fresh = self.triples(mesh, count)?;
        self.stock_triples(fresh);
        Ok(())
    }

    /// Adds triples made elsewhere (e.g. [`ThresholdKeys::boolean_triples`], from threshold
    /// HE) to the stock. Every party adds its shares of the same triples at once.
    pub fn stock_triples(&mut self, fresh: Triples) {
        let used = std::mem::take(&mut self.used);
        for (kept, new) in [
            (&mut self.stock.a, fresh.a),
            (&mut self.stock.b, fresh.b),
            (&mut self.stock.c, fresh.c),
        ] {
            kept.drain(..used);
            kept.extend(new);
        }
    }

    /// Triples in stock, not yet used.
    pub fn stocked(&self) -> usize {
        self.stock.a.len() - self.used
    }

    /// `k` triples: from the stock if it holds `k`, else made now. The parties make the same
    /// calls in the same order, so they agree on which.
    fn take(&mut self, mesh: &mut Mesh, k: usize) -> Result<Triples, MixedError> {
        if self.stocked() < k {
            return self.triples(mesh, k);
        }
        let range = self.used..self.used + k;
        self.used += k;
        Ok(Triples {
            a: self.stock.a[range.clone()].to_vec(),
            b: self.stock.b[range.clone()].to_vec(),
            c: self.stock.c[range].to_vec(),
        })
    }

    /// x ∧ y lane-wise on XOR shares (each 0 or 1; GMW: open d = x ⊕ a, e = y ⊕ b;
    /// z = c ⊕ d·b ⊕ e·a, ⊕ d·e at party 0). Every party calls it at once with as many lanes.
    pub fn and(&mut self, mesh: &mut Mesh, x: &[u8], y: &[u8]) -> Result<Bits, MixedError> {
        let k = x.len();
        if y.len() != k {
            return Err(MixedError::Usage(format!(
                "AND of {k} lanes with {} lanes",
                y.len()
            )));
        }
        if k == 0 {
            return Ok(Vec::new());
        }
        let t = self.take(mesh, k)?;
        let mine: Bits = (0..k)
            .map(|j| x[j] ^ u8::from(t.a[j]))
            .chain((0..k).map(|j| y[j] ^ u8::from(t.b[j])))
            .collect();
        let de = open_bits(mesh, mine)?;
        let first = mesh.me() == 0;
        Ok((0..k)
            .map(|j| {
                let (d, e) = (de[j], de[k + j]);
                u8::from(t.c[j]) ^ (d & u8::from(t.b[j])) ^ (e & u8::from(t.a[j])) ^ (d & e & u8::from(first))
            })
            .collect())
    }

    /// The AND of all `terms` (each a lane vector of equal length), as a balanced tree.
    fn and_all(&mut self, mesh: &mut Mesh, mut terms: Vec<Bits>) -> Result<Bits, MixedError> {
        while terms.len() > 1 {
            let k = terms[0].len();
            let pairs = terms.len() / 2;
            let left: Bits = terms[..pairs].concat();
            let right: Bits = terms[pairs..2 * pairs].concat();
            let product = self.and(mesh, &left, &right)?;
            let mut next: Vec<Bits> = product.chunks(k.max(1)).map(<[u8]>::to_vec).collect();
            next.truncate(pairs);
            if terms.len() % 2 == 1 {
                next.push(terms.pop().unwrap_or_default());
            }
            terms = next;
        }
        Ok(terms.pop().unwrap_or_default())
    }
}

pub(crate) fn xor(a: &[u8], b: &[u8]) -> Bits {
    a.iter().zip(b).map(|(x, y)| x ^ y).collect()
}

fn xor3(a: &[u8], b: &[u8], c: &[u8]) -> Bits {
    a.iter().zip(b).zip(c).map(|((x, y), z)| x ^ y ^ z).collect()
}

/// A public constant's bits as XOR shares: party 0 holds them, the others zeros.
pub(crate) fn public_bits(me: usize, value: impl Fn(usize) -> u8, lanes: usize) -> Bits {
    (0..lanes).map(|i| if me == 0 { value(i) } else { 0 }).collect()
}

/// NOT on XOR shares: party 0 flips its share.
pub(crate) fn not(me: usize, a: &[u8]) -> Bits {
    a.iter().map(|x| x ^ u8::from(me == 0)).collect()
}

/// `count` XOR-shared uniform r < p, as 32 bit-position lane vectors (§5.2 shortcut).
fn random_below_p<R: RngCore + CryptoRng>(
    engine: &mut BooleanEngine,
    mesh: &mut Mesh,
    count: usize,
    he: Option<&ThresholdKeys>,
    rng: &mut R,
) -> Result<Vec<Bits>, MixedError> {
    let me = mesh.me();
    let mut kept: Vec<Bits> = (0..WIDTH).map(|_| Vec::with_capacity(count)).collect();
    let mut round = 0;
    while kept[0].len() < count {
        // A candidate is rejected with probability ≈ 1/4: draw enough that another round
        // follows with probability ≤ 2^−20 ([`candidates_for`]).
        let need = count - kept[0].len();
        let lanes = candidates_for(need);
        // The first round's triples come with the adder's (one HE run); later rounds (rare)
        // make their own.
        if let (Some(keys), true) = (he, round > 0) {
            engine.stock_triples(keys.boolean_triples(mesh, CHECK_ANDS * lanes, rng)?);
        }
        round += 1;
        let bits: Vec<Bits> = (0..WIDTH)
            .map(|_| (0..lanes).map(|_| rng.random_range(0..2u8)).collect())
            .collect();
        // r ≥ p ⇔ r[31] ∧ r[30] ∧ ¬(¬r[0] ∧ … ∧ ¬r[29]).
        let low_zero = engine.and_all(mesh, bits[..30].iter().map(|b| not(me, b)).collect())?;
        let too_big = engine.and_all(mesh, vec![bits[31].clone(), bits[30].clone(), not(me, &low_zero)])?;
        let opened = open_bits(mesh, too_big)?;
        for lane in (0..lanes).filter(|&l| opened[l] == 0).take(need) {
            for (j, k) in kept.iter_mut().enumerate() {
                k.push(bits[j][lane]);
            }
        }
    }
    Ok(kept)
}

/// Opens additive shares mod p along the chain: every party returns Σ `mine` mod p.
pub(crate) fn open_mod_p(mesh: &mut Mesh, mine: Vec<u64>) -> Result<Vec<u64>, MixedError> {
    let k = mine.len();
    sum_to_all(
        mesh,
        mine,
        move |m, from| recv_mod_p(m, from, k, "opened value"),
        add_mod_p,
        |v: &Vec<u64>| encode_mod_p(v),
    )
}

/// a + b mod p lane-wise.
fn add_mod_p(mut a: Vec<u64>, b: &Vec<u64>) -> Vec<u64> {
    a.iter_mut().zip(b).for_each(|(x, y)| *x = (*x + y) % P);
    a
}

/// Opens additive shares mod p along the chain to party `root` only: it returns
/// `Some(Σ mine mod p)`, every other party `None`.
pub(crate) fn open_mod_p_to(
    mesh: &mut Mesh,
    root: usize,
    mine: Vec<u64>,
) -> Result<Option<Vec<u64>>, MixedError> {
    sum_mod_p_to(mesh, root, mine, "opened value")
}

/// Additive shares mod p summed along the chain into party `root` (`Some(Σ mine mod p)`
/// there, `None` elsewhere); a received value not below p is a malformed `what`.
pub(crate) fn sum_mod_p_to(
    mesh: &mut Mesh,
    root: usize,
    mine: Vec<u64>,
    what: &'static str,
) -> Result<Option<Vec<u64>>, MixedError> {
    let k = mine.len();
    sum_to_root(
        mesh,
        root,
        mine,
        move |m, from| recv_mod_p(m, from, k, what),
        add_mod_p,
        |v: &Vec<u64>| encode_mod_p(v),
    )
}

/// `k` values mod p from party `from`, four bytes each, checked below p (else a malformed
/// `what`).
fn recv_mod_p(mesh: &mut Mesh, from: usize, k: usize, what: &'static str) -> Result<Vec<u64>, MixedError> {
    let bytes = mesh.recv_exact(from, Tag::Openings, 4 * k)?;
    let v: Vec<u64> = bytes
        .chunks_exact(4)
        .map(|c| u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
        .collect();
    match v.iter().position(|&x| x >= P) {
        Some(i) => Err(malformed(
            mesh,
            from,
            what,
            format!("value {i} is {}, not below p = {P}", v[i]),
        )),
        None => Ok(v),
    }
}

/// Values mod p, four little-endian bytes each.
fn encode_mod_p(v: &[u64]) -> Result<Vec<u8>, MixedError> {
    Ok(v.iter().flat_map(|&x| (x as u32).to_le_bytes()).collect())
}

/// What A2B prepares before its inputs are known (Figure 10 steps 1–3): XOR and additive
/// shares of `count` random r < p, and the adder's Boolean triples in the engine's stock.
#[derive(Debug)]
pub struct A2bPreprocessed {
    /// r's bits by position: `r[j][i]` is this party's share of bit j of r_i.
    r: Vec<Bits>,
    /// This party's additive shares mod p of the r_i.
    r_arith: Vec<u64>,
}

impl A2bPreprocessed {
    /// How many conversions this serves.
    pub fn len(&self) -> usize {
        self.r_arith.len()
    }

    pub fn is_empty(&self) -> bool {
        self.r_arith.is_empty()
    }
}

/// Offline A2B for `count` values: random r < p (XOR-shared, §5.2 shortcut), its B2A, and
/// [`ANDS_PER_A2B`]·`count` triples stocked in `engine`. Every party calls it at once.
pub fn a2b_preprocess<R: RngCore + CryptoRng>(
    keys: &ThresholdKeys,
    engine: &mut BooleanEngine,
    mesh: &mut Mesh,
    count: usize,
    rng: &mut R,
) -> Result<A2bPreprocessed, MixedError> {
    if count == 0 {
        return Ok(A2bPreprocessed {
            r: vec![Vec::new(); WIDTH],
            r_arith: Vec::new(),
        });
    }
    // Boolean triples from threshold HE (constant bytes per party in n) where their
    // products fit the noise budget, else pairwise OT extension.
    let he = he_triples_fit(mesh.parties()).then_some(keys);
    if let Some(keys) = he {
        mesh.set_phase("A2B: Boolean triples from HE");
        let lanes = candidates_for(count);
        let made = keys.boolean_triples(mesh, CHECK_ANDS * lanes + ANDS_PER_A2B * count, rng)?;
        engine.stock_triples(made);
    }
    mesh.set_phase("A2B: random r < p");
    let r = random_below_p(engine, mesh, count, he, rng)?;
    let r_values: Vec<u64> = (0..count)
        .map(|i| (0..WIDTH).fold(0u64, |acc, j| acc | (u64::from(r[j][i]) << j)))
        .collect();
    let r_arith = b2a(keys, mesh, &r_values, WIDTH as u32, rng)?;
    if he.is_none() {
        mesh.set_phase("A2B: the adder's triples");
        engine.stock(mesh, ANDS_PER_A2B * count)?;
    }
    Ok(A2bPreprocessed { r, r_arith })
}

/// Online A2B (Figure 10 steps 4–5) with `prep` from [`a2b_preprocess`] for exactly
/// `shares.len()` values: this party's additive shares mod p (each < p) in, its XOR shares
/// of the 32-bit values x = Σ shares mod p out. Every party calls it at once.
pub fn a2b_online(
    engine: &mut BooleanEngine,
    mesh: &mut Mesh,
    prep: A2bPreprocessed,
    shares: &[u64],
) -> Result<Vec<u64>, MixedError> {
    check_shares(shares)?;
    let k = shares.len();
    if prep.len() != k {
        return Err(MixedError::Usage(format!(
            "A2B of {k} values with preprocessing for {}",
            prep.len()
        )));
    }
    if k == 0 {
        return Ok(Vec::new());
    }
    let A2bPreprocessed { r, r_arith } = prep;
    mesh.set_phase("A2B: opening x − r");
    let mine: Vec<u64> = shares
        .iter()
        .zip(&r_arith)
        .map(|(x, r)| (x + P - r) % P)
        .collect();
    let u = open_mod_p(mesh, mine)?;

    mesh.set_phase("A2B: the mod-p adder");
    let s = mod_p_sum(engine, mesh, &u, &r)?;
    Ok((0..k)
        .map(|i| (0..WIDTH).fold(0u64, |acc, j| acc | (u64::from(s[j][i]) << j)))
        .collect())
}

/// XOR shares of the bits of (u + r) mod p, for public u < p and XOR-shared r < p (32
/// bit-position lane vectors), in [`ADDER_LAYERS`] AND layers and [`ANDS_PER_A2B`] ANDs per
/// lane (the module's step 4).
fn mod_p_sum(
    engine: &mut BooleanEngine,
    mesh: &mut Mesh,
    u: &[u64],
    r: &[Bits],
) -> Result<Vec<Bits>, MixedError> {
    let (me, k) = (mesh.me(), u.len());
    let u_bit = |j: usize| public_bits(me, |i| ((u[i] >> j) & 1) as u8, k);
    // t = s + minus_p mod 2^33; its carry out says s ≥ p.
    let minus_p = (1u64 << (WIDTH + 1)) - P;
    let m_bit = |j: usize| public_bits(me, |_| ((minus_p >> j) & 1) as u8, k);
    // Position 0 of each sum has carry in 0 and one public addend: its carry out is local
    // (a public bit times a share).
    let mut s: Vec<Bits> = vec![xor(&u_bit(0), &r[0])];
    let mut carry_s: Bits = (0..k).map(|i| r[0][i] & ((u[i] & 1) as u8)).collect();
    // t's carries into positions 0, 1, …: 0, then local as above.
    let mut carries_t: Vec<Bits> = vec![vec![0; k], s[0].iter().map(|b| b & (minus_p & 1) as u8).collect()];
    for j in 1..=WIDTH {
        // s[j] is final: its carry in is known.
        s.push(if j < WIDTH {
            xor3(&u_bit(j), &r[j], &carry_s)
        } else {
            carry_s.clone()
        });
        // One layer: t's carry out of j and (below the top) s's, each as
        // carry' = c ⊕ ((a ⊕ c) ∧ (b ⊕ c)).
        let carry_t = &carries_t[j];
        let mut left = xor(&s[j], carry_t);
        let mut right = xor(&m_bit(j), carry_t);
        if j < WIDTH {
            left.extend(xor(&u_bit(j), &carry_s));
            right.extend(xor(&r[j], &carry_s));
        }
        let g = engine.and(mesh, &left, &right)?;
        if j < WIDTH {
            carry_s = xor(&carry_s, &g[k..]);
        }
        carries_t.push(xor(carry_t, &g[..k]));
    }
    // out = s ⊕ c·(t ⊕ s) on the low 32 bits, all positions in one AND layer: c is t's carry
    // out (s ≥ p), and t_j ⊕ s_j = minus_p's bit j ⊕ t's carry into j.
    let at_least_p = &carries_t[WIDTH + 1];
    let diff: Bits = (0..WIDTH).flat_map(|j| xor(&m_bit(j), &carries_t[j])).collect();
    let c: Bits = (0..WIDTH).flat_map(|_| at_least_p.iter().copied()).collect();
    let picked = engine.and(mesh, &c, &diff)?;
    s.truncate(WIDTH);
    for (j, sj) in s.iter_mut().enumerate() {
        sj.iter_mut()
            .zip(&picked[j * k..(j + 1) * k])
            .for_each(|(a, b)| *a ^= b);
    }
    Ok(s)
}

/// A2B shares must each be below p.
fn check_shares(shares: &[u64]) -> Result<(), MixedError> {
    match shares.iter().position(|&v| v >= P) {
        Some(i) => Err(MixedError::Usage(format!(
            "A2B share {i} is {}, not below p = {P}",
            shares[i]
        ))),
        None => Ok(()),
    }
}

/// A2B (seed Figure 10): [`a2b_preprocess`] then [`a2b_online`]. This party's additive
/// shares mod p (each < p) in, its XOR shares of the 32-bit values x = Σ shares mod p out.
/// Every party calls it at once with as many values.
pub fn a2b<R: RngCore + CryptoRng>(
    keys: &ThresholdKeys,
    engine: &mut BooleanEngine,
    mesh: &mut Mesh,
    shares: &[u64],
    rng: &mut R,
) -> Result<Vec<u64>, MixedError> {
    check_shares(shares)?;
    let prep = a2b_preprocess(keys, engine, mesh, shares.len(), rng)?;
    a2b_online(engine, mesh, prep, shares)
}

#[cfg(test)]
mod tests {
    use super::*;
    use fhe_rand::SeedableRng;
    use fhe_rand_chacha::ChaCha20Rng;

    /// Each party's output of `mod_p_sum` on public `u` and r XOR-shared among `n` parties,
    /// with the bytes it sent and the triples left in its stock after stocking exactly
    /// [`ANDS_PER_A2B`] per lane.
    fn mod_p_sum_run(n: usize, u: &[u64], r: &[u64]) -> Vec<(Vec<Bits>, u64, usize)> {
        let k = u.len();
        let mut dealer = ChaCha20Rng::seed_from_u64(n as u64);
        // shares[party][j][i]: party's share of bit j of r_i; party 0 completes the XOR.
        let mut shares: Vec<Vec<Bits>> = (1..n)
            .map(|_| {
                (0..WIDTH)
                    .map(|_| (0..k).map(|_| dealer.random_range(0..2u8)).collect())
                    .collect()
            })
            .collect();
        let first = (0..WIDTH)
            .map(|j| {
                (0..k)
                    .map(|i| shares.iter().fold(((r[i] >> j) & 1) as u8, |a, s| a ^ s[j][i]))
                    .collect()
            })
            .collect();
        shares.insert(0, first);
        std::thread::scope(|scope| {
            let handles: Vec<_> = mixgc_nparty::memory_mesh(n)
                .into_iter()
                .zip(&shares)
                .map(|(mut mesh, mine)| {
                    scope.spawn(move || {
                        let mut rng = ChaCha20Rng::seed_from_u64(10 + mesh.me() as u64);
                        let mut engine = BooleanEngine::setup(&mut mesh, &[7; 32], &mut rng).unwrap();
                        engine.stock(&mut mesh, ANDS_PER_A2B * k).unwrap();
                        let sent = |m: &Mesh| m.bytes().iter().map(|b| b.0).sum::<u64>();
                        let before = sent(&mesh);
                        let out = mod_p_sum(&mut engine, &mut mesh, u, mine).unwrap();
                        (out, sent(&mesh) - before, engine.stocked())
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    #[test]
    fn the_mod_p_adder_matches_plaintext_in_its_layers_and_ands() {
        let q = P - 1;
        // Sums just below, at and above p, at 2p − 2, 0, and carries across every position.
        let mut pairs: Vec<(u64, u64)> = vec![
            (0, 0),
            (q, 0),
            (0, q),
            (q, 1),
            (1, q),
            (q, q),
            (P / 2, P - P / 2 - 1),
            (P / 2, P - P / 2),
            ((1 << 31) - 1, 1),
            ((1 << 32) - P + 5, (1 << 31) + (1 << 30) - 6),
            (1 << 30, (1 << 31) + 1),
            (1 << 30, 1 << 31),
        ];
        let mut data = ChaCha20Rng::seed_from_u64(99);
        pairs.extend((0..52).map(|_| (data.random_range(0..P), data.random_range(0..P))));
        let (u, r): (Vec<u64>, Vec<u64>) = pairs.into_iter().unzip();
        let k = u.len();
        for n in [2, 3, 5] {
            let got = mod_p_sum_run(n, &u, &r);
            for i in 0..k {
                let x = (0..WIDTH).fold(0u64, |acc, j| {
                    acc | (u64::from(got.iter().fold(0, |a, g| a ^ g.0[j][i])) << j)
                });
                assert_eq!(x, (u[i] + r[i]) % P, "n = {n}: {} + {}", u[i], r[i]);
            }
            assert!(
                got.iter().all(|g| g.2 == 0),
                "n = {n}: not exactly ANDS_PER_A2B per lane"
            );
        }
        // At n = 2 each AND layer is one frame (5 bytes of header, d and e packed) each way:
        // 31 layers with both carries, t's last carry, then the selection.
        let layer = |ands: usize| 5 + (2 * ands).div_ceil(8) as u64;
        let expected = (WIDTH as u64 - 1) * layer(2 * k) + layer(k) + layer(WIDTH * k);
        assert_eq!(ADDER_LAYERS, WIDTH + 1);
        for g in mod_p_sum_run(2, &u, &r) {
            assert_eq!(g.1, expected, "bytes sent by the adder at n = 2");
        }
    }

    /// log2 of P(Binomial(lanes, p/2^32) < count), summed exactly in log space.
    fn log2_shortfall(lanes: usize, count: usize) -> f64 {
        let q = P as f64 / 2f64.powi(32);
        let (ln_q, ln_1q) = (q.ln(), (1.0 - q).ln());
        // ln C(lanes, k), updated as k grows.
        let mut ln_choose = 0.0;
        let terms: Vec<f64> = (0..count)
            .map(|k| {
                if k > 0 {
                    ln_choose += ((lanes - k + 1) as f64).ln() - (k as f64).ln();
                }
                ln_choose + k as f64 * ln_q + (lanes - k) as f64 * ln_1q
            })
            .collect();
        let top = terms.iter().copied().fold(f64::MIN, f64::max);
        (top + terms.iter().map(|t| (t - top).exp()).sum::<f64>().ln()) / std::f64::consts::LN_2
    }

    #[test]
    fn enough_candidates_that_a_second_round_is_rarer_than_2_to_the_minus_20() {
        assert_eq!(candidates_for(0), 0);
        for count in [1, 2, 8, 100, 512, 1000, 16384] {
            let lanes = candidates_for(count);
            let tail = log2_shortfall(lanes, count);
            assert!(tail <= -20.0, "count {count}: {lanes} candidates, 2^{tail}");
            // The least such count by Hoeffding's bound: one fewer fails it.
            let hoeffding = |l: usize| {
                let t = 0.75 * l as f64 - count as f64;
                t > 0.0 && 2.0 * t * t / l as f64 >= 20.0 * std::f64::consts::LN_2
            };
            assert!(
                hoeffding(lanes) && !hoeffding(lanes - 1),
                "count {count}: {lanes}"
            );
        }
        assert_eq!(candidates_for(512), 781);
    }
}
