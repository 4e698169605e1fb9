//! Known answers for the shipped Bristol circuits, through the plaintext evaluator.

use super::common;

use common::{bits, circuits_dir, load, num, reversed};
use mixgc_circuit::bristol::{self, Format};
use mixgc_circuit::values::{parse_hex, to_hex};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const FIPS_KEY: &str = "000102030405060708090a0b0c0d0e0f";
const FIPS_PLAINTEXT: &str = "00112233445566778899aabbccddeeff";
const FIPS_CIPHERTEXT: &str = "69c4e0d86a7b0430d8cdb78070b4c55a";

fn hex(s: &str, width: u32) -> Vec<bool> {
    parse_hex(s, width).unwrap()
}

#[test]
fn every_shipped_file_parses_and_validates() {
    // (file, format, input widths, output widths, gates, ANDs, AND depth)
    let expected = [
        (
            "AES-non-expanded.txt",
            Format::Legacy,
            vec![128, 128],
            vec![128],
            33616,
            6800,
            40,
        ),
        (
            "adder64.txt",
            Format::Fashion,
            vec![64, 64],
            vec![64],
            376,
            63,
            63,
        ),
        (
            "adder_32bit.txt",
            Format::Legacy,
            vec![32, 32],
            vec![33],
            375,
            127,
            63,
        ),
        (
            "aes_128.txt",
            Format::Fashion,
            vec![128, 128],
            vec![128],
            36663,
            6400,
            60,
        ),
        (
            "divide64.txt",
            Format::Fashion,
            vec![64, 64],
            vec![64],
            29926,
            4664,
            4158,
        ),
        (
            "mult64.txt",
            Format::Fashion,
            vec![64, 64],
            vec![64],
            13675,
            4033,
            63,
        ),
        ("neg64.txt", Format::Fashion, vec![64], vec![64], 190, 62, 62),
        (
            "sha256.txt",
            Format::Fashion,
            vec![512, 256],
            vec![256],
            135073,
            22573,
            1607,
        ),
        ("sub64.txt", Format::Fashion, vec![64, 64], vec![64], 439, 63, 63),
        (
            "udivide64.txt",
            Format::Fashion,
            vec![64, 64],
            vec![64],
            16952,
            4285,
            2204,
        ),
        ("zero_equal.txt", Format::Fashion, vec![64], vec![1], 127, 63, 6),
    ];
    let mut found = 0;
    for entry in std::fs::read_dir(circuits_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "txt") {
            let c = bristol::read_file(&path).unwrap_or_else(|e| panic!("{e}"));
            c.validate().unwrap();
            found += 1;
        }
    }
    assert!(found >= expected.len());
    for (name, format, inputs, outputs, gates, ands, depth) in expected {
        let text = std::fs::read_to_string(circuits_dir().join(name)).unwrap();
        assert_eq!(bristol::detect(&text), Some(format), "{name}");
        let c = load(name);
        assert_eq!(c.input_widths, inputs, "{name}");
        assert_eq!(c.output_widths, outputs, "{name}");
        let s = c.stats();
        assert_eq!((s.gates, s.ands, s.and_depth), (gates, ands, depth), "{name}");
        // Outputs are the last wires, in order.
        let total: u32 = c.output_widths.iter().sum();
        let last: Vec<u32> = (c.num_wires - total..c.num_wires).collect();
        assert_eq!(c.output_wires, last, "{name}");
    }
}

#[test]
fn aes_128_fips197() {
    let c = load("aes_128.txt");
    let out = c
        .eval_plain(&[hex(FIPS_KEY, 128), hex(FIPS_PLAINTEXT, 128)])
        .unwrap();
    assert_eq!(to_hex(&out[0]), FIPS_CIPHERTEXT);
    let s = c.stats();
    assert_eq!((s.ands, s.xors, s.nots), (6400, 28176, 2087));
}

/// The legacy AES circuit numbers bits most significant first and takes the plaintext
/// first, the key second.
#[test]
fn aes_non_expanded_fips197_bit_reversed() {
    let c = load("AES-non-expanded.txt");
    let plaintext = reversed(hex(FIPS_PLAINTEXT, 128));
    let key = reversed(hex(FIPS_KEY, 128));
    let out = c.eval_plain(&[plaintext, key]).unwrap();
    assert_eq!(to_hex(&reversed(out[0].clone())), FIPS_CIPHERTEXT);
    assert_eq!(c.stats().ands, 6800);
}

/// SHA-256 compression: input 0 is the 512-bit block as a big-endian integer (first
/// message byte most significant), input 1 the chaining state `H0‖…‖H7` as a
/// big-endian integer; the output is the new state the same way.
#[test]
fn sha256_compression_known_answers() {
    let c = load("sha256.txt");
    let iv = "6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19";
    // Padded empty message.
    let empty = format!("80{}", "0".repeat(126));
    let out = c.eval_plain(&[hex(&empty, 512), hex(iv, 256)]).unwrap();
    assert_eq!(
        to_hex(&out[0]),
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    // Padded "abc": 616263 80 00.. 0018.
    let abc = format!("61626380{}18", "0".repeat(118));
    let out = c.eval_plain(&[hex(&abc, 512), hex(iv, 256)]).unwrap();
    assert_eq!(
        to_hex(&out[0]),
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    );
}

/// Evaluates a two-input 64-bit circuit on `(a, b)` and returns the 64-bit result.
fn eval2(c: &mixgc_circuit::Circuit, a: u64, b: u64) -> u64 {
    num(&c.eval_plain(&[bits(a, 64), bits(b, 64)]).unwrap()[0])
}

fn samples(seed: u64) -> Vec<(u64, u64)> {
    let edges = [0, 1, 2, 7, u64::MAX, i64::MAX as u64, i64::MIN as u64, 1 << 32];
    let mut v: Vec<(u64, u64)> = edges
        .iter()
        .flat_map(|&a| edges.iter().map(move |&b| (a, b)))
        .collect();
    let mut rng = StdRng::seed_from_u64(seed);
    for _ in 0..40 {
        // Vary magnitudes so division sees small and large quotients.
        let a = rng.gen::<u64>() >> rng.gen_range(0..64);
        let b = rng.gen::<u64>() >> rng.gen_range(0..64);
        v.push((a, b));
    }
    v
}

#[test]
fn adder64_sub64_mult64_wrap_mod_2_64() {
    let (add, sub, mul) = (load("adder64.txt"), load("sub64.txt"), load("mult64.txt"));
    for (a, b) in samples(1) {
        assert_eq!(eval2(&add, a, b), a.wrapping_add(b), "{a} + {b}");
        assert_eq!(eval2(&sub, a, b), a.wrapping_sub(b), "{a} - {b}");
        assert_eq!(eval2(&mul, a, b), a.wrapping_mul(b), "{a} * {b}");
    }
}

/// `divide64` is signed division rounding toward zero (`i64::MIN / -1` wraps to
/// `i64::MIN`). Division by zero is not meaningful: for `a >= 0` the circuit gives -1,
/// for negative `a` some other artifact (not asserted).
#[test]
fn divide64_is_signed_division() {
    let c = load("divide64.txt");
    for (a, b) in samples(2) {
        let (sa, sb) = (a as i64, b as i64);
        let got = eval2(&c, a, b) as i64;
        if sb != 0 {
            assert_eq!(got, sa.wrapping_div(sb), "{sa} / {sb}");
        } else if sa >= 0 {
            assert_eq!(got, -1, "{sa} / 0");
        }
    }
}

/// `udivide64` is unsigned division; dividing by zero gives all ones.
#[test]
fn udivide64_is_unsigned_division() {
    let c = load("udivide64.txt");
    for (a, b) in samples(3) {
        let expected = a.checked_div(b).unwrap_or(u64::MAX);
        assert_eq!(eval2(&c, a, b), expected, "{a} / {b}");
    }
}

#[test]
fn neg64_and_zero_equal() {
    let (neg, zero) = (load("neg64.txt"), load("zero_equal.txt"));
    for (a, _) in samples(4) {
        let out = neg.eval_plain(&[bits(a, 64)]).unwrap();
        assert_eq!(num(&out[0]), a.wrapping_neg(), "-{a}");
        let out = zero.eval_plain(&[bits(a, 64)]).unwrap();
        assert_eq!(out[0], vec![a == 0], "{a} == 0");
    }
}

/// The legacy 32-bit adder is least significant bit first (no reversal) and keeps the
/// carry as output bit 32.
#[test]
fn adder_32bit_is_lsb_first_with_carry() {
    let c = load("adder_32bit.txt");
    for (a, b) in samples(5) {
        let (a, b) = (a & 0xffff_ffff, b & 0xffff_ffff);
        let out = c.eval_plain(&[bits(a, 32), bits(b, 32)]).unwrap();
        assert_eq!(num(&out[0]), a + b, "{a} + {b}");
    }
}
