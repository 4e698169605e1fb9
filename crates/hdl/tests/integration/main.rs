//! The integration tests of `crates/hdl` in one test binary (one link instead of one per
//! file; docs/python.md, "CI time"): each file below is a module, run alone with
//! `cargo test --release -p mixgc-hdl --test integration MODULE::`.

mod common;

mod errors;
mod reference;
mod sequential;
