//! The integration tests of `crates/garble` in one test binary (one link instead of one per
//! file; docs/python.md, "CI time"): each file below is a module, run alone with
//! `cargo test --release -p mixgc-garble --test integration MODULE::`.

mod garble;
mod threads;
mod three_halves;
mod wide;
