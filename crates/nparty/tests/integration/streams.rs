//! BMR and GMW on compiled streams, in memory and read back from a stream file, among
//! n parties (threads over in-memory channels), against the plaintext evaluator.

use std::path::{Path, PathBuf};

use mixgc_circuit::{Audience, Circuit, PartyId};
use mixgc_compile::{compile, save, Chunk, GateStream, StreamError, StreamFile, StreamHeader};
use mixgc_core::new_rng;
use mixgc_nparty::bmr::{self, BmrOptions};
use mixgc_nparty::gmw::{self, GmwOptions};
use mixgc_nparty::{memory_mesh, NpartyError, Outcome, Roles};
use rand::Rng as _;

/// Which protocol, with its batch size.
#[derive(Clone, Copy, Debug)]
enum Proto {
    Bmr(usize),
    Gmw(usize),
}

/// Where each party's stream comes from.
#[derive(Clone, Copy)]
enum Source<'a> {
    Memory(&'a Circuit),
    File(&'a Path),
}

/// Runs the stream among `n` parties: `values[v]` is input value v, owned by `owners[v]`.
fn run(
    source: Source,
    proto: Proto,
    n: usize,
    owners: &[usize],
    audience: Audience,
    values: &[Vec<bool>],
) -> Vec<Result<Outcome, NpartyError>> {
    let compiled = match source {
        Source::Memory(c) => Some(compile(c)),
        Source::File(_) => None,
    };
    let roles = Roles { owners, audience };
    std::thread::scope(|s| {
        let hs: Vec<_> = memory_mesh(n)
            .into_iter()
            .map(|mut mesh| {
                let (compiled, roles) = (&compiled, &roles);
                s.spawn(move || {
                    let me = mesh.me();
                    let mine: Vec<Vec<bool>> = roles.mine(me).map(|v| values[v].clone()).collect();
                    let mut rng = new_rng(Some(21), me as u64);
                    let mut file;
                    let mut memory;
                    let stream: &mut dyn GateStream = match source {
                        Source::Memory(_) => {
                            memory = compiled.as_ref().unwrap().stream();
                            &mut memory
                        }
                        Source::File(path) => {
                            file = StreamFile::open(path).unwrap();
                            &mut file
                        }
                    };
                    match proto {
                        Proto::Bmr(batch_ands) => bmr::run_stream(
                            &mut mesh,
                            stream,
                            roles,
                            &mine,
                            &[5; 32],
                            &mut rng,
                            &BmrOptions {
                                batch_ands,
                                ..BmrOptions::default()
                            },
                        ),
                        Proto::Gmw(batch_ands) => gmw::run_stream(
                            &mut mesh,
                            stream,
                            roles,
                            &mine,
                            &[5; 32],
                            &mut rng,
                            &GmwOptions {
                                batch_ands,
                                ..GmwOptions::default()
                            },
                        ),
                    }
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn audience(parties: &[usize]) -> Audience {
    let mut a = Audience::only(PartyId::new(parties[0]).unwrap());
    for &p in &parties[1..] {
        a = a.with(PartyId::new(p).unwrap());
    }
    a
}

/// A stream file in the temp dir, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(tag: &str) -> TempFile {
        TempFile(std::env::temp_dir().join(format!("mixgc-nparty-{}-{tag}.mixgcs", std::process::id())))
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Runs `c` with random owners and inputs, from memory and from a stream file, with every
/// protocol and batch size given, and checks every party against `eval_plain`.
fn check(c: &Circuit, n: usize, who: &[usize], protos: &[Proto], rng: &mut impl rand::Rng, tag: &str) {
    let owners: Vec<usize> = c.input_widths.iter().map(|_| rng.gen_range(0..n)).collect();
    let values: Vec<Vec<bool>> = c
        .input_widths
        .iter()
        .map(|&w| (0..w).map(|_| rng.gen()).collect())
        .collect();
    let want = c.eval_plain(&values).unwrap();
    let ands = c
        .kind
        .iter()
        .filter(|&&k| k == mixgc_circuit::GateKind::And)
        .count() as u64;
    let file = TempFile::new(tag);
    save(&compile(c), &file.0).unwrap();
    for &proto in protos {
        for source in [Source::Memory(c), Source::File(&file.0)] {
            let kind = if matches!(source, Source::Memory(_)) {
                "memory"
            } else {
                "file"
            };
            for (p, got) in run(source, proto, n, &owners, audience(who), &values)
                .into_iter()
                .enumerate()
            {
                let got = got.unwrap_or_else(|e| panic!("{proto:?} from {kind}, n = {n}, party {p}: {e}"));
                assert_eq!(got.ands, ands);
                if who.contains(&p) {
                    assert_eq!(
                        got.outputs.as_ref(),
                        Some(&want),
                        "{proto:?} from {kind}, n = {n}, party {p}"
                    );
                } else {
                    assert_eq!(
                        got.outputs, None,
                        "{proto:?} from {kind}: party {p} is not in the audience"
                    );
                }
            }
        }
    }
}

#[test]
fn random_circuits_through_streams_match_the_plaintext() {
    let mut rng = new_rng(Some(31), 0);
    for n in [2, 3, 5] {
        for round in 0..4 {
            let widths: Vec<u32> = (0..rng.gen_range(1..5)).map(|_| rng.gen_range(0..9)).collect();
            let gates = [0, 1, 60, 300][round];
            let outputs = rng.gen_range(1..16);
            let c = Circuit::random(&mut rng, &widths, gates, outputs);
            let all: Vec<usize> = (0..n).collect();
            let who = [all, vec![n - 1], vec![0, n - 1], vec![0]][round].clone();
            let protos = [
                Proto::Bmr(1),
                Proto::Bmr(7),
                Proto::Bmr(1 << 16),
                Proto::Gmw(3),
                Proto::Gmw(1 << 16),
            ];
            check(&c, n, &who, &protos, &mut rng, &format!("random-{n}-{round}"));
        }
    }
}

#[test]
fn shipped_aes_through_a_stream_file_in_small_batches() {
    let mut rng = new_rng(Some(32), 0);
    let c = mixgc_circuit::bristol::parse(mixgc_circuit::shipped::AES_128, "aes_128").unwrap();
    check(
        &c,
        3,
        &[0, 2],
        &[Proto::Bmr(1000), Proto::Gmw(1000)],
        &mut rng,
        "aes",
    );
}

/// A stream that hands out every chunk of another twice: more gates than its header says.
struct Doubled<'a> {
    inner: mixgc_compile::InMemory<'a>,
    chunk: Option<Chunk>,
    second: bool,
}

impl GateStream for Doubled<'_> {
    fn header(&self) -> &StreamHeader {
        self.inner.header()
    }

    fn rewind(&mut self) -> Result<(), StreamError> {
        self.second = false;
        self.inner.rewind()
    }

    fn next_chunk(&mut self) -> Result<Option<&Chunk>, StreamError> {
        if !self.second {
            self.chunk = self.inner.next_chunk()?.cloned();
            self.second = true;
        } else {
            self.second = false;
            if self.chunk.is_none() {
                return Ok(None);
            }
        }
        Ok(self.chunk.as_ref())
    }
}

#[test]
fn a_stream_that_disagrees_with_its_header_is_an_error_at_every_party() {
    let mut rng = new_rng(Some(33), 0);
    let c = Circuit::random(&mut rng, &[4, 4], 50, 4);
    let compiled = compile(&c);
    for proto in ["bmr", "gmw"] {
        let errors: Vec<NpartyError> = std::thread::scope(|s| {
            let hs: Vec<_> = memory_mesh(3)
                .into_iter()
                .map(|mut mesh| {
                    let compiled = &compiled;
                    s.spawn(move || {
                        let me = mesh.me();
                        let roles = Roles {
                            owners: &[0, 1],
                            audience: audience(&[0]),
                        };
                        let mine = vec![vec![true; 4]; roles.mine(me).count()];
                        let mut rng = new_rng(Some(34), me as u64);
                        let mut stream = Doubled {
                            inner: compiled.stream(),
                            chunk: None,
                            second: false,
                        };
                        let r = if proto == "bmr" {
                            bmr::run_stream(
                                &mut mesh,
                                &mut stream,
                                &roles,
                                &mine,
                                &[6; 32],
                                &mut rng,
                                &BmrOptions::default(),
                            )
                        } else {
                            gmw::run_stream(
                                &mut mesh,
                                &mut stream,
                                &roles,
                                &mine,
                                &[6; 32],
                                &mut rng,
                                &GmwOptions::default(),
                            )
                        };
                        r.unwrap_err()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for e in errors {
            assert!(matches!(e, NpartyError::Stream(_)), "{proto}: {e}");
            assert!(e.to_string().contains("the header announces"), "{proto}: {e}");
        }
    }
}

#[test]
fn a_corrupt_stream_file_is_an_error_at_every_party() {
    let mut rng = new_rng(Some(35), 0);
    let c = Circuit::random(&mut rng, &[3, 2], 40, 3);
    let file = TempFile::new("corrupt");
    save(&compile(&c), &file.0).unwrap();
    let image = std::fs::read(&file.0).unwrap();
    // The last gate's output slot (before the end marker), made out of range, then any
    // byte of that gate altered.
    for (at, value) in [(image.len() - 2, 0xEE), (image.len() - 6, 0x01)] {
        let mut bad = image.clone();
        bad[at] ^= value;
        std::fs::write(&file.0, &bad).unwrap();
        for proto in [Proto::Bmr(4), Proto::Gmw(4)] {
            let results = run(
                Source::File(&file.0),
                proto,
                3,
                &[0, 1],
                audience(&[0, 1]),
                &[vec![true; 3], vec![false; 2]],
            );
            for r in results {
                let e = r.unwrap_err();
                assert!(matches!(e, NpartyError::Stream(_)), "{proto:?}, byte {at}: {e}");
                assert!(e.to_string().contains("corrupt"), "{proto:?}, byte {at}: {e}");
            }
        }
    }
}

/// A random stream written run by run over few slots: AND runs whose outputs overwrite
/// slots later gates of the run read, inputs overwritten, outputs anywhere. `runs` ≥ 5, so
/// that the gates fill the 12 slots as the reader demands.
fn random_stream(path: &Path, rng: &mut impl rand::Rng, runs: usize) {
    use mixgc_compile::{Gate, RunKind, StreamWriter};
    const SLOTS: u32 = 12;
    let header = StreamHeader::new(
        vec![3, 4],
        vec![5],
        SLOTS,
        (1..=7).collect(),
        (0..5).map(|_| rng.gen_range(1..SLOTS)).collect(),
    )
    .unwrap();
    let mut body: Vec<(RunKind, Vec<Gate>)> = Vec::new();
    for _ in 0..runs {
        let slot = |rng: &mut dyn rand::RngCore| rng.gen_range(0..SLOTS);
        let (kind, len) = match rng.gen_range(0..10) {
            0..=3 => (RunKind::And, rng.gen_range(1..=16)),
            4..=8 => (RunKind::Xor, rng.gen_range(1..6)),
            _ => (RunKind::Const, rng.gen_range(1..3)),
        };
        let gates = (0..len)
            .map(|_| Gate {
                a: if kind == RunKind::Const {
                    rng.gen_range(0..2)
                } else {
                    slot(rng)
                },
                b: slot(rng),
                out: rng.gen_range(1..SLOTS),
            })
            .collect();
        body.push((kind, gates));
    }
    let gates = body.iter().map(|r| r.1.len() as u64).sum();
    let ands = body
        .iter()
        .filter(|r| r.0 == RunKind::And)
        .map(|r| r.1.len() as u64)
        .sum();
    let file = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut w = StreamWriter::new(file, header, [7; 32], gates, ands).unwrap();
    for (kind, gates) in &body {
        w.run(*kind, gates).unwrap();
    }
    w.finish().unwrap();
}

#[test]
fn hand_written_streams_that_reuse_slots_match_the_plaintext() {
    let mut rng = new_rng(Some(36), 0);
    for round in 0..6 {
        let file = TempFile::new(&format!("hand-{round}"));
        random_stream(&file.0, &mut rng, [5, 12, 40, 120, 300, 600][round]);
        let values: Vec<Vec<bool>> = [3, 4]
            .iter()
            .map(|&w| (0..w).map(|_| rng.gen()).collect())
            .collect();
        let mut stream = StreamFile::open(&file.0).unwrap();
        let want = mixgc_compile::eval_stream_plain(&mut stream, &values.concat()).unwrap();
        let n = 2 + round % 2;
        let owners = [0, n - 1];
        let smallest = if round < 3 { 1 } else { 4 };
        for proto in [
            Proto::Bmr(smallest),
            Proto::Bmr(1 << 14),
            Proto::Gmw(smallest),
            Proto::Gmw(1 << 16),
        ] {
            for (p, got) in run(
                Source::File(&file.0),
                proto,
                n,
                &owners,
                audience(&[0, 1]),
                &values,
            )
            .into_iter()
            .enumerate()
            {
                let got = got.unwrap_or_else(|e| panic!("{proto:?}, round {round}, party {p}: {e}"));
                let want = (p < 2).then(|| vec![want.clone()]);
                assert_eq!(got.outputs, want, "{proto:?}, round {round}, n = {n}, party {p}");
            }
        }
    }
}
