//! `--progress` and `--quiet`: progress on stderr for long runs, never on stdout.

mod common;

use common::{circuit, pair, run1};

/// Encryptions of an AES chain (19.2 M ANDs): a counted phase ends with its final count
/// in plain mode however fast the machine, and slower machines add a line per second.
const LONG: &str = "3000";

/// `mixgc example aes-chain --size SIZE --role ROLE` plus `extra`.
fn example(size: &str, role: &str, extra: &[&str]) -> Vec<String> {
    ["example", "aes-chain", "--size", size, "--role", role]
        .iter()
        .chain(extra)
        .map(|s| s.to_string())
        .collect()
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

/// Lines of `stderr` that report progress (`what: done unit (rate/s)`).
fn progress_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|l| l.starts_with("garbling: ") || l.starts_with("evaluating: "))
        .collect()
}

/// Stdout is the chain's one output value: 32 hex digits, the same for both parties.
fn assert_outputs_only(g: &str, e: &str) {
    assert_eq!(g, e);
    assert_eq!(g.len(), 33, "{g:?}");
    assert!(g.trim_end().chars().all(|c| c.is_ascii_hexdigit()), "{g:?}");
}

#[test]
fn plain_progress_prints_lines_on_stderr_of_both_parties() {
    let (g, e) = pair(
        &strs(&example(LONG, "garbler", &["--progress", "plain"])),
        &strs(&example(LONG, "evaluator", &["--progress", "plain"])),
    );
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert_outputs_only(&g.stdout, &e.stdout);
    for (out, what) in [(&g, "garbling: "), (&e, "evaluating: ")] {
        let lines = progress_lines(&out.stderr);
        assert!(!lines.is_empty(), "{out:#?}");
        assert!(
            lines
                .iter()
                .all(|l| l.starts_with(what) && l.contains(" ANDs (") && l.ends_with("/s)")),
            "{lines:?}"
        );
    }
    assert!(g.stderr.contains("garbler: 19,200,000 ANDs"), "{}", g.stderr);
}

#[test]
fn progress_none_prints_no_progress() {
    let (g, e) = pair(
        &strs(&example(LONG, "garbler", &["--progress", "none"])),
        &strs(&example(LONG, "evaluator", &["--progress", "none"])),
    );
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert_outputs_only(&g.stdout, &e.stdout);
    for out in [&g, &e] {
        assert!(progress_lines(&out.stderr).is_empty(), "{out:#?}");
        assert!(out.stderr.contains(" ANDs, sent "), "the summary stays: {out:#?}");
    }
}

#[test]
fn quiet_leaves_only_the_listening_line() {
    let aes = circuit("aes_128.txt");
    let key = "000102030405060708090a0b0c0d0e0f";
    let block = "00112233445566778899aabbccddeeff";
    let (g, e) = pair(
        &[
            "run",
            "--circuit",
            &aes,
            "--role",
            "garbler",
            "--input",
            key,
            "--quiet",
        ],
        &[
            "run",
            "--circuit",
            &aes,
            "--role",
            "evaluator",
            "--input",
            block,
            "--quiet",
            "--progress",
            "plain",
        ],
    );
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert_eq!(g.stdout, "69c4e0d86a7b0430d8cdb78070b4c55a\n");
    assert_eq!(e.stdout, g.stdout);
    assert!(g.stderr.starts_with("listening on 127.0.0.1:"), "{g:#?}");
    assert_eq!(g.stderr.lines().count(), 1, "{g:#?}");
    assert_eq!(e.stderr, "", "{e:#?}");

    // Random inputs are shown on stderr, unless --quiet.
    let (g, e) = pair(
        &strs(&example("1", "garbler", &["--quiet"])),
        &strs(&example("1", "evaluator", &["--quiet"])),
    );
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    assert_outputs_only(&g.stdout, &e.stdout);
    assert_eq!(g.stderr.lines().count(), 1, "{g:#?}");
    assert_eq!(e.stderr, "", "{e:#?}");
}

#[test]
fn the_commands_that_talk_to_a_peer_document_progress_and_quiet() {
    for command in ["run", "example", "preprocess", "online"] {
        let help = run1(&[command, "--help"]);
        help.assert_ok(command);
        for flag in ["--progress <MODE>", "--quiet"] {
            assert!(help.stdout.contains(flag), "{command} --help lacks {flag}");
        }
    }
}
