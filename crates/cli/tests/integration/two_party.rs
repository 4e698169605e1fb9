//! `mixgc run`: two real processes over 127.0.0.1 computing the shipped circuits, with
//! the outputs compared against known answers and native arithmetic.

use super::common;

use common::*;
use rand::Rng;

const FIPS_KEY: &str = "000102030405060708090a0b0c0d0e0f";
const FIPS_PLAINTEXT_UPPER: &str = "00112233445566778899AABBCCDDEEFF";
const FIPS_CIPHERTEXT: &str = "69c4e0d86a7b0430d8cdb78070b4c55a";

fn aes(g_flags: &[&str], e_flags: &[&str], garbler_listens: bool) -> (Output, Output) {
    let aes = circuit("aes_128.txt");
    let mut g = run_args(&aes, "garbler", &["--input", FIPS_KEY]);
    g.extend(g_flags.iter().map(|s| s.to_string()));
    let mut e = run_args(&aes, "evaluator", &["--input", FIPS_PLAINTEXT_UPPER]);
    e.extend(e_flags.iter().map(|s| s.to_string()));
    if garbler_listens {
        pair(&strs(&g), &strs(&e))
    } else {
        let (e_out, g_out) = pair(&strs(&e), &strs(&g));
        (g_out, e_out)
    }
}

fn assert_aes_both_learn(g: &Output, e: &Output) {
    for (who, out) in [("garbler", g), ("evaluator", e)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, format!("{FIPS_CIPHERTEXT}\n"), "{who}: {out:#?}");
        let summary = out
            .stderr
            .lines()
            .find(|l| l.starts_with(&format!("{who}: ")))
            .unwrap_or_else(|| panic!("{who}: no summary line on stderr: {out:#?}"));
        assert!(summary.contains("6,400 ANDs"), "{who}: {summary}");
    }
}

#[test]
fn aes_fips197_garbler_listens() {
    let (g, e) = aes(&[], &[], true);
    assert_aes_both_learn(&g, &e);
}

#[test]
fn aes_fips197_evaluator_listens() {
    let (g, e) = aes(&[], &[], false);
    assert_aes_both_learn(&g, &e);
}

#[test]
fn aes_fips197_rekeyed_hash() {
    let (g, e) = aes(&["--hash", "rekeyed"], &["--hash", "rekeyed"], true);
    assert_aes_both_learn(&g, &e);
}

/// Three-halves garbling end to end: AES-128 on the FIPS-197 vector and a 64-bit sum, with
/// known answers, over fewer table bytes than half-gates.
#[test]
fn three_halves_gives_known_answers() {
    let th = ["--garbling", "three-halves"];
    let (g, e) = aes(&th, &th, true);
    assert_aes_both_learn(&g, &e);
    let (a, b) = (0xfedc_ba98_7654_3210u64, 0x1234_5678_9abc_def0u64);
    let adder = circuit("adder64.txt");
    let (ga, ea) = (format!("{a:x}"), format!("{b:x}"));
    let (g, e) = garbler_listens(
        &adder,
        &["--garbling", "three-halves", "--input", &ga],
        &["--input", &ea, "--garbling", "three-halves"],
    );
    let want = format!("{:016x}\n", a.wrapping_add(b));
    for (who, out) in [("garbler", &g), ("evaluator", &e)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, want, "{who}");
    }
}

#[test]
fn aes_fips197_tccr_hash() {
    let (g, e) = aes(&["--hash", "tccr"], &["--hash", "tccr"], true);
    assert_aes_both_learn(&g, &e);
}

#[test]
fn insecure_seed_warns_and_still_computes() {
    // `pair` also checks that the listener's FIRST stderr line is `listening on ADDR`,
    // with the warning after it.
    for garbler_listens in [true, false] {
        let seed = ["--insecure-seed", "7"];
        let (g, e) = aes(&seed, &seed, garbler_listens);
        assert_aes_both_learn(&g, &e);
        for (who, out) in [("garbler", &g), ("evaluator", &e)] {
            assert!(
                out.stderr
                    .lines()
                    .any(|l| l.starts_with("WARNING") && l.contains("--insecure-seed")),
                "{who}: no WARNING line: {out:#?}"
            );
        }
    }
}

#[test]
fn reveal_to_one_party_only() {
    for (mode, learner) in [("garbler", "garbler"), ("evaluator", "evaluator")] {
        let flags = ["--reveal", mode];
        let (g, e) = aes(&flags, &flags, true);
        g.assert_ok("garbler");
        e.assert_ok("evaluator");
        let (learns, blind) = if learner == "garbler" { (&g, &e) } else { (&e, &g) };
        assert_eq!(
            learns.stdout,
            format!("{FIPS_CIPHERTEXT}\n"),
            "--reveal {mode}: {learns:#?}"
        );
        assert_eq!(blind.stdout, "", "--reveal {mode}: the other party printed");
        assert!(
            !blind.stderr.contains(FIPS_CIPHERTEXT),
            "--reveal {mode}: the output leaked to the other party's stderr: {blind:#?}"
        );
    }
}

#[test]
fn garbler_values_2_garbler_owns_both() {
    let (a, b) = (0xfedc_ba98_7654_3210u64, 0x1234_5678_9abc_def0u64);
    let k = ["--garbler-values", "2"];
    let adder = circuit("adder64.txt");
    let input = format!("{a:x},{b:X}");
    let mut g = k.to_vec();
    g.extend(["--input", &input]);
    let (g, e) = garbler_listens(&adder, &g, &k);
    let want = format!("{:016x}\n", a.wrapping_add(b));
    for (who, out) in [("garbler", &g), ("evaluator", &e)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, want, "{who}");
    }
}

#[test]
fn garbler_values_0_evaluator_owns_both() {
    let (a, b) = (0x0123_4567u64, 0xffff_ffff_ffff_ffffu64);
    let k = ["--garbler-values", "0"];
    let sub = circuit("sub64.txt");
    let input = format!("{a:x},{b:x}");
    let mut e = k.to_vec();
    e.extend(["--input", &input]);
    // The evaluator listens this time.
    let ga = run_args(&sub, "garbler", &k);
    let ea = run_args(&sub, "evaluator", &e);
    let (e, g) = pair(&strs(&ea), &strs(&ga));
    let want = format!("{:016x}\n", a.wrapping_sub(b));
    for (who, out) in [("garbler", &g), ("evaluator", &e)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, want, "{who}");
    }
}

/// A 64-bit value as hex in one of the accepted spellings: minimal lowercase, padded
/// uppercase, padded lowercase.
fn hex_any(rng: &mut impl Rng, v: u64) -> String {
    match rng.gen_range(0..3) {
        0 => format!("{v:x}"),
        1 => format!("{v:016X}"),
        _ => format!("{v:016x}"),
    }
}

/// Runs `file` with the garbler holding the first ⌈n/2⌉ of `inputs` (the default split)
/// and returns the evaluator's stdout after checking both parties agree.
fn two_party_stdout(file: &str, garbler: &[String], evaluator: &[String]) -> String {
    let (g, e) = garbler_listens(
        &circuit(file),
        &strs(&input_flag(garbler)),
        &strs(&input_flag(evaluator)),
    );
    g.assert_ok(&format!("{file} garbler {garbler:?}"));
    e.assert_ok(&format!("{file} evaluator {evaluator:?}"));
    assert_eq!(g.stdout, e.stdout, "{file}: the parties disagree");
    e.stdout
}

/// Two-input 64-bit circuit against `f`, on `edge` cases and a few random pairs.
fn check_binary64(file: &str, edge: &[(u64, u64)], f: impl Fn(u64, u64) -> u64) {
    let mut rng = test_rng();
    let mut cases = edge.to_vec();
    cases.extend((0..3).map(|_| (rng.gen::<u64>(), rng.gen::<u64>())));
    for (a, b) in cases {
        let out = two_party_stdout(file, &[hex_any(&mut rng, a)], &[hex_any(&mut rng, b)]);
        assert_eq!(out, format!("{:016x}\n", f(a, b)), "{file}({a:#x}, {b:#x})");
    }
}

#[test]
fn adder64_random() {
    check_binary64("adder64.txt", &[(u64::MAX, 1)], u64::wrapping_add);
}

#[test]
fn sub64_random() {
    check_binary64("sub64.txt", &[(0, 1)], u64::wrapping_sub);
}

#[test]
fn mult64_random() {
    check_binary64("mult64.txt", &[(u64::MAX, u64::MAX)], u64::wrapping_mul);
}

#[test]
fn udivide64_random() {
    // Division by zero yields all ones (circuits/README.md).
    check_binary64("udivide64.txt", &[(12345, 0), (u64::MAX, 7)], |a, b| {
        a.checked_div(b).unwrap_or(u64::MAX)
    });
}

#[test]
fn divide64_random_nonzero_divisor() {
    let mut rng = test_rng();
    let mut cases = vec![(i64::MIN, -1i64), (-7, 2), (7, -2)];
    cases.extend((0..2).map(|_| (rng.gen::<i64>(), rng.gen_range(1..=i64::MAX))));
    for (a, b) in cases {
        let out = two_party_stdout(
            "divide64.txt",
            &[hex_any(&mut rng, a as u64)],
            &[hex_any(&mut rng, b as u64)],
        );
        assert_eq!(
            out,
            format!("{:016x}\n", a.wrapping_div(b) as u64),
            "divide64({a}, {b})"
        );
    }
}

#[test]
fn neg64_random_evaluator_has_no_input() {
    // One input value: the garbler owns it, the evaluator passes no --input.
    let mut rng = test_rng();
    for a in [0u64, 1, rng.gen(), rng.gen()] {
        let out = two_party_stdout("neg64.txt", &[hex_any(&mut rng, a)], &[]);
        assert_eq!(out, format!("{:016x}\n", a.wrapping_neg()), "neg64({a:#x})");
    }
}

#[test]
fn zero_equal_prints_one_digit() {
    let mut rng = test_rng();
    for (a, want) in [
        (0u64, "1\n"),
        (1, "0\n"),
        (1 << 63, "0\n"),
        (rng.gen_range(1..=u64::MAX), "0\n"),
    ] {
        let out = two_party_stdout("zero_equal.txt", &[hex_any(&mut rng, a)], &[]);
        assert_eq!(out, want, "zero_equal({a:#x})");
    }
}

#[test]
fn adder_32bit_prints_nine_digits() {
    // 33-bit output (carry in bit 32): exactly 9 lowercase hex digits, zero-padded.
    let mut rng = test_rng();
    let mut cases = vec![(0u32, 0u32), (u32::MAX, u32::MAX), (u32::MAX, 1), (0xabcdef01, 2)];
    cases.extend((0..2).map(|_| (rng.gen::<u32>(), rng.gen::<u32>())));
    for (a, b) in cases {
        let out = two_party_stdout("adder_32bit.txt", &[format!("{a:X}")], &[format!("{b:x}")]);
        let sum = u64::from(a) + u64::from(b);
        assert_eq!(out, format!("{sum:09x}\n"), "adder_32bit({a:#x}, {b:#x})");
        assert_eq!(out.trim_end().len(), 9);
    }
}

#[test]
fn sha256_compression_known_answers() {
    const IV: &str = "6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19";
    let empty = format!("80{}", "0".repeat(126));
    let abc = format!("61626380{}18", "0".repeat(118));
    for (block, digest) in [
        (
            empty,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ),
        (
            abc,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        ),
    ] {
        let out = two_party_stdout("sha256.txt", &[block], &[IV.to_string()]);
        assert_eq!(out, format!("{digest}\n"));
    }
}

#[test]
fn legacy_aes_with_reversed_bits() {
    // AES-non-expanded.txt: plaintext first, key second, wire 0 = most significant bit.
    let rev = |hex: &str| format!("{:032x}", u128::from_str_radix(hex, 16).unwrap().reverse_bits());
    let out = two_party_stdout(
        "AES-non-expanded.txt",
        &[rev(FIPS_PLAINTEXT_UPPER)],
        &[rev(FIPS_KEY)],
    );
    assert_eq!(rev(out.trim_end()), FIPS_CIPHERTEXT, "{out}");
}

#[test]
fn closed_stdout_is_an_error_not_a_panic() {
    // The evaluator's stdout pipe is closed before it prints the output: it must report
    // the failed write as an error and exit nonzero, without panicking.
    let aes = circuit("aes_128.txt");
    let g = run_args(&aes, "garbler", &["--input", FIPS_KEY]);
    let e = run_args(&aes, "evaluator", &["--input", FIPS_PLAINTEXT_UPPER]);
    let (g, e) = pair_with(&strs(&g), &strs(&e), false);
    g.assert_ok("garbler");
    assert_eq!(g.stdout, format!("{FIPS_CIPHERTEXT}\n"));
    e.assert_error("evaluator with closed stdout", &["stdout"]);
}

#[test]
fn schedules_and_threads_give_the_same_answer() {
    let (g, e) = aes(
        &["--schedule", "full", "--threads", "2"],
        &["--schedule", "full", "--threads", "2"],
        true,
    );
    assert_aes_both_learn(&g, &e);
    let (g, e) = aes(
        &["--schedule", "segment", "--window", "512"],
        &["--schedule", "segment", "--window", "512"],
        false,
    );
    assert_aes_both_learn(&g, &e);
}

#[test]
fn different_schedules_are_named_by_both_parties() {
    let (g, e) = aes(&["--schedule", "full"], &[], true);
    g.assert_error("garbler", &["compiled stream differs"]);
    e.assert_error("evaluator", &["compiled stream differs"]);
}
