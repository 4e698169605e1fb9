//! The garbled-table bytes of each primitive gadget, known to both parties before it runs:
//! the evaluator of a streamed program reads exactly this many bytes for a primitive, so
//! its rows may span frames and a wrong count is an error, not a misread.
//!
//! These formulas are the one source of table sizes: the garbler reserves with them, the
//! evaluator reads by them, and the program cost counter counts with them (a composite
//! gadget's table, such as BD's, is its primitives' run on the counter). A test garbles
//! every primitive and compares.

use crate::cost::protocol::residue_bits;
use crate::cost::TableCost;
use crate::{Modulus, PrimeSet};

/// Digits of every ring label mod 2^k (one per bit of a Boolean label).
pub const RING_DIGITS: usize = 128;

/// The digit count of each group of a label mod m.
pub fn group_sizes(m: Modulus) -> impl Iterator<Item = usize> {
    let (len, j) = (m.label_len(), m.group_len());
    (0..len.div_ceil(j)).map(move |g| j.min(len - g * j))
}

/// Bytes of one packed label mod m (one garbled-table row).
pub fn label_bytes(m: Modulus) -> usize {
    m.odd_label_bytes().unwrap_or_else(|| packed_bytes(m))
}

/// [`label_bytes`] from the group sizes (what odd primes precompute).
pub fn packed_bytes(m: Modulus) -> usize {
    (group_sizes(m).map(|n| m.group_bits(n) as usize).sum::<usize>()).div_ceil(8)
}

/// Bytes of one ring row mod 2^k: 128 digits of k bits.
pub fn row_bytes(bits: u32) -> usize {
    RING_DIGITS * bits as usize / 8
}

/// `n` rows mod `m` (one packed label each).
pub fn rows(m: Modulus, n: u64) -> TableCost {
    TableCost {
        rows: n,
        bytes: n as usize * label_bytes(m),
    }
}

/// Bit compositions into odd primes, each (bit count, m): one row mod m per bit.
pub fn compose_powers(terms: impl IntoIterator<Item = (usize, Modulus)>) -> TableCost {
    terms.into_iter().map(|(bits, out)| rows(out, bits as u64)).sum()
}

/// A projection of a wire mod p (`input`) to Z_`out`: p − 1 rows mod `out`
/// (`ArithGarbler::project`).
pub fn projection(input: Modulus, out: Modulus) -> TableCost {
    rows(out, input.value() as u64 - 1)
}

/// A product of two wires mod p: 2(p − 1) rows mod p (`ArithGarbler::mul`).
pub fn product(m: Modulus) -> TableCost {
    rows(m, 2 * (m.value() as u64 - 1))
}

/// A lift of a Boolean wire to Z_{2^`bits`}: one ring row of `bits` − 1 bits per digit,
/// counted as `bits` − 1 rows (`ArithGarbler::lift`).
pub fn lift(bits: u32) -> TableCost {
    match bits {
        0 | 1 => TableCost::default(),
        _ => TableCost {
            rows: u64::from(bits - 1),
            bytes: row_bytes(bits - 1),
        },
    }
}

/// One Boolean AND: two rows mod 2 (the half-gates T_G and T_E, and the mod-2 product
/// inside a conversion alike).
pub fn and() -> TableCost {
    rows(Modulus::BOOLEAN, 2)
}

/// The lifts of an evaluator-owned CRT input: one row per bit of each odd residue.
pub fn residues(set: &PrimeSet) -> TableCost {
    let odd = set
        .moduli()
        .iter()
        .zip(set.primes())
        .filter(|(m, _)| !m.is_boolean());
    odd.map(|(&m, &p)| rows(m, u64::from(residue_bits(p)))).sum()
}

/// `ArithGarbler::residues_from_bits`: one row per bit of each odd residue.
pub fn residues_from_bits(set: &PrimeSet) -> usize {
    residues(set).bytes
}
