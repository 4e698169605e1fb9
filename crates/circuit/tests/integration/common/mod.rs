//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

use mixgc_circuit::{bristol, Circuit};

/// The circuits shipped with the workspace (`/circuits`).
pub fn circuits_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../circuits")
}

/// Reads a shipped circuit, panicking with the parse error.
pub fn load(name: &str) -> Circuit {
    bristol::read_file(&circuits_dir().join(name)).unwrap_or_else(|e| panic!("{e}"))
}

/// The low `width` bits of `x`, least significant first.
pub fn bits(x: u64, width: usize) -> Vec<bool> {
    (0..width).map(|i| i < 64 && (x >> i) & 1 == 1).collect()
}

/// The integer with these bits (least significant first, at most 64).
pub fn num(bits: &[bool]) -> u64 {
    assert!(bits.len() <= 64);
    bits.iter().rev().fold(0, |acc, &b| (acc << 1) | u64::from(b))
}

/// `v` with its bit order reversed.
pub fn reversed(mut v: Vec<bool>) -> Vec<bool> {
    v.reverse();
    v
}
