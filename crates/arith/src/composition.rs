//! Bit compositions into odd primes, Σ_j 2^j·b_j mod m from the Boolean labels of the b_j:
//! one row-reduced projection b ↦ 2^j·b per bit, summed ([`crate::ArithGarbler::compose_powers`],
//! [`crate::ArithEvaluator::compose_powers`]); the evaluator's CRT inputs are made of them.

use mixgc_core::Block;

use crate::Modulus;

/// One bit composition: the Boolean labels of the bits b_j (LSB first) and the odd prime
/// m of Σ_j 2^j·b_j mod m.
pub type Term<'a> = (&'a [Block], Modulus);

/// The projections of a list of bit compositions, in gate and row order (term by term, bit
/// by bit): each one's term index, bit label and weight 2^j mod m.
pub(crate) fn composition_jobs(terms: &[Term]) -> Vec<(usize, Block, u64)> {
    let mut jobs = Vec::with_capacity(terms.iter().map(|(bits, _)| bits.len()).sum());
    for (k, &(bits, m)) in terms.iter().enumerate() {
        let weights = std::iter::successors(Some(m.reduce(1)), |&w| Some(m.add(w, w)));
        jobs.extend(bits.iter().zip(weights).map(|(&bit, w)| (k, bit, w)));
    }
    jobs
}

/// The (bit count, modulus) of each term, as [`crate::table_bytes::compose_powers`] sizes them.
pub fn term_sizes<'a>(terms: &'a [Term]) -> impl Iterator<Item = (usize, Modulus)> + 'a {
    terms.iter().map(|&(bits, m)| (bits.len(), m))
}
