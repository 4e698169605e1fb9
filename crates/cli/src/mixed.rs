//! `mixgc mixed`: one party of an n-party mixed-mode application (threshold HE, lookup
//! tables, B2A/A2B; `mixgc_mixed`) over the n-party mesh, TCP or TLS as `mixgc party`; or,
//! with `--backend plaintext|cost`, the same program (`mixgc_program::mixed`) on every
//! party's inputs at once, giving its clear answer or its operation counts. Both examples
//! (`mixgc_program::mixed::{biomatch, kmeans}`) are written once on the program interface.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use mixgc_mixed::a2b::BooleanEngine;
use mixgc_mixed::program::NpartyBackend;
use mixgc_mixed::yao::YaoEngine;
use mixgc_mixed::{keygen, parameters, MixedRng};
use mixgc_nparty::{join_mesh, Mesh, MeshOptions, RunFacts, TlsFlags, MAX_PARTIES};
use mixgc_program::mixed::biomatch::{
    biomatch_in, plaintext, vectors_of, BiomatchInput, BiomatchInputs, BiomatchOutput, MinForm, Vector,
    MAX_VECTORS, VALUE_LIMIT, VECTORS,
};
use mixgc_program::mixed::kmeans::{kmeans, KmeansInput, KmeansInputs, KmeansSize};
use mixgc_program::mixed::{MixedCost, MixedCounter, MixedPlain};
use serde::{Deserialize, Serialize};

use crate::party::parse_timeout;
use crate::progress::Feedback;
use crate::summary::bytes;
use crate::CliError;

/// The mesh flags every mixed-mode party takes (as `mixgc party`'s).
#[derive(Args, Debug)]
pub struct MeshArgs {
    /// This party's id: 0 for the first address of --parties, 1 for the second, …
    #[arg(long, value_name = "I")]
    pub id: Option<usize>,
    /// Every party's address, in id order; party I listens on the I-th. The lower id of
    /// each pair dials the higher, retrying for 10 s while it starts.
    #[arg(long, value_name = "ADDR0,ADDR1,...", value_delimiter = ',')]
    pub parties: Vec<String>,
    /// Seconds any one step may wait on a peer before this party names it and stops.
    #[arg(long, default_value = "120", value_name = "SECS", value_parser = parse_timeout)]
    pub timeout: u64,
    /// This party's certificate (PEM, `mixgc keygen`): every link becomes TLS 1.3 with
    /// mutual authentication. Needs --key and a pin per peer or --peer-ca.
    #[arg(long, value_name = "FILE")]
    pub cert: Option<PathBuf>,
    /// The private key of --cert (PEM).
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
    /// Accept from party I only the certificate with this SHA-256 fingerprint; once per
    /// other party.
    #[arg(long, value_name = "I=HEX")]
    pub peer_fingerprint: Vec<String>,
    /// Accept peer certificates signed by this CA (PEM), each only as the id it names.
    #[arg(long, value_name = "FILE", conflicts_with = "peer_fingerprint")]
    pub peer_ca: Option<PathBuf>,
    /// Allow plain TCP on non-loopback addresses (neither encrypted nor authenticated).
    #[arg(long, conflicts_with = "cert")]
    pub insecure_plaintext: bool,
}

impl MeshArgs {
    /// This party's id and n, checked.
    pub fn party(&self) -> Result<(usize, usize), CliError> {
        let n = self.parties.len();
        if !(2..=MAX_PARTIES).contains(&n) {
            return Err(format!("--parties lists {n} address(es): a run needs 2 to {MAX_PARTIES}").into());
        }
        let id = self.id.ok_or("give --id I, this party's index in --parties")?;
        if id >= n {
            return Err(format!(
                "--id {id} is not a party of the {n} in --parties (0 to {})",
                n - 1
            )
            .into());
        }
        Ok((id, n))
    }

    /// Joins the mesh (handshake included): the mesh and the session id.
    pub fn join(&self, facts: &RunFacts) -> Result<(Mesh, [u8; 32]), CliError> {
        let (id, _) = self.party()?;
        let options = MeshOptions {
            timeout: Duration::from_secs(self.timeout),
            insecure_plaintext: self.insecure_plaintext,
            tls: TlsFlags {
                cert: self.cert.as_deref(),
                key: self.key.as_deref(),
                peer_fingerprints: &self.peer_fingerprint,
                peer_ca: self.peer_ca.as_deref(),
            }
            .mesh_tls()?,
            ..MeshOptions::default()
        };
        Ok(join_mesh(id, &self.parties, &options, facts)?)
    }
}

/// A fresh RNG for the mixed-mode protocols, seeded from the operating system.
pub fn os_rng() -> MixedRng {
    use rand::RngCore;
    let mut seed = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut seed);
    mixgc_mixed::rng_from_seed(seed)
}

/// Runs `f` on the mesh; on an error, tells every other party why this one stops.
pub fn or_abort<T, E: Into<CliError> + std::fmt::Display>(
    mesh: &mut Mesh,
    me: usize,
    f: impl FnOnce(&mut Mesh) -> Result<T, E>,
) -> Result<T, CliError> {
    f(mesh).map_err(|e| {
        mesh.abort_all(&format!("party {me} stopped: {e}"));
        e.into()
    })
}

#[derive(Args, Debug)]
#[command(after_help = AFTER_HELP)]
pub struct MixedArgs {
    #[command(flatten)]
    mesh: MeshArgs,
    /// The application (seed Table 6): biomatch or kmeans.
    #[arg(long, value_name = "NAME", value_parser = ["biomatch", "kmeans"], default_value = "biomatch")]
    example: String,
    /// Biomatch only: the form of the minimum, bool (XOR shares, Beaver ANDs) or yao (BMR
    /// garbled labels: B→Y of the distances' bits, garbled ANDs, Y→B of the winner). The
    /// same answer; every party must name the same.
    #[arg(long, value_name = "FORM", value_parser = ["bool", "yao"], default_value = "bool")]
    min_form: String,
    /// With --min-form yao: the Y form's protocol, bmr (BMR garbled labels; B→Y costs
    /// pairwise Δ-products, quadratic in n in total) or lut (the seed's distributed
    /// garbling from lookup tables, §6.2: B→Y and Y→B linear in n in total, but megabytes
    /// and ~0.1 s per garbled gate, so Biomatch's 18,360 ANDs at 256 vectors take hours;
    /// --vectors 2, 72 ANDs, runs end to end). Every party must name the same (a mismatch
    /// is refused when the parties meet).
    #[arg(long, value_name = "ENGINE", value_parser = ["bmr", "lut"], default_value = "bmr")]
    y_engine: String,
    /// Biomatch only: N, the vectors of the database, 1 to 256 (default 256, the seed's
    /// Table 6 size). A smaller database runs the same program on fewer lanes (N − 1
    /// comparisons); the input files and --generate follow it, and every party must name
    /// the same (a mismatch is refused when the parties meet).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=MAX_VECTORS as i64))]
    vectors: Option<u16>,
    /// This party's input (JSON; the format is below). With --backend plaintext or cost:
    /// every party's file, in id order (F0.json,F1.json,...).
    #[arg(
        long,
        value_name = "F.json",
        conflicts_with = "generate",
        value_delimiter = ','
    )]
    input_file: Vec<PathBuf>,
    /// Where the program runs: nparty (this party of the n-party protocol), plaintext (the
    /// clear answer from every party's input, on one machine) or cost (the operation
    /// counts, printed as JSON). All three run the same program of --example.
    #[arg(long, value_name = "BACKEND", value_parser = ["nparty", "plaintext", "cost"], default_value = "nparty")]
    backend: String,
    /// Instead of running: write random input files of --example for N parties to --out
    /// (party-I.json) and print the plaintext result on stdout. With --backend plaintext
    /// or cost and no --out: run on those random inputs (--seed S replays a generator run).
    #[arg(long, value_name = "N")]
    generate: Option<usize>,
    /// With --generate: the directory to write to (created if missing).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// With --generate: the seed of the random inputs (default: fresh).
    #[arg(long, value_name = "S", requires = "generate")]
    seed: Option<u64>,
    #[command(flatten)]
    feedback: Feedback,
}

const AFTER_HELP: &str = "Both examples (seed Table 6): party 0 holds the query or the centroids, the \
data is split round-robin over parties 1..n-1 (item j at party 1 + j mod (n-1)), and only party 0 \
learns the result. Every value is an integer from 0 to 16383.\n\n\
biomatch: party 0 holds a query of 4 values, a database of N vectors of 4 values (--vectors N, 1 to \
256, default 256) is split over the others (so n ≤ N + 1); party 0 learns the minimum squared Euclidean distance and the lowest index at that \
distance. The distances are computed under threshold HE and converted to additive shares (A form), \
then to XOR shares (B form, A2B) for the minimum; with --min-form yao the minimum runs on BMR \
garbled labels (Y form: B→Y, garbled ANDs, Y→B of the winner), with the same answer.\n  \
party 0:  {\"query\": [q0, q1, q2, q3]}\n  \
party i:  {\"vectors\": [[x0, x1, x2, x3], ...]}  its vectors j = i-1, i-1+(n-1), i-1+2(n-1), ... \
in that order (N/(n-1) of them, rounded up for the first parties)\n  \
output:   {\"distance\": D, \"index\": J}\n\n\
kmeans: one iteration of k-means: party 0 holds 4 centroids of 2 values, 256 points of 2 values \
are split over the others; party 0 learns the new centroids (per cluster, the floor of the mean \
of the points nearest to its centroid, ties to the lower centroid; an empty cluster keeps its \
centroid) and the cluster sizes. Distances under threshold HE (E), E2A, A2B, the nearest \
centroid on XOR shares (B), B2A of the assignment, A2E and the sums under HE, E2A, A2B of the \
sums and sizes, and the division on XOR shares.\n  \
party 0:  {\"centroids\": [[c0, c1], [c0, c1], [c0, c1], [c0, c1]]}\n  \
party i:  {\"points\": [[x0, x1], ...]}  its points j = i-1, i-1+(n-1), ... in that order\n  \
output:   {\"centroids\": [[c0, c1], ...], \"sizes\": [s0, s1, s2, s3]}\n\n\
Party 0 prints the output on stdout; a summary goes to stderr.\n\n\
Backends (both examples): --backend nparty (default) runs this party of the protocol; --backend \
plaintext --input-file in/party-0.json,in/party-1.json,... (every party's file, n = their count) \
or --backend plaintext --generate N --seed S (the generator's inputs, no files) prints the clear \
output; --backend cost prints the operation counts {\"and\", \"a2b_and\", \"mult\", \"arith_mul\", \
\"b2a\", \"a2b\", \"e2a\", \"a2e\", \"yao_and\", \"b2y\", \"y2b\", \"stocked_ands\", \"rounds\", \"parties\"}. The same program \
(mixgc_program::mixed::biomatch or ::kmeans) runs on all three, and for either example \
--backend plaintext --generate N --seed S prints what --generate N --out DIR --seed S prints. --generate N --out DIR \
[--seed S] [--example NAME] writes random files DIR/party-I.json and prints the plaintext output. \
Security: semi-honest, any n-1 of the n parties may collude. TLS and plain TCP as `mixgc party`.\n\n\
Example (three terminals, after `mixgc mixed --example kmeans --generate 3 --out in`):\n  \
mixgc mixed --id 0 --parties 127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002 --example kmeans --input-file in/party-0.json\n  \
mixgc mixed --id 1 --parties 127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002 --example kmeans --input-file in/party-1.json\n  \
mixgc mixed --id 2 --parties 127.0.0.1:7000,127.0.0.1:7001,127.0.0.1:7002 --example kmeans --input-file in/party-2.json";

/// One party's Biomatch input file.
#[derive(Serialize, Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
struct BiomatchFile {
    #[serde(skip_serializing_if = "Option::is_none")]
    query: Option<Vector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    vectors: Option<Vec<Vector>>,
}

/// The longest input file read (256 vectors of 4 five-digit numbers fit in a few kB).
pub const MAX_INPUT_BYTES: u64 = 1 << 20;

/// One party's input, by example.
enum Input {
    Biomatch(BiomatchInputs),
    Kmeans(KmeansInput),
}

pub fn mixed(args: MixedArgs) -> Result<(), CliError> {
    let is_kmeans = args.example == "kmeans";
    y_engine(&args, min_form(&args)?)?;
    let vectors = vectors(&args)?;
    if args.backend != "nparty" {
        return single_machine(&args);
    }
    if let Some(n) = args.generate {
        let dir = args
            .out
            .as_deref()
            .ok_or("--generate needs --out DIR (or --backend plaintext|cost to run on the inputs)")?;
        return match is_kmeans {
            true => crate::mixed_kmeans::generate(n, dir, args.seed),
            false => generate(n, dir, args.seed, vectors),
        };
    }
    let (id, n) = args.mesh.party()?;
    let path = match args.input_file.as_slice() {
        [] => return Err("give --input-file F.json (or --generate N --out DIR to make input files)".into()),
        [one] => one.as_path(),
        many => {
            return Err(format!(
                "--input-file: the n-party backend takes this party's file only, not {}",
                many.len()
            )
            .into())
        }
    };
    let input = match is_kmeans {
        true => Input::Kmeans(crate::mixed_kmeans::read_input(path, id, n)?),
        false => Input::Biomatch(BiomatchInputs::party(
            n,
            vectors,
            id,
            read_input(path, id, n, vectors)?,
        )?),
    };
    let started = Instant::now();
    let example = &args.example;
    let form = min_form(&args)?;
    let y_engine = y_engine(&args, form)?;
    // The minimum's form, the Y engine and Biomatch's database size are facts of the run:
    // parties that differ refuse each other naming the fact ("y-engine = lut here vs bmr
    // there").
    let mut extra = vec![
        ("min-form".to_string(), args.min_form.clone()),
        ("y-engine".to_string(), args.y_engine.clone()),
    ];
    if !is_kmeans {
        extra.push(("vectors".to_string(), vectors.to_string()));
    }
    let label = format!("mixgc mixed {example} v1");
    let facts = RunFacts {
        protocol: format!("mixed {example}"),
        digest: facts_digest(label.as_bytes()),
        input_owners: (0..n).collect(),
        output_audience: vec![vec![0]],
        extra,
    };
    let (mut mesh, session) = args.mesh.join(&facts)?;
    let mut rng = os_rng();
    let keys = or_abort(&mut mesh, id, |m| keygen(m, &parameters(), &session, &mut rng))?;
    let mut engine = or_abort(&mut mesh, id, |m| BooleanEngine::setup(m, &session, &mut rng))?;
    let setup = started.elapsed();
    let output = match input {
        Input::Biomatch(inputs) => or_abort(&mut mesh, id, |m| {
            biomatch_in(
                &mut NpartyBackend::new(&keys, &mut engine, m, &mut rng).with_yao_engine(y_engine),
                &inputs,
                form,
            )
        })?
        .map(|o| biomatch_json(&o)),
        Input::Kmeans(input) => {
            let inputs = KmeansInputs::party(n, KmeansSize::DEFAULT, id, input)?;
            or_abort(&mut mesh, id, |m| {
                kmeans(&mut NpartyBackend::new(&keys, &mut engine, m, &mut rng), &inputs)
            })?
            .map(|o| crate::mixed_kmeans::output_json(&o))
        }
    };
    if let Some(json) = output {
        crate::write_stdout(&format!("{json}\n"))?;
    }
    let (sent, received) = mesh.bytes().iter().fold((0, 0), |(s, r), &(a, b)| (s + a, r + b));
    args.feedback.summary(&format!(
        "party {id} of {n} (mixed {example}): setup (keys, base OTs) {:.2} s, run {:.2} s; sent {}, received {}",
        setup.as_secs_f64(),
        (started.elapsed() - setup).as_secs_f64(),
        bytes(sent),
        bytes(received)
    ));
    Ok(())
}

/// `--min-form`, refused with Kmeans (its minimum runs in B form only).
fn min_form(args: &MixedArgs) -> Result<MinForm, CliError> {
    match (args.min_form.as_str(), args.example.as_str()) {
        ("bool", _) => Ok(MinForm::Bool),
        ("yao", "biomatch") => Ok(MinForm::Yao),
        _ => Err("--min-form yao runs with --example biomatch only (Kmeans keeps B form)".into()),
    }
}

/// `--vectors` (default [`VECTORS`]), refused with Kmeans (its size is fixed here).
fn vectors(args: &MixedArgs) -> Result<usize, CliError> {
    match (args.vectors, args.example.as_str()) {
        (None, _) => Ok(VECTORS),
        (Some(n), "biomatch") => Ok(usize::from(n)),
        _ => Err("--vectors runs with --example biomatch only (Kmeans keeps its 256 points)".into()),
    }
}

/// `--y-engine`, refused unless the minimum runs in Y form.
fn y_engine(args: &MixedArgs, form: MinForm) -> Result<YaoEngine, CliError> {
    let engine: YaoEngine = args.y_engine.parse()?;
    if engine == YaoEngine::Lut && form != MinForm::Yao {
        return Err("--y-engine lut needs --min-form yao (only the Y form has an engine)".into());
    }
    Ok(engine)
}

/// Party 0's output line of Biomatch.
fn biomatch_json(o: &BiomatchOutput) -> serde_json::Value {
    serde_json::json!({"distance": o.distance, "index": o.index})
}

/// Every party's inputs of one example, for the single-machine backends.
enum AllInputs {
    Biomatch(BiomatchInputs),
    Kmeans(KmeansInputs),
}

/// `--backend plaintext|cost`: the example on one machine, on every party's input files or
/// the generator's inputs; prints the clear output or the cost.
fn single_machine(args: &MixedArgs) -> Result<(), CliError> {
    let is_kmeans = args.example == "kmeans";
    let vectors = vectors(args)?;
    let inputs = match (args.generate, args.input_file.as_slice()) {
        (Some(n), []) => {
            if !(2..=MAX_PARTIES).contains(&n) {
                return Err(format!("--generate {n}: a run has 2 to {MAX_PARTIES} parties").into());
            }
            if args.out.is_some() {
                return Err(
                    "--out: with --backend plaintext|cost, --generate runs on the inputs and writes no files"
                        .into(),
                );
            }
            match is_kmeans {
                true => AllInputs::Kmeans(crate::mixed_kmeans::generated_inputs(n, args.seed)?),
                false => {
                    let (query, database) = random_inputs(args.seed, vectors);
                    AllInputs::Biomatch(BiomatchInputs::clear(n, query, &database)?)
                }
            }
        }
        (None, []) => {
            return Err(format!(
            "--backend {}: give every party's --input-file F0.json,F1.json,... or --generate N [--seed S]",
            args.backend
        )
            .into())
        }
        (_, files) => {
            let n = files.len();
            if !(2..=MAX_PARTIES).contains(&n) {
                return Err(format!(
                    "--input-file: {n} file(s), one per party of a run of 2 to {MAX_PARTIES}"
                )
                .into());
            }
            match is_kmeans {
                true => AllInputs::Kmeans(crate::mixed_kmeans::file_inputs(files)?),
                false => {
                    let mut inputs = BiomatchInputs::none(n, vectors)?;
                    for (id, path) in files.iter().enumerate() {
                        inputs.set(id, read_input(path, id, n, vectors)?)?;
                    }
                    AllInputs::Biomatch(inputs)
                }
            }
        }
    };
    let json = match (args.backend.as_str(), inputs) {
        ("plaintext", AllInputs::Biomatch(inputs)) => {
            let o = biomatch_in(&mut MixedPlain::new(inputs.parties())?, &inputs, min_form(args)?)?
                .ok_or("the plaintext backend gave no output")?;
            biomatch_json(&o)
        }
        ("plaintext", AllInputs::Kmeans(inputs)) => {
            let o = kmeans(&mut MixedPlain::new(inputs.parties())?, &inputs)?
                .ok_or("the plaintext backend gave no output")?;
            crate::mixed_kmeans::output_json(&o)
        }
        (_, AllInputs::Biomatch(inputs)) => {
            let mut counter = MixedCounter::new(inputs.parties())?;
            biomatch_in(&mut counter, &inputs, min_form(args)?)?;
            cost_json(&counter.cost(), inputs.parties())
        }
        (_, AllInputs::Kmeans(inputs)) => {
            let mut counter = MixedCounter::new(inputs.parties())?;
            kmeans(&mut counter, &inputs)?;
            cost_json(&counter.cost(), inputs.parties())
        }
    };
    crate::write_stdout(&format!("{json}\n"))
}

/// `--backend cost`'s output line.
fn cost_json(c: &MixedCost, parties: usize) -> serde_json::Value {
    serde_json::json!({
        "parties": parties,
        "and": c.and,
        "a2b_and": c.a2b_and,
        "mult": c.mult,
        "arith_mul": c.arith_mul,
        "b2a": c.b2a,
        "a2b": c.a2b,
        "e2a": c.e2a,
        "a2e": c.a2e,
        "yao_and": c.yao_and,
        "b2y": c.b2y,
        "y2b": c.y2b,
        "stocked_ands": c.stocked_ands,
        "rounds": c.rounds,
    })
}

/// Reads party input file `path` as JSON of type `T`, refusing files over
/// [`MAX_INPUT_BYTES`]; every problem names the file and `what` it should be.
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Result<T, CliError> {
    let bad = |why: String| -> CliError { format!("--input-file {}: {why}", path.display()).into() };
    let size = std::fs::metadata(path)
        .map_err(|e| bad(format!("cannot read it: {e}")))?
        .len();
    if size > MAX_INPUT_BYTES {
        return Err(bad(format!(
            "{size} bytes, more than the {MAX_INPUT_BYTES} an input file may have"
        )));
    }
    let text = std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read it: {e}")))?;
    serde_json::from_str(&text).map_err(|e| bad(format!("not a {what} input ({e})")))
}

/// Reads and checks party `id`'s input file (of `n` parties, a database of `vectors`);
/// every problem names the file.
fn read_input(path: &Path, id: usize, n: usize, vectors: usize) -> Result<BiomatchInput, CliError> {
    let bad = |why: String| -> CliError { format!("--input-file {}: {why}", path.display()).into() };
    let file: BiomatchFile = read_json(path, "Biomatch")?;
    let input = match (id, file.query, file.vectors) {
        (0, Some(q), None) => BiomatchInput::Query(q),
        (0, _, _) => return Err(bad("party 0's file holds exactly {\"query\": [4 values]}".into())),
        (_, None, Some(v)) => BiomatchInput::Database(v),
        (_, _, _) => {
            return Err(bad(format!(
                "party {id}'s file holds exactly {{\"vectors\": [[4 values], ...]}}"
            )))
        }
    };
    mixgc_program::mixed::biomatch::check_input(&input, id, n, vectors).map_err(|e| bad(e.to_string()))?;
    Ok(input)
}

/// The RNG of `--generate`: from `--seed`, else fresh.
pub fn generator_rng(seed: Option<u64>) -> rand::rngs::StdRng {
    use rand::SeedableRng;
    match seed {
        Some(s) => rand::rngs::StdRng::seed_from_u64(s),
        None => rand::rngs::StdRng::from_entropy(),
    }
}

/// Writes `file(i)` as DIR/party-I.json for each of the `n` parties (2 to MAX_PARTIES).
pub fn write_party_files<T: Serialize>(
    n: usize,
    dir: &Path,
    file: impl Fn(usize) -> T,
) -> Result<(), CliError> {
    if !(2..=MAX_PARTIES).contains(&n) {
        return Err(format!("--generate {n}: a run has 2 to {MAX_PARTIES} parties").into());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    for i in 0..n {
        let path = dir.join(format!("party-{i}.json"));
        let text = serde_json::to_string(&file(i)).map_err(|e| e.to_string())?;
        std::fs::write(&path, text + "\n").map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// The generator's random query and database of `vectors` (from `--seed`, else fresh).
fn random_inputs(seed: Option<u64>, vectors: usize) -> (Vector, Vec<Vector>) {
    use rand::Rng;
    let mut rng = generator_rng(seed);
    let mut draw = || -> Vector { std::array::from_fn(|_| rng.gen_range(0..VALUE_LIMIT)) };
    let query = draw();
    let database: Vec<Vector> = (0..vectors).map(|_| draw()).collect();
    (query, database)
}

/// `--generate N --out DIR`: random input files for N parties (a database of `vectors`)
/// and the plaintext result.
fn generate(n: usize, dir: &Path, seed: Option<u64>, vectors: usize) -> Result<(), CliError> {
    if n > vectors + 1 {
        return Err(format!(
            "--generate {n}: a database of {vectors} vectors is split over at most {vectors} parties besides party 0"
        )
        .into());
    }
    let (query, database) = random_inputs(seed, vectors);
    write_party_files(n, dir, |i| match i {
        0 => BiomatchFile {
            query: Some(query),
            vectors: None,
        },
        _ => BiomatchFile {
            query: None,
            vectors: Some(vectors_of(i, n, vectors).iter().map(|&j| database[j]).collect()),
        },
    })?;
    let o = plaintext(&query, &database).ok_or("no database vectors")?;
    crate::write_stdout(&format!("{}\n", biomatch_json(&o)))
}

/// A label padded to the 32 bytes of [`RunFacts::digest`], naming what the parties run.
pub fn facts_digest(label: &[u8]) -> [u8; 32] {
    let mut d = [0u8; 32];
    let k = label.len().min(32);
    d[..k].copy_from_slice(&label[..k]);
    d
}
