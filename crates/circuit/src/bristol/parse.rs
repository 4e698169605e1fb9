//! The Bristol reader: header, gate list, outputs, validation.

use std::path::Path;

use super::detect::detect;
use super::gate::gate;
use super::lex::{is_number, number, Lines};
use super::Format;
use crate::{Circuit, CircuitError, ParseError};

/// At most this many gates are preallocated from the header's gate count.
const PREALLOC_GATES: usize = 1 << 20;
/// At most this many output bits are accepted (the output wire list is allocated).
const MAX_OUTPUT_BITS: u64 = 1 << 26;
/// Input bits a circuit may declare beyond what its gates and outputs can read (each costs
/// a 16-byte label slot, so the margin is 1 MiB of labels).
const UNREAD_INPUT_BITS: u64 = 1 << 16;

/// Reads a circuit in either Bristol format, telling them apart with [`detect`].
///
/// `source` names the text in errors (usually the file name). When the format cannot be
/// recognised, the text is read as the format it most resembles (legacy if line 2 has
/// exactly three fields and line 3 is missing or not all numbers, otherwise Bristol
/// Fashion), so the error points at the first line that does not fit that format.
pub fn parse(text: &str, source: &str) -> Result<Circuit, ParseError> {
    let text = without_bom(text);
    let format = detect(text).unwrap_or_else(|| {
        let mut lines = Lines::new(text);
        let mut toks = Vec::new();
        lines.next_tokens(&mut toks);
        lines.next_tokens(&mut toks);
        let line2_fields = toks.len();
        let line3_numeric = lines.next_tokens(&mut toks).is_some() && toks.iter().all(|t| is_number(t));
        if line2_fields == 3 && !line3_numeric {
            Format::Legacy
        } else {
            Format::Fashion
        }
    });
    parse_as(text, source, format)
}

/// Reads a circuit in the given Bristol format. See the [module docs](super).
pub fn parse_as(text: &str, source: &str, format: Format) -> Result<Circuit, ParseError> {
    Parser {
        file: source,
        lines: Lines::new(without_bom(text)),
        toks: Vec::new(),
    }
    .circuit(format)
}

/// Reads and parses a circuit file (format auto-detected). I/O errors and text that is
/// not UTF-8 are reported as [`ParseError`]s naming the path.
pub fn read_file(path: &Path) -> Result<Circuit, ParseError> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| ParseError::new(&file, 0, format!("cannot read: {e}")))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| {
        let valid = &bytes[..e.valid_up_to()];
        let line = valid.iter().filter(|&&b| b == b'\n').count() + 1;
        ParseError::new(&file, line, "not UTF-8 text")
    })?;
    parse(text, &file)
}

/// `text` without a UTF-8 byte-order mark (some editors write one).
fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

struct Parser<'a> {
    file: &'a str,
    lines: Lines<'a>,
    toks: Vec<&'a str>,
}

/// The header of either format, normalised.
struct Header {
    ngates: u32,
    nwires: u32,
    input_widths: Vec<u32>,
    output_widths: Vec<u32>,
    /// Line declaring the output widths (errors about outputs point here).
    outputs_line: usize,
    /// Line declaring the input widths.
    inputs_line: usize,
}

impl<'a> Parser<'a> {
    fn err(&self, line: usize, reason: impl Into<String>) -> ParseError {
        ParseError::new(self.file, line, reason)
    }

    /// Reads the next non-blank line, which must exist.
    fn expect_line(&mut self, what: &str) -> Result<usize, ParseError> {
        match self.lines.next_tokens(&mut self.toks) {
            Some(line) => Ok(line),
            None => Err(self.err(
                self.lines.last.max(1),
                format!("the file ends before the {what} line"),
            )),
        }
    }

    fn circuit(mut self, format: Format) -> Result<Circuit, ParseError> {
        let h = self.header(format)?;
        let mut c = Circuit {
            num_wires: h.nwires,
            input_widths: h.input_widths,
            output_widths: h.output_widths,
            ..Circuit::default()
        };
        let cap = (h.ngates as usize).min(PREALLOC_GATES);
        for v in [&mut c.a, &mut c.b, &mut c.out] {
            v.reserve(cap);
        }
        c.kind.reserve(cap);

        // Line of each IR gate (a MAND line gives several).
        let mut gate_lines: Vec<usize> = Vec::with_capacity(cap);
        let mut seen: u32 = 0;
        while let Some(line) = self.lines.next_tokens(&mut self.toks) {
            if seen == h.ngates {
                return Err(self.err(
                    line,
                    format!("more gates than the {} the header declares", h.ngates),
                ));
            }
            gate(&self.toks, h.nwires, &mut c).map_err(|r| self.err(line, r))?;
            gate_lines.resize(c.kind.len(), line);
            seen += 1;
        }
        if seen < h.ngates {
            return Err(self.err(
                self.lines.last.max(1),
                format!(
                    "the file ends after {seen} of the {} gates the header declares",
                    h.ngates
                ),
            ));
        }

        // Outputs are the last wires; they must all be defined, so there cannot be more
        // of them than inputs plus gate outputs (this also bounds the allocation).
        let total_in = c.input_bits_u64();
        let total_out: u64 = c.output_widths.iter().map(|&w| u64::from(w)).sum();
        let defined = total_in + c.kind.len() as u64;
        // Every wire is an input or a gate's output, so the gates present bound the wire
        // count; nothing is sized from a declared count they do not back.
        if u64::from(h.nwires) > defined {
            return Err(self.err(
                1,
                format!(
                    "the header declares {} wires, but the inputs and gates define only {defined} \
                     (every wire is an input or a gate output)",
                    h.nwires
                ),
            ));
        }
        // An input bit matters only if a gate reads it or it is an output: beyond a margin
        // for unused inputs, the gates present bound the input bits too.
        let readable = 2 * c.kind.len() as u64 + total_out + UNREAD_INPUT_BITS;
        if total_in > readable {
            return Err(self.err(
                h.inputs_line,
                format!(
                    "the input values total {total_in} bits, but the gates and outputs can read at \
                     most {} of them (at most {UNREAD_INPUT_BITS} input bits may go unread)",
                    readable - UNREAD_INPUT_BITS
                ),
            ));
        }
        if total_out > defined {
            return Err(self.err(
                h.outputs_line,
                format!(
                    "the outputs are the last {total_out} wires, but only {defined} wires are \
                     defined (inputs plus gate outputs)"
                ),
            ));
        }
        c.output_wires = (h.nwires - total_out as u32..h.nwires).collect();

        c.validate().map_err(|e| {
            let line = match e {
                CircuitError::OutputOutOfRange { .. } | CircuitError::UndefinedOutput { .. } => {
                    h.outputs_line
                }
                _ => e.gate().and_then(|g| gate_lines.get(g).copied()).unwrap_or(1),
            };
            self.err(line, e.to_string())
        })?;
        Ok(c)
    }

    fn header(&mut self, format: Format) -> Result<Header, ParseError> {
        let line1 = self.expect_line("header `ngates nwires`")?;
        if self.toks.len() != 2 {
            return Err(self.err(
                line1,
                format!(
                    "expected the header `ngates nwires`, found {} fields",
                    self.toks.len()
                ),
            ));
        }
        let ngates = number(self.toks[0], "gate count").map_err(|r| self.err(line1, r))?;
        let nwires = number(self.toks[1], "wire count").map_err(|r| self.err(line1, r))?;

        let (inputs_line, input_widths, outputs_line, output_widths) = match format {
            Format::Fashion => {
                let l2 = self.expect_line("input values `niv w_1 .. w_niv`")?;
                let inputs = counted_list(&self.toks, "input").map_err(|r| self.err(l2, r))?;
                let l3 = self.expect_line("output values `nov w_1 .. w_nov`")?;
                let outputs = counted_list(&self.toks, "output").map_err(|r| self.err(l3, r))?;
                (l2, inputs, l3, outputs)
            }
            Format::Legacy => {
                let l2 = self.expect_line("sizes `n1 n2 n3`")?;
                if self.toks.len() != 3 {
                    return Err(self.err(
                        l2,
                        format!(
                            "expected `n1 n2 n3` (bits of input 1, input 2, output), \
                             found {} fields",
                            self.toks.len()
                        ),
                    ));
                }
                let mut n = [0u32; 3];
                for (slot, tok) in n.iter_mut().zip(&self.toks) {
                    *slot = number(tok, "bit count").map_err(|r| self.err(l2, r))?;
                }
                (l2, vec![n[0], n[1]], l2, vec![n[2]])
            }
        };

        let total_in: u64 = input_widths.iter().map(|&w| u64::from(w)).sum();
        if total_in > u64::from(nwires) {
            return Err(self.err(
                inputs_line,
                format!(
                    "the input values need {total_in} wires but line {line1} declares only \
                     {nwires}"
                ),
            ));
        }
        let total_out: u64 = output_widths.iter().map(|&w| u64::from(w)).sum();
        if total_out > u64::from(nwires) {
            return Err(self.err(
                outputs_line,
                format!(
                    "the output values need {total_out} wires but line {line1} declares only \
                     {nwires}"
                ),
            ));
        }
        if total_out > MAX_OUTPUT_BITS {
            return Err(self.err(
                outputs_line,
                format!(
                    "the output values total {total_out} bits; at most {MAX_OUTPUT_BITS} are \
                     supported"
                ),
            ));
        }
        Ok(Header {
            ngates,
            nwires,
            input_widths,
            output_widths,
            outputs_line,
            inputs_line,
        })
    }
}

/// Parses a Fashion `n w_1 .. w_n` line (`what` is "input" or "output").
fn counted_list(toks: &[&str], what: &str) -> Result<Vec<u32>, String> {
    let Some((&count, widths)) = toks.split_first() else {
        return Err(format!("expected the {what} values line"));
    };
    let count = number(count, &format!("number of {what} values"))?;
    if widths.len() as u64 != u64::from(count) {
        return Err(format!(
            "the line declares {count} {what} values but lists {} widths",
            widths.len()
        ));
    }
    widths
        .iter()
        .map(|t| number(t, &format!("{what} width")))
        .collect()
}
