//! Throughput of the malicious preprocessing: authenticated AND triples per second and
//! bytes per triple, both parties in one process (two threads) over TCP loopback.
//!
//! ```text
//! cargo run --release -p mixgc-malicious --example prep_bench [BATCH ...]
//! ```
//!
//! Default batches: 10,000 and 1,000,000. Each batch size gets a fresh session; the setup
//! (2 × 128 endemic base OTs) is timed apart from the triples. Bytes are those both parties
//! sent, per triple.

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
    println!("batch\tsetup_ms\ttriples_ms\ttriples_per_s\tbytes_per_triple");
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
        let start = Instant::now();
        let t = p.and_triples(n).expect("triples");
        let run = start.elapsed();
        let (m, _) = evaluator.join().expect("evaluator");
        assert_eq!((t.len(), m), (n, n));
        let bytes = p.channel().bytes_sent() + p.channel().bytes_received() - sent_setup;
        println!(
            "{n}\t{:.1}\t{:.1}\t{:.0}\t{:.1}",
            setup.as_secs_f64() * 1e3,
            run.as_secs_f64() * 1e3,
            n as f64 / run.as_secs_f64(),
            bytes as f64 / n as f64
        );
    }
}
