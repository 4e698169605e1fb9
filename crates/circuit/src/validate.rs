//! Structural checks: is a [`Circuit`] well formed?

use crate::writers::Writers;
use crate::{Circuit, CircuitError, GateKind};

impl Circuit {
    /// Checks that the circuit is well formed:
    ///
    /// - the gate arrays `kind`, `a`, `b`, `out` have equal lengths;
    /// - the input values fit in `num_wires` (they occupy wires `0..total_input_bits()`);
    /// - `output_widths` add up to `output_wires.len()`;
    /// - every wire a gate reads or writes is `< num_wires`;
    /// - every wire a gate reads is a circuit input or the output of an *earlier* gate
    ///   (the gates are in topological order);
    /// - no gate writes an input wire, and no wire is written twice;
    /// - every `Const` gate's constant (`a`) is 0 or 1;
    /// - every output wire is an input or written by some gate.
    ///
    /// Errors name the gate index (or output bit) and the wire. Gates are checked in
    /// order, so the error is about the first bad gate. The `b` field of one-input gates
    /// is ignored. Runs in time and memory linear in the number of gates (plus a sort when
    /// gate outputs are scattered over a huge wire range).
    pub fn validate(&self) -> Result<(), CircuitError> {
        let n = self.kind.len();
        if self.a.len() != n || self.b.len() != n || self.out.len() != n {
            return Err(CircuitError::LengthMismatch {
                kind: n,
                a: self.a.len(),
                b: self.b.len(),
                out: self.out.len(),
            });
        }
        let max_gates = u32::MAX as usize - 1;
        if n > max_gates {
            return Err(CircuitError::TooManyGates {
                gates: n,
                max: max_gates,
            });
        }
        let num_wires = self.num_wires;
        let bits = self.input_bits_u64();
        if bits > u64::from(num_wires) {
            return Err(CircuitError::InputsExceedWires { bits, num_wires });
        }
        let sum: u64 = self.output_widths.iter().map(|&w| u64::from(w)).sum();
        if sum != self.output_wires.len() as u64 {
            return Err(CircuitError::OutputWidthMismatch {
                sum,
                wires: self.output_wires.len(),
            });
        }

        let base = bits as u32;
        let writers = Writers::build(self, base);
        for gate in 0..n {
            let kind = self.kind[gate];
            let reads = [self.a[gate], self.b[gate]];
            if kind == GateKind::Const && reads[0] > 1 {
                return Err(CircuitError::BadConstant {
                    gate,
                    value: reads[0],
                });
            }
            for &wire in &reads[..kind.arity()] {
                if wire >= num_wires {
                    return Err(CircuitError::WireOutOfRange {
                        gate,
                        wire,
                        num_wires,
                    });
                }
                if wire >= base {
                    match writers.get(wire) {
                        None => return Err(CircuitError::UndefinedWire { gate, wire }),
                        Some(writer) if writer >= gate => {
                            return Err(CircuitError::NotTopological { gate, wire, writer })
                        }
                        Some(_) => {}
                    }
                }
            }
            let wire = self.out[gate];
            if wire >= num_wires {
                return Err(CircuitError::WireOutOfRange {
                    gate,
                    wire,
                    num_wires,
                });
            }
            if wire < base {
                return Err(CircuitError::WritesInput { gate, wire });
            }
            if let Some(first) = writers.get(wire) {
                if first != gate {
                    return Err(CircuitError::WrittenTwice { gate, wire, first });
                }
            }
        }

        for (index, &wire) in self.output_wires.iter().enumerate() {
            if wire >= num_wires {
                return Err(CircuitError::OutputOutOfRange {
                    index,
                    wire,
                    num_wires,
                });
            }
            if wire >= base && writers.get(wire).is_none() {
                return Err(CircuitError::UndefinedOutput { index, wire });
            }
        }
        Ok(())
    }
}
