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

/// Runs Icarus Verilog on `sources` plus the testbench `tb` (in a scratch directory named by
/// `tag`); the lines it printed, without `$finish`'s.
pub fn simulate(sources: &[PathBuf], tb: &str, tag: &str) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("mixgc-hdl-sim-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tb_path = dir.join("tb.v");
    let exe = dir.join("tb.vvp");
    std::fs::write(&tb_path, tb).unwrap();
    let compile = Command::new("iverilog")
        .arg("-o")
        .arg(&exe)
        .args(sources)
        .arg(&tb_path)
        .output()
        .unwrap();
    assert!(
        compile.status.success(),
        "iverilog: {}",
        String::from_utf8_lossy(&compile.stderr)
    );
    let run = Command::new("vvp").arg("-n").arg(&exe).output().unwrap();
    assert!(
        run.status.success(),
        "vvp: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty() && !l.contains("$finish"))
        .map(str::to_string)
        .collect()
}
