//! Preprocessing mode: garble and OT offline, evaluate from the store online.

use std::io::Cursor;
use std::thread;

use mixgc_circuit::{bristol, values, Circuit};
use mixgc_compile::{compile, CompiledCircuit};
use mixgc_core::HashKind;
use mixgc_net::{memory_pair, Channel};
use mixgc_session::{
    evaluator_online, garbler_online, Audience, EvaluatorPrep, EvaluatorSession, GarblerPrep, GarblerSession,
    Outcome, PartyId, Scheme, SessionConfig, SessionError, Terms,
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

/// Offline: one half-gates session preprocesses `count` garblings of `c`, then (to check
/// the AND index stays in step) executes `c` normally once with `check_inputs`.
fn offline(
    c: &CompiledCircuit,
    terms: Terms,
    hash: HashKind,
    count: usize,
    check_inputs: &[Vec<Vec<bool>>; 2],
) -> Offline {
    offline_with(Scheme::HalfGates, c, terms, hash, count, check_inputs)
}

/// [`offline`] in a session of `scheme` (the evaluator sizes a half-gates store from the
/// header, a three-halves one from the stream).
fn offline_with(
    scheme: Scheme,
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
        garbling: scheme,
        ..SessionConfig::default()
    };
    thread::scope(|s| {
        let e = s.spawn(|| {
            let mut e = EvaluatorSession::setup(ech, &cfg).unwrap();
            assert_eq!(e.threads(), 2);
            let preps: Vec<_> = (0..count)
                .map(|_| {
                    let mut store = Vec::new();
                    let prep = match scheme {
                        Scheme::HalfGates => e.preprocess(c, &terms, &mut store).unwrap(),
                        Scheme::ThreeHalves => {
                            e.preprocess_stream(&mut c.stream(), &terms, &mut store).unwrap()
                        }
                    };
                    assert_eq!(store.len() as u64, prep.table_bytes());
                    assert_eq!(prep.scheme(), scheme);
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

/// Both garbling schemes: the online phase sends the same bytes under each (only labels
/// travel); the stores differ in size.
#[test]
fn aes_128_online_gives_fips_197_and_sends_only_labels() {
    for scheme in [Scheme::HalfGates, Scheme::ThreeHalves] {
        aes_128_online(scheme);
    }
}

fn aes_128_online(scheme: Scheme) {
    let c = compile(&circuit("aes_128.txt"));
    let key = hex("000102030405060708090a0b0c0d0e0f", 128);
    let pt = hex("00112233445566778899aabbccddeeff", 128);
    let inputs = [vec![key], vec![pt]];
    let (g, mut e, _) = offline_with(scheme, &c, Terms::default(), HashKind::Tccr, 1, &inputs);
    let (e, store) = e.pop().unwrap();
    let per_and = store.len() as f64 / c.num_ands() as f64;
    match scheme {
        Scheme::HalfGates => assert_eq!(per_and, 32.0),
        Scheme::ThreeHalves => assert!((24.0..=26.0).contains(&per_and), "{per_and} B/AND"),
    }
    let ((g_out, g_sent), (e_out, e_sent)) = online(&c, g.into_iter().next().unwrap(), &e, &store, &inputs);
    let want = "69c4e0d86a7b0430d8cdb78070b4c55a";
    for out in [g_out.unwrap(), e_out.unwrap()] {
        assert_eq!(values::to_hex(&out.outputs.unwrap()[0]), want);
    }
    // Online the garbler sends the store key, 128 + 2 labels and 128 corrections (plus three
    // frame headers); the evaluator sends its request (version 2, id and digest 64, state
    // key 32, 8 + 16 bytes of masked bits) and 16 bytes of colours.
    assert_eq!(g_sent, 32 + (130 + 128) * 16 + 3 * 5);
    assert_eq!(e_sent, 5 + 2 + 64 + 32 + 8 + 16 + 5 + 16);
}

#[test]
fn random_inputs_every_reveal_mode_and_hash_match_plaintext() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for (name, reveal, hash, scheme) in [
        ("adder64.txt", Audience::BOTH, HashKind::Tccr, Scheme::HalfGates),
        (
            "mult64.txt",
            Audience::only(PartyId::GARBLER),
            HashKind::Rekeyed,
            Scheme::HalfGates,
        ),
        (
            "sha256.txt",
            Audience::only(PartyId::EVALUATOR),
            HashKind::Tccr,
            Scheme::HalfGates,
        ),
        (
            "adder64.txt",
            Audience::only(PartyId::GARBLER),
            HashKind::Rekeyed,
            Scheme::ThreeHalves,
        ),
        ("mult64.txt", Audience::BOTH, HashKind::Tccr, Scheme::ThreeHalves),
        (
            "sha256.txt",
            Audience::only(PartyId::EVALUATOR),
            HashKind::Rekeyed,
            Scheme::ThreeHalves,
        ),
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
        let (gs, es, outs) = offline_with(scheme, &c, terms, hash, 2, &check);
        let want = ir.eval_plain(&check_all).unwrap();
        for (o, learns) in outs.iter().zip([
            reveal.contains(PartyId::GARBLER),
            reveal.contains(PartyId::EVALUATOR),
        ]) {
            assert_eq!(
                o.outputs.as_ref(),
                learns.then_some(&want),
                "{name} ({scheme}): execution after preprocessing"
            );
        }
        for (g, (e, store)) in gs.into_iter().zip(&es) {
            let (all, inputs) = draw(&mut rng);
            let want = ir.eval_plain(&all).unwrap();
            let ((g_out, _), (e_out, _)) = online(&c, g, e, store, &inputs);
            assert_eq!(
                g_out.unwrap().outputs,
                reveal.contains(PartyId::GARBLER).then(|| want.clone()),
                "{name} ({scheme})"
            );
            assert_eq!(
                e_out.unwrap().outputs,
                reveal.contains(PartyId::EVALUATOR).then(|| want.clone()),
                "{name} ({scheme})"
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

/// Stored states of one preprocessed adder, for the property test below.
fn stored_states() -> [&'static Vec<u8>; 2] {
    let (g, e, _) = stored_adder();
    [g, e]
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

/// One preprocessed adder: the garbler's state, the evaluator's state and its tables.
fn stored_adder() -> &'static (Vec<u8>, Vec<u8>, Vec<u8>) {
    static STATES: std::sync::OnceLock<(Vec<u8>, Vec<u8>, Vec<u8>)> = std::sync::OnceLock::new();
    STATES.get_or_init(|| {
        let c = compile(&circuit("adder64.txt"));
        let inputs = [vec![vec![true; 64]], vec![vec![true; 64]]];
        let (mut gs, mut es, _) = offline(&c, Terms::default(), HashKind::Tccr, 1, &inputs);
        let (e, store) = es.pop().unwrap();
        (gs.pop().unwrap().to_bytes(), e.to_bytes(), store)
    })
}

/// Every byte of both states and of the stored tables is covered: a flipped bit anywhere
/// is refused when read or stops both parties online, never a wrong output.
#[test]
fn a_flipped_bit_in_either_state_or_the_tables_stops_both_parties() {
    let c = compile(&circuit("adder64.txt"));
    let inputs = [vec![vec![true; 64]], vec![vec![true; 64]]];
    let (g, e, store) = stored_adder();
    // The untouched files work (and may be read any number of times in a test).
    let ((g_ok, _), (e_ok, _)) = online(
        &c,
        GarblerPrep::from_bytes(g).unwrap(),
        &EvaluatorPrep::from_bytes(e).unwrap(),
        store,
        &inputs,
    );
    assert_eq!(
        values::to_hex(&e_ok.unwrap().outputs.unwrap()[0]),
        "fffffffffffffffe"
    );
    assert!(g_ok.is_ok());
    for which in 0..3 {
        let len = [g.len(), e.len(), store.len()][which];
        for at in (0..len).step_by(len / 48 + 1).chain([len - 1]) {
            let mut files = [g.clone(), e.clone(), store.clone()];
            files[which][at] ^= 0x10;
            let (Ok(gp), Ok(ep)) = (
                GarblerPrep::from_bytes(&files[0]),
                EvaluatorPrep::from_bytes(&files[1]),
            ) else {
                continue; // refused when read
            };
            let ((g_r, _), (e_r, _)) = online(&c, gp, &ep, &files[2], &inputs);
            assert!(
                g_r.is_err() && e_r.is_err(),
                "file {which} byte {at}: garbler {:?}, evaluator {:?}",
                g_r.map(|o| o.outputs),
                e_r.map(|o| o.outputs)
            );
        }
    }
}

/// The garbler's secrets are sealed: a state opened with another store's key is refused
/// before any label leaves.
#[test]
fn a_garbler_state_opens_only_with_its_own_evaluator_store() {
    let c = compile(&circuit("adder64.txt"));
    let inputs = [vec![vec![true; 64]], vec![vec![true; 64]]];
    let (mut gs, mut es, _) = offline(&c, Terms::default(), HashKind::Tccr, 2, &inputs);
    let (e_second, store_second) = es.pop().unwrap();
    let (e_first, _) = es.pop().unwrap();
    // Pretend the second store names the first garbling: its key still does not open it.
    let mut forged = e_second.to_bytes();
    let id = e_first.id();
    forged[8..40].copy_from_slice(&id);
    let forged = EvaluatorPrep::from_bytes(&forged).unwrap();
    let first = gs.remove(0);
    let ((g_r, g_sent), (e_r, _)) = online(&c, first, &forged, &store_second, &inputs);
    let msg = g_r.unwrap_err().to_string();
    assert!(msg.contains("does not open this garbler state"), "{msg}");
    assert!(e_r.is_err());
    assert!(g_sent < 200, "no label left the garbler ({g_sent} bytes sent)");
}

/// A store that delivers at most 64 KiB per read, after `delay`: a slow disk.
struct SlowStore<'a> {
    bytes: &'a [u8],
    delay: std::time::Duration,
}

impl std::io::Read for SlowStore<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        thread::sleep(self.delay);
        let n = buf.len().min(self.bytes.len()).min(64 << 10);
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

/// An evaluation from storage that takes longer than the garbler's timeout (a slow store)
/// keeps the garbler waiting with heartbeats instead of making it give up; without them the
/// same wait is a timeout.
#[test]
fn a_long_local_evaluation_sends_heartbeats_to_the_waiting_garbler() {
    use std::time::Duration;
    let c = compile(&circuit("aes_128.txt"));
    let key = hex("000102030405060708090a0b0c0d0e0f", 128);
    let pt = hex("00112233445566778899aabbccddeeff", 128);
    let inputs = [vec![key], vec![pt]];
    let (mut gs, mut es, _) = offline(&c, Terms::default(), HashKind::Tccr, 1, &inputs);
    let (e, store) = es.pop().unwrap();
    // 200 KiB of tables in four reads of 0.4 s: 1.6 s of evaluation, against a 1 s timeout.
    let (mut gch, mut ech) = memory_pair();
    gch.set_timeout(Duration::from_secs(1));
    let started = std::time::Instant::now();
    let (g_out, e_out) = thread::scope(|s| {
        let ev = s.spawn(|| {
            let mut slow = SlowStore {
                bytes: &store,
                delay: Duration::from_millis(400),
            };
            evaluator_online(&mut ech, &e, &mut c.stream(), &mut slow, &inputs[1])
        });
        let g = garbler_online(&mut gch, gs.pop().unwrap(), &inputs[0]);
        (g, ev.join().unwrap())
    });
    assert!(
        started.elapsed() > Duration::from_millis(1500),
        "the store was slow"
    );
    let want = "69c4e0d86a7b0430d8cdb78070b4c55a";
    assert_eq!(values::to_hex(&g_out.unwrap().outputs.unwrap()[0]), want);
    assert_eq!(values::to_hex(&e_out.unwrap().outputs.unwrap()[0]), want);
}

/// A three-halves preprocessing: both states record the scheme (and survive their byte
/// encoding), edge inputs match the plaintext model, a store cut inside its last block is
/// an error, and a state whose scheme code was changed is refused.
#[test]
fn three_halves_states_carry_their_scheme() {
    let ir = circuit("adder64.txt");
    let c = compile(&ir);
    let edges = [
        (0u64, 0u64),
        (u64::MAX, 1),
        (u64::MAX, u64::MAX),
        (1 << 63, 1 << 63),
    ];
    let bits = |v: u64| (0..64).map(|i| v >> i & 1 == 1).collect::<Vec<bool>>();
    let check = [vec![bits(5)], vec![bits(6)]];
    let (gs, es, outs) = offline_with(
        Scheme::ThreeHalves,
        &c,
        Terms::default(),
        HashKind::Rekeyed,
        5,
        &check,
    );
    assert_eq!(
        outs[1].outputs,
        Some(vec![bits(11)]),
        "execution after preprocessing"
    );
    let mut gs = gs.into_iter();
    for (&(x, y), (e, store)) in edges.iter().zip(&es) {
        let g = GarblerPrep::from_bytes(&gs.next().unwrap().to_bytes()).unwrap();
        let e = EvaluatorPrep::from_bytes(&e.to_bytes()).unwrap();
        assert_eq!(
            (g.scheme(), e.scheme()),
            (Scheme::ThreeHalves, Scheme::ThreeHalves)
        );
        let ((g_out, _), (e_out, _)) = online(&c, g, &e, store, &[vec![bits(x)], vec![bits(y)]]);
        let want = ir.eval_plain(&[bits(x), bits(y)]).unwrap();
        assert_eq!(g_out.unwrap().outputs, Some(want.clone()), "{x:x} + {y:x}");
        assert_eq!(e_out.unwrap().outputs, Some(want), "{x:x} + {y:x}");
    }
    // The last garbling: its store cut by one byte (inside the last block) stops the
    // evaluator with an error, not a hang or an answer.
    let (e, store) = &es[4];
    assert_ne!(store.len() % 16, 0, "the tables end inside a block");
    let ((_, _), (e_r, _)) = online(&c, gs.next().unwrap(), e, &store[..store.len() - 1], &check);
    assert!(e_r.unwrap_err().to_string().contains("stored tables"));
    // The scheme code sits after the hash seed in the evaluator's store and ends the
    // garbler's public fields; another code is refused (the store's table size no longer
    // fits) or seals nothing (the garbler's code is authenticated with its secrets).
    let e_bytes = es[0].0.to_bytes();
    let mut half = e_bytes.clone();
    let code = three_halves_code_offset(&e_bytes);
    assert_eq!(half[code], 1, "three-halves' code");
    half[code] = 0;
    let err = EvaluatorPrep::from_bytes(&half).err().expect("refused");
    assert!(err.contains("corrupted"), "{err}");
}

/// The offset of the scheme code in an evaluator's store (format 3): magic, id, stream
/// digest, input widths (a u32 count and u32s), garbler values, reveal code, hash code and
/// the 16-byte hash seed with its u64 count come before it.
fn three_halves_code_offset(store: &[u8]) -> usize {
    let widths = u32::from_le_bytes(store[72..76].try_into().unwrap()) as usize;
    let after_widths = 76 + 4 * widths;
    after_widths + 4 + 4 + 4 + 8 + 16
}

/// Preprocessing states of format 2 (before the scheme was recorded) are named as such.
#[test]
fn states_of_the_older_format_are_named() {
    let (g, e, _) = stored_adder();
    for (bytes, read) in [
        (
            g,
            (|b: &[u8]| GarblerPrep::from_bytes(b).err()) as fn(&[u8]) -> Option<String>,
        ),
        (e, |b: &[u8]| EvaluatorPrep::from_bytes(b).err()),
    ] {
        let mut old = bytes.clone();
        old[7] = b'2';
        let err = read(&old).expect("refused");
        assert!(
            err.contains("older version") && err.contains("preprocess again"),
            "{err}"
        );
    }
}

/// In a three-halves session an evaluator that preprocesses from the header alone is
/// refused on both sides (its table size needs the stream); parties whose schemes differ
/// are stopped in the hello, each naming both schemes.
#[test]
fn a_header_only_or_mismatched_three_halves_preprocessing_stops_both_sides() {
    let c = compile(&circuit("adder64.txt"));
    let t = Terms::default();
    let cfg = |garbling| SessionConfig {
        garbling,
        ..SessionConfig::default()
    };
    let (gch, ech) = memory_pair();
    let (g, e) = thread::scope(|s| {
        let e = s.spawn(|| {
            let mut e = EvaluatorSession::setup(ech, &cfg(Scheme::ThreeHalves)).unwrap();
            let mut store = Vec::new();
            let r = e.preprocess(&c, &t, &mut store).map(drop);
            assert!(store.is_empty());
            r
        });
        let mut g = GarblerSession::setup(gch, &cfg(Scheme::ThreeHalves)).unwrap();
        let g_result = g.preprocess(&mut c.stream(), &t).map(drop);
        // Closed as a garbler process would on exit: the evaluator's abort drains the link
        // until the peer closes (or its 30 s read timeout ends the wait).
        drop(g);
        (g_result, e.join().unwrap())
    });
    let e = e.unwrap_err().to_string();
    assert!(
        e.contains("this session uses three-halves") && e.contains("preprocess_stream"),
        "{e}"
    );
    let g = g.unwrap_err().to_string();
    assert!(
        g.contains("this session uses three-halves"),
        "the garbler is told: {g}"
    );

    let (gch, ech) = memory_pair();
    let (g, e) = thread::scope(|s| {
        let e = s.spawn(|| EvaluatorSession::setup(ech, &cfg(Scheme::ThreeHalves)).map(drop));
        (
            GarblerSession::setup(gch, &cfg(Scheme::HalfGates)).map(drop),
            e.join().unwrap(),
        )
    });
    for (who, r) in [("garbler", g), ("evaluator", e)] {
        let msg = r.unwrap_err().to_string();
        assert!(
            msg.contains("garbling scheme differs")
                && msg.contains("half-gates")
                && msg.contains("three-halves"),
            "{who}: {msg}"
        );
    }
}
