//! AES kernel speed on this CPU: ns per block for fixed-key and re-keyed AES, and ns per
//! AND gate for the TCCR and re-keyed hashes as half-gates uses them (16 gates per call:
//! garbling hashes each gate's 2 zero-labels and their ⊕ Δ under one tweak each,
//! `hash_offset_pairs`; evaluating 2 blocks per gate), with tweak arrays (made beforehand,
//! not timed) and with the tweaks as a counter (`hash_offset_pairs_counter`, `hash_counter`,
//! as the engine calls them). Times are the thread's CPU time.
//!
//! `cargo run --release -p mixgc-core --example aes_speed`

use std::hint::black_box;
use std::time::{Duration, Instant};

use mixgc_core::{AesKernel, Block, Rekeyed, Tccr, TweakableHash};

const GATES: usize = 16;

/// Nanoseconds this thread has run on a CPU (`/proc/thread-self/schedstat`, Linux), so
/// that other processes sharing the machine lengthen a run but not its figure much; the
/// wall clock elsewhere.
fn cpu_ns(start: Instant) -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or_else(|| start.elapsed().as_nanos() as u64)
}

/// Nanoseconds (of CPU time) per `unit` of `f`, run for about 0.1 s of wall time.
fn ns_per(units: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..1000 {
        f();
    }
    let (mut runs, start) = (0u64, Instant::now());
    let cpu = cpu_ns(start);
    while start.elapsed() < Duration::from_millis(100) {
        for _ in 0..256 {
            f();
        }
        runs += 256;
    }
    (cpu_ns(start) - cpu) as f64 / (runs as f64 * units as f64)
}

fn blocks(n: usize, salt: u128) -> Vec<Block> {
    (0..n as u128)
        .map(|i| Block::from_u128((i + salt).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)))
        .collect()
}

fn hash_and(h: &dyn TweakableHash) -> (f64, f64) {
    let (xs, tweaks) = (blocks(2 * GATES, 1), blocks(2 * GATES, 2));
    let (mut h0, mut h1, delta) = (
        blocks(2 * GATES, 7),
        blocks(2 * GATES, 8),
        Block::from_u128(0xd17a),
    );
    let garble = ns_per(GATES, || {
        h.hash_offset_pairs(black_box(&xs), delta, black_box(&tweaks), &mut h0, &mut h1)
    });
    let (mut xs, mut scratch) = (blocks(2 * GATES, 3), blocks(2 * GATES, 4));
    let eval = ns_per(GATES, || h.hash_many(black_box(&mut xs), black_box(&mut scratch)));
    (garble, eval)
}

/// [`hash_and`] with the tweaks as a counter (`hash_offset_pairs_counter`, `hash_counter`),
/// as the half-gates engine hashes a group.
fn hash_and_counter(h: &dyn TweakableHash) -> (f64, f64) {
    let xs = blocks(2 * GATES, 1);
    let (mut h0, mut h1, delta) = (
        blocks(2 * GATES, 7),
        blocks(2 * GATES, 8),
        Block::from_u128(0xd17a),
    );
    let first = (1u128 << 64) | 1000;
    let garble = ns_per(GATES, || {
        h.hash_offset_pairs_counter(black_box(&xs), delta, black_box(first), &mut h0, &mut h1)
    });
    let mut xs = blocks(2 * GATES, 3);
    let eval = ns_per(GATES, || h.hash_counter(black_box(&mut xs), black_box(first)));
    (garble, eval)
}

fn main() {
    println!(
        "{:<9} {:>10} {:>10} {:>10} | {:>11} {:>11} | {:>11} {:>11} | {:>11} {:>11}",
        "kernel",
        "fixed",
        "per-block",
        "per-pair",
        "tccr AND-G",
        "tccr AND-E",
        "rekeyed A-G",
        "rekeyed A-E",
        "counter A-G",
        "counter A-E"
    );
    println!(
        "{:<9} {:>32} | {:>23} | {:>23} | {:>23}",
        "", "ns/block (64 blocks)", "ns/AND", "ns/AND", "ns/AND, tweaks counted"
    );
    let seed = Block::from_u128(0x5eed);
    for kernel in AesKernel::available() {
        let keys = kernel.expand(seed);
        let mut xs = blocks(64, 5);
        let fixed = ns_per(64, || kernel.encrypt_many(&keys, black_box(&mut xs)));
        let tweaks = blocks(64, 6);
        let each = ns_per(64, || {
            kernel.encrypt_each_under(seed, black_box(&mut xs), black_box(&tweaks))
        });
        let pairs = ns_per(64, || {
            kernel.encrypt_pairs_under(seed, black_box(&mut xs), black_box(&tweaks[..32]))
        });
        let (tg, te) = hash_and(&Tccr::on_kernel(kernel));
        let (rg, re) = hash_and(&Rekeyed::on_kernel(seed, kernel));
        let (cg, ce) = hash_and_counter(&Rekeyed::on_kernel(seed, kernel));
        println!(
            "{:<9} {fixed:>10.2} {each:>10.2} {pairs:>10.2} | {tg:>11.1} {te:>11.1} | {rg:>11.1} {re:>11.1} | {cg:>11.1} {ce:>11.1}",
            kernel.name()
        );
    }
    match AesKernel::current() {
        Ok(k) => println!("hashes use {k} (set MIXGC_AES_KERNEL to force another)"),
        Err(e) => println!("{e}"),
    }
}
