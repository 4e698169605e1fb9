//! Throughput of the malicious preprocessing: authenticated AND triples per second and
//! bytes per triple, both parties in one process (two threads) over TCP loopback.
//!
//! ```text
//! cargo run --release -p mixgc-malicious --example prep_bench [BATCH ...]
//! ```
//!
//! Default batches: 10,000 and 1,000,000. Each batch size gets a fresh session; the setup
//! (2 × 128 endemic base OTs) is timed apart from the triples. Bytes are those both parties
//! sent, per triple. `cpu_us_per_triple` is the CPU time of both parties together (user +
//! system, from /proc/self/stat; Linux only), which on a shared machine says more than
//! the wall clock: triples/s per core ≈ 10^6 / cpu_us_per_triple · 2 with one core per party.

use std::thread;
use std::time::{Duration, Instant};

use mixgc_core::new_rng;
use mixgc_malicious::{Kos15Preprocessor, Preprocessor, Role};
use mixgc_net::{Channel, TcpChannel};

fn main() {
    let batches: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.replace('_', "").parse().expect("batch sizes are integers"))
        .collect();
    let batches = if batches.is_empty() {
        vec![10_000, 1_000_000]
    } else {
        batches
    };
    println!("batch\tsetup_ms\ttriples_ms\ttriples_per_s\tbytes_per_triple\tcpu_us_per_triple");
    for n in batches {
        let (listener, addr) = TcpChannel::bind("127.0.0.1:0").expect("bind");
        let timeout = Duration::from_secs(120);
        let evaluator = thread::spawn(move || {
            let ch = TcpChannel::connect(&addr.to_string(), timeout).expect("connect");
            let mut p =
                Kos15Preprocessor::setup(ch, Role::Evaluator, &[1; 32], new_rng(None, 2)).expect("setup");
            let t = p.and_triples(n).expect("triples");
            (t.len(), p.channel().bytes_sent())
        });
        let ch = TcpChannel::accept(&listener, timeout).expect("accept");
        let start = Instant::now();
        let mut p = Kos15Preprocessor::setup(ch, Role::Garbler, &[1; 32], new_rng(None, 1)).expect("setup");
        let setup = start.elapsed();
        let sent_setup = p.channel().bytes_sent() + p.channel().bytes_received();
        let cpu_before = cpu_seconds();
        let start = Instant::now();
        let t = p.and_triples(n).expect("triples");
        let run = start.elapsed();
        let (m, _) = evaluator.join().expect("evaluator");
        let cpu = cpu_seconds()
            .zip(cpu_before)
            .map(|(after, before)| after - before);
        assert_eq!((t.len(), m), (n, n));
        let bytes = p.channel().bytes_sent() + p.channel().bytes_received() - sent_setup;
        println!(
            "{n}\t{:.1}\t{:.1}\t{:.0}\t{:.1}\t{}",
            setup.as_secs_f64() * 1e3,
            run.as_secs_f64() * 1e3,
            n as f64 / run.as_secs_f64(),
            bytes as f64 / n as f64,
            cpu.map_or("n/a".to_string(), |c| format!("{:.2}", c * 1e6 / n as f64)),
        );
    }
}

/// User + system CPU seconds of this process so far (all threads, finished ones
/// included), from /proc/self/stat in clock ticks of 1/100 s; `None` where unavailable.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(ticks as f64 / 100.0)
}
