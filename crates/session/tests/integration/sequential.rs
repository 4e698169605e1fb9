//! Sequential runs on the compiled-stream path (`run_sequential`) against the netlist's
//! plaintext evaluation: random inputs, every kind of port (per-cycle, once, init from
//! either party), public state folded, reveal modes, both garbling schemes, with and
//! without I/O threads, several OT segments; chains of netlists (thesis Eqs. 3.2–3.3)
//! against the netlists evaluated in plaintext one after another.

use std::thread;

use mixgc_circuit::sequential::{FlopInit, InputMode, SeqInput, SeqOutput, Sequential};
use mixgc_net::memory_pair;
use mixgc_program::gadgets::add;
use mixgc_program::{Backend, Counter, Recorder};
use mixgc_session::sequential::MAX_SEGMENT_OT_BITS;
use mixgc_session::{
    Audience, ChainStage, EvaluatorSession, GarblerSession, PartyId, Scheme, SequentialRun, SessionConfig,
    Specializers,
};
use rand::{Rng, SeedableRng};

const G: PartyId = PartyId::GARBLER;
const E: PartyId = PartyId::EVALUATOR;

/// Ports: g_a (8, cycle), g_k (8, once), g_init (8, init), e_b (`e_width`, cycle), e_m (8,
/// once), e_init (8, init). State: acc (8, from g_init), acc2 (8, from e_init), cnt (4,
/// public 5). Next: acc += a & k; acc2 = (acc2 ^ (acc & m)) + b[..8]; cnt += 1.
/// Outputs: acc ^ acc2 (8 bits) and cnt & b[8..12] (4 bits).
fn net(e_width: u32) -> Sequential {
    let mut r = Recorder::default();
    let a = r.input(G, 8, None).unwrap();
    let k = r.input(G, 8, None).unwrap();
    let b = r.input(E, e_width, None).unwrap();
    let m = r.input(E, 8, None).unwrap();
    let s = r.input(E, 20, None).unwrap();
    let (acc, acc2, cnt) = (&s[..8], &s[8..16], &s[16..]);
    let ak: Vec<u32> = a.iter().zip(&k).map(|(&x, &y)| r.and(x, y)).collect();
    let next_acc = add(&mut r, acc, &ak);
    let am: Vec<u32> = acc.iter().zip(&m).map(|(&x, &y)| r.and(x, y)).collect();
    let mixed: Vec<u32> = acc2.iter().zip(&am).map(|(&x, &y)| r.xor(x, y)).collect();
    let next_acc2 = add(&mut r, &mixed, &b[..8]);
    let one = [true, false, false, false].map(|v| r.constant(v));
    let next_cnt = add(&mut r, cnt, &one);
    let out1: Vec<u32> = acc.iter().zip(acc2).map(|(&x, &y)| r.xor(x, y)).collect();
    let out2: Vec<u32> = cnt.iter().zip(&b[8..12]).map(|(&x, &y)| r.and(x, y)).collect();
    r.output(&out1).unwrap();
    r.output(&out2).unwrap();
    let next: Vec<u32> = [next_acc, next_acc2, next_cnt].concat();
    r.output(&next).unwrap();
    let core = r.finish().circuit;
    let port = |name: &str, width, owner, mode| SeqInput {
        name: name.into(),
        width,
        owner,
        mode,
    };
    let inputs = vec![
        port("g_a", 8, G, InputMode::PerCycle),
        port("g_k", 8, G, InputMode::Once),
        port("g_init", 8, G, InputMode::Init),
        port("e_b", e_width, E, InputMode::PerCycle),
        port("e_m", 8, E, InputMode::Once),
        port("e_init", 8, E, InputMode::Init),
    ];
    let state_in = 8 + 8 + e_width + 8;
    let flops = (0..20u32)
        .map(|i| mixgc_circuit::sequential::Flop {
            d: 12 + i,
            q: state_in + i,
            init: match i {
                0..=7 => FlopInit::Input { port: 2, bit: i },
                8..=15 => FlopInit::Input { port: 5, bit: i - 8 },
                _ => FlopInit::Value(0b0101 >> (i - 16) & 1 == 1),
            },
            name: format!("s[{i}]"),
        })
        .collect();
    let net = Sequential {
        inputs,
        outputs: vec![
            SeqOutput {
                name: "mix".into(),
                width: 8,
            },
            SeqOutput {
                name: "cb".into(),
                width: 4,
            },
        ],
        flops,
        core,
    };
    net.validate().unwrap();
    // The format round-trips the init ports and flops.
    let mut text = Vec::new();
    net.write(&mut text).unwrap();
    let back = Sequential::parse(std::str::from_utf8(&text).unwrap(), "t").unwrap();
    assert!(back.inputs == net.inputs && back.flops == net.flops && back.outputs == net.outputs);
    back
}

type Values = Vec<Vec<Vec<bool>>>;

/// Random values for every port and cycle: `values[port][cycle]` (one for once/init ports).
fn random_values(net: &Sequential, cycles: u64, rng: &mut impl Rng) -> Values {
    net.inputs
        .iter()
        .map(|p| {
            let n = if p.mode == InputMode::PerCycle { cycles } else { 1 };
            (0..n)
                .map(|_| (0..p.width).map(|_| rng.gen()).collect())
                .collect()
        })
        .collect()
}

fn value_at(values: &Values, port: usize, t: u64) -> Vec<bool> {
    let v = &values[port];
    v[(t as usize).min(v.len() - 1)].clone()
}

type Revealed = Vec<(u64, Vec<Vec<bool>>)>;

/// Runs both parties over memory channels; each party's revealed cycles, and the ANDs.
fn two_party(
    net: &Sequential,
    cycles: u64,
    every: bool,
    reveal: Audience,
    cfg: &SessionConfig,
    values: &Values,
) -> ((Revealed, u64), (Revealed, u64)) {
    let run = SequentialRun {
        net,
        cycles,
        every_cycle: every,
        reveal,
    };
    let (gch, ech) = memory_pair();
    thread::scope(|s| {
        let ev = s.spawn(|| {
            let mut session = EvaluatorSession::setup(ech, cfg).unwrap();
            let mut got = Vec::new();
            let ands = session
                .run_sequential(&run, &mut |p, t| value_at(values, p, t), &mut |t, o| {
                    got.push((t, o))
                })
                .unwrap();
            (got, ands)
        });
        let mut session = GarblerSession::setup(gch, cfg).unwrap();
        let mut got = Vec::new();
        let ands = session
            .run_sequential(&run, &mut |p, t| value_at(values, p, t), &mut |t, o| {
                got.push((t, o))
            })
            .unwrap();
        ((got, ands), ev.join().unwrap())
    })
}

/// The ANDs the program gadget garbles (public bits folded the same way).
fn folded_ands(net: &Sequential, cycles: u64) -> u64 {
    let mut c = Counter::default();
    let input =
        |b: &mut Counter, port: usize, _| b.input(net.inputs[port].owner, net.inputs[port].width, None);
    mixgc_program::gadgets::sequential::run_cycles(&mut c, net, cycles, input, |_, _, _| Ok(())).unwrap();
    c.cost().ands
}

#[test]
fn runs_match_the_plaintext_netlist() {
    let net = net(16);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(21);
    let configs = [
        SessionConfig::default(),
        SessionConfig {
            io_thread: false,
            ..SessionConfig::default()
        },
        SessionConfig {
            garbling: Scheme::ThreeHalves,
            ..SessionConfig::default()
        },
    ];
    for (i, cfg) in configs.iter().enumerate() {
        for (cycles, every, reveal) in [
            (1, false, Audience::BOTH),
            (2, true, Audience::BOTH),
            (7, true, Audience::only(E)),
            (13, false, Audience::only(G)),
            (40, true, Audience::BOTH),
        ] {
            let values = random_values(&net, cycles, &mut rng);
            let want = net.eval_plain(cycles, |p, t| value_at(&values, p, t)).unwrap();
            let ((g, g_ands), (e, e_ands)) = two_party(&net, cycles, every, reveal, cfg, &values);
            let expect: Revealed = (0..cycles)
                .filter(|&t| every || t + 1 == cycles)
                .map(|t| (t, want[t as usize].clone()))
                .collect();
            let case = format!("config {i}, {cycles} cycles, every {every}, {reveal:?}");
            for (who, got) in [(G, &g), (E, &e)] {
                if reveal.contains(who) {
                    assert_eq!(got, &expect, "{who}: {case}");
                } else {
                    assert!(got.is_empty(), "{who}: {case}");
                }
            }
            assert_eq!(g_ands, e_ands, "{case}");
            assert_eq!(g_ands, folded_ands(&net, cycles), "{case}");
        }
    }
}

#[test]
fn long_runs_span_several_ot_segments() {
    // 64 evaluator bits a cycle: 1,100 cycles are two OT segments.
    let net = net(64);
    let cycles = 1100;
    assert!(cycles as usize * 64 > MAX_SEGMENT_OT_BITS);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(22);
    let values = random_values(&net, cycles, &mut rng);
    let want = net.eval_plain(cycles, |p, t| value_at(&values, p, t)).unwrap();
    let ((g, _), (e, _)) = two_party(
        &net,
        cycles,
        true,
        Audience::BOTH,
        &SessionConfig::default(),
        &values,
    );
    let expect: Revealed = want.into_iter().enumerate().map(|(t, o)| (t as u64, o)).collect();
    assert_eq!(g, expect);
    assert_eq!(e, expect);
}

#[test]
fn a_bad_port_value_is_an_error_naming_the_port_on_both_sides() {
    let net = net(16);
    let run = SequentialRun {
        net: &net,
        cycles: 3,
        every_cycle: false,
        reveal: Audience::BOTH,
    };
    let (gch, ech) = memory_pair();
    let cfg = SessionConfig::default();
    let (g, e) = thread::scope(|s| {
        let ev = s.spawn(|| {
            let mut session = EvaluatorSession::setup(ech, &cfg).unwrap();
            session
                .run_sequential(
                    &run,
                    &mut |p, _| vec![false; net.inputs[p].width as usize],
                    &mut |_, _| {},
                )
                .map_err(|e| e.to_string())
        });
        let mut session = GarblerSession::setup(gch, &cfg).unwrap();
        let g = session
            .run_sequential(
                &run,
                &mut |p, t| vec![false; net.inputs[p].width as usize + usize::from(t == 1)],
                &mut |_, _| {},
            )
            .map_err(|e| e.to_string());
        (g, ev.join().unwrap())
    });
    let g = g.unwrap_err();
    assert!(g.contains("`g_a` is 8 bits, but cycle 1's value has 9"), "{g}");
    assert!(e.unwrap_err().contains("g_a"));
}

/// A stage to chain after [`net`] (and after itself): ports g_c (8, garbler, per cycle) and
/// q (4, garbler, once), which a previous stage's outputs feed, p (8, evaluator, per cycle),
/// e_d (8, per cycle); state acc (8, public 3). Next: acc = (acc ⊕ e_d) + (p ∧ g_c).
/// Outputs: acc + p (8 bits) and q ∧ g_c[..4] (4 bits), the widths of its first ports.
fn link_net() -> Sequential {
    let mut r = Recorder::default();
    let c = r.input(G, 8, None).unwrap();
    let q = r.input(G, 4, None).unwrap();
    let p = r.input(E, 8, None).unwrap();
    let d = r.input(E, 8, None).unwrap();
    let acc = r.input(E, 8, None).unwrap();
    let pc: Vec<u32> = p.iter().zip(&c).map(|(&x, &y)| r.and(x, y)).collect();
    let ad: Vec<u32> = acc.iter().zip(&d).map(|(&x, &y)| r.xor(x, y)).collect();
    let next = add(&mut r, &ad, &pc);
    let out1 = add(&mut r, &acc, &p);
    let out2: Vec<u32> = q.iter().zip(&c).map(|(&x, &y)| r.and(x, y)).collect();
    r.output(&out1).unwrap();
    r.output(&out2).unwrap();
    r.output(&next).unwrap();
    let core = r.finish().circuit;
    let port = |name: &str, width, owner, mode| SeqInput {
        name: name.into(),
        width,
        owner,
        mode,
    };
    // Core input order: the garbler's values (c, q), then the evaluator's (p, d, state);
    // the ports in the file follow it.
    let net = Sequential {
        inputs: vec![
            port("g_c", 8, G, InputMode::PerCycle),
            port("q", 4, G, InputMode::Once),
            port("p", 8, E, InputMode::PerCycle),
            port("e_d", 8, E, InputMode::PerCycle),
        ],
        outputs: vec![
            SeqOutput {
                name: "sum".into(),
                width: 8,
            },
            SeqOutput {
                name: "qc".into(),
                width: 4,
            },
        ],
        flops: (0..8u32)
            .map(|i| mixgc_circuit::sequential::Flop {
                d: 12 + i,
                q: 28 + i,
                init: FlopInit::Value(3 >> i & 1 == 1),
                name: format!("acc[{i}]"),
            })
            .collect(),
        core,
    };
    net.validate().unwrap();
    net
}

/// A chain's last outputs in plaintext (thesis Eq. 3.2): each stage's netlist evaluated,
/// its last cycle's outputs held on the next stage's first ports.
fn chain_plain(stages: &[ChainStage<'_>], values: &[Values]) -> Vec<Vec<bool>> {
    let mut carried: Vec<Vec<bool>> = Vec::new();
    for (s, v) in stages.iter().zip(values) {
        let fed = carried.len();
        let outs = s
            .net
            .eval_plain(s.cycles, |p, t| {
                if p < fed {
                    carried[p].clone()
                } else {
                    value_at(v, p, t)
                }
            })
            .unwrap();
        carried = outs.last().unwrap().clone();
    }
    carried
}

/// One party's result of a chain: the outputs it learned, and the ANDs; or the error.
type ChainResult = Result<(Vec<Vec<Vec<bool>>>, u64), String>;

/// Runs a chain with both parties over memory channels: each party's result.
fn two_party_chain(
    stages: &[ChainStage<'_>],
    reveal: Audience,
    cfg: &SessionConfig,
    values: &[Values],
) -> (ChainResult, ChainResult) {
    let (gch, ech) = memory_pair();
    thread::scope(|s| {
        let ev = s.spawn(|| {
            let mut session = EvaluatorSession::setup(ech, cfg).unwrap();
            let mut got = Vec::new();
            let mut specs = Specializers::new();
            session
                .run_chain(
                    stages,
                    reveal,
                    &mut specs,
                    &mut |k, p, t| value_at(&values[k], p, t),
                    &mut |o| got.push(o),
                )
                .map(|ands| (got, ands))
                .map_err(|e| e.to_string())
        });
        let mut session = GarblerSession::setup(gch, cfg).unwrap();
        let mut got = Vec::new();
        // The garbler's specs compiled ahead, as the CLI does before connecting.
        let mut specs = Specializers::new();
        for s in stages {
            specs.prepare(s.net, s.cycles).unwrap();
        }
        let g = session
            .run_chain(
                stages,
                reveal,
                &mut specs,
                &mut |k, p, t| value_at(&values[k], p, t),
                &mut |o| got.push(o),
            )
            .map(|ands| (got, ands))
            .map_err(|e| e.to_string());
        (g, ev.join().unwrap())
    })
}

#[test]
fn chains_match_the_plaintext_netlists() {
    let (first, link) = (net(16), link_net());
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(23);
    let configs = [
        SessionConfig::default(),
        SessionConfig {
            io_thread: false,
            garbling: Scheme::ThreeHalves,
            ..SessionConfig::default()
        },
    ];
    let chains: [&[(&Sequential, u64)]; 4] = [
        &[(&first, 1)],
        &[(&first, 5), (&link, 3)],
        &[(&first, 2), (&link, 1), (&link, 4), (&link, 2)],
        &[(&link, 7), (&link, 7), (&link, 7)],
    ];
    for (i, cfg) in configs.iter().enumerate() {
        for (j, chain) in chains.iter().enumerate() {
            for reveal in [Audience::BOTH, Audience::only(G), Audience::only(E)] {
                let stages: Vec<ChainStage<'_>> = chain
                    .iter()
                    .map(|&(net, cycles)| ChainStage { net, cycles })
                    .collect();
                let values: Vec<Values> = stages
                    .iter()
                    .map(|s| random_values(s.net, s.cycles, &mut rng))
                    .collect();
                let want = chain_plain(&stages, &values);
                let (g, e) = two_party_chain(&stages, reveal, cfg, &values);
                let ((g, g_ands), (e, e_ands)) = (g.unwrap(), e.unwrap());
                let case = format!("config {i}, chain {j}, {reveal:?}");
                for (who, got) in [(G, &g), (E, &e)] {
                    if reveal.contains(who) {
                        assert_eq!(got, &vec![want.clone()], "{who}: {case}");
                    } else {
                        assert!(got.is_empty(), "{who}: {case}");
                    }
                }
                let folded: u64 = stages.iter().map(|s| folded_ands(s.net, s.cycles)).sum();
                assert_eq!((g_ands, e_ands), (folded, folded), "{case}");
            }
        }
    }
}

#[test]
fn a_chain_whose_widths_do_not_fit_is_refused_on_both_sides() {
    let (first, link) = (net(16), link_net());
    // link's outputs (8, 4 bits) cannot feed first's ports g_a, g_k (8, 8 bits).
    let stages = [
        ChainStage {
            net: &link,
            cycles: 2,
        },
        ChainStage {
            net: &first,
            cycles: 2,
        },
    ];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(24);
    let values: Vec<Values> = stages
        .iter()
        .map(|s| random_values(s.net, s.cycles, &mut rng))
        .collect();
    let (g, e) = two_party_chain(&stages, Audience::BOTH, &SessionConfig::default(), &values);
    for err in [g.unwrap_err(), e.unwrap_err()] {
        assert!(
            err.contains(
                "chain stage 2: stage 1's output `qc` (4 bits) cannot feed input port `g_k` (8 bits)"
            ),
            "{err}"
        );
    }
    let none: [ChainStage<'_>; 0] = [];
    let (g, _) = two_party_chain(&none, Audience::BOTH, &SessionConfig::default(), &[]);
    assert!(g.unwrap_err().contains("1 to 65536 stages, not 0"));
}
