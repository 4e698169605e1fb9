//! Security regressions (`docs/security.md`, "What each regression test guards"):
//! x·x mod p and repeated projections of one wire cannot reveal Δ, no composite-modulus
//! wire can be created, labels have the required length.
//!
//! The Δ tests run the actual attack an evaluator would run on the garbled rows (opening
//! them at its own colour, as evaluation does), and show (on a deliberately flawed garbling
//! built here from the public hash and row mask) that the attack does recover Δ when tweaks
//! are reused — so the tests would catch that regression.

mod common;

use common::*;
use mixgc_arith::codec::{mask_label, unmask_label};
use mixgc_arith::primes::is_prime;
use mixgc_arith::{
    ArithError, ArithGarbler, ArithHash, Domain, Label, Modulus, PrimeSet, TableReader, Tweak, MAX_ODD_PRIME,
};
use mixgc_core::new_rng;

/// Moduli of the Δ-leak tests.
const LEAK_MODULI: [u64; 9] = [2, 3, 5, 7, 11, 13, 251, 4, 8];

/// Reads `count` rows mod m.
fn read_rows(bytes: &[u8], m: Modulus, count: usize) -> Vec<Label> {
    let mut t = TableReader::new(bytes);
    let rows = (0..count).map(|_| t.next_label(m).unwrap()).collect();
    t.finish().unwrap();
    rows
}

/// What the evaluator holding `a` reads from a row-reduced half (rows for colours 1..m):
/// the hash itself at colour 0, else its row unmasked with the hash.
fn open_half(hash: &ArithHash, tweak: Tweak, a: &Label, out: Modulus, rows: &[Label]) -> Label {
    let pad = hash.hash(a, tweak, out);
    match a.colour() {
        0 => pad,
        c => unmask_label(&rows[c as usize - 1], &pad).unwrap(),
    }
}

/// The evaluator's attack on a product of a wire with itself, from its own colour only.
/// It opens both halves: G = C_G + c·k·Δ (garbler half, k = −b_c) and E' = E^0 − c·a
/// (evaluator half, before adding c·A), with c = colour(A), a = A − x·Δ. If both halves
/// hashed under one tweak, C_G = E^0 (B^(−b_c) is A's colour-0 label) and
/// G − E' = c·(A − c·Δ) since k − x = −colour(A), so Δ = (A − (G − E')/c)/c. Returns that
/// candidate (none at colour 0). `tweaks` are those of the garbler and evaluator halves.
fn squaring_attack(
    hash: &ArithHash,
    tweaks: (Tweak, Tweak),
    a: &Label,
    garbler: &[Label],
    evaluator: &[Label],
) -> Option<Label> {
    let m = a.modulus();
    let c_inv = m.inverse(a.colour())?;
    let g = open_half(hash, tweaks.0, a, m, garbler);
    let e = open_half(hash, tweaks.1, a, m, evaluator);
    let l = g.sub(&e).unwrap().scale(c_inv);
    Some(a.sub(&l).unwrap().scale(c_inv))
}

/// Every pair of tweaks of gate `gate` (all domains for each half).
fn tweak_pairs(gate: u64) -> Vec<(Tweak, Tweak)> {
    let domains = [
        Domain::Projection,
        Domain::MulGarblerHalf,
        Domain::MulEvaluatorHalf,
        Domain::BitLift,
    ];
    let tweak = |domain| Tweak { domain, gate };
    domains
        .iter()
        .flat_map(|&d1| domains.iter().map(move |&d2| (tweak(d1), tweak(d2))))
        .collect()
}

/// A projection garbled like the real one but under a caller-chosen tweak (the flawed
/// variants reuse one tweak): returns the output zero-label and the rows by colour 1..m.
fn projection_with_tweak(
    hash: &ArithHash,
    tweak: Tweak,
    a0: &Label,
    delta_in: &Label,
    delta_out: &Label,
    phi: impl Fn(u64) -> u64,
) -> (Label, Vec<Label>) {
    let (m, q) = (a0.modulus(), delta_out.modulus());
    let x0 = (size(m) - a0.colour()) % size(m);
    let label = |c: u64| a0.add_scaled(delta_in, x0 + c).unwrap();
    let c0 = hash
        .hash(&label(0), tweak, q)
        .sub(&delta_out.scale(phi(x0)))
        .unwrap();
    let rows = (1..size(m))
        .map(|c| {
            let x = (x0 + c) % size(m);
            let target = c0.add_scaled(delta_out, phi(x)).unwrap();
            mask_label(&target, &hash.hash(&label(c), tweak, q)).unwrap()
        })
        .collect();
    (c0, rows)
}

/// Every modulus but 2, whose products are ANDs of the Boolean half-gates.
#[test]
fn squaring_cannot_reveal_delta() {
    for (i, &m) in LEAK_MODULI.iter().enumerate().filter(|(_, &m)| m != 2) {
        let m = modulus(m);
        for seed in 0..6u64 {
            let (mut g, mut e, mut rng) = session(1000 + 10 * i as u64 + seed);
            let delta = g.delta(m);
            let hash = ArithHash::new(g.session_key());
            let a0 = g.new_wire(m);
            let mut bytes = Vec::new();
            let gate = g.gates_garbled();
            g.mul(&a0, &a0, &mut bytes).unwrap();
            let rows = read_rows(&bytes, m, 2 * (size(m) as usize - 1));
            let (garbler_rows, evaluator_rows) = rows.split_at(size(m) as usize - 1);
            for row in &rows {
                assert!(
                    !is_multiple_of_delta(row, &delta),
                    "a row of x·x mod {m} is a multiple of Δ"
                );
            }
            for x in (0..size(m)).take(8) {
                let a = g.encode(&a0, x).unwrap();
                // The attacker tries every pair of domains the halves might hash under.
                for tweaks in tweak_pairs(gate) {
                    let candidate = squaring_attack(&hash, tweaks, &a, garbler_rows, evaluator_rows);
                    assert_ne!(
                        candidate,
                        Some(delta.clone()),
                        "x·x mod {m} revealed Δ (seed {seed})"
                    );
                }
            }
            // The evaluator still gets the right product from these rows.
            let x = random_value(m, &mut rng);
            let c = e.mul(
                &g.encode(&a0, x).unwrap(),
                &g.encode(&a0, x).unwrap(),
                &mut TableReader::new(&bytes),
            );
            assert_eq!(c.unwrap().modulus(), m);
        }
    }
}

/// The attack is real: with one tweak for both halves (the fancy-garbling bug), every
/// evaluator whose colour is invertible recovers Δ from one squaring.
#[test]
fn the_squaring_attack_breaks_a_shared_tweak() {
    for (i, &m) in LEAK_MODULI.iter().enumerate() {
        let m = modulus(m);
        let (mut g, _, _) = session(2000 + i as u64);
        let delta = g.delta(m);
        let hash = ArithHash::new(g.session_key());
        let shared = Tweak {
            domain: Domain::MulGarblerHalf,
            gate: 0,
        };
        let a0 = g.new_wire(m);
        let minus_bc = (size(m) - a0.colour()) % size(m);
        let mul = |x: u64| ((x as u128 * minus_bc as u128) % m.value()) as u64;
        let (_, garbler_rows) = projection_with_tweak(&hash, shared, &a0, &delta, &delta, mul);
        // Evaluator half under the same tweak: T_E[β] = (E^0 − β·a) ⊞ H(B^(β − b_c), t).
        let b_colour0 = a0.add_scaled(&delta, minus_bc).unwrap();
        let e0 = hash.hash(&b_colour0, shared, m);
        let evaluator_rows: Vec<Label> = (1..size(m))
            .map(|beta| {
                let b = b_colour0.add_scaled(&delta, beta).unwrap();
                let target = e0.sub(&a0.scale(beta)).unwrap();
                mask_label(&target, &hash.hash(&b, shared, m)).unwrap()
            })
            .collect();
        let mut leaked = 0;
        for x in (0..size(m)).take(6) {
            let a = g.encode(&a0, x).unwrap();
            if let Some(candidate) =
                squaring_attack(&hash, (shared, shared), &a, &garbler_rows, &evaluator_rows)
            {
                assert_eq!(candidate, delta, "mod {m}, x = {x}");
                leaked += 1;
            }
        }
        assert!(leaked > 0);
    }
}

/// What an evaluator learns from two projections of one wire: the difference of its two
/// outputs. Under one shared tweak both pads are H(A, t) and both zero-labels come from
/// H(A^x0, t), so the difference is (φ1(x) − φ2(x) − φ1(x0) + φ2(x0))·Δ_q, a multiple of
/// Δ_q (Δ_q itself, up to a known scale, whenever the tables differ there).
fn projections_differ_by_a_multiple_of_delta(o1: &Label, o2: &Label, delta_out: &Label) -> bool {
    is_multiple_of_delta(&o1.sub(o2).unwrap(), delta_out)
}

#[test]
fn repeated_projections_cannot_reveal_delta() {
    for (i, &p) in LEAK_MODULI.iter().enumerate() {
        for &q in &[2u64, 3, 5, 251, 4] {
            let (p, q) = (modulus(p), modulus(q));
            let (mut g, _, mut rng) = session(3000 + 10 * i as u64 + q.value() as u64 % 10);
            let delta_out = g.delta(q);
            let a0 = g.new_wire(p);
            let (phi1, phi2) = (random_table(p, q, &mut rng), random_table(p, q, &mut rng));
            let mut bytes = Vec::new();
            g.project(&a0, q, &phi1, &mut bytes).unwrap();
            g.project(&a0, q, &phi2, &mut bytes).unwrap();
            // Projecting one wire twice by the same secret table hides it just as well.
            g.project(&a0, q, &phi1, &mut bytes).unwrap();
            for x in (0..size(p)).take(8) {
                let a = g.encode(&a0, x).unwrap();
                let mut e = evaluator_for(&g);
                let mut tables = TableReader::new(&bytes);
                let outputs: Vec<Label> = (0..3).map(|_| e.project(&a, q, &mut tables).unwrap()).collect();
                tables.finish().unwrap();
                for (o1, o2) in [(&outputs[0], &outputs[1]), (&outputs[0], &outputs[2])] {
                    assert!(
                        !projections_differ_by_a_multiple_of_delta(o1, o2, &delta_out),
                        "{p} -> {q}, x = {x}"
                    );
                }
            }
        }
    }
}

/// The check is real: two projections of one wire under one tweak leak multiples of Δ_q.
#[test]
fn the_projection_check_catches_a_reused_tweak() {
    let (mut g, _, mut rng) = session(4000);
    for &(p, q) in &[(3u64, 3u64), (5, 2), (251, 7), (2, 251), (8, 3)] {
        let (p, q) = (modulus(p), modulus(q));
        let (delta_in, delta_out) = (g.delta(p), g.delta(q));
        let hash = ArithHash::new(g.session_key());
        let reused = Tweak {
            domain: Domain::Projection,
            gate: 9,
        };
        let a0 = g.new_wire(p);
        // Two tables that differ somewhere, so the leaked multiple is not always 0.
        let phi1 = random_table(p, q, &mut rng);
        let phi2: Vec<u64> = phi1
            .iter()
            .enumerate()
            .map(|(x, &v)| if x == 1 { (v + 1) % size(q) } else { v })
            .collect();
        let (_, t1) = projection_with_tweak(&hash, reused, &a0, &delta_in, &delta_out, |x| phi1[x as usize]);
        let (_, t2) = projection_with_tweak(&hash, reused, &a0, &delta_in, &delta_out, |x| phi2[x as usize]);
        let mut nonzero = 0;
        for x in 0..size(p) {
            let a = g.encode(&a0, x).unwrap();
            let (o1, o2) = (
                open_half(&hash, reused, &a, q, &t1),
                open_half(&hash, reused, &a, q, &t2),
            );
            assert!(
                projections_differ_by_a_multiple_of_delta(&o1, &o2, &delta_out),
                "{p} -> {q}"
            );
            nonzero += usize::from(o1 != o2);
        }
        assert!(
            nonzero > 0,
            "{p} -> {q}: the tables differ, so some difference is a nonzero multiple"
        );
    }
}

#[test]
fn no_composite_modulus_wire_can_be_created() {
    for m in 0..5000u64 {
        let allowed = is_prime(m) || (m >= 2 && m.is_power_of_two());
        assert_eq!(Modulus::new(m).is_ok(), allowed, "modulus {m}");
        if m > 2 && !allowed {
            assert_eq!(Modulus::new(m), Err(ArithError::CompositeModulus(m)));
        }
    }
    // The dicenet modulus, as a single wire or hidden in a CRT set.
    assert!(Modulus::new(86).is_err());
    assert!(PrimeSet::new(&[2, 3, 86]).is_err());
    assert!(PrimeSet::new(&[2, 4]).is_err());
    // Powers of two above 2^64 and primes above the limit are refused too.
    assert!(Modulus::power_of_two(65).is_err());
    assert!(Modulus::new(65_537).is_err());
}

#[test]
fn labels_have_the_required_length() {
    let (mut g, mut e, _) = session(5000);
    let odd = (3..=MAX_ODD_PRIME).filter(|&p| is_prime(p));
    for m in odd
        .map(modulus)
        .chain((1..=64).map(|k| Modulus::power_of_two(k).unwrap()))
    {
        let len = m.label_len();
        if m.value() % 2 == 1 {
            // ℓ − 1 non-colour digits carry ≥ 128 bits; one fewer would not.
            let p = m.value() as f64;
            assert!((len - 1) as f64 * p.log2() >= 128.0 && (len - 2) as f64 * p.log2() < 128.0);
        } else {
            assert_eq!(len, 128);
        }
        assert_eq!(g.delta(m).digits().len(), len);
        assert_eq!(g.new_wire(m).digits().len(), len);
        assert!(Label::new(m, vec![0; len - 1]).is_err() && Label::new(m, vec![0; len + 1]).is_err());
    }
    // Gadget outputs, on both sides (squares of odd moduli: mod 2 a product is an AND of
    // the Boolean half-gates).
    for &(p, q) in &[(3u64, 251u64), (251, 3), (11, 5), (5, 2), (7, 8)] {
        let (p, q) = (modulus(p), modulus(q));
        let a0 = g.new_wire(p);
        let mut rows = Vec::new();
        let table = vec![0; size(p) as usize];
        let c0 = g.project(&a0, q, &table, &mut rows).unwrap();
        let m0 = g.mul(&a0, &a0, &mut rows).unwrap();
        let a = g.encode(&a0, 1).unwrap();
        let mut t = TableReader::new(&rows);
        let c = e.project(&a, q, &mut t).unwrap();
        let m1 = e.mul(&a, &a, &mut t).unwrap();
        t.finish().unwrap();
        for (label, m) in [(&c0, q), (&c, q), (&m0, p), (&m1, p)] {
            assert_eq!(label.modulus(), m);
            assert_eq!(label.digits().len(), m.label_len());
        }
    }
}

#[test]
fn unseeded_sessions_never_repeat_keys_deltas_or_labels() {
    let fresh = || {
        let mut rng = new_rng(None, 0);
        let delta = mixgc_core::Block::random(&mut rng).with_lsb_set();
        ArithGarbler::new(new_rng(None, 0), delta).unwrap()
    };
    let (mut g1, mut g2) = (fresh(), fresh());
    let p = modulus(3);
    assert_ne!(g1.session_key(), g2.session_key());
    assert_ne!(g1.delta(p), g2.delta(p));
    assert_ne!(g1.new_wire(p), g2.new_wire(p));
}
