//! Projection gates (BMR16 §4, row-reduced) and public exponentiation, and the
//! colour-by-colour machinery the products reuse.

use mixgc_core::Block;

use super::{table_size, ArithGarbler};
use crate::codec::write_masked_row;
use crate::encoding::{Encoded, MAX_BLOCKS};
use crate::grouped::{GroupedDelta, GroupedLabel};
use crate::hash::ArithHash;
use crate::row_hash::{blocks_per_label, blocks_to_groups, BATCH};
use crate::tweak::encode;
use crate::tweak::{Domain, Input, Tweak};
use crate::{table_bytes, ArithError, Label, Modulus};

impl ArithGarbler {
    /// Projection gate: the wire with zero-label `a0` (mod p ≤ [`crate::MAX_ROWS_MODULUS`]) to a
    /// new wire mod `out` carrying `table[x]` (entries in Z_out; the table stays the
    /// garbler's secret). Appends p − 1 rows to `rows` and returns the output zero-label.
    pub fn project(
        &mut self,
        a0: &Label,
        out: Modulus,
        table: &[u64],
        rows: &mut Vec<u8>,
    ) -> Result<Label, ArithError> {
        let size = check_table(a0.modulus(), out, table)?;
        let tweak = self.next_tweak(Domain::Projection);
        Ok(self.garble_projection(Input::Label(a0), size, out, Phi::Table(table), tweak, rows))
    }

    /// [`Self::project`] to Z_2, returning the output as its free-XOR block.
    pub fn project_to_bit(
        &mut self,
        a0: &Label,
        table: &[u64],
        rows: &mut Vec<u8>,
    ) -> Result<Block, ArithError> {
        let size = check_table(a0.modulus(), Modulus::BOOLEAN, table)?;
        let tweak = self.next_tweak(Domain::Projection);
        Ok(self.garble_projection_to_bits(Input::Label(a0), size, Phi::Table(table), tweak, rows))
    }

    /// Public exponentiation x ↦ x^e on the wire with zero-label `a0` (0^0 = 1): a
    /// projection Z_p → Z_p. The evaluator runs it as [`crate::ArithEvaluator::project`].
    pub fn pow(&mut self, a0: &Label, e: u64, rows: &mut Vec<u8>) -> Result<Label, ArithError> {
        let m = a0.modulus();
        let table: Vec<u64> = (0..table_size(m)?).map(|x| m.pow(x, e)).collect();
        self.project(a0, m, &table, rows)
    }

    /// The input of a projection at colour 0 (stepped through the colours by
    /// [`Running::step`]), the value x0 it carries, and its modulus. The Δ of the input
    /// modulus must have been drawn ([`Self::delta_ref`]).
    fn running_input(&self, a0: Input) -> (Running<'_>, u64, Modulus) {
        match a0 {
            Input::Label(a0) => {
                let (m, delta) = (a0.modulus(), &self.deltas[&a0.modulus()]);
                let x0 = m.neg(a0.colour());
                let running = match self.delta_steps.get(&m) {
                    Some(step) => {
                        let mut a = GroupedLabel::from_digits(m, a0.digits());
                        step.add_multiple(&mut a, x0);
                        Running::Grouped(a, step)
                    }
                    None => Running::Digits(a0.plus_scaled(delta, x0), delta),
                };
                (running, x0, m)
            }
            Input::Grouped(_) => unreachable!("projections take labels or blocks"),
            Input::Bits(a0) => {
                let x0 = u64::from(a0.lsb());
                let running = Running::Bits(a0 ^ self.times_boolean_delta(x0), self.boolean_delta);
                (running, x0, Modulus::BOOLEAN)
            }
        }
    }

    /// Draws the Δs a projection of `a0` to Z_`out` uses.
    fn draw_deltas(&mut self, a0: Input, out: Modulus) {
        if let Input::Label(a0) = a0 {
            self.delta_ref(a0.modulus());
        }
        self.delta_ref(out);
    }

    /// Row-reduced projection (BMR16 §4 with row reduction): the value x0 whose label has
    /// colour 0 defines the output, C^(φ(x0)) = H(A^x0, t), so that row is zero and not sent;
    /// for colours c = 1..p−1, x = x0 + c and row T[c] = (C^0 + φ(x)·Δ_q) ⊞ H(A^x, t): the
    /// target label masked group by group in Z_{q^len} ([`write_masked_row`]; a one-time
    /// pad, as the group values of H are uniform up to 2^−64 each). The evaluator computes
    /// C = T[colour(A)] ⊟ H(A, t), or C = H(A, t) at colour 0. `size` is p ([`table_size`]).
    /// Masking the packed groups rather than the digits saves splitting each row's hash
    /// into digits.
    ///
    /// For a linear φ(x) = k·x the targets C^0 + φ(x)·Δ_q start at H(A^x0, t) (colour 0)
    /// and step by k·Δ_q, so the rows need no multiplication.
    pub(super) fn garble_projection(
        &mut self,
        a0: Input,
        size: u64,
        out: Modulus,
        phi: Phi,
        tweak: Tweak,
        rows: &mut Vec<u8>,
    ) -> Label {
        if out.is_boolean() {
            return Label::from_block(self.garble_projection_to_bits(a0, size, phi, tweak, rows));
        }
        self.table_rows += size - 1;
        self.draw_deltas(a0, out);
        let (a, x0, m) = self.running_input(a0);
        let mut hashes = ColourHashes::new(&self.hash, a, tweak, out, size);
        let delta_out = &self.deltas[&out];
        // C^(φ(x0)) = H(A^x0), for now
        let mut c0 = Label::zero(out);
        hashes.next_digits(c0.digits_mut());
        let phi_x0 = phi.at(out, x0);
        garble_rows(&mut hashes, rows, c0.digits(), |colour, t| {
            // C^0 + φ(x)·Δ = C^(φ(x0)) + (φ(x) − φ(x0))·Δ
            let phi_x = phi.at(out, m.add(x0, colour));
            out.set_scaled_sum(t, c0.digits(), delta_out.digits(), out.sub(phi_x, phi_x0));
        });
        c0.add_scaled_assign(delta_out, out.neg(phi.at(out, x0)));
        c0
    }

    /// [`Self::garble_projection`] to Z_2 on free-XOR blocks (a mod-2 label is its block,
    /// + and − are ⊕, c·Δ is Δ or 0): the same rows, without 128-digit label arithmetic.
    pub(super) fn garble_projection_to_bits(
        &mut self,
        a0: Input,
        size: u64,
        phi: Phi,
        tweak: Tweak,
        rows: &mut Vec<u8>,
    ) -> Block {
        self.table_rows += size - 1;
        let boolean_delta = self.boolean_delta;
        self.draw_deltas(a0, Modulus::BOOLEAN);
        let (a, x0, m) = self.running_input(a0);
        let mut hashes = ColourHashes::new(&self.hash, a, tweak, Modulus::BOOLEAN, size);
        let times_delta = |x: u64| match phi.at(Modulus::BOOLEAN, x) {
            0 => Block::ZERO,
            _ => boolean_delta,
        };
        let c0 = hashes.next_block() ^ times_delta(x0);
        rows.reserve(table_bytes::rows(Modulus::BOOLEAN, size - 1).bytes);
        for c in 1..size {
            let hash = hashes.next_block(); // colour c, value x0 + c
            let row = c0 ^ times_delta(m.add(x0, c)) ^ hash;
            rows.extend_from_slice(&row.to_u128().to_le_bytes());
        }
        c0
    }
}

/// The rows of a projection-like gate, colours 1..`size`, after `hashes` gave colour 0:
/// `target` moves a digit buffer, which starts at `first` (the target of colour 0), to the
/// target label of each colour in turn, and the row is that label masked by the colour's
/// hash ([`write_masked_row`]). The digits stay in a stack buffer.
pub(super) fn garble_rows(
    hashes: &mut ColourHashes,
    rows: &mut Vec<u8>,
    first: &[u64],
    mut target: impl FnMut(u64, &mut [u64]),
) {
    let out = hashes.out;
    let (mut digits, mut pad) = (first.to_vec(), out.group_buffer());
    let pad = pad.values();
    rows.reserve(table_bytes::rows(out, hashes.left).bytes);
    for colour in 1..=hashes.left {
        hashes.next_groups(pad);
        target(colour, &mut digits);
        write_masked_row(out, &digits, pad, rows);
    }
}

/// The hashes H(A^x, t) of a projection's input at colours 0, 1, …, `size` − 1, in order:
/// [`BATCH`] colours at a time under the AES row hash (the AES kernel keeps them in flight),
/// one at a time under BLAKE3.
pub(super) struct ColourHashes<'a> {
    hash: &'a ArithHash,
    input: Running<'a>,
    tweak: Tweak,
    out: Modulus,
    /// Colours not yet handed out.
    left: u64,
    /// Whether the input is still at colour 0 (not yet hashed).
    at_start: bool,
    /// Output blocks of the current batch, [`blocks_per_label`] per colour, and the next
    /// colour's position in it.
    blocks: [u128; BATCH * MAX_BLOCKS],
    ready: usize,
    next: usize,
}

impl<'a> ColourHashes<'a> {
    pub(super) fn new(
        hash: &'a ArithHash,
        input: Running<'a>,
        tweak: Tweak,
        out: Modulus,
        size: u64,
    ) -> Self {
        ColourHashes {
            hash,
            input,
            tweak,
            out,
            left: size,
            at_start: true,
            blocks: [0; BATCH * MAX_BLOCKS],
            ready: 0,
            next: 0,
        }
    }

    /// Moves the input to the next colour (the first call keeps colour 0).
    fn step(&mut self) {
        if !std::mem::replace(&mut self.at_start, false) {
            self.input.step();
        }
    }

    /// The output blocks of the next colour under the AES row hash (hashing the next batch
    /// when the current one is used up), or `None` when BLAKE3 hashes these labels.
    fn next_blocks(&mut self) -> Option<&[u128]> {
        assert!(self.left > 0, "more colours asked for than the input has");
        let row_hash = self.hash.row_hash(self.input.input(), self.out)?;
        let per_input = blocks_per_label(self.out);
        if self.next == self.ready {
            let n = BATCH.min(self.left as usize);
            let mut encoded = [Encoded::default(); BATCH];
            for e in &mut encoded[..n] {
                self.step();
                *e = encode(self.input.input());
            }
            row_hash.hash_blocks(
                &encoded[..n],
                |_| self.tweak,
                self.out,
                &mut self.blocks[..n * per_input],
            );
            (self.ready, self.next) = (n, 0);
        }
        self.left -= 1;
        self.next += 1;
        Some(&self.blocks[(self.next - 1) * per_input..self.next * per_input])
    }

    /// The next colour's hash as the values of its digit groups (a mod-2^k or odd-prime
    /// output; [`Modulus::group_count`] of them).
    fn next_groups(&mut self, groups: &mut [u64]) {
        let out = self.out;
        if let Some(blocks) = self.next_blocks() {
            return blocks_to_groups(blocks, out, groups);
        }
        self.step();
        self.left -= 1;
        self.hash.hash_groups(self.input.input(), self.tweak, out, groups);
    }

    /// The next colour's hash, written over `digits` (ℓ(out) of them).
    pub(super) fn next_digits(&mut self, digits: &mut [u64]) {
        let mut groups = self.out.group_buffer();
        let groups = groups.values();
        self.next_groups(groups);
        self.out.split_groups(groups, digits);
    }

    /// The next colour's hash to Z_2, as its block (`out` must be [`Modulus::BOOLEAN`]).
    fn next_block(&mut self) -> Block {
        debug_assert!(self.out.is_boolean());
        if let Some(blocks) = self.next_blocks() {
            return Block::from_u128(blocks[0]);
        }
        self.step();
        self.left -= 1;
        self.hash.hash_to_block(self.input.input(), self.tweak)
    }
}

/// A projection's output function φ: a table, or x ↦ k·x (the garbler half of a product).
#[derive(Clone, Copy)]
pub(super) enum Phi<'a> {
    Table(&'a [u64]),
    Times(u64),
}

impl Phi<'_> {
    /// φ(x) ∈ Z_out (for [`Phi::Times`], x is an input value and Z_out the input's ring).
    fn at(self, out: Modulus, x: u64) -> u64 {
        match self {
            Phi::Table(table) => table[x as usize],
            Phi::Times(k) => out.mul(k, x),
        }
    }
}

/// Checks a projection table from Z_`m` to Z_`out`; returns m, its length.
fn check_table(m: Modulus, out: Modulus, table: &[u64]) -> Result<u64, ArithError> {
    let size = table_size(m)?;
    if table.len() as u64 != size {
        return Err(ArithError::TableLength {
            modulus: m,
            expected: size as usize,
            got: table.len(),
        });
    }
    if let Some(&v) = table.iter().find(|&&v| v as u128 >= out.value()) {
        return Err(ArithError::OutOfRange {
            what: "table entry",
            value: v as u128,
            modulus: out,
        });
    }
    Ok(size)
}

/// The input wire of a projection while its rows are garbled: its label of one colour and
/// its Δ, stepped through the colours by adding Δ. A mod-2 input is kept as its free-XOR
/// block.
// The grouped label is inline (no allocation per gate); a `Running` lives on the stack for
// one gate, so its size does not matter.
#[allow(clippy::large_enum_variant)]
pub(super) enum Running<'a> {
    /// An odd-prime label, kept with its group values.
    Grouped(GroupedLabel, &'a GroupedDelta),
    Digits(Label, &'a Label),
    Bits(Block, Block),
}

impl Running<'_> {
    fn input(&self) -> Input<'_> {
        match self {
            Running::Grouped(label, _) => Input::Grouped(label),
            Running::Digits(label, _) => Input::Label(label),
            Running::Bits(block, _) => Input::Bits(*block),
        }
    }

    /// Moves to the label of the next colour.
    fn step(&mut self) {
        match self {
            Running::Grouped(label, delta) => label.add_step(&delta.delta, &delta.shape),
            Running::Digits(label, delta) => label.add_scaled_assign(delta, 1),
            Running::Bits(block, delta) => *block ^= *delta,
        }
    }
}
