//! Pinned table bytes and output labels of every gadget kind, seeded: an optimization of
//! the hash, the digit arithmetic or the packing must leave every byte unchanged.

mod common;

use common::*;
use mixgc_arith::primes::min_sum_primes;
use mixgc_arith::{ArithGarbler, Label, Modulus, RingLabel, Term};
use mixgc_core::Block;

/// Appends a label's digits (LE words) to `out`.
fn push_label(label: &Label, out: &mut Vec<u8>) {
    label
        .digits()
        .iter()
        .for_each(|d| out.extend_from_slice(&d.to_le_bytes()));
}

fn push_ring(label: &RingLabel, out: &mut Vec<u8>) {
    label
        .digits()
        .iter()
        .for_each(|d| out.extend_from_slice(&d.to_le_bytes()));
}

/// The BLAKE3 digest of the rows and output labels of a seeded garbler running `gadgets`.
fn digest(gadgets: impl FnOnce(&mut ArithGarbler, &mut Vec<u8>, &mut Vec<u8>)) -> String {
    let (mut g, _, _) = session(11);
    let (mut rows, mut outputs) = (Vec::new(), Vec::new());
    gadgets(&mut g, &mut rows, &mut outputs);
    let mut all = rows;
    all.extend_from_slice(&outputs);
    blake3::hash(&all).to_hex().to_string()
}

#[test]
fn projections_and_products_are_pinned() {
    let d = digest(|g, rows, out| {
        let pairs = [(3, 5), (17, 17), (251, 3), (2, 13), (7, 2), (5, 9), (13, 64)];
        for (p, q) in pairs {
            // q < 64 is a prime or 2 here, 9 and 64 are the exponents of 2^9 and 2^64.
            let q = match q {
                9 | 64 => Modulus::power_of_two(q as u32).unwrap(),
                _ => modulus(q),
            };
            let p = modulus(p);
            let a0 = g.new_wire(p);
            let table: Vec<u64> = (0..size(p))
                .map(|x| (x * 7) as u128 % q.value())
                .map(|v| v as u64)
                .collect();
            push_label(&g.project(&a0, q, &table, rows).unwrap(), out);
        }
        // (Mod 2 a product is an AND of the Boolean half-gates, not garbled here.)
        for p in [3u64, 5, 17, 251] {
            let p = modulus(p);
            let (a0, b0) = (g.new_wire(p), g.new_wire(p));
            push_label(&g.mul(&a0, &b0, rows).unwrap(), out);
            push_label(&g.pow(&a0, 5, rows).unwrap(), out);
        }
    });
    assert_eq!(
        d,
        "9224496f8908b860a30b42faf02e64c19e27be726c0deb1fa137e6d86a7fa24d"
    );
}

#[test]
fn crt_primitives_are_pinned() {
    let d = digest(|g, rows, out| {
        for width in [16, 32, 64] {
            let set = min_sum_primes(width).unwrap();
            let (a0, b0) = (g.new_bundle(&set), g.new_bundle(&set));
            let odd = a0
                .wires()
                .iter()
                .zip(b0.wires())
                .filter(|(a, _)| !a.modulus().is_boolean());
            for (a, b) in odd {
                push_label(&g.mul(a, b, rows).unwrap(), out);
            }
            let bits: Vec<Block> = (0..width)
                .map(|i| Block::from_u128(0x1f2e_3d4c * (i as u128 + 3)))
                .collect();
            let terms: Vec<Term> = set
                .moduli()
                .iter()
                .filter(|m| !m.is_boolean())
                .map(|&m| (&bits[..], m))
                .collect();
            let composed = g.compose_powers(&terms, rows).unwrap();
            composed.iter().for_each(|w| push_label(w, out));
            let table: Vec<u64> = (0..set.primes()[1]).map(|x| x & 1).collect();
            let bit = g.project_to_bit(&a0.wires()[1], &table, rows).unwrap();
            out.extend_from_slice(&bit.to_u128().to_le_bytes());
        }
        for i in 0..12u32 {
            let bit = Block::from_u128(0xabcd * (i as u128 + 5));
            push_ring(&g.lift(bit, 70 - i, rows).unwrap(), out);
        }
    });
    assert_eq!(
        d,
        "777cb322c9b7aaa3498b1366168600d4dafc2f878dac8d8f1388a2ca5d0394da"
    );
}
