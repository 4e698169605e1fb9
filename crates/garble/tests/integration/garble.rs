//! Garbled evaluation equals plaintext evaluation; the half-gates rows hide Δ.

use mixgc_circuit::{bristol, Circuit};
use mixgc_compile::{compile, CompiledCircuit};
use mixgc_core::{AnyHash, Block, HashKind, TweakableHash};
use mixgc_garble::{Evaluator, Garbler};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

/// Garbles and evaluates `c` in memory with frames of `frame` blocks; returns decoded bits.
fn garble_and_eval(c: &CompiledCircuit, bits: &[bool], hash: HashKind, frame: usize, seed: u64) -> Vec<bool> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let delta = Block::random(&mut rng).with_lsb_set();
    let hseed = Block::random(&mut rng);
    let zero: Vec<Block> = bits.iter().map(|_| Block::random(&mut rng)).collect();
    let active: Vec<Block> = zero
        .iter()
        .zip(bits)
        .map(|(&z, &b)| z ^ delta.and_bit(b))
        .collect();
    let consts = [Block::random(&mut rng), Block::random(&mut rng)];
    let mut g = Garbler::new(AnyHash::new(hash, hseed), delta);
    let mut e = Evaluator::new(AnyHash::new(hash, hseed));
    g.start(c, &zero, consts);
    e.start(c, &active, [consts[0], consts[1] ^ delta]);
    let mut evaluated = e.evaluate(c.body(), &[]).1;
    loop {
        let mut tables = Vec::new();
        let done = g.garble(c.body(), &mut tables, frame);
        if !evaluated {
            let (used, done) = e.evaluate(c.body(), &tables);
            assert_eq!(used, tables.len(), "frames hold whole AND groups");
            evaluated = done;
        }
        if done {
            break;
        }
    }
    assert!(evaluated);
    let out = e.output_labels(c);
    let zeros = g.output_zero_labels(c);
    // Each active output label is the zero-label or the zero-label ⊕ Δ, nothing else.
    for (l, z) in out.iter().zip(&zeros) {
        assert!(
            *l == *z || *l == *z ^ delta,
            "evaluator label is not a valid label"
        );
    }
    out.iter().zip(&zeros).map(|(l, z)| l.lsb() ^ z.lsb()).collect()
}

fn check(c: &Circuit, rng: &mut impl Rng, hash: HashKind) {
    let compiled = compile(c);
    let inputs: Vec<Vec<bool>> = c
        .input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.gen()).collect())
        .collect();
    let want = c.eval_plain(&inputs).unwrap().concat();
    let frame = rng.gen_range(1..64);
    assert_eq!(
        garble_and_eval(&compiled, &inputs.concat(), hash, frame, rng.gen()),
        want
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_circuits_garble_correctly(seed: u64, gates in 1usize..300, w1 in 1u32..16, w2 in 0u32..16) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let c = Circuit::random(&mut rng, &[w1, w2], gates, 6);
        check(&c, &mut rng, HashKind::Tccr);
        check(&c, &mut rng, HashKind::Rekeyed);
    }
}

#[test]
fn every_shipped_circuit_garbles_correctly() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits");
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "txt") {
            let c = bristol::read_file(&path).unwrap();
            check(&c, &mut rng, HashKind::Tccr);
            seen += 1;
        }
    }
    assert!(seen >= 4, "expected the shipped circuits in {}", dir.display());
}

/// The test's copy of the half-gates rows (T_G, T_E) of one AND with zero-labels
/// (A⁰, B⁰), hashed under tweaks (j, j') (Zahur–Rosulek–Evans, ePrint 2014/756, Fig. 2):
/// the real garbler's rows with the real tweaks, a flawed variant with others.
fn half_gate_rows(
    hash: &AnyHash,
    delta: Block,
    (a0, b0): (Block, Block),
    (j, j1): (Block, Block),
) -> (Block, Block) {
    let tg = hash.hash(a0, j) ^ hash.hash(a0 ^ delta, j) ^ delta.and_bit(b0.lsb());
    let te = hash.hash(b0, j1) ^ hash.hash(b0 ^ delta, j1) ^ a0;
    (tg, te)
}

/// The garbler's tweaks (2g, 2g + 1) of AND gate `g`, in the half-gates domain (bit 64).
fn half_gate_tweaks(g: u64) -> (Block, Block) {
    let j = (1u128 << 64) | (2 * g as u128);
    (Block::from_u128(j), Block::from_u128(j + 1))
}

/// `b` with its colour bit set to `colour`.
fn with_colour(b: Block, colour: bool) -> Block {
    b ^ Block::from_u128(u128::from(b.lsb() != colour))
}

/// AND(x, x) and AND(x, ¬x): the evaluator holds one label A for both inputs (NOT is a free
/// label copy), so with one tweak for both halves the four hashes cancel in T_G ⊕ T_E and
/// T_G ⊕ T_E ⊕ A = p_b·Δ ⊕ x·Δ is Δ whenever p_b ≠ x. Every colour p_a and input x is
/// garbled, so the flawed variant provably leaks in some case of each gate and input; the
/// real garbler (tweaks 2g, 2g + 1) leaks in none.
#[test]
fn and_of_a_wire_with_itself_or_its_negation_does_not_leak_delta() {
    let hash = AnyHash::new(HashKind::Tccr, Block::ZERO);
    let mut rng = rand::rngs::StdRng::seed_from_u64(10);
    let mut flawed_leaks = Vec::new();
    for negated in [false, true] {
        // inputs: x (1 bit); w1 = ¬x or x (EQW); out = x & w1
        let text = if negated {
            "2 3\n1 1\n1 1\n\n1 1 0 1 INV\n2 1 0 1 2 AND\n"
        } else {
            "1 2\n1 1\n1 1\n\n2 1 0 0 1 AND\n"
        };
        let compiled = compile(&bristol::parse(text, "selfand").unwrap());
        let gate = if negated { "AND(x, ¬x)" } else { "AND(x, x)" };
        for (p_a, x) in [(false, false), (false, true), (true, false), (true, true)] {
            let delta = Block::random(&mut rng).with_lsb_set();
            let a0 = with_colour(Block::random(&mut rng), p_a);
            let b0 = if negated { a0 ^ delta } else { a0 };
            let mut g = Garbler::new(hash.clone(), delta);
            g.start(&compiled, &[a0], [Block::ZERO; 2]);
            let mut tables = Vec::new();
            g.garble(compiled.body(), &mut tables, usize::MAX);
            assert_eq!(tables.len(), 2, "{gate}: one AND");
            let (tg, te) = (tables[0], tables[1]);
            assert_eq!(
                (tg, te),
                half_gate_rows(&hash, delta, (a0, b0), half_gate_tweaks(0)),
                "{gate}: the test's rows are the garbler's"
            );
            let a = a0 ^ delta.and_bit(x);
            // The flawed variant: the garbler half's tweak for both halves.
            let (j, _) = half_gate_tweaks(0);
            let (fg, fe) = half_gate_rows(&hash, delta, (a0, b0), (j, j));
            let leaks = b0.lsb() != x;
            assert_eq!(fg ^ fe ^ a, delta.and_bit(leaks), "{gate}, p_a = {p_a}, x = {x}");
            flawed_leaks.push((negated, x, leaks));
            for v in [tg, te, tg ^ te, tg ^ te ^ a, tg ^ a, te ^ a] {
                assert_ne!(v, delta, "{gate} leaks Δ (p_a = {p_a}, x = {x})");
                assert_ne!(v, Block::ZERO);
            }
            let out = garble_and_eval(&compiled, &[x], HashKind::Tccr, usize::MAX, 3);
            assert_eq!(out, vec![x && (x ^ negated)]);
        }
    }
    // The attack succeeds once per gate and input (at the colour where p_b ≠ x).
    for negated in [false, true] {
        for x in [false, true] {
            let cases = flawed_leaks.iter().filter(|&&(n, v, _)| (n, v) == (negated, x));
            assert_eq!(cases.filter(|c| c.2).count(), 1, "negated = {negated}, x = {x}");
        }
    }
}

/// Tweaks never repeat: garbling the same circuit twice in one session gives fresh tables.
#[test]
fn tweaks_continue_across_circuits() {
    let c = compile(&bristol::parse("1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n", "and").unwrap());
    let delta = Block::from_u128(3);
    let mut g = Garbler::new(AnyHash::new(HashKind::Tccr, Block::ZERO), delta);
    let zero = [Block::from_u128(100), Block::from_u128(200)];
    let mut t1 = Vec::new();
    g.start(&c, &zero, [Block::ZERO; 2]);
    g.garble(c.body(), &mut t1, usize::MAX);
    let mut t2 = Vec::new();
    g.start(&c, &zero, [Block::ZERO; 2]);
    g.garble(c.body(), &mut t2, usize::MAX);
    assert_eq!(g.ands_garbled(), 2);
    assert_ne!(t1, t2, "same labels, different gate index: tables must differ");
}
