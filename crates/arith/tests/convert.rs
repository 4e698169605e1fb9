//! Boolean ↔ arithmetic conversions against plaintext: mod-2^k bit composition and
//! decomposition, CRT composition and decomposition, round trips, malformed tables.

mod common;

use common::*;
use mixgc_arith::primes::min_sum_primes;
use mixgc_arith::{
    ring_row_bytes, ring_row_digits, ArithError, ArithEvaluator, ArithGarbler, Modulus, PrimeSet, RingLabel,
    TableReader,
};
use mixgc_core::{Block, Rng};
use rand::Rng as _;

/// 2^bits − 1.
fn mask(bits: u32) -> u128 {
    u128::MAX >> (128 - bits)
}

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

/// The value of Boolean outputs, checking every active label is exactly W^0 ⊕ x_i·Δ.
fn boolean_value(garbler: &mut ArithGarbler, zeros: &[Block], active: &[Block]) -> u128 {
    let delta = boolean_delta(garbler);
    assert_eq!(zeros.len(), active.len());
    zeros
        .iter()
        .zip(active)
        .enumerate()
        .fold(0u128, |acc, (i, (&z, &a))| {
            let bit = a != z;
            assert!(a == z || a == z ^ delta, "bit {i}: not a label of the wire");
            acc | (bit as u128) << i
        })
}

/// The value of a ring output, checking the active label is exactly W^0 + x·Δ_{2^k}.
fn ring_value(garbler: &mut ArithGarbler, zero: &RingLabel, active: &RingLabel) -> u128 {
    let x = ArithEvaluator::decode_ring(active, ArithGarbler::ring_decoding(zero));
    assert_eq!(&garbler.encode_ring(zero, x).unwrap(), active);
    x
}

fn random_below(bound: u128, rng: &mut Rng) -> u128 {
    rng.gen::<u128>() % bound
}

#[test]
fn bit_composition_matches_plaintext() {
    let (mut garbler, mut evaluator, mut rng) = session(21);
    for k in (1..=20).chain([31, 32, 33, 63, 64, 65, 69, 100, 127, 128]) {
        for round in 0..4 {
            // Plain composition (weights 2^j, k bits), then random weights into Z_{2^k}.
            let (width, weights): (u32, Vec<u128>) = if round < 2 {
                (k, (0..k).map(|j| 1u128 << j).collect())
            } else {
                let w = rng.gen_range(1..=12);
                (
                    w,
                    (0..w).map(|_| rng.gen::<u128>() << rng.gen_range(0..8)).collect(),
                )
            };
            let x = random_below(mask(width), &mut rng) + (round == 1) as u128;
            let x = x & mask(width);
            let (zeros, active) = boolean_inputs(&mut garbler, x, width, &mut rng);
            let mut rows = Vec::new();
            let before = garbler.table_rows();
            let zero = garbler.compose_bits(&zeros, &weights, k, &mut rows).unwrap();
            let mut tables = TableReader::new(&rows);
            let out = evaluator.compose_bits(&active, &weights, k, &mut tables).unwrap();
            tables.finish().unwrap();
            let expected = (0..width)
                .filter(|j| (x >> j) & 1 == 1)
                .fold(0u128, |s, j| s.wrapping_add(weights[j as usize]))
                & mask(k);
            assert_eq!(
                ring_value(&mut garbler, &zero, &out),
                expected,
                "k = {k}, x = {x}"
            );
            if round < 2 {
                // Plain composition: bit j costs k − j − 1 rows; 16 bytes per row.
                assert_eq!(garbler.table_rows() - before, u64::from(k * (k - 1) / 2));
                assert_eq!(rows.len() as u64, 16 * u64::from(k * (k - 1) / 2));
            }
        }
    }
}

#[test]
fn bit_decomposition_matches_plaintext() {
    let (mut garbler, mut evaluator, mut rng) = session(22);
    for k in (1..=20).chain([31, 32, 33, 63, 64, 65, 69, 100, 127, 128]) {
        let edges = [0, 1, mask(k), mask(k) >> 1, 1u128 << (k - 1)];
        let randoms: Vec<u128> = (0..4).map(|_| rng.gen::<u128>() & mask(k)).collect();
        for x in edges.into_iter().chain(randoms) {
            for count in [k, 1 + (k - 1) / 2] {
                let zero = garbler.new_ring_wire(k).unwrap();
                let active = garbler.encode_ring(&zero, x).unwrap();
                let mut rows = Vec::new();
                let before = garbler.table_rows();
                let zeros = garbler.bit_decompose(&zero, count, &mut rows).unwrap();
                let mut tables = TableReader::new(&rows);
                let bits = evaluator.bit_decompose(&active, count, &mut tables).unwrap();
                tables.finish().unwrap();
                assert_eq!(
                    boolean_value(&mut garbler, &zeros, &bits),
                    x & mask(count),
                    "k = {k}, x = {x}, count = {count}"
                );
                assert_eq!(garbler.table_rows() - before, u64::from(count * (count - 1) / 2));
            }
        }
    }
}

#[test]
fn ring_round_trips() {
    let (mut garbler, mut evaluator, mut rng) = session(23);
    for k in [2u32, 7, 64, 70, 128] {
        let x = rng.gen::<u128>() & mask(k);
        let (zeros, active) = boolean_inputs(&mut garbler, x, k, &mut rng);
        let weights: Vec<u128> = (0..k).map(|j| 1u128 << j).collect();
        let mut rows = Vec::new();
        let ring0 = garbler.compose_bits(&zeros, &weights, k, &mut rows).unwrap();
        let bits0 = garbler.bit_decompose(&ring0, k, &mut rows).unwrap();
        let mut tables = TableReader::new(&rows);
        let ring = evaluator.compose_bits(&active, &weights, k, &mut tables).unwrap();
        let bits = evaluator.bit_decompose(&ring, k, &mut tables).unwrap();
        tables.finish().unwrap();
        assert_eq!(boolean_value(&mut garbler, &bits0, &bits), x);
    }
}

/// The garbler's zero bundle, its encoding of x, and the garbled CRT decomposition.
fn crt_decompose_once(
    garbler: &mut ArithGarbler,
    evaluator: &mut ArithEvaluator,
    set: &PrimeSet,
    x: u128,
) -> (Vec<Block>, Vec<Block>) {
    let zero = garbler.new_bundle(set);
    let active = garbler.encode_bundle(&zero, x).unwrap();
    let mut rows = Vec::new();
    let zeros = garbler.crt_decompose(&zero, &mut rows).unwrap();
    let mut tables = TableReader::new(&rows);
    let bits = evaluator.crt_decompose(&active, &mut tables).unwrap();
    tables.finish().unwrap();
    (zeros, bits)
}

fn bit_len(v: u128) -> u32 {
    128 - v.leading_zeros()
}

#[test]
fn crt_composition_matches_plaintext() {
    let (mut garbler, mut evaluator, mut rng) = session(24);
    for width in 1..=64 {
        let set = min_sum_primes(width).unwrap();
        let n = set.product();
        let edges = [0, 1, mask(width), mask(width) >> 1];
        let randoms: Vec<u128> = (0..3).map(|_| rng.gen::<u128>() & mask(width)).collect();
        for x in edges.into_iter().chain(randoms) {
            let (zeros, active) = boolean_inputs(&mut garbler, x, width, &mut rng);
            let mut rows = Vec::new();
            let zero = garbler.crt_compose(&zeros, &set, &mut rows).unwrap();
            let mut tables = TableReader::new(&rows);
            let bundle = evaluator.crt_compose(&active, &set, &mut tables).unwrap();
            tables.finish().unwrap();
            let value =
                ArithEvaluator::decode_bundle(&bundle, &ArithGarbler::bundle_decoding(&zero)).unwrap();
            assert_eq!(value, x % n, "width {width}");
            // The bundle's labels are exactly the garbler's encoding.
            assert_eq!(garbler.encode_bundle(&zero, x % n).unwrap(), bundle);
        }
    }
}

#[test]
fn crt_decomposition_matches_plaintext() {
    let (mut garbler, mut evaluator, mut rng) = session(25);
    for width in (1..=64).chain([80, 100, 120]) {
        let set = min_sum_primes(width).unwrap();
        let n = set.product();
        let edges = [0, 1, n - 1, n / 2, mask(width).min(n - 1)];
        let randoms: Vec<u128> = (0..3).map(|_| random_below(n, &mut rng)).collect();
        for x in edges.into_iter().chain(randoms) {
            let (zeros, bits) = crt_decompose_once(&mut garbler, &mut evaluator, &set, x);
            assert_eq!(zeros.len() as u32, bit_len(n - 1), "width {width}");
            assert_eq!(
                boolean_value(&mut garbler, &zeros, &bits),
                x,
                "width {width}, x = {x}"
            );
        }
    }
}

#[test]
fn crt_decomposition_of_other_prime_sets() {
    let (mut garbler, mut evaluator, mut rng) = session(26);
    // A single prime, sets without 2, and the largest prime a wire may use.
    for primes in [
        &[2u64][..],
        &[3],
        &[251],
        &[3, 5, 7],
        &[2, 65_521],
        &[5, 7, 11, 13],
    ] {
        let set = PrimeSet::new(primes).unwrap();
        let n = set.product();
        for x in [0, n - 1, random_below(n, &mut rng)] {
            let (zeros, bits) = crt_decompose_once(&mut garbler, &mut evaluator, &set, x);
            assert_eq!(
                boolean_value(&mut garbler, &zeros, &bits),
                x,
                "{primes:?}, x = {x}"
            );
        }
    }
}

#[test]
fn crt_round_trips_through_arithmetic() {
    // Boolean → bundle → x·y + 5 in Z_N → Boolean.
    let (mut garbler, mut evaluator, mut rng) = session(27);
    for width in [3u32, 8, 16, 32] {
        let set = min_sum_primes(width).unwrap();
        let n = set.product();
        let (x, y) = (rng.gen::<u128>() & mask(width), rng.gen::<u128>() & mask(width));
        let (zx, ax) = boolean_inputs(&mut garbler, x, width, &mut rng);
        let (zy, ay) = boolean_inputs(&mut garbler, y, width, &mut rng);
        let mut rows = Vec::new();
        let bx0 = garbler.crt_compose(&zx, &set, &mut rows).unwrap();
        let by0 = garbler.crt_compose(&zy, &set, &mut rows).unwrap();
        let product0 = garbler.mul_bundle(&bx0, &by0, &mut rows).unwrap();
        let five0 = garbler.new_bundle(&set);
        let five = garbler.encode_bundle(&five0, 5).unwrap();
        let z0 = garbler
            .crt_decompose(&product0.add(&five0).unwrap(), &mut rows)
            .unwrap();
        let mut tables = TableReader::new(&rows);
        let bx = evaluator.crt_compose(&ax, &set, &mut tables).unwrap();
        let by = evaluator.crt_compose(&ay, &set, &mut tables).unwrap();
        let product = evaluator.mul_bundle(&bx, &by, &mut tables).unwrap();
        let z = evaluator
            .crt_decompose(&product.add(&five).unwrap(), &mut tables)
            .unwrap();
        tables.finish().unwrap();
        let expected = (x * y + 5) % n;
        assert_eq!(boolean_value(&mut garbler, &z0, &z), expected, "width {width}");
    }
}

#[test]
fn bad_arguments_are_errors() {
    let (mut garbler, mut evaluator, mut rng) = session(28);
    let (zeros, _) = boolean_inputs(&mut garbler, 0, 3, &mut rng);
    let mut rows = Vec::new();
    assert!(matches!(
        garbler.compose_bits(&zeros, &[1, 2], 4, &mut rows),
        Err(ArithError::Conversion(_))
    ));
    assert_eq!(
        garbler.compose_bits(&zeros, &[1, 2, 4], 0, &mut rows),
        Err(ArithError::RingBits(0))
    );
    assert_eq!(
        garbler.compose_bits(&zeros, &[1, 2, 4], 129, &mut rows),
        Err(ArithError::RingBits(129))
    );
    let ring = garbler.new_ring_wire(8).unwrap();
    for count in [0, 9] {
        assert!(matches!(
            garbler.bit_decompose(&ring, count, &mut rows),
            Err(ArithError::Conversion(_))
        ));
    }
    assert!(garbler.encode_ring(&ring, 256).is_err());
    assert!(matches!(
        garbler.crt_compose(&[], &PrimeSet::new(&[3]).unwrap(), &mut rows),
        Err(ArithError::Conversion(_))
    ));
    // The CRT sum of the 127-bit primes needs more than 128 bits.
    let wide = garbler.new_bundle(&min_sum_primes(127).unwrap());
    assert!(matches!(
        garbler.crt_decompose(&wide, &mut rows),
        Err(ArithError::Conversion(_))
    ));
    assert!(rows.is_empty(), "failed calls garble nothing");
    let mut tables = TableReader::new(&[]);
    assert!(evaluator.bit_decompose(&ring, 9, &mut tables).is_err());
}

#[test]
fn malformed_tables_are_errors_never_panics() {
    let (mut garbler, _, mut rng) = session(29);
    let set = min_sum_primes(16).unwrap();
    let zero = garbler.new_bundle(&set);
    let active = garbler.encode_bundle(&zero, 12_345).unwrap();
    let mut rows = Vec::new();
    garbler.crt_decompose(&zero, &mut rows).unwrap();
    let key = garbler.session_key();
    let fresh = move || ArithEvaluator::new(key);
    let run = |bytes: &[u8]| -> Result<Vec<Block>, ArithError> {
        let mut tables = TableReader::new(bytes);
        let bits = fresh().crt_decompose(&active, &mut tables)?;
        tables.finish().map(|()| bits)
    };
    assert!(run(&rows).is_ok());
    assert!(matches!(
        run(&rows[..rows.len() - 1]),
        Err(ArithError::TruncatedTable { .. })
    ));
    assert!(matches!(run(&[]), Err(ArithError::TruncatedTable { .. })));
    let mut longer = rows.clone();
    longer.push(0);
    assert_eq!(run(&longer), Err(ArithError::TrailingTable(1)));
    // Random bytes of the right length: an error or some labels, never a panic.
    for _ in 0..20 {
        let noise: Vec<u8> = (0..rows.len()).map(|_| rng.gen()).collect();
        let _ = run(&noise);
    }
    // Truncated ring rows in a plain decomposition.
    let ring = garbler.new_ring_wire(12).unwrap();
    let mut rows = Vec::new();
    garbler.bit_decompose(&ring, 12, &mut rows).unwrap();
    let mut tables = TableReader::new(&rows[..rows.len() - 3]);
    let active = garbler.encode_ring(&ring, 7).unwrap();
    assert!(matches!(
        fresh().bit_decompose(&active, 12, &mut tables),
        Err(ArithError::TruncatedTable { .. })
    ));
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
        // Decomposition: lift i sends one row of k − i − 1 bits.
        let ring = garbler.new_ring_wire(k).unwrap();
        let mut rows = Vec::new();
        garbler.bit_decompose(&ring, k, &mut rows).unwrap();
        let widths: Vec<u32> = (0..k - 1).map(|i| k - i - 1).collect();
        for row in ring_rows(&rows, &widths) {
            assert!(!is_ring_multiple(&mut garbler, &row), "k = {k}");
        }
        // Composition of one Boolean wire several times (weight 1: rows of k − 1 bits):
        // no row, sum or difference of two rows is a multiple of Δ.
        if k > 1 {
            let bit = Block::random(&mut rng);
            let mut rows = Vec::new();
            garbler.compose_bits(&[bit; 4], &[1; 4], k, &mut rows).unwrap();
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
    let k = 10;
    let ring = garbler.new_ring_wire(k).unwrap();
    let active = garbler.encode_ring(&ring, 777).unwrap();
    let mut rows = Vec::new();
    let before = garbler.gates_garbled();
    garbler.bit_decompose(&ring, k, &mut rows).unwrap();
    assert_eq!(garbler.gates_garbled() - before, u64::from(k - 1));
    // Weights with trailing zeros k − 1 need no lift (the Boolean label is the low slice),
    // the others one gate each.
    let (zeros, _) = boolean_inputs(&mut garbler, 0, 3, &mut rng);
    let before = garbler.gates_garbled();
    garbler
        .compose_bits(&zeros, &[1, 1 << (k - 1), 1 << k], k, &mut rows)
        .unwrap();
    assert_eq!(garbler.gates_garbled() - before, 1);
    // The evaluator follows the same gate indices.
    let mut tables = TableReader::new(&rows);
    evaluator.bit_decompose(&active, k, &mut tables).unwrap();
    assert_eq!(evaluator.gates_evaluated(), u64::from(k - 1));
}
