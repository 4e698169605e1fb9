//! Malformed circuit files: each gives a `ParseError` naming the file and the right
//! line; nothing panics.

use super::common;

use mixgc_circuit::bristol::{self, Format};
use mixgc_circuit::ParseError;
use proptest::prelude::*;

/// A valid Bristol Fashion NAND: wire 2 = 0 AND 1, wire 3 = NOT 2.
const NAND: &str = "2 4\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n1 1 2 3 INV\n";

fn err(text: &str) -> ParseError {
    match bristol::parse(text, "bad.txt") {
        Ok(c) => panic!("expected an error, parsed {c:?}"),
        Err(e) => e,
    }
}

/// Asserts the error's line, that its message contains `needle`, and the
/// `FILE:LINE: reason` display.
#[track_caller]
fn check(e: &ParseError, line: usize, needle: &str) {
    let shown = e.to_string();
    assert_eq!(e.file, "bad.txt", "{shown}");
    assert_eq!(e.line, line, "{shown}");
    assert!(shown.starts_with(&format!("bad.txt:{line}: ")), "{shown}");
    assert!(shown.contains(needle), "{shown:?} lacks {needle:?}");
}

#[track_caller]
fn bad(text: &str, line: usize, needle: &str) {
    check(&err(text), line, needle);
}

/// `NAND` with its gate lines replaced.
fn nand_with(gates: &str) -> String {
    format!("2 4\n2 1 1\n1 1\n\n{gates}")
}

#[test]
fn the_base_case_is_valid() {
    let c = bristol::parse(NAND, "ok.txt").unwrap();
    for (a, b) in [(false, false), (false, true), (true, false), (true, true)] {
        let out = c.eval_plain(&[vec![a], vec![b]]).unwrap();
        assert_eq!(out, vec![vec![!(a && b)]]);
    }
}

#[test]
fn crlf_tabs_and_extra_blank_lines_are_fine() {
    let text = "\r\n2 4\r\n2\t1 1 \r\n  1 1\r\n\r\n\r\n2 1 0 1 2 AND\r\n\t1 1 2 3 INV\r\n\r\n";
    let c = bristol::parse(text, "ok.txt").unwrap();
    assert_eq!(c, bristol::parse(NAND, "ok.txt").unwrap());
}

#[test]
fn header_errors() {
    bad("", 1, "ends before the header");
    bad("\n\n  \n", 3, "ends before the header");
    bad("abc def\n", 1, "expected gate count (a number), found \"abc\"");
    bad("2 4 5\n2 1 1\n1 1\n", 1, "found 3 fields");
    bad("2\n2 1 1\n1 1\n", 1, "found 1 fields");
    bad(
        "99999999999 4\n2 1 1\n1 1\n",
        1,
        "gate count \"99999999999\" is too large",
    );
    bad(
        "2 -4\n2 1 1\n1 1\n",
        1,
        "expected wire count (a number), found \"-4\"",
    );
    bad(
        "2 4\n3 1 1\n1 1\n\n",
        2,
        "declares 3 input values but lists 2 widths",
    );
    bad("2 4\n2 1 x\n1 1\n\n", 2, "expected input width");
    bad(
        "2 4\n2 1 1\n2 1\n\n",
        3,
        "declares 2 output values but lists 1 widths",
    );
    bad(
        "2 4\n2 100 1\n1 1\n\n",
        2,
        "the input values need 101 wires but line 1",
    );
    bad("2 4\n2 1 1\n1 9\n\n", 3, "the output values need 9 wires");
}

#[test]
fn missing_lines() {
    let e = bristol::parse_as("2 4\n2 1 1\n", "bad.txt", Format::Fashion).unwrap_err();
    check(&e, 2, "ends before the output values");
    let e = bristol::parse_as("2 4\n", "bad.txt", Format::Legacy).unwrap_err();
    check(&e, 1, "ends before the sizes `n1 n2 n3` line");
}

#[test]
fn truncated_and_overlong_gate_lists() {
    bad(&nand_with("2 1 0 1 2 AND\n"), 5, "ends after 1 of the 2 gates");
    bad(&nand_with(""), 4, "ends after 0 of the 2 gates");
    bad(
        &nand_with("2 1 0 1 2 AND\n1 1 2 3 INV\n1 1 3 3 INV\n"),
        7,
        "more gates than the 2 the header declares",
    );
}

#[test]
fn gate_syntax_errors() {
    bad(
        &nand_with("2 1 0 1 2 ANDN\n1 1 2 3 INV\n"),
        5,
        "unknown gate type \"ANDN\"",
    );
    bad(
        &nand_with("2 1 0 1 2\n1 1 2 3 INV\n"),
        5,
        "must end with its type",
    );
    bad(&nand_with("AND\n1 1 2 3 INV\n"), 5, "needs `nin nout");
    bad(
        &nand_with("1 1 0 2 AND\n1 1 2 3 INV\n"),
        5,
        "AND takes 2 inputs and 1 output",
    );
    bad(
        &nand_with("2 1 0 1 AND\n1 1 2 3 INV\n"),
        5,
        "needs 3 wire numbers, found 2",
    );
    bad(
        &nand_with("2 1 0 1 2 3 AND\n1 1 2 3 INV\n"),
        5,
        "needs 3 wire numbers, found 4",
    );
    bad(
        &nand_with("2 1 0 1 2 AND\n2 1 2 3 INV\n"),
        6,
        "INV takes 1 input and 1 output",
    );
    bad(
        &nand_with("2 1 0 x 2 AND\n1 1 2 3 INV\n"),
        5,
        "expected wire (a number)",
    );
    bad(
        &nand_with("2 1 0 1 2 AND\n1 1 2 3 EQ\n"),
        6,
        "EQ constant must be 0 or 1, found 2",
    );
    bad(
        &nand_with("2 1 0 1 2 AND\n3 2 0 1 2 3 3 MAND\n"),
        6,
        "MAND takes 2k inputs",
    );
    bad(
        &nand_with("4294967294 2147483647 0 MAND\n1 1 2 3 INV\n"),
        5,
        "needs 6442450941 wire numbers, found 1",
    );
    bad(
        &nand_with("18446744073709551616 1 0 1 2 AND\n"),
        5,
        "is too large",
    );
}

#[test]
fn wire_errors() {
    bad(
        &nand_with("2 1 0 9 2 AND\n1 1 2 3 INV\n"),
        5,
        "wire 9 is out of range",
    );
    // Not in topological order.
    bad(
        &nand_with("1 1 2 3 INV\n2 1 0 1 2 AND\n"),
        5,
        "reads wire 2 before gate 1 writes it",
    );
    // A gate reading its own output.
    bad(
        &nand_with("2 1 0 2 2 AND\n1 1 2 3 INV\n"),
        5,
        "before gate 0 writes it",
    );
    // Two gates writing one wire.
    bad(
        &nand_with("2 1 0 1 3 AND\n1 1 0 3 INV\n"),
        6,
        "writes wire 3, which gate 0 already writes",
    );
    // Writing an input wire.
    bad(
        &nand_with("2 1 0 1 1 AND\n1 1 1 3 INV\n"),
        5,
        "which is a circuit input",
    );
    // Reading a wire nothing defines.
    bad(
        "3 5\n2 1 1\n1 1\n\n2 1 0 3 2 AND\n1 1 2 4 INV\n1 1 0 2 INV\n",
        5,
        "reads wire 3, which is neither an input nor written",
    );
    // The output (the last wire) is never written: more wires than inputs and gates define.
    bad(
        "2 5\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n1 1 2 3 INV\n",
        1,
        "declares 5 wires, but the inputs and gates define only 4",
    );
}

#[test]
fn huge_header_counts_do_not_allocate_or_panic() {
    bad(
        "4000000000 4\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n1 1 2 3 INV\n",
        6,
        "ends after 2 of the 4000000000 gates",
    );
    bad(
        "2 4000000000\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n1 1 2 3 INV\n",
        1,
        "declares 4000000000 wires, but the inputs and gates define only 4",
    );
    bad(
        "2 4\n2 1 1\n1 1000\n\n2 1 0 1 2 AND\n1 1 2 3 INV\n",
        3,
        "need 1000 wires but line 1 declares only 4",
    );
    // The review's crafted headers: 2^32 − 1 wires and 2^31 input bits; 2^25 input bits in
    // a few bytes; 4·10^9 and 2·10^8 wires behind 64 gates. Each is refused from the
    // gates present, before anything is sized from the declared counts.
    bad(
        "1 4294967295\n2 2147483648 1\n1 1\n\n2 1 0 1 4294967294 AND\n",
        1,
        "declares 4294967295 wires, but the inputs and gates define only 2147483650",
    );
    bad(
        "1 33554433\n2 33554431 1\n1 1\n\n2 1 0 1 33554432 AND\n",
        2,
        "the input values total 33554432 bits, but the gates and outputs can read at most 3",
    );
    for wires in [4_000_000_000u64, 200_000_000] {
        let mut text = format!("64 {wires}\n2 1 1\n1 1\n\n");
        for w in 2..65 {
            text += &format!("2 1 0 1 {w} XOR\n");
        }
        text += &format!("2 1 0 1 {} AND\n", wires - 1);
        bad(
            &text,
            1,
            &format!("declares {wires} wires, but the inputs and gates define only 66"),
        );
    }
    bad(
        "0 4294967295\n2 4000000000 294967295\n1 4294967295\n",
        3,
        "at most 67108864 are supported",
    );
}

#[test]
fn legacy_errors() {
    bad("1 3\n1 1 1\n\n2 1 0 1 5 XOR\n", 4, "wire 5 is out of range");
    bad(
        "1 3\n1 1 1\n\n2 1 0 1 2 XOR\n2 1 0 1 2 XOR\n",
        5,
        "more gates than the 1",
    );
    bad("2 4\n1 1 1\n\n2 1 0 1 2 XOR\n", 4, "ends after 1 of the 2 gates");
    let e = bristol::parse_as("1 3\n1 2\n1 1\n", "bad.txt", Format::Legacy).unwrap_err();
    check(
        &e,
        2,
        "expected `n1 n2 n3` (bits of input 1, input 2, output), found 2 fields",
    );
    // Zero-width second input is kept.
    let c = bristol::parse("1 2\n1 0 1\n\n1 1 0 1 INV\n", "ok.txt").unwrap();
    assert_eq!(c.input_widths, vec![1, 0]);
    assert_eq!(c.eval_plain(&[vec![true], vec![]]).unwrap(), vec![vec![false]]);
}

#[test]
fn garbage_and_binary_text() {
    bad(
        "\u{0}\u{1}garbage\n",
        1,
        "expected the header `ngates nwires`, found 1 fields",
    );
    bad("2 4\n\u{fffd}\u{fffd}\n", 2, "expected number of input values");
    let long = "9".repeat(100);
    let e = err(&format!("{long} 4\n"));
    assert!(e.reason.len() < 150, "{e}");
}

#[test]
fn read_file_reports_io_and_encoding_errors_with_the_path() {
    let missing = common::circuits_dir().join("no-such-file.txt");
    let e = bristol::read_file(&missing).unwrap_err();
    assert_eq!(e.line, 0);
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!("{}: cannot read", missing.display())),
        "{shown}"
    );

    let dir = std::env::temp_dir().join(format!("mixgc-circuit-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("latin1.txt");
    std::fs::write(&path, b"2 4\n2 1 1\n1 \xff\n").unwrap();
    let e = bristol::read_file(&path).unwrap_err();
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(e.line, 3, "{e}");
    assert!(e.to_string().contains("not UTF-8"), "{e}");
    assert!(e.to_string().starts_with(&path.display().to_string()), "{e}");
}

#[test]
fn mand_expands_to_ands() {
    // 4 2 0 2 1 3 4 5 MAND = AND(0,1)->4, AND(2,3)->5.
    let text = "1 6\n2 2 2\n1 2\n\n4 2 0 2 1 3 4 5 MAND\n";
    let c = bristol::parse(text, "mand.txt").unwrap();
    assert_eq!(c.num_gates(), 2);
    assert_eq!(
        (c.a.clone(), c.b.clone(), c.out.clone()),
        (vec![0, 2], vec![1, 3], vec![4, 5])
    );
    // value 0 = wires 0,1 ; value 1 = wires 2,3.
    let out = c.eval_plain(&[vec![true, true], vec![true, false]]).unwrap();
    assert_eq!(out, vec![vec![true, false]]);
}

#[test]
fn detect_decides_ambiguous_headers_with_line_3() {
    assert_eq!(bristol::detect("1 4\n2 1 1\n1 1\n\n"), Some(Format::Fashion));
    assert_eq!(
        bristol::detect("1 3\n2 1 1\n2 1 0 1 2 XOR\n"),
        Some(Format::Legacy)
    );
    assert_eq!(bristol::detect("0 2\n2 1 1\n"), Some(Format::Legacy));
    assert_eq!(bristol::detect("1 3\n1 1 1 1\n"), None);
    assert_eq!(bristol::detect(""), None);
    assert_eq!(bristol::detect("x y\n"), None);
}

/// Random mutations of a real circuit: the reader returns `Ok` or `Err`, never panics.
fn mutated() -> impl Strategy<Value = String> {
    let base = std::fs::read_to_string(common::circuits_dir().join("adder64.txt")).unwrap();
    let ch = prop_oneof![
        any::<char>(),
        prop::sample::select(vec!['0', '1', '7', '9', ' ', '\n', 'X']),
    ];
    let edits = prop::collection::vec((any::<prop::sample::Index>(), 0u8..4, ch), 1..8);
    edits.prop_map(move |edits| {
        let mut chars: Vec<char> = base.chars().collect();
        for (at, op, ch) in edits {
            let i = at.index(chars.len());
            match op {
                0 => chars[i] = ch,
                1 => chars.insert(i, ch),
                2 => {
                    chars.remove(i);
                }
                _ => chars.truncate(i),
            }
            if chars.is_empty() {
                chars.push('0');
            }
        }
        chars.into_iter().collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn mutated_files_never_panic(text in mutated()) {
        if let Err(e) = bristol::parse(&text, "fuzz.txt") {
            prop_assert!(e.to_string().starts_with("fuzz.txt:"));
            prop_assert!(e.line >= 1);
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in "[0-9 \\nA-Z]{0,200}") {
        let _ = bristol::parse(&text, "fuzz.txt");
        let _ = bristol::parse_as(&text, "fuzz.txt", Format::Legacy);
    }
}
