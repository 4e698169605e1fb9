//! A [`HaacCircuit`] back to a mixgc [`Circuit`], gate for gate in instruction order, so that
//! the software engine computes exactly the stream the model times (`mixgc run` on a
//! `.haac` file).

use mixgc_circuit::{Circuit, GateKind};

use crate::io::{HaacCircuit, IoError};
use crate::isa::Op;

/// The circuit of `hc` (validated first): HAAC wire `w` is circuit wire `w − 1`; the public
/// constant wires are Const gates first, then one gate per instruction in program order (a
/// `Nop`, which writes no wire that is read, becomes a Const 0 gate so the numbering holds).
/// Run in program order (`Layout::Reordered(Reorder::Program, _)`), its garbled stream is
/// the HAAC instruction stream.
pub fn to_circuit(hc: &HaacCircuit) -> Result<Circuit, IoError> {
    hc.validate()?;
    let p = &hc.program;
    let value_bits = hc.io.input_bits() as u32;
    let gates = hc.io.constants.len() + p.instructions.len();
    let mut c = Circuit {
        num_wires: p.inputs + p.instructions.len() as u32,
        input_widths: hc.io.input_widths.clone(),
        output_widths: hc.io.output_widths.clone(),
        output_wires: p.outputs.iter().map(|&w| w - 1).collect(),
        kind: Vec::with_capacity(gates),
        a: Vec::with_capacity(gates),
        b: Vec::with_capacity(gates),
        out: Vec::with_capacity(gates),
    };
    let mut push = |kind, a, b, out| {
        c.kind.push(kind);
        c.a.push(a);
        c.b.push(b);
        c.out.push(out);
    };
    for (k, &value) in hc.io.constants.iter().enumerate() {
        push(GateKind::Const, u32::from(value), 0, value_bits + k as u32);
    }
    for (i, ins) in p.instructions.iter().enumerate() {
        let out = p.output_wire(i) - 1;
        match ins.op {
            Op::Xor => push(GateKind::Xor, ins.a - 1, ins.b - 1, out),
            Op::And => push(GateKind::And, ins.a - 1, ins.b - 1, out),
            Op::Not => push(GateKind::Not, ins.a - 1, 0, out),
            Op::Nop => push(GateKind::Const, 0, 0, out),
        }
    }
    Ok(c)
}
