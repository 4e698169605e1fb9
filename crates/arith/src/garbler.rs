//! Garbler side of the arithmetic gadgets, sans-IO: zero-labels in, zero-labels and
//! garbled-table bytes out (the session layer moves the bytes).
//!
//! Gadgets (BMR16 "Garbling gadgets", Ball–Malkin–Rosulek CCS 2016; ABLE §2.2):
//! - projection Z_p → Z_q of any function φ, row-reduced to p − 1 rows ([`Self::project`]);
//! - public exponentiation x ↦ x^e, a projection Z_p → Z_p ([`Self::pow`]);
//! - product of two mod-p wires by the generalized half gate, 2(p − 1) rows ([`Self::mul`]).
//!
//! Every gated call takes the next global gate index g; its hashes use the tweak
//! (domain, g), and the two halves of a product use different domains, so x·x (both
//! inputs from one wire) never hashes one label twice under one tweak (SECURITY-NOTES).

use std::collections::BTreeMap;

use mixgc_core::{Block, Rng};
use rand::{Rng as _, RngCore};

use crate::codec::{write_masked_groups, write_masked_row};
use crate::grouped::{GroupedDelta, GroupedLabel, MAX_ODD_LABEL_LEN};
use crate::hash::{ArithHash, Domain, Input, Tweak};
use crate::ring::{check_bits, RingLabel, MAX_RING_BITS, RING_DIGITS};
use crate::row_hash::{blocks_per_label, blocks_to_groups, encode, Encoded, RowHash, BATCH, MAX_BLOCKS};
use crate::side::{composition_jobs, Term};
use crate::{table_bytes, ArithError, Label, Modulus};

/// The largest input modulus of a projection or a product (their tables have m − 1 rows
/// per half).
pub const MAX_ROWS_MODULUS: u64 = 1 << 16;

/// The number of values of `m` when it is small enough to index a garbled table.
pub(crate) fn table_size(m: Modulus) -> Result<u64, ArithError> {
    match m.value_u64() {
        Some(v) if v <= MAX_ROWS_MODULUS => Ok(v),
        _ => Err(ArithError::TooManyRows(m, MAX_ROWS_MODULUS)),
    }
}

/// The garbler: its Δ per modulus, the session hash and the global gate index.
pub struct ArithGarbler {
    rng: Rng,
    pub(crate) hash: ArithHash,
    session_key: [u8; 32],
    deltas: BTreeMap<Modulus, Label>,
    /// Each odd-prime Δ_p as a grouped label ([`GroupedLabel::add_step`]), for stepping
    /// labels through the colours.
    delta_steps: BTreeMap<Modulus, GroupedDelta>,
    /// Δ_2 as its free-XOR block.
    boolean_delta: Block,
    /// The master ring offset ([`crate::ring`]): every Δ_{2^k} is its truncation mod 2^k.
    ring_delta: Option<RingLabel>,
    next_gate: u64,
    pub(crate) table_rows: u64,
}

impl ArithGarbler {
    /// A garbler whose mod-2 offset is the Boolean free-XOR `boolean_delta` (so Boolean
    /// and arithmetic gadgets share wires); the other Δ_m are drawn from `rng` when first
    /// used, as is the session's hash key.
    pub fn new(mut rng: Rng, boolean_delta: Block) -> Result<ArithGarbler, ArithError> {
        if !boolean_delta.lsb() {
            return Err(ArithError::BooleanDeltaColour);
        }
        let mut session_key = [0u8; 32];
        rng.fill_bytes(&mut session_key);
        let deltas = BTreeMap::from([(Modulus::BOOLEAN, Label::from_block(boolean_delta))]);
        Ok(ArithGarbler {
            rng,
            hash: ArithHash::new(session_key),
            session_key,
            deltas,
            delta_steps: BTreeMap::new(),
            boolean_delta,
            ring_delta: None,
            next_gate: 0,
            table_rows: 0,
        })
    }

    /// The hash key the evaluator needs ([`crate::ArithEvaluator::new`]); public.
    pub fn session_key(&self) -> [u8; 32] {
        self.session_key
    }

    /// Gated calls so far (the next gate's index).
    pub fn gates_garbled(&self) -> u64 {
        self.next_gate
    }

    /// Garbled-table rows emitted so far, counted as ABLE (Table 1) counts them: a label
    /// mod 2 or mod p is one row, a ring label mod 2^k is k rows (k·128 bits).
    pub fn table_rows(&self) -> u64 {
        self.table_rows
    }

    /// Δ_{2^bits} (1 ≤ bits ≤ 128): the master ring offset mod 2^bits, drawn on first use
    /// with colour digit 1 and digit-wise low bits equal to the Boolean Δ ([`RingLabel`]).
    pub fn ring_delta(&mut self, bits: u32) -> Result<RingLabel, ArithError> {
        check_bits(bits)?;
        self.ring_master_delta().truncate(bits)
    }

    /// The master ring offset Δ_{2^128} (every Δ_{2^k} is it mod 2^k), drawn on first use.
    pub(crate) fn ring_master_delta(&mut self) -> &RingLabel {
        let (boolean, rng) = (self.boolean_delta.to_u128(), &mut self.rng);
        self.ring_delta.get_or_insert_with(|| {
            let words = (0..RING_DIGITS).map(|d| match d {
                0 => 1,
                _ => (rng.gen::<u128>() << 1) | (boolean >> d) & 1,
            });
            RingLabel::from_words(MAX_RING_BITS, words)
        })
    }

    /// The zero-label of a new ring wire mod 2^bits.
    pub fn new_ring_wire(&mut self, bits: u32) -> Result<RingLabel, ArithError> {
        check_bits(bits)?;
        let rng = &mut self.rng;
        Ok(RingLabel::from_words(bits, (0..RING_DIGITS).map(|_| rng.gen())))
    }

    /// The label of `x` mod 2^k on the ring wire with zero-label `zero`.
    pub fn encode_ring(&mut self, zero: &RingLabel, x: u128) -> Result<RingLabel, ArithError> {
        let bits = zero.bits();
        if bits < 128 && x >> bits != 0 {
            return Err(ArithError::Conversion(format!("value {x} is not below 2^{bits}")));
        }
        zero.add_scaled(&self.ring_delta(bits)?, x)
    }

    /// Δ_m, drawn on first use.
    pub fn delta(&mut self, m: Modulus) -> Label {
        self.delta_ref(m).clone()
    }

    /// Δ_m by reference, drawn on first use (and kept as a step too for an odd prime).
    fn delta_ref(&mut self, m: Modulus) -> &Label {
        let (rng, steps) = (&mut self.rng, &mut self.delta_steps);
        self.deltas.entry(m).or_insert_with(|| {
            let delta = Label::random_delta(m, rng);
            if m.odd_prime_value().is_some() {
                steps.insert(m, GroupedDelta::new(&delta));
            }
            delta
        })
    }

    /// The zero-label W^0 of a new input wire mod m.
    pub fn new_wire(&mut self, m: Modulus) -> Label {
        Label::random(m, &mut self.rng)
    }

    /// The label W^x = W^0 + x·Δ of value `x` on the wire with zero-label `zero`.
    pub fn encode(&mut self, zero: &Label, x: u64) -> Result<Label, ArithError> {
        let m = zero.modulus();
        if x as u128 >= m.value() {
            return Err(ArithError::OutOfRange {
                what: "value",
                value: x as u128,
                modulus: m,
            });
        }
        Ok(zero.plus_scaled(self.delta_ref(m), x))
    }

    /// What the evaluator needs to decode the wire with zero-label `zero`: its colour.
    /// Revealing it reveals the wire's value and nothing else.
    pub fn decoding(zero: &Label) -> u64 {
        zero.colour()
    }

    /// Projection gate: the wire with zero-label `a0` (mod p ≤ [`MAX_ROWS_MODULUS`]) to a
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
    pub(crate) fn project_to_bit(
        &mut self,
        a0: &Label,
        table: &[u64],
        rows: &mut Vec<u8>,
    ) -> Result<Block, ArithError> {
        let size = check_table(a0.modulus(), Modulus::BOOLEAN, table)?;
        let tweak = self.next_tweak(Domain::Projection);
        Ok(self.garble_projection_to_bits(Input::Label(a0), size, Phi::Table(table), tweak, rows))
    }

    /// [`Self::project`] of a mod-2 wire given as its free-XOR zero-label `a0` (one row).
    pub(crate) fn project_bit(
        &mut self,
        a0: Block,
        out: Modulus,
        table: [u64; 2],
        rows: &mut Vec<u8>,
    ) -> Result<Label, ArithError> {
        check_table(Modulus::BOOLEAN, out, &table)?;
        let tweak = self.next_tweak(Domain::Projection);
        Ok(self.garble_projection(Input::Bits(a0), 2, out, Phi::Table(&table), tweak, rows))
    }

    /// The garbler's half of bit compositions ([`crate::side::Side::compose_powers`]): for
    /// each term (bits, m), the sum of the projections b ↦ 2^j·b of its Boolean wires
    /// (zero-labels `bits`) to Z_m, one gate and one row each, term by term. Rows and
    /// outputs are those of summing [`Self::project_bit`] with tables [0, 2^j] (pinned), but
    /// both colours of 4 bits, of any terms, share each AES batch and no label is
    /// allocated per bit.
    ///
    /// Per bit, with x0 = lsb(a0) (the value whose label has colour 0), C = H(A^x0, t) and
    /// w = 2^j mod m: the row masks the colour-1 target C + (φ(1 − x0) − φ(x0))·Δ = C ± w·Δ,
    /// and the output zero-label C^0 = C − φ(x0)·Δ is C for x0 = 0, the target for x0 = 1.
    pub(crate) fn compose_powers(
        &mut self,
        terms: &[Term],
        rows: &mut Vec<u8>,
    ) -> Result<Vec<Label>, ArithError> {
        for &(_, out) in terms {
            self.hash.composition_hash(out)?;
            self.delta_ref(out);
        }
        let jobs = composition_jobs(terms);
        let first_gate = self.take_gates(jobs.len() as u64);
        let (row_hash, boolean_delta) = (self.hash.rows(), self.boolean_delta);
        let deltas: Vec<&Label> = terms.iter().map(|(_, out)| &self.deltas[out]).collect();
        let mut sums: Vec<Label> = terms.iter().map(|&(_, out)| Label::zero(out)).collect();
        let (mut c, mut target, mut pad) = ([0; MAX_ODD_LABEL_LEN], [0; MAX_ODD_LABEL_LEN], [0; MAX_BLOCKS]);
        rows.reserve(table_bytes::compose_powers(terms).bytes);
        for (n, chunk) in jobs.chunks(BATCH / 2).enumerate() {
            let gate = first_gate + (n * BATCH / 2) as u64;
            let mut encoded = [Encoded::default(); BATCH];
            for (e, &(_, a0, _)) in encoded.chunks_exact_mut(2).zip(chunk) {
                let colour0 = a0 ^ boolean_delta.and_bit(a0.lsb());
                (e[0], e[1]) = (
                    encode(Input::Bits(colour0)),
                    encode(Input::Bits(colour0 ^ boolean_delta)),
                );
            }
            let target_of = |j: usize| {
                let tweak = Tweak {
                    domain: Domain::Projection,
                    gate: gate + (j / 2) as u64,
                };
                (tweak, terms[chunk[j / 2].0].1)
            };
            let mut blocks = [0u128; BATCH * MAX_BLOCKS];
            let blocks = &mut blocks[..2 * chunk.len() * MAX_BLOCKS];
            row_hash.hash_blocks_to(&encoded[..2 * chunk.len()], target_of, blocks);
            for (&(k, a0, w), blocks) in chunk.iter().zip(blocks.chunks_exact(2 * MAX_BLOCKS)) {
                let (out, x0) = (terms[k].1, usize::from(a0.lsb()));
                let (c, target) = (&mut c[..out.label_len()], &mut target[..out.label_len()]);
                blocks_to_groups(&blocks[..MAX_BLOCKS], out, &mut pad);
                out.split_groups(&pad, c);
                blocks_to_groups(&blocks[MAX_BLOCKS..], out, &mut pad);
                out.set_scaled_sum(target, c, deltas[k].digits(), [w, out.neg(w)][x0]);
                write_masked_row(out, target, &pad, rows);
                out.add_scaled_digits(sums[k].digits_mut(), [&*c, &*target][x0], 1);
            }
        }
        self.table_rows += jobs.len() as u64;
        Ok(sums)
    }

    /// Public exponentiation x ↦ x^e on the wire with zero-label `a0` (0^0 = 1): a
    /// projection Z_p → Z_p. The evaluator runs it as [`crate::ArithEvaluator::project`].
    pub fn pow(&mut self, a0: &Label, e: u64, rows: &mut Vec<u8>) -> Result<Label, ArithError> {
        let m = a0.modulus();
        let table: Vec<u64> = (0..table_size(m)?).map(|x| m.pow(x, e)).collect();
        self.project(a0, m, &table, rows)
    }

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
            return Ok(Label::from_block(self.and_blocks(
                a0.to_block()?,
                b0.to_block()?,
                rows,
            )));
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
        let mut a = GroupedLabel::from_digits(m, a0.digits());
        let minus_a = grouped.negate(&a);
        grouped.add_multiple(&mut a, x0);
        let by = grouped.multiple(minus_bc);
        garble_linear_half(row_hash, garbler_half, &mut a, grouped, &by, &mut c0, rows);
        // Evaluator half: rows T_E[β] = (E^0 − β·a) ⊞ H(B^β), targets stepping by −a from
        // E^0 = H(B^(−b_c)).
        let mut b = GroupedLabel::from_digits(m, b0.digits());
        b.add_step(&by, &grouped.shape);
        garble_linear_half(row_hash, evaluator_half, &mut b, grouped, &minus_a, &mut c0, rows);
        Ok(c0.to_label())
    }

    /// [`Self::mul`] of two mod-2 wires (a ∧ b) on free-XOR blocks: the same two rows.
    pub(crate) fn and_blocks(&mut self, a0: Block, b0: Block, rows: &mut Vec<u8>) -> Block {
        let gate = self.take_gate();
        let bc = u64::from(b0.lsb()); // −b_c = b_c mod 2
        let garbler_half = Tweak {
            domain: Domain::MulGarblerHalf,
            gate,
        };
        let g0 = self.garble_projection_to_bits(Input::Bits(a0), 2, Phi::Times(bc), garbler_half, rows);
        let evaluator_half = Tweak {
            domain: Domain::MulEvaluatorHalf,
            gate,
        };
        let b = b0 ^ self.times_boolean_delta(bc); // colour 0
        let e0 = self.hash.hash_to_block(Input::Bits(b), evaluator_half);
        let b1 = Input::Bits(b ^ self.boolean_delta);
        let row = e0 ^ a0 ^ self.hash.hash_to_block(b1, evaluator_half); // E^0 − a − H(B^1)
        rows.extend_from_slice(&row.to_u128().to_le_bytes());
        self.table_rows += 1;
        g0 ^ e0
    }

    /// c·Δ_2 as a block (c ∈ {0, 1}).
    fn times_boolean_delta(&self, c: u64) -> Block {
        if c & 1 == 1 {
            self.boolean_delta
        } else {
            Block::ZERO
        }
    }

    /// The first of `n` consecutive global gate indices, taken together.
    fn take_gates(&mut self, n: u64) -> u64 {
        let first = self.next_gate;
        self.next_gate += n;
        first
    }

    /// The next global gate index (each gated call takes one).
    pub(crate) fn take_gate(&mut self) -> u64 {
        let gate = self.next_gate;
        self.next_gate += 1;
        gate
    }

    fn next_tweak(&mut self, domain: Domain) -> Tweak {
        Tweak {
            domain,
            gate: self.take_gate(),
        }
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
    fn garble_projection(
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
    fn garble_projection_to_bits(
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
fn garble_rows(
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
            *e = input.encoded();
        }
        row_hash.hash_blocks(&encoded[..n], |_| tweak, m, &mut blocks[..n * per_input]);
    };
    hash_batch(input, 0, &mut blocks);
    blocks_to_groups(&blocks[..per_input], m, pad);
    let mut target = GroupedLabel::from_groups(m, pad);
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

/// The hashes H(A^x, t) of a projection's input at colours 0, 1, …, `size` − 1, in order:
/// [`BATCH`] colours at a time under the AES row hash (AES-NI keeps them all in flight),
/// one at a time under BLAKE3.
struct ColourHashes<'a> {
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
    fn new(hash: &'a ArithHash, input: Running<'a>, tweak: Tweak, out: Modulus, size: u64) -> Self {
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
    fn next_digits(&mut self, digits: &mut [u64]) {
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
enum Phi<'a> {
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
enum Running<'a> {
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

#[cfg(test)]
mod tests {
    use mixgc_core::new_rng;

    use super::*;

    /// Products and projections garble to the same bytes, labels and row counts whether
    /// odd-prime labels are stepped with their group values or digit by digit (the grouped
    /// path switched off by dropping the Δ steps after the Δs are drawn).
    #[test]
    fn grouped_steps_garble_the_same_bytes_as_digit_steps() {
        let run = |grouped: bool| {
            let delta = Block::from_u128(0x1234_5678_9abc_def1);
            let mut g = ArithGarbler::new(new_rng(Some(7), 0), delta).unwrap();
            let (mut rows, mut labels) = (Vec::new(), Vec::new());
            for p in [3u64, 5, 17, 251] {
                let m = Modulus::new(p).unwrap();
                g.delta_ref(m);
                if !grouped {
                    g.delta_steps.clear();
                }
                let (a0, b0) = (g.new_wire(m), g.new_wire(m));
                labels.push(g.mul(&a0, &b0, &mut rows).unwrap());
                labels.push(g.mul(&a0, &a0, &mut rows).unwrap());
                let table: Vec<u64> = (0..p).map(|x| x * x % p).collect();
                labels.push(g.project(&a0, m, &table, &mut rows).unwrap());
            }
            (rows, labels, g.table_rows())
        };
        let (grouped, digits) = (run(true), run(false));
        assert!(!grouped.0.is_empty());
        assert_eq!(grouped, digits);
        // Two products of 2(p − 1) rows and a projection of p − 1 per prime, on both paths.
        assert_eq!(
            grouped.2,
            [3u64, 5, 17, 251].iter().map(|p| 5 * (p - 1)).sum::<u64>()
        );
    }
}
