//! `mixgc preprocess` / `mixgc online`: two real processes for each phase, FIPS-197 AES,
//! single use of a garbling, and the errors a user can run into.

use super::common;

use common::*;

const FIPS_KEY: &str = "000102030405060708090a0b0c0d0e0f";
const FIPS_PLAINTEXT: &str = "00112233445566778899aabbccddeeff";
const FIPS_CIPHERTEXT: &str = "69c4e0d86a7b0430d8cdb78070b4c55a";

struct Dir(std::path::PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("mixgc-prep-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
    fn file(&self, name: &str) -> String {
        self.0.join(name).to_string_lossy().into_owned()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn preprocess(aes: &str, g_state: &str, e_state: &str) -> (Output, Output) {
    pair(
        &[
            "preprocess",
            "--circuit",
            aes,
            "--role",
            "garbler",
            "--state",
            g_state,
        ],
        &[
            "preprocess",
            "--circuit",
            aes,
            "--role",
            "evaluator",
            "--state",
            e_state,
        ],
    )
}

/// Runs the offline phase of `circuit_file` into `dir`; returns the two state paths and the
/// evaluator's output (both parties must succeed).
fn preprocessed(dir: &Dir, circuit_file: &str) -> (String, String, Output) {
    let (g_state, e_state) = (dir.file("g.prep"), dir.file("e.prep"));
    let (g, e) = preprocess(circuit_file, &g_state, &e_state);
    g.assert_ok("garbler offline");
    e.assert_ok("evaluator offline");
    (g_state, e_state, e)
}

fn online(aes: &str, g_state: &str, e_state: &str) -> (Output, Output) {
    pair(
        &[
            "online", "--role", "garbler", "--state", g_state, "--input", FIPS_KEY,
        ],
        &[
            "online",
            "--circuit",
            aes,
            "--role",
            "evaluator",
            "--state",
            e_state,
            "--input",
            FIPS_PLAINTEXT,
        ],
    )
}

/// The garbler's online phase on its own (no evaluator comes): for the errors it finds first.
fn garbler_online_alone(state: &str, input: &str) -> Output {
    run1(&[
        "online",
        "--role",
        "garbler",
        "--state",
        state,
        "--listen",
        "127.0.0.1:0",
        "--input",
        input,
    ])
}

#[test]
fn aes_offline_then_online_gives_fips_197_once() {
    let dir = Dir::new("aes");
    let aes = circuit("aes_128.txt");
    let (g_state, e_state, e) = preprocessed(&dir, &aes);
    assert!(
        e.stderr.contains("6,400 ANDs") && e.stderr.contains("stored 200.0 KiB"),
        "{e:#?}"
    );

    let (g, e) = online(&aes, &g_state, &e_state);
    for (who, out) in [("garbler", &g), ("evaluator", &e)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, format!("{FIPS_CIPHERTEXT}\n"), "{who}: {out:#?}");
        assert!(out.stderr.contains("online"), "{who}: {out:#?}");
    }
    // Online, only labels travel: no garbled tables (6,400 ANDs would be 200 KiB).
    // (4138 B of labels and corrections, and the 37-byte release key frame.)
    assert!(e.stderr.contains("received 4175 B"), "{e:#?}");

    // Both states are consumed: a second online phase is refused before anything leaves.
    for (role, state) in [("garbler", &g_state), ("evaluator", &e_state)] {
        assert!(
            !std::path::Path::new(state).exists(),
            "{role}'s state is consumed"
        );
    }
    garbler_online_alone(&g_state, FIPS_KEY).assert_error("reused state", &["does not exist", "used once"]);
}

#[test]
fn a_copied_garbler_state_is_useless_once_the_store_is_spent() {
    let dir = Dir::new("copy");
    let aes = circuit("aes_128.txt");
    let (g_state, e_state, _) = preprocessed(&dir, &aes);
    let backup = dir.file("g.backup");
    std::fs::copy(&g_state, &backup).unwrap();
    let (g, e) = online(&aes, &g_state, &e_state);
    g.assert_ok("garbler");
    e.assert_ok("evaluator");
    // The garbler restores its backup; the evaluator has no store left to open it with.
    std::fs::rename(&backup, &g_state).unwrap();
    let e = run1(&[
        "online",
        "--circuit",
        &aes,
        "--role",
        "evaluator",
        "--state",
        &e_state,
        "--connect",
        "127.0.0.1:9",
        "--input",
        FIPS_PLAINTEXT,
    ]);
    e.assert_error("spent store", &["cannot open", "e.prep"]);
}

#[test]
fn mistakes_before_the_release_leave_both_states_as_they_were() {
    let dir = Dir::new("mistakes");
    let aes = circuit("aes_128.txt");
    let (g_state, e_state, _) = preprocessed(&dir, &aes);
    let before = [std::fs::read(&g_state).unwrap(), std::fs::read(&e_state).unwrap()];
    let unchanged = |what: &str| {
        let now = [std::fs::read(&g_state).unwrap(), std::fs::read(&e_state).unwrap()];
        assert!(now == before, "{what}: the states changed");
    };
    // A bad input, on either side.
    garbler_online_alone(&g_state, "zz").assert_error("bad hex", &["hex"]);
    unchanged("bad garbler input");
    // Another circuit: both sides are told, before any key or label leaves.
    let (g, e) = online(&circuit("sha256.txt"), &g_state, &e_state);
    g.assert_error("garbler", &["not the one this store was preprocessed for"]);
    e.assert_error("evaluator", &["not the one this store was preprocessed for"]);
    unchanged("another circuit");
    // A README passed as the garbler's state is read, refused and left alone.
    let readme = dir.file("README");
    std::fs::write(&readme, b"notes").unwrap();
    garbler_online_alone(&readme, FIPS_KEY)
        .assert_error("not a state", &["not a mixgc garbler preprocessing state"]);
    assert_eq!(std::fs::read(&readme).unwrap(), b"notes");
    // And the states still work.
    let (g, e) = online(&aes, &g_state, &e_state);
    g.assert_ok("garbler");
    assert_eq!(e.stdout, format!("{FIPS_CIPHERTEXT}\n"));
}

#[test]
fn a_failed_preprocess_leaves_no_state_file() {
    let dir = Dir::new("failed");
    let aes = circuit("aes_128.txt");
    let g_state = dir.file("g.prep");
    // The evaluator runs `run` instead of `preprocess`: both fail, nothing is left behind.
    let (g, e) = pair(
        &[
            "preprocess",
            "--circuit",
            &aes,
            "--role",
            "garbler",
            "--state",
            &g_state,
        ],
        &[
            "run",
            "--circuit",
            &aes,
            "--role",
            "evaluator",
            "--input",
            FIPS_PLAINTEXT,
        ],
    );
    assert!(!g.success() && !e.success(), "{g:#?}\n{e:#?}");
    let left: Vec<_> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|f| f.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

#[test]
fn state_files_are_never_overwritten_and_bad_stores_are_named() {
    let dir = Dir::new("errors");
    let aes = circuit("aes_128.txt");
    let existing = dir.file("exists");
    std::fs::write(&existing, b"precious").unwrap();
    run1(&[
        "preprocess",
        "--circuit",
        &aes,
        "--role",
        "garbler",
        "--state",
        &existing,
        "--listen",
        "127.0.0.1:0",
    ])
    .assert_error("existing state", &["already exists"]);
    assert_eq!(std::fs::read(&existing).unwrap(), b"precious");

    run1(&[
        "online",
        "--circuit",
        &aes,
        "--role",
        "evaluator",
        "--state",
        &existing,
        "--connect",
        "127.0.0.1:9",
        "--input",
        FIPS_PLAINTEXT,
    ])
    .assert_error("garbage store", &["not a mixgc evaluator store"]);
    run1(&[
        "online",
        "--role",
        "evaluator",
        "--state",
        &existing,
        "--connect",
        "127.0.0.1:9",
    ])
    .assert_error("missing circuit", &["needs --circuit"]);
}

#[test]
fn online_with_another_circuit_is_refused_on_both_sides() {
    let dir = Dir::new("other");
    let (g_state, e_state, _) = preprocessed(&dir, &circuit("aes_128.txt"));
    let sha = circuit("sha256.txt");
    let (g, e) = online(&sha, &g_state, &e_state);
    e.assert_error("evaluator", &["not the one this store was preprocessed for"]);
    g.assert_error("garbler", &["not the one this store was preprocessed for"]);
}

#[test]
fn a_compiled_stream_file_preprocesses_and_runs_online() {
    let dir = Dir::new("stream");
    let stream = dir.file("aes.mgcs");
    run1(&[
        "compile",
        &circuit("aes_128.txt"),
        "--schedule",
        "segment",
        "--out",
        &stream,
    ])
    .assert_ok("compile");
    let (g_state, e_state, _) = preprocessed(&dir, &stream);
    let (g, e) = online(&stream, &g_state, &e_state);
    for (who, out) in [("garbler", &g), ("evaluator", &e)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, format!("{FIPS_CIPHERTEXT}\n"), "{who}: {out:#?}");
    }
}

/// `--garbling three-halves` on both sides preprocesses AES-128 into a smaller store (about
/// 25 bytes per AND instead of 32) and runs online to the FIPS-197 ciphertext with the same
/// online bytes; `online --garbling half-gates` refuses a three-halves state before
/// connecting, naming both schemes, on either side.
#[test]
fn a_three_halves_preprocessing_runs_online_and_its_state_names_its_scheme() {
    let dir = Dir::new("three-halves");
    let aes = circuit("aes_128.txt");
    let (g_state, e_state) = (dir.file("g.prep"), dir.file("e.prep"));
    let side = |role: &'static str, state: &str| -> Vec<String> {
        [
            "preprocess",
            "--circuit",
            &aes,
            "--role",
            role,
            "--state",
            state,
            "--garbling",
            "three-halves",
        ]
        .map(String::from)
        .to_vec()
    };
    let (g, e) = pair(
        &strs(&side("garbler", &g_state)),
        &strs(&side("evaluator", &e_state)),
    );
    g.assert_ok("garbler offline");
    e.assert_ok("evaluator offline");
    // 6,400 ANDs in groups of at most 16: 24 bytes each plus 5 bits, about 154 KiB.
    assert!(
        e.stderr.contains("6,400 ANDs") && e.stderr.contains("stored 15"),
        "{e:#?}"
    );

    for (role, state) in [("garbler", &g_state), ("evaluator", &e_state)] {
        let mut args = vec![
            "online",
            "--role",
            role,
            "--state",
            state,
            "--garbling",
            "half-gates",
        ];
        if role == "evaluator" {
            args.extend(["--circuit", &aes, "--connect", "127.0.0.1:9"]);
        } else {
            args.extend(["--listen", "127.0.0.1:0"]);
        }
        run1(&args).assert_error(
            &format!("{role} with the other scheme"),
            &[
                "preprocessed with three-halves garbling",
                "--garbling says half-gates",
            ],
        );
        assert!(std::path::Path::new(state).exists(), "{role}'s state is kept");
    }

    let (g, e) = online(&aes, &g_state, &e_state);
    for (who, out) in [("garbler", &g), ("evaluator", &e)] {
        out.assert_ok(who);
        assert_eq!(out.stdout, format!("{FIPS_CIPHERTEXT}\n"), "{who}: {out:#?}");
    }
    assert!(e.stderr.contains("received 4175 B"), "only labels travel: {e:#?}");
}
