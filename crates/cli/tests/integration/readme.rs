//! Every command in the README runs as written (issue #15): the ```sh blocks are parsed,
//! each `mixgc …` line (and `cargo run --release -- …`) is run with its ports replaced by
//! free loopback ports, `HOST` by 127.0.0.1 and fingerprint placeholders (`G_HEX`) by what
//! the README's `mixgc keygen` printed. Parties the README shows as a group run as
//! concurrent processes: a `--listen` line with the next `--connect` line, and the
//! `mixgc party --id …` lines of a block as one mesh. Commands run in a scratch directory
//! that links the repository's `circuits/` and `verilog/`, so `--out` files land there.
//! A template line (`mixgc party --id I --parties … --input HEX`) runs as a mesh of three
//! parties with random inputs for the `--owners`. A command not run is in [`SKIPPED`] with
//! its reason; any other README command line that this test does not understand fails it. Also: no README line and no `--help` text
//! points outside the repository.

use super::common;

use std::collections::HashMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use common::*;

/// README commands not run, each with its reason (matched on the whole command line).
const SKIPPED: &[(&str, &str)] = &[
    (
        "cargo test --workspace --release",
        "the whole test suite, this test included",
    ),
    (
        "mixgc bench --json",
        "a long benchmark (about 15 s, as the README says); tests/bench.rs runs it small",
    ),
    (
        "mixgc bench --parties 16 --json",
        "a long benchmark (16 processes on the test machine); nparty.rs runs bench --parties 3",
    ),
];

/// Deadline of one command or one group of parties.
const GROUP_DEADLINE: Duration = Duration::from_secs(30);

/// The AES-128 ciphertext of the README's FIPS-197 key and block.
const AES_CIPHERTEXT: &str = "69c4e0d86a7b0430d8cdb78070b4c55a";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn readme() -> String {
    std::fs::read_to_string(repo().join("README.md")).expect("read README.md")
}

/// One command line of a ```sh block: its words (`mixgc` first) and its trailing comment.
#[derive(Clone, Debug)]
struct Line {
    words: Vec<String>,
    comment: String,
}

impl Line {
    fn text(&self) -> String {
        self.words.join(" ")
    }

    fn has(&self, flag: &str) -> bool {
        self.words.iter().any(|w| w == flag)
    }

    /// The value after `flag`.
    fn value(&self, flag: &str) -> Option<&str> {
        let at = self.words.iter().position(|w| w == flag)?;
        self.words.get(at + 1).map(String::as_str)
    }

    fn is_party(&self) -> bool {
        self.words.get(1).is_some_and(|w| w == "party") && self.has("--id")
    }

    /// A `mixgc party` line with placeholders: `--id I`, `--parties …`, `--input HEX`.
    fn is_party_template(&self) -> bool {
        self.is_party() && self.value("--id") == Some("I")
    }
}

/// Parties of a template's mesh.
const TEMPLATE_PARTIES: usize = 3;

/// The mesh a template line stands for: [`TEMPLATE_PARTIES`] parties on the README's
/// example ports, each `--owners` party with a random input of the circuit's first width
/// in place of `HEX`, the others with none. Returns the lines and the input values.
fn instantiate(template: &Line, rng: &mut impl rand::Rng) -> (Vec<Line>, Vec<u64>) {
    let owners: Vec<usize> = template
        .value("--owners")
        .expect("a template names its --owners")
        .split(',')
        .map(|o| o.parse().expect("an owner id"))
        .collect();
    let addrs: Vec<String> = (0..TEMPLATE_PARTIES)
        .map(|i| format!("127.0.0.1:{}", 7000 + i))
        .collect();
    // Below 2^62, so the README's adder64 example does not wrap.
    let inputs: Vec<u64> = owners.iter().map(|_| rng.gen::<u64>() >> 2).collect();
    let lines = (0..TEMPLATE_PARTIES)
        .map(|id| {
            let mut words = Vec::new();
            let mut it = template.words.iter();
            while let Some(w) = it.next() {
                match w.as_str() {
                    "I" => words.push(id.to_string()),
                    "…" => words.push(addrs.join(",")),
                    "--input" => {
                        let hex = it.next();
                        assert_eq!(hex.map(String::as_str), Some("HEX"), "{:?}", template.text());
                        if let Some(k) = owners.iter().position(|&o| o == id) {
                            words.extend(["--input".to_string(), format!("{:016x}", inputs[k])]);
                        }
                    }
                    _ => words.push(w.clone()),
                }
            }
            Line {
                words,
                comment: template.comment.clone(),
            }
        })
        .collect();
    (lines, inputs)
}

/// The command lines of every ```sh block, in order: continuations (`\`) joined, comments
/// split off, a trailing `&` dropped, `cargo run --release --` read as `mixgc`.
fn sh_blocks(readme: &str) -> Vec<Vec<Line>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<Line>> = None;
    let mut pending = String::new();
    for raw in readme.lines() {
        let trimmed = raw.trim();
        match (&mut current, trimmed.starts_with("```")) {
            (None, true) if trimmed == "```sh" => current = Some(Vec::new()),
            (None, _) => {}
            (Some(_), true) => blocks.push(current.take().expect("in a block")),
            (Some(lines), false) => {
                let (code, comment) = match trimmed.find('#') {
                    Some(at) => (trimmed[..at].trim(), trimmed[at + 1..].trim()),
                    None => (trimmed, ""),
                };
                if let Some(head) = code.strip_suffix('\\') {
                    pending += head;
                    pending.push(' ');
                    continue;
                }
                let code = std::mem::take(&mut pending) + code;
                let code = code.trim().trim_end_matches('&').trim();
                if code.is_empty() {
                    continue;
                }
                assert!(
                    !code.contains(['"', '\'', '|', ';', '>', '<', '$']),
                    "README command {code:?}: quotes, pipes and redirections are not understood here"
                );
                let code = code.replace("cargo run --release -- ", "mixgc ");
                lines.push(Line {
                    words: code.split_whitespace().map(str::to_string).collect(),
                    comment: comment.to_string(),
                });
            }
        }
    }
    assert!(current.is_none(), "README: a ```sh block is not closed");
    blocks
}

/// A free loopback port (bound, read, released).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
        .port()
}

/// What a group of commands shares: the README's ports mapped to free ones, and the
/// fingerprint placeholders bound so far.
struct Substitutions {
    ports: HashMap<String, String>,
    placeholders: HashMap<String, String>,
}

impl Substitutions {
    /// `line`'s words with `HOST` → 127.0.0.1, every `ADDR:PORT` on a fresh free port
    /// (the same README port → the same free port), placeholders by their values.
    fn apply(&mut self, line: &Line) -> Vec<String> {
        line.words
            .iter()
            .map(|w| {
                if let Some(v) = self.placeholders.get(w) {
                    return v.clone();
                }
                assert!(
                    !(w.ends_with("_HEX") && w.chars().all(|c| c.is_ascii_uppercase() || c == '_')),
                    "README: {w} in {:?} is used before a keygen line prints it",
                    line.text()
                );
                w.split(',')
                    .map(|part| self.address(part))
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect()
    }

    fn address(&mut self, word: &str) -> String {
        let Some((host, port)) = word.rsplit_once(':') else {
            return word.to_string();
        };
        if port.is_empty() || !port.chars().all(|c| c.is_ascii_digit()) {
            return word.to_string();
        }
        // A per-cycle input list (`1:0:1`) is not an address.
        if host.contains(':') || host.chars().all(|c| c.is_ascii_digit()) {
            return word.to_string();
        }
        let host = if host == "HOST" { "127.0.0.1" } else { host };
        let port = self
            .ports
            .entry(port.to_string())
            .or_insert_with(|| free_port().to_string());
        format!("{host}:{port}")
    }
}

/// A scratch working directory with the repository's inputs linked in, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        let dir = std::env::temp_dir().join(format!("mixgc-readme-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        for input in ["circuits", "verilog"] {
            let target = repo().join(input).canonicalize().expect("a repository folder");
            std::os::unix::fs::symlink(target, dir.join(input)).expect("link an input folder");
        }
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn strs_of(words: &[String]) -> Vec<&str> {
    words.iter().map(String::as_str).collect()
}

/// Runs one command alone; binds the placeholder its comment names (`prints … G_HEX`) to
/// its stdout.
fn run_alone(dir: &Path, subs: &mut Substitutions, line: &Line) -> Output {
    let words = subs.apply(line);
    eprintln!("README: {}", words.join(" "));
    let out = spawn_in(dir, &strs_of(&words[1..])).finish(Instant::now() + GROUP_DEADLINE);
    out.assert_ok(&line.text());
    if let Some(name) = line
        .comment
        .split(|c: char| !(c.is_ascii_uppercase() || c == '_'))
        .find(|w| w.ends_with("_HEX") && w.len() > 4)
    {
        subs.placeholders
            .insert(name.to_string(), out.stdout.trim().to_string());
    }
    out
}

/// Runs a group of parties concurrently; a `--listen` party is started first and its
/// `listening on` line awaited.
fn run_group(dir: &Path, subs: &mut Substitutions, group: &[Line]) -> Vec<Output> {
    let deadline = Instant::now() + GROUP_DEADLINE;
    let mut procs = Vec::new();
    for line in group {
        let words = subs.apply(line);
        eprintln!("README: {} (in a group)", words.join(" "));
        let mut p = spawn_in(dir, &strs_of(&words[1..]));
        if line.has("--listen") {
            p.listening_addr();
        }
        procs.push(p);
    }
    let outs: Vec<Output> = procs.into_iter().map(|p| p.finish(deadline)).collect();
    for (line, out) in group.iter().zip(&outs) {
        out.assert_ok(&line.text());
    }
    outs
}

/// Outputs the README states, checked where it states them.
fn check_stated(line: &Line, out: &Output) {
    let text = line.text();
    let hex = || u128::from_str_radix(out.stdout.trim(), 16).ok();
    if text == "mixgc demo" {
        assert!(out.stdout.contains(AES_CIPHERTEXT), "the demo's AES: {out:#?}");
    } else if text.starts_with("mixgc run --circuit circuits/aes_128.txt") {
        assert_eq!(out.stdout.trim(), AES_CIPHERTEXT, "{text}");
    } else if text.starts_with("mixgc synth verilog/mult32.v") {
        assert!(line.comment.contains("993 ANDs"));
        assert!(out.stdout.contains("993"), "synth's report: {out:#?}");
    } else if text.starts_with("mixgc run --circuit mult32.txt") {
        assert_eq!(hex(), Some(0x2a * 3), "{text}: {out:#?}");
    } else if line.is_party() && line.value("--example") == Some("auction") {
        // "each prints the winner's index (1) and the highest bid (00000bb8)"
        let lines: Vec<&str> = out.stdout.lines().collect();
        assert_eq!(lines.len(), 2, "{out:#?}");
        assert_eq!(u64::from_str_radix(lines[0], 16).ok(), Some(1), "{out:#?}");
        assert_eq!(lines[1], "00000bb8", "{out:#?}");
    }
}

/// Splits a block into what runs alone (first, in order) and its groups of parties
/// (templates apart: see [`instantiate`]).
fn plan(block: &[Line]) -> (Vec<Line>, Vec<Vec<Line>>) {
    let mut alone = Vec::new();
    let mut groups: Vec<Vec<Line>> = Vec::new();
    let mut mesh: Vec<Line> = Vec::new();
    let mut listener: Option<Line> = None;
    for line in block {
        if line.is_party_template() {
            continue;
        } else if line.is_party() {
            mesh.push(line.clone());
        } else if line.has("--listen") {
            assert!(
                listener.is_none(),
                "README: two --listen lines in a row: {line:?}"
            );
            listener = Some(line.clone());
        } else if line.has("--connect") {
            let l = listener
                .take()
                .unwrap_or_else(|| panic!("README: {:?} connects to no listener above it", line.text()));
            groups.push(vec![l, line.clone()]);
        } else {
            alone.push(line.clone());
        }
    }
    assert!(
        listener.is_none(),
        "README: a --listen line without its --connect line"
    );
    if !mesh.is_empty() {
        let ids: Vec<&str> = mesh.iter().filter_map(|l| l.value("--id")).collect();
        let expected: Vec<String> = (0..mesh.len()).map(|i| i.to_string()).collect();
        assert_eq!(ids, expected, "README: a party group's ids");
        groups.push(mesh);
    }
    (alone, groups)
}

#[test]
fn every_readme_command_runs_as_written() {
    let blocks = sh_blocks(&readme());
    assert!(blocks.len() >= 4, "README: fewer ```sh blocks than expected");
    let scratch = Scratch::new();
    let mut rng = test_rng();
    let mut skipped_seen = Vec::new();
    let mut ran = 0;
    for block in blocks {
        let mut runnable = Vec::new();
        for line in block {
            let text = line.text();
            if let Some((skip, why)) = SKIPPED.iter().find(|(s, _)| *s == text) {
                eprintln!("README: skipped {skip}: {why}");
                skipped_seen.push(*skip);
            } else {
                assert_eq!(
                    line.words[0], "mixgc",
                    "README command {text:?}: neither a mixgc command nor in the skip list"
                );
                runnable.push(line);
            }
        }
        let (alone, groups) = plan(&runnable);
        let mut subs = Substitutions {
            ports: HashMap::new(),
            placeholders: HashMap::new(),
        };
        for line in &alone {
            let out = run_alone(&scratch.0, &mut subs, line);
            check_stated(line, &out);
            ran += 1;
        }
        for group in &groups {
            // Fresh ports for every group (a listener's port is free again only later).
            subs.ports.clear();
            for (line, out) in group.iter().zip(run_group(&scratch.0, &mut subs, group)) {
                check_stated(line, &out);
                ran += 1;
            }
        }
        for template in runnable.iter().filter(|l| l.is_party_template()) {
            subs.ports.clear();
            let (mesh, inputs) = instantiate(template, &mut rng);
            let outs = run_group(&scratch.0, &mut subs, &mesh);
            if template.value("--circuit") == Some("circuits/adder64.txt") {
                let sum = format!("{:016x}\n", inputs.iter().sum::<u64>());
                for out in &outs {
                    assert_eq!(out.stdout, sum, "{}: {out:#?}", template.text());
                }
            }
            ran += outs.len();
        }
    }
    for (skip, why) in SKIPPED {
        assert!(
            skipped_seen.contains(skip),
            "the skip list names {skip:?} ({why}), which the README no longer has"
        );
    }
    assert!(ran >= 10, "only {ran} README commands ran");
}

/// Text that would point outside the repository.
fn outside_references(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| {
            l.contains("../") || l.contains("/work/") || l.contains("shared/papers") || l.contains("/home/")
        })
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readme_and_the_help_point_at_nothing_outside_the_repository() {
    let text = readme();
    assert_eq!(outside_references(&text), Vec::<String>::new(), "README.md");
    // Every relative link names a file or folder of the repository.
    for (at, _) in text.match_indices("](") {
        let rest = &text[at + 2..];
        let target = &rest[..rest.find(')').expect("a closed link")];
        if target.starts_with('#') || target.contains("://") {
            continue;
        }
        let path = target.split('#').next().unwrap_or(target);
        assert!(
            repo().join(path).exists(),
            "README links to {target}, which is not in the repository"
        );
    }

    let top = run1(&["--help"]);
    top.assert_ok("--help");
    let commands: Vec<String> = top
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect();
    assert!(commands.len() >= 15, "{commands:?}");
    let mut helps = vec![("mixgc --help".to_string(), top.stdout.clone())];
    for c in &commands {
        let out = run1(&[c, "--help"]);
        out.assert_ok(&format!("{c} --help"));
        helps.push((format!("mixgc {c} --help"), out.stdout));
    }
    for (what, help) in helps {
        assert_eq!(outside_references(&help), Vec::<String>::new(), "{what}");
    }
}

#[test]
fn the_readme_parser_joins_continuations_and_splits_comments() {
    let text = "intro\n```sh\n# a comment line\nmixgc run --listen 127.0.0.1:7000 \\\n   --input 2a &  # party 1\ncargo run --release -- demo   # explained\n```\n```rust\nmixgc not-sh\n```\n";
    let blocks = sh_blocks(text);
    assert_eq!(blocks.len(), 1);
    let texts: Vec<String> = blocks[0].iter().map(Line::text).collect();
    assert_eq!(
        texts,
        ["mixgc run --listen 127.0.0.1:7000 --input 2a", "mixgc demo"]
    );
    assert_eq!(blocks[0][0].comment, "party 1");

    let mut subs = Substitutions {
        ports: HashMap::new(),
        placeholders: HashMap::from([("G_HEX".to_string(), "ab12".to_string())]),
    };
    let line = Line {
        words: ["mixgc", "x", "HOST:7000", "a:7000,b:7001", "G_HEX", "1:2:x"]
            .map(str::to_string)
            .to_vec(),
        comment: String::new(),
    };
    let w = subs.apply(&line);
    let (p0, p1) = (&subs.ports["7000"], &subs.ports["7001"]);
    assert_ne!(p0, p1);
    assert_eq!(w[2], format!("127.0.0.1:{p0}"));
    assert_eq!(w[3], format!("a:{p0},b:{p1}"));
    assert_eq!((w[4].as_str(), w[5].as_str()), ("ab12", "1:2:x"));
}

#[test]
fn a_party_template_becomes_a_mesh_with_inputs_for_its_owners() {
    let template = Line {
        words: "mixgc party --id I --parties … --circuit c.txt --owners 0,2 --input HEX"
            .split(' ')
            .map(str::to_string)
            .collect(),
        comment: "any circuit".into(),
    };
    assert!(template.is_party_template());
    let (mesh, inputs) = instantiate(&template, &mut test_rng());
    assert_eq!(inputs.len(), 2);
    let texts: Vec<String> = mesh.iter().map(Line::text).collect();
    let parties = "--parties 127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002 --circuit c.txt --owners 0,2";
    assert_eq!(
        texts,
        [
            format!("mixgc party --id 0 {parties} --input {:016x}", inputs[0]),
            format!("mixgc party --id 1 {parties}"),
            format!("mixgc party --id 2 {parties} --input {:016x}", inputs[1]),
        ]
    );
    assert!(mesh.iter().all(|l| l.is_party() && !l.is_party_template()));
}
