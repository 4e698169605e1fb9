//! BMR and GMW report their work through the options' `Reporter`: one phase whose total is
//! the stream's AND count, advanced batch by batch up to it, then ended; the outputs are
//! the plaintext circuit's.

use std::sync::{Arc, Mutex};

use mixgc_circuit::{Audience, Circuit, PartyId};
use mixgc_compile::compile;
use mixgc_core::{new_rng, Progress, Reporter, Unit};
use mixgc_nparty::bmr::{self, BmrOptions};
use mixgc_nparty::gmw::{self, GmwOptions};
use mixgc_nparty::{memory_mesh, Roles};
use rand::Rng as _;

/// A phase seen: name, total, unit, its advances, ended.
type Phase = (String, Option<u64>, Unit, Vec<u64>, bool);

#[derive(Default)]
struct Tally(Mutex<Vec<Phase>>);

impl Progress for Tally {
    fn begin(&self, what: &str, total: Option<u64>, unit: Unit) {
        self.0
            .lock()
            .unwrap()
            .push((what.into(), total, unit, Vec::new(), false));
    }
    fn advance(&self, n: u64) {
        let mut phases = self.0.lock().unwrap();
        let current = phases.last_mut().expect("an advance inside a phase");
        assert!(!current.4, "an advance after the phase ended");
        current.3.push(n);
    }
    fn end(&self) {
        self.0.lock().unwrap().last_mut().expect("a phase to end").4 = true;
    }
}

#[derive(Clone, Copy, Debug)]
enum Proto {
    Bmr,
    Gmw,
}

/// Runs `c` among `n` parties (inputs owned round-robin, outputs to all) with `batch_ands`,
/// each party reporting to its own tally; returns the tallies and party 0's outputs.
fn run(
    c: &Circuit,
    proto: Proto,
    n: usize,
    batch_ands: usize,
    values: &[Vec<bool>],
) -> (Vec<Arc<Tally>>, Vec<Vec<bool>>) {
    let compiled = compile(c);
    let owners: Vec<usize> = (0..values.len()).map(|v| v % n).collect();
    let mut audience = Audience::only(PartyId::new(0).unwrap());
    for p in 1..n {
        audience = audience.with(PartyId::new(p).unwrap());
    }
    let roles = Roles {
        owners: &owners,
        audience,
    };
    let tallies: Vec<Arc<Tally>> = (0..n).map(|_| Arc::new(Tally::default())).collect();
    let outputs = std::thread::scope(|s| {
        let hs: Vec<_> = memory_mesh(n)
            .into_iter()
            .map(|mut mesh| {
                let (compiled, roles, tallies) = (&compiled, &roles, &tallies);
                s.spawn(move || {
                    let me = mesh.me();
                    let mine: Vec<Vec<bool>> = roles.mine(me).map(|v| values[v].clone()).collect();
                    let mut rng = new_rng(Some(7), me as u64);
                    let progress = Reporter::new(tallies[me].clone());
                    let mut stream = compiled.stream();
                    match proto {
                        Proto::Bmr => bmr::run_stream(
                            &mut mesh,
                            &mut stream,
                            roles,
                            &mine,
                            &[9; 32],
                            &mut rng,
                            &BmrOptions { batch_ands, progress },
                        ),
                        Proto::Gmw => gmw::run_stream(
                            &mut mesh,
                            &mut stream,
                            roles,
                            &mine,
                            &[9; 32],
                            &mut rng,
                            &GmwOptions { batch_ands, progress },
                        ),
                    }
                    .unwrap()
                })
            })
            .collect();
        let outs: Vec<_> = hs.into_iter().map(|h| h.join().unwrap()).collect();
        outs[0].outputs.clone().expect("party 0 is in the audience")
    });
    (tallies, outputs)
}

#[test]
fn every_and_is_reported_once_in_batches_of_at_most_the_batch_size() {
    let mut rng = new_rng(Some(3), 0);
    for proto in [Proto::Bmr, Proto::Gmw] {
        for (n, batch_ands) in [(2, 1), (3, 7), (3, 1 << 14)] {
            let widths = [5u32, 6, 3];
            let c = Circuit::random(&mut rng, &widths, 120, 4);
            let values: Vec<Vec<bool>> = widths
                .iter()
                .map(|&w| (0..w).map(|_| rng.gen()).collect())
                .collect();
            let (tallies, outputs) = run(&c, proto, n, batch_ands, &values);
            assert_eq!(
                c.eval_plain(&values).unwrap(),
                outputs,
                "{proto:?} n={n} batch={batch_ands}"
            );
            let ands = compile(&c).header().num_ands();
            assert!(ands > 0);
            let what = match proto {
                Proto::Bmr => "garbling and evaluating",
                Proto::Gmw => "evaluating",
            };
            for tally in &tallies {
                let phases = tally.0.lock().unwrap().clone();
                assert_eq!(phases.len(), 1, "{proto:?}: {phases:?}");
                let (name, total, unit, advances, ended) = &phases[0];
                assert_eq!(
                    (name.as_str(), *total, *unit, *ended),
                    (what, Some(ands), Unit::Ands, true)
                );
                assert_eq!(advances.iter().sum::<u64>(), ands, "{proto:?}");
                assert!(advances.iter().all(|&a| a as usize <= batch_ands), "{advances:?}");
            }
        }
    }
}
