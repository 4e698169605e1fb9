//! A lexical pre-check of the Verilog sources for constructs that Yosys accepts but that
//! have no meaning in a combinational garbled circuit: `initial` blocks and simulation
//! system tasks (`$display`, `$finish`, …). Yosys 0.23 drops `$display` with a warning at
//! line 0 and runs `initial` blocks silently, so we find them here, with their line.

use crate::HdlError;

/// System functions that synthesize (evaluated at elaboration or mapped to logic).
const SYNTHESIZABLE_SYSTEM_FUNCTIONS: &[&str] = &[
    "$signed",
    "$unsigned",
    "$clog2",
    "$bits",
    "$size",
    "$high",
    "$low",
    "$left",
    "$right",
    "$countones",
    "$onehot",
    "$onehot0",
    "$countbits",
    "$ln",
    "$log10",
    "$exp",
    "$sqrt",
    "$pow",
    "$floor",
    "$ceil",
    "$rtoi",
    "$itor",
];

/// Returns the first unsupported construct in `text` (file `name`) as an
/// [`HdlError::Unsupported`], skipping comments and string literals.
pub fn check_source(text: &str, name: &str) -> Result<(), HdlError> {
    let bytes = text.as_bytes();
    let mut i = 0;
    let mut line = 1usize;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    line += usize::from(bytes[i] == b'\n');
                    i += 1;
                }
                i += 2;
            }
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    line += usize::from(bytes.get(i) == Some(&b'\n'));
                    i += 1;
                }
                i += 1;
            }
            b'\\' => {
                // Escaped identifier: up to the next white space.
                while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                    i += 1;
                }
            }
            _ if c == b'$' || c == b'_' || c.is_ascii_alphabetic() => {
                let start = i;
                i += 1;
                while i < bytes.len()
                    && (bytes[i] == b'_' || bytes[i] == b'$' || bytes[i].is_ascii_alphanumeric())
                {
                    i += 1;
                }
                let word = &text[start..i];
                let unsupported = |construct: &str, why: &str| HdlError::Unsupported {
                    location: format!("{name}:{line}"),
                    construct: construct.to_string(),
                    why: why.to_string(),
                };
                if word == "initial" {
                    return Err(unsupported(
                        "an `initial` block",
                        "a combinational circuit has no initial state; give constants with assign",
                    ));
                }
                if word.starts_with('$') && !SYNTHESIZABLE_SYSTEM_FUNCTIONS.contains(&word) {
                    return Err(unsupported(
                        &format!("the system task `{word}`"),
                        "simulation-only; it has no gates",
                    ));
                }
            }
            _ if c.is_ascii_digit() => {
                // A number such as 8'hff or 1_000: skip its word so `h`/`b` aren't identifiers.
                while i < bytes.len()
                    && (bytes[i] == b'_' || bytes[i] == b'\'' || bytes[i].is_ascii_alphanumeric())
                {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        check_source(text, "t.v").unwrap_err().to_string()
    }

    #[test]
    fn finds_initial_and_display_with_their_line() {
        let e = err("module m(input a, output b);\n  assign b = a;\n  initial b = 0;\nendmodule\n");
        assert!(e.starts_with("t.v:3: an `initial` block"), "{e}");
        let e = err(
            "module m(input a, output reg b);\nalways @* begin\n b = a; $display(\"%d\", b);\nend\nendmodule",
        );
        assert!(e.starts_with("t.v:3: the system task `$display`"), "{e}");
    }

    #[test]
    fn ignores_comments_strings_and_synthesizable_functions() {
        let text = "// initial $display\n/* initial\n $finish */ module m(input [7:0] a, output [7:0] b);\n\
                    assign b = $signed(a) >>> 8'h1; // \"initial\"\nendmodule\n";
        check_source(text, "t.v").unwrap();
        let e = err("/* a\nb */\n\"x\\\"\" $finish;");
        assert!(e.starts_with("t.v:3:"), "{e}");
    }
}
