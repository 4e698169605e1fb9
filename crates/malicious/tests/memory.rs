//! Memory is O(batch + live wires), whatever the circuit's size (TinyGarble2 thesis
//! §3.3.2): peak heap during runs of AES-128 chains of growing length, read from stream
//! files, measured with a counting allocator (this test binary only).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use mixgc_compile::{compile, save, StreamFile};
use mixgc_malicious::dealer::TrustedDealer;
use mixgc_malicious::garble::{run_evaluator_stream, run_garbler_stream};
use mixgc_malicious::Terms;
use mixgc_net::memory_pair;

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grew(n: usize) {
    let now = CURRENT.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every call forwards to the system allocator unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grew(new_size - layout.size());
        } else {
            CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Peak heap bytes above the starting level while both parties run `chain` AES-128
/// encryptions from a stream file, `batch` ANDs per batch.
fn peak_of_chain(dir: &std::path::Path, chain: usize, batch: usize) -> usize {
    let recorded = mixgc_program::library::record("aes-chain", None, Some(chain)).unwrap();
    let file = dir.join(format!("chain{chain}.mgc"));
    save(&compile(&recorded.circuit), &file).unwrap();
    let c = &recorded.circuit;
    let inputs: Vec<Vec<bool>> = c
        .input_widths
        .iter()
        .map(|&w| (0..w).map(|i| i % 3 == 0).collect())
        .collect();
    let want = c.eval_plain(&inputs).unwrap();
    let terms = Terms {
        batch_ands: batch,
        ..Terms::new(recorded.garbler_values)
    };
    let (x, y) = inputs.split_at(recorded.garbler_values);
    let (mut ca, mut cb) = memory_pair();
    let (mut pa, mut pb) = TrustedDealer::pair(1);
    let (mut fa, mut fb) = (StreamFile::open(&file).unwrap(), StreamFile::open(&file).unwrap());
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let (g, e) = std::thread::scope(|s| {
        let g = s.spawn(|| run_garbler_stream(&mut ca, &mut pa, &mut fa, &terms, x, &Default::default()));
        let e = run_evaluator_stream(&mut cb, &mut pb, &mut fb, &terms, y, &Default::default());
        (g.join().unwrap(), e)
    });
    let peak = PEAK.load(Ordering::Relaxed) - base;
    assert_eq!(g.unwrap().unwrap(), want);
    assert_eq!(e.unwrap().unwrap(), want);
    peak
}

#[test]
fn peak_memory_depends_on_the_batch_not_on_the_circuit_size() {
    let dir = std::env::temp_dir().join(format!("mixgc-malicious-mem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let short = peak_of_chain(&dir, 1, 2000);
    let long = peak_of_chain(&dir, 12, 2000);
    let long_big_batch = peak_of_chain(&dir, 12, 40_000);
    eprintln!(
        "peak heap: 1 AES {short} B, 12 AES {long} B (batch 2000); 12 AES {long_big_batch} B (batch 40000)"
    );
    // Twelve times the gates, about the same memory: chunks and batches, not the circuit.
    assert!(long < short + short / 2, "1 AES: {short} B, 12 AES: {long} B");
    // A batch twenty times larger holds more tables and triples at once.
    assert!(
        long_big_batch > 2 * long,
        "batch 2000: {long} B, batch 40000: {long_big_batch} B"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
