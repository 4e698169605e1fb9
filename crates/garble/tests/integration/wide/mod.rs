//! A wide circuit for the thread tests and the `threads` example: independent AES-128
//! encryptions side by side, recorded with the program interface.

use mixgc_circuit::Circuit;
use mixgc_program::gadgets::aes::aes128;
use mixgc_program::{Backend, PartyId, Recorder};

/// `n` AES-128 encryptions, each of its own key (garbler) and plaintext (evaluator): inputs
/// are the `n` keys then the `n` plaintexts, outputs the `n` ciphertexts.
pub fn wide_aes(n: usize) -> Circuit {
    let mut r = Recorder::default();
    for _ in 0..n {
        let key = r
            .input(PartyId::GARBLER, 128, None)
            .expect("recording cannot fail");
        let pt = r
            .input(PartyId::EVALUATOR, 128, None)
            .expect("recording cannot fail");
        let ct = aes128(&mut r, &key, &pt);
        r.output(&ct).expect("recording cannot fail");
    }
    r.finish().circuit
}
