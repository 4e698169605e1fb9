//! Cheating is caught: a deviating garbler or evaluator makes the honest party return
//! `CheckFailed` naming the check, never a wrong output; selective-failure attempts abort
//! with a probability that does not depend on the honest party's input.

mod common;

use common::{random_inputs, run_pair};
use mixgc_circuit::{bristol, Audience, Circuit, PartyId};
use mixgc_malicious::garble::checks;
use mixgc_malicious::garble::Deviation;
use mixgc_malicious::{MaliciousError, Settings, Terms};

fn adder() -> Circuit {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits/adder64.txt");
    bristol::read_file(&path).unwrap()
}

fn cheat(d: Deviation) -> Settings {
    Settings {
        deviation: d,
        ..Settings::default()
    }
}

fn assert_caught(r: &common::Outputs, check: &str) {
    match r {
        Err(MaliciousError::CheckFailed { check: c }) if *c == check => {}
        other => panic!("expected the check {check:?} to fail, got {other:?}"),
    }
}

/// The honest garbler catches `d` by the evaluator; the evaluator gets no output.
fn evaluator_cheats(d: Deviation, terms: Terms, check: &str) {
    let c = adder();
    let (g, _) = run_pair(&c, terms, &random_inputs(&c, 1), 3, Settings::default(), cheat(d));
    assert_caught(&g, check);
}

/// The honest evaluator catches `d` by the garbler; the garbler gets no output.
fn garbler_cheats(d: Deviation, terms: Terms, check: &str) {
    let c = adder();
    let (g, e) = run_pair(&c, terms, &random_inputs(&c, 2), 4, cheat(d), Settings::default());
    assert_caught(&e, check);
    assert!(g.is_err(), "the garbler got {g:?} after the evaluator aborted");
}

#[test]
fn a_corrupted_garbled_gate_is_caught() {
    for gate in [0, 30, 62] {
        for batch in [1, 7, 1000] {
            let terms = Terms {
                batch_ands: batch,
                ..Terms::new(1)
            };
            // A flipped bit b_γ makes the evaluator's ẑ_γ wrong whatever the masked inputs.
            let d = Deviation::FlipGarbledGate { gate, parts: 1 };
            garbler_cheats(d, terms, checks::AND_CONSISTENCY);
        }
    }
}

#[test]
fn a_corrupted_gate_either_aborts_or_changes_nothing() {
    let c = adder();
    let (mut aborts, mut fine) = (0, 0);
    for seed in 0..60 {
        let inputs = random_inputs(&c, seed);
        let want = c.eval_plain(&inputs).unwrap();
        let d = Deviation::FlipGarbledGate {
            gate: seed % 63,
            parts: (seed % 7 + 1) as u8,
        };
        let (_, e) = run_pair(&c, Terms::new(1), &inputs, seed, cheat(d), Settings::default());
        match e {
            Ok(out) => {
                assert_eq!(out, Some(want), "a wrong output after a corrupted gate");
                fine += 1;
            }
            Err(err) => {
                assert_caught(&Err(err), checks::AND_CONSISTENCY);
                aborts += 1;
            }
        }
    }
    assert!(aborts > 0 && fine > 0, "{aborts} aborts, {fine} clean runs");
}

#[test]
fn an_inconsistent_garbler_input_label_is_caught() {
    // A wrong label feeds garbage into the carry chain: dozens of AND outputs get random
    // masked values, and the consistency check catches a wrong one.
    for bit in [0, 1] {
        garbler_cheats(
            Deviation::WrongGarblerInputLabel { bit },
            Terms::new(1),
            checks::AND_CONSISTENCY,
        );
    }
    // Near the top only one or two ANDs see the bad label: the run aborts, or their masked
    // values happened to be right and so is the output (labels carry no value on their own).
    let c = adder();
    for (bit, seed) in [(62, 9), (63, 10), (62, 11)] {
        let inputs = random_inputs(&c, seed);
        let d = cheat(Deviation::WrongGarblerInputLabel { bit });
        let (_, e) = run_pair(&c, Terms::new(1), &inputs, seed, d, Settings::default());
        match e {
            Ok(out) => assert_eq!(out, Some(c.eval_plain(&inputs).unwrap())),
            Err(err) => assert_caught(&Err(err), checks::AND_CONSISTENCY),
        }
    }
}

#[test]
fn an_evaluator_lying_about_a_masked_and_output_is_caught() {
    for gate in [0, 40] {
        evaluator_cheats(
            Deviation::FlipMaskedAndOutput { gate },
            Terms::new(1),
            checks::EVALUATOR_AND_LABELS,
        );
    }
}

#[test]
fn a_wrong_mac_in_the_and_mask_opening_is_caught_both_ways() {
    garbler_cheats(
        Deviation::WrongAndMaskMac,
        Terms::new(1),
        checks::AND_MASK_OPENING,
    );
    evaluator_cheats(
        Deviation::WrongAndMaskMac,
        Terms::new(1),
        checks::AND_MASK_OPENING,
    );
}

#[test]
fn a_wrong_input_mask_mac_is_caught_both_ways() {
    garbler_cheats(
        Deviation::WrongInputMaskMac { bit: 5 },
        Terms::new(1),
        checks::EVALUATOR_INPUT_MASK,
    );
    evaluator_cheats(
        Deviation::WrongInputMaskMac { bit: 5 },
        Terms::new(1),
        checks::GARBLER_INPUT_MASK,
    );
}

#[test]
fn a_wrong_output_mac_or_label_is_caught() {
    garbler_cheats(
        Deviation::WrongOutputMaskMac { bit: 3 },
        Terms::new(1),
        checks::EVALUATOR_OUTPUT_MASK,
    );
    let to_garbler = Terms {
        reveal: Audience::only(PartyId::GARBLER),
        ..Terms::new(1)
    };
    evaluator_cheats(
        Deviation::WrongOutputMaskMac { bit: 3 },
        to_garbler,
        checks::GARBLER_OUTPUT_MASK,
    );
    evaluator_cheats(
        Deviation::WrongOutputLabel { bit: 63 },
        to_garbler,
        checks::GARBLER_OUTPUT_LABEL,
    );
    // With outputs to both, the evaluator learns its outputs first; the garbler still refuses.
    evaluator_cheats(
        Deviation::WrongOutputLabel { bit: 0 },
        Terms::new(1),
        checks::GARBLER_OUTPUT_LABEL,
    );
}

/// out = x ∧ y, x the garbler's, y the evaluator's.
fn and_circuit() -> Circuit {
    bristol::parse("1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n", "and.txt").unwrap()
}

/// Abort counts over `runs` runs for evaluator input y = 0 and y = 1.
fn abort_counts(d: Deviation, runs: u64) -> [u64; 2] {
    let c = and_circuit();
    let mut aborts = [0; 2];
    for (y, count) in aborts.iter_mut().enumerate() {
        for run in 0..runs {
            let x = run % 2 == 1;
            let inputs = [vec![x], vec![y == 1]];
            let seed = 1_000_000 * (y as u64 + 1) + run;
            let g = Settings {
                insecure_seed: Some(seed),
                deviation: d,
            };
            let (_, e) = run_pair(&c, Terms::new(1), &inputs, seed, g, Settings::default());
            match e {
                Ok(out) => assert_eq!(out, Some(vec![vec![x & (y == 1)]]), "a wrong output"),
                Err(err) => {
                    assert_caught(&Err(err), checks::AND_CONSISTENCY);
                    *count += 1;
                }
            }
        }
    }
    aborts
}

/// Two-proportion z statistic of `a` and `b` aborts out of `n` runs each.
fn z_statistic(a: u64, b: u64, n: u64) -> f64 {
    let (pa, pb) = (a as f64 / n as f64, b as f64 / n as f64);
    let p = (a + b) as f64 / (2 * n) as f64;
    let se = (p * (1.0 - p) * 2.0 / n as f64).sqrt();
    if se == 0.0 {
        0.0
    } else {
        (pa - pb) / se
    }
}

/// Two-sided test at p > 0.01: |z| < 2.576. `expect` is the abort rate the attack has.
fn assert_input_independent(d: Deviation, expect: f64) {
    const RUNS: u64 = 1000;
    let [a0, a1] = abort_counts(d, RUNS);
    let z = z_statistic(a0, a1, RUNS);
    eprintln!("{d:?}: aborts {a0}/{RUNS} with y = 0, {a1}/{RUNS} with y = 1, z = {z:.3}");
    assert!(z.abs() < 2.576, "abort rate depends on the input: z = {z}");
    for a in [a0, a1] {
        let rate = a as f64 / RUNS as f64;
        assert!(
            (rate - expect).abs() < 0.08,
            "abort rate {rate}, the attack should abort at {expect}"
        );
    }
}

/// A garbage label when ẑ_y = 0 (probability 1/2) gives a random ẑ_γ, wrong half the time.
#[test]
fn selective_failure_on_an_evaluator_input_label_is_input_independent() {
    assert_input_independent(Deviation::WrongEvaluatorLabelOnZero { bit: 0 }, 0.25);
}

/// A corrupted G_1 is used only when the evaluator's masked input ẑ_y is 1 (probability 1/2).
#[test]
fn selective_failure_on_one_ciphertext_is_input_independent() {
    assert_input_independent(
        Deviation::FlipGarbledGate {
            gate: 0,
            parts: 0b100,
        },
        0.5,
    );
}
