//! The fuzz smoke run: every target's body on its seeds and a few thousand seeded
//! mutations of them (bit flips, truncations, overwritten and repeated bytes); each must
//! return, never panic. `write_seeds` (ignored) writes the seeds to `fuzz/seeds/`.

use std::path::{Path, PathBuf};
use std::thread;

use mixgc_circuit::bristol;
use mixgc_compile::{compile, write_stream};
use mixgc_core::HashKind;
use mixgc_net::memory_pair;
use mixgc_session::{EvaluatorSession, GarblerSession, SessionConfig, Terms, PROTOCOL_VERSION};

type Target = fn(&[u8]);

const TARGETS: [(&str, Target); 8] = [
    ("bristol", mixgc_fuzz_targets::bristol),
    ("stream", mixgc_fuzz_targets::stream),
    ("stream_forged", mixgc_fuzz_targets::stream_forged),
    ("frame", mixgc_fuzz_targets::frame),
    ("handshake", mixgc_fuzz_targets::handshake),
    ("state", mixgc_fuzz_targets::state),
    ("arith_tables", mixgc_fuzz_targets::arith_tables),
    ("tls_records", mixgc_fuzz_targets::tls_records),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The small shipped circuits (the large ones join the corpus through `fuzz/README.md`).
const SMALL_CIRCUITS: [&str; 3] = ["zero_equal.txt", "neg64.txt", "adder64.txt"];

fn frame(tag: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![tag];
    f.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    f.extend_from_slice(payload);
    f
}

/// A garbler's hello, then a circuit header of one 64-bit input each side and one output.
fn handshake_seed() -> Vec<u8> {
    let mut hello = b"MIXGC".to_vec();
    hello.extend_from_slice(&PROTOCOL_VERSION.to_le_bytes());
    hello.push(1);
    hello.push(HashKind::Tccr.code());
    hello.push(0); // a library session
    hello.extend_from_slice(&[9; 32]);
    let mut header = vec![0x5a; 64];
    for list in [&[64u32, 64][..], &[64][..]] {
        header.extend_from_slice(&(list.len() as u32).to_le_bytes());
        list.iter()
            .for_each(|w| header.extend_from_slice(&w.to_le_bytes()));
    }
    header.extend_from_slice(&1u32.to_le_bytes());
    header.push(3);
    header.extend_from_slice(&1u32.to_le_bytes());
    [frame(1, &hello), frame(3, &header)].concat()
}

/// The garbler's and the evaluator's states of one preprocessed `zero_equal`.
fn state_seeds() -> Vec<Vec<u8>> {
    let c = compile(&bristol::read_file(&root().join("circuits/zero_equal.txt")).unwrap());
    let (gch, ech) = memory_pair();
    let cfg = SessionConfig::default();
    let terms = Terms::default();
    thread::scope(|s| {
        let e = s.spawn(|| {
            let mut e = EvaluatorSession::setup(ech, &cfg).unwrap();
            e.preprocess(&c, &terms, &mut Vec::new()).unwrap().to_bytes()
        });
        let mut g = GarblerSession::setup(gch, &cfg).unwrap();
        let g = g.preprocess(&mut c.stream(), &terms).unwrap().to_bytes();
        vec![g, e.join().unwrap()]
    })
}

/// Scripts for `tls_records` (see `mixgc_net::fuzz_tls_records`): the socket's piece (2
/// bytes) and the read sizes (1), then operations: 0 application data (length, 2 bytes),
/// 1 a record of a content type with padding (type, padding, length), 2 raw bytes (count,
/// bytes), 3 a flipped bit (offset, 2 bytes; bit).
fn tls_records_seeds() -> Vec<Vec<u8>> {
    vec![
        // Data of several records, one padded, then a close_notify.
        vec![
            0x10, 0x05, 2, 0, 0x00, 0x90, 1, 23, 7, 0x20, 0x00, 0, 0x05, 0x00, 1, 21, 0, 2, 0,
        ],
        // Data, then a key update (a handshake message).
        vec![0xff, 0xff, 5, 0, 0x33, 0x00, 1, 22, 0, 4, 0],
        // Data with a flipped bit, then raw bytes.
        vec![0x01, 0x00, 3, 0, 0x00, 0x01, 3, 0x40, 0x00, 5, 2, 4, 23, 3, 3, 0],
    ]
}

/// Each target's seeds.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let circuits = SMALL_CIRCUITS.map(|n| std::fs::read(root().join("circuits").join(n)).unwrap());
    match target {
        "bristol" => circuits.to_vec(),
        "stream" | "stream_forged" => circuits[..2]
            .iter()
            .map(|t| {
                let c = bristol::parse(std::str::from_utf8(t).unwrap(), "seed").unwrap();
                let mut out = Vec::new();
                write_stream(&compile(&c), &mut out).unwrap();
                out
            })
            .collect(),
        "frame" => vec![
            [
                frame(1, b"MIXGC"),
                frame(5, &[0xa5; 300]),
                frame(2, b"stopped"),
                frame(12, &[1; 40]),
            ]
            .concat(),
            [frame(1, &[0; 64]), frame(2, b"no")].concat(),
        ],
        "handshake" => vec![handshake_seed()],
        "state" => state_seeds(),
        "arith_tables" => vec![
            [&[7u8, 3, 0, 1, 2, 9, 1, 4][..], &[0x3c; 600][..]].concat(),
            [&[1u8, 0, 2, 2][..], &[0xc3; 200][..]].concat(),
        ],
        "tls_records" => tls_records_seeds(),
        _ => unreachable!("no target {target}"),
    }
}

/// A xorshift generator: the mutations are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut m = seed.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(m.len());
        match rng.below(5) {
            0 if !m.is_empty() => m[at] ^= 1 << rng.below(8),
            1 => m.truncate(at),
            2 if !m.is_empty() => m[at] = [0, 0xff, 0x7f, 0x80][rng.below(4)],
            3 => {
                let end = (at + 1 + rng.below(16)).min(m.len());
                let copy = m[at..end].to_vec();
                m.splice(at..at, copy);
            }
            _ if m.len() >= at + 4 => m[at..at + 4].copy_from_slice(&(rng.next() as u32).to_le_bytes()),
            _ => m.push(rng.next() as u8),
        }
    }
    m
}

/// Mutations per seed: a few seconds for all targets together.
const MUTATIONS: usize = 400;

#[test]
fn fuzz_targets_survive_seeds_and_mutations() {
    for (name, run) in TARGETS {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for seed in seeds(name) {
            run(&seed);
            for _ in 0..MUTATIONS {
                run(&mutate(&seed, &mut rng));
            }
        }
    }
}

/// Writes each target's seeds to `fuzz/seeds/TARGET/` (run after a format change).
#[test]
#[ignore]
fn write_seeds() {
    for (name, _) in TARGETS {
        let dir = root().join("fuzz/seeds").join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for (i, seed) in seeds(name).iter().enumerate() {
            std::fs::write(dir.join(format!("seed-{i}")), seed).unwrap();
        }
    }
}
