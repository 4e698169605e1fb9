//! The integration tests of `crates/session` in one test binary (one link instead of one per
//! file; docs/python.md, "CI time"): each file below is a module, run alone with
//! `cargo test --release -p mixgc-session --test integration MODULE::`.

mod common;

mod cnn;
mod convert;
mod crt;
mod prep;
mod program;
mod progress;
mod sequential;
mod session;
