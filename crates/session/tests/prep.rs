//! Preprocessing mode: garble and OT offline, evaluate from the store online.

use std::io::Cursor;
use std::thread;

use mixgc_circuit::{bristol, values, Circuit};
use mixgc_compile::{compile, CompiledCircuit};
use mixgc_core::HashKind;
use mixgc_net::{memory_pair, Channel};
use mixgc_session::{
    evaluator_online, garbler_online, Audience, EvaluatorPrep, EvaluatorSession, GarblerPrep, GarblerSession,
    Outcome, PartyId, SessionConfig, SessionError, Terms,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

fn circuit(name: &str) -> Circuit {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits");
    bristol::read_file(&dir.join(name)).unwrap()
}

/// The garbler's states, the evaluator's states with their table stores, and the outcomes of
/// the execution after preprocessing.
type Offline = (Vec<GarblerPrep>, Vec<(EvaluatorPrep, Vec<u8>)>, [Outcome; 2]);

/// Offline: one session preprocesses `count` garblings of `c`, then (to check the AND index
/// stays in step) executes `c` normally once with `check_inputs`.
fn offline(
    c: &CompiledCircuit,
    terms: Terms,
    hash: HashKind,
    count: usize,
    check_inputs: &[Vec<Vec<bool>>; 2],
) -> Offline {
    let (gch, ech) = memory_pair();
    let cfg = SessionConfig {
        hash,
        threads: 2,
        ..SessionConfig::default()
    };
    thread::scope(|s| {
        let e = s.spawn(|| {
            let mut e = EvaluatorSession::setup(ech, &cfg).unwrap();
            assert_eq!(e.threads(), 2);
            let preps: Vec<_> = (0..count)
                .map(|_| {
                    let mut store = Vec::new();
                    let prep = e.preprocess(c, &terms, &mut store).unwrap();
                    assert_eq!(store.len() as u64, prep.table_bytes());
                    (prep, store)
                })
                .collect();
            // Preprocessing moves the AND index on, never the session's thread setting.
            assert_eq!(
                e.threads(),
                2,
                "the evaluator keeps --threads after preprocessing"
            );
            (preps, e.execute(c, &terms, &check_inputs[1]).unwrap())
        });
        let mut g = GarblerSession::setup(gch, &cfg).unwrap();
        let preps: Vec<_> = (0..count)
            .map(|_| g.preprocess(&mut c.stream(), &terms).unwrap())
            .collect();
        let out = g.execute(c, &terms, &check_inputs[0]).unwrap();
        let (e_preps, e_out) = e.join().unwrap();
        (preps, e_preps, [out, e_out])
    })
}

type Res = Result<Outcome, SessionError>;

/// Online on a fresh connection; returns both results and the bytes each side sent.
fn online(
    c: &CompiledCircuit,
    g: GarblerPrep,
    e: &EvaluatorPrep,
    store: &[u8],
    inputs: &[Vec<Vec<bool>>; 2],
) -> ((Res, u64), (Res, u64)) {
    let (mut gch, mut ech) = memory_pair();
    thread::scope(|s| {
        let ev = s.spawn(move || {
            let r = evaluator_online(&mut ech, e, &mut c.stream(), &mut Cursor::new(store), &inputs[1]);
            (r, ech.bytes_sent())
        });
        let r = garbler_online(&mut gch, g, &inputs[0]);
        let sent = gch.bytes_sent();
        // Hang up, as a process would on exit: an aborting evaluator waits for it.
        drop(gch);
        ((r, sent), ev.join().unwrap())
    })
}

fn hex(v: &str, w: u32) -> Vec<bool> {
    values::parse_hex(v, w).unwrap()
}

#[test]
fn aes_128_online_gives_fips_197_and_sends_only_labels() {
    let c = compile(&circuit("aes_128.txt"));
    let key = hex("000102030405060708090a0b0c0d0e0f", 128);
    let pt = hex("00112233445566778899aabbccddeeff", 128);
    let inputs = [vec![key], vec![pt]];
    let (g, mut e, _) = offline(&c, Terms::default(), HashKind::Tccr, 1, &inputs);
    let (e, store) = e.pop().unwrap();
    let ((g_out, g_sent), (e_out, e_sent)) = online(&c, g.into_iter().next().unwrap(), &e, &store, &inputs);
    let want = "69c4e0d86a7b0430d8cdb78070b4c55a";
    for out in [g_out.unwrap(), e_out.unwrap()] {
        assert_eq!(values::to_hex(&out.outputs.unwrap()[0]), want);
    }
    // Online the garbler sends 128 + 2 labels and 128 corrections (plus two frame headers);
    // the evaluator sends its request (2 + 64 + 8 + 16 bytes) and 16 bytes of colours.
    assert_eq!(g_sent, (130 + 128) * 16 + 2 * 5);
    assert_eq!(e_sent, 5 + 2 + 64 + 8 + 16 + 5 + 16);
}

#[test]
fn random_inputs_every_reveal_mode_and_hash_match_plaintext() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for (name, reveal, hash) in [
        ("adder64.txt", Audience::BOTH, HashKind::Tccr),
        ("mult64.txt", Audience::only(PartyId::GARBLER), HashKind::Rekeyed),
        ("sha256.txt", Audience::only(PartyId::EVALUATOR), HashKind::Tccr),
    ] {
        let ir = circuit(name);
        let c = compile(&ir);
        let terms = Terms {
            garbler_values: None,
            reveal,
        };
        let (gv, ev) = terms.owners(c.input_widths()).unwrap();
        let draw = |rng: &mut rand::rngs::StdRng| -> (Vec<Vec<bool>>, [Vec<Vec<bool>>; 2]) {
            let all: Vec<Vec<bool>> = ir
                .input_widths
                .iter()
                .map(|&w| (0..w).map(|_| rng.gen()).collect())
                .collect();
            let split = [
                gv.iter().map(|&v| all[v].clone()).collect(),
                ev.iter().map(|&v| all[v].clone()).collect(),
            ];
            (all, split)
        };
        let (check_all, check) = draw(&mut rng);
        let (gs, es, outs) = offline(&c, terms, hash, 2, &check);
        let want = ir.eval_plain(&check_all).unwrap();
        for (o, learns) in outs.iter().zip([
            reveal.contains(PartyId::GARBLER),
            reveal.contains(PartyId::EVALUATOR),
        ]) {
            assert_eq!(
                o.outputs.as_ref(),
                learns.then_some(&want),
                "{name}: execution after preprocessing"
            );
        }
        for (g, (e, store)) in gs.into_iter().zip(&es) {
            let (all, inputs) = draw(&mut rng);
            let want = ir.eval_plain(&all).unwrap();
            let ((g_out, _), (e_out, _)) = online(&c, g, e, store, &inputs);
            assert_eq!(
                g_out.unwrap().outputs,
                reveal.contains(PartyId::GARBLER).then(|| want.clone()),
                "{name}"
            );
            assert_eq!(
                e_out.unwrap().outputs,
                reveal.contains(PartyId::EVALUATOR).then(|| want.clone()),
                "{name}"
            );
        }
    }
}

#[test]
fn the_evaluator_must_name_the_garbling_the_garbler_holds() {
    let c = compile(&circuit("adder64.txt"));
    let inputs = [vec![vec![true; 64]], vec![vec![false; 64]]];
    let (mut gs, es, _) = offline(&c, Terms::default(), HashKind::Tccr, 2, &inputs);
    let second = gs.pop().unwrap();
    let ((g, _), (e, _)) = online(&c, second, &es[0].0, &es[0].1, &inputs);
    for r in [g, e] {
        let msg = r.unwrap_err().to_string();
        assert!(msg.contains("preprocessed garbling differs"), "{msg}");
    }
}

#[test]
fn wrong_inputs_and_wrong_circuits_are_refused_online() {
    let c = compile(&circuit("adder64.txt"));
    let inputs = [vec![vec![true; 64]], vec![vec![false; 64]]];
    let (mut gs, mut es, _) = offline(&c, Terms::default(), HashKind::Tccr, 2, &inputs);
    let (e, store) = es.pop().unwrap();
    let bad = [vec![vec![true; 64]], vec![vec![false; 63]]];
    let ((g_r, _), (e_r, _)) = online(&c, gs.pop().unwrap(), &e, &store, &bad);
    assert!(e_r.unwrap_err().to_string().contains("must be 64 bits"));
    assert!(g_r.is_err(), "the garbler is told");

    let other = compile(&circuit("mult64.txt"));
    let (e, store) = es.pop().unwrap();
    let ((_, _), (e_r, _)) = online(&other, gs.pop().unwrap(), &e, &store, &inputs);
    assert!(e_r
        .unwrap_err()
        .to_string()
        .contains("not the one this store was preprocessed for"));
}

#[test]
fn stored_state_round_trips_and_corruption_is_an_error() {
    let c = compile(&circuit("adder64.txt"));
    let inputs = [vec![vec![true; 64]], vec![vec![true; 64]]];
    let (mut gs, mut es, _) = offline(&c, Terms::default(), HashKind::Tccr, 1, &inputs);
    let (g, (e, store)) = (gs.pop().unwrap(), es.pop().unwrap());
    let g = GarblerPrep::from_bytes(&g.to_bytes()).unwrap();
    let e = EvaluatorPrep::from_bytes(&e.to_bytes()).unwrap();
    assert_eq!(g.id(), e.id());
    let ((g_out, _), (e_out, _)) = online(&c, g, &e, &store, &inputs);
    let sum = values::to_hex(&e_out.unwrap().outputs.unwrap()[0]);
    assert_eq!(sum, "fffffffffffffffe");
    assert!(g_out.is_ok());
    // A truncated store is an error, not a panic or a wrong answer.
    let (_, (e_r, _)) = {
        let (mut gs, mut es, _) = offline(&c, Terms::default(), HashKind::Tccr, 1, &inputs);
        let (e, store) = es.pop().unwrap();
        online(&c, gs.pop().unwrap(), &e, &store[..store.len() - 1], &inputs)
    };
    assert!(e_r.unwrap_err().to_string().contains("stored tables"));
}

/// Stored states of one preprocessed adder, made once for the property test below.
fn stored_states() -> &'static [Vec<u8>; 2] {
    static STATES: std::sync::OnceLock<[Vec<u8>; 2]> = std::sync::OnceLock::new();
    STATES.get_or_init(|| {
        let c = compile(&circuit("adder64.txt"));
        let inputs = [vec![vec![true; 64]], vec![vec![true; 64]]];
        let (mut gs, mut es, _) = offline(&c, Terms::default(), HashKind::Tccr, 1, &inputs);
        [gs.pop().unwrap().to_bytes(), es.pop().unwrap().0.to_bytes()]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn corrupted_state_files_never_panic(cut in 0usize..2000, flip in 0usize..2000) {
        for bytes in stored_states() {
            let cut = cut % bytes.len();
            prop_assert!(GarblerPrep::from_bytes(&bytes[..cut]).is_err());
            prop_assert!(EvaluatorPrep::from_bytes(&bytes[..cut]).is_err());
            let mut flipped = bytes.clone();
            flipped[flip % bytes.len()] ^= 0x80;
            let _ = GarblerPrep::from_bytes(&flipped);
            let _ = EvaluatorPrep::from_bytes(&flipped);
        }
    }
}

#[test]
fn a_state_whose_ownership_disagrees_with_its_labels_is_refused() {
    let mut bytes = stored_states()[0].clone();
    // magic 8, id 32, digest 32, input widths 4 + 2·4, output widths 4 + 4: then the
    // number of values the garbler owns (1 for the adder). Claim 0: the state still parses,
    // but its 64 garbler labels no longer fit the ownership.
    assert_eq!(bytes[92..96], 1u32.to_le_bytes());
    bytes[92..96].copy_from_slice(&0u32.to_le_bytes());
    let prep = GarblerPrep::from_bytes(&bytes).unwrap();
    let (mut gch, ech) = memory_pair();
    drop(ech);
    let err = garbler_online(&mut gch, prep, &[]).unwrap_err().to_string();
    assert!(err.contains("corrupted"), "{err}");
}
