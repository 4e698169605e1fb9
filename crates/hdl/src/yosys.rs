//! Running Yosys: the script, the technology files it reads, and its messages.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::HdlError;

/// The GC technology library (Liberty): XOR/XNOR/NOT/BUF area 0, every other gate area 1.
pub const GC_LIB: &str = include_str!("../yosys/gc.lib");
/// One-AND full adders for `$alu` and `$fa` (ripple carry).
pub const GC_ARITH: &str = include_str!("../yosys/gc_arith.v");
/// n-AND comparisons for `$lt`, `$le`, `$gt`, `$ge`.
pub const GC_CMP: &str = include_str!("../yosys/gc_cmp.v");
/// Popcount of one-bit summands (`$macc` without products), N - popcount(N) ANDs.
pub const GC_POPCOUNT: &str = include_str!("../yosys/gc_popcount.v");
/// Array multiplier of one-AND full adders for `$mul`.
pub const GC_MUL: &str = include_str!("../yosys/gc_mul.v");

/// A scratch directory, removed on drop.
pub struct Scratch(PathBuf);

impl Scratch {
    pub fn new() -> Result<Scratch, HdlError> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or(0);
        let path = std::env::temp_dir().join(format!(
            "mixgc-synth-{}-{}-{nanos}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path).map_err(|source| HdlError::Scratch {
            path: path.clone(),
            source,
        })?;
        Ok(Scratch(path))
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `contents` to `name` inside the directory and returns its path.
    pub fn write(&self, name: &str, contents: &str) -> Result<PathBuf, HdlError> {
        let path = self.0.join(name);
        std::fs::write(&path, contents).map_err(|source| HdlError::Scratch {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Quotes a path for a Yosys script line.
fn quoted(p: &Path) -> String {
    format!(
        "\"{}\"",
        p.display().to_string().replace('\\', "\\\\").replace('"', "\\\"")
    )
}

/// The synthesis script. It writes three netlists into `dir`: `rtl.json` after `proc`
/// (checked for latches, flip-flops and initial values), `plain.json` after mapping the
/// arithmetic to one-AND adders (TinyGarble thesis §3.2), and, if `abc`, `abc.json` after ABC's
/// area mapping onto the GC library; the caller keeps whichever has fewer ANDs. Coarse mapping
/// and ABC run module by module, before `flatten`, so a module instantiated many times (the
/// AES S-box) is mapped once.
pub fn script(files: &[PathBuf], top: Option<&str>, abc: bool, dir: &Path) -> String {
    let read: Vec<String> = files.iter().map(|f| quoted(f)).collect();
    let top = match top {
        Some(t) => format!("-top {t}"),
        None => "-auto-top".to_string(),
    };
    let d = |name: &str| quoted(&dir.join(name));
    let mut lines = vec![
        format!("read_verilog -sv {}", read.join(" ")),
        format!("hierarchy -check {top}"),
        "proc".to_string(),
        format!("write_json {}", d("rtl.json")),
        // Coarse mapping module by module (a module instantiated 200 times is mapped once).
        "check -assert".to_string(),
        "opt".to_string(),
        "pmuxtree".to_string(),
        format!("techmap -map {} -map {}", d("gc_cmp.v"), d("gc_mul.v")),
        "opt".to_string(),
        "wreduce".to_string(),
        "alumacc".to_string(),
        "opt".to_string(),
        "memory".to_string(),
        "opt".to_string(),
        format!("techmap -map {}", d("gc_popcount.v")),
        "opt".to_string(),
        "maccmap".to_string(),
        "opt".to_string(),
        format!("techmap -map {} -map +/techmap.v", d("gc_arith.v")),
        "opt".to_string(),
        "design -save mapped".to_string(),
        // Structural netlist.
        "flatten".to_string(),
        "check -assert".to_string(),
        "opt -full".to_string(),
        // Enabled and synchronously reset registers become plain flip-flops and muxes.
        "dffunmap".to_string(),
        "opt_clean -purge".to_string(),
        format!("write_json {}", d("plain.json")),
    ];
    if abc {
        // ABC's area mapping of each module, then flattened.
        lines.extend([
            "design -load mapped".to_string(),
            format!("abc -liberty {}", d("gc.lib")),
            "flatten".to_string(),
            "opt -fast".to_string(),
            "dffunmap".to_string(),
            "opt_clean -purge".to_string(),
            format!("write_json {}", d("abc.json")),
        ]);
    }
    lines.join("\n") + "\n"
}

/// Runs `yosys -q -s SCRIPT`. Any error or warning line fails the synthesis: a warning
/// (a logic loop, an unsupported construct Yosys skipped) would otherwise mean a wrong
/// netlist.
pub fn run(program: &str, script: &Path) -> Result<(), HdlError> {
    let out = Command::new(program)
        .arg("-q")
        .arg("-s")
        .arg(script)
        .output()
        .map_err(|source| HdlError::YosysMissing {
            program: program.to_string(),
            source,
        })?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let messages = messages(&stdout, &stderr);
    if !out.status.success() || !messages.is_empty() {
        let message = if messages.is_empty() {
            format!("yosys exited with {} and no message", out.status)
        } else {
            messages
        };
        return Err(HdlError::Yosys { message });
    }
    Ok(())
}

/// Yosys's error and warning lines with the indented lines that follow them (e.g. the
/// cells of a logic loop), without its summary and banner lines.
fn messages(stdout: &str, stderr: &str) -> String {
    let mut keep = Vec::new();
    let mut in_message = false;
    for line in stderr.lines().chain(stdout.lines()) {
        let lower = line.to_ascii_lowercase();
        if lower.contains("error") || lower.contains("warning:") {
            in_message = !lower.starts_with("warnings:") && !lower.contains("end of script");
            if in_message {
                keep.push(line.trim_end().to_string());
            }
        } else if in_message && line.starts_with(' ') {
            keep.push(line.trim_end().to_string());
        } else {
            in_message = false;
        }
    }
    keep.dedup();
    keep.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_keep_errors_warnings_and_their_details() {
        let err = "Warning: found logic loop in module t2:\n    cell $and$t2.v:5$3 ($and)\n    wire \\p\nERROR: Found 1 problems in 'check -assert'.\n";
        let m = messages("", err);
        assert_eq!(m.lines().count(), 4, "{m}");
        assert!(m.contains("t2.v:5"));
        assert_eq!(messages("some log\n", ""), "");
    }
}
