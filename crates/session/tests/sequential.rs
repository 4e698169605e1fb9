//! Sequential runs on the compiled-stream path (`run_sequential`) against the netlist's
//! plaintext evaluation: random inputs, every kind of port (per-cycle, once, init from
//! either party), public state folded, reveal modes, both garbling schemes, with and
//! without I/O threads, several OT segments.

use std::thread;

use mixgc_circuit::sequential::{FlopInit, InputMode, SeqInput, SeqOutput, Sequential};
use mixgc_net::memory_pair;
use mixgc_program::gadgets::add;
use mixgc_program::{Backend, Counter, Recorder};
use mixgc_session::sequential::MAX_SEGMENT_OT_BITS;
use mixgc_session::{
    Audience, EvaluatorSession, GarblerSession, PartyId, Scheme, SequentialRun, SessionConfig,
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
