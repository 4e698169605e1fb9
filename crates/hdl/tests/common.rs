//! Shared by the integration tests: tool checks and paths.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// True if `yosys` and `iverilog`/`vvp` run. Without them the tests are skipped with a
/// note, except under CI (`CI` set), where `.ci/run` installs them, so a missing tool fails.
pub fn tools_present() -> bool {
    let ok = ["yosys", "iverilog", "vvp"]
        .iter()
        .all(|t| Command::new(t).arg("-V").output().is_ok());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "yosys/iverilog missing under CI: .ci/run should have installed them"
        );
        eprintln!("skipped: yosys or iverilog is not installed (apt-get install yosys iverilog)");
    }
    ok
}

/// Path of a shipped Verilog design.
pub fn design(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../verilog")
        .join(name)
}

/// Path of a bad design under `tests/bad`.
pub fn bad(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/bad")
        .join(name)
}
