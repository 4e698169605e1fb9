//! B2A: Boolean (XOR) shares to additive shares mod p through size-2 public-table lookups
//! (seed §5.1, Figure 9).
//!
//! A bit x is the lookup of x in the public table T = (0, 1) (f_T(j) = j): the masked
//! tables of [`crate::lut`] (Figure 6, Case 1) give additive shares of T[r ⊕ 0] = r and
//! T[r ⊕ 1] = 1 − r, and the online lookup (Figure 8) opens x ⊕ r and picks the share of
//! T[x] = x. An ℓ-bit value x = Σ_j 2^j·x[j] is Σ_j 2^j·B2A(x[j]) mod p (Figure 9, step 3).
//!
//! Offline: [`b2a_preprocess`], one run of Figure 6 for up to N bits. Online: [`b2a_bits`]
//! opens one bit per conversion (one packed bit out and in per party, chain-aggregated).
//!
//! A2B (Figure 10) is not here: it needs, after the B2A of random bits and the opening of
//! x − r, a Boolean modulo-p adder evaluated on XOR shares (GMW with Boolean triples) and,
//! for the seed's p, the §5.2 check that r < p; see `docs/mixed-mode.md`.

use fhe_rand::{CryptoRng, RngCore};
use mixgc_nparty::Mesh;

use crate::lut::{lookup, MaskedTables, Tables};
use crate::{MixedError, ThresholdKeys, DEGREE, PLAINTEXT_MODULUS};

/// The widest value [`b2a`] converts: 32 bits (values ≥ p come out reduced mod p, as in
/// Figure 9).
pub const MAX_WIDTH: u32 = 32;

/// Offline B2A for `count` ≤ N bits: masked copies of the public table (0, 1), from the
/// XOR tree ([`crate::xor_tables`]) where it fits (n ≤ 64), else the table chain.
pub fn b2a_preprocess<R: RngCore + CryptoRng>(
    keys: &ThresholdKeys,
    mesh: &mut Mesh,
    count: usize,
    rng: &mut R,
) -> Result<MaskedTables, MixedError> {
    let zeros = vec![0; count];
    let ones = vec![1; count];
    keys.masked_tables(
        mesh,
        Tables::Public {
            entries: &[&zeros, &ones],
        },
        rng,
    )
}

/// Online B2A of XOR-shared bits (this party's shares, each 0 or 1) with tables from
/// [`b2a_preprocess`]: this party's additive shares mod p of the bits.
pub fn b2a_bits(mesh: &mut Mesh, tables: MaskedTables, bits: &[u8]) -> Result<Vec<u64>, MixedError> {
    lookup(mesh, tables, bits)
}

/// B2A of XOR-shared `width`-bit values (Figure 9; offline and online, in batches of N
/// bits): this party's additive shares mod p of the values mod p. Every party calls it at
/// once with as many values and the same width.
pub fn b2a<R: RngCore + CryptoRng>(
    keys: &ThresholdKeys,
    mesh: &mut Mesh,
    shares: &[u64],
    width: u32,
    rng: &mut R,
) -> Result<Vec<u64>, MixedError> {
    if width == 0 || width > MAX_WIDTH {
        return Err(MixedError::Usage(format!(
            "B2A of {width}-bit values: the width must be 1 to {MAX_WIDTH}"
        )));
    }
    if let Some(i) = shares.iter().position(|&v| v >> width != 0) {
        return Err(MixedError::Usage(format!(
            "share {i} is {:#x}, wider than {width} bits",
            shares[i]
        )));
    }
    // Bit j of value i at index j·len + i.
    let bits: Vec<u8> = (0..width)
        .flat_map(|j| shares.iter().map(move |v| ((v >> j) & 1) as u8))
        .collect();
    let mut arith = Vec::with_capacity(bits.len());
    for chunk in bits.chunks(DEGREE) {
        let tables = b2a_preprocess(keys, mesh, chunk.len(), rng)?;
        arith.extend(b2a_bits(mesh, tables, chunk)?);
    }
    let p = PLAINTEXT_MODULUS;
    Ok((0..shares.len())
        .map(|i| {
            (0..width as usize).fold(0u64, |acc, j| {
                let term = (arith[j * shares.len() + i] << j) % p;
                (acc + term) % p
            })
        })
        .collect())
}
