//! Quick timing of the OT layers over an in-memory channel (both parties in one process,
//! one thread each). Prints medians, one `key=value` line per figure.
//!
//! `cargo run --release -p mixgc-ot --example ot_timing`

use std::thread;
use std::time::{Duration, Instant};

use mixgc_core::{new_rng, Block};
use mixgc_net::memory_pair;
use mixgc_ot::{base, OtReceiver, OtSender};
use rand::Rng as _;

const RUNS: usize = 7;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let session = [1u8; 32];

    let base_ot = median(
        (0..3 * RUNS)
            .map(|_| {
                let (mut a, mut b) = memory_pair();
                let start = Instant::now();
                let t = thread::spawn(move || {
                    let mut rng = new_rng(None, 0);
                    let choices: Vec<bool> = (0..128).map(|_| rng.gen()).collect();
                    base::receive(&mut b, &session, &choices, &mut rng).unwrap();
                });
                base::send(&mut a, &session, 128, &mut new_rng(None, 0)).unwrap();
                t.join().unwrap();
                start.elapsed()
            })
            .skip(RUNS) // warm-up
            .collect(),
    );
    println!("base_ot_128_ms={:.3}", base_ot.as_secs_f64() * 1e3);

    let n = 1_000_000;
    let mut rng = new_rng(None, 0);
    let choices: Vec<bool> = (0..n).map(|_| rng.gen()).collect();
    let delta = Block::random(&mut rng).with_lsb_set();
    let (mut setups, mut cots, mut rots) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let (mut a, mut b) = memory_pair();
        let start = Instant::now();
        let t = thread::spawn(move || {
            let mut s = OtSender::setup(&mut a, &session, &mut new_rng(None, 0)).unwrap();
            let set_up = Instant::now();
            s.send_correlated(&mut a, delta, n).unwrap();
            let correlated = Instant::now();
            s.send_random(&mut a, n).unwrap();
            (set_up, correlated)
        });
        let mut r = OtReceiver::setup(&mut b, &session, &mut new_rng(None, 0)).unwrap();
        r.receive_correlated(&mut b, &choices).unwrap();
        r.receive_random(&mut b, &choices).unwrap();
        let end = Instant::now();
        let (set_up, correlated) = t.join().unwrap();
        setups.push(set_up - start);
        cots.push(correlated - set_up);
        rots.push(end - correlated);
    }
    println!("iknp_setup_ms={:.3}", median(setups).as_secs_f64() * 1e3);
    println!("correlated_ot_1e6_ms={:.3}", median(cots).as_secs_f64() * 1e3);
    println!("random_ot_1e6_ms={:.3}", median(rots).as_secs_f64() * 1e3);
}
