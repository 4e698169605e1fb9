//! The integration tests of `crates/circuit` in one test binary (one link instead of one per
//! file; docs/python.md, "CI time"): each file below is a module, run alone with
//! `cargo test --release -p mixgc-circuit --test integration MODULE::`.

mod common;

mod bad_input;
mod ir;
mod known_answers;
mod other_gates;
mod roundtrip;
mod values;
