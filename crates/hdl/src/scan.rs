//! A lexical pre-check of the Verilog sources for constructs that Yosys accepts but that
//! have no meaning in a garbled circuit: simulation system tasks (`$display`, `$finish`,
//! …), refused here with their line, and `initial` blocks, whose lines are returned: Yosys
//! 0.23 drops `$display` with a warning at line 0 and runs `initial` blocks silently. A
//! combinational design refuses any `initial` block; a sequential one accepts those that
//! only give registers their initial values (checked on the netlist's `init` attributes).

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

/// Why an `initial` block may only assign constants.
const INITIAL_VALUES_ONLY: &str =
    "an `initial` block may only give registers their initial values (constant assignments)";

/// Returns the first unsupported construct in `text` (file `name`) as an
/// [`HdlError::Unsupported`], skipping comments and string literals; else the locations
/// (`file:line`) of its `initial` blocks.
pub fn check_source(text: &str, name: &str) -> Result<Vec<String>, HdlError> {
    let mut initials = Vec::new();
    // Inside an `initial` statement: its begin/end depth.
    let mut initial_depth: Option<u32> = None;
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
                    initials.push(format!("{name}:{line}"));
                    initial_depth = Some(0);
                } else if let Some(depth) = initial_depth.as_mut() {
                    match word {
                        "begin" => *depth += 1,
                        "end" => {
                            *depth = depth.saturating_sub(1);
                            if *depth == 0 {
                                initial_depth = None;
                            }
                        }
                        "forever" | "repeat" | "while" | "wait" | "for" | "fork" => {
                            return Err(unsupported(
                                &format!("`{word}` in an `initial` block"),
                                INITIAL_VALUES_ONLY,
                            ))
                        }
                        _ => {}
                    }
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
            b';' if initial_depth == Some(0) => {
                initial_depth = None;
                i += 1;
            }
            b'#' | b'@' if initial_depth.is_some() => {
                return Err(HdlError::Unsupported {
                    location: format!("{name}:{line}"),
                    construct: format!("timing (`{}`) in an `initial` block", c as char),
                    why: INITIAL_VALUES_ONLY.to_string(),
                });
            }
            _ => i += 1,
        }
    }
    Ok(initials)
}

/// The error for an `initial` block at `location` in a combinational design.
pub fn initial_block_error(location: &str) -> HdlError {
    HdlError::Unsupported {
        location: location.to_string(),
        construct: "an `initial` block".to_string(),
        why: "a combinational circuit has no initial state; give constants with assign (a \
              sequential design, with a `clk` input, may give its registers initial values)"
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(text: &str) -> String {
        check_source(text, "t.v").unwrap_err().to_string()
    }

    #[test]
    fn finds_initial_and_display_with_their_line() {
        let found = check_source(
            "module m(input a, output b);\n  assign b = a;\n  initial b = 0;\nendmodule\n",
            "t.v",
        );
        assert_eq!(found.unwrap(), ["t.v:3"]);
        let e = err(
            "module m(input a, output reg b);\nalways @* begin\n b = a; $display(\"%d\", b);\nend\nendmodule",
        );
        assert!(e.starts_with("t.v:3: the system task `$display`"), "{e}");
    }

    #[test]
    fn initial_blocks_with_timing_or_loops_are_refused() {
        let ok =
            "module m(input clk);\nreg [1:0] r;\ninitial begin r = 0; end\ninitial r[0] = 1;\nendmodule\n";
        assert_eq!(check_source(ok, "t.v").unwrap(), ["t.v:3", "t.v:4"]);
        let e = err("module m;\nreg r;\ninitial begin\n r = 0;\n #5 r = 1;\nend\nendmodule\n");
        assert!(e.starts_with("t.v:5: timing (`#`)"), "{e}");
        let e = err("module m;\nreg r;\ninitial forever r = 1;\nendmodule\n");
        assert!(e.starts_with("t.v:3: `forever`"), "{e}");
        // After the initial statement, `@` is the usual event control.
        check_source(
            "module m(input clk);\nreg r;\ninitial r = 0;\nalways @(posedge clk) r <= 1;\nendmodule\n",
            "t.v",
        )
        .unwrap();
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
