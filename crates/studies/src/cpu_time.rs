//! mixgc's own CPU time for a circuit: garbled and evaluated in memory (no network, one
//! thread, half-gates with the default re-keyed hash), the baseline `mixgc sim` reports the
//! HAAC model's speedup against.

use std::time::{Duration, Instant};

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

/// A garbler and an evaluator sharing a Δ and hash key, in memory, with reusable table
/// buffers: the single-thread garbling and evaluation `mixgc bench` and `mixgc sim` time.
pub(crate) struct InMemory {
    garbler: Garbler<AnyHash>,
    evaluator: Evaluator<AnyHash>,
    garbling: Scheme,
    delta: Block,
    rng: mixgc_core::Rng,
    tables: Vec<Block>,
    table_bytes: Vec<u8>,
}

impl InMemory {
    /// A fresh pair for `garbling` with `hash`, Δ and the keys from the OS generator;
    /// the buffers are sized for `ands` AND gates.
    pub(crate) fn new(hash: HashKind, garbling: Scheme, ands: u64) -> Self {
        let mut rng = new_rng(None, 0);
        let delta = Block::random(&mut rng).with_lsb_set();
        let seed = Block::random(&mut rng);
        let garbler = match garbling {
            Scheme::HalfGates => Garbler::new(AnyHash::new(hash, seed), delta),
            Scheme::ThreeHalves => {
                Garbler::three_halves(AnyHash::new(hash, seed), delta, Block::random(&mut rng))
            }
        };
        let evaluator = Evaluator::with_scheme(AnyHash::new(hash, seed), garbling, 0);
        let (tables, table_bytes) = match garbling {
            Scheme::HalfGates => (Vec::with_capacity(ands as usize * 2), Vec::new()),
            Scheme::ThreeHalves => (Vec::new(), Vec::with_capacity(ands as usize * 25)),
        };
        InMemory {
            garbler,
            evaluator,
            garbling,
            delta,
            rng,
            tables,
            table_bytes,
        }
    }

    /// Garbles and evaluates `circuit` once on random inputs: (garbling time, evaluation
    /// time). With `check`, the decoded outputs are compared with the plaintext engine, so
    /// the time is that of a correct run.
    pub(crate) fn run(
        &mut self,
        circuit: &CompiledCircuit,
        check: bool,
    ) -> Result<(Duration, Duration), CliError> {
        let (delta, rng) = (self.delta, &mut self.rng);
        let bits: Vec<bool> = (0..circuit.input_slots().len()).map(|_| rng.gen()).collect();
        let zero: Vec<Block> = bits.iter().map(|_| Block::random(rng)).collect();
        let active: Vec<Block> = zero
            .iter()
            .zip(&bits)
            .map(|(&z, &b)| z ^ delta.and_bit(b))
            .collect();
        let consts = [Block::random(rng), Block::random(rng)];
        self.tables.clear();
        self.table_bytes.clear();
        let t = Instant::now();
        self.garbler.start(circuit, &zero, consts);
        match self.garbling {
            Scheme::HalfGates => self.garbler.garble(circuit.body(), &mut self.tables, usize::MAX),
            Scheme::ThreeHalves => {
                self.garbler
                    .garble_bytes(circuit.body(), &mut self.table_bytes, usize::MAX)
            }
        };
        let garble = t.elapsed();
        let t = Instant::now();
        self.evaluator
            .start(circuit, &active, [consts[0], consts[1] ^ delta]);
        match self.garbling {
            Scheme::HalfGates => self.evaluator.evaluate(circuit.body(), &self.tables),
            Scheme::ThreeHalves => self.evaluator.evaluate_bytes(circuit.body(), &self.table_bytes),
        };
        let evaluate = t.elapsed();
        if check {
            let want = circuit.eval_plain(&bits);
            let zeros = self.garbler.output_zero_labels(circuit);
            let got: Vec<bool> = self
                .evaluator
                .output_labels(circuit)
                .iter()
                .zip(&zeros)
                .map(|(l, z)| l.lsb() ^ z.lsb())
                .collect();
            if got != want {
                return Err("in-memory garbling produced a wrong output".into());
            }
        }
        Ok((garble, evaluate))
    }
}

/// Garbles and evaluates `circuit` on random inputs, repeating (at most 25 times) until
/// `min_seconds` have been spent; the first run's decoded outputs are checked against the
/// plaintext engine, so the time is that of a correct run.
pub fn measure(circuit: &CompiledCircuit, min_seconds: f64) -> Result<CpuTime, CliError> {
    let mut pair = InMemory::new(HashKind::default(), Scheme::HalfGates, circuit.num_ands());
    let (mut garble, mut eval) = (Vec::new(), Vec::new());
    let start = Instant::now();
    while garble.is_empty() || (start.elapsed().as_secs_f64() < min_seconds && garble.len() < 25) {
        let (g, e) = pair.run(circuit, garble.is_empty())?;
        garble.push(g.as_secs_f64());
        eval.push(e.as_secs_f64());
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
