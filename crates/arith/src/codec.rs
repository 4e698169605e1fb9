//! Garbled-table rows on the wire: labels packed close to ℓ·log2 m bits.
//!
//! A label's digits are cut into groups of j = `Modulus::group_len` digits (the last group
//! may be shorter); a group of j' digits is the number Σ d_i·m^i < m^j' ≤ 2^64, written in
//! ⌈log2 m^j'⌉ bits, least significant bit first. Each label starts on a byte boundary.
//! A mod-3 label (82 digits) takes 17 bytes instead of the 21 of 2-bit digits; power-of-two
//! digits pack exactly (a mod-2 label is 16 bytes, like a Block).
//!
//! Decoding refuses groups ≥ m^j' and nonzero padding bits, so every byte string decodes to
//! at most one label and malformed tables are errors, never wrong labels.
//!
//! A garbled row is its target label masked group by group: group g of the row is
//! (target_g + H_g) mod m^j', with H_g the value of group g of the hash output
//! (`write_masked_row`). Each H_g is uniform on [0, m^j') up to 2^−64, so this is a
//! one-time pad in Z_{m^j'}, like the digit-wise T − H of BMR16 but without splitting the
//! hash into digits; the evaluator subtracts its H_g and splits once.

use mixgc_core::Block;

use crate::grouped::GroupedLabel;
use crate::{ArithError, Label, Modulus};
use mixgc_moduli::{add_mod, OddPrime};

use mixgc_moduli::table_bytes::group_sizes;
pub use mixgc_moduli::table_bytes::label_bytes;

/// Appends `label`, packed, to `out`.
pub(crate) fn write_label(label: &Label, out: &mut Vec<u8>) {
    write_digits(label.modulus(), label.digits(), out);
}

/// Appends the label mod m with these digits (ℓ of them, reduced), packed, to `out`.
pub(crate) fn write_digits(m: Modulus, digits: &[u64], out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + label_bytes(m), 0);
    pack_digits(m, digits, &mut out[start..]);
}

/// Packs `label` into `out` ([`label_bytes`] long).
pub(crate) fn pack_label(label: &Label, out: &mut [u8]) {
    pack_digits(label.modulus(), label.digits(), out);
}

/// Packs the label `label` into `out` ([`label_bytes`] long) from its group values.
pub(crate) fn pack_grouped(label: &GroupedLabel, out: &mut [u8]) {
    pack_groups(label.modulus(), out, |g, _| label.groups()[g]);
}

/// Packs the digits of a label mod m into `out` ([`label_bytes`] long).
fn pack_digits(m: Modulus, digits: &[u64], out: &mut [u8]) {
    debug_assert_eq!(digits.len(), m.label_len());
    let j = m.group_len();
    pack_groups(m, out, |g, len| m.join_group(&digits[g * j..g * j + len]));
}

/// Appends one garbled row mod m: the label with digits `target`, each digit group's value
/// masked by adding the hash's group value `pad[g]` mod m^len (a one-time pad in each
/// group's ring Z_{m^len}; [`Rows::unmask_into`] undoes it). Same layout and size as a
/// packed label.
pub(crate) fn write_masked_row(m: Modulus, target: &[u64], pad: &[u64], out: &mut Vec<u8>) {
    debug_assert!(target.len() == m.label_len());
    let j = m.group_len();
    write_masked(m, pad, out, |g, len| m.join_group(&target[g * j..g * j + len]));
}

/// [`write_masked_row`] of the target mod an odd prime whose digit groups have the values
/// `target` ([`Modulus::join_groups`]).
#[inline]
pub(crate) fn write_masked_groups(m: Modulus, target: &[u64], pad: &[u64], out: &mut Vec<u8>) {
    let prime = m.odd_constants().expect("grouped rows are mod odd primes");
    let [(_, full, bits), _, (_, last, _)] = prime.group_shapes();
    let value = |g: usize, modulus: u64| u128::from(add_mod(target[g], pad[g], u128::from(modulus)));
    // The three groups, least significant bit first, as one 192-bit number written whole
    // and cut to the label's bytes (fixed-size writes only). A full group has 32 ≤ bits ≤
    // 64 (tested for every prime), so the last one starts at bit 2·bits ∈ [64, 128].
    let top = value(2, last) << (2 * bits - 64);
    let low = value(0, full) | value(1, full) << bits | top << 64;
    let start = out.len();
    out.extend_from_slice(&low.to_le_bytes());
    out.extend_from_slice(&((top >> 64) as u64).to_le_bytes());
    out.truncate(start + prime.label_bytes());
}

/// Appends the row whose group g is (`target(g, len)` + pad\[g\]) mod m^len.
#[inline]
fn write_masked(m: Modulus, pad: &[u64], out: &mut Vec<u8>, target: impl Fn(usize, usize) -> u64) {
    debug_assert!(pad.len() == m.group_count());
    let start = out.len();
    out.resize(start + label_bytes(m), 0);
    pack_groups(m, &mut out[start..], |g, len| {
        m.add_group(target(g, len), pad[g], len)
    });
}

/// The label a masked row carries (`write_masked_row`), from the row read as a label and
/// the pad H(A, t) as a label: group by group, (row − pad) mod m^len. Public so that tests
/// can play the evaluator, or an attacker, on rows they read.
pub fn unmask_label(row: &Label, pad: &Label) -> Result<Label, ArithError> {
    combine_groups(row, pad, |m, a, b, len| m.sub_group(a, b, len))
}

/// The row that carries `target` under the pad H(A, t) (the inverse of [`unmask_label`]).
pub fn mask_label(target: &Label, pad: &Label) -> Result<Label, ArithError> {
    combine_groups(target, pad, |m, a, b, len| m.add_group(a, b, len))
}

/// The label whose group g has value op(group g of `a`, group g of `b`).
fn combine_groups(
    a: &Label,
    b: &Label,
    op: impl Fn(Modulus, u64, u64, usize) -> u64,
) -> Result<Label, ArithError> {
    let m = a.modulus();
    if b.modulus() != m {
        return Err(ArithError::ModulusMismatch(m, b.modulus()));
    }
    let mut out = Label::zero(m);
    let chunks = a
        .digits()
        .chunks(m.group_len())
        .zip(b.digits().chunks(m.group_len()));
    for ((x, y), z) in chunks.zip(out.digits_mut().chunks_mut(m.group_len())) {
        m.split_group(op(m, m.join_group(x), m.join_group(y), x.len()), z);
    }
    Ok(out)
}

/// Writes the value of each digit group, `group(g, len)` for group g of `len` digits (below
/// m^len), into `out` ([`label_bytes`] long).
fn pack_groups(m: Modulus, out: &mut [u8], mut group: impl FnMut(usize, usize) -> u64) {
    let values = group_sizes(m)
        .enumerate()
        .map(|(g, len)| (group(g, len), m.group_bits(len)));
    pack_values(out, values);
}

/// Writes each (value, bits) in `bits` bits into `out` (exactly long enough): gathered in a
/// 128-bit accumulator and flushed 64 bits at a time, least significant first.
#[inline]
fn pack_values(out: &mut [u8], values: impl Iterator<Item = (u64, u32)>) {
    let (mut acc, mut acc_bits, mut pos) = (0u128, 0u32, 0usize);
    for (value, bits) in values {
        // acc_bits < 64 and a group has at most 64 bits: the accumulator never overflows.
        acc |= (value as u128) << acc_bits;
        acc_bits += bits;
        if acc_bits >= 64 {
            out[pos..pos + 8].copy_from_slice(&(acc as u64).to_le_bytes());
            (acc, acc_bits, pos) = (acc >> 64, acc_bits - 64, pos + 8);
        }
    }
    let rest = acc_bits.div_ceil(8) as usize;
    out[pos..pos + rest].copy_from_slice(&(acc as u64).to_le_bytes()[..rest]);
    debug_assert_eq!(pos + rest, out.len());
}

/// Unpacks one label mod m from exactly [`label_bytes`]`(m)` bytes.
fn read_label(m: Modulus, bytes: &[u8]) -> Result<Label, ArithError> {
    let mut label = Label::zero(m);
    let (j, digits) = (m.group_len(), label.digits_mut());
    unpack_groups(m, bytes, |g, len, value| {
        m.split_group(value, &mut digits[g * j..g * j + len])
    })?;
    Ok(label)
}

/// (a − b) mod `modulus` for a, b < `modulus` ≤ 2^64 (the result fits, so wrapping
/// arithmetic is exact).
#[inline(always)]
fn sub_below(a: u64, b: u64, modulus: u64) -> u64 {
    let d = a.wrapping_sub(b);
    if a >= b {
        d
    } else {
        d.wrapping_add(modulus)
    }
}

/// The three digit groups of one packed label mod an odd prime, read as [`unpack_groups`]
/// reads them (same values, same errors in the same order) but with fixed shifts: the
/// row is at most 24 bytes ([`write_masked_groups`]' layout), so it is one 192-bit number
/// — its first 16 bytes and its last 8 (shifted down over the overlap) — with groups at
/// bits 0, b and 2b (b = a full group's bits, 32 ≤ b ≤ 64) and padding above.
#[inline]
fn unpack_odd_groups(prime: &OddPrime, bytes: &[u8]) -> Result<[u64; 3], ArithError> {
    let len = bytes.len();
    if len != prime.label_bytes() {
        let problem = if len < prime.label_bytes() {
            "row too short"
        } else {
            "nonzero padding"
        };
        return Err(ArithError::MalformedTable(problem));
    }
    let [(_, full, bits), _, (_, last, last_bits)] = prime.group_shapes();
    debug_assert!((17..=24).contains(&len) && (32..=64).contains(&bits));
    let low = u128::from_le_bytes(bytes[..16].try_into().expect("16 bytes"));
    let top = u64::from_le_bytes(bytes[len - 8..].try_into().expect("8 bytes")) >> (8 * (24 - len));
    let field = |v: u128, width: u32| (v & (u128::MAX >> (128 - width))) as u64;
    // The 192-bit number from bit 2b on (2b ∈ [64, 128]): at most 128 bits.
    let rest = match 2 * bits {
        128 => u128::from(top),
        shift => low >> shift | u128::from(top) << (128 - shift),
    };
    let values = [field(low, bits), field(low >> bits, bits), field(rest, last_bits)];
    if values[0] >= full || values[1] >= full || values[2] >= last {
        return Err(ArithError::MalformedTable("digit group out of range"));
    }
    if rest >> last_bits != 0 {
        return Err(ArithError::MalformedTable("nonzero padding"));
    }
    Ok(values)
}

/// Reads the digit groups of one packed label mod m from exactly [`label_bytes`]`(m)`
/// bytes, handing each to `each(g, len, value)`. Bits are read into a 128-bit accumulator up
/// to 8 bytes at a time (a group has at most 64 bits, so one refill always suffices).
/// Refuses a wrong length, a group ≥ m^len and nonzero padding.
fn unpack_groups(
    m: Modulus,
    bytes: &[u8],
    mut each: impl FnMut(usize, usize, u64),
) -> Result<(), ArithError> {
    match bytes.len().cmp(&label_bytes(m)) {
        std::cmp::Ordering::Less => return Err(ArithError::MalformedTable("row too short")),
        std::cmp::Ordering::Greater => return Err(ArithError::MalformedTable("nonzero padding")),
        std::cmp::Ordering::Equal => {}
    }
    let (mut acc, mut acc_bits, mut pos) = (0u128, 0u32, 0usize);
    for (g, len) in group_sizes(m).enumerate() {
        let bits = m.group_bits(len);
        if acc_bits < bits {
            let take = (bytes.len() - pos).min(8);
            let mut word = [0u8; 8];
            word[..take].copy_from_slice(&bytes[pos..pos + take]);
            acc |= u128::from(u64::from_le_bytes(word)) << acc_bits;
            (acc_bits, pos) = (acc_bits + 8 * take as u32, pos + take);
        }
        debug_assert!(acc_bits >= bits, "the length was checked");
        let value = acc & ((1u128 << bits) - 1);
        (acc, acc_bits) = (acc >> bits, acc_bits - bits);
        if value >= m.group_modulus(len) {
            return Err(ArithError::MalformedTable("digit group out of range"));
        }
        each(g, len, value as u64);
    }
    debug_assert_eq!(pos, bytes.len());
    if acc != 0 {
        return Err(ArithError::MalformedTable("nonzero padding"));
    }
    Ok(())
}

/// Reads garbled-table rows in order from a byte buffer (the evaluator's side).
pub struct TableReader<'a> {
    bytes: &'a [u8],
}

impl<'a> TableReader<'a> {
    pub fn new(bytes: &'a [u8]) -> TableReader<'a> {
        TableReader { bytes }
    }

    /// Bytes not yet read.
    pub fn remaining(&self) -> usize {
        self.bytes.len()
    }

    /// Errors if bytes are left over (the peer sent more than the gates consumed).
    pub fn finish(self) -> Result<(), ArithError> {
        match self.bytes.len() {
            0 => Ok(()),
            n => Err(ArithError::TrailingTable(n)),
        }
    }

    /// Reads the next row as a label mod m.
    pub fn next_label(&mut self, m: Modulus) -> Result<Label, ArithError> {
        self.rows(m, 1)?.get(0)
    }

    /// Takes the next `len` raw bytes (a ring row, [`crate::ring`]).
    pub(crate) fn take_bytes(&mut self, len: usize) -> Result<&'a [u8], ArithError> {
        if len > self.bytes.len() {
            return Err(ArithError::TruncatedTable {
                needed: len,
                left: self.bytes.len(),
            });
        }
        let (taken, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        Ok(taken)
    }

    /// Takes the next `count` rows mod m; decodes none of them yet.
    pub(crate) fn rows(&mut self, m: Modulus, count: usize) -> Result<Rows<'a>, ArithError> {
        let row_bytes = label_bytes(m);
        Ok(Rows {
            modulus: m,
            row_bytes,
            bytes: self.take_bytes(row_bytes * count)?,
        })
    }
}

/// The rows of one gate half: the evaluator decodes only the row its colour selects.
pub(crate) struct Rows<'a> {
    modulus: Modulus,
    row_bytes: usize,
    bytes: &'a [u8],
}

impl Rows<'_> {
    /// Row `i` (0-based; callers pass colour − 1 of a row-reduced table).
    pub(crate) fn get(&self, i: usize) -> Result<Label, ArithError> {
        read_label(self.modulus, self.row(i)?)
    }

    /// What the evaluator reads at `colour` from a row-reduced table whose hash at that
    /// colour has group values `pad`: the hash itself at colour 0 (that row is not sent),
    /// else row colour − 1 unmasked ([`Rows::unmask_into`]); written over `digits`.
    pub(crate) fn open(&self, colour: u64, pad: &[u64], digits: &mut [u64]) -> Result<(), ArithError> {
        if colour == 0 {
            self.modulus.split_groups(pad, digits);
            return Ok(());
        }
        self.unmask_into(colour as usize - 1, pad, digits)
    }

    /// The label row `i` masks with the hash group values `pad` ([`write_masked_row`]),
    /// written over `digits` (ℓ of them).
    pub(crate) fn unmask_into(&self, i: usize, pad: &[u64], digits: &mut [u64]) -> Result<(), ArithError> {
        let m = self.modulus;
        debug_assert!(digits.len() == m.label_len() && pad.len() == m.group_count());
        if let Some(prime) = m.odd_constants() {
            let values = unpack_odd_groups(prime, self.row(i)?)?;
            let [(_, full, _), _, (_, last, _)] = prime.group_shapes();
            let groups = [
                sub_below(values[0], pad[0], full),
                sub_below(values[1], pad[1], full),
                sub_below(values[2], pad[2], last),
            ];
            m.split_groups(&groups, digits);
            return Ok(());
        }
        let mut groups = m.group_buffer();
        let groups = groups.values();
        unpack_groups(m, self.row(i)?, |g, len, value| {
            groups[g] = m.sub_group(value, pad[g], len);
        })?;
        m.split_groups(groups, digits);
        Ok(())
    }

    /// Row `i` of a mod-2 gate as its free-XOR block (every 16 bytes are a valid mod-2 row).
    pub(crate) fn get_block(&self, i: usize) -> Result<Block, ArithError> {
        debug_assert!(self.modulus.is_boolean());
        let row = self.row(i)?.try_into().expect("a mod-2 row has 16 bytes");
        Ok(Block::from_u128(u128::from_le_bytes(row)))
    }

    fn row(&self, i: usize) -> Result<&[u8], ArithError> {
        let start = i * self.row_bytes;
        self.bytes
            .get(start..start + self.row_bytes)
            .ok_or(ArithError::MalformedTable("row index beyond the gate"))
    }
}

#[cfg(test)]
mod tests {
    use mixgc_core::new_rng;

    use super::*;

    #[test]
    fn sizes_are_near_the_information_bound() {
        let bytes = |m: u64| label_bytes(Modulus::new(m).unwrap());
        assert_eq!(bytes(2), 16);
        assert_eq!(bytes(3), 17);
        assert_eq!(bytes(5), 17);
        assert_eq!(bytes(251), 18);
        assert_eq!(bytes(1 << 16), 256);
        assert_eq!(label_bytes(Modulus::power_of_two(64).unwrap()), 1024);
        for p in [3u64, 5, 7, 11, 13, 101, 251, 65_521] {
            let m = Modulus::new(p).unwrap();
            let bound = (m.label_len() as f64 * (p as f64).log2() / 8.0).ceil() as usize;
            assert!(
                label_bytes(m) <= bound + 1,
                "p = {p}: {} vs {bound}",
                label_bytes(m)
            );
        }
    }

    /// Also: full groups have 32 to 64 bits, as `write_masked_groups` assumes (it places
    /// the last group at bit 2·bits), and no row is longer than with groups of the largest
    /// j (p^j ≤ 2^64).
    #[test]
    fn precomputed_sizes_match_the_group_sizes() {
        for p in (3..=crate::MAX_ODD_PRIME)
            .step_by(2)
            .filter(|&p| crate::primes::is_prime(p))
        {
            let m = Modulus::new(p).unwrap();
            assert_eq!(
                label_bytes(m),
                mixgc_moduli::table_bytes::packed_bytes(m),
                "p = {p}"
            );
            let bits = m.group_bits(m.group_len());
            assert!((32..=64).contains(&bits), "p = {p}: {bits} bits");
            // Groups cut to 8k digits pack as tightly as groups of the largest j.
            let pow_bits = |n: usize| u128::BITS - ((p as u128).pow(n as u32) - 1).leading_zeros();
            let largest = (1..)
                .take_while(|&j| (p as u128).pow(j as u32) <= 1 << 64)
                .last()
                .unwrap();
            let tightest = (2 * pow_bits(largest) + pow_bits(m.label_len() - 2 * largest)).div_ceil(8);
            assert_eq!(label_bytes(m), tightest as usize, "p = {p}");
            for count in 1..=m.group_len() {
                let bits = u128::BITS - (m.group_modulus(count) - 1).leading_zeros();
                assert_eq!(m.group_bits(count), bits, "p = {p}, {count} digits");
            }
        }
    }

    /// The generic reader's groups of a row, or its error.
    fn generic_groups(m: Modulus, bytes: &[u8]) -> Result<[u64; 3], ArithError> {
        let mut values = [0; 3];
        unpack_groups(m, bytes, |g, _, value| values[g] = value)?;
        Ok(values)
    }

    /// The fixed-shift reader of odd-prime rows against the generic one, for every prime:
    /// valid rows (random and every group at its largest), random bytes (mostly groups out
    /// of range), each padding bit set alone, and rows of a wrong length.
    #[test]
    fn odd_rows_unpack_as_the_generic_reader() {
        use rand::Rng as _;
        let mut rng = new_rng(Some(6), 0);
        for p in (3..=crate::MAX_ODD_PRIME)
            .step_by(2)
            .filter(|&p| crate::primes::is_prime(p))
        {
            let m = Modulus::new(p).unwrap();
            let prime = m.odd_constants().unwrap();
            let [(_, full, bits), _, (_, last, last_bits)] = prime.group_shapes();
            let len = label_bytes(m);
            let mut rows = Vec::new();
            let zero = [0; 3];
            for target in [
                [full - 1, full - 1, last - 1],
                [0, 0, 0],
                [
                    rng.gen_range(0..full),
                    rng.gen_range(0..full),
                    rng.gen_range(0..last),
                ],
            ] {
                write_masked_groups(m, &target, &zero, &mut rows);
                assert_eq!(unpack_odd_groups(prime, &rows[rows.len() - len..]), Ok(target));
            }
            let used = 2 * bits + last_bits;
            for bit in used..8 * len as u32 {
                let mut row = rows[..len].to_vec();
                row[bit as usize / 8] |= 1 << (bit % 8);
                rows.extend_from_slice(&row);
            }
            for _ in 0..4 {
                rows.extend((0..len).map(|_| rng.gen::<u8>()));
            }
            for row in rows.chunks_exact(len) {
                assert_eq!(
                    unpack_odd_groups(prime, row),
                    generic_groups(m, row),
                    "p = {p}, {row:?}"
                );
            }
            for wrong in [&rows[..len - 1], &rows[..len + 1]] {
                assert_eq!(
                    unpack_odd_groups(prime, wrong),
                    generic_groups(m, wrong),
                    "p = {p}"
                );
            }
        }
    }

    #[test]
    fn masked_rows_open_with_their_pad_only() {
        let mut rng = new_rng(Some(5), 0);
        for m in [3u64, 5, 13, 251, 65_521, 8, 1 << 20] {
            let m = Modulus::new(m).unwrap();
            let (target, pad, other) = (
                Label::random(m, &mut rng),
                Label::random(m, &mut rng),
                Label::random(m, &mut rng),
            );
            let pad_groups: Vec<u64> = pad
                .digits()
                .chunks(m.group_len())
                .map(|g| m.join_group(g))
                .collect();
            let mut bytes = Vec::new();
            write_masked_row(m, target.digits(), &pad_groups, &mut bytes);
            assert_eq!(bytes.len(), label_bytes(m));
            if m.odd_prime_value().is_some() {
                let mut target_groups = vec![0; m.group_count()];
                m.join_groups(target.digits(), &mut target_groups);
                let mut from_groups = Vec::new();
                write_masked_groups(m, &target_groups, &pad_groups, &mut from_groups);
                assert_eq!(from_groups, bytes);
            }
            let row = TableReader::new(&bytes).next_label(m).unwrap();
            assert_eq!(row, mask_label(&target, &pad).unwrap());
            assert_eq!(unmask_label(&row, &pad).unwrap(), target);
            assert_ne!(unmask_label(&row, &other).unwrap(), target);
            let mut digits = vec![0; m.label_len()];
            let rows = TableReader::new(&bytes).rows(m, 1).unwrap();
            rows.unmask_into(0, &pad_groups, &mut digits).unwrap();
            assert_eq!(digits, target.digits());
        }
        let (p, q) = (Modulus::new(3).unwrap(), Modulus::new(5).unwrap());
        assert!(mask_label(&Label::zero(p), &Label::zero(q)).is_err());
    }

    #[test]
    fn round_trip_and_malformed_rows() {
        let mut rng = new_rng(Some(4), 0);
        for m in [2u64, 3, 5, 7, 13, 251, 65_521, 8, 1 << 20] {
            let m = Modulus::new(m).unwrap();
            let labels: Vec<Label> = (0..5).map(|_| Label::random(m, &mut rng)).collect();
            let mut bytes = Vec::new();
            labels.iter().for_each(|l| write_label(l, &mut bytes));
            assert_eq!(bytes.len(), 5 * label_bytes(m));
            let mut reader = TableReader::new(&bytes);
            let rows = reader.rows(m, 5).unwrap();
            for (i, label) in labels.iter().enumerate() {
                assert_eq!(&rows.get(i).unwrap(), label);
            }
            assert!(rows.get(5).is_err());
            reader.finish().unwrap();
            assert!(matches!(
                TableReader::new(&bytes[1..]).rows(m, 5),
                Err(ArithError::TruncatedTable { .. })
            ));
        }
        // All-ones bytes: a mod-3 group of 3^40 − 1 < 2^64 − 1 is out of range.
        let m = Modulus::new(3).unwrap();
        let ones = vec![0xff; label_bytes(m)];
        let mut reader = TableReader::new(&ones);
        assert!(matches!(
            reader.rows(m, 1).unwrap().get(0),
            Err(ArithError::MalformedTable(_))
        ));
        // Nonzero padding after the last group (132 bits used of 136).
        let mut bytes = Vec::new();
        write_label(&Label::zero(m), &mut bytes);
        *bytes.last_mut().unwrap() |= 0x80;
        assert!(TableReader::new(&bytes).rows(m, 1).unwrap().get(0).is_err());
        assert_eq!(
            TableReader::new(&[0; 3]).finish(),
            Err(ArithError::TrailingTable(3))
        );
    }
}
