//! The integration tests of `crates/cli` in one test binary (one link instead of one per
//! file; docs/python.md, "CI time"): each file below is a module, run alone with
//! `cargo test --release -p mixgc --test integration MODULE::`.

#[path = "../common/mod.rs"]
mod common;

mod amortized;
mod commands;
mod errors;
mod haac;
mod infer;
mod library;
mod messages;
mod nparty;
mod preprocess;
mod primes;
mod profile;
mod progress;
mod readme;
mod sequential;
mod sim;
mod stream_files;
mod synth;
mod two_party;
mod vip;
