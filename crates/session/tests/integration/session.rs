//! The two-party protocol end to end over in-memory channels and loopback TCP.

use std::thread;

use mixgc_circuit::{bristol, values, Circuit};
use mixgc_compile::{compile, CompiledCircuit};
use mixgc_core::HashKind;
use mixgc_net::{memory_pair, Channel, TcpChannel, TranscriptChannel};
use mixgc_session::{
    Audience, EvaluatorSession, GarblerSession, Outcome, PartyId, Scheme, SessionConfig, SessionError, Terms,
};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

use super::common;

use common::Tap;

type Res = Result<Outcome, SessionError>;

/// Every garbling scheme: the correctness tests run against each.
const SCHEMES: [Scheme; 2] = [Scheme::HalfGates, Scheme::ThreeHalves];

/// The default configuration, garbling with `garbling`.
fn config(garbling: Scheme) -> SessionConfig {
    SessionConfig {
        garbling,
        ..SessionConfig::default()
    }
}

fn circuit(name: &str) -> Circuit {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits");
    bristol::read_file(&dir.join(name)).unwrap()
}

/// Runs both parties on two threads over `pair`; returns (garbler, evaluator) results.
fn run_pair<C: Channel + 'static>(
    (gch, ech): (C, C),
    cfg: [SessionConfig; 2],
    circuits: [&CompiledCircuit; 2],
    terms: [Terms; 2],
    inputs: [Vec<Vec<bool>>; 2],
) -> (Res, Res) {
    let [gc, ec] = circuits;
    let [gt, et] = terms;
    let [gi, ei] = inputs;
    let [gcfg, ecfg] = cfg;
    thread::scope(|s| {
        let e =
            s.spawn(move || EvaluatorSession::setup(ech, &ecfg).and_then(|mut e| e.execute(ec, &et, &ei)));
        let g = GarblerSession::setup(gch, &gcfg).and_then(|mut g| g.execute(gc, &gt, &gi));
        (g, e.join().unwrap())
    })
}

fn split_inputs(c: &CompiledCircuit, terms: &Terms, all: &[Vec<bool>]) -> [Vec<Vec<bool>>; 2] {
    let (g, e) = terms.owners(c.input_widths()).unwrap();
    [
        g.iter().map(|&v| all[v].clone()).collect(),
        e.iter().map(|&v| all[v].clone()).collect(),
    ]
}

fn two_party(c: &Circuit, all: &[Vec<bool>], terms: Terms, hash: HashKind, garbling: Scheme) -> (Res, Res) {
    let compiled = compile(c);
    let cfg = SessionConfig {
        hash,
        ..config(garbling)
    };
    run_pair(
        memory_pair(),
        [cfg.clone(), cfg],
        [&compiled, &compiled],
        [terms; 2],
        split_inputs(&compiled, &terms, all),
    )
}

fn random_inputs(c: &Circuit, rng: &mut impl Rng) -> Vec<Vec<bool>> {
    c.input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.gen()).collect())
        .collect()
}

#[test]
fn aes_128_fips_197_in_process_and_over_tcp() {
    let c = circuit("aes_128.txt");
    let key = values::parse_hex("000102030405060708090a0b0c0d0e0f", 128).unwrap();
    let pt = values::parse_hex("00112233445566778899aabbccddeeff", 128).unwrap();
    for garbling in SCHEMES {
        let (g, e) = two_party(
            &c,
            &[key.clone(), pt.clone()],
            Terms::default(),
            HashKind::Tccr,
            garbling,
        );
        for r in [g.unwrap(), e.unwrap()] {
            assert_eq!(
                values::to_hex(&r.outputs.unwrap()[0]),
                "69c4e0d86a7b0430d8cdb78070b4c55a"
            );
            assert_eq!(r.ands, 6400);
        }
    }

    let compiled = compile(&c);
    let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
    let timeout = std::time::Duration::from_secs(10);
    let ech = thread::spawn(move || TcpChannel::connect(&addr.to_string(), timeout).unwrap());
    let gch = TcpChannel::accept(&listener, timeout).unwrap();
    let cfg = SessionConfig {
        hash: HashKind::Rekeyed,
        ..SessionConfig::default()
    };
    let (g, e) = run_pair(
        (gch, ech.join().unwrap()),
        [cfg.clone(), cfg],
        [&compiled, &compiled],
        [Terms::default(); 2],
        [vec![key], vec![pt]],
    );
    for r in [g.unwrap(), e.unwrap()] {
        assert_eq!(
            values::to_hex(&r.outputs.unwrap()[0]),
            "69c4e0d86a7b0430d8cdb78070b4c55a"
        );
    }
}

#[test]
fn every_shipped_circuit_matches_plaintext_through_2pc() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "txt") {
            continue;
        }
        let c = bristol::read_file(&path).unwrap();
        for garbling in SCHEMES {
            let inputs = random_inputs(&c, &mut rng);
            let want = c.eval_plain(&inputs).unwrap();
            let (g, e) = two_party(&c, &inputs, Terms::default(), HashKind::Tccr, garbling);
            assert_eq!(
                g.unwrap().outputs.unwrap(),
                want,
                "{} ({garbling})",
                path.display()
            );
            assert_eq!(
                e.unwrap().outputs.unwrap(),
                want,
                "{} ({garbling})",
                path.display()
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn random_circuits_match_plaintext_through_2pc(seed: u64, gates in 1usize..300, widths in proptest::collection::vec(0u32..12, 1..5), k in 0usize..5) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let c = Circuit::random(&mut rng, &widths, gates, 5);
        let nonzero = widths.iter().filter(|&&w| w > 0).count();
        let terms = Terms { garbler_values: Some(k.min(nonzero)), reveal: Audience::BOTH };
        let inputs = random_inputs(&c, &mut rng);
        let want = c.eval_plain(&inputs).unwrap();
        for garbling in SCHEMES {
            let (g, e) = two_party(&c, &inputs, terms, HashKind::Tccr, garbling);
            prop_assert_eq!(g.unwrap().outputs.unwrap(), want.clone());
            prop_assert_eq!(e.unwrap().outputs.unwrap(), want.clone());
        }
    }
}

#[test]
fn reveal_modes_give_outputs_only_to_who_learns() {
    let c = circuit("adder64.txt");
    let inputs = vec![
        values::parse_hex("5", 64).unwrap(),
        values::parse_hex("7", 64).unwrap(),
    ];
    let twelve = values::parse_hex("c", 64).unwrap();
    for (reveal, g_learns, e_learns, garbling) in [
        (Audience::only(PartyId::GARBLER), true, false),
        (Audience::only(PartyId::EVALUATOR), false, true),
        (Audience::BOTH, true, true),
    ]
    .into_iter()
    .flat_map(|(r, g, e)| SCHEMES.map(|s| (r, g, e, s)))
    {
        let (g, e) = two_party(
            &c,
            &inputs,
            Terms {
                garbler_values: None,
                reveal,
            },
            HashKind::Tccr,
            garbling,
        );
        let (g, e) = (g.unwrap(), e.unwrap());
        assert_eq!(g.outputs.is_some(), g_learns);
        assert_eq!(e.outputs.is_some(), e_learns);
        for out in [g.outputs, e.outputs].into_iter().flatten() {
            assert_eq!(out, vec![twelve.clone()]);
        }
    }
}

#[test]
fn several_executions_share_one_session() {
    for garbling in SCHEMES {
        several_executions_in(garbling);
    }
}

fn several_executions_in(garbling: Scheme) {
    let c = compile(&circuit("adder64.txt"));
    let (gch, ech) = memory_pair();
    let cfg = config(garbling);
    let t = Terms::default();
    let e = thread::spawn({
        let (c, cfg) = (c.clone(), cfg.clone());
        move || {
            let mut e = EvaluatorSession::setup(ech, &cfg).unwrap();
            (1..=3u64)
                .map(|i| {
                    e.execute(&c, &t, &[values::parse_hex(&format!("{i}"), 64).unwrap()])
                        .unwrap()
                })
                .collect::<Vec<_>>()
        }
    });
    let mut g = GarblerSession::setup(gch, &cfg).unwrap();
    for i in 1..=3u64 {
        let out = g
            .execute(&c, &t, &[values::parse_hex("64", 64).unwrap()])
            .unwrap();
        assert_eq!(
            values::to_hex(&out.outputs.unwrap()[0]),
            format!("{:016x}", 100 + i)
        );
    }
    assert_eq!(e.join().unwrap().len(), 3);
}

/// Seeded runs produce a fixed transcript, with or without the I/O thread (a batch of three
/// AES-128 instances, long enough for the garbler to hand its channel to the writer thread):
/// a change to the wire format must change this digest on purpose. Unseeded runs never
/// repeat.
#[test]
fn seeded_transcript_is_pinned() {
    check_pinned_transcript(Scheme::HalfGates, PINNED_GARBLER_SENT, PINNED_EVALUATOR_SENT);
}

/// [`seeded_transcript_is_pinned`] for three-halves garbling (the control key comes from
/// the seeded session RNG).
#[test]
fn seeded_three_halves_transcript_is_pinned() {
    check_pinned_transcript(
        Scheme::ThreeHalves,
        PINNED_THREE_HALVES_GARBLER_SENT,
        PINNED_THREE_HALVES_EVALUATOR_SENT,
    );
}

fn check_pinned_transcript(garbling: Scheme, garbler_sent: &str, evaluator_sent: &str) {
    let transcript = |seed: Option<u64>, io_thread: bool| -> (String, String) {
        let c = compile(&circuit("aes_128.txt"));
        let (gch, ech) = memory_pair();
        let cfg = SessionConfig {
            insecure_seed: seed,
            io_thread,
            ..config(garbling)
        };
        let key = values::parse_hex("000102030405060708090a0b0c0d0e0f", 128).unwrap();
        let pt = values::parse_hex("00112233445566778899aabbccddeeff", 128).unwrap();
        let e = thread::spawn({
            let (c, cfg) = (c.clone(), cfg.clone());
            move || {
                let mut e = EvaluatorSession::setup(TranscriptChannel::new(ech), &cfg).unwrap();
                e.execute_batch(&c, &Terms::default(), &vec![vec![pt]; 3])
                    .unwrap();
            }
        });
        let mut g = GarblerSession::setup(TranscriptChannel::new(gch), &cfg).unwrap();
        g.execute_batch(&c, &Terms::default(), &vec![vec![key]; 3])
            .unwrap();
        e.join().unwrap();
        g.channel().digests()
    };
    let (sent, received) = transcript(Some(42), true);
    assert_eq!(
        (sent.clone(), received.clone()),
        transcript(Some(42), true),
        "seeded runs must repeat"
    );
    assert_eq!(
        (sent.clone(), received.clone()),
        transcript(Some(42), false),
        "the I/O thread must not change the bytes"
    );
    assert_eq!(
        sent, garbler_sent,
        "garbler's transcript changed ({garbling}); update on purpose"
    );
    assert_eq!(
        received, evaluator_sent,
        "evaluator's transcript changed ({garbling}); update on purpose"
    );
    let (u1, _) = transcript(None, true);
    let (u2, _) = transcript(None, true);
    assert_ne!(u1, u2, "unseeded runs must differ");
}

const PINNED_GARBLER_SENT: &str = "2c965140e1f22b8a77d4b446da2f6cc9b6bb58a535e2596b5bd78d83a43a853a";
const PINNED_EVALUATOR_SENT: &str = "190eaed24332b398579997d9676c8fa8b907dc64e4d4c96fe6f434bd2229f770";
const PINNED_THREE_HALVES_GARBLER_SENT: &str =
    "225acddc39904c7f56e0357f819f71dd54e172de62d5740d4dc4fd71f98b51e6";
const PINNED_THREE_HALVES_EVALUATOR_SENT: &str =
    "0303241038716a58d54e1f5c837c8f1fd87087c61038d3f63dfaa490933339bd";

fn expect_mismatch(g: Res, e: Res, what: &str) {
    for (who, r) in [("garbler", g), ("evaluator", e)] {
        let msg = r.expect_err(who).to_string();
        assert!(msg.contains(what), "{who}: {msg}");
    }
}

#[test]
fn mismatched_circuits_and_terms_stop_both_sides_naming_the_difference() {
    let add = compile(&circuit("adder64.txt"));
    let sub = compile(&circuit("sub64.txt"));
    let aes = compile(&circuit("aes_128.txt"));
    let cfg = SessionConfig::default();
    let cfgs = || [cfg.clone(), cfg.clone()];
    let x = vec![vec![false; 64]];
    let t = Terms::default();

    let (g, e) = run_pair(
        memory_pair(),
        cfgs(),
        [&add, &sub],
        [t, t],
        [x.clone(), x.clone()],
    );
    expect_mismatch(g, e, "circuit digest differs");

    let (g, e) = run_pair(
        memory_pair(),
        cfgs(),
        [&add, &aes],
        [t, t],
        [x.clone(), vec![vec![false; 128]]],
    );
    expect_mismatch(g, e, "input widths differ");

    let both = Terms {
        reveal: Audience::BOTH,
        ..t
    };
    let garbler_only = Terms {
        reveal: Audience::only(PartyId::GARBLER),
        ..t
    };
    let (g, e) = run_pair(
        memory_pair(),
        cfgs(),
        [&add, &add],
        [both, garbler_only],
        [x.clone(), x.clone()],
    );
    expect_mismatch(g, e, "reveal mode differs");

    let one = Terms {
        garbler_values: Some(1),
        ..t
    };
    let two = Terms {
        garbler_values: Some(2),
        ..t
    };
    let (g, e) = run_pair(
        memory_pair(),
        cfgs(),
        [&add, &add],
        [one, two],
        [x.clone(), vec![]],
    );
    expect_mismatch(g, e, "value ownership differs");

    let tccr = SessionConfig {
        hash: HashKind::Tccr,
        ..cfg.clone()
    };
    let (g, e) = run_pair(
        memory_pair(),
        [cfg.clone(), tccr],
        [&add, &add],
        [t, t],
        [x.clone(), x.clone()],
    );
    expect_mismatch(g, e, "gate hash differs");

    let (g, e) = run_pair(
        memory_pair(),
        [cfg.clone(), config(Scheme::ThreeHalves)],
        [&add, &add],
        [t, t],
        [x.clone(), x.clone()],
    );
    expect_mismatch(g, e, "garbling scheme differs");
    let (g, e) = run_pair(
        memory_pair(),
        [config(Scheme::ThreeHalves), cfg.clone()],
        [&add, &add],
        [t, t],
        [x.clone(), x],
    );
    let (g, e) = (g.unwrap_err().to_string(), e.unwrap_err().to_string());
    assert!(
        g.contains("garbling scheme differs: ours three-halves, the peer's half-gates"),
        "{g}"
    );
    assert!(
        e.contains("garbling scheme differs: ours half-gates, the peer's three-halves"),
        "{e}"
    );
}

#[test]
fn both_parties_with_the_same_role_are_told() {
    let (a, b) = memory_pair();
    let cfg = SessionConfig::default();
    let t = thread::spawn({
        let cfg = cfg.clone();
        move || GarblerSession::setup(b, &cfg).err().unwrap().to_string()
    });
    let mine = GarblerSession::setup(a, &cfg).err().unwrap().to_string();
    assert!(mine.contains("both parties chose --role garbler"), "{mine}");
    assert!(t.join().unwrap().contains("both parties chose --role garbler"));
}

#[test]
fn wrong_input_width_is_reported_to_both_sides() {
    let add = compile(&circuit("adder64.txt"));
    let cfg = SessionConfig::default();
    let (g, e) = run_pair(
        memory_pair(),
        [cfg.clone(), cfg],
        [&add, &add],
        [Terms::default(); 2],
        [vec![vec![false; 63]], vec![vec![false; 64]]],
    );
    let g = g.unwrap_err().to_string();
    assert!(g.contains("must be 64 bits, got 63"), "{g}");
    let e = e.unwrap_err().to_string();
    assert!(
        e.contains("the peer stopped") && e.contains("must be 64 bits"),
        "{e}"
    );
}

#[test]
fn a_garbler_that_dies_mid_stream_gives_the_evaluator_an_error() {
    let aes = compile(&circuit("aes_128.txt"));
    for (budget, garbling) in [10, 5_000, 20_000, 150_000]
        .into_iter()
        .flat_map(|b| SCHEMES.map(|s| (b, s)))
    {
        let (g, e) = memory_pair();
        let dying = Tap::new(g, budget);
        let cfg = config(garbling);
        let ev = thread::spawn({
            let (aes, cfg) = (aes.clone(), cfg.clone());
            move || {
                EvaluatorSession::setup(e, &cfg)
                    .and_then(|mut e| e.execute(&aes, &Terms::default(), &[vec![true; 128]]))
            }
        });
        let g = GarblerSession::setup(dying, &cfg)
            .and_then(|mut g| g.execute(&aes, &Terms::default(), &[vec![true; 128]]));
        drop(g);
        let err = ev.join().unwrap().unwrap_err().to_string();
        assert!(
            err.contains("closed the connection"),
            "budget {budget} ({garbling}): {err}"
        );
    }
}

#[test]
fn garbage_from_the_peer_is_an_error_not_a_panic() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for len in [1usize, 5, 41, 46, 1000, 100_000] {
        let (mut bad, e) = memory_pair();
        let junk: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        bad.send(&junk).unwrap();
        bad.flush().unwrap();
        drop(bad);
        let err = EvaluatorSession::setup(e, &SessionConfig::default())
            .err()
            .expect("garbage accepted");
        let msg = err.to_string();
        assert!(
            msg.contains("not a mixgc party") || msg.contains("closed the connection"),
            "{msg}"
        );
    }
}

/// A batch runs every input set in one stream and returns each instance's outputs, whoever
/// owns the inputs (including a party with no inputs at all).
#[test]
fn batches_return_every_instance() {
    let c = compile(&circuit("adder64.txt"));
    let hex = |v: u64| values::parse_hex(&format!("{v:x}"), 64).unwrap();
    for (garbler_values, garbling) in [0, 1, 2].into_iter().flat_map(|k| SCHEMES.map(|s| (k, s))) {
        let terms = Terms {
            garbler_values: Some(garbler_values),
            reveal: Audience::BOTH,
        };
        let sets: Vec<[u64; 2]> = (0..5u64).map(|i| [i * 1000 + 7, u64::MAX - i]).collect();
        let split = |range: std::ops::Range<usize>| -> Vec<Vec<Vec<bool>>> {
            sets.iter()
                .map(|s| s[range.clone()].iter().map(|&v| hex(v)).collect())
                .collect()
        };
        let (gb, eb) = (split(0..garbler_values), split(garbler_values..2));
        let (gch, ech) = memory_pair();
        let cfg = config(garbling);
        let (g, e) = thread::scope(|s| {
            let e = s.spawn(|| {
                EvaluatorSession::setup(ech, &cfg).and_then(|mut e| e.execute_batch(&c, &terms, &eb))
            });
            let g = GarblerSession::setup(gch, &cfg).and_then(|mut g| g.execute_batch(&c, &terms, &gb));
            (g.unwrap(), e.join().unwrap().unwrap())
        });
        assert_eq!((g.len(), e.len()), (5, 5));
        for (i, s) in sets.iter().enumerate() {
            let want = vec![hex(s[0].wrapping_add(s[1]))];
            assert_eq!(g[i].outputs.as_ref().unwrap(), &want, "garbler, instance {i}");
            assert_eq!(e[i].outputs.as_ref().unwrap(), &want, "evaluator, instance {i}");
            assert_eq!(g[i].ands, 63);
        }
    }
}

#[test]
fn table_frames_stay_within_the_limit_on_large_circuits() {
    // sha256 has 22,573 ANDs = 706 KiB of tables; a batch of 4 streams ~2.8 MiB through
    // several full 1 MiB frames, which must never exceed the evaluator's frame limit.
    let c = circuit("sha256.txt");
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    let compiled = compile(&c);
    let sets: Vec<Vec<Vec<bool>>> = (0..4).map(|_| random_inputs(&c, &mut rng)).collect();
    for garbling in SCHEMES {
        let (gch, ech) = memory_pair();
        let cfg = config(garbling);
        let t = Terms::default();
        let gb: Vec<_> = sets.iter().map(|s| vec![s[0].clone()]).collect();
        let eb: Vec<_> = sets.iter().map(|s| vec![s[1].clone()]).collect();
        let (g, e) = thread::scope(|s| {
            let e = s.spawn(|| {
                EvaluatorSession::setup(ech, &cfg).and_then(|mut e| e.execute_batch(&compiled, &t, &eb))
            });
            let g = GarblerSession::setup(gch, &cfg).and_then(|mut g| g.execute_batch(&compiled, &t, &gb));
            (g.unwrap(), e.join().unwrap().unwrap())
        });
        for (i, s) in sets.iter().enumerate() {
            let want = c.eval_plain(s).unwrap();
            assert_eq!(g[i].outputs.as_ref().unwrap(), &want);
            assert_eq!(e[i].outputs.as_ref().unwrap(), &want);
        }
    }
}

/// Garbled tables go out with a slow start (64 KiB, doubling) up to the configured batch
/// size, never above it.
#[test]
fn table_frames_slow_start_up_to_the_batch_size() {
    let c = circuit("sha256.txt");
    let compiled = compile(&c);
    let mut rng = rand::rngs::StdRng::seed_from_u64(8);
    let sets: Vec<Vec<Vec<bool>>> = (0..2).map(|_| random_inputs(&c, &mut rng)).collect();
    let gb: Vec<_> = sets.iter().map(|s| vec![s[0].clone()]).collect();
    let eb: Vec<_> = sets.iter().map(|s| vec![s[1].clone()]).collect();
    let (gch, ech) = memory_pair();
    let spy = Tap::new(gch, usize::MAX);
    let cfg = SessionConfig {
        batch_bytes: 256 << 10,
        ..SessionConfig::default()
    };
    let t = Terms::default();
    let frames = thread::scope(|s| {
        let e = s.spawn(|| {
            EvaluatorSession::setup(ech, &cfg).and_then(|mut e| e.execute_batch(&compiled, &t, &eb))
        });
        let mut g = GarblerSession::setup(spy, &cfg).unwrap();
        g.execute_batch(&compiled, &t, &gb).unwrap();
        e.join().unwrap().unwrap();
        let headers = &g.channel().headers;
        headers
            .iter()
            .filter(|h| h[0] == 5)
            .map(|h| u32::from_le_bytes(h[1..].try_into().unwrap()) as usize)
            .collect::<Vec<_>>()
    });
    // 2 × 22,573 ANDs × 32 B = 1.44 MB of tables, cut by size alone: 64 KiB doubling to
    // the 256 KiB target; each instance's last frame holds the rest.
    let instance = 22_573 * 32;
    let k = 1 << 10;
    let first = instance - (64 + 128 + 256 + 256) * k;
    let second = instance - 2 * 256 * k;
    assert_eq!(
        frames,
        [64 * k, 128 * k, 256 * k, 256 * k, first, 256 * k, 256 * k, second]
    );
    // Sizes outside the limits are refused before anything is sent.
    let (a, _b) = memory_pair();
    let bad = SessionConfig {
        batch_bytes: 1000,
        ..SessionConfig::default()
    };
    let err = GarblerSession::setup(a, &bad).err().unwrap().to_string();
    assert!(err.contains("batch size"), "{err}");
}

/// Blocks of a level-by-level stream garbled and evaluated on several threads: the right
/// answer, and the very bytes of one thread (each party picks its own thread count).
#[test]
fn threads_change_no_byte_on_the_wire() {
    use mixgc_compile::{compile_with, Layout, Reorder, DEFAULT_WINDOW};
    use mixgc_program::{gadgets::aes::aes128, Backend, PartyId, Recorder};

    // 8 AES-128 encryptions of the FIPS-197 plaintext under its key, side by side: levels
    // wide enough to be split at the default threshold.
    const BLOCKS: usize = 8;
    let mut r = Recorder::default();
    for _ in 0..BLOCKS {
        let key = r.input(PartyId::GARBLER, 128, None).unwrap();
        let pt = r.input(PartyId::EVALUATOR, 128, None).unwrap();
        let ct = aes128(&mut r, &key, &pt);
        r.output(&ct).unwrap();
    }
    let recorded = r.finish();
    let c = compile_with(
        &recorded.circuit,
        Layout::Reordered(Reorder::Full, DEFAULT_WINDOW),
    );
    let terms = Terms {
        garbler_values: Some(recorded.garbler_values),
        reveal: Audience::BOTH,
    };
    let key = values::parse_hex("000102030405060708090a0b0c0d0e0f", 128).unwrap();
    let pt = values::parse_hex("00112233445566778899aabbccddeeff", 128).unwrap();
    let run = |garbler_threads: usize, evaluator_threads: usize, garbling: Scheme| {
        let cfg = |threads| SessionConfig {
            insecure_seed: Some(7),
            threads,
            ..config(garbling)
        };
        let (gch, ech) = memory_pair();
        thread::scope(|s| {
            let e = s.spawn(|| {
                let mut e =
                    EvaluatorSession::setup(TranscriptChannel::new(ech), &cfg(evaluator_threads)).unwrap();
                let out = e.execute(&c, &terms, &vec![pt.clone(); BLOCKS]).unwrap();
                (out, e.channel().digests())
            });
            let mut g = GarblerSession::setup(TranscriptChannel::new(gch), &cfg(garbler_threads)).unwrap();
            let out = g.execute(&c, &terms, &vec![key.clone(); BLOCKS]).unwrap();
            let (e_out, e_digests) = e.join().unwrap();
            for o in [&out, &e_out] {
                let outputs = o.outputs.as_ref().unwrap();
                assert_eq!(outputs.len(), BLOCKS);
                assert!(outputs
                    .iter()
                    .all(|v| values::to_hex(v) == "69c4e0d86a7b0430d8cdb78070b4c55a"));
            }
            // What one party sent is what the other received.
            let g_digests = g.channel().digests();
            assert_eq!(
                (g_digests.0.clone(), g_digests.1.clone()),
                (e_digests.1, e_digests.0)
            );
            g_digests
        })
    };
    for garbling in SCHEMES {
        let one = run(1, 1, garbling);
        assert_eq!(
            run(2, 3, garbling),
            one,
            "threads changed the transcript ({garbling})"
        );
        assert_eq!(
            run(3, 1, garbling),
            one,
            "threads changed the transcript ({garbling})"
        );
    }
    // A thread count out of range is refused before anything is sent.
    let (a, _b) = memory_pair();
    let bad = SessionConfig {
        threads: 0,
        ..SessionConfig::default()
    };
    let err = GarblerSession::setup(a, &bad).err().unwrap().to_string();
    assert!(err.contains("threads"), "{err}");
}

/// One three-halves session runs a program (gate by gate), a preprocessing and a circuit in
/// turn, all matching the plaintext model: the AND index runs on across them, so no tweak
/// repeats under the session's Δ.
#[test]
fn three_halves_sessions_run_programs_preprocessing_and_circuits_in_turn() {
    use mixgc_program::{to_u128, Backend, Ctx, PartyId as P};
    /// The low 32 bits of the product of the garbler's and the evaluator's 32-bit values.
    fn low_product<B: Backend>(ctx: &Ctx<B>, a: Option<u128>, b: Option<u128>) -> Option<u128> {
        let a = ctx.input_uint(P::GARBLER, 32, a).unwrap();
        let b = ctx.input_uint(P::EVALUATOR, 32, b).unwrap();
        (&a * &b).reveal().unwrap().map(|v| to_u128(&v))
    }
    let c = compile(&circuit("adder64.txt"));
    let cfg = config(Scheme::ThreeHalves);
    let t = Terms::default();
    let x = values::parse_hex("5", 64).unwrap();
    let (gch, ech) = memory_pair();
    let e = thread::spawn({
        let (c, cfg, x) = (c.clone(), cfg.clone(), x.clone());
        move || {
            let mut e = EvaluatorSession::setup(ech, &cfg).unwrap();
            let ctx = Ctx::new(e.program("p", Audience::BOTH).unwrap());
            let product = low_product(&ctx, None, Some(0xffff_fffe));
            let ands = ctx.into_inner().unwrap().finish().unwrap();
            let mut store = Vec::new();
            let prep = e.preprocess_stream(&mut c.stream(), &t, &mut store).unwrap();
            assert_eq!(prep.scheme(), Scheme::ThreeHalves);
            let out = e.execute(&c, &t, &[x]).unwrap();
            (product, ands, out.outputs)
        }
    });
    let mut g = GarblerSession::setup(gch, &cfg).unwrap();
    let ctx = Ctx::new(g.program("p", Audience::BOTH).unwrap());
    let product = low_product(&ctx, Some(0x1234_5679), None);
    let ands = ctx.into_inner().unwrap().finish().unwrap();
    let prep = g.preprocess(&mut c.stream(), &t).unwrap();
    assert_eq!(prep.scheme(), Scheme::ThreeHalves);
    let out = g.execute(&c, &t, &[x]).unwrap();
    let want = (0x1234_5679u128 * 0xffff_fffe) & 0xffff_ffff;
    let ten = values::parse_hex("a", 64).unwrap();
    assert_eq!(out.outputs.unwrap(), vec![ten.clone()]);
    let (e_product, e_ands, e_out) = e.join().unwrap();
    let plain = low_product(
        &Ctx::new(mixgc_program::Plain::default()),
        Some(0x1234_5679),
        Some(0xffff_fffe),
    );
    assert_eq!(plain, Some(want), "the plaintext model");
    assert_eq!((product, e_product), (Some(want), Some(want)));
    assert_eq!(ands, e_ands, "both parties count the same ANDs");
    assert_eq!(e_out.unwrap(), vec![ten]);
}

/// Three-halves sends at most 26 bytes per AND on the table stream (24 + 5/8 per AND, plus
/// the rounding of each group), against half-gates' 32.
#[test]
fn three_halves_tables_take_at_most_26_bytes_per_and() {
    let c = compile(&circuit("sha256.txt"));
    let mut rng = rand::rngs::StdRng::seed_from_u64(4);
    let inputs = random_inputs(&circuit("sha256.txt"), &mut rng);
    let t = Terms::default();
    let [gi, ei] = split_inputs(&c, &t, &inputs);
    let table_bytes = |garbling: Scheme| {
        let (gch, ech) = memory_pair();
        let spy = Tap::new(gch, usize::MAX);
        let cfg = config(garbling);
        thread::scope(|s| {
            let e = s.spawn(|| EvaluatorSession::setup(ech, &cfg).and_then(|mut e| e.execute(&c, &t, &ei)));
            let mut g = GarblerSession::setup(spy, &cfg).unwrap();
            g.execute(&c, &t, &gi).unwrap();
            e.join().unwrap().unwrap();
            g.channel()
                .headers
                .iter()
                .filter(|h| h[0] == 5)
                .map(|h| u32::from_le_bytes(h[1..].try_into().unwrap()) as u64)
                .sum::<u64>()
        })
    };
    let ands = c.header().num_ands();
    assert_eq!(table_bytes(Scheme::HalfGates), 32 * ands);
    let three_halves = table_bytes(Scheme::ThreeHalves);
    assert!(three_halves <= 26 * ands, "{three_halves} bytes for {ands} ANDs");
}
