//! The hash of arithmetic gadgets. Calls from a label mod 2 or an odd prime to a label mod
//! 2 or an odd prime — every projection, product and bit composition row — go to the AES
//! row hash of [`crate::row_hash`], whose module documentation carries its security
//! argument. The rest (lifts into Z_{2^k}, whose rows the ring-offset review analysed with
//! this hash as a random oracle, and `Label`s mod 2^k for k ≥ 2, too wide for two blocks)
//! use keyed BLAKE3 in XOF mode, reduced into Z_q^ℓ, as described below.
//!
//! A label mod p is wider than one AES block (ℓ ≥ 1 + ⌈128/log2 p⌉ digits), so it is hashed
//! whole (`docs/security.md`, "The keyed-BLAKE3 hash"). BLAKE3 is used as a random oracle,
//! which covers the additive mod-p correlations of these labels (the fixed-key-AES
//! arguments of the Boolean hashes are about XOR correlations and do not apply). The key is
//! random per session and public to both parties, separating sessions as the re-keyed AES
//! hash does.
//!
//! Input (fixed-length header, so the encoding is injective): domain tag (1 byte), gate
//! index (8 bytes LE), input modulus and output modulus (9 bytes each: kind, value LE),
//! then the input label packed as a table row ([`crate::codec`]: canonical, about
//! ℓ·log2 p bits, so one 64-byte BLAKE3 block for every odd prime and for 2 and 4). The colour digit is
//! part of the input, so the rows of one gate (one per colour) never share a hash input.
//!
//! Reduction: the output label is produced in groups of j = [`Modulus::group_len`] digits
//! (M = q^j ≤ 2^64). Each group reads 16 fresh XOF bytes r ∈ [0, 2^128) and takes r mod M
//! in base q. The statistical distance of r mod M from uniform is below M/2^128 ≤ 2^-64
//! per group, hence below ⌈ℓ/j⌉·2^-64 per output label; for odd q there are at most 3
//! groups (tested), so below 2^-62. For q = 2^k it is 0: M = 2^(k·j) divides 2^128.
//! Each group reads 128 ≥ j·log2 q + 64 bits, so a label reads at least ℓ·log2 q + 64
//! bits: the 64-bit margin is what keeps each group's bias below 2^-64.

use mixgc_core::Block;

use crate::codec::{label_bytes, pack_grouped, pack_label};
use crate::ring::{row_bytes, RingLabel, MAX_RING_BITS};
use crate::row_hash::RowHash;
use crate::tweak::{Input, Tweak};
use crate::{ArithError, Label, Modulus};

/// Bytes before the label in a hash input: domain, gate, two modulus tags.
const HEADER_BYTES: usize = 1 + 8 + 9 + 9;

/// Packed inputs and XOF outputs up to this many bytes stay on the stack.
const STACK_BYTES: usize = 256;

/// The session's hash of arithmetic rows: the AES row hash (`row_hash.rs`) from
/// labels mod 2 or an odd prime to labels mod 2 or an odd prime, keyed BLAKE3 XOF for the
/// rest (ring lifts, mod-2^k labels with k ≥ 2).
#[derive(Clone)]
pub struct ArithHash {
    key: [u8; 32],
    rows: RowHash,
}

/// The 9-byte encoding of a modulus in hash inputs: kind (0 = 2^k, 1 = odd p), then k or
/// p as 8 bytes LE.
fn modulus_tag(m: Modulus) -> [u8; 9] {
    let mut tag = [0u8; 9];
    let v = m.value();
    if v.is_power_of_two() {
        tag[1..].copy_from_slice(&(v.trailing_zeros() as u64).to_le_bytes());
    } else {
        tag[0] = 1;
        tag[1..].copy_from_slice(&(v as u64).to_le_bytes());
    }
    tag
}

impl ArithHash {
    /// The hash under session key `key` (random per session, sent by the garbler).
    pub fn new(key: [u8; 32]) -> ArithHash {
        ArithHash {
            key,
            rows: RowHash::new(&key),
        }
    }

    /// The AES row hash of this session (for callers that know it covers their labels).
    pub(crate) fn rows(&self) -> &RowHash {
        &self.rows
    }

    /// The AES row hash when it covers calls from `input` to labels mod `out` (for
    /// callers that batch several inputs, [`RowHash::hash_blocks`]).
    pub(crate) fn row_hash(&self, input: Input, out: Modulus) -> Option<&RowHash> {
        RowHash::covers(input, out).then_some(&self.rows)
    }

    /// The row hash of a bit composition into Z_`out` (Boolean inputs, which it always
    /// covers), for callers that batch across gates; only odd primes are composed into.
    pub(crate) fn composition_hash(&self, out: Modulus) -> Result<&RowHash, ArithError> {
        match out.odd_prime_value() {
            Some(_) => Ok(&self.rows),
            None => Err(ArithError::Conversion(format!(
                "bit compositions go into odd primes, not {out}"
            ))),
        }
    }

    /// The XOF of (tweak, input modulus, output tag, packed input), fed to BLAKE3 in one
    /// `update`. Labels of at most [`STACK_BYTES`] packed bytes (every odd prime, 2^k for
    /// k ≤ 16) are packed on the stack, right after the header.
    fn xof(&self, input: Input, tweak: Tweak, out_tag: [u8; 9]) -> blake3::OutputReader {
        let (m, len) = match input {
            Input::Bits(_) => (Modulus::BOOLEAN, 16),
            Input::Label(label) => (label.modulus(), label_bytes(label.modulus())),
            Input::Grouped(label) => (label.modulus(), label_bytes(label.modulus())),
        };
        let pack = |bytes: &mut [u8]| {
            bytes[0] = tweak.domain as u8;
            bytes[1..9].copy_from_slice(&tweak.gate.to_le_bytes());
            bytes[9..18].copy_from_slice(&modulus_tag(m));
            bytes[18..HEADER_BYTES].copy_from_slice(&out_tag);
            match input {
                Input::Bits(block) => bytes[HEADER_BYTES..].copy_from_slice(&block.to_u128().to_le_bytes()),
                Input::Label(label) => pack_label(label, &mut bytes[HEADER_BYTES..]),
                Input::Grouped(label) => pack_grouped(label, &mut bytes[HEADER_BYTES..]),
            }
        };
        let mut hasher = blake3::Hasher::new_keyed(&self.key);
        if len <= STACK_BYTES {
            let mut bytes = [0u8; HEADER_BYTES + STACK_BYTES];
            pack(&mut bytes[..HEADER_BYTES + len]);
            hasher.update(&bytes[..HEADER_BYTES + len]);
        } else {
            let mut bytes = vec![0u8; HEADER_BYTES + len];
            pack(&mut bytes);
            hasher.update(&bytes);
        }
        hasher.finalize_xof()
    }

    /// H(input, tweak) ∈ Z_{2^bits}^128, for ring labels up to 128-bit digits: exactly
    /// 16·bits XOF bytes read as a packed row (uniform, no reduction needed). The output tag
    /// is the one of the modulus 2^bits.
    pub(crate) fn hash_to_ring(&self, input: Input, tweak: Tweak, bits: u32) -> RingLabel {
        let mut tag = [0u8; 9];
        tag[1..].copy_from_slice(&(bits as u64).to_le_bytes());
        let mut random = [0u8; 16 * MAX_RING_BITS as usize];
        let random = &mut random[..row_bytes(bits)];
        self.xof(input, tweak, tag).fill(random);
        RingLabel::read_row(bits, random)
    }

    /// H(input, tweak) ∈ Z_2^128 as a free-XOR block: [`ArithHash::hash`] to
    /// [`Modulus::BOOLEAN`] without its 128 digits (two 16-byte groups, each reduced mod
    /// 2^64, are the two halves of the block).
    pub(crate) fn hash_to_block(&self, input: Input, tweak: Tweak) -> Block {
        if RowHash::covers(input, Modulus::BOOLEAN) {
            return self.rows.hash_to_block(input, tweak);
        }
        let mut random = [0u8; 32];
        self.xof(input, tweak, modulus_tag(Modulus::BOOLEAN))
            .fill(&mut random);
        let half =
            |h: usize| u64::from_le_bytes(random[16 * h..16 * h + 8].try_into().expect("8 bytes")) as u128;
        Block::from_u128(half(0) | half(1) << 64)
    }

    /// H(input, tweak) ∈ Z_out^ℓ(out).
    pub fn hash(&self, input: &Label, tweak: Tweak, out: Modulus) -> Label {
        let mut output = Label::zero(out);
        self.hash_into(Input::Label(input), tweak, &mut output);
        output
    }

    /// H(input, tweak) written over `output`, whose modulus is the output modulus.
    pub(crate) fn hash_into(&self, input: Input, tweak: Tweak, output: &mut Label) {
        let out = output.modulus();
        self.hash_digits(input, tweak, out, output.digits_mut());
    }

    /// H(input, tweak) ∈ Z_out^ℓ(out) written over `digits` (ℓ(out) long): the digits of
    /// [`ArithHash::hash_groups`].
    pub(crate) fn hash_digits(&self, input: Input, tweak: Tweak, out: Modulus, digits: &mut [u64]) {
        debug_assert_eq!(digits.len(), out.label_len());
        let mut groups = out.group_buffer();
        let groups = groups.values();
        self.hash_groups(input, tweak, out, groups);
        out.split_groups(groups, digits);
    }

    /// H(input, tweak) as the values of its digit groups (group g of len digits is below
    /// out^len; [`Modulus::group_count`] of them): what garbled rows are masked with
    /// ([`crate::codec::write_masked_row`]).
    pub(crate) fn hash_groups(&self, input: Input, tweak: Tweak, out: Modulus, groups: &mut [u64]) {
        debug_assert_eq!(groups.len(), out.group_count());
        if RowHash::covers(input, out) {
            return self.rows.hash_groups(input, tweak, out, groups);
        }
        let mut xof = self.xof(input, tweak, modulus_tag(out));
        let (j, len) = (out.group_len(), out.label_len());
        let mut fill = |random: &mut [u8]| {
            xof.fill(random);
            for (g, (group, r)) in groups.iter_mut().zip(random.chunks_exact(16)).enumerate() {
                let value = out.reduce_group(u128::from_le_bytes(r.try_into().expect("16-byte chunk")));
                let modulus = out.group_modulus(j.min(len - g * j));
                *group = (u128::from(value) % modulus) as u64; // the last group may be shorter
            }
        };
        let random_len = 16 * out.group_count();
        if random_len <= STACK_BYTES {
            fill(&mut [0u8; STACK_BYTES][..random_len]);
        } else {
            fill(&mut vec![0u8; random_len]);
        }
    }
}

#[cfg(test)]
mod tests {
    use mixgc_core::new_rng;

    use super::*;
    use crate::tweak::Domain;

    const TWEAK: Tweak = Tweak {
        domain: Domain::Projection,
        gate: 7,
    };

    #[test]
    fn outputs_are_labels_of_the_output_modulus() {
        let hash = ArithHash::new([1; 32]);
        let mut rng = new_rng(Some(5), 0);
        for (p, q) in [
            (3u64, 5u64),
            (5, 3),
            (2, 251),
            (251, 2),
            (65_521, 1 << 16),
            (3, 1 << 63),
        ] {
            let (p, q) = (Modulus::new(p).unwrap(), Modulus::new(q).unwrap());
            let out = hash.hash(&Label::random(p, &mut rng), TWEAK, q);
            assert!(Label::new(q, out.digits().to_vec()).is_ok());
        }
    }

    #[test]
    fn bit_compositions_go_into_odd_primes_only() {
        let hash = ArithHash::new([4; 32]);
        assert!(hash.composition_hash(Modulus::new(13).unwrap()).is_ok());
        for m in [2u64, 4, 1 << 16] {
            let err = hash.composition_hash(Modulus::new(m).unwrap()).err().unwrap();
            assert!(err.to_string().contains("odd primes"), "{err}");
        }
    }

    #[test]
    fn odd_outputs_take_at_most_three_groups() {
        for p in (3..=crate::MAX_ODD_PRIME)
            .step_by(2)
            .filter(|&p| crate::primes::is_prime(p))
        {
            let m = Modulus::new(p).unwrap();
            assert!(m.label_len().div_ceil(m.group_len()) <= 3, "p = {p}");
        }
    }

    #[test]
    fn every_input_part_changes_the_output() {
        let mut rng = new_rng(Some(6), 0);
        let p = Modulus::new(7).unwrap();
        let label = Label::random(p, &mut rng);
        let hash = ArithHash::new([2; 32]);
        let base = hash.hash(&label, TWEAK, p);
        assert_eq!(base, hash.hash(&label, TWEAK, p), "deterministic");
        let other_domain = Tweak {
            domain: Domain::MulGarblerHalf,
            ..TWEAK
        };
        let other_gate = Tweak { gate: 8, ..TWEAK };
        let mut digits = label.digits().to_vec();
        digits[5] = p.add(digits[5], 1);
        let changed = Label::new(p, digits).unwrap();
        for other in [
            hash.hash(&label, other_domain, p),
            hash.hash(&label, other_gate, p),
            hash.hash(&changed, TWEAK, p),
            ArithHash::new([3; 32]).hash(&label, TWEAK, p),
        ] {
            assert_ne!(base, other);
        }
    }

    #[test]
    fn digits_are_spread_over_z_q() {
        // A coarse check of the reduction (deterministic: fixed key and inputs): over 400
        // mod-3 outputs (32,800 digits) each residue appears within 5% of a third.
        let hash = ArithHash::new([9; 32]);
        let p = Modulus::new(3).unwrap();
        let mut counts = [0usize; 3];
        for gate in 0..400 {
            let out = hash.hash(&Label::zero(p), Tweak { gate, ..TWEAK }, p);
            out.digits().iter().for_each(|&d| counts[d as usize] += 1);
        }
        let total: usize = counts.iter().sum();
        for c in counts {
            assert!(
                (c as f64 / total as f64 - 1.0 / 3.0).abs() < 0.05 / 3.0,
                "{counts:?}"
            );
        }
    }
}
