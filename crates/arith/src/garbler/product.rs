//! Products of two wires by BMR16's generalized half gate (mod 2, a product is an AND of
//! the Boolean half-gates, not garbled here).

use super::projection::{garble_rows, ColourHashes, Phi, Running};
use super::{table_size, ArithGarbler};
use crate::codec::write_masked_groups;
use crate::encoding::{encode_groups, Encoded, MAX_BLOCKS};
use crate::grouped::{GroupedDelta, GroupedLabel};
use crate::row_hash::{blocks_per_label, blocks_to_groups, RowHash, BATCH};
use crate::tweak::{Domain, Input, Tweak};
use crate::{table_bytes, ArithError, Label};

impl ArithGarbler {
    /// Product of the wires with zero-labels `a0` and `b0` (same modulus m) by BMR16's
    /// generalized half gate; `a0` and `b0` may be the same wire (squaring). Appends
    /// 2(m − 1) rows and returns the output zero-label.
    ///
    /// With a = A^0, b = B^0, b_c = colour(b) and β = colour(B^y) = b_c + y (which the
    /// evaluator sees), xy = β·x − b_c·x:
    /// - garbler half: −b_c·x is a function of x alone, garbled as a projection of A;
    /// - evaluator half: the evaluator holds β·A = β·a + β·x·Δ; row β translates β·a to a
    ///   fixed E^0: T_E\[β\] = (E^0 − β·a) ⊞ H(B^(β − b_c), t_E), with E^0 = H(B^(−b_c),
    ///   t_E) so the row of colour 0 is not needed and not sent (⊞: the mask of
    ///   `codec::write_masked_row`). The evaluator computes E = (T_E\[β\] ⊟ H(B, t_E)) + β·A =
    ///   E^0 + β·x·Δ (E = H(B, t_E) + β·A for β = 0).
    ///
    /// Output C^0 = G^0 + E^0 carries −b_c·x + β·x = x·y.
    pub fn mul(&mut self, a0: &Label, b0: &Label, rows: &mut Vec<u8>) -> Result<Label, ArithError> {
        let m = a0.modulus();
        if b0.modulus() != m {
            return Err(ArithError::ModulusMismatch(m, b0.modulus()));
        }
        let size = table_size(m)?;
        if m.is_boolean() {
            return Err(ArithError::BooleanProduct);
        }
        let gate = self.take_gate();
        let minus_bc = m.neg(b0.colour());
        let garbler_half = Tweak {
            domain: Domain::MulGarblerHalf,
            gate,
        };
        let evaluator_half = Tweak {
            domain: Domain::MulEvaluatorHalf,
            gate,
        };
        self.delta_ref(m);
        let Some(grouped) = self.delta_steps.get(&m) else {
            // No grouped Δ (a power-of-two modulus; the tests also drop it for odd primes to
            // check both paths agree): digit by digit, the garbler half as a projection.
            let g0 = self.garble_projection(
                Input::Label(a0),
                size,
                m,
                Phi::Times(minus_bc),
                garbler_half,
                rows,
            );
            let delta = &self.deltas[&m];
            let b = Running::Digits(b0.plus_scaled(delta, minus_bc), delta);
            let mut hashes = ColourHashes::new(&self.hash, b, evaluator_half, m, size);
            let mut e0 = Label::zero(m);
            hashes.next_digits(e0.digits_mut());
            let minus_a = a0.neg();
            garble_rows(&mut hashes, rows, e0.digits(), |_, t| {
                m.add_scaled_digits(t, minus_a.digits(), 1)
            });
            let mut c0 = g0;
            c0.add_scaled_assign(&e0, 1);
            self.table_rows += size - 1; // the evaluator half's (the projection counts its own)
            return Ok(c0);
        };
        self.table_rows += 2 * (size - 1);
        let row_hash = self.hash.rows();
        // Garbler half: the projection x ↦ −b_c·x of A (x = x0 + colour), whose targets
        // G^(φ(x0)) + (φ(x) − φ(x0))·Δ step by −b_c·Δ; G^0 = G^(φ(x0)) − φ(x0)·Δ. The output
        // C^0 = G^0 + E^0 is summed in `c0`, from −φ(x0)·Δ.
        let x0 = m.neg(a0.colour());
        let mut c0 = grouped.multiple(m.neg(m.mul(minus_bc, x0))).into_owned();
        let mut a = GroupedLabel::zero(m);
        a.fill_from_digits(a0.digits());
        let minus_a = grouped.negate(&a);
        grouped.add_multiple(&mut a, x0);
        let by = grouped.multiple(minus_bc);
        garble_linear_half(row_hash, garbler_half, &mut a, grouped, &by, &mut c0, rows);
        // Evaluator half: rows T_E[β] = (E^0 − β·a) ⊞ H(B^β), targets stepping by −a from
        // E^0 = H(B^(−b_c)).
        let mut b = GroupedLabel::zero(m);
        b.fill_from_digits(b0.digits());
        b.add_step(&by, &grouped.shape);
        garble_linear_half(row_hash, evaluator_half, &mut b, grouped, &minus_a, &mut c0, rows);
        Ok(c0.to_label())
    }
}

/// A linear half gate mod an odd prime p, in and out (BMR16's generalized half gates: the
/// garbler half of a product is the projection x ↦ k·x of A, the evaluator half translates
/// β·a). Hashes `input` under `tweak` at its p colours (colour 0 first, stepping it by
/// Δ_p) and appends the rows of colours c = 1 … p − 1, whose targets are H_0 + c·`by` (H_0
/// the colour-0 hash), each masked by its colour's hash ([`write_masked_groups`]); adds H_0
/// to `output`.
///
/// These are the rows of [`ArithGarbler::garble_projection`] with φ linear (the
/// digit-by-digit path garbles the same bytes, tested), computed without a base-p join:
/// inputs and targets keep their group values ([`GroupedLabel::add_step`]), and the
/// inputs are hashed [`BATCH`] colours per AES call.
fn garble_linear_half(
    row_hash: &RowHash,
    tweak: Tweak,
    input: &mut GroupedLabel,
    delta: &GroupedDelta,
    by: &GroupedLabel,
    output: &mut GroupedLabel,
    rows: &mut Vec<u8>,
) {
    let m = input.modulus();
    let p = table_size(m).expect("an odd prime below the table limit") as usize;
    let per_input = blocks_per_label(m);
    let mut encoded = [Encoded::default(); BATCH];
    let mut blocks = [0u128; BATCH * MAX_BLOCKS];
    let mut pad = [0u64; MAX_BLOCKS];
    let pad = &mut pad[..m.group_count()];
    // Hashes the colours from `from` (the input being at colour `from`) on to the end of
    // their batch, leaving the input at the batch's last colour.
    let mut hash_batch = |input: &mut GroupedLabel, from: usize, blocks: &mut [u128]| {
        let n = BATCH.min(p - from);
        for (i, e) in encoded[..n].iter_mut().enumerate() {
            if i > 0 {
                input.add_step(&delta.delta, &delta.shape);
            }
            // Encoded in place: an `Encoded` returned through memory, written field by
            // field and read back as whole vectors, stalls store forwarding.
            *e = encode_groups(m, input.groups());
        }
        row_hash.hash_blocks(&encoded[..n], |_| tweak, m, &mut blocks[..n * per_input]);
    };
    hash_batch(input, 0, &mut blocks);
    blocks_to_groups(&blocks[..per_input], m, pad);
    let mut target = GroupedLabel::zero(m);
    target.fill_from_groups(pad);
    output.add_step(&target, &delta.shape);
    // Room for the rows, and for the whole-word writes of the last one.
    rows.reserve(table_bytes::rows(m, p as u64 - 1).bytes + 8);
    for colour in 1..p {
        let slot = colour % BATCH;
        if slot == 0 {
            input.add_step(&delta.delta, &delta.shape);
            hash_batch(input, colour, &mut blocks);
        }
        blocks_to_groups(&blocks[slot * per_input..(slot + 1) * per_input], m, pad);
        target.add_step(by, &delta.shape);
        write_masked_groups(m, target.groups(), pad, rows);
    }
}
