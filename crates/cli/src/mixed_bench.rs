//! `mixgc mixed-bench-party` (spawned by `mixgc bench --mixed`): one party of the
//! mixed-mode bench. After keygen and the base OTs it measures, on random inputs, each
//! thing's offline and online phase (wall time, this process's CPU time, bytes sent and
//! received) and writes its figures and its shares of inputs and outputs to `--report`
//! (`MixedPartyReport`).

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;
use mixgc_mixed::a2b::{a2b_online, a2b_preprocess, BooleanEngine};
use mixgc_mixed::b2a::{b2a_bits, b2a_preprocess};
use mixgc_mixed::distgarble::{and_layer, garble, KeySelection};
use mixgc_mixed::keyhom::KeyHomParams;
use mixgc_mixed::yao::{YaoEngine, YaoEnv, YaoState};
use mixgc_mixed::{keygen, parameters, MixedError, MixedRng, RngCore, ThresholdKeys, PLAINTEXT_MODULUS};
use mixgc_nparty::{Mesh, RunFacts};
use mixgc_studies::bench::{batch_of, MixedItemReport, MixedPartyReport, DEFAULT_BATCH, MEASURED};

use crate::cpu_time::process_cpu_seconds;
use crate::mixed::{facts_digest, or_abort, os_rng, MeshArgs};
use crate::CliError;

#[derive(Args, Debug)]
pub struct MixedBenchPartyArgs {
    #[command(flatten)]
    mesh: MeshArgs,
    /// Items per batch, 1 to 16384 (see `mixgc bench --batch`).
    #[arg(long, value_name = "K", default_value_t = DEFAULT_BATCH)]
    batch: usize,
    /// Where to write this party's figures (JSON).
    #[arg(long, value_name = "FILE")]
    report: PathBuf,
}

/// `count` uniform values in [0, `bound`), by rejection from 64-bit draws.
fn random_below(rng: &mut MixedRng, bound: u64, count: usize) -> Vec<u64> {
    let zone = u64::MAX - u64::MAX % bound;
    (0..count)
        .map(|_| loop {
            let x = rng.next_u64();
            if x < zone {
                break x % bound;
            }
        })
        .collect()
}

pub fn party(args: MixedBenchPartyArgs) -> Result<(), CliError> {
    let (id, n) = args.mesh.party()?;
    if !(1..=DEFAULT_BATCH).contains(&args.batch) {
        return Err(format!("--batch {}: from 1 to {DEFAULT_BATCH}", args.batch).into());
    }
    // Fails here, before any peer waits on this party, if the clock is missing.
    process_cpu_seconds()?;
    let started = Instant::now();
    let facts = RunFacts {
        protocol: "mixed bench".into(),
        digest: facts_digest(b"mixgc mixed bench v1"),
        input_owners: (0..n).collect(),
        output_audience: vec![(0..n).collect()],
        extra: vec![("batch".into(), args.batch.to_string())],
    };
    let (mut mesh, session) = args.mesh.join(&facts)?;
    let mut rng = os_rng();
    let keys = or_abort(&mut mesh, id, |m| keygen(m, &parameters(), &session, &mut rng))?;
    let mut engine = or_abort(&mut mesh, id, |m| BooleanEngine::setup(m, &session, &mut rng))?;
    or_abort(&mut mesh, id, |m| keys.prepare_products(m, &mut rng).map(|_| ()))?;
    let setup_s = started.elapsed().as_secs_f64();
    say(
        id,
        &format!("setup (threshold keygen, relinearization key, base OTs) {setup_s:.2} s"),
    );
    let mut items = Vec::with_capacity(MEASURED.len());
    let mut yao = [None, None];
    for what in MEASURED {
        let k = batch_of(what, args.batch);
        let mut bench = Bench {
            keys: &keys,
            engine: &mut engine,
            rng: &mut rng,
            k,
            session,
            yao: &mut yao,
        };
        let item = or_abort(&mut mesh, id, |m| bench.measure(m, what))?;
        say(
            id,
            &format!(
                "{what}: offline {:.2} s ({:.2} s CPU), online {:.3} s ({:.3} s CPU) for {k}",
                item.offline_s, item.offline_cpu_s, item.online_s, item.online_cpu_s
            ),
        );
        items.push(item);
    }
    let report = MixedPartyReport {
        id,
        parties: n,
        plaintext_modulus: PLAINTEXT_MODULUS,
        setup_s,
        items,
    };
    let text = serde_json::to_string(&report).map_err(|e| e.to_string())?;
    std::fs::write(&args.report, text + "\n")
        .map_err(|e| format!("cannot write {}: {e}", args.report.display()))?;
    Ok(())
}

/// A progress line on stderr (`mixgc bench --mixed` relays party 0's).
fn say(id: usize, line: &str) {
    eprintln!("party {id}: {line}");
}

/// One party's state while it measures.
struct Bench<'a> {
    keys: &'a ThresholdKeys,
    engine: &'a mut BooleanEngine,
    rng: &'a mut MixedRng,
    k: usize,
    /// The run's session id (the same at every party).
    session: [u8; 32],
    /// The Y form's state on BMR and on distributed garbling, each set up (untimed) before
    /// its first measured thing.
    yao: &'a mut [Option<YaoState>; 2],
}

/// What one phase cost this party.
#[derive(Clone, Copy, Default)]
struct Phase {
    /// Wall-clock seconds.
    secs: f64,
    /// CPU seconds of this process (user + system, all threads).
    cpu_s: f64,
    /// Bytes [sent, received] over all peers.
    bytes: [u64; 2],
}

/// This process's CPU seconds, a failure of the clock as an error of this party's own.
fn cpu_now() -> Result<f64, MixedError> {
    process_cpu_seconds().map_err(MixedError::Usage)
}

/// Runs one phase and measures what it cost ([`Phase`]).
fn timed<T>(
    mesh: &mut Mesh,
    f: impl FnOnce(&mut Mesh) -> Result<T, MixedError>,
) -> Result<(T, Phase), MixedError> {
    let total = |m: &Mesh| m.bytes().iter().fold([0, 0], |[s, r], &(a, b)| [s + a, r + b]);
    let before = total(mesh);
    let cpu_before = cpu_now()?;
    let start = Instant::now();
    let out = f(mesh)?;
    let secs = start.elapsed().as_secs_f64();
    let cpu_s = cpu_now()? - cpu_before;
    let after = total(mesh);
    let bytes = [after[0] - before[0], after[1] - before[1]];
    Ok((out, Phase { secs, cpu_s, bytes }))
}

/// A Y state's counters: garbling and evaluation seconds and, with Lut, their bytes.
struct Snapshot {
    times: (f64, f64),
    bytes: Option<[[u64; 2]; 2]>,
}

impl Snapshot {
    fn of(y: &YaoState) -> Snapshot {
        Snapshot {
            times: y.times(),
            bytes: y.lut_bytes(),
        }
    }

    /// `all` (garbling and evaluation of batches, from this snapshot to `after`) split
    /// into offline (garbling) and online (evaluation). BMR: the evaluation is local, its
    /// CPU counted as its wall time, and every byte is offline. Lut: the engine counts the
    /// bytes of each phase; its evaluation waits on the chain, so the CPU is split in
    /// proportion to the wall times (an estimate: the process clock is not read inside).
    fn split(&self, after: &Snapshot, all: Phase) -> (Phase, Phase) {
        let eval = after.times.1 - self.times.1;
        let garble = after.times.0 - self.times.0;
        let (offline_bytes, online_bytes, online_cpu) = match (self.bytes, after.bytes) {
            (Some(b), Some(a)) => {
                let d = |p: usize| [a[p][0] - b[p][0], a[p][1] - b[p][1]];
                let share = eval / (garble + eval).max(f64::MIN_POSITIVE);
                (d(0), d(1), all.cpu_s * share)
            }
            _ => (all.bytes, [0, 0], eval),
        };
        let online = Phase {
            secs: eval,
            cpu_s: online_cpu,
            bytes: online_bytes,
        };
        let offline = Phase {
            secs: garble.max(all.secs - eval),
            cpu_s: (all.cpu_s - online_cpu).max(0.0),
            bytes: offline_bytes,
        };
        (offline, online)
    }
}

impl Phase {
    fn plus(self, other: Phase) -> Phase {
        Phase {
            secs: self.secs + other.secs,
            cpu_s: self.cpu_s + other.cpu_s,
            bytes: [self.bytes[0] + other.bytes[0], self.bytes[1] + other.bytes[1]],
        }
    }
}

impl Bench<'_> {
    /// `k` random bits: this party's XOR shares of random bits.
    fn random_bits(&mut self) -> Vec<u8> {
        random_below(self.rng, 2, self.k)
            .into_iter()
            .map(|b| b as u8)
            .collect()
    }

    /// The Y form's things on BMR: b2y (offline the new wires' Δ-products, in the batch
    /// garbled next; online the local B→Y), y2b (local, after the batch making its wires is
    /// evaluated), and_yao (one garbled batch of k ANDs on wires made by B→Y: offline its
    /// joint garbling, online its local evaluation, whose CPU is its wall time). On
    /// distributed garbling (`_lut`): b2y_lut (B→Y records inputs; the batch's flush garbles
    /// nothing but their keys, offline, and opens e and chains the keys, online), y2b_lut
    /// (local), and_yao_lut (k ANDs on fresh B→Y inputs: offline the garbling, online the
    /// evaluation with its inputs' B→Y); the bytes of each phase as the engine counts them.
    fn measure_yao(
        &mut self,
        mesh: &mut Mesh,
        what: &str,
    ) -> Result<(Phase, Phase, Vec<Vec<u64>>), MixedError> {
        let y_engine = match what.ends_with("_lut") {
            true => YaoEngine::Lut,
            false => YaoEngine::Bmr,
        };
        let (x, y) = (self.random_bits(), self.random_bits());
        let slot = &mut self.yao[usize::from(y_engine == YaoEngine::Lut)];
        if slot.is_none() {
            *slot = Some(YaoState::setup(mesh, self.rng, DEFAULT_BATCH, y_engine)?);
        }
        let y_state = slot.as_mut().expect("set up above");
        let (keys, engine) = (self.keys, &mut *self.engine);
        macro_rules! env {
            ($m:expr) => {
                &mut YaoEnv {
                    mesh: $m,
                    keys,
                    engine: &mut *engine,
                }
            };
        }
        let wide = |v: &[u8]| v.iter().map(|&b| u64::from(b)).collect::<Vec<u64>>();
        if what.starts_with("b2y") {
            let before = Snapshot::of(y_state);
            let (wires, local) = timed(mesh, |m| y_state.from_shares(env!(m), &x))?;
            let ((), flush) = timed(mesh, |m| y_state.flush(env!(m)))?;
            let after = Snapshot::of(y_state);
            let back = y_state.to_shares(env!(mesh), &wires)?;
            y_state.release(&wires);
            let (off, on) = match y_engine {
                YaoEngine::Bmr => (flush, local),
                YaoEngine::Lut => {
                    let (off, eval) = before.split(&after, flush);
                    (off, eval.plus(local))
                }
            };
            return Ok((off, on, vec![wide(&x), wide(&back)]));
        }
        let wx = y_state.from_shares(env!(mesh), &x)?;
        let wy = y_state.from_shares(env!(mesh), &y)?;
        if y_engine == YaoEngine::Bmr {
            // The inputs' Δ-products in a batch of their own (with Lut, their B→Y is part
            // of the AND batch's evaluation: a garbled circuit needs its input keys).
            y_state.flush(env!(mesh))?;
        }
        let before = Snapshot::of(y_state);
        let (wz, all) = timed(mesh, |m| {
            let z = y_state.and(env!(m), &wx, &wy)?;
            y_state.flush(env!(m))?;
            Ok(z)
        })?;
        let after = Snapshot::of(y_state);
        let (z, to_shares) = timed(mesh, |m| y_state.to_shares(env!(m), &wz))?;
        y_state.release(&[wx, wy, wz].concat());
        let shares = vec![wide(&x), wide(&y), wide(&z)];
        if what.starts_with("y2b") {
            return Ok((Phase::default(), to_shares, shares));
        }
        let (offline, online) = before.split(&after, all);
        Ok((offline, online, shares))
    }

    fn measure(&mut self, mesh: &mut Mesh, what: &str) -> Result<MixedItemReport, MixedError> {
        let (k, p) = (self.k, PLAINTEXT_MODULUS);
        let (offline, online, shares) = match what {
            "b2y" | "y2b" | "and_yao" | "b2y_lut" | "y2b_lut" | "and_yao_lut" => {
                self.measure_yao(mesh, what)?
            }
            "b2a" => {
                let bits: Vec<u8> = random_below(self.rng, 2, k)
                    .into_iter()
                    .map(|b| b as u8)
                    .collect();
                let (tables, off) = timed(mesh, |m| b2a_preprocess(self.keys, m, k, self.rng))?;
                let (arith, on) = timed(mesh, |m| b2a_bits(m, tables, &bits))?;
                let input = bits.iter().map(|&b| u64::from(b)).collect();
                (off, on, vec![input, arith])
            }
            "a2b" => {
                let input = random_below(self.rng, p, k);
                let (prep, off) = timed(mesh, |m| a2b_preprocess(self.keys, self.engine, m, k, self.rng))?;
                let (boolean, on) = timed(mesh, |m| a2b_online(self.engine, m, prep, &input))?;
                (off, on, vec![input, boolean])
            }
            "triple_bool" => {
                let (t, off) = timed(mesh, |m| self.engine.triples(m, k))?;
                let bits = |v: &[bool]| v.iter().map(|&b| u64::from(b)).collect();
                (off, Phase::default(), vec![bits(&t.a), bits(&t.b), bits(&t.c)])
            }
            "triple_arith" => {
                let (t, off) = timed(mesh, |m| self.keys.arithmetic_triples(m, k, self.rng))?;
                (off, Phase::default(), vec![t.a, t.b, t.c])
            }
            "garble_and" => {
                // k independent AND gates, garbled at the secure key ring (L = 2048) and
                // evaluated on random XOR-shared inputs.
                let circuit = and_layer(k)?;
                let params = KeyHomParams::standard()?;
                // One garbling per run: the run's session id labels its rows.
                let session = self.session;
                let bits = |rng: &mut MixedRng| -> Vec<u8> {
                    random_below(rng, 2, k).into_iter().map(|b| b as u8).collect()
                };
                let (x, y) = (bits(self.rng), bits(self.rng));
                let (gc, off) = timed(mesh, |m| {
                    garble(
                        self.keys,
                        self.engine,
                        m,
                        &circuit,
                        &params,
                        &session,
                        KeySelection::Products,
                        self.rng,
                    )
                })?;
                let (out, on) = timed(mesh, |m| gc.evaluate(m, &[x.as_slice(), &y].concat()))?;
                let wide = |v: &[u8]| v.iter().map(|&b| u64::from(b)).collect();
                (off, on, vec![wide(&x), wide(&y), wide(&out)])
            }
            other => return Err(MixedError::Usage(format!("nothing called '{other}' is measured"))),
        };
        Ok(MixedItemReport {
            what: what.to_string(),
            batch: k,
            offline_s: offline.secs,
            online_s: online.secs,
            offline_cpu_s: offline.cpu_s,
            online_cpu_s: online.cpu_s,
            offline_bytes: offline.bytes,
            online_bytes: online.bytes,
            shares,
        })
    }
}
