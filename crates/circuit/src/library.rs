//! Small built-in circuits the CLI needs before the full circuit library exists.

use crate::{Circuit, GateKind};

/// Appends gates to a circuit under construction, one fresh output wire per gate.
struct Builder {
    c: Circuit,
}

impl Builder {
    fn new(input_widths: &[u32]) -> Builder {
        let c = Circuit {
            num_wires: input_widths.iter().sum(),
            input_widths: input_widths.to_vec(),
            ..Circuit::default()
        };
        Builder { c }
    }

    fn gate(&mut self, kind: GateKind, a: u32, b: u32) -> u32 {
        let out = self.c.num_wires;
        self.c.num_wires += 1;
        self.c.kind.push(kind);
        self.c.a.push(a);
        self.c.b.push(b);
        self.c.out.push(out);
        out
    }

    fn finish(mut self, outputs: &[&[u32]]) -> Circuit {
        self.c.output_widths = outputs.iter().map(|o| o.len() as u32).collect();
        self.c.output_wires = outputs.concat();
        debug_assert!(self.c.validate().is_ok());
        self.c
    }
}

/// Unsigned `a > b` for two `width`-bit inputs (garbler's `a` first), one output bit, with
/// exactly `width` AND gates: the carry chain c' = a ⊕ ((a ⊕ c) ∧ (b ⊕ c)) from bit 0 up,
/// where the most significant differing bit decides (Kolesnikov–Sadeghi–Schneider 2009).
pub fn greater_than(width: u32) -> Circuit {
    assert!(width >= 1, "width must be at least 1");
    let mut b = Builder::new(&[width, width]);
    let (x, y) = (|i: u32| i, |i: u32| width + i);
    // Bit 0 with carry 0: c = a0 ⊕ (a0 ∧ b0) = a0 ∧ ¬b0.
    let t = b.gate(GateKind::And, x(0), y(0));
    let mut c = b.gate(GateKind::Xor, x(0), t);
    for i in 1..width {
        let ac = b.gate(GateKind::Xor, x(i), c);
        let bc = b.gate(GateKind::Xor, y(i), c);
        let t = b.gate(GateKind::And, ac, bc);
        c = b.gate(GateKind::Xor, x(i), t);
    }
    b.finish(&[&[c]])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(v: u64, w: u32) -> Vec<bool> {
        (0..w).map(|i| v >> i & 1 == 1).collect()
    }

    #[test]
    fn greater_than_is_exhaustively_correct_at_4_bits_and_uses_width_ands() {
        let c = greater_than(4);
        assert_eq!(c.stats().ands, 4);
        for a in 0..16 {
            for b in 0..16 {
                let out = c.eval_plain(&[bits(a, 4), bits(b, 4)]).unwrap();
                assert_eq!(out, vec![vec![a > b]], "{a} > {b}");
            }
        }
    }

    #[test]
    fn greater_than_64_on_random_values() {
        let c = greater_than(64);
        assert_eq!(c.stats().ands, 64);
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (a, b) = (x, x.rotate_left(17) ^ 0xdead);
            for (p, q) in [(a, b), (b, a), (a, a)] {
                assert_eq!(
                    c.eval_plain(&[bits(p, 64), bits(q, 64)]).unwrap(),
                    vec![vec![p > q]]
                );
            }
        }
    }
}
