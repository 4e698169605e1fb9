//! The integration tests of `crates/nparty` in one test binary (one link instead of one per
//! file; docs/python.md, "CI time"): each file below is a module, run alone with
//! `cargo test --release -p mixgc-nparty --test integration MODULE::`.

mod gmw;
mod processes;
mod progress;
mod streams;
mod tcp_mesh;
mod tls_mesh;
mod transcript;
