//! The lift of Boolean labels to ring labels mod 2^k, the primitive of the conversions
//! (the CRT bit composition and decomposition built on it are `mixgc_program`'s gadgets,
//! tested label by label in `mixgc-session`'s `tests/convert.rs`): values and exact labels,
//! rows that never reveal Δ, one gate per lift, malformed tables.

mod common;

use common::*;
use mixgc_arith::{
    ring_row_bytes, ring_row_digits, ArithError, ArithEvaluator, ArithGarbler, Modulus, RingLabel,
    TableReader,
};
use mixgc_core::{Block, Rng};
use rand::Rng as _;

fn boolean_delta(garbler: &mut ArithGarbler) -> Block {
    garbler.delta(Modulus::BOOLEAN).to_block().unwrap()
}

/// Fresh Boolean zero-labels and the active labels of the bits of `x`.
fn boolean_inputs(
    garbler: &mut ArithGarbler,
    x: u128,
    width: u32,
    rng: &mut Rng,
) -> (Vec<Block>, Vec<Block>) {
    let delta = boolean_delta(garbler);
    let zeros: Vec<Block> = (0..width).map(|_| Block::random(rng)).collect();
    let active = zeros
        .iter()
        .enumerate()
        .map(|(i, &z)| if (x >> i) & 1 == 1 { z ^ delta } else { z })
        .collect();
    (zeros, active)
}

/// The value of a ring output, checking the active label is exactly W^0 + x·Δ_{2^k}.
fn ring_value(garbler: &mut ArithGarbler, zero: &RingLabel, active: &RingLabel) -> u128 {
    let x = ArithEvaluator::decode_ring(active, ArithGarbler::ring_decoding(zero));
    assert_eq!(&garbler.encode_ring(zero, x).unwrap(), active);
    x
}

#[test]
fn lifts_match_plaintext() {
    let (mut garbler, mut evaluator, mut rng) = session(21);
    for k in (1..=20).chain([31, 32, 33, 63, 64, 65, 69, 100, 127, 128]) {
        for x in [0, 1] {
            let (zeros, active) = boolean_inputs(&mut garbler, x, 1, &mut rng);
            let mut rows = Vec::new();
            let before = garbler.table_rows();
            let zero = garbler.lift(zeros[0], k, &mut rows).unwrap();
            let mut tables = TableReader::new(&rows);
            let out = evaluator.lift(active[0], k, &mut tables).unwrap();
            tables.finish().unwrap();
            assert_eq!(ring_value(&mut garbler, &zero, &out), x, "k = {k}");
            // Its low digit bits are the Boolean label itself; one row of k − 1 bits.
            assert_eq!(zero.slice(0), zeros[0]);
            assert_eq!(garbler.table_rows() - before, u64::from(k - 1));
            assert_eq!(rows.len(), ring_row_bytes(k - 1).min(16 * (k as usize - 1)));
        }
    }
}

#[test]
fn bad_arguments_are_errors() {
    let (mut garbler, mut evaluator, _) = session(28);
    let mut rows = Vec::new();
    for k in [0, 129] {
        assert_eq!(
            garbler.lift(Block::ZERO, k, &mut rows),
            Err(ArithError::RingBits(k))
        );
        let mut tables = TableReader::new(&[]);
        assert_eq!(
            evaluator.lift(Block::ZERO, k, &mut tables),
            Err(ArithError::RingBits(k))
        );
    }
    let ring = garbler.new_ring_wire(8).unwrap();
    assert!(garbler.encode_ring(&ring, 256).is_err());
    assert!(rows.is_empty(), "failed calls garble nothing");
}

#[test]
fn malformed_tables_are_errors_never_panics() {
    let (mut garbler, _, mut rng) = session(29);
    let key = garbler.session_key();
    let fresh = move || ArithEvaluator::new(key);
    let bit = Block::random(&mut rng);
    let mut rows = Vec::new();
    garbler.lift(bit, 12, &mut rows).unwrap();
    let run = |bytes: &[u8]| -> Result<RingLabel, ArithError> {
        let mut tables = TableReader::new(bytes);
        let ring = fresh().lift(bit, 12, &mut tables)?;
        tables.finish().map(|()| ring)
    };
    assert!(run(&rows).is_ok());
    assert!(matches!(
        run(&rows[..rows.len() - 3]),
        Err(ArithError::TruncatedTable { .. })
    ));
    assert!(matches!(run(&[]), Err(ArithError::TruncatedTable { .. })));
    let mut longer = rows.clone();
    longer.push(0);
    assert_eq!(run(&longer).map(drop), Err(ArithError::TrailingTable(1)));
    // Random bytes of the right length: some label, never a panic.
    for _ in 0..20 {
        let noise: Vec<u8> = (0..rows.len()).map(|_| rng.gen()).collect();
        let _ = run(&noise);
    }
}

#[test]
fn ring_offsets_nest_and_extend_the_boolean_offset() {
    let (mut garbler, _, _) = session(30);
    let boolean = boolean_delta(&mut garbler);
    let master = garbler.ring_delta(128).unwrap();
    assert_eq!(master.colour(), 1);
    assert_eq!(master.slice(0), boolean);
    for k in [1u32, 2, 17, 64, 65, 127] {
        assert_eq!(garbler.ring_delta(k).unwrap(), master.truncate(k).unwrap());
    }
    assert_eq!(garbler.ring_delta(0), Err(ArithError::RingBits(0)));
}

/// The ring rows of a garbled table, in order, of the given digit widths: (k, digits).
fn ring_rows(bytes: &[u8], widths: &[u32]) -> Vec<(u32, Vec<u128>)> {
    let mut offset = 0;
    let rows = widths
        .iter()
        .map(|&bits| {
            let len = ring_row_bytes(bits);
            offset += len;
            (bits, ring_row_digits(bits, &bytes[offset - len..offset]).unwrap())
        })
        .collect();
    assert_eq!(offset, bytes.len());
    rows
}

/// Whether the row (k, digits) is c·Δ_{2^k} for some c (Δ's colour digit is 1: only
/// c = digit 0 can be).
fn is_ring_multiple(garbler: &mut ArithGarbler, (bits, digits): &(u32, Vec<u128>)) -> bool {
    digits[..] == *garbler.ring_delta(*bits).unwrap().scale(digits[0]).digits()
}

#[test]
fn conversion_rows_never_reveal_delta() {
    let (mut garbler, _, mut rng) = session(31);
    for k in [2u32, 3, 9, 16, 64, 70] {
        // The lifts of a decomposition: lift i of fresh bits sends one row of k − i − 1 bits.
        let mut rows = Vec::new();
        for i in 0..k - 1 {
            garbler.lift(Block::random(&mut rng), k - i, &mut rows).unwrap();
        }
        let widths: Vec<u32> = (0..k - 1).map(|i| k - i - 1).collect();
        for row in ring_rows(&rows, &widths) {
            assert!(!is_ring_multiple(&mut garbler, &row), "k = {k}");
        }
        // One Boolean wire lifted several times (rows of k − 1 bits): no row, sum or
        // difference of two rows is a multiple of Δ.
        if k > 1 {
            let bit = Block::random(&mut rng);
            let mut rows = Vec::new();
            for _ in 0..4 {
                garbler.lift(bit, k, &mut rows).unwrap();
            }
            let rows = ring_rows(&rows, &[k - 1; 4]);
            for (i, a) in rows.iter().enumerate() {
                assert!(!is_ring_multiple(&mut garbler, a));
                for b in &rows[i + 1..] {
                    assert_ne!(a, b, "a repeated tweak would repeat the row");
                    for c in [1, u128::MAX] {
                        // a + c·b mod 2^(k−1), digit by digit.
                        let mask = u128::MAX >> (128 - a.0);
                        let sum =
                            a.1.iter()
                                .zip(&b.1)
                                .map(|(&x, &y)| x.wrapping_add(c.wrapping_mul(y)) & mask);
                        assert!(!is_ring_multiple(&mut garbler, &(a.0, sum.collect())));
                    }
                }
            }
        }
    }
}

#[test]
fn every_lift_takes_its_own_gate() {
    let (mut garbler, mut evaluator, mut rng) = session(32);
    let (zeros, active) = boolean_inputs(&mut garbler, 0b101, 3, &mut rng);
    let mut rows = Vec::new();
    for (&bit, k) in zeros.iter().zip([10, 10, 1]) {
        garbler.lift(bit, k, &mut rows).unwrap();
    }
    // A lift to one bit is the Boolean label itself: no gate.
    assert_eq!(garbler.gates_garbled(), 2);
    // The evaluator follows the same gate indices.
    let mut tables = TableReader::new(&rows);
    for (&bit, k) in active.iter().zip([10, 10, 1]) {
        evaluator.lift(bit, k, &mut tables).unwrap();
    }
    tables.finish().unwrap();
    assert_eq!(evaluator.gates_evaluated(), 2);
}
