//! Evaluator side of the arithmetic gadgets, sans-IO: active labels and garbled-table
//! bytes in, active labels out. Calls must follow the garbler's order (same gate indices).

use crate::codec::{Rows, TableReader};
use crate::composition::{composition_jobs, Term};
use crate::encoding::{Encoded, MAX_BLOCKS};
use crate::garbler::table_size;
use crate::grouped::MAX_ODD_LABEL_LEN;
use crate::row_hash::{blocks_to_groups, BATCH};
use crate::tweak::encode;
use mixgc_core::Block;

use crate::hash::ArithHash;
use crate::tweak::{Domain, Input, Tweak};
use crate::{ArithError, Label, Modulus};

/// The evaluator: the session hash and the global gate index.
pub struct ArithEvaluator {
    pub(crate) hash: ArithHash,
    next_gate: u64,
}

/// The tweaks of a product's two half gates (BMR16), under its gate index.
fn halves(gate: u64) -> [Tweak; 2] {
    [Domain::MulGarblerHalf, Domain::MulEvaluatorHalf].map(|domain| Tweak { domain, gate })
}

impl ArithEvaluator {
    /// An evaluator for the session whose garbler announced `session_key`
    /// ([`crate::ArithGarbler::session_key`]).
    pub fn new(session_key: [u8; 32]) -> ArithEvaluator {
        ArithEvaluator {
            hash: ArithHash::new(session_key),
            next_gate: 0,
        }
    }

    /// Gated calls so far (the next gate's index).
    pub fn gates_evaluated(&self) -> u64 {
        self.next_gate
    }

    /// The value on a wire, from its active label and the garbler's
    /// [`crate::ArithGarbler::decoding`]: colour(W^x) − colour(W^0) = x.
    pub fn decode(label: &Label, decoding: u64) -> u64 {
        let m = label.modulus();
        m.sub(label.colour(), m.reduce(decoding as u128))
    }

    /// A projection gate (or public exponentiation) on active label `a`, with output
    /// modulus `out`; reads its p − 1 rows from `tables`.
    pub fn project(
        &mut self,
        a: &Label,
        out: Modulus,
        tables: &mut TableReader,
    ) -> Result<Label, ArithError> {
        let size = table_size(a.modulus())?;
        let tweak = self.next_tweak(Domain::Projection);
        self.evaluate_projection(Input::Label(a), size, out, tweak, tables)
    }

    /// [`Self::project`] to Z_2, returning the output as its free-XOR block.
    pub fn project_to_bit(&mut self, a: &Label, tables: &mut TableReader) -> Result<Block, ArithError> {
        let size = table_size(a.modulus())?;
        let tweak = self.next_tweak(Domain::Projection);
        self.evaluate_projection_to_bits(Input::Label(a), size, tweak, tables)
    }

    /// The evaluator's half of bit compositions ([`crate::ArithGarbler::compose_powers`]): for
    /// each term, the sum of the projections of its Boolean labels to Z_m, one gate and one
    /// row each, term by term (the weights are in the garbler's rows). `BATCH` bits, of any
    /// terms, share each AES call.
    pub fn compose_powers(
        &mut self,
        terms: &[Term],
        tables: &mut TableReader,
    ) -> Result<Vec<Label>, ArithError> {
        for &(_, out) in terms {
            self.hash.composition_hash(out)?;
        }
        let jobs = composition_jobs(terms);
        let first_gate = self.take_gates(jobs.len() as u64);
        let mut sums: Vec<Label> = terms.iter().map(|&(_, out)| Label::zero(out)).collect();
        let (mut digits, mut pad) = ([0u64; MAX_ODD_LABEL_LEN], [0u64; MAX_BLOCKS]);
        for (n, chunk) in jobs.chunks(BATCH).enumerate() {
            let gate = first_gate + (n * BATCH) as u64;
            let mut encoded = [Encoded::default(); BATCH];
            for (e, &(_, bit, _)) in encoded.iter_mut().zip(chunk) {
                *e = encode(Input::Bits(bit));
            }
            let target_of = |i: usize| {
                let tweak = Tweak {
                    domain: Domain::Projection,
                    gate: gate + i as u64,
                };
                (tweak, terms[chunk[i].0].1)
            };
            let mut blocks = [0u128; BATCH * MAX_BLOCKS];
            let blocks = &mut blocks[..chunk.len() * MAX_BLOCKS];
            self.hash
                .rows()
                .hash_blocks_to(&encoded[..chunk.len()], target_of, blocks);
            for (&(k, bit, _), blocks) in chunk.iter().zip(blocks.chunks_exact(MAX_BLOCKS)) {
                let out = terms[k].1;
                let digits = &mut digits[..out.label_len()];
                let rows = tables.rows(out, 1)?;
                blocks_to_groups(blocks, out, &mut pad);
                rows.open(u64::from(bit.lsb()), &pad, digits)?;
                out.add_scaled_digits(sums[k].digits_mut(), digits, 1);
            }
        }
        Ok(sums)
    }

    /// The product of active labels `a` and `b` (same modulus m; may be one wire); reads
    /// 2(m − 1) rows. See [`crate::ArithGarbler::mul`] for the construction.
    pub fn mul(&mut self, a: &Label, b: &Label, tables: &mut TableReader) -> Result<Label, ArithError> {
        Ok(self.mul_many(&[(a, b)], tables)?.remove(0))
    }

    /// [`Self::mul`] of each pair (a, b) in order (a CRT bundle's wires): the same gates and
    /// rows, with the hashes of the products mod odd primes batched across pairs (both
    /// halves of `BATCH`/2 products per AES call).
    pub fn mul_many(
        &mut self,
        pairs: &[(&Label, &Label)],
        tables: &mut TableReader,
    ) -> Result<Vec<Label>, ArithError> {
        // In order: each pair's gate and rows (a pair mod 2 or 2^k is evaluated here).
        let mut products = Vec::with_capacity(pairs.len());
        let mut pending = Vec::with_capacity(pairs.len());
        for (i, &(a, b)) in pairs.iter().enumerate() {
            let m = a.modulus();
            if b.modulus() != m {
                return Err(ArithError::ModulusMismatch(m, b.modulus()));
            }
            let size = table_size(m)? as usize;
            if m.is_boolean() {
                return Err(ArithError::BooleanProduct);
            }
            let [garbler_half, evaluator_half] = halves(self.take_gate());
            let rows = [tables.rows(m, size - 1)?, tables.rows(m, size - 1)?];
            if m.odd_prime_value().is_none() {
                // A label mod 2^k, hashed with BLAKE3: on its own.
                let g = self.unmask(Input::Label(a), garbler_half, m, &rows[0])?;
                let mut e = self.unmask(Input::Label(b), evaluator_half, m, &rows[1])?;
                e.add_scaled_assign(a, b.colour());
                e.add_scaled_assign(&g, 1);
                products.push(e);
                continue;
            }
            products.push(Label::zero(m));
            pending.push((i, garbler_half.gate, rows));
        }
        for jobs in pending.chunks(BATCH / 2) {
            let mut encoded = [Encoded::default(); BATCH];
            for (e, &(i, _, _)) in encoded.chunks_exact_mut(2).zip(jobs) {
                (e[0], e[1]) = (encode(Input::Label(pairs[i].0)), encode(Input::Label(pairs[i].1)));
            }
            let mut blocks = [0u128; BATCH * MAX_BLOCKS];
            let blocks = &mut blocks[..2 * jobs.len() * MAX_BLOCKS];
            let target = |k: usize| {
                let (i, gate, _) = jobs[k / 2];
                (halves(gate)[k % 2], pairs[i].0.modulus())
            };
            self.hash
                .rows()
                .hash_blocks_to(&encoded[..2 * jobs.len()], target, blocks);
            // G and E − … are opened into one label: G + (E' + β·A) = G + E, β = colour(B).
            for ((i, _, rows), blocks) in jobs.iter().zip(blocks.chunks_exact(2 * MAX_BLOCKS)) {
                let ((a, b), product) = (pairs[*i], &mut products[*i]);
                let m = a.modulus();
                let (mut e, mut pad) = ([0u64; MAX_ODD_LABEL_LEN], [0; MAX_BLOCKS]);
                let e = &mut e[..m.label_len()];
                blocks_to_groups(&blocks[..MAX_BLOCKS], m, &mut pad);
                rows[0].open(a.colour(), &pad, product.digits_mut())?;
                blocks_to_groups(&blocks[MAX_BLOCKS..], m, &mut pad);
                rows[1].open(b.colour(), &pad, e)?;
                m.add_scaled_sum_digits(product.digits_mut(), e, a.digits(), b.colour());
            }
        }
        Ok(products)
    }

    /// The first of `n` consecutive global gate indices, taken together.
    fn take_gates(&mut self, n: u64) -> u64 {
        let first = self.next_gate;
        self.next_gate += n;
        first
    }

    /// The next global gate index (each gated call takes one, as the garbler's).
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

    /// C = T[colour(A)] ⊟ H(A, t), or H(A, t) at colour 0 (row reduction).
    fn evaluate_projection(
        &self,
        a: Input,
        size: u64,
        out: Modulus,
        tweak: Tweak,
        tables: &mut TableReader,
    ) -> Result<Label, ArithError> {
        if out.is_boolean() {
            return Ok(Label::from_block(
                self.evaluate_projection_to_bits(a, size, tweak, tables)?,
            ));
        }
        let rows = tables.rows(out, size as usize - 1)?;
        self.unmask(a, tweak, out, &rows)
    }

    /// The label row colour(a) of `rows` carries (masked by H(a, t), [`crate::codec`]); at
    /// colour 0, H(a, t) itself.
    fn unmask(&self, a: Input, tweak: Tweak, out: Modulus, rows: &Rows) -> Result<Label, ArithError> {
        let mut pad = out.group_buffer();
        let pad = pad.values();
        self.hash.hash_groups(a, tweak, out, pad);
        let mut label = Label::zero(out);
        rows.open(a.colour(), pad, label.digits_mut())?;
        Ok(label)
    }

    /// [`Self::evaluate_projection`] to Z_2 on free-XOR blocks.
    fn evaluate_projection_to_bits(
        &self,
        a: Input,
        size: u64,
        tweak: Tweak,
        tables: &mut TableReader,
    ) -> Result<Block, ArithError> {
        let rows = tables.rows(Modulus::BOOLEAN, size as usize - 1)?;
        let mut h = self.hash.hash_to_block(a, tweak);
        if let c @ 1.. = a.colour() {
            h ^= rows.get_block(c as usize - 1)?;
        }
        Ok(h)
    }
}
