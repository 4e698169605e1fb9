//! One gate line: `nin nout inputs.. outputs.. TYPE`.

use super::lex::{is_number, number, show};
use crate::{Circuit, GateKind};

/// Gate types as written in files.
#[derive(Clone, Copy)]
enum Op {
    Xor,
    And,
    Inv,
    Eq,
    Eqw,
    Mand,
    /// A gate the IR lacks, read as XOR, AND and NOT gates ([`decomposed`]).
    Composite(Composite),
}

/// Two-input gates of other collections (MOTION's circuits use OR) that the IR builds from
/// XOR, AND and NOT.
#[derive(Clone, Copy)]
enum Composite {
    Or,
    Nand,
    Nor,
    Xnor,
}

impl Op {
    fn from_name(name: &str) -> Option<Op> {
        const NAMES: [(&str, Op); 11] = [
            ("XOR", Op::Xor),
            ("AND", Op::And),
            ("INV", Op::Inv),
            ("NOT", Op::Inv),
            ("EQ", Op::Eq),
            ("EQW", Op::Eqw),
            ("MAND", Op::Mand),
            ("OR", Op::Composite(Composite::Or)),
            ("NAND", Op::Composite(Composite::Nand)),
            ("NOR", Op::Composite(Composite::Nor)),
            ("XNOR", Op::Composite(Composite::Xnor)),
        ];
        NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|&(_, op)| op)
    }

    fn name(self) -> &'static str {
        match self {
            Op::Xor => "XOR",
            Op::And => "AND",
            Op::Inv => "INV",
            Op::Eq => "EQ",
            Op::Eqw => "EQW",
            Op::Mand => "MAND",
            Op::Composite(Composite::Or) => "OR",
            Op::Composite(Composite::Nand) => "NAND",
            Op::Composite(Composite::Nor) => "NOR",
            Op::Composite(Composite::Xnor) => "XNOR",
        }
    }
}

/// Parses one gate line and appends its gate(s) to `c`. `OR`, `NAND`, `NOR` and `XNOR`
/// become XOR, AND and NOT gates (one AND at most) through new wires numbered from
/// `c.num_wires` on, after the `nwires` the header declares.
pub(super) fn gate(toks: &[&str], nwires: u32, c: &mut Circuit) -> Result<(), String> {
    const TYPES: &str = "XOR, AND, INV, EQ, EQW, MAND, OR, NAND, NOR or XNOR";
    let Some((&name, fields)) = toks.split_last() else {
        return Err("empty gate line".into());
    };
    if is_number(name) {
        return Err(format!(
            "a gate line must end with its type ({TYPES}), found {}",
            show(name)
        ));
    }
    let op =
        Op::from_name(name).ok_or_else(|| format!("unknown gate type {} (expected {TYPES})", show(name)))?;
    if fields.len() < 2 {
        return Err(format!(
            "a gate needs `nin nout inputs.. outputs.. {}`, found {} fields",
            op.name(),
            toks.len()
        ));
    }
    let nin = number(fields[0], "input count")?;
    let nout = number(fields[1], "output count")?;
    let (arity_ok, expected) = match op {
        Op::Xor | Op::And | Op::Composite(_) => (nin == 2 && nout == 1, "2 inputs and 1 output"),
        Op::Inv | Op::Eq | Op::Eqw => (nin == 1 && nout == 1, "1 input and 1 output"),
        Op::Mand => (
            nout >= 1 && u64::from(nin) == 2 * u64::from(nout),
            "2k inputs and k outputs, k >= 1",
        ),
    };
    if !arity_ok {
        return Err(format!(
            "{} takes {expected}, but the line says {nin} inputs and {nout} outputs",
            op.name()
        ));
    }
    let wires = &fields[2..];
    let needed = u64::from(nin) + u64::from(nout);
    if wires.len() as u64 != needed {
        return Err(format!(
            "{} with {nin} inputs and {nout} outputs needs {needed} wire numbers, found {}",
            op.name(),
            wires.len()
        ));
    }
    let wire = |tok: &str| -> Result<u32, String> {
        let w = number(tok, "wire")?;
        if w >= nwires {
            return Err(format!(
                "wire {w} is out of range (the header declares {nwires} wires)"
            ));
        }
        Ok(w)
    };
    if let Op::Composite(kind) = op {
        let (a, b, out) = (wire(wires[0])?, wire(wires[1])?, wire(wires[2])?);
        return decomposed(kind, op.name(), a, b, out, c);
    }
    let mut push = |kind: GateKind, a: u32, b: u32, out: u32| push_gate(c, kind, a, b, out);
    match op {
        Op::Xor => push(GateKind::Xor, wire(wires[0])?, wire(wires[1])?, wire(wires[2])?),
        Op::And => push(GateKind::And, wire(wires[0])?, wire(wires[1])?, wire(wires[2])?),
        Op::Inv => push(GateKind::Not, wire(wires[0])?, 0, wire(wires[1])?),
        Op::Eqw => push(GateKind::Copy, wire(wires[0])?, 0, wire(wires[1])?),
        Op::Eq => {
            let value = number(wires[0], "constant")?;
            if value > 1 {
                return Err(format!("the EQ constant must be 0 or 1, found {value}"));
            }
            push(GateKind::Const, value, 0, wire(wires[1])?);
        }
        Op::Mand => {
            let k = nout as usize;
            let (lhs, rest) = wires.split_at(k);
            let (rhs, outs) = rest.split_at(k);
            for i in 0..k {
                push(GateKind::And, wire(lhs[i])?, wire(rhs[i])?, wire(outs[i])?);
            }
        }
        Op::Composite(_) => {}
    }
    Ok(())
}

fn push_gate(c: &mut Circuit, kind: GateKind, a: u32, b: u32, out: u32) {
    c.kind.push(kind);
    c.a.push(a);
    c.b.push(b);
    c.out.push(out);
}

/// `out = a op b` for the gates the IR lacks, over new wires after the declared ones:
/// OR as a ⊕ b ⊕ (a ∧ b), NAND as ¬(a ∧ b), NOR as ¬a ∧ ¬b, XNOR as ¬(a ⊕ b).
fn decomposed(kind: Composite, name: &str, a: u32, b: u32, out: u32, c: &mut Circuit) -> Result<(), String> {
    let mut temp = || -> Result<u32, String> {
        let w = c.num_wires;
        c.num_wires = w
            .checked_add(1)
            .filter(|&n| n < u32::MAX)
            .ok_or_else(|| format!("{name} needs a new wire, but the circuit has {w} already"))?;
        Ok(w)
    };
    use GateKind::{And, Not, Xor};
    match kind {
        Composite::Or => {
            let (t, u) = (temp()?, temp()?);
            push_gate(c, And, a, b, t);
            push_gate(c, Xor, a, b, u);
            push_gate(c, Xor, t, u, out);
        }
        Composite::Nand => {
            let t = temp()?;
            push_gate(c, And, a, b, t);
            push_gate(c, Not, t, 0, out);
        }
        Composite::Nor => {
            let (t, u) = (temp()?, temp()?);
            push_gate(c, Not, a, 0, t);
            push_gate(c, Not, b, 0, u);
            push_gate(c, And, t, u, out);
        }
        Composite::Xnor => {
            let t = temp()?;
            push_gate(c, Xor, a, b, t);
            push_gate(c, Not, t, 0, out);
        }
    }
    Ok(())
}
