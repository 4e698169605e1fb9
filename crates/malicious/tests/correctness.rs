//! Honest runs against plaintext evaluation: every shipped circuit and random circuits,
//! several batch sizes, every output audience, edge shapes.

mod common;

use common::{check_against_plain, random_inputs};
use mixgc_circuit::{bristol, Audience, Circuit, PartyId};
use mixgc_core::new_rng;
use mixgc_malicious::{MaliciousError, Terms};

fn shipped() -> Vec<(String, Circuit)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "txt") {
            let c = bristol::read_file(&path).unwrap_or_else(|e| panic!("{e}"));
            out.push((path.display().to_string(), c));
        }
    }
    assert!(out.len() >= 10, "the shipped circuits are found");
    out
}

#[test]
fn every_shipped_circuit_matches_plaintext_at_several_batch_sizes() {
    for (i, (name, c)) in shipped().into_iter().enumerate() {
        let ands = c.stats().ands.max(1);
        let inputs = random_inputs(&c, i as u64);
        let garbler_values = c.input_widths.len().div_ceil(2);
        for batch in [1, 7, 1000, ands] {
            // Batches of 1 on the largest circuits cost a round trip per AND: keep it
            // for those under 10,000 AND gates.
            if batch == 1 && ands > 10_000 {
                continue;
            }
            eprintln!("{name}: batch {batch}");
            let terms = Terms {
                batch_ands: batch,
                ..Terms::new(garbler_values)
            };
            check_against_plain(&c, terms, &inputs, 1000 + i as u64);
        }
    }
}

#[test]
fn the_shipped_aes_gives_the_fips_197_ciphertext() {
    let c = bristol::parse(mixgc_circuit::shipped::AES_128, "aes_128.txt").unwrap();
    // Key 000102…0f, plaintext 00112233…ff (FIPS-197 C.1), least significant bit first.
    let hex_bits = |h: &str| mixgc_circuit::values::parse_hex(h, 128).unwrap();
    let inputs = vec![
        hex_bits("000102030405060708090a0b0c0d0e0f"),
        hex_bits("00112233445566778899aabbccddeeff"),
    ];
    for batch in [100, 6400] {
        let terms = Terms {
            batch_ands: batch,
            ..Terms::new(1)
        };
        let (g, e) = common::run_pair(&c, terms, &inputs, 5, Default::default(), Default::default());
        for out in [g.unwrap().unwrap(), e.unwrap().unwrap()] {
            assert_eq!(
                mixgc_circuit::values::to_hex(&out[0]),
                "69c4e0d86a7b0430d8cdb78070b4c55a"
            );
        }
    }
}

#[test]
fn random_circuits_match_plaintext_for_every_audience_and_batch() {
    let audiences = [
        Audience::BOTH,
        Audience::only(PartyId::GARBLER),
        Audience::only(PartyId::EVALUATOR),
    ];
    let mut rng = new_rng(Some(17), 0);
    use rand::Rng;
    for case in 0..60u64 {
        let widths: Vec<u32> = (0..rng.gen_range(0..4)).map(|_| rng.gen_range(0..9)).collect();
        let gates = rng.gen_range(0..300);
        let outputs = rng.gen_range(0..20);
        let c = Circuit::random(&mut rng, &widths, gates, outputs);
        let inputs = random_inputs(&c, case);
        let terms = Terms {
            garbler_values: rng.gen_range(0..=widths.len()),
            reveal: audiences[case as usize % 3],
            batch_ands: [1, 2, 7, 1000][case as usize % 4],
        };
        check_against_plain(&c, terms, &inputs, case);
    }
}

#[test]
fn edge_shapes_run() {
    // Only constants and NOTs (no AND, no input); a single AND of a wire with itself.
    let consts = bristol::parse("3 3\n0\n1 3\n\n1 1 0 0 EQ\n1 1 0 1 EQ\n1 1 1 2 INV\n", "c.txt").unwrap();
    check_against_plain(&consts, Terms::new(0), &[], 1);
    let square = bristol::parse("1 2\n1 1\n1 1\n\n2 1 0 0 1 AND\n", "sq.txt").unwrap();
    for x in [false, true] {
        for owner in [0, 1] {
            check_against_plain(&square, Terms::new(owner), &[vec![x]], 2);
        }
    }
}

#[test]
fn bad_requests_are_refused_with_a_clear_error() {
    let c = bristol::parse("1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n", "and.txt").unwrap();
    let zero = Terms {
        batch_ands: 0,
        ..Terms::new(1)
    };
    let (g, e) = common::run_pair(
        &c,
        zero,
        &[vec![true], vec![true]],
        1,
        Default::default(),
        Default::default(),
    );
    for r in [g, e] {
        assert!(
            matches!(r, Err(MaliciousError::Input(ref m)) if m.contains("batch")),
            "{r:?}"
        );
    }
    // A wrong input width: the garbler refuses before sending, the evaluator sees it leave.
    let (g, _e) = common::run_pair(
        &c,
        Terms::new(1),
        &[vec![true, false], vec![true]],
        1,
        Default::default(),
        Default::default(),
    );
    assert!(
        matches!(g, Err(MaliciousError::Input(ref m)) if m.contains("has 2 bits")),
        "{g:?}"
    );
}

/// A stream file read back in chunks of 65,536 gates: batches span chunk boundaries,
/// and the per-wire state is the stream's slots (far fewer than the circuit's wires).
#[test]
fn a_chunked_stream_file_runs_with_batches_across_chunks() {
    use mixgc_compile::{compile, save, StreamFile};
    use mixgc_malicious::dealer::TrustedDealer;
    use mixgc_malicious::garble::{run_evaluator_stream, run_garbler_stream};
    use mixgc_net::memory_pair;
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../circuits/sha256.txt");
    let c = bristol::read_file(&path).unwrap();
    let compiled = compile(&c);
    assert!(
        compiled.num_gates() > 2 * mixgc_compile::CHUNK_GATES as u64,
        "several chunks"
    );
    assert!(
        compiled.num_slots() * 4 < c.num_wires,
        "slots bound the live wires"
    );
    let dir = std::env::temp_dir().join(format!("mixgc-malicious-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("sha256.mgc");
    save(&compiled, &file).unwrap();
    let inputs = random_inputs(&c, 3);
    let want = c.eval_plain(&inputs).unwrap();
    for batch in [1000, 50_000] {
        let terms = Terms {
            batch_ands: batch,
            ..Terms::new(1)
        };
        let (mut ca, mut cb) = memory_pair();
        let (mut pa, mut pb) = TrustedDealer::pair(batch as u64);
        let (mut fa, mut fb) = (StreamFile::open(&file).unwrap(), StreamFile::open(&file).unwrap());
        let (x, y) = inputs.split_at(1);
        let (g, e) = std::thread::scope(|s| {
            let g = s.spawn(|| run_garbler_stream(&mut ca, &mut pa, &mut fa, &terms, x, &Default::default()));
            let e = run_evaluator_stream(&mut cb, &mut pb, &mut fb, &terms, y, &Default::default());
            (g.join().unwrap(), e)
        });
        assert_eq!(g.unwrap().unwrap(), want);
        assert_eq!(e.unwrap().unwrap(), want);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn parties_that_disagree_on_the_terms_stop_naming_the_difference() {
    use mixgc_malicious::dealer::TrustedDealer;
    use mixgc_malicious::{run_evaluator, run_garbler};
    let c = bristol::parse("1 3\n2 1 1\n1 1\n\n2 1 0 1 2 AND\n", "and.txt").unwrap();
    let other = bristol::parse("1 3\n2 1 1\n1 1\n\n2 1 0 1 2 XOR\n", "xor.txt").unwrap();
    let base = Terms::new(1);
    let to_garbler = Terms {
        reveal: Audience::only(PartyId::GARBLER),
        ..base
    };
    let cases = [
        (&other, base, "another circuit"),
        (
            &c,
            Terms {
                batch_ands: 9,
                ..base
            },
            "batch size",
        ),
        (&c, to_garbler, "who learns the outputs"),
    ];
    for (theirs, terms, what) in cases {
        let (mut ca, mut cb) = mixgc_net::memory_pair();
        let (mut pa, mut pb) = TrustedDealer::pair(1);
        let (g, e) = std::thread::scope(|s| {
            let g = s.spawn(|| run_garbler(&mut ca, &mut pa, &c, &base, &[vec![true]], &Default::default()));
            let e = run_evaluator(
                &mut cb,
                &mut pb,
                theirs,
                &terms,
                &[vec![true]],
                &Default::default(),
            );
            (g.join().unwrap(), e)
        });
        for r in [g, e] {
            assert!(
                matches!(r, Err(MaliciousError::Protocol(ref m)) if m.contains(what)),
                "{what}: {r:?}"
            );
        }
    }
}

/// A stream asking for more wire slots than a run may hold is refused before anything is
/// allocated or sent.
#[test]
fn a_stream_with_too_many_slots_is_refused() {
    use mixgc_compile::{Chunk, CompiledCircuit, StreamHeader};
    use mixgc_malicious::dealer::TrustedDealer;
    use mixgc_malicious::garble::{run_garbler_stream, MAX_SLOTS};
    let slots = MAX_SLOTS + 1;
    let header = StreamHeader::new(vec![], vec![], slots, vec![], vec![]).unwrap();
    let compiled = CompiledCircuit::new(header, Chunk::new(slots, vec![], vec![]).unwrap()).unwrap();
    let (mut ca, _cb) = mixgc_net::memory_pair();
    let (mut pa, _) = TrustedDealer::pair(1);
    let r = run_garbler_stream(
        &mut ca,
        &mut pa,
        &mut compiled.stream(),
        &Terms::new(0),
        &[],
        &Default::default(),
    );
    assert!(
        matches!(r, Err(MaliciousError::Input(ref m)) if m.contains("wire slots")),
        "{r:?}"
    );
    assert_eq!(mixgc_net::Channel::bytes_sent(&ca), 0);
}
