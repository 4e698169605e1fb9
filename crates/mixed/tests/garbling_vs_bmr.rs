//! Distributed garbling (seed §6, Figures 11–12) beside BMR (`mixgc_nparty::bmr`, BLO16) on
//! the same ≥ 1,000-gate circuits for n = 3, 4, 8, 16 (issue #18 point 6): per-party bytes
//! in and out per gate (most and mean over parties), time, and the parts of the garbling's
//! traffic that the per-gate formula of `docs/mixed-mode.md` separates. Both protocols'
//! outputs are checked against the plaintext evaluation. Ignored (minutes on two cores):
//!
//! ```text
//! cargo test --release -p mixgc-mixed --test garbling_vs_bmr -- --ignored --nocapture
//! ```
//!
//! `GARBLING_PARTIES=3,4` picks the party counts (default 3, 4, 8, 16), `GARBLING_CIRCUIT=and`
//! or `=random` one of the two circuits (default both), `GARBLING_KEY_DEGREE=2048` the key
//! ring's degree L (default 16, insecure; 2048 is the secure one, about 128× the slot work).
//! The formula counts the key batches as `garble` packs them, whole gates to a batch (at
//! L = 2048 on the random circuit 371, not ⌈(4A + X)·L / N⌉ = 313: `docs/mixed-mode.md`, "A
//! ≥ 1,000-gate garbling at the secure L = 2048").

// This file runs its parties on its own meshes (`run_on`), not `run_parties`'.
#[allow(dead_code)]
mod common;

use std::time::{Duration, Instant};

use common::garbling_formula::{key_batches, predicted_bytes};
use common::{run_on, xor_shares};
use fhe_rand::{Rng, SeedableRng};
use fhe_rand_chacha::ChaCha20Rng;
use mixgc_circuit::{Audience, Circuit, GateKind, PartyId};
use mixgc_mixed::a2b::BooleanEngine;
use mixgc_mixed::b2a::b2a;
use mixgc_mixed::distgarble::{and_layer, garble, KeySelection};
use mixgc_mixed::keyhom::KeyHomParams;
use mixgc_mixed::{keygen, parameters, DEGREE};
use mixgc_net::{memory_pair_holding, Channel};
use mixgc_nparty::bmr::{self, BmrOptions};
use mixgc_nparty::{Job, Mesh};

/// The key ring's degree L by default: insecure (the secure one is 2048), so that 1,000
/// gates among 16 parties fit in minutes on two cores. Every term of the formula but the
/// B2A of the index bits and the λ_u·λ_v ANDs scales with it.
const DEFAULT_L: usize = 16;

/// `GARBLING_KEY_DEGREE` (a power of two from 16 to 2048) or [`DEFAULT_L`].
fn key_degree() -> usize {
    match std::env::var("GARBLING_KEY_DEGREE") {
        Ok(l) => l
            .trim()
            .parse()
            .ok()
            .filter(|l: &usize| KeyHomParams::with_degree(*l).is_ok())
            .expect("GARBLING_KEY_DEGREE: a power of two from 16 to 2048"),
        Err(_) => DEFAULT_L,
    }
}

/// How long a party waits on a silent peer: n threads of lattice arithmetic on two loaded
/// cores leave a party silent for longer than the in-memory links' default 30 s.
const PATIENCE: Duration = Duration::from_secs(900);

/// n meshes joined by in-memory channels (as `mixgc_nparty::memory_mesh`) that wait
/// [`PATIENCE`] on a silent peer.
fn patient_mesh(n: usize) -> Vec<Mesh> {
    let mut links: Vec<Vec<Option<Box<dyn Channel>>>> =
        (0..n).map(|_| (0..n).map(|_| None).collect()).collect();
    for (i, j) in (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))) {
        let (mut a, mut b) = memory_pair_holding(1 << 14);
        a.set_timeout(PATIENCE);
        b.set_timeout(PATIENCE);
        links[i][j] = Some(Box::new(a));
        links[j][i] = Some(Box::new(b));
    }
    links
        .into_iter()
        .enumerate()
        .map(|(me, l)| Mesh::new(me, l))
        .collect()
}

/// Bytes sent and received by one party over all its links.
fn totals(mesh: &Mesh) -> [u64; 2] {
    mesh.bytes().iter().fold([0, 0], |[s, r], &(a, b)| [s + a, r + b])
}

/// One party's bytes [sent, received] and seconds of one measured phase.
#[derive(Clone, Copy, Debug, Default)]
struct Phase {
    bytes: [u64; 2],
    secs: f64,
}

/// Runs `f` on `mesh` and measures it.
fn measured<T>(mesh: &mut Mesh, f: impl FnOnce(&mut Mesh) -> T) -> (T, Phase) {
    let (before, start) = (totals(mesh), Instant::now());
    let out = f(mesh);
    let after = totals(mesh);
    let phase = Phase {
        bytes: [after[0] - before[0], after[1] - before[1]],
        secs: start.elapsed().as_secs_f64(),
    };
    (out, phase)
}

/// A phase over all parties, divided by `per`: most and mean bytes sent, most and mean
/// received, the slowest party's seconds.
#[derive(Clone, Copy, Debug)]
struct Summary {
    sent_max: f64,
    sent_mean: f64,
    recv_max: f64,
    recv_mean: f64,
    secs: f64,
}

fn summarize(phases: &[Phase], per: f64) -> Summary {
    let n = phases.len() as f64;
    let max = |k: usize| phases.iter().map(|p| p.bytes[k]).max().unwrap_or(0) as f64 / per;
    let mean = |k: usize| phases.iter().map(|p| p.bytes[k]).sum::<u64>() as f64 / n / per;
    Summary {
        sent_max: max(0),
        sent_mean: mean(0),
        recv_max: max(1),
        recv_mean: mean(1),
        secs: phases.iter().map(|p| p.secs).fold(0.0, f64::max) / per,
    }
}

impl std::fmt::Display for Summary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "sent {:.1} / {:.1}, received {:.1} / {:.1} B (max / mean), {:.3} ms",
            self.sent_max,
            self.sent_mean,
            self.recv_max,
            self.recv_mean,
            self.secs * 1e3
        )
    }
}

/// The circuit's AND and XOR gates (the garbled ones; NOT, copy and constants are free).
fn and_xor(circuit: &Circuit) -> (usize, usize) {
    let count = |k| circuit.kind.iter().filter(|&&g| g == k).count();
    (count(GateKind::And), count(GateKind::Xor))
}

/// The lookups of each garbled gate in circuit order (4 an AND, 1 an XOR), as `garble`
/// batches them.
fn gate_lookups(circuit: &Circuit) -> Vec<usize> {
    circuit
        .kind
        .iter()
        .filter_map(|&k| match k {
            GateKind::And => Some(4),
            GateKind::Xor => Some(1),
            _ => None,
        })
        .collect()
}

/// Random input values, one per input width.
fn random_values(circuit: &Circuit, rng: &mut ChaCha20Rng) -> Vec<Vec<bool>> {
    circuit
        .input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.random_range(0..2u8) == 1).collect())
        .collect()
}

/// Per party: the garbling, its online evaluation, and, measured apart, the two parts of
/// the garbling that do not scale with L (the B2A of the 4A + X index bits and the A GMW
/// ANDs λ_u·λ_v).
struct GarblingRun {
    /// The session's relinearization key (setup, not counted in the garbling).
    relin: Phase,
    garble: Phase,
    evaluate: Phase,
    b2a: Phase,
    ands: Phase,
}

/// Garbles and evaluates `circuit` among `n` parties (`KeySelection::Products`, key ring
/// of degree `l`) on `values`, checks the outputs against the plaintext, and measures.
fn distributed_garbling(n: usize, l: usize, circuit: &Circuit, values: &[Vec<bool>]) -> Vec<GarblingRun> {
    let params = KeyHomParams::with_degree(l).unwrap();
    let (ands, xors) = and_xor(circuit);
    let bits: Vec<u8> = values.concat().into_iter().map(u8::from).collect();
    let mut rng = ChaCha20Rng::seed_from_u64(18);
    let shares = xor_shares(&mut rng, &bits, n);
    let got = run_on(patient_mesh(n), 18, |mesh, rng| {
        // The session's setup, as in `mixgc bench --mixed`: threshold keys, the
        // relinearization key (once per session; the B2A's XOR tree multiplies
        // ciphertexts) and the base OTs.
        let keys = keygen(mesh, &parameters(), &[18; 32], rng).unwrap();
        let (_, relin) = measured(mesh, |m| keys.prepare_products(m, rng).map(|_| ()).unwrap());
        let mut engine = BooleanEngine::setup(mesh, &[19; 32], rng).unwrap();
        let (gc, garble) = measured(mesh, |m| {
            garble(
                &keys,
                &mut engine,
                m,
                circuit,
                &params,
                &[20; 32],
                KeySelection::Products,
                rng,
            )
            .unwrap()
        });
        let (out, evaluate) = measured(mesh, |m| gc.evaluate(m, &shares[m.me()]).unwrap());
        let index_bits: Vec<u64> = (0..4 * ands + xors).map(|_| rng.random_range(0..2)).collect();
        let (_, b2a) = measured(mesh, |m| b2a(&keys, m, &index_bits, 1, rng).unwrap());
        let lanes: Vec<u8> = (0..ands).map(|_| rng.random_range(0..2)).collect();
        let (_, and_phase) = measured(mesh, |m| engine.and(m, &lanes, &lanes).unwrap());
        let run = GarblingRun {
            relin,
            garble,
            evaluate,
            b2a,
            ands: and_phase,
        };
        (out, run)
    });
    let want: Vec<u8> = circuit
        .eval_plain(values)
        .unwrap()
        .concat()
        .into_iter()
        .map(u8::from)
        .collect();
    let out: Vec<u8> = (0..want.len())
        .map(|j| got.iter().fold(0, |a, (party, _)| a ^ party[j]))
        .collect();
    assert_eq!(out, want, "distributed garbling, n = {n}");
    got.into_iter().map(|(_, run)| run).collect()
}

/// One BMR party's protocol traffic (the setup's base OTs excluded, as in
/// `mixgc bench --parties`), offline and online time.
struct BmrRun {
    all: Phase,
    offline: Duration,
    online: Duration,
}

/// Runs `circuit` by BMR among `n` parties, input value v owned by party v, outputs to
/// party 0, checked against the plaintext.
fn bmr_run(n: usize, circuit: &Circuit, values: &[Vec<bool>]) -> Vec<BmrRun> {
    let owners: Vec<usize> = (0..values.len()).collect();
    let job = Job {
        circuit,
        owners: &owners,
        audience: Audience::only(PartyId::new(0).unwrap()),
    };
    let got: Vec<(Option<Vec<Vec<bool>>>, BmrRun)> = std::thread::scope(|s| {
        let handles: Vec<_> = patient_mesh(n)
            .into_iter()
            .map(|mut mesh| {
                let job = &job;
                s.spawn(move || {
                    let me = mesh.me();
                    let mut rng = mixgc_core::new_rng(Some(21), me as u64);
                    let mine: Vec<Vec<bool>> = job.mine(me).map(|v| values[v].clone()).collect();
                    let start = Instant::now();
                    let outcome =
                        bmr::run(&mut mesh, job, &mine, &[22; 32], &mut rng, &BmrOptions::default()).unwrap();
                    let secs = start.elapsed().as_secs_f64();
                    let all = totals(&mesh);
                    let setup = outcome
                        .setup_bytes
                        .iter()
                        .fold([0, 0], |[s, r], &(a, b)| [s + a, r + b]);
                    let run = BmrRun {
                        all: Phase {
                            bytes: [all[0] - setup[0], all[1] - setup[1]],
                            secs,
                        },
                        offline: outcome.offline,
                        online: outcome.online,
                    };
                    (outcome.outputs, run)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let want = circuit.eval_plain(values).unwrap();
    assert_eq!(got[0].0.as_ref(), Some(&want), "BMR, n = {n}");
    got.into_iter().map(|(_, run)| run).collect()
}

/// The party counts to measure: `GARBLING_PARTIES` (comma-separated) or 3, 4, 8, 16.
fn party_counts() -> Vec<usize> {
    match std::env::var("GARBLING_PARTIES") {
        Ok(list) => list
            .split(',')
            .map(|n| {
                n.trim()
                    .parse()
                    .expect("GARBLING_PARTIES: party counts, e.g. 3,4")
            })
            .collect(),
        Err(_) => vec![3, 4, 8, 16],
    }
}

/// The formula's batch count is `garble`'s: the measured 371 batches of the 1,400-gate
/// random circuit at L = 2048 (`docs/mixed-mode.md`), 313 if gates could be split, and
/// and_layer(1000)'s 4 full batches at L = 16.
#[test]
fn key_batches_are_whole_gates_packed_in_order() {
    let mut crng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(18);
    let random = Circuit::random(&mut crng, &[64, 64], 1400, 64);
    let lookups = gate_lookups(&random);
    assert_eq!(lookups.iter().sum::<usize>() * 2048 / DEGREE, 312);
    assert_eq!(key_batches(&lookups, 2048), 371);
    assert_eq!(key_batches(&gate_lookups(&and_layer(1000).unwrap()), 16), 4);
    assert_eq!(key_batches(&[], 16), 0);
    assert_eq!(key_batches(&[1; 8], DEGREE / 4), 2);
    // The seed's AES-128 (6,400 AND, 28,176 XOR) in its Bristol order, for the estimates of
    // docs/mixed-mode.md: 7,516 batches at L = 2048 (full batches: 6,722) and 15,642 at the
    // seed's L = 4096 (13,444).
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits");
    let aes = mixgc_circuit::bristol::read_file(&dir.join("aes_128.txt")).unwrap();
    assert_eq!(and_xor(&aes), (6400, 28176));
    let aes = gate_lookups(&aes);
    assert_eq!(aes.iter().sum::<usize>() * 2048 / DEGREE, 6722);
    assert_eq!(key_batches(&aes, 2048), 7516);
    assert_eq!(key_batches(&aes, 4096), 15642);
}

#[test]
#[ignore = "minutes: n = 3..16 on two 1,000-gate circuits; run with --ignored --nocapture"]
fn distributed_garbling_beside_bmr_for_3_to_16_parties() {
    let mut crng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(18);
    let circuits = [
        ("and_layer(1000)", and_layer(1000).unwrap()),
        (
            "random 1,400 gates",
            Circuit::random(&mut crng, &[64, 64], 1400, 64),
        ),
    ];
    let mut rng = ChaCha20Rng::seed_from_u64(23);
    let l = key_degree();
    let only = std::env::var("GARBLING_CIRCUIT").unwrap_or_default();
    for (name, circuit) in circuits
        .iter()
        .filter(|(name, _)| name.starts_with(only.as_str()))
    {
        let (ands, xors) = and_xor(circuit);
        let gate_lookups = gate_lookups(circuit);
        let gates = (ands + xors) as f64;
        let slots = (4 * ands + xors) * l;
        println!(
            "{name}: {} gates, {ands} AND, {xors} XOR; {slots} key slots ({} batches of N = {DEGREE} of whole gates), {} index bits (B2A)",
            circuit.num_gates(),
            key_batches(&gate_lookups, l),
            4 * ands + xors
        );
        let mut garbling_sent = Vec::new();
        for n in party_counts() {
            let values = random_values(circuit, &mut rng);
            let runs = distributed_garbling(n, l, circuit, &values);
            let phase = |f: fn(&GarblingRun) -> Phase| runs.iter().map(f).collect::<Vec<_>>();
            let garbling = summarize(&phase(|r| r.garble), gates);
            let online = summarize(&phase(|r| r.evaluate), gates);
            let index_b2a = summarize(&phase(|r| r.b2a), gates);
            let and_part = summarize(&phase(|r| r.ands), gates);
            let relin = summarize(&phase(|r| r.relin), 1.0);
            // What scales with L: the key slots' A2E, products and E2A, and the rows.
            let rows = 4.0 * KeyHomParams::with_degree(l).unwrap().ciphertext_bytes() as f64;
            let per_slot =
                (garbling.sent_max - index_b2a.sent_max - and_part.sent_max - rows) * gates / slots as f64;
            println!("  n = {n:2} distributed garbling, L = {l}, per AND/XOR gate: offline {garbling}");
            println!("         online {online}");
            println!("         setup, relinearization key (per session, not per gate): {relin}");
            println!("         of the offline: B2A of the index bits {index_b2a}; λ_u·λ_v {and_part}; rows {rows:.0} B sent; the rest {per_slot:.1} B per key slot");
            let bmr_runs = bmr_run(n, circuit, &values);
            let bmr_all = summarize(&bmr_runs.iter().map(|r| r.all).collect::<Vec<_>>(), gates);
            let slowest = |f: fn(&BmrRun) -> Duration| {
                bmr_runs.iter().map(f).max().unwrap_or_default().as_secs_f64() * 1e3 / gates
            };
            println!(
                "         BMR per AND/XOR gate: {bmr_all} (offline {:.4} ms, online {:.4} ms); per AND: sent {:.1} B max",
                slowest(|r| r.offline),
                slowest(|r| r.online),
                bmr_all.sent_max * gates / ands as f64
            );
            garbling_sent.push((n, garbling.sent_max, garbling.recv_max));
            let predicted = predicted_bytes(n, &gate_lookups, l) / gates;
            println!("         the formula: {predicted:.1} B sent per gate (most)");
            assert!(
                (garbling.sent_max / predicted - 1.0).abs() < 0.01,
                "n = {n}: {} B per gate, the formula {predicted}",
                garbling.sent_max
            );
        }
        println!("{name}: most bytes per gate (n, sent, received): {garbling_sent:?}");
        // The target: per-party bytes per gate constant in n, within ±10 % of their mean.
        for (what, pick) in [("sent", 1), ("received", 2)] {
            let values: Vec<f64> = garbling_sent
                .iter()
                .map(|&(_, s, r)| if pick == 1 { s } else { r })
                .collect();
            let mean = values.iter().sum::<f64>() / values.len() as f64;
            for v in &values {
                assert!((v / mean - 1.0).abs() <= 0.10, "{name}: {what} {values:?}");
            }
        }
    }
}
