//! mixgc's own CPU time for a circuit: garbled and evaluated in memory (no network, one
//! thread, half-gates with the default re-keyed hash), the baseline `mixgc sim` reports the
//! HAAC model's speedup against.

use std::time::Instant;

use mixgc_compile::CompiledCircuit;
use mixgc_core::{new_rng, AnyHash, Block, HashKind};
use mixgc_garble::{Evaluator, Garbler, Scheme};
use rand::Rng;
use serde::Serialize;

use crate::bench::median;
use crate::common::CliError;

/// Median seconds of one garbling and one evaluation of a circuit.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct CpuTime {
    pub garble_seconds: f64,
    pub evaluate_seconds: f64,
    pub ands: u64,
    /// Runs the medians are over.
    pub runs: usize,
}

/// Garbles and evaluates `circuit` on random inputs, repeating (at most 25 times) until
/// `min_seconds` have been spent; the first run's decoded outputs are checked against the
/// plaintext engine, so the time is that of a correct run.
pub fn measure(circuit: &CompiledCircuit, min_seconds: f64) -> Result<CpuTime, CliError> {
    let mut rng = new_rng(None, 0);
    let delta = Block::random(&mut rng).with_lsb_set();
    let seed = Block::random(&mut rng);
    let hash = HashKind::default();
    let mut tables = Vec::with_capacity(circuit.num_ands() as usize * 2);
    let (mut garble, mut eval) = (Vec::new(), Vec::new());
    let start = Instant::now();
    while garble.is_empty() || (start.elapsed().as_secs_f64() < min_seconds && garble.len() < 25) {
        let mut garbler = Garbler::new(AnyHash::new(hash, seed), delta);
        let mut evaluator = Evaluator::with_scheme(AnyHash::new(hash, seed), Scheme::HalfGates, 0);
        let bits: Vec<bool> = (0..circuit.input_slots().len()).map(|_| rng.gen()).collect();
        let zero: Vec<Block> = bits.iter().map(|_| Block::random(&mut rng)).collect();
        let active: Vec<Block> = zero
            .iter()
            .zip(&bits)
            .map(|(&z, &b)| z ^ delta.and_bit(b))
            .collect();
        let consts = [Block::random(&mut rng), Block::random(&mut rng)];
        tables.clear();
        let t = Instant::now();
        garbler.start(circuit, &zero, consts);
        garbler.garble(circuit.body(), &mut tables, usize::MAX);
        garble.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        evaluator.start(circuit, &active, [consts[0], consts[1] ^ delta]);
        evaluator.evaluate(circuit.body(), &tables);
        eval.push(t.elapsed().as_secs_f64());
        if garble.len() == 1 {
            let want = circuit.eval_plain(&bits);
            let zeros = garbler.output_zero_labels(circuit);
            let got: Vec<bool> = evaluator
                .output_labels(circuit)
                .iter()
                .zip(&zeros)
                .map(|(l, z)| l.lsb() ^ z.lsb())
                .collect();
            if got != want {
                return Err("in-memory garbling produced a wrong output".into());
            }
        }
    }
    Ok(CpuTime {
        runs: garble.len(),
        garble_seconds: median(garble),
        evaluate_seconds: median(eval),
        ands: circuit.num_ands(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mixgc_circuit::shipped::AES_128;
    use mixgc_compile::Loaded;

    #[test]
    fn measures_a_correct_run() {
        let aes = Loaded::parse(AES_128, "aes_128.txt").unwrap().compiled;
        let t = measure(&aes, 0.0).unwrap();
        assert_eq!(t.runs, 1);
        assert_eq!(t.ands, aes.num_ands());
        assert!(t.garble_seconds > 0.0 && t.evaluate_seconds > 0.0);
    }
}
