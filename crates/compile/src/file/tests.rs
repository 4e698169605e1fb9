//! Stream files: a file read chunk by chunk computes what the in-memory stream computes,
//! and a damaged file is an error, never a panic or a wrong answer.

use std::path::PathBuf;

use mixgc_circuit::{bristol, Circuit};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

use super::*;
use crate::{compile_with, eval_stream_plain, Layout, Reorder, NOT_SLOT};

/// A file in the temp directory, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    /// A fresh path (tests run in parallel threads of one process).
    fn new(name: &str) -> TempFile {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let file = format!("mixgc-stream-{}-{n}-{name}.mgcs", std::process::id());
        TempFile(std::env::temp_dir().join(file))
    }

    fn with_bytes(name: &str, bytes: &[u8]) -> TempFile {
        let f = TempFile::new(name);
        std::fs::write(&f.0, bytes).unwrap();
        f
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn shipped(name: &str) -> Circuit {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits");
    bristol::read_file(&dir.join(name)).unwrap()
}

fn encode(c: &CompiledCircuit) -> Vec<u8> {
    let mut bytes = Vec::new();
    write_stream(c, &mut bytes).unwrap();
    bytes
}

fn random_bits(n: usize, rng: &mut impl Rng) -> Vec<bool> {
    (0..n).map(|_| rng.gen()).collect()
}

/// Reads the whole file with chunks of `cap` gates: the chunks, checked against the cap,
/// and the outputs on `inputs`.
fn read_all(path: &Path, cap: usize, inputs: &[bool]) -> Result<(usize, Vec<bool>), StreamError> {
    let mut f = StreamFile::open_chunked(path, cap)?;
    let mut chunks = 0;
    f.rewind()?;
    while let Some(chunk) = f.next_chunk()? {
        assert!(chunk.gates().len() <= cap.max(2 * MAX_AND_RUN));
        assert!(chunk.runs().len() <= cap.max(2 * MAX_AND_RUN));
        chunks += 1;
    }
    // A second pass after a rewind gives the same answer (and the first pass's outputs).
    let outputs = eval_stream_plain(&mut f, inputs)?;
    Ok((chunks, outputs))
}

#[test]
fn shipped_circuits_round_trip_in_every_layout() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let layouts = [
        Layout::Batched,
        Layout::Reordered(Reorder::Program, 64),
        Layout::Reordered(Reorder::Full, 1024),
        Layout::Reordered(Reorder::Segment, 64),
    ];
    for name in ["aes_128.txt", "sha256.txt", "adder64.txt"] {
        let c = shipped(name);
        for layout in layouts {
            let compiled = compile_with(&c, layout);
            let file = TempFile::new(&format!("shipped-{name}-{layout:?}"));
            save(&compiled, &file.0).unwrap();
            assert!(is_stream_file(&file.0).unwrap());
            let opened = StreamFile::open(&file.0).unwrap();
            assert_eq!(opened.header(), compiled.header(), "{name} {layout:?}");
            let inputs = random_bits(compiled.input_slots().len(), &mut rng);
            let want = compiled.eval_plain(&inputs);
            for cap in [CHUNK_GATES, 1000, 33] {
                let (chunks, got) = read_all(&file.0, cap, &inputs).unwrap();
                assert_eq!(got, want, "{name} {layout:?} chunks of {cap}");
                let at_least = compiled.num_gates().div_ceil(cap as u64) as usize;
                assert!(chunks >= at_least, "{name}: {chunks} chunks of {cap}");
            }
        }
    }
}

#[test]
fn sha256_takes_several_default_chunks() {
    let compiled = compile_with(&shipped("sha256.txt"), Layout::Batched);
    assert!(compiled.num_gates() > 2 * CHUNK_GATES as u64);
    let file = TempFile::with_bytes("sha-chunks", &encode(&compiled));
    let inputs = vec![true; compiled.input_slots().len()];
    let (chunks, got) = read_all(&file.0, CHUNK_GATES, &inputs).unwrap();
    assert!(chunks >= 3, "{chunks} chunks");
    assert_eq!(got, compiled.eval_plain(&inputs));
}

/// A stream with parallel blocks: 8 input bits; block 1 computes 152 independent gates
/// from the inputs (XOR, AND, constant runs); then a free XOR chain folds them; block 2
/// reads block 1's results. Outputs: the fold and block 2's outputs.
fn parallel_stream() -> CompiledCircuit {
    let input = |i: u32| 1 + i % 8;
    let mut runs = Vec::new();
    let mut gates = Vec::new();
    let mut next_slot = 9;
    let mut fresh = || {
        next_slot += 1;
        next_slot - 1
    };
    let run = |runs: &mut Vec<Run>, kind, len| runs.push(Run { kind, len });
    run(&mut runs, RunKind::Parallel, 5);
    let block1: Vec<(RunKind, u32)> = vec![
        (RunKind::Xor, 50),
        (RunKind::And, 16),
        (RunKind::And, 16),
        (RunKind::Xor, 60),
        (RunKind::Const, 10),
    ];
    let mut made = Vec::new();
    for &(kind, len) in &block1 {
        run(&mut runs, kind, len);
        for i in 0..len {
            let out = fresh();
            made.push(out);
            let (a, b) = match kind {
                RunKind::Const => (i % 2, 0),
                _ => (input(i), if i % 5 == 0 { NOT_SLOT } else { input(i + 3) }),
            };
            gates.push(Gate { a, b, out });
        }
    }
    let acc = fresh();
    run(&mut runs, RunKind::Xor, made.len() as u32 - 1);
    gates.push(Gate {
        a: made[0],
        b: made[1],
        out: acc,
    });
    for &m in &made[2..] {
        gates.push(Gate {
            a: acc,
            b: m,
            out: acc,
        });
    }
    run(&mut runs, RunKind::Parallel, 2);
    let mut outs = vec![acc];
    for (kind, len) in [(RunKind::And, 9), (RunKind::Xor, 70)] {
        run(&mut runs, kind, len);
        for i in 0..len as usize {
            let out = fresh();
            outs.push(out);
            gates.push(Gate {
                a: made[i],
                b: made[i + 40],
                out,
            });
        }
    }
    let num_slots = fresh();
    let body = Chunk::new(num_slots, runs, gates).unwrap();
    let mut header = StreamHeader {
        input_widths: vec![8],
        output_widths: vec![outs.len() as u32],
        digest: [3; 32],
        num_slots,
        input_slots: (1..=8).collect(),
        output_slots: outs,
        num_gates: body.gates().len() as u64,
        num_ands: body.num_ands(),
        stream_digest: [0; 32],
    };
    let mut hasher = StreamHasher::new(&header);
    hasher.chunk(&body);
    header.stream_digest = hasher.finish();
    CompiledCircuit::new(header, body).unwrap()
}

#[test]
fn parallel_blocks_are_cut_into_smaller_blocks() {
    let compiled = parallel_stream();
    let file = TempFile::with_bytes("parallel", &encode(&compiled));
    let mut rng = rand::rngs::StdRng::seed_from_u64(3);
    for cap in [32, 33, 47, 64, 100, 151, 152, 153, 500] {
        for _ in 0..4 {
            let inputs = random_bits(8, &mut rng);
            let (chunks, got) = read_all(&file.0, cap, &inputs).unwrap();
            assert_eq!(got, compiled.eval_plain(&inputs), "chunks of {cap}");
            assert!(chunks > 1 || cap == 500);
        }
    }
    // Every chunk carries its part of a block under a marker of its own: the file's two
    // blocks become more.
    let mut f = StreamFile::open_chunked(&file.0, 40).unwrap();
    let mut markers = 0;
    while let Some(chunk) = f.next_chunk().unwrap() {
        let first = chunk.runs()[0];
        assert!(
            first.kind == RunKind::Parallel || first.kind == RunKind::Xor,
            "{first:?}"
        );
        markers += chunk
            .runs()
            .iter()
            .filter(|r| r.kind == RunKind::Parallel)
            .count();
    }
    assert!(markers > 4, "{markers} markers");
}

/// The file of `adder64` under the batched layout, and where its body starts.
fn small_file() -> (CompiledCircuit, Vec<u8>, usize) {
    let compiled = compile_with(&shipped("adder64.txt"), Layout::Batched);
    let bytes = encode(&compiled);
    let tmp = TempFile::with_bytes("body-start", &bytes);
    let body = StreamFile::open(&tmp.0).unwrap().body_start as usize;
    (compiled, bytes, body)
}

/// Opens `bytes` as a stream file and runs it on all-zero inputs.
fn try_run(name: &str, bytes: &[u8]) -> Result<Vec<bool>, StreamError> {
    let tmp = TempFile::with_bytes(name, bytes);
    let mut f = StreamFile::open_chunked(&tmp.0, 64)?;
    let inputs = vec![false; f.header().input_slots().len()];
    eval_stream_plain(&mut f, &inputs)
}

fn malformed(r: Result<Vec<bool>, StreamError>) -> String {
    match r {
        Err(StreamError::Malformed(m)) => m,
        other => panic!("expected a Malformed error, got {other:?}"),
    }
}

#[test]
fn header_damage_is_named() {
    let (_, bytes, _) = small_file();
    let mut b = bytes.clone();
    b[0] = b'X';
    assert!(malformed(try_run("magic", &b)).contains("not a mixgc compiled-stream file"));
    assert!(malformed(try_run("empty", &[])).contains("not a mixgc compiled-stream file"));
    let mut b = bytes.clone();
    b[8..12].copy_from_slice(&2u32.to_le_bytes());
    assert!(malformed(try_run("version", &b)).contains("format version 2"));
    let mut b = bytes.clone();
    b[20] ^= 1;
    assert!(malformed(try_run("checksum", &b)).contains("header checksum"));
}

#[test]
fn truncation_anywhere_is_an_error() {
    let (compiled, bytes, _) = small_file();
    let inputs = vec![false; compiled.input_slots().len()];
    assert_eq!(try_run("whole", &bytes).unwrap(), compiled.eval_plain(&inputs));
    for len in 0..bytes.len() {
        let m = malformed(try_run("truncated", &bytes[..len]));
        assert!(
            m.contains("truncated") || m.contains("not a mixgc"),
            "cut at {len}: {m}"
        );
    }
}

#[test]
fn every_flipped_byte_is_an_error() {
    let (_, bytes, _) = small_file();
    for at in 0..bytes.len() {
        for mask in [0x01, 0x80] {
            let mut b = bytes.clone();
            b[at] ^= mask;
            assert!(
                try_run("flipped", &b).is_err(),
                "flip {mask:#x} at {at} went unnoticed"
            );
        }
    }
}

#[test]
fn trailing_bytes_are_an_error() {
    let (_, mut bytes, _) = small_file();
    bytes.push(0);
    assert!(malformed(try_run("trailing", &bytes)).contains("after the end marker"));
}

#[test]
fn slot_out_of_range_with_a_consistent_digest_is_refused() {
    let (compiled, mut bytes, body) = small_file();
    // The first gate's output slot: past the first run header.
    let out = body + 5 + 8;
    bytes[out..out + 4].copy_from_slice(&compiled.num_slots().to_le_bytes());
    // Recompute the stream digest and the header checksum, as a forger would.
    let mut hasher = StreamHasher::new(compiled.header());
    hasher.encoded(&bytes[body..bytes.len() - 1]);
    bytes[body - 64..body - 32].copy_from_slice(&hasher.finish());
    let sum = blake3::hash(&bytes[..body - 32]);
    bytes[body - 32..body].copy_from_slice(sum.as_bytes());
    let m = malformed(try_run("slot", &bytes));
    assert!(m.contains("output slot") && m.contains("corrupt"), "{m}");
}

/// A forged header (checksum recomputed, as anyone can) that declares 2^40 gates is refused
/// from the file's length, before anything is sized from it.
#[test]
fn a_gate_count_the_file_cannot_hold_is_refused() {
    let (_, mut bytes, body) = small_file();
    // num_gates and num_ands sit before the stream digest and the checksum.
    let gates = body - 32 - 32 - 16;
    bytes[gates..gates + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let sum = blake3::hash(&bytes[..body - 32]);
    bytes[body - 32..body].copy_from_slice(sum.as_bytes());
    let m = malformed(try_run("gates", &bytes));
    assert!(
        m.contains("declares 1099511627776 gates") && m.contains("at most"),
        "{m}"
    );
}

#[test]
fn the_file_digest_is_the_compilers() {
    // The body is hashed as it is read: the same digest as the in-memory stream, so a
    // party running the file and one running the circuit agree in the handshake.
    let (compiled, bytes, body) = small_file();
    let mut hasher = StreamHasher::new(compiled.header());
    hasher.encoded(&bytes[body..bytes.len() - 1]);
    assert_eq!(hasher.finish(), compiled.stream_digest());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_circuits_round_trip(seed: u64, gates in 1usize..600, cap in 1usize..200, layout in 0usize..4) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let widths = [rng.gen_range(1..20), rng.gen_range(0..20)];
        let c = Circuit::random(&mut rng, &widths, gates, 8);
        let layout = [
            Layout::Batched,
            Layout::Reordered(Reorder::Program, 16),
            Layout::Reordered(Reorder::Full, 16),
            Layout::Reordered(Reorder::Segment, 8),
        ][layout];
        let compiled = compile_with(&c, layout);
        let file = TempFile::with_bytes(&format!("random-{seed}-{gates}-{cap}"), &encode(&compiled));
        let inputs = random_bits(compiled.input_slots().len(), &mut rng);
        let (_, got) = read_all(&file.0, cap, &inputs).unwrap();
        prop_assert_eq!(got, compiled.eval_plain(&inputs));
    }

    #[test]
    fn random_damage_is_an_error(seed: u64, flips in 1usize..4, cut in proptest::option::of(0.0f64..1.0)) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let c = Circuit::random(&mut rng, &[8, 8], 300, 8);
        let mut bytes = encode(&compile_with(&c, Layout::Batched));
        for at in rand::seq::index::sample(&mut rng, bytes.len(), flips) {
            bytes[at] ^= rng.gen_range(1..=255u8);
        }
        if let Some(f) = cut {
            bytes.truncate((bytes.len() as f64 * f) as usize);
        }
        let name = format!("damage-{seed}-{flips}");
        prop_assert!(try_run(&name, &bytes).is_err());
    }
}

#[test]
fn reseal_header_recomputes_exactly_the_writers_checksum() {
    let (_, bytes, body) = small_file();
    let mut forged = bytes.clone();
    forged[body - 32..body].fill(0);
    assert!(reseal_header(&mut forged));
    assert_eq!(forged, bytes);
    assert!(!reseal_header(&mut bytes[..body - 1].to_vec()));
    assert!(!reseal_header(&mut []));
}
