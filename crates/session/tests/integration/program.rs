//! Programs run between two parties gate by gate (and, recorded, as circuits).

use std::thread;

use mixgc_compile::compile;
use mixgc_net::{memory_pair, Divergence, MemoryChannel, NetError, PeerMisbehaved};
use mixgc_program::gadgets::{aes::aes128, edit::edit_distance};
use mixgc_program::{Backend, Ctx, PartyId, Plain, ProgramError, Recorder};
use mixgc_session::{Audience, EvaluatorSession, GarblerSession, Scheme, SessionConfig, SessionError, Terms};
use rand::{Rng, SeedableRng};

/// Yao's millionaires: is the garbler richer? Written once for every backend.
fn millionaires<B: Backend>(
    ctx: &Ctx<B>,
    a: Option<u128>,
    b: Option<u128>,
) -> Result<Option<bool>, ProgramError> {
    let x = ctx.input_uint(PartyId::GARBLER, 64, a)?;
    let y = ctx.input_uint(PartyId::EVALUATOR, 64, b)?;
    x.greater_than(&y).reveal()
}

/// Both garbling schemes: every program test runs under each (issue #16, point 4).
const SCHEMES: [Scheme; 2] = [Scheme::HalfGates, Scheme::ThreeHalves];

/// A session of `scheme`, otherwise the defaults.
fn config(scheme: Scheme) -> SessionConfig {
    SessionConfig {
        garbling: scheme,
        ..SessionConfig::default()
    }
}

type G<'a> = mixgc_session::ProgramGarbler<'a, MemoryChannel>;
type E<'a> = mixgc_session::ProgramEvaluator<'a, MemoryChannel>;

/// Runs `g` as the garbler and `e` as the evaluator of program `name` over memory channels.
fn run<RG: Send, RE: Send>(
    scheme: Scheme,
    names: [&str; 2],
    reveal: [Audience; 2],
    g: impl FnOnce(&Ctx<G<'_>>) -> Result<RG, ProgramError> + Send,
    e: impl FnOnce(&Ctx<E<'_>>) -> Result<RE, ProgramError> + Send,
) -> (Result<RG, String>, Result<RE, String>) {
    let (gch, ech) = memory_pair();
    let cfg = config(scheme);
    thread::scope(|s| {
        let ev = s.spawn(|| -> Result<RE, String> {
            let mut session = EvaluatorSession::setup(ech, &cfg).map_err(|e| e.to_string())?;
            let backend = session.program(names[1], reveal[1]).map_err(|e| e.to_string())?;
            let ctx = Ctx::new(backend);
            let r = e(&ctx).map_err(|e| e.to_string())?;
            ctx.into_inner()
                .expect("values dropped")
                .finish()
                .map_err(|e| e.to_string())?;
            Ok(r)
        });
        let ga = (|| -> Result<RG, String> {
            let mut session = GarblerSession::setup(gch, &cfg).map_err(|e| e.to_string())?;
            let backend = session.program(names[0], reveal[0]).map_err(|e| e.to_string())?;
            let ctx = Ctx::new(backend);
            let r = g(&ctx).map_err(|e| e.to_string())?;
            ctx.into_inner()
                .expect("values dropped")
                .finish()
                .map_err(|e| e.to_string())?;
            Ok(r)
        })();
        (ga, ev.join().unwrap())
    })
}

#[test]
fn millionaires_streams_between_the_parties() {
    for scheme in SCHEMES {
        assert_eq!(
            millionaires(&Ctx::new(Plain::default()), Some(2), Some(1)).unwrap(),
            Some(true)
        );
        for (a, b) in [(10u128, 3u128), (3, 10), (7, 7), (u64::MAX as u128, 0)] {
            let (g, e) = run(
                scheme,
                ["millionaires"; 2],
                [Audience::BOTH; 2],
                |ctx| millionaires(ctx, Some(a), None),
                |ctx| millionaires(ctx, None, Some(b)),
            );
            assert_eq!(g.unwrap(), Some(a > b));
            assert_eq!(e.unwrap(), Some(a > b));
        }
    }
}

#[test]
fn reveal_modes_are_honoured() {
    for scheme in SCHEMES {
        for (reveal, g_learns, e_learns) in [
            (Audience::only(PartyId::GARBLER), true, false),
            (Audience::only(PartyId::EVALUATOR), false, true),
            (Audience::BOTH, true, true),
        ] {
            let (g, e) = run(
                scheme,
                ["m"; 2],
                [reveal; 2],
                |ctx| millionaires(ctx, Some(5), None),
                |ctx| millionaires(ctx, None, Some(4)),
            );
            assert_eq!(g.unwrap(), g_learns.then_some(true));
            assert_eq!(e.unwrap(), e_learns.then_some(true));
        }
    }
}

fn hex_bits(h: &str) -> Vec<bool> {
    mixgc_circuit::values::parse_hex(h, 128).unwrap()
}

#[test]
fn aes_128_streams_gate_by_gate_and_matches_fips_197() {
    for scheme in SCHEMES {
        fn program<B: Backend>(
            ctx: &Ctx<B>,
            key: Option<&[bool]>,
            pt: Option<&[bool]>,
        ) -> Result<Option<Vec<bool>>, ProgramError> {
            ctx.with(|b| {
                let k = b.input(PartyId::GARBLER, 128, key)?;
                let p = b.input(PartyId::EVALUATOR, 128, pt)?;
                let c = aes128(b, &k, &p);
                b.output(&c)
            })
        }
        let key = hex_bits("000102030405060708090a0b0c0d0e0f");
        let pt = hex_bits("00112233445566778899aabbccddeeff");
        let (g, e) = run(
            scheme,
            ["aes128"; 2],
            [Audience::BOTH; 2],
            |ctx| program(ctx, Some(&key), None),
            |ctx| program(ctx, None, Some(&pt)),
        );
        let want = hex_bits("69c4e0d86a7b0430d8cdb78070b4c55a");
        assert_eq!(g.unwrap(), Some(want.clone()));
        assert_eq!(e.unwrap(), Some(want));
    }
}

#[test]
fn edit_distance_streams_and_matches_plaintext() {
    for scheme in SCHEMES {
        fn program<B: Backend>(
            ctx: &Ctx<B>,
            s: &[u8],
            t: &[u8],
            mine: [bool; 2],
        ) -> Result<Option<Vec<bool>>, ProgramError> {
            ctx.with(|b| {
                let bits = |v: u8| (0..8).map(|i| v >> i & 1 == 1).collect::<Vec<_>>();
                let mut take = |owner, text: &[u8], known: bool| -> Result<Vec<Vec<B::Wire>>, ProgramError> {
                    text.iter()
                        .map(|&c| b.input(owner, 8, known.then(|| bits(c)).as_deref()))
                        .collect()
                };
                let x = take(PartyId::GARBLER, s, mine[0])?;
                let y = take(PartyId::EVALUATOR, t, mine[1])?;
                let d = edit_distance(b, &x, &y);
                b.output(&d)
            })
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(4);
        for _ in 0..5 {
            let s: Vec<u8> = (0..rng.gen_range(0..14))
                .map(|_| rng.gen_range(b'a'..b'e'))
                .collect();
            let t: Vec<u8> = (0..s.len()).map(|_| rng.gen_range(b'a'..b'e')).collect();
            let plain = program(&Ctx::new(Plain::default()), &s, &t, [true, true])
                .unwrap()
                .unwrap();
            let (g, e) = run(
                scheme,
                ["edit"; 2],
                [Audience::BOTH; 2],
                |ctx| program(ctx, &s, &t, [true, false]),
                |ctx| program(ctx, &s, &t, [false, true]),
            );
            assert_eq!(g.unwrap(), Some(plain.clone()));
            assert_eq!(e.unwrap(), Some(plain));
        }
    }
}

#[test]
fn circuits_and_programs_share_a_session_and_its_and_index() {
    for scheme in SCHEMES {
        // The recorded program as a circuit, then the same program streamed: both correct, and
        // the evaluator's AND index continues (tweaks never repeat under one Δ).
        let recorder = Ctx::new(Recorder::default());
        millionaires(&recorder, None, None).unwrap();
        let recorded = recorder.into_inner().unwrap().finish();
        let compiled = compile(&recorded.circuit);
        let terms = Terms {
            garbler_values: Some(recorded.garbler_values),
            reveal: Audience::BOTH,
        };
        let bits = |v: u128| (0..64).map(|i| v >> i & 1 == 1).collect::<Vec<bool>>();
        let (gch, ech) = memory_pair();
        let cfg = config(scheme);
        let (g, e) = thread::scope(|s| {
            let e = s.spawn(|| {
                let mut session = EvaluatorSession::setup(ech, &cfg).unwrap();
                let first = session.execute(&compiled, &terms, &[bits(9)]).unwrap();
                let ctx = Ctx::new(session.program("m", Audience::BOTH).unwrap());
                let second = millionaires(&ctx, None, Some(12)).unwrap();
                let ands = ctx.into_inner().unwrap().finish().unwrap();
                (first.outputs, second, ands)
            });
            let mut session = GarblerSession::setup(gch, &cfg).unwrap();
            let first = session.execute(&compiled, &terms, &[bits(10)]).unwrap();
            let ctx = Ctx::new(session.program("m", Audience::BOTH).unwrap());
            let second = millionaires(&ctx, Some(11), None).unwrap();
            let ands = ctx.into_inner().unwrap().finish().unwrap();
            ((first.outputs, second, ands), e.join().unwrap())
        });
        assert_eq!(g.0, Some(vec![vec![true]]));
        assert_eq!(g.1, Some(false));
        assert_eq!((g.2, e.2), (128, 128), "64 ANDs per run, one index across both");
        assert_eq!(e.0, g.0);
        assert_eq!(e.1, g.1);
    }
}

#[test]
fn different_programs_or_reveal_modes_stop_both_sides() {
    for scheme in SCHEMES {
        let (g, e) = run(
            scheme,
            ["alpha", "beta"],
            [Audience::BOTH; 2],
            |ctx| millionaires(ctx, Some(1), None),
            |ctx| millionaires(ctx, None, Some(2)),
        );
        for r in [g.map(|_| ()), e.map(|_| ())] {
            assert!(r.unwrap_err().contains("program differs"));
        }
        let (g, e) = run(
            scheme,
            ["m"; 2],
            [Audience::BOTH, Audience::only(PartyId::GARBLER)],
            |ctx| millionaires(ctx, Some(1), None),
            |ctx| millionaires(ctx, None, Some(2)),
        );
        for r in [g.map(|_| ()), e.map(|_| ())] {
            assert!(r.unwrap_err().contains("reveal mode differs"));
        }
    }
}

#[test]
fn diverging_programs_are_detected() {
    for scheme in SCHEMES {
        // The garbler computes one more comparison than the evaluator before the output.
        let (_, e) = run(
            scheme,
            ["m"; 2],
            [Audience::only(PartyId::EVALUATOR); 2],
            |ctx| {
                let x = ctx.input_uint(PartyId::GARBLER, 8, Some(3))?;
                let y = ctx.input_uint(PartyId::EVALUATOR, 8, None)?;
                let _extra = x.less_than(&y);
                x.greater_than(&y).reveal()
            },
            |ctx| {
                let x = ctx.input_uint(PartyId::GARBLER, 8, None)?;
                let y = ctx.input_uint(PartyId::EVALUATOR, 8, Some(4))?;
                x.greater_than(&y).reveal()
            },
        );
        let err = e.unwrap_err();
        assert!(err.contains("diverged") || err.contains("expected"), "{err}");
    }
}

/// Programs that use the same rows but compute differently (one more NOT, or the same gates
/// in another order) are caught at the first output by the structure digest, on both sides
/// and in every reveal mode, instead of giving a wrong answer.
#[test]
fn programs_with_the_same_rows_but_another_structure_stop_at_the_first_output() {
    for scheme in SCHEMES {
        for reveal in [
            Audience::BOTH,
            Audience::only(PartyId::EVALUATOR),
            Audience::only(PartyId::GARBLER),
        ] {
            let (g, e) = run(
                scheme,
                ["m"; 2],
                [reveal; 2],
                |ctx| {
                    let x = ctx.input_uint(PartyId::GARBLER, 8, Some(3))?;
                    let y = ctx.input_uint(PartyId::EVALUATOR, 8, None)?;
                    x.greater_than(&y).reveal()
                },
                |ctx| {
                    let x = ctx.input_uint(PartyId::GARBLER, 8, None)?;
                    let y = ctx.input_uint(PartyId::EVALUATOR, 8, Some(4))?;
                    (!&x.greater_than(&y)).reveal()
                },
            );
            let named = |r: &Result<Option<bool>, String>| {
                r.as_ref()
                    .err()
                    .is_some_and(|m| m.contains("the peer's program differs from ours"))
            };
            // Every party that learns an output names it (the one that compares the digest, and
            // the other through its abort); a party that learns nothing has nothing to wait for.
            for (learns, r) in [(PartyId::GARBLER, &g), (PartyId::EVALUATOR, &e)] {
                if reveal.contains(learns) {
                    assert!(named(r), "{reveal}, {learns}: {r:?}");
                } else {
                    assert_eq!(r, &Ok(None), "{reveal}, {learns}");
                }
            }
        }
    }
}

/// A failed two-party run reports the session's typed error, as the source of the program
/// error, and again at a later output.
#[test]
fn a_peer_failure_stays_typed_behind_the_program_error() {
    for scheme in SCHEMES {
        let (gch, ech) = memory_pair();
        let cfg = config(scheme);
        let err = thread::scope(|s| {
            s.spawn(|| {
                let mut session = GarblerSession::setup(gch, &cfg).unwrap();
                let backend = session.program("m", Audience::only(PartyId::EVALUATOR)).unwrap();
                let ctx = Ctx::new(backend);
                let x = ctx.input_uint(PartyId::GARBLER, 8, Some(3)).unwrap();
                let _extra = x.less_than(&x); // one more AND than the evaluator runs
                let _ = x.greater_than(&x).reveal();
            });
            let mut session = EvaluatorSession::setup(ech, &cfg).unwrap();
            let backend = session.program("m", Audience::only(PartyId::EVALUATOR)).unwrap();
            let ctx = Ctx::new(backend);
            let x = ctx.input_uint(PartyId::GARBLER, 8, None).unwrap();
            let first = x.greater_than(&x).reveal().unwrap_err();
            let again = x.reveal().unwrap_err();
            assert_eq!(first.to_string(), again.to_string());
            first
        });
        let session = SessionError::of_program(&err).expect("a session error");
        assert!(
            matches!(
                session,
                SessionError::Net(NetError::Peer(PeerMisbehaved::ProgramsDiverged(
                    Divergence::RowsLeftOver
                )))
            ),
            "{session:?}"
        );
        let source = std::error::Error::source(&err).expect("a source");
        assert!(source.downcast_ref::<SessionError>().is_some());
        assert_eq!(err.to_string(), session.to_string());
        assert!(
            err.to_string().contains("the parties' programs diverged"),
            "{err}"
        );
    }
}

#[test]
fn a_garbler_that_disappears_mid_program_is_an_error_not_a_hang() {
    for scheme in SCHEMES {
        let (gch, mut ech) = memory_pair();
        ech.set_timeout(std::time::Duration::from_secs(5));
        let cfg = config(scheme);
        let result = thread::scope(|s| {
            let e = s.spawn(|| -> Result<Option<Vec<bool>>, String> {
                let mut session = EvaluatorSession::setup(ech, &cfg).map_err(|e| e.to_string())?;
                let ctx = Ctx::new(
                    session
                        .program("aes", Audience::BOTH)
                        .map_err(|e| e.to_string())?,
                );
                ctx.with(|b| {
                    let k = b.input(PartyId::GARBLER, 128, None)?;
                    let p = b.input(PartyId::EVALUATOR, 128, Some(&[true; 128]))?;
                    let c = aes128(b, &k, &p);
                    b.output(&c)
                })
                .map_err(|e| e.to_string())
            });
            // The garbler sends its key labels, then vanishes before garbling anything.
            let mut session = GarblerSession::setup(gch, &cfg).unwrap();
            let mut backend = session.program("aes", Audience::BOTH).unwrap();
            backend.input(PartyId::GARBLER, 128, Some(&[false; 128])).unwrap();
            backend.input(PartyId::EVALUATOR, 128, None).unwrap();
            drop(backend);
            drop(session);
            e.join().unwrap()
        });
        let err = result.unwrap_err();
        assert!(err.contains("closed the connection"), "{err}");
    }
}

/// One gadget by name on x (garbler's) and y (evaluator's), both `w` bits.
fn op_program<B: Backend>(
    b: &mut B,
    op: &str,
    w: u32,
    x: Option<&[bool]>,
    y: Option<&[bool]>,
) -> Result<Option<Vec<bool>>, ProgramError> {
    use mixgc_program::gadgets::{self as g, bits, div, mul, select, sqrt};
    let xs = b.input(PartyId::GARBLER, w, x)?;
    let ys = b.input(PartyId::EVALUATOR, w, y)?;
    let out = match op {
        "add" => g::add(b, &xs, &ys),
        "sub" => g::sub(b, &xs, &ys),
        "neg" => g::neg(b, &xs),
        "mul" => mul::mul(b, &xs, &ys),
        "mul_full" => mul::mul_full(b, &xs, &ys),
        "div_u" => div::div_unsigned(b, &xs, &ys),
        "rem_u" => div::rem_unsigned(b, &xs, &ys),
        "div_s" => div::div_signed(b, &xs, &ys),
        "rem_s" => div::rem_signed(b, &xs, &ys),
        "lt_u" => g::lt_unsigned(b, &xs, &ys),
        "lt_s" => g::lt_signed(b, &xs, &ys),
        "eq" => g::eq(b, &xs, &ys),
        "mux" => g::mux(b, ys[0], &xs, &ys),
        "hamming" => bits::hamming(b, &xs, &ys),
        "popcount" => bits::popcount(b, &xs),
        "min_u" => select::min_unsigned(b, &xs, &ys),
        "max_s" => select::max_signed(b, &xs, &ys),
        "abs" => select::abs(b, &xs),
        "relu" => select::relu(b, &xs),
        "sqrt" => sqrt::sqrt(b, &xs),
        _ => unreachable!("{op}"),
    };
    b.output(&out)
}

/// Every gadget at every test width, through real 2PC in one session (many program runs),
/// equals the plaintext backend (which the gadget tests check against native arithmetic).
#[test]
fn every_op_at_every_width_matches_plaintext_through_2pc() {
    for scheme in SCHEMES {
        const OPS: [&str; 20] = [
            "add", "sub", "neg", "mul", "mul_full", "div_u", "rem_u", "div_s", "rem_s", "lt_u", "lt_s", "eq",
            "mux", "hamming", "popcount", "min_u", "max_s", "abs", "relu", "sqrt",
        ];
        const WIDTHS: [u32; 10] = [1, 7, 8, 16, 31, 32, 63, 64, 65, 128];
        let cases = || {
            let mut rng = rand::rngs::StdRng::seed_from_u64(77);
            let mut v = Vec::new();
            for w in WIDTHS {
                for op in OPS {
                    let x: Vec<bool> = (0..w).map(|_| rng.gen()).collect();
                    let y: Vec<bool> = (0..w).map(|_| rng.gen()).collect();
                    v.push((op, w, x, y));
                }
            }
            v
        };
        let (gch, ech) = memory_pair();
        let cfg = config(scheme);
        let (g, e) = thread::scope(|s| {
            let e = s.spawn(|| {
                let mut session = EvaluatorSession::setup(ech, &cfg).unwrap();
                let mut got = Vec::new();
                for (op, w, _, y) in cases() {
                    let mut b = session.program(&format!("{op}/{w}"), Audience::BOTH).unwrap();
                    got.push(op_program(&mut b, op, w, None, Some(&y)).unwrap());
                    b.finish().unwrap();
                }
                got
            });
            let mut session = GarblerSession::setup(gch, &cfg).unwrap();
            let mut got = Vec::new();
            for (op, w, x, _) in cases() {
                let mut b = session.program(&format!("{op}/{w}"), Audience::BOTH).unwrap();
                got.push(op_program(&mut b, op, w, Some(&x), None).unwrap());
                b.finish().unwrap();
            }
            (got, e.join().unwrap())
        });
        for (((op, w, x, y), g), e) in cases().into_iter().zip(g).zip(e) {
            let plain = op_program(&mut Plain::default(), op, w, Some(&x), Some(&y)).unwrap();
            assert_eq!(g, plain, "{op} at {w} bits (garbler, {scheme})");
            assert_eq!(e, plain, "{op} at {w} bits (evaluator, {scheme})");
        }
    }
}

/// Fixed-point arithmetic and a tensor matmul through 2PC equal the plaintext backend.
#[test]
fn fixed_point_and_tensors_match_plaintext_through_2pc() {
    for scheme in SCHEMES {
        use mixgc_program::{Fixed, FixedFormat, SInt, Tensor};
        fn program<B: Backend>(
            ctx: &Ctx<B>,
            mine: [bool; 2],
        ) -> Result<(Option<f64>, Option<Vec<i128>>), ProgramError> {
            let f = FixedFormat::new(32, 12).unwrap();
            let a = ctx
                .input_fixed(PartyId::GARBLER, f, mine[0].then_some(3.25))
                .unwrap();
            let b = ctx
                .input_fixed(PartyId::EVALUATOR, f, mine[1].then_some(-1.5))
                .unwrap();
            let c: Fixed<B> = &(&a * &b) + &a;
            let x = c.reveal()?;
            let m: Tensor<SInt<B>> = Tensor::input(
                ctx,
                PartyId::GARBLER,
                &[2, 2],
                16,
                mine[0].then_some(&[1, -2, 3, 4][..]),
            )
            .unwrap();
            let n: Tensor<SInt<B>> = Tensor::input(
                ctx,
                PartyId::EVALUATOR,
                &[2, 2],
                16,
                mine[1].then_some(&[5, 6, -7, 8][..]),
            )
            .unwrap();
            let p = m.matmul(&n).unwrap();
            Ok((x, p.reveal()?))
        }
        let plain = program(&Ctx::new(Plain::default()), [true, true]).unwrap();
        assert_eq!(plain.0, Some(3.25 * -1.5 + 3.25));
        assert_eq!(plain.1, Some(vec![19, -10, -13, 50]));
        let (g, e) = run(
            scheme,
            ["fixed"; 2],
            [Audience::BOTH; 2],
            |ctx| program(ctx, [true, false]),
            |ctx| program(ctx, [false, true]),
        );
        assert_eq!(g.unwrap(), plain);
        assert_eq!(e.unwrap(), plain);
    }
}

/// Each output can go to its own audience: one to the garbler, one to the evaluator, one
/// to both, in a single run.
#[test]
fn outputs_reveal_to_their_own_audience() {
    for scheme in SCHEMES {
        use mixgc_program::Audience;
        type Seen = (Option<bool>, Option<bool>, Option<bool>);
        fn program<B: Backend>(ctx: &Ctx<B>, a: Option<u128>, b: Option<u128>) -> Result<Seen, ProgramError> {
            let x = ctx.input_uint(PartyId::GARBLER, 16, a)?;
            let y = ctx.input_uint(PartyId::EVALUATOR, 16, b)?;
            Ok((
                x.less_than(&y).reveal_to(Audience::only(PartyId::GARBLER))?,
                x.equals(&y).reveal_to(Audience::only(PartyId::EVALUATOR))?,
                y.less_than(&x).reveal_to(Audience::BOTH)?,
            ))
        }
        let (g, e) = run(
            scheme,
            ["aud"; 2],
            [Audience::BOTH; 2],
            |ctx| program(ctx, Some(3), None),
            |ctx| program(ctx, None, Some(9)),
        );
        assert_eq!(g.unwrap(), (Some(true), None, Some(false)));
        assert_eq!(e.unwrap(), (None, Some(false), Some(false)));
    }
}
