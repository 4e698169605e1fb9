//! Addition and subtraction: ripple-carry with one AND per bit.

use crate::Backend;

/// Full adder chain from carry-in `c` (`None` for a known zero, which saves the gates of
/// bit 0): returns (sum, carry-out). One AND per bit
/// (c' = c ⊕ ((x ⊕ c) ∧ (y ⊕ c)), Kolesnikov–Schneider's free-XOR adder).
fn ripple<B: Backend>(
    b: &mut B,
    x: &[B::Wire],
    y: &[B::Wire],
    carry_in: Option<B::Wire>,
    want_carry: bool,
) -> (Vec<B::Wire>, Option<B::Wire>) {
    assert_eq!(x.len(), y.len(), "operands must have equal widths");
    let mut sum = Vec::with_capacity(x.len());
    let mut carry = carry_in;
    for i in 0..x.len() {
        let last = i + 1 == x.len() && !want_carry;
        carry = match carry {
            None => {
                sum.push(b.xor(x[i], y[i]));
                (!last).then(|| b.and(x[i], y[i]))
            }
            Some(c) => {
                let xc = b.xor(x[i], c);
                sum.push(b.xor(xc, y[i]));
                (!last).then(|| {
                    let yc = b.xor(y[i], c);
                    let t = b.and(xc, yc);
                    b.xor(c, t)
                })
            }
        };
    }
    (sum, carry)
}

/// x + y mod 2^w: w − 1 ANDs (the top carry is never computed).
pub fn add<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    ripple(b, x, y, None, false).0
}

/// x + y as w + 1 bits (sum and carry-out): w ANDs.
pub fn add_with_carry<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    let (mut sum, carry) = ripple(b, x, y, None, true);
    sum.push(carry.unwrap_or_else(|| b.constant(false)));
    sum
}

/// x − y mod 2^w = x + ¬y + 1: w − 1 ANDs.
pub fn sub<B: Backend>(b: &mut B, x: &[B::Wire], y: &[B::Wire]) -> Vec<B::Wire> {
    let not_y: Vec<B::Wire> = y.iter().map(|&v| b.not(v)).collect();
    let one = b.constant(true);
    ripple(b, x, &not_y, Some(one), false).0
}

/// −x mod 2^w: w − 1 ANDs.
pub fn neg<B: Backend>(b: &mut B, x: &[B::Wire]) -> Vec<B::Wire> {
    let zero = b.constant(false);
    let zeros = vec![zero; x.len()];
    sub(b, &zeros, x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gadgets::testing::{check2, wrap, WIDTHS};
    use rand::{Rng, SeedableRng};

    fn neg2<B: Backend>(b: &mut B, x: &[B::Wire], _: &[B::Wire]) -> Vec<B::Wire> {
        neg(b, x)
    }

    #[test]
    fn add_sub_neg_match_native_arithmetic_with_minimal_ands() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        for w in WIDTHS {
            for _ in 0..20 {
                let (x, y) = (wrap(rng.gen(), w), wrap(rng.gen(), w));
                let (v, width, ands) = check2!(add, x, y, w);
                assert_eq!(
                    (v, width, ands),
                    (wrap(x.wrapping_add(y), w), w, w as u64 - 1),
                    "add w={w}"
                );
                let (v, width, ands) = check2!(add_with_carry, x, y, w);
                let full = if w == 128 { x.wrapping_add(y) } else { x + y };
                assert_eq!(
                    (wrap(v, w), width, ands),
                    (wrap(full, w), w + 1, w as u64),
                    "add_with_carry w={w}"
                );
                if w < 128 {
                    assert_eq!(v, x + y);
                }
                let (v, _, ands) = check2!(sub, x, y, w);
                assert_eq!((v, ands), (wrap(x.wrapping_sub(y), w), w as u64 - 1), "sub w={w}");
                let (v, _, ands) = check2!(neg2, x, y, w);
                assert_eq!((v, ands), (wrap(x.wrapping_neg(), w), w as u64 - 1), "neg w={w}");
            }
        }
    }

    #[test]
    fn sum_of_1024_bits_meets_tinygarble() {
        // TinyGarble Table 3.1: Sum-1024 with 1,023 ANDs.
        let mut c = crate::Counter::default();
        let x = c.input(crate::PartyId::GARBLER, 1024, None).unwrap();
        let y = c.input(crate::PartyId::EVALUATOR, 1024, None).unwrap();
        add(&mut c, &x, &y);
        assert_eq!(c.cost().ands, 1023);
    }
}
