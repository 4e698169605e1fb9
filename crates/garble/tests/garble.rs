//! Garbled evaluation equals plaintext evaluation; the half-gates rows hide Δ.

use mixgc_circuit::{bristol, Circuit};
use mixgc_compile::{compile, CompiledCircuit};
use mixgc_core::{AnyHash, Block, HashKind};
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

/// Regression (`docs/security.md`, "Tweaks"): AND(x, x) and AND(x, ¬x). With one tweak for
/// both halves the evaluator could combine the rows into Δ. With tweaks 2g, 2g+1 the two
/// hashes differ, so neither row nor their XOR equals Δ or a Δ-dependent value the
/// evaluator can compute.
#[test]
fn and_of_a_wire_with_itself_or_its_negation_does_not_leak_delta() {
    for negated in [false, true] {
        // inputs: x (1 bit); w1 = ¬x or x (EQW); out = x & w1
        let text = if negated {
            "2 3\n1 1\n1 1\n\n1 1 0 1 INV\n2 1 0 1 2 AND\n"
        } else {
            "1 2\n1 1\n1 1\n\n2 1 0 0 1 AND\n"
        };
        let c = bristol::parse(text, "selfand").unwrap();
        let compiled = compile(&c);
        for x in [false, true] {
            let mut rng = rand::rngs::StdRng::seed_from_u64(x as u64 + 10 * negated as u64);
            let delta = Block::random(&mut rng).with_lsb_set();
            let zero = [Block::random(&mut rng)];
            let mut g = Garbler::new(AnyHash::new(HashKind::Tccr, Block::ZERO), delta);
            g.start(&compiled, &zero, [Block::ZERO; 2]);
            let mut tables = Vec::new();
            g.garble(compiled.body(), &mut tables, usize::MAX);
            let (tg, te) = (tables[0], tables[1]);
            // The evaluator holds one label A for both inputs (NOT is a free label copy).
            // With a single tweak for both halves, T_G ⊕ T_E ⊕ A would be p_b·Δ or
            // p_b·Δ ⊕ Δ: Δ itself in about half of such gates. With 2g and 2g+1 it is not.
            let a = zero[0] ^ delta.and_bit(x);
            for v in [tg, te, tg ^ te, tg ^ te ^ a, tg ^ a, te ^ a] {
                assert_ne!(v, delta, "AND(x, {}x) leaks Δ", if negated { "¬" } else { "" });
                assert_ne!(v, Block::ZERO);
            }
            let out = garble_and_eval(&compiled, &[x], HashKind::Tccr, usize::MAX, 3);
            assert_eq!(out, vec![x && (x ^ negated)]);
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
