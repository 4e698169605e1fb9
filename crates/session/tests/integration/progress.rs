//! A session's progress reports: phases in order, advances summing to the ANDs executed.

use std::sync::{Arc, Mutex};
use std::thread;

use mixgc_circuit::bristol;
use mixgc_compile::compile;
use mixgc_core::{Progress, Reporter, Unit};
use mixgc_net::memory_pair;
use mixgc_program::{Backend, Ctx, PartyId};
use mixgc_session::{Audience, EvaluatorSession, GarblerSession, SessionConfig, Terms};

/// A phase seen: name, total, unit, sum of its advances, ended.
type Phase = (String, Option<u64>, Unit, u64, bool);

/// Every phase begun.
#[derive(Default)]
struct Tally(Mutex<Vec<Phase>>);

impl Progress for Tally {
    fn begin(&self, what: &str, total: Option<u64>, unit: Unit) {
        self.0.lock().unwrap().push((what.into(), total, unit, 0, false));
    }
    fn advance(&self, n: u64) {
        let mut phases = self.0.lock().unwrap();
        let current = phases.last_mut().expect("an advance inside a phase");
        assert!(!current.4, "an advance after the phase ended");
        current.3 += n;
    }
    fn end(&self) {
        self.0.lock().unwrap().last_mut().expect("a phase to end").4 = true;
    }
}

impl Tally {
    fn phases(&self) -> Vec<Phase> {
        self.0.lock().unwrap().clone()
    }
}

fn reporting() -> (Arc<Tally>, SessionConfig) {
    let tally = Arc::new(Tally::default());
    let cfg = SessionConfig {
        // Small frames, so the tables travel in many of them.
        batch_bytes: 64 << 10,
        ..SessionConfig::default()
    }
    .with_progress(Reporter::new(tally.clone()));
    (tally, cfg)
}

#[test]
fn a_batch_reports_base_ot_then_every_and_garbled_and_evaluated() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits");
    let aes = compile(&bristol::read_file(&dir.join("aes_128.txt")).unwrap());
    let instances = 3;
    let (gt, gcfg) = reporting();
    let (et, ecfg) = reporting();
    let terms = Terms::default();
    let (gch, ech) = memory_pair();
    let (g, e) = thread::scope(|s| {
        let e = s.spawn(|| {
            let batch = vec![vec![vec![true; 128]]; instances];
            let mut session = EvaluatorSession::setup(ech, &ecfg).unwrap();
            session.execute_batch(&aes, &terms, &batch).unwrap()
        });
        let batch = vec![vec![vec![false; 128]]; instances];
        let mut session = GarblerSession::setup(gch, &gcfg).unwrap();
        let g = session.execute_batch(&aes, &terms, &batch).unwrap();
        (g, e.join().unwrap())
    });
    let total = aes.num_ands() * instances as u64;
    for (tally, outcomes, work) in [(gt, g, "garbling"), (et, e, "evaluating")] {
        assert_eq!(outcomes.iter().map(|o| o.ands).sum::<u64>(), total);
        assert_eq!(
            tally.phases(),
            [
                ("base OT".to_string(), None, Unit::Time, 0, true),
                (work.to_string(), Some(total), Unit::Ands, total, true),
            ]
        );
    }
}

/// Is `a·b` (mod 2^64) greater than `a`?
fn compare<B: Backend>(ctx: &Ctx<B>, a: Option<u128>, b: Option<u128>) -> Option<bool> {
    let x = ctx.input_uint(PartyId::GARBLER, 64, a).unwrap();
    let y = ctx.input_uint(PartyId::EVALUATOR, 64, b).unwrap();
    let z = &x * &y;
    z.greater_than(&x).reveal().unwrap()
}

#[test]
fn a_program_reports_a_running_count_of_its_ands() {
    let (gt, gcfg) = reporting();
    let (et, ecfg) = reporting();
    let (gch, ech) = memory_pair();
    let (g, e) = thread::scope(|s| {
        let e = s.spawn(|| {
            let mut session = EvaluatorSession::setup(ech, &ecfg).unwrap();
            let ctx = Ctx::new(session.program("p", Audience::BOTH).unwrap());
            assert_eq!(compare(&ctx, None, Some(3)), Some(true));
            ctx.into_inner().expect("values dropped").finish().unwrap()
        });
        let mut session = GarblerSession::setup(gch, &gcfg).unwrap();
        let ctx = Ctx::new(session.program("p", Audience::BOTH).unwrap());
        assert_eq!(compare(&ctx, Some(5), None), Some(true));
        let g = ctx.into_inner().expect("values dropped").finish().unwrap();
        (g, e.join().unwrap())
    });
    assert_eq!(g, e);
    assert!(g > 64, "{g} ANDs");
    for (tally, work) in [(gt, "garbling"), (et, "evaluating")] {
        assert_eq!(
            tally.phases(),
            [
                ("base OT".to_string(), None, Unit::Time, 0, true),
                (work.to_string(), None, Unit::Ands, g, true),
            ]
        );
    }
}
