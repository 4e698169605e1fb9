//! The garbler's half of bit compositions into odd primes: one row-reduced projection
//! b ↦ 2^j·b per bit, batched across terms.

use super::ArithGarbler;
use crate::codec::write_masked_row;
use crate::composition::{composition_jobs, term_sizes, Term};
use crate::encoding::{Encoded, MAX_BLOCKS};
use crate::grouped::MAX_ODD_LABEL_LEN;
use crate::row_hash::{blocks_to_groups, BATCH};
use crate::tweak::encode;
use crate::tweak::{Domain, Input, Tweak};
use crate::{table_bytes, ArithError, Label};

impl ArithGarbler {
    /// The garbler's half of bit compositions: for each term (bits, m), m an odd prime, the
    /// sum of the row-reduced projections b ↦ 2^j·b of its Boolean wires (zero-labels
    /// `bits`) to Z_m, one gate and one row each, term by term. Both colours of 4 bits, of
    /// any terms, share each AES batch and no label is allocated per bit.
    ///
    /// Per bit, with x0 = lsb(a0) (the value whose label has colour 0), C = H(A^x0, t) and
    /// w = 2^j mod m: the row masks the colour-1 target C + (φ(1 − x0) − φ(x0))·Δ = C ± w·Δ,
    /// and the output zero-label C^0 = C − φ(x0)·Δ is C for x0 = 0, the target for x0 = 1.
    pub fn compose_powers(&mut self, terms: &[Term], rows: &mut Vec<u8>) -> Result<Vec<Label>, ArithError> {
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
        rows.reserve(table_bytes::compose_powers(term_sizes(terms)).bytes);
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
}
