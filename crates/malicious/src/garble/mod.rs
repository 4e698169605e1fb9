//! Authenticated garbling and the online phase: WRK17 (CCS 2017, ePrint 2017/030, Fig. 2)
//! with KRRW18's half-size garbling (CRYPTO 2018, ePrint 2018/578, §4): two blocks and one
//! bit per AND gate, and an AND consistency check before any output. Both parties walk
//! the circuit in batches of `batch_ands` AND gates (TinyGarble2 thesis §3.3.2): for each
//! batch they draw fresh masks and triples from the [`crate::Preprocessor`], open the
//! Beaver differences of the AND masks, the garbler garbles and sends the batch, the
//! evaluator evaluates it and returns its masked AND outputs (bound by a hash of their
//! labels), the garbler adds its blocks to the consistency check, and the batch is freed.
//! The parties run a compiled gate stream (`mixgc_compile`), whose slot numbering bounds
//! the per-wire state by the live wires: memory is O(batch + live wires) whatever the
//! circuit's size.
//!
//! Order of a run: header (stream digest and terms) → input processing (WRK17 Fig. 2 step
//! 5, for all inputs) → batches → the consistency check → output decoding (step 7, and
//! output to the garbler by label and MAC). Deviating from WRK17, a batch is garbled after
//! the input processing (as the thesis's batched design must): the masked values the
//! garbler sees then are uniform and independent of the evaluator's input, so no choice
//! it makes can depend on that input.

mod batch;
mod bits;
pub mod checks;
mod digest;
mod evaluator;
mod garbler;
mod masks;
mod open;
mod program;
mod share;
mod table;
mod terms;

pub use evaluator::{run_evaluator, run_evaluator_stream};
pub use garbler::{run_garbler, run_garbler_stream};
pub use program::MaliciousProgram;
pub use table::TABLE_BLOCKS;
pub use terms::{Deviation, Settings, Terms, DEFAULT_BATCH_ANDS, MAX_BATCH_ANDS, MAX_SLOTS};

/// The output bits cut into the circuit's output values.
fn split_outputs(widths: &[u32], bits: &[bool]) -> Vec<Vec<bool>> {
    let mut rest = bits;
    widths
        .iter()
        .map(|&w| {
            let (v, r) = rest.split_at(w as usize);
            rest = r;
            v.to_vec()
        })
        .collect()
}
