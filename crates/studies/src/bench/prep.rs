//! `mixgc bench --preprocess`: preprocessing mode (ABLE §5.2.2) on AES-128. The offline
//! phase (session setup, OTs with random choices, garbling, tables stored) and the online
//! phase (a fresh TCP connection; masked inputs, labels, evaluation from the store) are
//! timed separately, both parties as threads of this process over 127.0.0.1.

use std::io::Cursor;
use std::thread;
use std::time::{Duration, Instant};

use mixgc_net::TcpChannel;
use mixgc_session::{
    evaluator_online, garbler_online, EvaluatorPrep, EvaluatorSession, GarblerPrep, GarblerSession,
    SessionConfig, SessionError, Terms,
};
use rand::Rng;
use serde::Serialize;

use super::{cpu_flags, machine, median, BenchArgs};
use crate::common::{write_stdout, CliError};
use mixgc_circuit::shipped::AES_128;
use mixgc_compile::Loaded;
use mixgc_core::AesKernel;

#[derive(Serialize)]
struct PrepFigures {
    machine: String,
    /// The AES kernel that ran (`mixgc info --cpu`).
    aes_kernel: &'static str,
    cpu_flags: Vec<&'static str>,
    runs: usize,
    ands: u64,
    table_bytes: u64,
    /// Offline: connect to stored tables, base OT included (the slower party).
    offline_ms: f64,
    /// Online, evaluator: request sent to outputs decoded (one round trip + evaluation).
    online_evaluator_ms: f64,
    /// Online, garbler: request received to labels sent.
    online_garbler_ms: f64,
    online_bytes: u64,
}

const TIMEOUT: Duration = Duration::from_secs(30);

/// Both parties over a fresh loopback connection: `g` on the accepting side, `e` connecting.
fn over_tcp<G: Send, E: Send>(
    g: impl FnOnce(TcpChannel) -> Result<G, SessionError> + Send,
    e: impl FnOnce(TcpChannel) -> Result<E, SessionError> + Send,
) -> Result<(G, E), CliError> {
    let (listener, addr) = TcpChannel::bind("127.0.0.1:0")?;
    thread::scope(|s| {
        let ev = s.spawn(move || {
            TcpChannel::connect(&addr.to_string(), TIMEOUT)
                .map_err(SessionError::from)
                .and_then(e)
        });
        let ga = TcpChannel::accept(&listener, TIMEOUT)
            .map_err(SessionError::from)
            .and_then(g);
        let ev = ev.join().map_err(|_| "evaluator thread panicked")?;
        Ok((ga?, ev?))
    })
}

pub fn preprocess(args: &BenchArgs) -> Result<(), CliError> {
    let aes = Loaded::parse(AES_128, "circuits/aes_128.txt")?.compiled;
    let terms = Terms::default();
    let cfg = SessionConfig::default();
    let bar = args.feedback.steps("bench --preprocess", args.runs as u64);
    let (mut offline, mut online_e, mut online_g, mut online_bytes) = (Vec::new(), Vec::new(), Vec::new(), 0);
    let mut rng = rand::thread_rng();
    for _ in 0..args.runs {
        let start = Instant::now();
        let (g_prep, (e_prep, store)): (GarblerPrep, (EvaluatorPrep, Vec<u8>)) = over_tcp(
            |ch| GarblerSession::setup(ch, &cfg)?.preprocess(&mut aes.stream(), &terms),
            |ch| {
                let mut store = Vec::new();
                let prep = EvaluatorSession::setup(ch, &cfg)?.preprocess(&aes, &terms, &mut store)?;
                Ok((prep, store))
            },
        )?;
        offline.push(start.elapsed().as_secs_f64() * 1e3);

        let key: Vec<bool> = (0..128).map(|_| rng.gen()).collect();
        let pt: Vec<bool> = (0..128).map(|_| rng.gen()).collect();
        let ((g_ms, g_out), (e_ms, e_out, bytes)) = over_tcp(
            |mut ch| {
                let start = Instant::now();
                let out = garbler_online(&mut ch, g_prep, std::slice::from_ref(&key))?;
                Ok((start.elapsed(), out))
            },
            |mut ch| {
                let start = Instant::now();
                let out = evaluator_online(
                    &mut ch,
                    &e_prep,
                    &mut aes.stream(),
                    &mut Cursor::new(&store),
                    std::slice::from_ref(&pt),
                )?;
                let bytes = mixgc_net::Channel::bytes_sent(&ch) + mixgc_net::Channel::bytes_received(&ch);
                Ok((start.elapsed(), out, bytes))
            },
        )?;
        let want = aes.eval_plain(&[key, pt].concat());
        if g_out.outputs.map(|o| o.concat()) != Some(want.clone())
            || e_out.outputs.map(|o| o.concat()) != Some(want)
        {
            return Err("preprocessed AES-128 gave a wrong ciphertext".into());
        }
        // The garbler's clock starts when it begins waiting for the request; the evaluator's
        // covers the round trip, so it is the online latency.
        online_g.push(g_ms.as_secs_f64() * 1e3);
        online_e.push(e_ms.as_secs_f64() * 1e3);
        online_bytes = bytes;
        bar.advance(1);
    }
    bar.end();
    let f = PrepFigures {
        machine: machine(),
        aes_kernel: AesKernel::active().name(),
        cpu_flags: cpu_flags(),
        runs: args.runs,
        ands: aes.num_ands(),
        table_bytes: aes.num_ands() * 32,
        offline_ms: median(offline),
        online_evaluator_ms: median(online_e),
        online_garbler_ms: median(online_g),
        online_bytes,
    };
    if args.json {
        return write_stdout(&format!("{}\n", serde_json::to_string(&f)?));
    }
    write_stdout(&format!(
        "preprocessing mode, AES-128 ({} ANDs, {} KiB of tables stored), on {} (median of {} runs)\n\
         offline (setup, OTs, garbling, tables stored):  {:.2} ms\n\
         online, evaluator (request to outputs):         {:.3} ms\n\
         online, garbler (waiting for request to done):  {:.3} ms\n\
         online bytes, both directions:                  {} B\n",
        f.ands,
        f.table_bytes / 1024,
        f.machine,
        f.runs,
        f.offline_ms,
        f.online_evaluator_ms,
        f.online_garbler_ms,
        f.online_bytes
    ))
}
