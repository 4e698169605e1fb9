//! Sequential netlists (TinyGarble, thesis §3.2–3.3.1): a combinational core garbled once a
//! clock cycle, with flip-flops carrying core outputs of cycle t to core inputs of cycle
//! t + 1. Flip-flops cost nothing: in two-party execution their labels pass straight from
//! one cycle's outputs to the next cycle's inputs.
//!
//! The text format (`docs/hdl.md`), one declaration a line, `#` comments allowed before
//! `core`:
//!
//! ```text
//! mixgc-sequential 1
//! inputs N                      # input ports, in core input order
//! input NAME WIDTH OWNER MODE   # OWNER garbler|evaluator, MODE cycle|once|init
//! outputs M
//! output NAME WIDTH
//! flops F
//! flop D Q INIT NAME            # core output bit D feeds core input wire Q next cycle
//! core
//! <Bristol Fashion circuit>
//! ```
//!
//! The core's input values are the ports that are not `init` ports, in order, then, if
//! F > 0, one state value of F bits; its output values are the M ports then, if F > 0, one
//! next-state value of F bits. Each flop names a bit of the next-state value (D, an index
//! into the core's output bits) and a wire of the state value (Q), each exactly once; INIT
//! is the register's value at cycle 0: `0` or `1` (public), or `PORT[i]`, bit i of an `init`
//! port (the issue's "initial flip-flop values … from a party"). A `once` port is read at
//! cycle 0 and its value held for every cycle; a `cycle` port takes a value each cycle; an
//! `init` port is read once, before cycle 0, and only sets registers (each of its bits
//! initializes exactly one flop).

use std::fmt::Write as _;
use std::path::Path;

use crate::{bristol, Circuit, ParseError, PartyId};

/// The first line of a sequential netlist file.
pub const MAGIC: &str = "mixgc-sequential 1";
/// Most ports or flip-flops a sequential netlist may declare.
pub const MAX_DECLARATIONS: u64 = 1 << 24;
/// Largest sequential netlist file read.
pub const MAX_FILE_BYTES: u64 = 1 << 32;

/// When an input port takes its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputMode {
    /// A new value every cycle.
    PerCycle,
    /// One value, read at cycle 0 and held for every cycle.
    Once,
    /// One value, read before cycle 0, whose bits are registers' initial values (not a
    /// core input).
    Init,
}

/// A register's value at cycle 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlopInit {
    /// A public constant.
    Value(bool),
    /// Bit `bit` of input port `port` (an [`InputMode::Init`] port): a party's secret.
    Input { port: usize, bit: u32 },
}

/// An input port of a sequential netlist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeqInput {
    pub name: String,
    pub width: u32,
    pub owner: PartyId,
    pub mode: InputMode,
}

/// An output port of a sequential netlist.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeqOutput {
    pub name: String,
    pub width: u32,
}

/// A flip-flop: core output bit `d` becomes core input wire `q` at the next cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flop {
    /// Index into the core's output bits (within the next-state value).
    pub d: u32,
    /// Core input wire (within the state value).
    pub q: u32,
    /// Value at cycle 0.
    pub init: FlopInit,
    /// The register bit's name in the design (for reports).
    pub name: String,
}

/// A combinational core plus flip-flops; see the [module docs](self).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sequential {
    pub inputs: Vec<SeqInput>,
    pub outputs: Vec<SeqOutput>,
    pub flops: Vec<Flop>,
    pub core: Circuit,
}

/// Why a sequential netlist is not well formed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SeqError {
    #[error("the core has {got} {what} value(s); the ports and flip-flops need {want}")]
    ValueCount {
        what: &'static str,
        got: usize,
        want: usize,
    },
    #[error("port `{port}` is {port_width} bits but core {what} value {index} is {core_width}")]
    PortWidth {
        port: String,
        index: usize,
        port_width: u32,
        core_width: u32,
        what: &'static str,
    },
    #[error("{flops} flip-flops but a state value of {width} bits")]
    StateWidth { flops: usize, width: u32 },
    #[error("flip-flop `{name}`: {what} {value} is not a bit of the state (range {lo}..{hi})")]
    FlopOutOfRange {
        name: String,
        what: &'static str,
        value: u32,
        lo: u64,
        hi: u64,
    },
    #[error("flip-flop `{name}`: {what} {value} is used by another flip-flop too")]
    FlopTwice {
        name: String,
        what: &'static str,
        value: u32,
    },
    #[error("flip-flop `{name}`: its initial value {why}")]
    FlopInit { name: String, why: String },
    #[error("bit {bit} of init port `{port}` initializes no flip-flop")]
    InitBitUnused { port: String, bit: u32 },
    #[error("{0}")]
    Values(String),
}

impl Sequential {
    /// Bits of the state (the number of flip-flops).
    pub fn state_bits(&self) -> usize {
        self.flops.len()
    }

    /// Checks the ports and flip-flops against the core.
    pub fn validate(&self) -> Result<(), SeqError> {
        let has_state = usize::from(!self.flops.is_empty());
        let c = &self.core;
        let core_ports = self.core_ports().count();
        for (what, got, want) in [
            ("input", c.input_widths.len(), core_ports + has_state),
            ("output", c.output_widths.len(), self.outputs.len() + has_state),
        ] {
            if got != want {
                return Err(SeqError::ValueCount { what, got, want });
            }
        }
        let widths = self
            .core_ports()
            .map(|i| (&self.inputs[i].name, self.inputs[i].width));
        let outs = self.outputs.iter().map(|p| (&p.name, p.width));
        for (what, ports, core) in [
            ("input", widths.collect::<Vec<_>>(), &c.input_widths),
            ("output", outs.collect::<Vec<_>>(), &c.output_widths),
        ] {
            for (index, ((name, w), &cw)) in ports.iter().zip(core.iter()).enumerate() {
                if *w != cw {
                    return Err(SeqError::PortWidth {
                        port: name.to_string(),
                        index,
                        port_width: *w,
                        core_width: cw,
                        what,
                    });
                }
            }
        }
        if has_state == 0 {
            return Ok(());
        }
        let f = self.flops.len();
        for w in [c.input_widths.last(), c.output_widths.last()]
            .into_iter()
            .flatten()
        {
            if *w as usize != f {
                return Err(SeqError::StateWidth { flops: f, width: *w });
            }
        }
        let q_lo = u64::from(self.state_input_start());
        let d_lo: u64 = self.outputs.iter().map(|p| u64::from(p.width)).sum();
        let (mut seen_d, mut seen_q) = (vec![false; f], vec![false; f]);
        for flop in &self.flops {
            for (what, value, lo, seen) in [
                ("output bit", flop.d, d_lo, &mut seen_d),
                ("input wire", flop.q, q_lo, &mut seen_q),
            ] {
                let i = u64::from(value).wrapping_sub(lo);
                if u64::from(value) < lo || i >= f as u64 {
                    return Err(SeqError::FlopOutOfRange {
                        name: flop.name.clone(),
                        what,
                        value,
                        lo,
                        hi: lo + f as u64,
                    });
                }
                if std::mem::replace(&mut seen[i as usize], true) {
                    return Err(SeqError::FlopTwice {
                        name: flop.name.clone(),
                        what,
                        value,
                    });
                }
            }
        }
        self.validate_inits()
    }

    /// Checks that every party-given initial value names a bit of an `init` port, and that
    /// each bit of every `init` port initializes exactly one flop.
    fn validate_inits(&self) -> Result<(), SeqError> {
        let mut used: Vec<Vec<bool>> = self
            .inputs
            .iter()
            .map(|p| {
                if p.mode == InputMode::Init {
                    vec![false; p.width as usize]
                } else {
                    Vec::new()
                }
            })
            .collect();
        for flop in &self.flops {
            let FlopInit::Input { port, bit } = flop.init else {
                continue;
            };
            let why = |why: String| SeqError::FlopInit {
                name: flop.name.clone(),
                why,
            };
            let Some(p) = self.inputs.get(port) else {
                return Err(why(format!("names input port {port}, which does not exist")));
            };
            if p.mode != InputMode::Init {
                return Err(why(format!("names port `{}`, which is not an init port", p.name)));
            }
            if bit >= p.width {
                return Err(why(format!(
                    "names bit {bit} of the {}-bit port `{}`",
                    p.width, p.name
                )));
            }
            if std::mem::replace(&mut used[port][bit as usize], true) {
                return Err(why(format!(
                    "{}[{bit}] initializes another flip-flop too",
                    p.name
                )));
            }
        }
        for (port, bits) in used.iter().enumerate() {
            if let Some(bit) = bits.iter().position(|u| !u) {
                return Err(SeqError::InitBitUnused {
                    port: self.inputs[port].name.clone(),
                    bit: bit as u32,
                });
            }
        }
        Ok(())
    }

    /// Indices of the ports that are core inputs (all but the `init` ports), in core order.
    pub fn core_ports(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.inputs.len()).filter(|&i| self.inputs[i].mode != InputMode::Init)
    }

    /// The registers' initial values, in state-wire order.
    pub fn initial_state(&self) -> Vec<FlopInit> {
        let mut s = vec![FlopInit::Value(false); self.flops.len()];
        let lo = self.state_input_start();
        for f in &self.flops {
            s[(f.q - lo) as usize] = f.init.clone();
        }
        s
    }

    /// The initial state given the values of the `init` ports (`init_value(port)`, asked
    /// once per init port).
    pub fn initial_values(&self, mut init_value: impl FnMut(usize) -> Vec<bool>) -> Vec<bool> {
        let values: Vec<Option<Vec<bool>>> = (0..self.inputs.len())
            .map(|i| (self.inputs[i].mode == InputMode::Init).then(|| init_value(i)))
            .collect();
        self.initial_state()
            .into_iter()
            .map(|init| match init {
                FlopInit::Value(v) => v,
                FlopInit::Input { port, bit } => values[port]
                    .as_ref()
                    .and_then(|v| v.get(bit as usize).copied())
                    .unwrap_or(false),
            })
            .collect()
    }

    /// The first core input wire of the state value.
    fn state_input_start(&self) -> u32 {
        self.core_ports().map(|i| self.inputs[i].width).sum()
    }

    /// For each state wire (in order), the index of the next-state bit that feeds it.
    pub fn next_state_sources(&self) -> Vec<usize> {
        let (q_lo, d_lo) = (
            self.state_input_start(),
            self.outputs.iter().map(|p| p.width).sum::<u32>(),
        );
        let mut src = vec![0usize; self.flops.len()];
        for f in &self.flops {
            src[(f.q - q_lo) as usize] = (f.d - d_lo) as usize;
        }
        src
    }

    /// A digest of the whole netlist (core, ports, flip-flops), for the two parties'
    /// handshake.
    pub fn digest(&self) -> [u8; 32] {
        let mut h = blake3::Hasher::new();
        h.update(b"mixgc-sequential-digest-v1\n");
        h.update(&self.core.digest());
        h.update(self.header_text().as_bytes());
        *h.finalize().as_bytes()
    }

    /// Plaintext reference: runs `cycles` cycles; `input(port, cycle)` gives each port's
    /// value (once and init ports are asked at cycle 0 only). Returns the outputs of every
    /// cycle.
    pub fn eval_plain(
        &self,
        cycles: u64,
        mut input: impl FnMut(usize, u64) -> Vec<bool>,
    ) -> Result<Vec<Vec<Vec<bool>>>, SeqError> {
        let mut state = self.initial_values(|port| input(port, 0));
        let src = self.next_state_sources();
        let mut held: Vec<Option<Vec<bool>>> = vec![None; self.inputs.len()];
        let mut all = Vec::new();
        for t in 0..cycles {
            let mut values = Vec::with_capacity(self.inputs.len() + 1);
            for i in self.core_ports() {
                let p = &self.inputs[i];
                let v = match (&held[i], p.mode) {
                    (Some(v), InputMode::Once) => v.clone(),
                    _ => {
                        let v = input(i, t);
                        if p.mode == InputMode::Once {
                            held[i] = Some(v.clone());
                        }
                        v
                    }
                };
                values.push(v);
            }
            if !state.is_empty() {
                values.push(state.clone());
            }
            let mut outs = self
                .core
                .eval_plain(&values)
                .map_err(|e| SeqError::Values(e.to_string()))?;
            if !state.is_empty() {
                let next = outs.pop().expect("validated: a next-state value");
                state = src.iter().map(|&s| next[s]).collect();
            }
            all.push(outs);
        }
        Ok(all)
    }

    /// The declarations before `core`, as written.
    fn header_text(&self) -> String {
        let mut s = format!("{MAGIC}\ninputs {}\n", self.inputs.len());
        for p in &self.inputs {
            let owner = if p.owner == PartyId::GARBLER {
                "garbler"
            } else {
                "evaluator"
            };
            let mode = match p.mode {
                InputMode::PerCycle => "cycle",
                InputMode::Once => "once",
                InputMode::Init => "init",
            };
            let _ = writeln!(s, "input {} {} {owner} {mode}", p.name, p.width);
        }
        let _ = writeln!(s, "outputs {}", self.outputs.len());
        for p in &self.outputs {
            let _ = writeln!(s, "output {} {}", p.name, p.width);
        }
        let _ = writeln!(s, "flops {}", self.flops.len());
        for f in &self.flops {
            let init = match &f.init {
                FlopInit::Value(v) => u8::from(*v).to_string(),
                FlopInit::Input { port, bit } => format!("{}[{bit}]", self.inputs[*port].name),
            };
            let _ = writeln!(s, "flop {} {} {init} {}", f.d, f.q, f.name);
        }
        s + "core\n"
    }

    /// Writes the netlist in the text format.
    pub fn write<W: std::io::Write>(&self, mut w: W) -> std::io::Result<()> {
        w.write_all(self.header_text().as_bytes())?;
        bristol::write_fashion(&self.core, w)
    }

    /// Whether `text` starts like a sequential netlist.
    pub fn detect(text: &str) -> bool {
        text.trim_start_matches('\u{feff}')
            .starts_with("mixgc-sequential")
    }

    /// Reads a sequential netlist from a file (at most [`MAX_FILE_BYTES`]).
    pub fn read_file(path: &Path) -> Result<Sequential, ParseError> {
        let file = path.display().to_string();
        let err = |reason: String| ParseError::new(&file, 0, reason);
        let len = std::fs::metadata(path)
            .map_err(|e| err(format!("cannot read: {e}")))?
            .len();
        if len > MAX_FILE_BYTES {
            return Err(err(format!(
                "{len} bytes, more than the limit of {MAX_FILE_BYTES}"
            )));
        }
        let text = std::fs::read_to_string(path).map_err(|e| err(format!("cannot read: {e}")))?;
        Sequential::parse(&text, &file)
    }

    /// Parses the text format; `source` names the text in errors. Every count is checked
    /// against the lines left in the text before anything is allocated for it.
    pub fn parse(text: &str, source: &str) -> Result<Sequential, ParseError> {
        let text = text.trim_start_matches('\u{feff}');
        let mut r = Reader {
            source,
            lines: text.split_inclusive('\n'),
            line: 0,
            remaining: text.lines().count(),
            consumed: 0,
        };
        let first = r.next("the first line")?;
        if first.join(" ") != MAGIC {
            return Err(r.error(format!("expected `{MAGIC}`, found `{}`", first.join(" "))));
        }
        let n = r.count("inputs")?;
        let mut inputs = Vec::with_capacity(n);
        for _ in 0..n {
            let f = r.fields("input", 4)?;
            let width = r.number(f[1], "a width")?;
            let owner = match f[2] {
                "garbler" => PartyId::GARBLER,
                "evaluator" => PartyId::EVALUATOR,
                o => return Err(r.error(format!("owner `{o}`: expected garbler or evaluator"))),
            };
            let mode = match f[3] {
                "cycle" => InputMode::PerCycle,
                "once" => InputMode::Once,
                "init" => InputMode::Init,
                m => return Err(r.error(format!("mode `{m}`: expected cycle, once or init"))),
            };
            inputs.push(SeqInput {
                name: f[0].to_string(),
                width,
                owner,
                mode,
            });
        }
        let m = r.count("outputs")?;
        let mut outputs = Vec::with_capacity(m);
        for _ in 0..m {
            let f = r.fields("output", 2)?;
            let width = r.number(f[1], "a width")?;
            outputs.push(SeqOutput {
                name: f[0].to_string(),
                width,
            });
        }
        let nf = r.count("flops")?;
        let mut flops = Vec::with_capacity(nf);
        for _ in 0..nf {
            let f = r.fields("flop", 4)?;
            let init = match f[2] {
                "0" => FlopInit::Value(false),
                "1" => FlopInit::Value(true),
                v => r.init_bit(v, &inputs)?,
            };
            flops.push(Flop {
                d: r.number(f[0], "an output bit")?,
                q: r.number(f[1], "an input wire")?,
                init,
                name: f[3].to_string(),
            });
        }
        let core_line = r.next("`core`")?;
        if core_line != ["core"] {
            return Err(r.error(format!("expected `core`, found `{}`", core_line.join(" "))));
        }
        let header_lines = r.line;
        let core =
            bristol::parse_as(&text[r.consumed..], source, bristol::Format::Fashion).map_err(|mut e| {
                if e.line > 0 {
                    e.line += header_lines;
                }
                e
            })?;
        let seq = Sequential {
            inputs,
            outputs,
            flops,
            core,
        };
        seq.validate()
            .map_err(|e| ParseError::new(source, 0, e.to_string()))?;
        Ok(seq)
    }
}

/// Line reader for the declarations.
struct Reader<'a, I: Iterator<Item = &'a str>> {
    source: &'a str,
    lines: I,
    line: usize,
    remaining: usize,
    consumed: usize,
}

impl<'a, I: Iterator<Item = &'a str>> Reader<'a, I> {
    fn error(&self, reason: String) -> ParseError {
        ParseError::new(self.source, self.line, reason)
    }

    /// The next line that is not blank or a comment, as fields.
    fn next(&mut self, what: &str) -> Result<Vec<&'a str>, ParseError> {
        loop {
            let Some(raw) = self.lines.next() else {
                return Err(self.error(format!("the file ends where {what} should be")));
            };
            self.line += 1;
            self.remaining = self.remaining.saturating_sub(1);
            self.consumed += raw.len();
            let content = raw.split('#').next().unwrap_or("");
            let fields: Vec<&str> = content.split_whitespace().collect();
            if !fields.is_empty() {
                return Ok(fields);
            }
        }
    }

    /// `KEYWORD F1 … Fn`: the n fields after the keyword.
    fn fields(&mut self, keyword: &str, n: usize) -> Result<Vec<&'a str>, ParseError> {
        let f = self.next(&format!("an `{keyword}` line"))?;
        if f[0] != keyword || f.len() != n + 1 {
            return Err(self.error(format!(
                "expected `{keyword}` and {n} fields, found `{}`",
                f.join(" ")
            )));
        }
        Ok(f[1..].to_vec())
    }

    /// `PORT[BIT]`: a bit of an `init` port (checked against the port by `validate`).
    fn init_bit(&self, v: &str, inputs: &[SeqInput]) -> Result<FlopInit, ParseError> {
        let bad = || {
            self.error(format!(
                "initial value `{v}`: expected 0, 1 or PORT[BIT] (a bit of an init port)"
            ))
        };
        let (name, rest) = v.split_once('[').ok_or_else(bad)?;
        let bit = rest.strip_suffix(']').ok_or_else(bad)?;
        let bit = self.number(bit, "a bit index")?;
        let port = inputs
            .iter()
            .position(|p| p.name == name)
            .ok_or_else(|| self.error(format!("initial value `{v}`: no input port is named `{name}`")))?;
        Ok(FlopInit::Input { port, bit })
    }

    fn number(&self, s: &str, what: &str) -> Result<u32, ParseError> {
        s.parse()
            .map_err(|_| self.error(format!("`{s}` is not {what} (a number below 2^32)")))
    }

    /// `KEYWORD COUNT`, with COUNT bounded by the lines left in the file.
    fn count(&mut self, keyword: &str) -> Result<usize, ParseError> {
        let f = self.fields(keyword, 1)?;
        let n: u64 = f[0]
            .parse()
            .map_err(|_| self.error(format!("`{}` is not a count", f[0])))?;
        if n > MAX_DECLARATIONS || n > self.remaining as u64 {
            return Err(self.error(format!(
                "{keyword} {n}: more than the {} line(s) left in the file (limit {MAX_DECLARATIONS})",
                self.remaining
            )));
        }
        Ok(n as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2-bit counter with an enable from the garbler: out = count, count += en.
    fn counter() -> Sequential {
        // Wires: en 0, state s0 s1 (1, 2); next = (s0 ^ en, s1 ^ (s0 & en)).
        let mut c = Circuit {
            num_wires: 7,
            input_widths: vec![1, 2],
            output_widths: vec![2, 2],
            ..Circuit::default()
        };
        use crate::GateKind::*;
        for (k, a, b, out) in [(Xor, 0, 1, 3), (And, 0, 1, 4), (Xor, 4, 2, 5), (Copy, 1, 0, 6)] {
            c.kind.push(k);
            c.a.push(a);
            c.b.push(b);
            c.out.push(out);
        }
        c.output_wires = vec![6, 2, 3, 5];
        c.validate().unwrap();
        Sequential {
            inputs: vec![SeqInput {
                name: "g_en".into(),
                width: 1,
                owner: PartyId::GARBLER,
                mode: InputMode::PerCycle,
            }],
            outputs: vec![SeqOutput {
                name: "count".into(),
                width: 2,
            }],
            flops: vec![
                Flop {
                    d: 2,
                    q: 1,
                    init: FlopInit::Value(true),
                    name: "cnt[0]".into(),
                },
                Flop {
                    d: 3,
                    q: 2,
                    init: FlopInit::Value(false),
                    name: "cnt[1]".into(),
                },
            ],
            core: c,
        }
    }

    fn value(bits: &[bool]) -> u32 {
        bits.iter().rev().fold(0, |acc, &b| acc << 1 | u32::from(b))
    }

    #[test]
    fn counter_counts_and_round_trips() {
        let s = counter();
        s.validate().unwrap();
        let en = [true, true, false, true, true, true];
        let outs = s
            .eval_plain(en.len() as u64, |_, t| vec![en[t as usize]])
            .unwrap();
        let mut model = 1u32;
        for (t, o) in outs.iter().enumerate() {
            assert_eq!(value(&o[0]), model, "cycle {t}");
            model = (model + u32::from(en[t])) % 4;
        }
        let mut text = Vec::new();
        s.write(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(Sequential::detect(&text));
        let back = Sequential::parse(&text, "t").unwrap();
        let mut again = Vec::new();
        back.write(&mut again).unwrap();
        assert_eq!(String::from_utf8(again).unwrap(), text);
        let back_outs = back
            .eval_plain(en.len() as u64, |_, t| vec![en[t as usize]])
            .unwrap();
        assert_eq!(back_outs, outs);
        assert_eq!(back.flops, s.flops);
    }

    #[test]
    fn bad_files_are_named() {
        let mut text = Vec::new();
        counter().write(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let err = |t: &str| Sequential::parse(t, "f").unwrap_err().to_string();
        assert!(err("hello\n").contains("expected `mixgc-sequential 1`"));
        let e = err(&text.replace("flops 2", "flops 99999999999"));
        assert!(e.contains("more than the") && e.starts_with("f:"), "{e}");
        let e = err(&text.replace("inputs 1", "inputs 4000000000"));
        assert!(e.contains("more than the"), "{e}");
        let e = err(&text.replace("flop 3 2 0", "flop 2 2 1"));
        assert!(e.contains("used by another flip-flop"), "{e}");
        let e = err(&text.replace("flop 3 2 0", "flop 9 2 1"));
        assert!(e.contains("not a bit of the state"), "{e}");
        let e = err(&text.replace("flop 3 2 0", "flop 3 2 x"));
        assert!(e.contains("initial value `x`") && e.starts_with("f:8"), "{e}");
        let e = err(&text.replace("garbler cycle", "bob cycle"));
        assert!(e.contains("owner `bob`"), "{e}");
        let e = err(&text.replace("output count 2", "output count 3"));
        assert!(e.contains("port `count` is 3 bits"), "{e}");
        let e = err(text.split("core\n").next().unwrap());
        assert!(e.contains("the file ends where `core`"), "{e}");
        let e = err(&(text.clone() + "garbage\n"));
        assert!(e.starts_with("f:"), "{e}");
    }

    #[test]
    fn truncated_or_damaged_files_are_errors_not_panics() {
        let mut text = Vec::new();
        counter().write(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        for end in 0..text.len() {
            let _ = Sequential::parse(&text[..end], "f");
        }
        let lines: Vec<&str> = text.lines().collect();
        for skip in (0..lines.len()).filter(|&i| !lines[i].trim().is_empty()) {
            let damaged: Vec<&str> = lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, l)| *l)
                .collect();
            assert!(
                Sequential::parse(&damaged.join("\n"), "f").is_err(),
                "line {skip} left out"
            );
        }
        for (from, to) in [
            ("flop 2 1", "flop 4294967295 1"),
            ("flop 2 1", "flop 2 4294967295"),
            ("g_en 1", "g_en 0"),
        ] {
            assert!(Sequential::parse(&text.replace(from, to), "f").is_err(), "{to}");
        }
    }
}
