//! The plaintext evaluator: the reference every garbled execution is compared against.

use crate::writers::Writers;
use crate::{Circuit, CircuitError, GateKind};

impl Circuit {
    /// Validates the circuit and checks that `widths` (one per input value, in order) are
    /// its input widths: what every evaluation of it (plaintext or as a function inside a
    /// program) needs before it reads a wire.
    pub fn check_inputs(&self, widths: impl ExactSizeIterator<Item = usize>) -> Result<(), CircuitError> {
        self.validate()?;
        if widths.len() != self.input_widths.len() {
            return Err(CircuitError::InputCount {
                expected: self.input_widths.len(),
                got: widths.len(),
            });
        }
        for (value, (got, &width)) in widths.zip(&self.input_widths).enumerate() {
            if got as u64 != u64::from(width) {
                return Err(CircuitError::InputWidth {
                    value,
                    expected: width,
                    got,
                });
            }
        }
        Ok(())
    }

    /// Evaluates the circuit in the clear.
    ///
    /// `inputs` holds one `Vec<bool>` per input value, least significant bit first, with
    /// exactly `input_widths[i]` bits. Returns one `Vec<bool>` per output value, least
    /// significant bit first. The circuit is [validated](Circuit::validate) first, so a
    /// malformed circuit gives an error rather than a panic.
    pub fn eval_plain(&self, inputs: &[Vec<bool>]) -> Result<Vec<Vec<bool>>, CircuitError> {
        self.check_inputs(inputs.iter().map(Vec::len))?;
        let input_bits: Vec<bool> = inputs.iter().flatten().copied().collect();
        let base = input_bits.len() as u32;
        let writers = Writers::build(self, base);
        // After validation every read wire is an input or written by an earlier gate.
        let read = |vals: &[bool], wire: u32| -> bool {
            if wire < base {
                input_bits[wire as usize]
            } else {
                writers.get(wire).is_some_and(|g| vals[g])
            }
        };

        let mut vals = vec![false; self.num_gates()];
        for g in 0..self.num_gates() {
            vals[g] = match self.kind[g] {
                GateKind::Xor => read(&vals, self.a[g]) ^ read(&vals, self.b[g]),
                GateKind::And => read(&vals, self.a[g]) & read(&vals, self.b[g]),
                GateKind::Not => !read(&vals, self.a[g]),
                GateKind::Copy => read(&vals, self.a[g]),
                GateKind::Const => self.a[g] == 1,
            };
        }

        let mut outputs = Vec::with_capacity(self.output_widths.len());
        let mut wires = self.output_wires.iter();
        for &width in &self.output_widths {
            let value: Vec<bool> = wires
                .by_ref()
                .take(width as usize)
                .map(|&w| read(&vals, w))
                .collect();
            outputs.push(value);
        }
        Ok(outputs)
    }
}
