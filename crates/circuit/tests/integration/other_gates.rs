//! Gates of other circuit collections (OR, NAND, NOR, XNOR) and a byte-order mark: read in
//! both Bristol formats, computed as their truth tables, costed at one AND at most, and
//! written back (decomposed) to a file that computes the same.

use mixgc_circuit::{bristol, Circuit};

/// (name, truth table for (a, b) = 00, 01, 10, 11, ANDs it costs)
const GATES: [(&str, [bool; 4], usize); 4] = [
    ("OR", [false, true, true, true], 1),
    ("NAND", [true, true, true, false], 1),
    ("NOR", [true, false, false, false], 1),
    ("XNOR", [true, false, false, true], 0),
];

fn fashion(name: &str) -> String {
    format!("1 3\n2 1 1\n1 1\n\n2 1 0 1 2 {name}\n")
}

fn legacy(name: &str) -> String {
    format!("1 3\n1 1 1\n\n2 1 0 1 2 {name}\n")
}

fn truth_table(c: &Circuit) -> [bool; 4] {
    let mut out = [false; 4];
    for (i, o) in out.iter_mut().enumerate() {
        let (a, b) = (i & 2 != 0, i & 1 != 0);
        *o = c.eval_plain(&[vec![a], vec![b]]).unwrap()[0][0];
    }
    out
}

#[test]
fn other_gates_compute_their_truth_tables_in_both_formats() {
    for (name, table, ands) in GATES {
        for (text, format) in [(fashion(name), "fashion"), (legacy(name), "legacy")] {
            let c = bristol::parse(&text, "gate.txt").unwrap_or_else(|e| panic!("{name} {format}: {e}"));
            assert_eq!(truth_table(&c), table, "{name} ({format})");
            assert_eq!(c.stats().ands, ands, "{name} ({format}) ANDs");
            // Lower case is read too, as for the other gate names.
            let lower = bristol::parse(&text.replace(name, &name.to_lowercase()), "gate.txt").unwrap();
            assert_eq!(truth_table(&lower), table, "{name} lower case");
        }
    }
}

#[test]
fn other_gates_are_written_back_decomposed() {
    for (name, table, ands) in GATES {
        let c = bristol::parse(&fashion(name), "gate.txt").unwrap();
        let mut out = Vec::new();
        bristol::write_fashion(&c, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        let written_as = |n: &str| text.lines().any(|l| l.split_whitespace().last() == Some(n));
        assert!(
            !written_as(name),
            "{name} is written as XOR, AND and INV:\n{text}"
        );
        let back = bristol::parse(&text, "back.txt").unwrap();
        assert_eq!(truth_table(&back), table, "{name} written back");
        assert_eq!(back.stats().ands, ands);
    }
}

#[test]
fn other_gates_chain_with_declared_wires() {
    // A 2-bit OR then NOR of the results: the new wires of the first gate do not collide
    // with the declared wires the second one reads and writes.
    let text = "3 7\n2 2 2\n1 1\n\n2 1 0 2 4 OR\n2 1 1 3 5 OR\n2 1 4 5 6 NOR\n";
    let c = bristol::parse(text, "chain.txt").unwrap();
    for x in 0..4u8 {
        for y in 0..4u8 {
            let bits = |v: u8| vec![v & 1 != 0, v & 2 != 0];
            let got = c.eval_plain(&[bits(x), bits(y)]).unwrap()[0][0];
            let or = x | y;
            assert_eq!(got, or == 0, "NOR of the OR's bits, x={x} y={y}");
        }
    }
    let e = bristol::parse("1 3\n2 1 1\n1 1\n\n2 1 0 1 3 OR\n", "bad.txt").unwrap_err();
    assert!(e.to_string().contains("wire 3 is out of range"), "{e}");
    let e = bristol::parse("1 3\n2 1 1\n1 1\n\n1 1 0 2 NOR\n", "bad.txt").unwrap_err();
    assert!(e.to_string().contains("NOR takes 2 inputs and 1 output"), "{e}");
}

#[test]
fn a_byte_order_mark_is_ignored() {
    for text in [fashion("AND"), legacy("AND")] {
        let plain = bristol::parse(&text, "plain.txt").unwrap();
        let marked = bristol::parse(&format!("\u{feff}{text}"), "bom.txt").unwrap();
        assert_eq!(plain, marked);
    }
    let dir = std::env::temp_dir().join(format!("mixgc-bom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bom.txt");
    std::fs::write(&path, format!("\u{feff}{}", fashion("XOR"))).unwrap();
    let c = bristol::read_file(&path).unwrap();
    assert_eq!(truth_table(&c), [false, true, true, false]);
    std::fs::remove_dir_all(&dir).unwrap();
}
