//! Shared helpers: both parties in two threads over an in-memory channel, with the
//! trusted dealer, and the plaintext reference.
#![allow(dead_code)]

use mixgc_circuit::Circuit;
use mixgc_core::new_rng;
use mixgc_malicious::dealer::TrustedDealer;
use mixgc_malicious::{run_evaluator, run_garbler, MaliciousError, Settings, Terms};
use mixgc_net::memory_pair;
use rand::Rng;

pub type Outputs = Result<Option<Vec<Vec<bool>>>, MaliciousError>;

/// Runs both parties; `inputs` are all the circuit's input values in order.
pub fn run_pair(
    circuit: &Circuit,
    terms: Terms,
    inputs: &[Vec<bool>],
    seed: u64,
    garbler: Settings,
    evaluator: Settings,
) -> (Outputs, Outputs) {
    let (mut ca, mut cb) = memory_pair();
    let (mut pa, mut pb) = TrustedDealer::pair(seed);
    let (x, y) = inputs.split_at(terms.garbler_values);
    std::thread::scope(|s| {
        let g = s.spawn(move || run_garbler(&mut ca, &mut pa, circuit, &terms, x, &garbler));
        let e = run_evaluator(&mut cb, &mut pb, circuit, &terms, y, &evaluator);
        drop(cb);
        (g.join().unwrap(), e)
    })
}

/// Random values of the circuit's input widths.
pub fn random_inputs(circuit: &Circuit, seed: u64) -> Vec<Vec<bool>> {
    let mut rng = new_rng(Some(seed), 99);
    circuit
        .input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.gen()).collect())
        .collect()
}

/// Runs honestly and checks each party's outputs against plaintext evaluation.
pub fn check_against_plain(circuit: &Circuit, terms: Terms, inputs: &[Vec<bool>], seed: u64) {
    let want = circuit.eval_plain(inputs).unwrap();
    let (g, e) = run_pair(
        circuit,
        terms,
        inputs,
        seed,
        Settings::default(),
        Settings::default(),
    );
    let (g, e) = (g.unwrap(), e.unwrap());
    use mixgc_circuit::PartyId;
    let expect = |p| terms.reveal.contains(p).then(|| want.clone());
    assert_eq!(
        g,
        expect(PartyId::GARBLER),
        "garbler's outputs, batch {}",
        terms.batch_ands
    );
    assert_eq!(
        e,
        expect(PartyId::EVALUATOR),
        "evaluator's outputs, batch {}",
        terms.batch_ands
    );
}
