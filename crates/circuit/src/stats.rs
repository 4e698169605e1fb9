//! Gate counts and AND depth.

use std::fmt;

use crate::writers::Writers;
use crate::{Circuit, GateKind};

/// Gate counts and multiplicative depth of a circuit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CircuitStats {
    /// All gates.
    pub gates: usize,
    /// `And` gates (the only ones that cost ciphertexts).
    pub ands: usize,
    /// `Xor` gates.
    pub xors: usize,
    /// `Not` gates.
    pub nots: usize,
    /// `Copy` gates (Bristol `EQW`).
    pub copies: usize,
    /// `Const` gates (Bristol `EQ`).
    pub consts: usize,
    /// The largest number of `And` gates on any path from an input (or constant) to an
    /// output; other gates add nothing.
    pub and_depth: u32,
}

impl fmt::Display for CircuitStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} gates ({} AND, {} XOR, {} NOT, {} copy, {} const), AND depth {}",
            self.gates, self.ands, self.xors, self.nots, self.copies, self.consts, self.and_depth
        )
    }
}

impl Circuit {
    /// Counts gates by kind and computes the AND depth. Never panics; on a circuit that
    /// [`Circuit::validate`] rejects the depth is not meaningful.
    pub fn stats(&self) -> CircuitStats {
        let mut s = CircuitStats {
            gates: self.kind.len(),
            ..CircuitStats::default()
        };
        for kind in &self.kind {
            match kind {
                GateKind::Xor => s.xors += 1,
                GateKind::And => s.ands += 1,
                GateKind::Not => s.nots += 1,
                GateKind::Copy => s.copies += 1,
                GateKind::Const => s.consts += 1,
            }
        }

        let n = self
            .kind
            .len()
            .min(self.a.len())
            .min(self.b.len())
            .min(self.out.len())
            .min(u32::MAX as usize - 1);
        let base = self.total_input_bits();
        let writers = Writers::build(self, base);
        let mut depth = vec![0u32; n];
        // Depth of a wire as seen by gate `before` (only earlier gates count).
        let wire_depth = |depth: &[u32], wire: u32, before: usize| match writers.get(wire) {
            Some(g) if g < before => depth[g],
            _ => 0,
        };
        for g in 0..n {
            let da = wire_depth(&depth, self.a[g], g);
            let db = wire_depth(&depth, self.b[g], g);
            depth[g] = match self.kind[g] {
                GateKind::And => da.max(db).saturating_add(1),
                GateKind::Xor => da.max(db),
                GateKind::Not | GateKind::Copy => da,
                GateKind::Const => 0,
            };
        }
        s.and_depth = self
            .output_wires
            .iter()
            .map(|&w| wire_depth(&depth, w, n))
            .max()
            .unwrap_or(0);
        s
    }
}
