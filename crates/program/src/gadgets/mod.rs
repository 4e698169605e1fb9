//! AND-minimal circuits over wire slices, generic over the [`Backend`].
//!
//! Conventions for every gadget: a value is a slice of wires, least significant bit first;
//! operands of binary gadgets have equal widths (the caller extends them, see [`extend`]);
//! results wrap modulo 2^width unless the name says otherwise. Each gadget documents its
//! AND count, the figure that sets garbling cost.

mod arith;
mod compare;

pub mod aes;
pub mod bits;
pub mod circuit;
pub mod compress;
pub mod div;
pub mod edit;
pub mod float;
pub mod mul;
pub mod nparty;
pub mod select;
pub mod sequential;
pub mod sha256;
pub mod sort;
pub mod sqrt;

pub use arith::{add, add_with_carry, neg, sub};
pub use compare::{eq, lt_signed, lt_unsigned, mux};

use crate::Backend;

/// Extends `x` to `width` bits: with zeros (`signed == false`) or copies of its top bit.
/// Free (no gates). Truncates when `width < x.len()`.
pub fn extend<B: Backend>(b: &mut B, x: &[B::Wire], width: usize, signed: bool) -> Vec<B::Wire> {
    let fill = match (signed, x.last()) {
        (true, Some(&top)) => top,
        _ => b.constant(false),
    };
    let mut v: Vec<B::Wire> = x.iter().copied().take(width).collect();
    v.resize(width, fill);
    v
}

/// Bitwise XOR of equal-width values (free).
pub fn xor<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    assert_eq!(x.len(), y.len(), "operands must have equal widths");
    x.iter().zip(y).map(|(&p, &q)| b.xor(p, q)).collect()
}

#[cfg(test)]
pub(crate) mod testing {
    //! Checks a gadget against native arithmetic: it runs on the plaintext backend, the
    //! recorded circuit is replayed and must agree, and the counter must count the ANDs the
    //! recorded circuit has.

    pub fn bits(v: u128, w: usize) -> Vec<bool> {
        (0..w).map(|i| i < 128 && v >> i & 1 == 1).collect()
    }

    pub fn value(bits: &[bool]) -> u128 {
        bits.iter()
            .take(128)
            .enumerate()
            .map(|(i, &b)| (b as u128) << i)
            .sum()
    }

    /// `check2!(gadget, x, y, w)` runs the two-operand `gadget` on `w`-bit `x`, `y` on all
    /// three backends and returns `(result value, result width, ANDs)`.
    macro_rules! check2 {
        ($gadget:path, $x:expr, $y:expr, $w:expr) => {{
            use $crate::gadgets::testing::{bits, value};
            use $crate::{Backend, Counter, PartyId, Plain, Recorder};
            let (x, y, w): (u128, u128, usize) = ($x, $y, $w);
            let mut p = Plain::default();
            let xs = p.input(PartyId::GARBLER, w as u32, Some(&bits(x, w))).unwrap();
            let ys = p.input(PartyId::EVALUATOR, w as u32, Some(&bits(y, w))).unwrap();
            let plain = $gadget(&mut p, &xs, &ys);
            let mut r = Recorder::default();
            let xs = r.input(PartyId::GARBLER, w as u32, None).unwrap();
            let ys = r.input(PartyId::EVALUATOR, w as u32, None).unwrap();
            let out = $gadget(&mut r, &xs, &ys);
            r.output(&out).unwrap();
            let rec = r.finish();
            let replay = rec.circuit.eval_plain(&[bits(x, w), bits(y, w)]).unwrap();
            assert_eq!(
                replay,
                vec![plain.clone()],
                "recorded circuit disagrees with plaintext"
            );
            let mut c = Counter::default();
            let xs = c.input(PartyId::GARBLER, w as u32, None).unwrap();
            let ys = c.input(PartyId::EVALUATOR, w as u32, None).unwrap();
            $gadget(&mut c, &xs, &ys);
            assert_eq!(
                c.cost().ands,
                rec.circuit.stats().ands as u64,
                "counter and recorder disagree"
            );
            (value(&plain), plain.len(), c.cost().ands)
        }};
    }
    pub(crate) use check2;

    /// Widths every gadget is tested at.
    pub const WIDTHS: [usize; 10] = [1, 7, 8, 16, 31, 32, 63, 64, 65, 128];

    /// The two's-complement value of the `w`-bit pattern `v`.
    pub fn signed(v: u128, w: usize) -> i128 {
        if w < 128 && w > 0 && v >> (w - 1) & 1 == 1 {
            (v as i128) - (1i128 << w)
        } else {
            v as i128
        }
    }

    /// `v` reduced to `w` bits.
    pub fn wrap(v: u128, w: usize) -> u128 {
        if w >= 128 {
            v
        } else {
            v & ((1u128 << w) - 1)
        }
    }
}
