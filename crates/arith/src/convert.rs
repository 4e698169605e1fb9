//! Boolean ↔ arithmetic conversions (ABLE §3.2, Figures 2–3; Li–Liu EUROCRYPT 2024), with
//! row reduction and the free low bits of [`crate::ring`] labels.
//!
//! - mod-2^k bit composition ([`ArithGarbler::compose_bits`]): b Boolean labels → one ring
//!   label of Σ w_j·x_j mod 2^k. Each bit is *lifted* to a ring label mod 2^m, m = k −
//!   tz(w_j) (w_j·Z mod 2^k only depends on Z mod 2^m), with one row-reduced ciphertext
//!   whose low digit bits need not be sent: m − 1 rows per bit, against ABLE's k. The
//!   plain composition (w_j = 2^j, k = b) costs b(b − 1)/2 rows.
//! - mod-2^k bit decomposition ([`ArithGarbler::bit_decompose`]): bit i of x is the slice i
//!   of A − Σ_{j<i} 2^j·X_j, where X_j is bit j lifted mod 2^(k−j): the Boolean labels are
//!   free slices and only the lifts cost, k(k − 1)/2 rows against ABLE's (k² + 3k − 2)/2.
//! - CRT bit composition ([`ArithGarbler::crt_compose`]): x mod p = Σ 2^j·x_j mod p, one
//!   row-reduced projection Z_2 → Z_p (1 row) per bit and odd prime; x mod 2 is bit 0.
//! - CRT bit decomposition ([`ArithGarbler::crt_decompose`], ABLE Fig. 2): each residue
//!   x_i goes to the bits of t_i = x_i·(N/p_i)^{-1} mod p_i by projections Z_p → Z_2
//!   ((p_i − 1) rows per bit); a weighted composition gives S = Σ t_i·(N/p_i) < Σ (p_i − 1)
//!   N/p_i mod 2^k (no wrap: 2^k > S), S ≡ x (mod N); a bit decomposition gives S's bits
//!   and a Boolean circuit subtracts 2^j·N where S ≥ 2^j·N, for j = ⌊log2 q_max⌋ … 0
//!   (q_max = ⌊S_max/N⌋ < number of primes), leaving x = S mod N in bitlen(N − 1) bits.
//!   ABLE reduces mod N with further mod-2^k gadgets; the Boolean comparison costs two
//!   AND gates (4 rows) per bit and step instead.
//!
//! Row counts are those of [`ArithGarbler::table_rows`]; [`crate::cost`] pins them next to
//! ABLE's Table 1.

use mixgc_core::Block;

use crate::codec::TableReader;
use crate::ring::{check_bits, RingLabel};
use crate::side::{Bit, EvalSide, GarbleSide, Side, Term};
use crate::{ArithError, ArithEvaluator, ArithGarbler, CrtBundle, Label, PrimeSet};

/// 2^bits − 1 for bits in 1..=128.
fn mask(bits: u32) -> u128 {
    u128::MAX >> (128 - bits)
}

/// The number of bits of `v` (0 for 0).
fn bit_len(v: u128) -> u32 {
    u128::BITS - v.leading_zeros()
}

/// Σ w_j·x_j mod 2^k from Boolean labels of the x_j.
fn compose<S: Side>(side: &mut S, bits: &[Block], weights: &[u128], k: u32) -> Result<RingLabel, ArithError> {
    check_bits(k)?;
    if bits.len() != weights.len() {
        return Err(ArithError::Conversion(format!(
            "{} bits but {} weights",
            bits.len(),
            weights.len()
        )));
    }
    let mut sum = RingLabel::zero(k);
    for (&bit, &weight) in bits.iter().zip(weights) {
        let weight = weight & mask(k);
        if weight == 0 {
            continue;
        }
        let shift = weight.trailing_zeros();
        let lifted = side.lift(bit, k - shift)?;
        sum.add_shifted_assign(&lifted, weight >> shift, shift);
    }
    Ok(sum)
}

/// The Boolean labels of the low `count` bits of the value of `a`.
fn decompose<S: Side>(side: &mut S, a: &RingLabel, count: u32) -> Result<Vec<Block>, ArithError> {
    if count == 0 || count > a.bits() {
        return Err(ArithError::Conversion(format!(
            "cannot take {count} bits of a value mod 2^{}",
            a.bits()
        )));
    }
    // Bits above `count` never influence the low ones.
    let k = count;
    let mut rest = a.truncate(k)?;
    let mut out = Vec::with_capacity(k as usize);
    for i in 0..k {
        // rest carries x − (x mod 2^i), a multiple of 2^i: its slice i is bit i.
        let bit = rest.slice(i);
        out.push(bit);
        if i + 1 < k {
            let lifted = side.lift(bit, k - i)?;
            rest.add_shifted_assign(&lifted, u128::MAX, i);
        }
    }
    Ok(out)
}

/// A CRT bit composition needs at least one bit.
pub(crate) fn check_compose_bits(count: usize) -> Result<(), ArithError> {
    match count {
        0 => Err(ArithError::Conversion("no bits to compose".into())),
        _ => Ok(()),
    }
}

/// x mod p_i for every prime of `set`, from the Boolean labels of x's bits (LSB first).
fn crt_compose<S: Side>(side: &mut S, bits: &[Block], set: &PrimeSet) -> Result<CrtBundle, ArithError> {
    check_compose_bits(bits.len())?;
    compose_residues(side, set, &vec![bits; set.moduli().len()])
}

/// The bundle over `set` whose residue mod p_i is Σ_j 2^j·b_j from the Boolean labels
/// `residue_bits[i]` of its bits (LSB first; not empty): the compositions of all odd primes
/// in one [`Side::compose_powers`], so they share AES batches; a mod-2 residue is the label
/// of its lowest bit (the others vanish mod 2). Used by BC and by evaluator-owned CRT inputs
/// ([`crate::inputs`]).
pub(crate) fn compose_residues<S: Side>(
    side: &mut S,
    set: &PrimeSet,
    residue_bits: &[&[Block]],
) -> Result<CrtBundle, ArithError> {
    let residues = || set.moduli().iter().zip(residue_bits);
    let terms: Vec<Term> = residues()
        .filter(|(m, _)| !m.is_boolean())
        .map(|(&m, &bits)| (bits, m))
        .collect();
    let mut composed = side.compose_powers(&terms)?.into_iter();
    let wires = residues().map(|(m, bits)| match m.is_boolean() {
        true => Label::from_block(bits[0]),
        false => composed.next().expect("one composition per odd prime"),
    });
    CrtBundle::new(set, wires.collect())
}

/// The composition plan of a CRT bit decomposition: for each residue bit, its weight
/// 2^j·N/p_i; and S_max, the largest composed sum.
struct CrtSum {
    weights: Vec<u128>,
    max: u128,
}

impl CrtSum {
    fn new(set: &PrimeSet) -> Result<CrtSum, ArithError> {
        let n = set.product();
        let too_wide = || ArithError::Conversion(format!("the CRT sum for N = {n} needs more than 128 bits"));
        let mut max = 0u128;
        let mut weights = Vec::new();
        for &p in set.primes() {
            let cofactor = n / p as u128;
            let term = cofactor.checked_mul(p as u128 - 1).ok_or_else(too_wide)?;
            max = max.checked_add(term).ok_or_else(too_wide)?;
            // 2^j ≤ p − 1 for every bit j of a residue, so the weights are at most `term`.
            weights.extend((0..bit_len(p as u128 - 1)).map(|j| cofactor << j));
        }
        Ok(CrtSum { weights, max })
    }
}

/// The bits of t_i = x_i·(N/p_i)^{-1} mod p_i, for every wire of `bundle`, in the order of
/// [`CrtSum`]'s weights.
fn residue_bits<S: Side>(side: &mut S, bundle: &CrtBundle) -> Result<Vec<Block>, ArithError> {
    let set = bundle.set();
    let mut bits = Vec::new();
    for (wire, &m) in bundle.wires().iter().zip(set.moduli()) {
        if m.is_boolean() {
            bits.push(wire.to_block()?);
            continue;
        }
        let p = m.value() as u64;
        let cofactor = (set.product() / p as u128 % p as u128) as u64;
        let inverse = m
            .inverse(cofactor)
            .ok_or_else(|| ArithError::InvalidPrimeSet(format!("N/{p} is not invertible mod {p}")))?;
        for j in 0..bit_len(p as u128 - 1) {
            let table: Vec<u64> = (0..p).map(|x| (m.mul(x, inverse) >> j) & 1).collect();
            bits.push(side.project_to_bit(wire, &table)?);
        }
    }
    Ok(bits)
}

/// The Boolean labels of x ∈ Z_N (bitlen(N − 1) bits, LSB first) from its CRT bundle.
pub(crate) fn crt_decompose<S: Side>(side: &mut S, bundle: &CrtBundle) -> Result<Vec<Block>, ArithError> {
    let plan = CrtSum::new(bundle.set())?;
    let bits = residue_bits(side, bundle)?;
    let k = bit_len(plan.max);
    let sum = compose(side, &bits, &plan.weights, k)?;
    let sum_bits = decompose(side, &sum, k)?;
    reduce_mod(side, sum_bits, bundle.set().product(), plan.max)
}

/// s mod n for the Boolean labels of s ≤ s_max: conditional subtractions of 2^j·n, largest
/// j first, each leaving s < 2^j·n.
fn reduce_mod<S: Side>(
    side: &mut S,
    mut s: Vec<Block>,
    n: u128,
    s_max: u128,
) -> Result<Vec<Block>, ArithError> {
    for j in (0..bit_len(s_max / n)).rev() {
        let c = n << j; // ≤ (s_max / n)·n ≤ s_max: no overflow
        s = subtract_if_at_least(side, &s, c)?;
        s.truncate(bit_len(c - 1) as usize);
    }
    s.truncate(bit_len(n - 1).max(1) as usize);
    Ok(s)
}

/// s − c if s ≥ c, else s, for a public c < 2^len(s). One borrow chain of s − c (an AND per
/// bit once the borrow is no longer constant) and one multiplexer AND per bit where s and
/// s − c can differ.
fn subtract_if_at_least<S: Side>(side: &mut S, s: &[Block], c: u128) -> Result<Vec<Block>, ArithError> {
    let mut borrow = Bit::Const(false);
    let mut differs = Vec::with_capacity(s.len()); // (s − c)_i ⊕ s_i = c_i ⊕ borrow_i
    for (i, &s_i) in s.iter().enumerate() {
        let c_i = (c >> i) & 1 == 1;
        differs.push(borrow.xor_const(c_i, side));
        let s_i = Bit::Wire(s_i);
        borrow = if c_i {
            // borrow out of s_i − 1 − b: ¬s_i ∨ b = ¬(s_i ∧ ¬b)
            s_i.and(borrow.not(side), side)?.not(side)
        } else {
            // borrow out of s_i − b: ¬s_i ∧ b
            s_i.not(side).and(borrow, side)?
        };
    }
    let at_least = borrow.not(side);
    s.iter()
        .zip(differs)
        .map(|(&s_i, d)| Ok(at_least.and(d, side)?.xor_into(s_i, side)))
        .collect()
}

impl ArithGarbler {
    /// Weighted mod-2^k bit composition: the zero-label of Σ w_j·x_j mod 2^`k` from the
    /// Boolean zero-labels `bits` of the x_j (any weights; 2^j gives the plain composition).
    /// Appends one row of m_j − 1 bits per bit, m_j = k − tz(w_j mod 2^k).
    pub fn compose_bits(
        &mut self,
        bits: &[Block],
        weights: &[u128],
        k: u32,
        rows: &mut Vec<u8>,
    ) -> Result<RingLabel, ArithError> {
        compose(&mut GarbleSide::new(self, rows)?, bits, weights, k)
    }

    /// mod-2^k bit decomposition: the Boolean zero-labels of the low `count` bits of the
    /// ring wire with zero-label `a0` (count(count − 1)/2 rows).
    pub fn bit_decompose(
        &mut self,
        a0: &RingLabel,
        count: u32,
        rows: &mut Vec<u8>,
    ) -> Result<Vec<Block>, ArithError> {
        decompose(&mut GarbleSide::new(self, rows)?, a0, count)
    }

    /// CRT bit composition: the bundle over `set` of x = Σ 2^j·x_j (taken mod N) from the
    /// Boolean zero-labels `bits` of x, LSB first; one row per bit and odd prime.
    pub fn crt_compose(
        &mut self,
        bits: &[Block],
        set: &PrimeSet,
        rows: &mut Vec<u8>,
    ) -> Result<CrtBundle, ArithError> {
        crt_compose(&mut GarbleSide::new(self, rows)?, bits, set)
    }

    /// CRT bit decomposition: the Boolean zero-labels of the bits of x ∈ Z_N (bitlen(N − 1)
    /// of them, LSB first) from the bundle with zero-labels `a0`.
    pub fn crt_decompose(&mut self, a0: &CrtBundle, rows: &mut Vec<u8>) -> Result<Vec<Block>, ArithError> {
        crt_decompose(&mut GarbleSide::new(self, rows)?, a0)
    }

    /// What the evaluator needs to decode a ring wire with zero-label `zero`: its colour.
    pub fn ring_decoding(zero: &RingLabel) -> u128 {
        zero.colour()
    }
}

impl ArithEvaluator {
    /// Evaluates [`ArithGarbler::compose_bits`] on active labels.
    pub fn compose_bits(
        &mut self,
        bits: &[Block],
        weights: &[u128],
        k: u32,
        tables: &mut TableReader,
    ) -> Result<RingLabel, ArithError> {
        compose(&mut self.side(tables), bits, weights, k)
    }

    /// Evaluates [`ArithGarbler::bit_decompose`].
    pub fn bit_decompose(
        &mut self,
        a: &RingLabel,
        count: u32,
        tables: &mut TableReader,
    ) -> Result<Vec<Block>, ArithError> {
        decompose(&mut self.side(tables), a, count)
    }

    /// Evaluates [`ArithGarbler::crt_compose`].
    pub fn crt_compose(
        &mut self,
        bits: &[Block],
        set: &PrimeSet,
        tables: &mut TableReader,
    ) -> Result<CrtBundle, ArithError> {
        crt_compose(&mut self.side(tables), bits, set)
    }

    /// Evaluates [`ArithGarbler::crt_decompose`].
    pub fn crt_decompose(
        &mut self,
        a: &CrtBundle,
        tables: &mut TableReader,
    ) -> Result<Vec<Block>, ArithError> {
        crt_decompose(&mut self.side(tables), a)
    }

    /// The value of a ring wire: colour(W^x) − colour(W^0) mod 2^k.
    pub fn decode_ring(label: &RingLabel, decoding: u128) -> u128 {
        label.colour().wrapping_sub(decoding) & mask(label.bits())
    }

    pub(crate) fn side<'a, 'b>(&'a mut self, tables: &'a mut TableReader<'b>) -> EvalSide<'a, 'b> {
        EvalSide {
            evaluator: self,
            tables,
        }
    }
}
