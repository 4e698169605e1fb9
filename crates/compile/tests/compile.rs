//! The compiled stream computes what the circuit computes, in bounded slots.

use mixgc_circuit::{bristol, Circuit, GateKind};
use mixgc_compile::{
    circuit_info, compile, compile_with, eval_stream_plain, CompiledCircuit, Layout, Reorder, RunKind,
    MAX_PARALLEL_GATES,
};
use mixgc_program::gadgets::aes::aes128;
use mixgc_program::{Backend, PartyId, Recorder};
use proptest::prelude::*;
use rand::{Rng, SeedableRng};

fn circuits_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits")
}

/// Every layout a stream can be compiled with.
fn layouts() -> [Layout; 5] {
    [
        Layout::Batched,
        Layout::Reordered(Reorder::Program, 64),
        Layout::Reordered(Reorder::Full, 64),
        Layout::Reordered(Reorder::Segment, 8),
        Layout::Reordered(Reorder::Segment, 64),
    ]
}

fn check_against_ir(c: &Circuit, rng: &mut impl Rng) {
    for layout in layouts() {
        check_layout(c, layout, rng);
    }
}

fn check_layout(c: &Circuit, layout: Layout, rng: &mut impl Rng) {
    let compiled = compile_with(c, layout);
    let inputs: Vec<Vec<bool>> = c
        .input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.gen()).collect())
        .collect();
    let want: Vec<bool> = c.eval_plain(&inputs).unwrap().concat();
    let got = compiled.eval_plain(&inputs.concat());
    assert_eq!(got, want, "{layout:?}");
    // The type invariant the engines rely on holds (slots in range, AND runs of
    // 1..=MAX_AND_RUN gates, runs covering every gate).
    // That includes the promise of every parallel marker (independent gates, no slot
    // written by one gate and read or written by another).
    compiled.check().unwrap();
    if matches!(layout, Layout::Batched | Layout::Reordered(Reorder::Program, _)) {
        assert!(parallel_blocks(&compiled).is_empty(), "{layout:?} has no blocks");
    }
    if layout == Layout::Batched {
        assert_eq!(compiled.stream_digest(), compile(c).stream_digest());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_circuits_compile_correctly(seed: u64, gates in 1usize..400, w1 in 1u32..20, w2 in 0u32..20) {
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        let c = Circuit::random(&mut rng, &[w1, w2], gates, 8);
        check_against_ir(&c, &mut rng);
    }
}

#[test]
fn shipped_circuits_compile_correctly() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for name in [
        "aes_128.txt",
        "sha256.txt",
        "adder64.txt",
        "mult64.txt",
        "AES-non-expanded.txt",
    ] {
        let c = bristol::read_file(&circuits_dir().join(name)).unwrap();
        for _ in 0..3 {
            check_against_ir(&c, &mut rng);
        }
    }
}

#[test]
fn aes_batches_ands_and_keeps_memory_small() {
    let c = bristol::read_file(&circuits_dir().join("aes_128.txt")).unwrap();
    let compiled = compile(&c);
    let groups = compiled.runs().iter().filter(|r| r.kind == RunKind::And).count() as f64;
    let mean_group = compiled.num_ands() as f64 / groups;
    assert!(
        mean_group >= 8.0,
        "AND groups average {mean_group:.1} gates; hashing would not fill AES-NI"
    );
    let info = circuit_info(&c, &compiled);
    assert_eq!(info.ands, 6400);
    // Working memory is the live set, far below one slot per wire.
    assert!(
        info.compiled_slots < c.num_wires as u64 / 10,
        "{} slots",
        info.compiled_slots
    );
    assert!(info.max_live_wires >= 256 + 128, "inputs and outputs are live");
}

/// Hand-checked liveness: inputs live from the start, outputs to the end, a gate's
/// output reusing the slot of an input it reads last.
#[test]
fn max_live_wires_follows_the_definition() {
    // 2 inputs a,b (1 bit each); w2 = a^b; w3 = w2 & a; output w3.
    // Start: {a,b} live = 2. Gate 0 reads b for the last time -> w2 reuses: live {a,w2} = 2.
    // Gate 1 reads w2 and a for the last time -> w3 reuses: live {w3} = 1. Max = 2.
    let text = "2 4\n2 1 1\n1 1\n\n2 1 0 1 2 XOR\n2 1 2 0 3 AND\n";
    let c = bristol::parse(text, "tiny").unwrap();
    let info = circuit_info(&c, &compile(&c));
    assert_eq!(info.max_live_wires, 2);
    assert_eq!((info.gates, info.ands, info.xors, info.and_depth), (2, 1, 1, 1));
}

/// (runs, gates, ANDs) of every parallel block of a stream.
fn parallel_blocks(c: &CompiledCircuit) -> Vec<(usize, usize, usize)> {
    let runs = c.runs();
    let mut blocks = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        if r.kind == RunKind::Parallel {
            let block = &runs[i + 1..i + 1 + r.len as usize];
            let gates = block.iter().map(|r| r.len as usize).sum();
            let ands = block
                .iter()
                .filter(|r| r.kind == RunKind::And)
                .map(|r| r.len as usize)
                .sum();
            blocks.push((block.len(), gates, ands));
        }
    }
    blocks
}

/// Full and segment orders come level by level in parallel blocks of several runs and at
/// most MAX_PARALLEL_GATES gates; a wide circuit's blocks hold most of its ANDs.
#[test]
fn reordered_streams_come_in_parallel_blocks() {
    let aes = bristol::read_file(&circuits_dir().join("aes_128.txt")).unwrap();
    // 16 independent AES-128 blocks side by side: levels of ~20 × 16 ANDs.
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for c in [aes.clone(), wide_aes(16)] {
        for layout in [
            Layout::Reordered(Reorder::Full, 64),
            Layout::Reordered(Reorder::Segment, 4096),
            Layout::Reordered(Reorder::Segment, 1 << 20),
        ] {
            check_layout(&c, layout, &mut rng);
            let compiled = compile_with(&c, layout);
            let blocks = parallel_blocks(&compiled);
            assert!(!blocks.is_empty(), "{layout:?}: no parallel blocks");
            for &(runs, gates, _) in &blocks {
                assert!(
                    runs >= 2 && gates <= MAX_PARALLEL_GATES,
                    "{layout:?}: {runs} runs, {gates} gates"
                );
            }
            let in_blocks: usize = blocks.iter().map(|b| b.2).sum();
            assert!(
                in_blocks as u64 * 10 >= compiled.num_ands() * 9,
                "{layout:?}: only {in_blocks} of {} ANDs in blocks",
                compiled.num_ands()
            );
        }
    }
    // A level wider than MAX_PARALLEL_GATES is cut into several blocks.
    let wide = wide_aes(64);
    let blocks = parallel_blocks(&compile_with(&wide, Layout::Reordered(Reorder::Full, 64)));
    assert!(
        blocks.iter().any(|b| b.1 == MAX_PARALLEL_GATES),
        "{:?}",
        &blocks[..4]
    );
}

/// `n` independent AES-128 encryptions (key and plaintext each), recorded as one circuit.
fn wide_aes(n: usize) -> Circuit {
    let mut r = Recorder::default();
    for _ in 0..n {
        let key = r.input(PartyId::GARBLER, 128, None).unwrap();
        let pt = r.input(PartyId::EVALUATOR, 128, None).unwrap();
        let ct = aes128(&mut r, &key, &pt);
        r.output(&ct).unwrap();
    }
    r.finish().circuit
}

/// Files are told apart by their first bytes before any text parsing: a stream file, a
/// stream whose magic is damaged, and a Bristol file each get their own answer.
#[test]
fn files_are_recognised_by_their_magic_before_parsing() {
    use mixgc_compile::{sniff, FileKind, LoadError, Loaded, Runnable};
    let dir = std::env::temp_dir().join(format!("mixgc-sniff-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bristol_path = circuits_dir().join("adder64.txt");
    let stream = dir.join("adder.mgcs");
    mixgc_compile::save(&compile(&bristol::read_file(&bristol_path).unwrap()), &stream).unwrap();
    assert_eq!(sniff(&stream).unwrap(), FileKind::Stream);
    assert_eq!(sniff(&bristol_path).unwrap(), FileKind::Other);
    assert!(matches!(Runnable::open(&stream, None), Ok(Runnable::File(_))));
    let e = Loaded::read_file(&stream).err().expect("a stream is not Bristol");
    assert!(matches!(e, LoadError::NotBristol(_)), "{e}");

    let mut bytes = std::fs::read(&stream).unwrap();
    bytes[0] ^= 0x80; // the first byte damaged: no longer UTF-8, no longer the magic
    let damaged = dir.join("damaged.mgcs");
    std::fs::write(&damaged, &bytes).unwrap();
    assert_eq!(sniff(&damaged).unwrap(), FileKind::DamagedStream);
    for e in [
        Runnable::open(&damaged, None).err().expect("damaged"),
        Loaded::read_file(&damaged).err().expect("damaged"),
    ] {
        let msg = e.to_string();
        assert!(
            msg.contains("damaged stream file") && !msg.contains("UTF-8"),
            "{msg}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A circuit with no inputs whose one gate is the constant 1 (Bristol `EQ 1`, a single wire):
/// the scheduler must not read the constant's value as a wire id.
#[test]
fn a_single_constant_one_compiles() {
    let c = Circuit {
        num_wires: 1,
        output_widths: vec![1],
        output_wires: vec![0],
        kind: vec![GateKind::Const],
        a: vec![1],
        b: vec![0],
        out: vec![0],
        ..Circuit::default()
    };
    assert_eq!(c.validate(), Ok(()));
    let compiled = compile(&c);
    assert_eq!(eval_stream_plain(&mut compiled.stream(), &[]).unwrap(), [true]);
}
