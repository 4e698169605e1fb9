//! The JSON of `mixgc vip` (issue #20 item 1): each party's input file, parsed into the
//! workload's 32-bit words with every length and type checked (errors name the key), and
//! the output line `{"benchmark", "output", "output_sha256"}`.

use mixgc_program::vip::{Workload, HAMM_BITS};
use mixgc_program::PartyId;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// Largest input file read (the largest valid one, `relu`'s, is under 16 KiB).
pub const MAX_INPUT_FILE_BYTES: u64 = 1 << 20;

/// How one party's words are written in its file.
enum Layout {
    /// A flat array of this many int32.
    Ints(usize),
    /// `rows` arrays of `cols` int32 each.
    Matrix { rows: usize, cols: usize },
    /// One uint32.
    Uint,
    /// A bit string of this many bits as hex of its bytes (bit i = bit i mod 8 of byte i / 8).
    BitsHex(usize),
    /// An array of this many binary32 values, each `{"f32_bits": "8 hex digits"}`.
    Floats(usize),
}

/// The key and layout of `owner`'s input, `None` for an empty object.
fn input_spec(w: Workload, owner: PartyId) -> Option<(&'static str, Layout)> {
    let garbler = owner == PartyId::GARBLER;
    Some(match (w, garbler) {
        (Workload::BubbSt, true) => ("data_lo", Layout::Ints(128)),
        (Workload::BubbSt, false) => ("data_hi", Layout::Ints(128)),
        (Workload::DotProd, true) => ("a", Layout::Ints(128)),
        (Workload::DotProd, false) => ("b", Layout::Ints(128)),
        (Workload::Merse, true) => ("seed", Layout::Uint),
        (Workload::Merse, false) => return None,
        (Workload::Triangle, true) => ("rows_0_6", Layout::Matrix { rows: 7, cols: 13 }),
        (Workload::Triangle, false) => ("rows_7_12", Layout::Matrix { rows: 6, cols: 13 }),
        (Workload::Hamm, true) => ("a_bits_le_hex", Layout::BitsHex(HAMM_BITS)),
        (Workload::Hamm, false) => ("b_bits_le_hex", Layout::BitsHex(HAMM_BITS)),
        (Workload::MatMult, true) => ("a", Layout::Matrix { rows: 8, cols: 8 }),
        (Workload::MatMult, false) => ("b", Layout::Matrix { rows: 8, cols: 8 }),
        (Workload::Relu, true) => ("x_lo", Layout::Ints(1024)),
        (Workload::Relu, false) => ("x_hi", Layout::Ints(1024)),
        (Workload::GradDesc, true) => ("y", Layout::Floats(8)),
        (Workload::GradDesc, false) => ("x", Layout::Floats(8)),
    })
}

/// `--help`'s description of every workload's JSON.
pub const HELP: &str = "Input files (JSON objects; ints are JSON integers, int32 in [-2^31, 2^31) unless \
uint32 is said; a bit string's bit i is bit i mod 8 of byte i/8 of its hex read as bytes in order):\n  \
bubbst   garbler {\"data_lo\": [128 int32]}  evaluator {\"data_hi\": [128 int32]}  output: the 256 sorted ascending\n  \
dotprod  garbler {\"a\": [128 int32]}  evaluator {\"b\": [128 int32]}  output: int32 sum of a_i*b_i mod 2^32\n  \
merse    garbler {\"seed\": uint32}  evaluator {}  output: the first 1000 uint32 of MT19937 (1998 sgenrand seeding)\n  \
triangle garbler {\"rows_0_6\": [7][13] int32}  evaluator {\"rows_7_12\": [6][13] int32}  output: int32 trace(A^3)/6\n  \
hamm     garbler {\"a_bits_le_hex\": \"10240 hex digits\"}  evaluator {\"b_bits_le_hex\": ...}  output: uint32 popcount(a xor b) of 40960 bits\n  \
matmult  garbler {\"a\": [8][8] int32}  evaluator {\"b\": [8][8] int32}  output: [8][8] int32 A*B mod 2^32\n  \
relu     garbler {\"x_lo\": [1024 int32]}  evaluator {\"x_hi\": [1024 int32]}  output: the 2048 max(x, 0)\n  \
graddesc garbler {\"y\": [8 x {\"f32_bits\": \"8 hex digits\"}]}  evaluator {\"x\": [8 x ...]}  output: [w, b] as \
{\"f32_bits\": hex} after 20 rounds of binary32 gradient descent (a NaN as 7fc00000; other keys of a value ignored)\n\
Each party that learns the output prints one line on stdout: {\"benchmark\": NAME, \"output\": VALUE, \
\"output_sha256\": HEX}, the hash over the output words as 4-byte little-endian words in order (matrices row-major).";

/// Parses `owner`'s input file text for `w` into its words. Errors name the file's key.
pub fn parse_input(w: Workload, owner: PartyId, text: &str) -> Result<Vec<u32>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not valid JSON: {e}"))?;
    let Value::Object(object) = value else {
        return Err("the input must be a JSON object".into());
    };
    let spec = input_spec(w, owner);
    if let Some(extra) = object
        .keys()
        .find(|k| spec.as_ref().is_none_or(|(key, _)| k != key))
    {
        return Err(match &spec {
            Some((key, _)) => format!(
                "unknown key \"{extra}\": the {owner}'s input of {} has only \"{key}\"",
                w.name()
            ),
            None => format!(
                "unknown key \"{extra}\": the {owner}'s input of {} is the empty object {{}}",
                w.name()
            ),
        });
    }
    let Some((key, layout)) = spec else {
        return Ok(Vec::new());
    };
    let field = object
        .get(key)
        .ok_or_else(|| format!("missing key \"{key}\" (the {owner}'s input of {})", w.name()))?;
    let words = words_of(field, &layout).map_err(|e| format!("\"{key}\": {e}"))?;
    debug_assert_eq!(words.len(), w.input_words(owner));
    Ok(words)
}

fn words_of(field: &Value, layout: &Layout) -> Result<Vec<u32>, String> {
    match *layout {
        Layout::Ints(n) => int_array(field, n, "").map(|v| v.into_iter().map(|x| x as u32).collect()),
        Layout::Matrix { rows, cols } => {
            let rows_v = array(field, rows, "")?;
            let mut out = Vec::with_capacity(rows * cols);
            for (r, row) in rows_v.iter().enumerate() {
                out.extend(
                    int_array(row, cols, &format!("row {r}: "))?
                        .into_iter()
                        .map(|x| x as u32),
                );
            }
            Ok(out)
        }
        Layout::Uint => {
            let v = field.as_u64().filter(|&v| v <= u32::MAX as u64);
            v.map(|v| vec![v as u32])
                .ok_or_else(|| format!("must be an integer in [0, 2^32), got {}", short(field)))
        }
        Layout::BitsHex(bits) => hex_words(field, bits),
        Layout::Floats(n) => array(field, n, "")?
            .iter()
            .enumerate()
            .map(|(i, v)| f32_bits(v).map_err(|e| format!("entry {i}: {e}")))
            .collect(),
    }
}

/// A binary32 value `{"f32_bits": "8 hex digits"}` (other keys ignored) as its bits.
fn f32_bits(v: &Value) -> Result<u32, String> {
    let bits = v
        .as_object()
        .ok_or_else(|| {
            format!(
                "must be an object {{\"f32_bits\": \"8 hex digits\"}}, got {}",
                short(v)
            )
        })?
        .get("f32_bits")
        .ok_or("missing key \"f32_bits\"")?;
    let text = bits
        .as_str()
        .filter(|t| t.len() == 8 && t.bytes().all(|c| c.is_ascii_hexdigit()))
        .ok_or_else(|| format!("\"f32_bits\" must be 8 hex digits, got {}", short(bits)))?;
    u32::from_str_radix(text, 16).map_err(|e| format!("\"f32_bits\": {e}"))
}

/// `{"f32_bits": "8 hex digits"}` for a binary32 bit pattern.
fn float_value(bits: u32) -> Value {
    json!({"f32_bits": format!("{bits:08x}")})
}

/// `field` as an array of exactly `n` values.
fn array<'a>(field: &'a Value, n: usize, at: &str) -> Result<&'a Vec<Value>, String> {
    let items = field
        .as_array()
        .ok_or_else(|| format!("{at}must be an array of {n}, got {}", short(field)))?;
    if items.len() != n {
        return Err(format!("{at}must have {n} entries, got {}", items.len()));
    }
    Ok(items)
}

/// `field` as an array of exactly `n` int32.
fn int_array(field: &Value, n: usize, at: &str) -> Result<Vec<i32>, String> {
    array(field, n, at)?
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_i64().and_then(|x| i32::try_from(x).ok()).ok_or_else(|| {
                format!(
                    "{at}entry {i} must be an int32 in [-2^31, 2^31), got {}",
                    short(v)
                )
            })
        })
        .collect()
}

/// A bit string of `bits` bits written as the hex of its bytes, as little-endian 32-bit words.
fn hex_words(field: &Value, bits: usize) -> Result<Vec<u32>, String> {
    let digits = bits / 4;
    let text = field
        .as_str()
        .ok_or_else(|| format!("must be a string of {digits} hex digits, got {}", short(field)))?;
    if text.len() != digits {
        return Err(format!(
            "must have {digits} hex digits ({bits} bits), got {}",
            text.len()
        ));
    }
    let bytes = text
        .as_bytes()
        .chunks(2)
        .enumerate()
        .map(|(i, pair)| {
            std::str::from_utf8(pair)
                .ok()
                .and_then(|s| u8::from_str_radix(s, 16).ok())
                .ok_or_else(|| format!("byte {i} is not two hex digits"))
        })
        .collect::<Result<Vec<u8>, String>>()?;
    Ok(bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// A value for an error message, cut short.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(40).collect::<String>())
    } else {
        s
    }
}

/// The output line: `{"benchmark": NAME, "output": VALUE, "output_sha256": HEX}`.
pub fn output_line(w: Workload, words: &[u32]) -> String {
    let value = |x: u32| -> Value {
        if w.signed_output() {
            json!(x as i32)
        } else {
            json!(x)
        }
    };
    let output = match w {
        Workload::GradDesc => Value::Array(words.iter().map(|&x| float_value(x)).collect()),
        Workload::DotProd | Workload::Triangle | Workload::Hamm => value(words[0]),
        Workload::MatMult => Value::Array(
            words
                .chunks(8)
                .map(|row| row.iter().map(|&x| value(x)).collect())
                .collect(),
        ),
        _ => Value::Array(words.iter().map(|&x| value(x)).collect()),
    };
    let mut line = Map::new();
    line.insert("benchmark".into(), json!(w.name()));
    line.insert("output".into(), output);
    line.insert("output_sha256".into(), json!(sha256_hex(words)));
    Value::Object(line).to_string()
}

/// SHA-256 of the words as 4-byte little-endian words in order, lowercase hex.
pub fn sha256_hex(words: &[u32]) -> String {
    let mut h = Sha256::new();
    for w in words {
        h.update(w.to_le_bytes());
    }
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// A valid input file of `owner` for `w` holding `words` (for `--random-inputs`).
pub fn input_file(w: Workload, owner: PartyId, words: &[u32]) -> String {
    let Some((key, layout)) = input_spec(w, owner) else {
        return "{}\n".into();
    };
    let ints = |v: &[u32]| -> Value { Value::Array(v.iter().map(|&x| json!(x as i32)).collect()) };
    let field = match layout {
        Layout::Ints(_) => ints(words),
        Layout::Matrix { cols, .. } => Value::Array(words.chunks(cols).map(ints).collect()),
        Layout::Uint => json!(words[0]),
        Layout::BitsHex(_) => {
            json!(words
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .map(|b| format!("{b:02x}"))
                .collect::<String>())
        }
        Layout::Floats(_) => Value::Array(words.iter().map(|&x| float_value(x)).collect()),
    };
    let mut object = Map::new();
    object.insert(key.into(), field);
    Value::Object(object).to_string() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_round_trip() {
        for w in Workload::ALL {
            for owner in [PartyId::GARBLER, PartyId::EVALUATOR] {
                let words: Vec<u32> = (0..w.input_words(owner) as u32)
                    .map(|i| i.wrapping_mul(0x9E37_79B9))
                    .collect();
                let text = input_file(w, owner, &words);
                assert_eq!(parse_input(w, owner, &text), Ok(words), "{} {owner}", w.name());
            }
        }
    }

    #[test]
    fn hex_bit_order_is_byte_then_bit() {
        // Bit 0 is bit 0 of byte 0; bit 9 is bit 1 of byte 1; bit 32 starts word 1.
        let mut hex = "0".repeat(HAMM_BITS / 4);
        hex.replace_range(0..10, "0102000001");
        let words = parse_input(
            Workload::Hamm,
            PartyId::GARBLER,
            &format!("{{\"a_bits_le_hex\": \"{hex}\"}}"),
        )
        .unwrap();
        assert_eq!(words[0], 1 | 1 << 9);
        assert_eq!(words[1], 1);
    }

    #[test]
    fn bad_inputs_name_the_key() {
        let g = PartyId::GARBLER;
        let cases: [(Workload, &str, &str); 9] = [
            (Workload::DotProd, "[1]", "JSON object"),
            (Workload::DotProd, "{\"b\": []}", "unknown key \"b\""),
            (Workload::DotProd, "{}", "missing key \"a\""),
            (
                Workload::DotProd,
                "{\"a\": [1, 2]}",
                "\"a\": must have 128 entries, got 2",
            ),
            (Workload::DotProd, "{\"a\": 5}", "\"a\": must be an array"),
            (
                Workload::Merse,
                "{\"seed\": -1}",
                "\"seed\": must be an integer in [0, 2^32)",
            ),
            (Workload::Merse, "{\"seed\": 4294967296}", "\"seed\""),
            (Workload::Hamm, "{\"a_bits_le_hex\": \"00\"}", "10240 hex digits"),
            (Workload::Relu, "{\"x_lo\": ", "not valid JSON"),
        ];
        for (w, text, needle) in cases {
            let err = parse_input(w, g, text).unwrap_err();
            assert!(err.contains(needle), "{text}: {err}");
        }
        let big = format!("{{\"a\": [2147483648{}]}}", ", 0".repeat(127));
        let err = parse_input(Workload::DotProd, g, &big).unwrap_err();
        assert!(err.contains("\"a\": entry 0 must be an int32"), "{err}");
        let floats = format!(
            "{{\"y\": [{}{{\"f32_bits\": \"3f80\"}}]}}",
            "{\"f32_bits\": \"3f800000\", \"note\": 1}, ".repeat(7)
        );
        assert!(parse_input(Workload::GradDesc, g, &floats)
            .unwrap_err()
            .contains("\"y\": entry 7: \"f32_bits\" must be 8 hex digits"));
        let ok = format!(
            "{{\"y\": [{}{{\"f32_bits\": \"7FC00000\"}}]}}",
            "{\"f32_bits\": \"3f800000\", \"note\": 1}, ".repeat(7)
        );
        assert_eq!(parse_input(Workload::GradDesc, g, &ok).unwrap()[7], 0x7FC0_0000);
        let rows = "{\"a\": [[1,2,3,4,5,6,7,8],[1]]}";
        assert!(parse_input(Workload::MatMult, g, rows)
            .unwrap_err()
            .contains("must have 8 entries"));
        let bad_hex = format!("{{\"a_bits_le_hex\": \"{}zz\"}}", "0".repeat(HAMM_BITS / 4 - 2));
        assert!(parse_input(Workload::Hamm, g, &bad_hex)
            .unwrap_err()
            .contains("byte 5119"));
        assert!(parse_input(Workload::Merse, PartyId::EVALUATOR, "{\"x\": 1}")
            .unwrap_err()
            .contains("empty object"));
    }

    #[test]
    fn output_line_shape() {
        let line = output_line(Workload::DotProd, &[u32::MAX]);
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["benchmark"], "dotprod");
        assert_eq!(v["output"], -1);
        // SHA-256 of ff ff ff ff.
        assert_eq!(
            v["output_sha256"],
            "ad95131bc0b799c0b1af477fb14fcf26a6a9f76079e48bf090acb7e8367bfd0e"
        );
        let m: Vec<u32> = (0..64).collect();
        let v: Value = serde_json::from_str(&output_line(Workload::MatMult, &m)).unwrap();
        assert_eq!(v["output"][1][0], 8);
    }
}
