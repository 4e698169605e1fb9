//! Yosys's mapped netlist to mixgc's IR: each cell becomes XOR/AND/NOT gates with at most
//! one AND (TinyGarble thesis §3.2: OR, NAND, NOR and the inverted-input variants are one
//! AND with NOTs around it; MUX is s·(a⊕b)⊕a; XNOR is XOR+NOT).

use std::collections::HashMap;

use mixgc_circuit::sequential::Flop;
use mixgc_circuit::{Circuit, GateKind};

use crate::json::{location, Bit, Cell, Module};
use crate::ports::PortInfo;
use crate::HdlError;

/// Most gates (and wires) a synthesized circuit may have.
pub const MAX_GATES: u64 = 1 << 30;

/// What a mapped cell computes, by its type name (Yosys's internal `$_X_` gates or the
/// GC library's cells).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Buf,
    Not,
    And,
    Nand,
    Or,
    Nor,
    Xor,
    Xnor,
    /// A & !B
    AndNot,
    /// A | !B
    OrNot,
    /// S ? B : A
    Mux,
}

fn op(kind: &str) -> Option<Op> {
    Some(match kind {
        "$_BUF_" | "BUF" => Op::Buf,
        "$_NOT_" | "INV" => Op::Not,
        "$_AND_" | "AND" => Op::And,
        "$_NAND_" | "NAND" => Op::Nand,
        "$_OR_" | "OR" => Op::Or,
        "$_NOR_" | "NOR" => Op::Nor,
        "$_XOR_" | "XOR" => Op::Xor,
        "$_XNOR_" | "XNOR" => Op::Xnor,
        "$_ANDNOT_" | "ANDN" => Op::AndNot,
        "$_ORNOT_" | "ORN" => Op::OrNot,
        "$_MUX_" | "MUX" => Op::Mux,
        _ => return None,
    })
}

impl Op {
    fn inputs(self) -> &'static [&'static str] {
        match self {
            Op::Buf | Op::Not => &["A"],
            Op::Mux => &["A", "B", "S"],
            _ => &["A", "B"],
        }
    }
}

/// Circuit under construction.
#[derive(Default)]
struct Builder {
    c: Circuit,
    consts: [Option<u32>; 2],
}

impl Builder {
    fn push(&mut self, kind: GateKind, a: u32, b: u32) -> Result<u32, HdlError> {
        if u64::from(self.c.num_wires) >= MAX_GATES {
            return Err(HdlError::TooLarge {
                what: "wires",
                count: u64::from(self.c.num_wires),
                max: MAX_GATES,
            });
        }
        let out = self.c.num_wires;
        self.c.num_wires += 1;
        self.c.kind.push(kind);
        self.c.a.push(a);
        self.c.b.push(b);
        self.c.out.push(out);
        Ok(out)
    }

    fn not(&mut self, a: u32) -> Result<u32, HdlError> {
        self.push(GateKind::Not, a, 0)
    }

    fn constant(&mut self, value: bool) -> Result<u32, HdlError> {
        if let Some(w) = self.consts[usize::from(value)] {
            return Ok(w);
        }
        let w = self.push(GateKind::Const, u32::from(value), 0)?;
        self.consts[usize::from(value)] = Some(w);
        Ok(w)
    }

    /// The gates of one cell on input wires `x` (in [`Op::inputs`] order); returns its
    /// output wire.
    fn cell(&mut self, op: Op, x: &[u32]) -> Result<u32, HdlError> {
        use GateKind::{And, Xor};
        Ok(match op {
            Op::Buf => x[0],
            Op::Not => self.not(x[0])?,
            Op::And => self.push(And, x[0], x[1])?,
            Op::Nand => {
                let t = self.push(And, x[0], x[1])?;
                self.not(t)?
            }
            Op::Or | Op::Nor => {
                let (na, nb) = (self.not(x[0])?, self.not(x[1])?);
                let t = self.push(And, na, nb)?;
                if op == Op::Or {
                    self.not(t)?
                } else {
                    t
                }
            }
            Op::Xor => self.push(Xor, x[0], x[1])?,
            Op::Xnor => {
                let t = self.push(Xor, x[0], x[1])?;
                self.not(t)?
            }
            Op::AndNot => {
                let nb = self.not(x[1])?;
                self.push(And, x[0], nb)?
            }
            Op::OrNot => {
                let na = self.not(x[0])?;
                let t = self.push(And, na, x[1])?;
                self.not(t)?
            }
            Op::Mux => {
                let d = self.push(Xor, x[0], x[1])?;
                let t = self.push(And, x[2], d)?;
                self.push(Xor, t, x[0])?
            }
        })
    }
}

/// A mapped cell: its operation, input bits and output net.
struct Mapped<'a> {
    name: &'a str,
    cell: &'a Cell,
    op: Op,
    inputs: Vec<Bit>,
    output: Option<u64>,
}

fn one_bit(name: &str, cell: &Cell, port: &str) -> Result<Bit, HdlError> {
    match cell.connections.get(port).map(Vec::as_slice) {
        Some([bit]) => Ok(bit.clone()),
        _ => Err(HdlError::BadCellPort {
            cell: name.to_string(),
            port: port.to_string(),
        }),
    }
}

/// A flip-flop of the mapped netlist (`$_DFF_P_` on the clock).
struct MappedFlop {
    d: Bit,
    q: u64,
    name: String,
    init: bool,
}

/// The `$_DFF_P_` cells of a clocked module (clock net `clk`) with their registers' names
/// and initial values; any other flip-flop, or one on another clock, is an error.
/// A register initialized from an init port (see [`crate::init_register`]) needs no initial
/// value in the source: its flops get `false` here and the port's bits in the netlist.
/// `aliases` maps other names of such registers' bits (in the design as written) to theirs.
fn flops(
    module: &Module,
    clk: u64,
    init_registers: &[String],
    aliases: &HashMap<String, String>,
) -> Result<Vec<MappedFlop>, HdlError> {
    // Each net's name (a bit of a named wire) and initial value, from the netnames.
    let mut names: HashMap<u64, (String, Option<bool>)> = HashMap::new();
    // Every name of each net bit (`assign out = r;` names r's bits twice).
    let mut names_of: HashMap<u64, Vec<String>> = HashMap::new();
    for (net_name, net) in &module.netnames {
        let init: Vec<char> = match net.attributes.get("init").and_then(|v| v.as_str()) {
            Some(bits) => bits.chars().rev().collect(),
            None => Vec::new(),
        };
        for (i, bit) in net.bits.iter().enumerate() {
            let Bit::Net(n) = bit else { continue };
            let name = if net.bits.len() == 1 {
                net_name.clone()
            } else {
                format!("{net_name}[{i}]")
            };
            let value = match init.get(i) {
                Some('0') => Some(false),
                Some('1') => Some(true),
                _ => None,
            };
            names_of.entry(*n).or_default().push(name.clone());
            let entry = names.entry(*n).or_insert((name.clone(), None));
            if net.hide_name == 0 && entry.0.starts_with('$') {
                entry.0 = name;
            }
            entry.1 = entry.1.or(value);
        }
    }
    let mut out = Vec::new();
    for (cell_name, cell) in &module.cells {
        let kind = cell.kind.as_str();
        if !(kind.contains("DFF") || kind.contains("dff")) {
            continue;
        }
        let loc = || location(&cell.attributes, cell_name);
        if kind != "$_DFF_P_" {
            return Err(HdlError::Unsupported {
                location: loc(),
                construct: format!("the flip-flop `{kind}` (cell {cell_name})"),
                why: "registers load at the rising edge of `clk`, without asynchronous reset".to_string(),
            });
        }
        if one_bit(cell_name, cell, "C")? != Bit::Net(clk) {
            return Err(HdlError::Unsupported {
                location: loc(),
                construct: format!("a second clock (flip-flop `{cell_name}` is not clocked by `clk`)"),
                why: "a sequential design has one clock, the input port `clk`".to_string(),
            });
        }
        let d = one_bit(cell_name, cell, "D")?;
        let Bit::Net(q) = one_bit(cell_name, cell, "Q")? else {
            return Err(HdlError::BadCellPort {
                cell: cell_name.clone(),
                port: "Q".to_string(),
            });
        };
        let (mut name, init) = names
            .get(&q)
            .cloned()
            .unwrap_or_else(|| (cell_name.clone(), None));
        // A register set by an init port goes by the register's name, whatever its aliases.
        let port_name = names_of
            .get(&q)
            .into_iter()
            .flatten()
            .map(|alias| aliases.get(alias).unwrap_or(alias))
            .find(|alias| init_registers.iter().any(|r| register_bit(alias, r).is_some()));
        let from_port = port_name.is_some();
        if let Some(alias) = port_name {
            name = alias.clone();
        }
        let init = match init {
            Some(v) => v,
            None if from_port => false,
            None => {
                return Err(HdlError::NoInitialValue {
                    register: name.clone(),
                })
            }
        };
        out.push(MappedFlop { d, q, name, init });
    }
    // A stable order: by register name.
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The bit of register `register` that the flop named `name` holds (`r` for a 1-bit
/// register, `r[i]` for bit i).
pub fn register_bit(name: &str, register: &str) -> Option<u32> {
    if name == register {
        return Some(0);
    }
    name.strip_prefix(register)?
        .strip_prefix('[')?
        .strip_suffix(']')?
        .parse()
        .ok()
}

/// Converts the top module of a mapped netlist into a circuit whose inputs are `inputs`
/// (port index, info) in that order and whose outputs are `outputs`. Cells are put in
/// topological order; a cycle is an error.
///
/// With a clock net `clk` (a sequential design), the flip-flops are cut out: their outputs
/// become one more input value (the state, after the ports) and their inputs one more
/// output value (the next state), and the returned [`Flop`]s link the two (the format of
/// `mixgc_circuit::sequential`). Without one, any flip-flop is an error.
pub fn convert(
    module: &Module,
    inputs: &[(usize, PortInfo)],
    outputs: &[(usize, PortInfo)],
    clk: Option<u64>,
    init_registers: &[String],
    aliases: &HashMap<String, String>,
) -> Result<(Circuit, Vec<Flop>), HdlError> {
    let mut b = Builder::default();
    let mut wire_of: HashMap<u64, u32> = HashMap::new();
    let total_bits: u64 = inputs.iter().map(|(_, p)| u64::from(p.width)).sum();
    if total_bits >= MAX_GATES {
        return Err(HdlError::TooLarge {
            what: "input bits",
            count: total_bits,
            max: MAX_GATES,
        });
    }
    for (index, info) in inputs {
        b.c.input_widths.push(info.width);
        for bit in &module.ports.0[*index].1.bits {
            let w = b.c.num_wires;
            b.c.num_wires += 1;
            if let Bit::Net(n) = bit {
                wire_of.insert(*n, w);
            }
        }
    }
    let flops = match clk {
        Some(clk) => flops(module, clk, init_registers, aliases)?,
        None => Vec::new(),
    };
    let state_start = b.c.num_wires;
    if !flops.is_empty() {
        let width = u32::try_from(flops.len())
            .ok()
            .filter(|&w| u64::from(w) < MAX_GATES);
        let width = width.ok_or(HdlError::TooLarge {
            what: "flip-flops",
            count: flops.len() as u64,
            max: MAX_GATES,
        })?;
        b.c.input_widths.push(width);
        for f in &flops {
            wire_of.insert(f.q, b.c.num_wires);
            b.c.num_wires += 1;
        }
    }

    // Cells, their drivers, and a topological order (Kahn).
    let cells = mapped_cells(module, clk.is_some())?;
    if let Some(clk) = clk {
        if let Some(m) = cells.iter().find(|m| m.inputs.contains(&Bit::Net(clk))) {
            return Err(HdlError::ClockAsData {
                location: location(&m.cell.attributes, m.name),
                cell: m.name.to_string(),
            });
        }
    }
    let mut driver: HashMap<u64, usize> = HashMap::new();
    for (i, m) in cells.iter().enumerate() {
        if let Some(net) = m.output {
            if driver.insert(net, i).is_some() || wire_of.contains_key(&net) {
                return Err(HdlError::MultipleDrivers {
                    location: location(&m.cell.attributes, m.name),
                    net,
                });
            }
        }
    }
    let mut pending = vec![0usize; cells.len()];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); cells.len()];
    for (i, m) in cells.iter().enumerate() {
        for bit in &m.inputs {
            if let Bit::Net(n) = bit {
                if let Some(&d) = driver.get(n) {
                    pending[i] += 1;
                    readers[d].push(i);
                }
            }
        }
    }
    let mut ready: Vec<usize> = (0..cells.len()).filter(|&i| pending[i] == 0).collect();
    let mut done = 0usize;
    let mut x = Vec::with_capacity(3);
    while let Some(i) = ready.pop() {
        done += 1;
        let m = &cells[i];
        x.clear();
        for bit in &m.inputs {
            x.push(
                wire(&mut b, &wire_of, bit).ok_or_else(|| HdlError::UndefinedInput {
                    location: location(&m.cell.attributes, m.name),
                    cell: m.name.to_string(),
                })??,
            );
        }
        let out = b.cell(m.op, &x)?;
        if let Some(net) = m.output {
            wire_of.insert(net, out);
        }
        for &r in &readers[i] {
            pending[r] -= 1;
            if pending[r] == 0 {
                ready.push(r);
            }
        }
    }
    if done < cells.len() {
        let stuck = cells
            .iter()
            .zip(&pending)
            .find(|(_, &p)| p > 0)
            .map(|(m, _)| m)
            .expect("some cell is pending");
        return Err(HdlError::Loop {
            location: location(&stuck.cell.attributes, stuck.name),
            cell: stuck.name.to_string(),
        });
    }

    for (index, info) in outputs {
        b.c.output_widths.push(info.width);
        for (bit_index, bit) in module.ports.0[*index].1.bits.iter().enumerate() {
            let undefined = || HdlError::UndefinedOutput {
                port: info.name.clone(),
                bit: bit_index,
            };
            let w = wire(&mut b, &wire_of, bit).ok_or_else(undefined)??;
            b.c.output_wires.push(w);
        }
    }
    let port_output_bits = b.c.output_wires.len() as u64;
    let mut declared = Vec::with_capacity(flops.len());
    if !flops.is_empty() {
        b.c.output_widths.push(flops.len() as u32);
        for (i, f) in flops.iter().enumerate() {
            let w = wire(&mut b, &wire_of, &f.d).ok_or_else(|| HdlError::NoInitialValue {
                register: format!("{} (its next value is undefined)", f.name),
            })??;
            b.c.output_wires.push(w);
            let too_large = || HdlError::TooLarge {
                what: "output bits",
                count: port_output_bits + i as u64,
                max: u64::from(u32::MAX),
            };
            declared.push(Flop {
                d: u32::try_from(port_output_bits + i as u64).map_err(|_| too_large())?,
                q: state_start + i as u32,
                init: mixgc_circuit::sequential::FlopInit::Value(f.init),
                name: f.name.replace(|c: char| c.is_whitespace() || c == '#', "_"),
            });
        }
    }
    b.c.validate()?;
    Ok((b.c, declared))
}

/// The wire of a bit: a known net, or a constant gate; `None` for x/z or an undriven net.
fn wire(b: &mut Builder, wire_of: &HashMap<u64, u32>, bit: &Bit) -> Option<Result<u32, HdlError>> {
    match bit {
        Bit::Net(n) => wire_of.get(n).map(|&w| Ok(w)),
        Bit::Const(s) if s == "0" => Some(b.constant(false)),
        Bit::Const(s) if s == "1" => Some(b.constant(true)),
        Bit::Const(_) => None,
    }
}

/// The cells of `module` other than flip-flops (which [`flops`] takes when `clocked`).
fn mapped_cells(module: &Module, clocked: bool) -> Result<Vec<Mapped<'_>>, HdlError> {
    let mut cells = Vec::with_capacity(module.cells.len());
    for (name, cell) in &module.cells {
        if clocked && (cell.kind.contains("DFF") || cell.kind.contains("dff")) {
            continue;
        }
        let op = op(&cell.kind).ok_or_else(|| {
            let kind = cell.kind.clone();
            if kind.contains("DFF") || kind.contains("dff") {
                HdlError::Sequential {
                    location: location(&cell.attributes, name),
                    what: format!("a flip-flop (`{kind}`)"),
                }
            } else {
                HdlError::UnknownCell {
                    location: location(&cell.attributes, name),
                    kind,
                }
            }
        })?;
        let inputs = op
            .inputs()
            .iter()
            .map(|p| one_bit(name, cell, p))
            .collect::<Result<Vec<_>, _>>()?;
        let output = match one_bit(name, cell, "Y")? {
            Bit::Net(n) => Some(n),
            Bit::Const(_) => None,
        };
        cells.push(Mapped {
            name,
            cell,
            op,
            inputs,
            output,
        });
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::Design;
    use crate::ports::{Owner, PortInfo, PortPlan};

    /// A module with garbler inputs a, b, s (nets 2, 3, 4), output y (net 5) and `cells`.
    fn module(cells: &str) -> Module {
        let text = format!(
            r#"{{"modules":{{"m":{{"ports":{{
            "g_a":{{"direction":"input","bits":[2]}},"g_b":{{"direction":"input","bits":[3]}},
            "g_s":{{"direction":"input","bits":[4]}},"y":{{"direction":"output","bits":[5]}}}},
            "cells":{{{cells}}}}}}}}}"#
        );
        let mut d: Design = serde_json::from_str(&text).unwrap();
        d.modules.remove("m").unwrap()
    }

    fn ports() -> (PortPlan, PortPlan) {
        let p = |name: &str, owner| PortInfo {
            name: name.into(),
            width: 1,
            owner,
        };
        let g = Some(Owner::Garbler);
        (
            vec![(0, p("g_a", g)), (1, p("g_b", g)), (2, p("g_s", g))],
            vec![(3, p("y", None))],
        )
    }

    fn convert_cells(cells: &str) -> Result<Circuit, HdlError> {
        let (inputs, outputs) = ports();
        convert(&module(cells), &inputs, &outputs, None, &[], &HashMap::new()).map(|(c, _)| c)
    }

    #[test]
    fn every_cell_type_matches_its_truth_table_with_at_most_one_and() {
        type Model = fn(bool, bool, bool) -> bool;
        let cases: [(&[&str], Model); 11] = [
            (&["$_BUF_", "BUF"], |a, _, _| a),
            (&["$_NOT_", "INV"], |a, _, _| !a),
            (&["$_AND_", "AND"], |a, b, _| a & b),
            (&["$_NAND_", "NAND"], |a, b, _| !(a & b)),
            (&["$_OR_", "OR"], |a, b, _| a | b),
            (&["$_NOR_", "NOR"], |a, b, _| !(a | b)),
            (&["$_XOR_", "XOR"], |a, b, _| a ^ b),
            (&["$_XNOR_", "XNOR"], |a, b, _| !(a ^ b)),
            (&["$_ANDNOT_", "ANDN"], |a, b, _| a & !b),
            (&["$_ORNOT_", "ORN"], |a, b, _| a | !b),
            (&["$_MUX_", "MUX"], |a, b, s| if s { b } else { a }),
        ];
        for (names, model) in cases {
            for name in names {
                let cell =
                    format!(r#""c":{{"type":"{name}","connections":{{"A":[2],"B":[3],"S":[4],"Y":[5]}}}}"#);
                let c = convert_cells(&cell).unwrap();
                assert!(c.stats().ands <= 1, "{name}: {}", c.stats());
                for bits in 0..8u8 {
                    let (a, b, s) = (bits & 1 == 1, bits & 2 == 2, bits & 4 == 4);
                    let out = c.eval_plain(&[vec![a], vec![b], vec![s]]).unwrap();
                    assert_eq!(out[0][0], model(a, b, s), "{name} on {a} {b} {s}");
                }
            }
        }
    }

    #[test]
    fn cells_in_any_order_constants_and_errors() {
        // y = !(a & 1), the NOT listed before the AND it reads.
        let cells = r#""z":{"type":"$_NOT_","connections":{"A":[6],"Y":[5]}},
                       "a":{"type":"$_AND_","connections":{"A":[2],"B":["1"],"Y":[6]}}"#;
        let c = convert_cells(cells).unwrap();
        for a in [false, true] {
            assert_eq!(
                c.eval_plain(&[vec![a], vec![false], vec![false]]).unwrap()[0][0],
                !a
            );
        }
        let looped = r#""p":{"type":"$_AND_","connections":{"A":[2],"B":[6],"Y":[5]}},
                        "q":{"type":"$_XOR_","connections":{"A":[5],"B":[3],"Y":[6]}}"#;
        assert!(matches!(convert_cells(looped), Err(HdlError::Loop { .. })));
        let undefined = r#""p":{"type":"$_AND_","connections":{"A":[2],"B":["x"],"Y":[5]}}"#;
        assert!(matches!(
            convert_cells(undefined),
            Err(HdlError::UndefinedInput { .. })
        ));
        let twice = r#""p":{"type":"$_AND_","connections":{"A":[2],"B":[3],"Y":[5]}},
                       "q":{"type":"$_XOR_","connections":{"A":[2],"B":[3],"Y":[5]}}"#;
        assert!(matches!(
            convert_cells(twice),
            Err(HdlError::MultipleDrivers { .. })
        ));
        let odd = r#""p":{"type":"$_AOI3_","connections":{"A":[2],"B":[3],"C":[4],"Y":[5]}}"#;
        assert!(matches!(convert_cells(odd), Err(HdlError::UnknownCell { .. })));
        let flop = r#""p":{"type":"$_DFF_P_","connections":{"C":[2],"D":[3],"Q":[5]}}"#;
        assert!(matches!(convert_cells(flop), Err(HdlError::Sequential { .. })));
        assert!(matches!(convert_cells(""), Err(HdlError::UndefinedOutput { .. })));
    }
}
