//! The malicious program backend runs the program library unchanged: every library op,
//! both parties in two threads, against the plaintext backend.

use mixgc_circuit::{Audience, PartyId};
use mixgc_core::new_rng;
use mixgc_malicious::dealer::TrustedDealer;
use mixgc_malicious::garble::checks;
use mixgc_malicious::garble::Deviation;
use mixgc_malicious::{MaliciousError, MaliciousProgram, Settings};
use mixgc_net::memory_pair;
use mixgc_program::library::{self, Supply, OPS};
use mixgc_program::{Backend, Plain, ProgramError};
use rand::Rng;

type Learned = Result<Vec<Option<Vec<bool>>>, String>;

/// Runs op `name` on both parties; returns (garbler's, evaluator's, plaintext) outputs.
fn run_op(
    name: &str,
    width: Option<u32>,
    size: Option<usize>,
    batch: usize,
    seed: u64,
) -> (Learned, Learned, Vec<Vec<bool>>) {
    let recorded = library::record(name, width, size).unwrap();
    let mut rng = new_rng(Some(seed), 3);
    let values: Vec<Vec<bool>> = recorded
        .circuit
        .input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.gen()).collect())
        .collect();
    let (x, y) = values.split_at(recorded.garbler_values);
    let plain = library::build(
        &mut Plain::default(),
        name,
        width,
        size,
        &mut Supply::both(x.to_vec(), y.to_vec()),
    )
    .unwrap()
    .into_iter()
    .map(Option::unwrap)
    .collect();
    let (mut ca, mut cb) = memory_pair();
    let (mut pa, mut pb) = TrustedDealer::pair(seed);
    let (g, e) = std::thread::scope(|s| {
        let g = s.spawn(|| {
            let mut b = MaliciousProgram::new(&mut ca, &mut pa, batch, &Settings::default())
                .map_err(|e| e.to_string())?;
            library::build(
                &mut b,
                name,
                width,
                size,
                &mut Supply::of(PartyId::GARBLER, x.to_vec()),
            )
            .map_err(|e| e.to_string())
        });
        let e = (|| {
            let mut b = MaliciousProgram::new(&mut cb, &mut pb, batch, &Settings::default())
                .map_err(|e| e.to_string())?;
            library::build(
                &mut b,
                name,
                width,
                size,
                &mut Supply::of(PartyId::EVALUATOR, y.to_vec()),
            )
            .map_err(|e| e.to_string())
        })();
        drop(cb);
        (g.join().unwrap(), e)
    });
    (g, e, plain)
}

#[test]
fn every_library_op_matches_plaintext() {
    for (i, op) in OPS.iter().enumerate() {
        let width = op.default_width.map(|_| 8);
        let size = op.default_size.map(|_| 2);
        for batch in [1, 7, 1000] {
            eprintln!("{} batch {batch}", op.name);
            let (g, e, plain) = run_op(op.name, width, size, batch, i as u64);
            let want: Vec<Option<Vec<bool>>> = plain.into_iter().map(Some).collect();
            assert_eq!(g.unwrap(), want, "{}: the garbler's outputs", op.name);
            assert_eq!(e.unwrap(), want, "{}: the evaluator's outputs", op.name);
        }
    }
}

/// A hand-written program: inputs between gates, outputs to one party, released wires.
#[test]
fn interleaved_inputs_outputs_and_released_wires() {
    fn program<B: Backend>(
        b: &mut B,
        x: Option<&[bool]>,
        y: Option<&[bool]>,
    ) -> Result<Vec<Option<Vec<bool>>>, ProgramError> {
        let xs = b.input(PartyId::GARBLER, 4, x)?;
        let t: Vec<B::Wire> = xs.iter().map(|&w| b.not(w)).collect();
        b.release(&xs);
        let ys = b.input(PartyId::EVALUATOR, 4, y)?;
        let pairs: Vec<_> = t.iter().copied().zip(ys.iter().copied()).collect();
        let a = b.and_many(&pairs);
        let one = b.constant(true);
        let c = b.and(a[0], one);
        let first = b.output_to(&[c, a[1]], Audience::only(PartyId::GARBLER))?;
        b.release(&t);
        let zs = b.input(PartyId::GARBLER, 2, x.map(|x| &x[..2]))?;
        let d = b.xor(zs[0], a[3]);
        let e = b.and(d, zs[1]);
        let second = b.output_to(&[e, a[2]], Audience::only(PartyId::EVALUATOR))?;
        let third = b.output(&a)?;
        Ok(vec![first, second, third])
    }
    let (x, y) = ([true, false, false, true], [true, true, false, true]);
    let plain = program(&mut Plain::default(), Some(&x), Some(&y)).unwrap();
    for batch in [1, 2, 100] {
        let (mut ca, mut cb) = memory_pair();
        let (mut pa, mut pb) = TrustedDealer::pair(batch as u64);
        let (g, e) = std::thread::scope(|s| {
            let g = s.spawn(|| {
                let mut b = MaliciousProgram::new(&mut ca, &mut pa, batch, &Settings::default()).unwrap();
                program(&mut b, Some(&x), None).unwrap()
            });
            let mut b = MaliciousProgram::new(&mut cb, &mut pb, batch, &Settings::default()).unwrap();
            let e = program(&mut b, None, Some(&y)).unwrap();
            (g.join().unwrap(), e)
        });
        assert_eq!(g, vec![plain[0].clone(), None, plain[2].clone()]);
        assert_eq!(e, vec![None, plain[1].clone(), plain[2].clone()]);
    }
}

#[test]
fn a_cheating_garbler_is_caught_in_a_program() {
    let (mut ca, mut cb) = memory_pair();
    let (mut pa, mut pb) = TrustedDealer::pair(4);
    let cheat = Settings {
        deviation: Deviation::FlipGarbledGate { gate: 3, parts: 1 },
        ..Settings::default()
    };
    let e = std::thread::scope(|s| {
        s.spawn(|| {
            let mut b = MaliciousProgram::new(&mut ca, &mut pa, 16, &cheat).unwrap();
            let _ = library::build(
                &mut b,
                "add",
                Some(16),
                None,
                &mut Supply::of(PartyId::GARBLER, vec![vec![true; 16]]),
            );
        });
        let mut b = MaliciousProgram::new(&mut cb, &mut pb, 16, &Settings::default()).unwrap();
        let e = library::build(
            &mut b,
            "add",
            Some(16),
            None,
            &mut Supply::of(PartyId::EVALUATOR, vec![vec![true; 16]]),
        );
        drop(cb);
        e
    });
    let err = e.unwrap_err().to_string();
    assert!(err.contains(checks::AND_CONSISTENCY), "{err}");
}

#[test]
fn parties_with_different_batch_sizes_stop() {
    let (mut ca, mut cb) = memory_pair();
    let (mut pa, mut pb) = TrustedDealer::pair(5);
    let (g, e) = std::thread::scope(|s| {
        let g = s.spawn(|| MaliciousProgram::new(&mut ca, &mut pa, 10, &Settings::default()).err());
        let e = MaliciousProgram::new(&mut cb, &mut pb, 11, &Settings::default()).err();
        (g.join().unwrap(), e)
    });
    for r in [g, e] {
        assert!(
            matches!(r, Some(MaliciousError::Protocol(ref m)) if m.contains("batch size")),
            "{r:?}"
        );
    }
}
