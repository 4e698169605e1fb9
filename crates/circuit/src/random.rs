//! Random well-formed circuits for property tests.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::{Circuit, GateKind};

impl Circuit {
    /// A random circuit that [`Circuit::validate`] accepts, for property tests.
    ///
    /// Inputs are `input_widths`; there are `num_gates` gates, mostly XOR, AND and NOT
    /// with a few `Copy` and `Const`. Each gate reads random earlier wires (inputs or
    /// outputs of earlier gates); about one two-input gate in seven reads the same wire
    /// twice (`AND(x, x)`, `XOR(x, x)`). Gate output wire ids are a random permutation of
    /// the wires after the inputs, so outputs are not in gate order. The single output
    /// value has `num_outputs` bits, each a random defined wire (inputs and repeats
    /// included), so writers must cope with outputs that are inputs, repeated, or not at
    /// the end.
    ///
    /// When there are no input bits the first gate is a `Const`; when there are no wires
    /// at all but `num_outputs > 0`, one extra `Const` gate is added.
    ///
    /// # Panics
    ///
    /// If the total number of wires does not fit in a `u32`.
    pub fn random<R: Rng + ?Sized>(
        rng: &mut R,
        input_widths: &[u32],
        num_gates: usize,
        num_outputs: u32,
    ) -> Circuit {
        let base: u32 = input_widths
            .iter()
            .try_fold(0u32, |acc, &w| acc.checked_add(w))
            .expect("input widths overflow u32");
        let extra = usize::from(base == 0 && num_gates == 0 && num_outputs > 0);
        let total_gates = num_gates + extra;
        let num_wires = u32::try_from(total_gates)
            .ok()
            .and_then(|g| base.checked_add(g))
            .expect("too many wires for u32 ids");

        let mut out_ids: Vec<u32> = (base..num_wires).collect();
        out_ids.shuffle(rng);
        let mut defined: Vec<u32> = (0..base).collect();
        let mut c = Circuit {
            num_wires,
            input_widths: input_widths.to_vec(),
            output_widths: vec![num_outputs],
            ..Circuit::default()
        };
        for &out in &out_ids {
            let kind = if defined.is_empty() {
                GateKind::Const
            } else {
                match rng.gen_range(0..100) {
                    0..=37 => GateKind::Xor,
                    38..=73 => GateKind::And,
                    74..=89 => GateKind::Not,
                    90..=94 => GateKind::Copy,
                    _ => GateKind::Const,
                }
            };
            let (a, b) = match kind {
                GateKind::Const => (rng.gen_range(0..2), 0),
                GateKind::Not | GateKind::Copy => (defined[rng.gen_range(0..defined.len())], 0),
                GateKind::Xor | GateKind::And => {
                    let a = defined[rng.gen_range(0..defined.len())];
                    let b = if rng.gen_bool(0.15) {
                        a
                    } else {
                        defined[rng.gen_range(0..defined.len())]
                    };
                    (a, b)
                }
            };
            c.kind.push(kind);
            c.a.push(a);
            c.b.push(b);
            c.out.push(out);
            defined.push(out);
        }
        c.output_wires = (0..num_outputs)
            .map(|_| defined[rng.gen_range(0..defined.len())])
            .collect();
        c
    }
}
