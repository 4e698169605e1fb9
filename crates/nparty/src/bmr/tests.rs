//! BMR against the plaintext evaluation, parties as threads over an in-memory mesh.

use mixgc_circuit::values::{parse_hex, to_hex};
use mixgc_circuit::{bristol, Audience, Circuit, GateKind, PartyId};
use mixgc_core::{new_rng, Rng};
use rand::{Rng as _, SeedableRng};

use super::*;
use crate::memory_mesh;

/// What one party's run gave, with the bytes it sent in all and during the setup.
struct Ran {
    result: Result<Outcome, NpartyError>,
    sent: u64,
    setup_sent: u64,
}

/// Runs `c` among `n` parties: `values[v]` is input value v, owned by `owners[v]`.
fn run_parties(
    c: &Circuit,
    n: usize,
    owners: &[usize],
    audience: Audience,
    values: &[Vec<bool>],
    options: BmrOptions,
    cheater: Option<usize>,
) -> Vec<Ran> {
    let job = Job {
        circuit: c,
        owners,
        audience,
    };
    std::thread::scope(|s| {
        let hs: Vec<_> = memory_mesh(n)
            .into_iter()
            .map(|mut mesh| {
                let (job, options) = (&job, &options);
                s.spawn(move || {
                    let me = mesh.me();
                    let mut rng = new_rng(Some(11), me as u64);
                    let mine: Vec<Vec<bool>> = job.mine(me).map(|v| values[v].clone()).collect();
                    let mut hooks = Hooks {
                        corrupt_table_shares: cheater == Some(me),
                        ..Hooks::default()
                    };
                    let result = run_with(&mut mesh, job, &mine, &[3; 32], &mut rng, options, &mut hooks);
                    let sent = mesh.bytes().iter().map(|b| b.0).sum();
                    Ran {
                        result,
                        sent,
                        setup_sent: hooks.setup_sent,
                    }
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn audience_of(parties: &[usize]) -> Audience {
    let mut a = Audience::only(PartyId::new(parties[0]).unwrap());
    for &p in &parties[1..] {
        a = a.with(PartyId::new(p).unwrap());
    }
    a
}

fn random_values(c: &Circuit, rng: &mut Rng) -> Vec<Vec<bool>> {
    c.input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.gen()).collect())
        .collect()
}

/// Runs `c` with random inputs and owners and checks every party against `eval_plain`:
/// the audience gets the outputs, everyone else none. Returns the outcomes.
fn check(c: &Circuit, n: usize, audience: &[usize], options: BmrOptions, rng: &mut Rng) -> Vec<Outcome> {
    let owners: Vec<usize> = c.input_widths.iter().map(|_| rng.gen_range(0..n)).collect();
    let values = random_values(c, rng);
    let want = c.eval_plain(&values).unwrap();
    let ran = run_parties(c, n, &owners, audience_of(audience), &values, options, None);
    ran.into_iter()
        .enumerate()
        .map(|(p, r)| {
            let out = r.result.unwrap_or_else(|e| panic!("party {p}: {e}"));
            if audience.contains(&p) {
                assert_eq!(out.outputs.as_ref(), Some(&want), "party {p} of {n}");
            } else {
                assert_eq!(out.outputs, None, "party {p} is not in the audience");
            }
            out
        })
        .collect()
}

/// Every circuit shipped in the repository's `circuits/` folder, by name.
const SHIPPED: [(&str, &str); 11] = [
    ("aes_128", mixgc_circuit::shipped::AES_128),
    (
        "AES-non-expanded",
        include_str!("../../../../circuits/AES-non-expanded.txt"),
    ),
    ("sha256", include_str!("../../../../circuits/sha256.txt")),
    ("adder64", include_str!("../../../../circuits/adder64.txt")),
    ("sub64", include_str!("../../../../circuits/sub64.txt")),
    ("mult64", include_str!("../../../../circuits/mult64.txt")),
    ("divide64", include_str!("../../../../circuits/divide64.txt")),
    ("udivide64", include_str!("../../../../circuits/udivide64.txt")),
    ("neg64", include_str!("../../../../circuits/neg64.txt")),
    ("zero_equal", include_str!("../../../../circuits/zero_equal.txt")),
    (
        "adder_32bit",
        include_str!("../../../../circuits/adder_32bit.txt"),
    ),
];

fn shipped(name: &str) -> Circuit {
    let (_, text) = SHIPPED
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a shipped circuit");
    bristol::parse(text, name).unwrap()
}

#[test]
fn random_circuits_match_the_plaintext_for_every_audience() {
    let mut rng = Rng::seed_from_u64(1);
    for n in [2, 3, 5] {
        let everyone: Vec<usize> = (0..n).collect();
        let audiences = [everyone, vec![n - 1], vec![0, n - 1]];
        for (round, audience) in audiences.iter().enumerate() {
            for gates in [0, 1, 30, 200] {
                let widths: Vec<u32> = (0..rng.gen_range(1..5)).map(|_| rng.gen_range(0..9)).collect();
                let c = Circuit::random(&mut rng, &widths, gates, 12);
                let outs = check(&c, n, audience, BmrOptions::default(), &mut rng);
                let ands = c.kind.iter().filter(|&&k| k == GateKind::And).count() as u64;
                assert!(outs.iter().all(|o| o.ands == ands), "n = {n}, round {round}");
            }
        }
    }
}

#[test]
fn batches_of_any_size_give_the_same_outputs() {
    let mut rng = Rng::seed_from_u64(2);
    let c = Circuit::random(&mut rng, &[16, 16], 300, 20);
    for batch_ands in [1, 7, BmrOptions::default().batch_ands] {
        check(
            &c,
            3,
            &[0, 1, 2],
            BmrOptions {
                batch_ands,
                ..BmrOptions::default()
            },
            &mut rng,
        );
    }
    let adder = shipped("adder64");
    for batch_ands in [1, 7, 1 << 16] {
        check(
            &adder,
            3,
            &[1],
            BmrOptions {
                batch_ands,
                ..BmrOptions::default()
            },
            &mut rng,
        );
    }
}

#[test]
fn shipped_circuits_among_three_parties() {
    let mut rng = Rng::seed_from_u64(3);
    for (name, _) in SHIPPED {
        let c = shipped(name);
        check(&c, 3, &[0, 1, 2], BmrOptions::default(), &mut rng);
    }
}

#[test]
fn aes_128_gives_the_fips_197_ciphertext() {
    let c = shipped("aes_128");
    let key = parse_hex("000102030405060708090a0b0c0d0e0f", 128).unwrap();
    let plaintext = parse_hex("00112233445566778899aabbccddeeff", 128).unwrap();
    let ran = run_parties(
        &c,
        4,
        &[1, 3],
        audience_of(&[0, 2]),
        &[key, plaintext],
        BmrOptions {
            batch_ands: 1000,
            ..BmrOptions::default()
        },
        None,
    );
    for p in [0, 2] {
        let out = ran[p].result.as_ref().unwrap().outputs.clone().unwrap();
        assert_eq!(to_hex(&out[0]), "69c4e0d86a7b0430d8cdb78070b4c55a", "party {p}");
    }
}

#[test]
fn a_party_that_leaves_is_named_and_nobody_hangs() {
    let c = shipped("adder64");
    let job = Job {
        circuit: &c,
        owners: &[0, 1],
        audience: audience_of(&[0, 1, 2]),
    };
    let errors: Vec<NpartyError> = std::thread::scope(|s| {
        let hs: Vec<_> = memory_mesh(3)
            .into_iter()
            .map(|mut mesh| {
                let job = &job;
                s.spawn(move || {
                    let me = mesh.me();
                    if me == 2 {
                        return None; // leaves at once: its mesh is dropped
                    }
                    let mut rng = new_rng(Some(12), me as u64);
                    let x = vec![vec![true; 64]];
                    run(&mut mesh, job, &x, &[4; 32], &mut rng, &BmrOptions::default()).err()
                })
            })
            .collect();
        hs.into_iter().filter_map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(errors.len(), 2);
    for e in errors {
        assert_eq!(e.party(), Some(2), "{e}");
    }
}

/// A circuit from its gates (`(kind, a, b, out)`) over `inputs` input bits.
fn circuit(inputs: &[u32], num_wires: u32, gates: &[(GateKind, u32, u32, u32)], outputs: &[u32]) -> Circuit {
    Circuit {
        num_wires,
        input_widths: inputs.to_vec(),
        output_widths: vec![outputs.len() as u32],
        output_wires: outputs.to_vec(),
        kind: gates.iter().map(|g| g.0).collect(),
        a: gates.iter().map(|g| g.1).collect(),
        b: gates.iter().map(|g| g.2).collect(),
        out: gates.iter().map(|g| g.3).collect(),
    }
}

#[test]
fn not_constants_copies_and_self_ands() {
    use GateKind::*;
    let mut rng = Rng::seed_from_u64(4);
    // w2 = ¬x0, w3 = 1, w4 = 0, w5 = x1 copied, w6 = x0 ∧ x0, w7 = w2 ∧ w3, w8 = w4 ∧ x1,
    // w9 = w5 ⊕ w3, w10 = w9 ∧ w6, w11 = ¬w10, w12 = w3 ∧ w3.
    let gates = [
        (Not, 0, 0, 2),
        (Const, 1, 0, 3),
        (Const, 0, 0, 4),
        (Copy, 1, 0, 5),
        (And, 0, 0, 6),
        (And, 2, 3, 7),
        (And, 4, 1, 8),
        (Xor, 5, 3, 9),
        (And, 9, 6, 10),
        (Not, 10, 0, 11),
        (And, 3, 3, 12),
    ];
    let c = circuit(&[1, 1], 13, &gates, &[0, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1]);
    c.validate().unwrap();
    for n in [2, 3] {
        for _ in 0..4 {
            check(
                &c,
                n,
                &[0, n - 1],
                BmrOptions {
                    batch_ands: 2,
                    ..BmrOptions::default()
                },
                &mut rng,
            );
        }
    }
    // No AND at all, and no input at all.
    let xor_only = circuit(&[3], 5, &[(Xor, 0, 1, 3), (Not, 3, 0, 4)], &[4, 2]);
    check(&xor_only, 3, &[2], BmrOptions::default(), &mut rng);
    let constants = circuit(
        &[],
        3,
        &[(Const, 1, 0, 0), (Const, 0, 0, 1), (And, 0, 0, 2)],
        &[2, 1],
    );
    check(&constants, 3, &[0, 1, 2], BmrOptions::default(), &mut rng);
}

#[test]
fn corrupted_table_shares_are_caught_by_the_decode_check() {
    let mut rng = Rng::seed_from_u64(5);
    let c = Circuit::random(&mut rng, &[8, 8], 100, 8);
    let values = random_values(&c, &mut rng);
    let ran = run_parties(
        &c,
        3,
        &[0, 2],
        audience_of(&[0, 1, 2]),
        &values,
        BmrOptions::default(),
        Some(1),
    );
    for p in [0, 2] {
        match &ran[p].result {
            Err(e @ NpartyError::Deviation(_)) => {
                assert!(e.to_string().contains("does not decode"), "{e}");
                assert_eq!(e.party(), None);
            }
            other => panic!("party {p}: expected a decode error, got {other:?}"),
        }
    }
}

#[test]
fn bad_settings_are_errors_before_anything_is_sent() {
    let c = shipped("adder64");
    let ran = run_parties(
        &c,
        2,
        &[0, 1],
        audience_of(&[0]),
        &[vec![true; 64], vec![false; 64]],
        BmrOptions {
            batch_ands: 0,
            ..BmrOptions::default()
        },
        None,
    );
    for r in ran {
        let e = r.result.unwrap_err();
        assert!(e.to_string().contains("at least one AND"), "{e}");
        assert_eq!(r.sent, 0);
    }
    let ran = run_parties(
        &c,
        2,
        &[0, 1],
        audience_of(&[0]),
        &[vec![true; 63], vec![false; 64]],
        BmrOptions::default(),
        None,
    );
    let e = ran[0].result.as_ref().unwrap_err();
    assert!(e.to_string().contains("must be 64 bits"), "{e}");
}

/// Bytes per AND per ordered pair of parties, setup excluded, for AES-128: at most the
/// thesis's 9·(n − 1)·16 of BMR (TinyGarble2 thesis §2.5). Prints the timings too.
#[test]
fn aes_communication_per_and_is_within_the_bmr_bound() {
    let c = shipped("aes_128");
    let mut rng = Rng::seed_from_u64(6);
    for n in [3, 4] {
        let owners = [0, n - 1];
        let values = random_values(&c, &mut rng);
        let want = c.eval_plain(&values).unwrap();
        let ran = run_parties(
            &c,
            n,
            &owners,
            audience_of(&[0]),
            &values,
            BmrOptions::default(),
            None,
        );
        let sent: u64 = ran.iter().map(|r| r.sent - r.setup_sent).sum();
        let out: Vec<Outcome> = ran.into_iter().map(|r| r.result.unwrap()).collect();
        assert_eq!(out[0].outputs.as_ref(), Some(&want));
        let per_and = sent as f64 / (out[0].ands as f64 * (n * (n - 1)) as f64);
        let bound = 9.0 * (n as f64 - 1.0) * 16.0;
        println!(
            "BMR AES-128, {n} parties: {per_and:.1} bytes per AND per ordered pair (bound {bound}); \
             party 0 offline {:?}, online {:?}, {} online rounds",
            out[0].offline, out[0].online, out[0].online_rounds
        );
        assert!(per_and <= bound, "{per_and} > {bound}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Any small circuit, party count, owners, audience and batch size.
    #[test]
    fn any_small_circuit_matches_the_plaintext(
        seed: u64,
        n in 1usize..5,
        gates in 0usize..80,
        batch_ands in 1usize..12,
        audience_bits in 1u64..16,
    ) {
        let mut rng = Rng::seed_from_u64(seed);
        let widths: Vec<u32> = (0..rng.gen_range(0..4)).map(|_| rng.gen_range(0..6)).collect();
        let outputs = rng.gen_range(0..10);
        let c = Circuit::random(&mut rng, &widths, gates, outputs);
        let audience: Vec<usize> = (0..n).filter(|p| audience_bits >> p & 1 == 1).collect();
        let audience = if audience.is_empty() { vec![0] } else { audience };
        check(&c, n, &audience, BmrOptions { batch_ands, ..BmrOptions::default() }, &mut rng);
    }
}
