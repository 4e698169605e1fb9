//! Throughput of authenticated garbling + evaluation with the insecure trusted dealer
//! (so preprocessing is nearly free here and NOT measured): both parties in two threads
//! over an in-memory channel, the circuit compiled once beforehand. Run with
//! `cargo test --release -p mixgc-malicious --test bench -- --ignored --nocapture`.

mod common;

use std::time::Instant;

use mixgc_circuit::{bristol, Circuit};
use mixgc_core::new_rng;
use mixgc_malicious::dealer::TrustedDealer;
use mixgc_malicious::garble::{run_evaluator_stream, run_garbler_stream, DEFAULT_BATCH_ANDS};
use mixgc_malicious::{Preprocessor, Settings, Terms};

/// CPU seconds this process has used (user + system, both parties' threads), from
/// `/proc/self/stat` (Linux; clock ticks of 1/100 s); `None` elsewhere. On a loaded
/// machine this is the fairer figure: wall time then counts time spent waiting for a core.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// CPU seconds the dealers alone take to deal what `circuit` draws, for both parties.
fn dealer_seconds(circuit: &Circuit, batch: usize) -> Option<f64> {
    let start = cpu_seconds();
    for mut d in <[TrustedDealer; 2]>::from(TrustedDealer::pair(1)) {
        d.random_shares(circuit.total_input_bits() as usize).unwrap();
        let mut left = circuit.stats().ands;
        while left > 0 {
            let n = left.min(batch);
            d.random_shares(n).unwrap();
            d.and_triples(n).unwrap();
            left -= n;
        }
    }
    Some(cpu_seconds()? - start?)
}

fn measure(name: &str, circuit: &Circuit, runs: u32) {
    let ands = circuit.stats().ands as f64;
    let inputs = common::random_inputs(circuit, 1);
    let terms = Terms::new(circuit.input_widths.len().div_ceil(2));
    let want = circuit.eval_plain(&inputs).unwrap();
    let compiled = mixgc_compile::compile(circuit);
    let (x, y) = inputs.split_at(terms.garbler_values);
    let (start, cpu_start) = (Instant::now(), cpu_seconds());
    for run in 0..runs {
        let (mut ca, mut cb) = mixgc_net::memory_pair();
        let (mut pa, mut pb) = TrustedDealer::pair(u64::from(run));
        let settings = Settings::default();
        let (g, e) = std::thread::scope(|s| {
            let g = s
                .spawn(|| run_garbler_stream(&mut ca, &mut pa, &mut compiled.stream(), &terms, x, &settings));
            let e = run_evaluator_stream(
                &mut cb,
                &mut pb,
                &mut compiled.stream(),
                &terms,
                y,
                &Settings::default(),
            );
            (g.join().unwrap(), e)
        });
        assert_eq!(g.unwrap().unwrap(), want);
        assert_eq!(e.unwrap().unwrap(), want);
    }
    let total = start.elapsed().as_secs_f64() / f64::from(runs);
    let cpu = cpu_seconds()
        .zip(cpu_start)
        .map(|(b, a)| (b - a) / f64::from(runs));
    let dealer = dealer_seconds(circuit, terms.batch_ands);
    println!(
        "{name}: {ands} AND, batch {DEFAULT_BATCH_ANDS}: {:.1} ms wall per run with the dealer \
         ({:.2} M AND/s); {} CPU per run, both parties; the dealers alone {} CPU",
        total * 1e3,
        ands / total / 1e6,
        cpu.map_or("?".to_string(), |c| format!(
            "{:.1} ms ({:.2} M AND per CPU-second)",
            c * 1e3,
            ands / c / 1e6
        )),
        dealer.map_or("?".to_string(), |d| format!("{:.1} ms", d * 1e3)),
    );
}

#[test]
#[ignore = "a measurement; run it in release mode with --nocapture"]
fn and_gates_per_second() {
    let aes = bristol::parse(mixgc_circuit::shipped::AES_128, "aes_128.txt").unwrap();
    measure("AES-128", &aes, 20);
    let mut rng = new_rng(Some(5), 0);
    // Random gates are about 36 % AND: 2.78 M gates give about 10^6 AND gates.
    let random = Circuit::random(&mut rng, &[128, 128], 2_780_000, 128);
    measure("random", &random, 1);
}
