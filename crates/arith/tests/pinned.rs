//! Pinned table bytes and output labels of every gadget kind, seeded: an optimization of
//! the hash, the digit arithmetic or the packing must leave every byte unchanged.

mod common;

use common::*;
use mixgc_arith::primes::min_sum_primes;
use mixgc_arith::{ArithGarbler, Label, Modulus, RingLabel};
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
        for p in [2u64, 3, 5, 17, 251] {
            let p = modulus(p);
            let (a0, b0) = (g.new_wire(p), g.new_wire(p));
            push_label(&g.mul(&a0, &b0, rows).unwrap(), out);
            push_label(&g.pow(&a0, 5, rows).unwrap(), out);
        }
    });
    assert_eq!(
        d,
        "1825520acabf42586e7fb985f3f88c96d244e40ee0f926bc79364c7c700b6063"
    );
}

#[test]
fn crt_products_and_conversions_are_pinned() {
    let d = digest(|g, rows, out| {
        for width in [16, 32, 64] {
            let set = min_sum_primes(width).unwrap();
            let (a0, b0) = (g.new_bundle(&set), g.new_bundle(&set));
            let c0 = g.mul_bundle(&a0, &b0, rows).unwrap();
            c0.wires().iter().for_each(|w| push_label(w, out));
            let bits: Vec<Block> = (0..width)
                .map(|i| Block::from_u128(0x1f2e_3d4c * (i as u128 + 3)))
                .collect();
            let composed = g.crt_compose(&bits, &set, rows).unwrap();
            composed.wires().iter().for_each(|w| push_label(w, out));
            let decomposed = g.crt_decompose(&c0, rows).unwrap();
            decomposed
                .iter()
                .for_each(|b| out.extend_from_slice(&b.to_u128().to_le_bytes()));
        }
        let bits: Vec<Block> = (0..12)
            .map(|i| Block::from_u128(0xabcd * (i as u128 + 5)))
            .collect();
        let weights: Vec<u128> = (0..12).map(|i| 3u128 << i).collect();
        let ring = g.compose_bits(&bits, &weights, 70, rows).unwrap();
        push_ring(&ring, out);
        let wire = g.new_ring_wire(100).unwrap();
        let split = g.bit_decompose(&wire, 40, rows).unwrap();
        split
            .iter()
            .for_each(|b| out.extend_from_slice(&b.to_u128().to_le_bytes()));
    });
    assert_eq!(
        d,
        "35f6bdb52e975485b4755cb65d1a9563a0286dd4c17cbca6b15916ce82ce0651"
    );
}
