//! The cost counter against the wire: mixed Boolean/arithmetic programs (ABLE's LeNet
//! layer in its four realizations, the clipped dot product in its three) counted on
//! `Counter` and run between two parties. Every byte the counter predicts is sent, tag by
//! tag, and the evaluator's outputs equal the plaintext references.

use mixgc_arith::cost::protocol::OT_BYTES;
use mixgc_arith::primes::min_sum_primes;
use mixgc_net::{memory_pair, Tag};
use mixgc_program::clipdot::{self, ClipDot};
use mixgc_program::lenet::{self, ConvLayer, ConvShape};
use mixgc_program::{ArithBackend, Ctx, ProgramError};
use mixgc_studies::planner::{count, ClipRun, LenetRun, Phased};
use rand::{Rng, SeedableRng};

// The session tests' two-party helpers.
#[path = "../../session/tests/integration/common/mod.rs"]
mod common;

use common::{bytes_per_tag, evaluate, garble, run, Tap};

/// Counts `p`, runs it between two parties, and checks bytes and outputs.
fn check<P: Phased>(p: &P, what: &str) {
    let counter = count(p).unwrap();
    let cost = counter.cost();
    let uses_arithmetic = !counter.crt_ops().is_empty();

    let (gch, ech) = memory_pair();
    let (g, e) = run(
        (Tap::new(gch, usize::MAX), Tap::new(ech, usize::MAX)),
        |s| {
            let start = s.channel().writes.len();
            garble(s, "mixed", |ctx| run_phases(p, ctx, true, false))?;
            Ok(bytes_per_tag(&s.channel().writes[start..]))
        },
        |s| {
            let start = s.channel().writes.len();
            let outputs = evaluate(s, "mixed", |ctx| run_phases(p, ctx, false, true))?;
            Ok((outputs, bytes_per_tag(&s.channel().writes[start..])))
        },
    );
    let (g, (outputs, e)) = (g.unwrap(), e.unwrap());
    let learned: Vec<i128> = outputs.into_iter().map(|o| o.unwrap()).collect();
    assert_eq!(learned, p.expected(), "{what}: outputs");

    let sent =
        |tally: &std::collections::BTreeMap<u8, usize>, t: Tag| *tally.get(&(t as u8)).unwrap_or(&0) as u64;
    // Lifting rows of evaluator CRT inputs travel with the arithmetic tables; the counter
    // files them under OT. The session key is one 32-byte frame per session.
    let lifting = cost.ot_bytes - OT_BYTES * cost.ots;
    let key = if uses_arithmetic { 32 } else { 0 };
    assert_eq!(
        sent(&g, Tag::Tables) + sent(&g, Tag::ArithTables),
        cost.table_bytes + lifting + key,
        "{what}: tables"
    );
    // The program's two constant labels open every run.
    assert_eq!(
        sent(&g, Tag::GarblerLabels),
        cost.garbler_input_bytes + 32,
        "{what}: inputs"
    );
    assert_eq!(
        sent(&g, Tag::OutputDecoding) + sent(&e, Tag::OutputColours),
        cost.output_bytes,
        "{what}: outputs"
    );
    assert_eq!(*g.get(&0).unwrap_or(&0) as u64, OT_BYTES * cost.ots, "{what}: OT");
}

/// Both phases of `p` on one party's backend.
fn run_phases<P: Phased, B: ArithBackend>(
    p: &P,
    ctx: &Ctx<B>,
    garbler: bool,
    evaluator: bool,
) -> Result<Vec<Option<i128>>, ProgramError> {
    let inputs = p.inputs(ctx, garbler, evaluator)?;
    p.compute(ctx, &inputs)
}

fn values(rng: &mut impl Rng, n: usize, width: u32) -> Vec<i64> {
    (0..n).map(|_| rng.gen::<i64>() >> (64 - width)).collect()
}

#[test]
fn lenet_costs_are_what_is_sent() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    for width in [5, 8] {
        let layer = ConvLayer {
            shape: ConvShape {
                input: 5,
                kernel: 3,
                filters: 2,
            },
            width,
            set: min_sum_primes(width).unwrap(),
        };
        let image = values(&mut rng, layer.shape.pixels(), width);
        let filters = values(&mut rng, layer.shape.weights(), width);
        for realization in lenet::Realization::ALL {
            let p = LenetRun {
                layer: &layer,
                realization,
                image: &image,
                filters: &filters,
            };
            check(&p, &format!("lenet {} at {width} bits", realization.name()));
        }
    }
}

#[test]
fn clipdot_costs_are_what_is_sent() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(6);
    for width in [8, 20, 64] {
        let n = 5;
        let problem = ClipDot {
            n,
            width,
            clip: ClipDot::safe_clip(n, width),
            set: min_sum_primes(width).unwrap(),
        };
        let (x, y) = (values(&mut rng, n, width), values(&mut rng, n, width));
        for realization in clipdot::Realization::ALL {
            let p = ClipRun {
                problem: &problem,
                realization,
                x: &x,
                y: &y,
            };
            check(&p, &format!("clipdot {} at {width} bits", realization.name()));
        }
    }
}
