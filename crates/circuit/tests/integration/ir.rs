//! The IR: validation, evaluation, statistics, digest, random circuits.

use mixgc_circuit::{Circuit, CircuitError, GateKind};
use rand::rngs::StdRng;
use rand::SeedableRng;

/// Inputs `[2, 1]` (wires 0-1 and 2); gates: 3 = 0 AND 1, 4 = 3 XOR 2, 5 = NOT 4,
/// 6 = copy 5, 7 = const 1. Output value: [4, 6, 7, 0].
fn sample() -> Circuit {
    Circuit {
        num_wires: 8,
        input_widths: vec![2, 1],
        output_widths: vec![4],
        output_wires: vec![4, 6, 7, 0],
        kind: vec![
            GateKind::And,
            GateKind::Xor,
            GateKind::Not,
            GateKind::Copy,
            GateKind::Const,
        ],
        a: vec![0, 3, 4, 5, 1],
        b: vec![1, 2, 0, 0, 0],
        out: vec![3, 4, 5, 6, 7],
    }
}

#[test]
fn shape_helpers() {
    let c = sample();
    assert_eq!(c.num_gates(), 5);
    assert_eq!(c.total_input_bits(), 3);
    assert_eq!(c.input_wire_ranges(), vec![0..2, 2..3]);
    assert_eq!(Circuit::default().input_wire_ranges(), vec![]);
    assert_eq!(GateKind::ALL.map(|k| k.arity()), [2, 2, 1, 1, 0]);
}

#[test]
fn evaluates_every_gate_kind() {
    let c = sample();
    c.validate().unwrap();
    for x in 0..8u32 {
        let (a0, a1, b) = (x & 1 == 1, x & 2 == 2, x & 4 == 4);
        let out = c.eval_plain(&[vec![a0, a1], vec![b]]).unwrap();
        let w4 = (a0 & a1) ^ b;
        assert_eq!(out, vec![vec![w4, !w4, true, a0]]);
    }
}

#[test]
fn eval_checks_inputs() {
    let c = sample();
    assert_eq!(
        c.eval_plain(&[vec![true, true]]),
        Err(CircuitError::InputCount { expected: 2, got: 1 })
    );
    let e = c.eval_plain(&[vec![true, true], vec![true, false]]).unwrap_err();
    assert_eq!(
        e,
        CircuitError::InputWidth {
            value: 1,
            expected: 1,
            got: 2
        }
    );
    assert_eq!(e.to_string(), "input value 1: expected 1 bits, got 2");
}

#[track_caller]
fn invalid(edit: impl FnOnce(&mut Circuit), expected: CircuitError) {
    let mut c = sample();
    edit(&mut c);
    assert_eq!(c.validate(), Err(expected.clone()));
    assert_eq!(c.eval_plain(&[vec![false; 2], vec![false]]), Err(expected));
    let _ = c.stats(); // never panics
    let _ = c.digest();
}

#[test]
fn validation_errors_name_gate_and_wire() {
    use CircuitError::*;
    invalid(
        |c| {
            c.b.pop();
        },
        LengthMismatch {
            kind: 5,
            a: 5,
            b: 4,
            out: 5,
        },
    );
    invalid(
        |c| c.input_widths = vec![5, 5],
        InputsExceedWires {
            bits: 10,
            num_wires: 8,
        },
    );
    invalid(
        |c| c.output_widths = vec![3],
        OutputWidthMismatch { sum: 3, wires: 4 },
    );
    invalid(
        |c| c.a[1] = 8,
        WireOutOfRange {
            gate: 1,
            wire: 8,
            num_wires: 8,
        },
    );
    invalid(
        |c| c.out[4] = 99,
        WireOutOfRange {
            gate: 4,
            wire: 99,
            num_wires: 8,
        },
    );
    invalid(|c| c.out[0] = 2, WritesInput { gate: 0, wire: 2 });
    invalid(
        |c| c.out[4] = 3,
        WrittenTwice {
            gate: 4,
            wire: 3,
            first: 0,
        },
    );
    invalid(
        |c| c.a[0] = 5,
        NotTopological {
            gate: 0,
            wire: 5,
            writer: 2,
        },
    );
    invalid(
        |c| c.a[2] = 5,
        NotTopological {
            gate: 2,
            wire: 5,
            writer: 2,
        },
    );
    invalid(
        |c| {
            c.num_wires = 9;
            c.b[1] = 8;
        },
        UndefinedWire { gate: 1, wire: 8 },
    );
    invalid(|c| c.a[4] = 2, BadConstant { gate: 4, value: 2 });
    invalid(
        |c| c.output_wires[2] = 8,
        OutputOutOfRange {
            index: 2,
            wire: 8,
            num_wires: 8,
        },
    );
    invalid(
        |c| {
            c.num_wires = 9;
            c.output_wires[3] = 8;
        },
        UndefinedOutput { index: 3, wire: 8 },
    );
}

#[test]
fn unary_gates_ignore_b_and_sparse_wire_ids_work() {
    let mut c = sample();
    c.b[2] = 12345; // unused by NOT
    c.validate().unwrap();
    // Scatter gate outputs over a huge id range (exercises the sparse lookup).
    let mut c = sample();
    c.num_wires = u32::MAX;
    let far = |w: u32| if w >= 3 { w * 400_000_000 } else { w };
    c.out = c.out.iter().map(|&w| far(w)).collect();
    c.a =
        c.a.iter()
            .zip(&c.kind)
            .map(|(&w, k)| if k.arity() > 0 { far(w) } else { w })
            .collect();
    c.b =
        c.b.iter()
            .zip(&c.kind)
            .map(|(&w, k)| if k.arity() > 1 { far(w) } else { w })
            .collect();
    c.output_wires = c.output_wires.iter().map(|&w| far(w)).collect();
    c.validate().unwrap();
    let out = c.eval_plain(&[vec![true, true], vec![false]]).unwrap();
    assert_eq!(
        out,
        sample().eval_plain(&[vec![true, true], vec![false]]).unwrap()
    );
    assert_eq!(c.stats(), sample().stats());
}

#[test]
fn stats_count_kinds_and_and_depth() {
    let s = sample().stats();
    assert_eq!(
        (s.gates, s.ands, s.xors, s.nots, s.copies, s.consts),
        (5, 1, 1, 1, 1, 1)
    );
    assert_eq!(s.and_depth, 1);
    assert_eq!(
        s.to_string(),
        "5 gates (1 AND, 1 XOR, 1 NOT, 1 copy, 1 const), AND depth 1"
    );

    // A chain of ANDs, plus a deeper AND path that does not reach the output.
    let c = Circuit {
        num_wires: 7,
        input_widths: vec![2],
        output_widths: vec![1],
        output_wires: vec![4],
        kind: vec![
            GateKind::And,
            GateKind::And,
            GateKind::Xor,
            GateKind::And,
            GateKind::And,
        ],
        a: vec![0, 2, 3, 4, 5],
        b: vec![1, 1, 0, 4, 5],
        out: vec![2, 3, 4, 5, 6],
    };
    c.validate().unwrap();
    assert_eq!(c.stats().and_depth, 2);
    assert_eq!(Circuit::default().stats().and_depth, 0);
}

#[test]
fn digest_covers_every_field() {
    let base = sample().digest();
    assert_eq!(base, sample().digest());
    let edits: Vec<fn(&mut Circuit)> = vec![
        |c| c.num_wires += 1,
        |c| c.input_widths = vec![1, 2],
        |c| c.output_widths.push(0),
        |c| c.output_wires[0] = 5,
        |c| c.kind[1] = GateKind::And,
        |c| c.a[0] = 2,
        |c| c.b[3] = 1,
        |c| c.out.swap(3, 4),
        // Moving an entry between adjacent arrays changes the digest too.
        |c| {
            let w = c.output_widths.pop().unwrap();
            c.output_wires.insert(0, w);
        },
    ];
    let mut seen = vec![base];
    for edit in edits {
        let mut c = sample();
        edit(&mut c);
        let d = c.digest();
        assert!(!seen.contains(&d));
        seen.push(d);
    }
}

#[test]
fn random_circuits_are_valid_and_cover_the_corner_cases() {
    let mut rng = StdRng::seed_from_u64(42);
    let mut self_and = false;
    let mut output_is_input = false;
    for i in 0..200 {
        let widths = [i % 5, (i / 5) % 3];
        let c = Circuit::random(&mut rng, &widths, (i % 50) as usize, i % 7);
        c.validate().unwrap_or_else(|e| panic!("{e}: {c:?}"));
        assert_eq!(c.output_widths, vec![i % 7]);
        self_and |= (0..c.num_gates()).any(|g| c.kind[g] == GateKind::And && c.a[g] == c.b[g]);
        output_is_input |= c.output_wires.iter().any(|&w| w < c.total_input_bits());
    }
    assert!(self_and && output_is_input);
    // No wires at all, but outputs wanted: a constant is added.
    let c = Circuit::random(&mut rng, &[], 0, 3);
    c.validate().unwrap();
    assert_eq!(c.num_gates(), 1);
    assert_eq!(c.eval_plain(&[]).unwrap()[0].len(), 3);
}
