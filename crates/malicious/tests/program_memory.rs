//! Programs in bounded memory under authenticated garbling (issue #19, thesis §3.3.2): the
//! malicious backend's live wire slots follow the values a program keeps, not the gates it
//! ran, and the library's matrix product (which frees its temporaries step by step) still
//! matches the plaintext backend.

use mixgc_circuit::PartyId;
use mixgc_core::new_rng;
use mixgc_malicious::dealer::TrustedDealer;
use mixgc_malicious::{MaliciousProgram, Settings};
use mixgc_net::{memory_pair, MemoryChannel};
use mixgc_program::library::{self, Supply};
use mixgc_program::{gadgets, Backend, Counter, Ctx, Plain, ProgramError, MAX_LANES};
use rand::Rng;

type Party<'a> = MaliciousProgram<'a, MemoryChannel, TrustedDealer>;

/// Runs `program` as both parties (garbler in a thread) at `batch` ANDs per batch; returns
/// each party's result.
fn both<T: Send>(
    seed: u64,
    batch: usize,
    program: impl Fn(Party<'_>, PartyId) -> Result<T, ProgramError> + Sync,
) -> (T, T) {
    let (mut ca, mut cb) = memory_pair();
    let (mut pa, mut pb) = TrustedDealer::pair(seed);
    std::thread::scope(|s| {
        let program = &program;
        let g = s.spawn(move || {
            let b = MaliciousProgram::new(&mut ca, &mut pa, batch, &Settings::default()).unwrap();
            program(b, PartyId::GARBLER)
        });
        let b = MaliciousProgram::new(&mut cb, &mut pb, batch, &Settings::default()).unwrap();
        let e = program(b, PartyId::EVALUATOR);
        (g.join().unwrap().unwrap(), e.unwrap())
    })
}

/// A running sum of products of fresh values, each intermediate dropped: the live slots
/// come back to where they were after every step, and the peak does not grow with the
/// number of steps.
#[test]
fn dropped_values_keep_the_live_slot_count_bounded() {
    const STEPS: usize = 60;
    let xs: Vec<u128> = (0..STEPS as u128).map(|i| i * 0x9e37_79b9 + 3).collect();
    let ys: Vec<u128> = (0..STEPS as u128).map(|i| i * 0x85eb_ca6b + 11).collect();
    let program = |b: Party<'_>, me: PartyId| -> Result<(Vec<usize>, Vec<usize>, u128), ProgramError> {
        let ctx = Ctx::new(b);
        let mut acc = ctx.uint(32, 0);
        let (mut live, mut peak) = (Vec::new(), Vec::new());
        for i in 0..STEPS {
            let x = ctx.input_uint(PartyId::GARBLER, 32, (me == PartyId::GARBLER).then_some(xs[i]))?;
            let y = ctx.input_uint(
                PartyId::EVALUATOR,
                32,
                (me == PartyId::EVALUATOR).then_some(ys[i]),
            )?;
            // A clone and a shift share wires with their source: dropping them must not
            // free a wire `x` still uses.
            let shared = x.clone();
            let shifted = &shared << 3;
            drop(shared);
            let p = &(&x * &y) ^ &(&shifted >> 3);
            acc = &acc + &p;
            drop((x, y, p, shifted));
            live.push(ctx.with(|b| b.live_slots()));
            peak.push(ctx.with(|b| b.peak_live_slots()));
        }
        let sum = mixgc_program::to_u128(&acc.reveal()?.expect("revealed to both"));
        Ok((live, peak, sum))
    };
    let ((live_g, peak_g, sum_g), (live_e, peak_e, sum_e)) = both(7, 500, program);
    let want = xs.iter().zip(&ys).fold(0u32, |acc, (&x, &y)| {
        let x = x as u32;
        acc.wrapping_add(x.wrapping_mul(y as u32) ^ ((x << 3) >> 3))
    });
    assert_eq!(sum_g, u128::from(want));
    assert_eq!(sum_e, u128::from(want));
    for (live, peak) in [(&live_g, &peak_g), (&live_e, &peak_e)] {
        // The NOT slot and the 32-bit accumulator after every step.
        assert!(live.iter().all(|&l| l == 1 + 32), "live slots per step: {live:?}");
        // One step's temporaries (a 32-bit product is about 700 ANDs and as many XORs):
        // the peak is reached in the first step and never grows.
        assert_eq!(peak[0], peak[STEPS - 1], "peaks: {peak:?}");
        assert!(peak[0] < 10_000, "peak {}", peak[0]);
    }
}

/// The wires one step of the library's matrix product makes (16 lanes of a w-bit product
/// and three sums), on the counter without scopes: every wire made stays counted.
fn one_step_wires(width: usize) -> usize {
    let mut c = Counter::default();
    let x = c.input(PartyId::GARBLER, width as u32, None).unwrap();
    let p = gadgets::mul::mul(&mut c, &x, &x);
    let s = gadgets::add(&mut c, &p, &x);
    let t = gadgets::add(&mut c, &s, &x);
    gadgets::add(&mut c, &t, &x);
    MAX_LANES * c.peak_live_wires() as usize
}

/// A matrix, row-major, each element's bits least significant first.
type Matrix = Vec<Vec<bool>>;

/// Random and edge (all zeros, all ones) matrices of side `d` and `width`-bit elements.
fn matrices(d: usize, width: u32, seed: u64) -> Vec<(Matrix, Matrix)> {
    let mut rng = new_rng(Some(seed), 5);
    let w = width as usize;
    let fill = |f: &mut dyn FnMut() -> bool| -> Matrix {
        (0..d * d).map(|_| (0..w).map(|_| f()).collect()).collect()
    };
    vec![
        (fill(&mut || rng.gen()), fill(&mut || rng.gen())),
        (fill(&mut || true), fill(&mut || true)),
        (fill(&mut || false), fill(&mut || true)),
    ]
}

/// The library's matmul in the malicious model equals the plaintext backend at small D
/// (even and odd, random and edge inputs, several batch sizes), and its live slots stay
/// at the values it keeps plus one step's temporaries, far below the wires it makes.
#[test]
fn matmul_matches_plaintext_with_bounded_live_slots() {
    let width = 64u32;
    for (d, batch) in [(1, 7), (2, 1_000), (3, 65_536), (5, 20_000)] {
        for (case, (a, m)) in matrices(d, width, d as u64).into_iter().enumerate() {
            let plain: Vec<Option<Vec<bool>>> = library::build(
                &mut Plain::default(),
                "matmul",
                Some(width),
                Some(d),
                &mut Supply::both(a.clone(), m.clone()),
            )
            .unwrap();
            let ((g, peak_g), (e, peak_e)) = both(d as u64 * 10 + case as u64, batch, |mut b, me| {
                let mine = if me == PartyId::GARBLER {
                    a.clone()
                } else {
                    m.clone()
                };
                let out = library::build(&mut b, "matmul", Some(width), Some(d), &mut Supply::of(me, mine))
                    .map_err(|e| ProgramError::OutOfRange(e.to_string()))?;
                Ok((out, b.peak_live_slots()))
            });
            assert_eq!(g, plain, "D = {d}, case {case}: the garbler's outputs");
            assert_eq!(e, plain, "D = {d}, case {case}: the evaluator's outputs");
            let (dd, w) = (d * d, width as usize);
            // Inputs, outputs, ξ and η, one step, the NOT slot and lane fillers.
            let bound = 3 * dd * w + 2 * d * w + one_step_wires(w) + 64;
            let cost = library::cost("matmul", Some(width), Some(d)).unwrap();
            let made = (cost.ands + cost.xors + cost.nots) as usize;
            for peak in [peak_g, peak_e] {
                assert!(peak <= bound, "D = {d}: peak {peak} slots, bound {bound}");
                // (At D = 1, 2 one step is most of the product.)
                if d >= 3 {
                    assert!(made > 2 * peak, "D = {d}: {made} wires made, peak {peak}");
                }
            }
        }
    }
}
