//! Writing and re-reading circuits preserves what they compute.

use super::common;

use common::load;
use mixgc_circuit::bristol::{self, Format};
use mixgc_circuit::values::{parse_hex, to_hex};
use mixgc_circuit::Circuit;
use proptest::prelude::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn random_inputs(c: &Circuit, rng: &mut StdRng) -> Vec<Vec<bool>> {
    c.input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.gen()).collect())
        .collect()
}

fn fashion(c: &Circuit) -> String {
    let mut buf = Vec::new();
    bristol::write_fashion(c, &mut buf).unwrap();
    String::from_utf8(buf).unwrap()
}

fn legacy(c: &Circuit) -> String {
    let mut buf = Vec::new();
    bristol::write_legacy(c, &mut buf).unwrap();
    String::from_utf8(buf).unwrap()
}

/// The outputs are the last wires, in order, as both formats require.
fn outputs_are_last_wires(c: &Circuit) -> bool {
    let n = c.output_wires.len() as u32;
    c.output_wires.iter().copied().eq(c.num_wires - n..c.num_wires)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn random_circuits_round_trip_through_bristol_fashion(
        seed in any::<u64>(),
        widths in prop::collection::vec(0u32..9, 0..4),
        gates in 0usize..120,
        outputs in 0u32..12,
    ) {
        let mut rng = StdRng::seed_from_u64(seed);
        let c = Circuit::random(&mut rng, &widths, gates, outputs);
        prop_assert_eq!(c.validate(), Ok(()));
        let text = fashion(&c);
        prop_assert_eq!(bristol::detect(&text), Some(Format::Fashion));
        let back = bristol::parse(&text, "roundtrip.txt").map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(outputs_are_last_wires(&back));
        prop_assert_eq!(&back.input_widths, &c.input_widths);
        prop_assert_eq!(&back.output_widths, &c.output_widths);
        prop_assert_eq!(back.stats().ands, c.stats().ands);
        prop_assert_eq!(back.stats().and_depth, c.stats().and_depth);
        for _ in 0..4 {
            let inputs = random_inputs(&c, &mut rng);
            prop_assert_eq!(back.eval_plain(&inputs).unwrap(), c.eval_plain(&inputs).unwrap());
        }
        // Writing is a fixed point once the wires are in Bristol order.
        prop_assert_eq!(fashion(&back), text);
    }

    #[test]
    fn random_circuits_round_trip_through_legacy(
        seed in any::<u64>(),
        w1 in 0u32..9,
        w2 in 0u32..9,
        gates in 0usize..80,
        outputs in 0u32..10,
    ) {
        let mut rng = StdRng::seed_from_u64(seed);
        let c = Circuit::random(&mut rng, &[w1, w2], gates, outputs);
        let text = legacy(&c);
        let back = bristol::parse_as(&text, "roundtrip.txt", Format::Legacy)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        for _ in 0..4 {
            let inputs = random_inputs(&c, &mut rng);
            prop_assert_eq!(back.eval_plain(&inputs).unwrap(), c.eval_plain(&inputs).unwrap());
        }
    }
}

/// The writer numbers internal wires in gate order, so a shipped file may change once,
/// then writing is a fixed point; gates, inputs and outputs never change.
#[test]
fn shipped_files_reach_a_fixed_point_of_the_fashion_writer() {
    for name in ["adder64.txt", "neg64.txt", "zero_equal.txt", "aes_128.txt"] {
        let c = load(name);
        let once = bristol::parse(&fashion(&c), name).unwrap();
        assert!(once.kind == c.kind, "{name}");
        assert!(once.output_wires == c.output_wires, "{name}");
        assert_eq!(once.num_wires, c.num_wires, "{name}");
        let twice = bristol::parse(&fashion(&once), name).unwrap();
        assert!(twice == once, "{name}");
        assert_eq!(twice.digest(), once.digest(), "{name}");
    }
}

#[test]
fn aes_survives_both_writers() {
    let key = parse_hex("000102030405060708090a0b0c0d0e0f", 128).unwrap();
    let pt = parse_hex("00112233445566778899aabbccddeeff", 128).unwrap();
    let c = load("aes_128.txt");
    for text in [fashion(&c), legacy(&c)] {
        let back = bristol::parse(&text, "aes.txt").unwrap();
        let out = back.eval_plain(&[key.clone(), pt.clone()]).unwrap();
        assert_eq!(to_hex(&out[0]), "69c4e0d86a7b0430d8cdb78070b4c55a");
    }
}

#[test]
fn outputs_that_are_inputs_or_repeated_get_copies() {
    // Output value = [input 1, gate output, gate output again, input 0].
    let c = Circuit {
        num_wires: 3,
        input_widths: vec![1, 1],
        output_widths: vec![4],
        output_wires: vec![1, 2, 2, 0],
        kind: vec![mixgc_circuit::GateKind::And],
        a: vec![0],
        b: vec![1],
        out: vec![2],
    };
    let text = fashion(&c);
    assert_eq!(
        text,
        "4 6\n2 1 1\n1 4\n\n2 1 0 1 3 AND\n1 1 1 2 EQW\n1 1 3 4 EQW\n1 1 0 5 EQW\n"
    );
    let back = bristol::parse(&text, "copies.txt").unwrap();
    let out = back.eval_plain(&[vec![true], vec![true]]).unwrap();
    assert_eq!(out, vec![vec![true, true, true, true]]);
    let out = back.eval_plain(&[vec![true], vec![false]]).unwrap();
    assert_eq!(out, vec![vec![false, false, false, true]]);
}

#[test]
fn writers_refuse_what_they_cannot_express() {
    let mut rng = StdRng::seed_from_u64(7);
    let three_inputs = Circuit::random(&mut rng, &[1, 2, 3], 10, 2);
    let e = bristol::write_legacy(&three_inputs, Vec::new()).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    assert!(e.to_string().contains("one or two input values"), "{e}");

    let mut two_outputs = Circuit::random(&mut rng, &[2, 2], 10, 2);
    two_outputs.output_widths = vec![1, 1];
    let e = bristol::write_legacy(&two_outputs, Vec::new()).unwrap_err();
    assert!(e.to_string().contains("exactly one output value"), "{e}");

    let mut broken = Circuit::random(&mut rng, &[2], 10, 2);
    broken.out[3] = 0;
    let e = bristol::write_fashion(&broken, Vec::new()).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
    assert!(e.to_string().contains("invalid circuit"), "{e}");
}
