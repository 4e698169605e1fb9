//! Typed values: the same program on plaintext, counter and recorder (two-party runs are
//! tested in the session crate).

use mixgc_program::{to_i128, to_u128, Backend, Counter, Ctx, PartyId, Recorder, SInt, UInt};
// The reference backend: `Plain` here; `tests/boolean_core.rs` runs these tests again on a
// backend with only the Boolean core.
use crate::reference::Plain;

#[allow(unused_imports)]
mod reference {
    pub use mixgc_program::Plain;
}
use rand::{Rng, SeedableRng};

/// Yao's millionaires: is the garbler richer? One program for every backend.
fn millionaires<B: Backend>(ctx: &Ctx<B>, a: Option<u128>, b: Option<u128>) -> Option<bool> {
    let x = ctx.input_uint(PartyId::GARBLER, 64, a).unwrap();
    let y = ctx.input_uint(PartyId::EVALUATOR, 64, b).unwrap();
    x.greater_than(&y).reveal().unwrap()
}

#[test]
fn one_program_runs_on_every_backend() {
    let (a, b) = (0x1234_5678_9abc_def0u128, 0x1234_5678_9abc_def1u128);
    assert_eq!(
        millionaires(&Ctx::new(Plain::default()), Some(a), Some(b)),
        Some(false)
    );
    assert_eq!(
        millionaires(&Ctx::new(Plain::default()), Some(b), Some(a)),
        Some(true)
    );

    let counter = Ctx::new(Counter::default());
    millionaires(&counter, None, None);
    let cost = counter.into_inner().unwrap().cost();
    assert_eq!(
        (
            cost.ands,
            cost.garbler_input_bits,
            cost.evaluator_input_bits,
            cost.output_bits
        ),
        (64, 64, 64, 1)
    );

    let recorder = Ctx::new(Recorder::default());
    millionaires(&recorder, None, None);
    let recorded = recorder.into_inner().unwrap().finish();
    assert_eq!(recorded.garbler_values, 1);
    let bits = |v: u128| (0..64).map(|i| v >> i & 1 == 1).collect::<Vec<bool>>();
    assert_eq!(
        recorded.circuit.eval_plain(&[bits(b), bits(a)]).unwrap(),
        vec![vec![true]]
    );
}

fn plain_uint(ctx: &Ctx<Plain>, w: u32, v: u128) -> UInt<Plain> {
    ctx.input_uint(PartyId::GARBLER, w, Some(v)).unwrap()
}

fn wrap(v: u128, w: u32) -> u128 {
    if w >= 128 {
        v
    } else {
        v & ((1u128 << w) - 1)
    }
}

fn sign(v: u128, w: u32) -> i128 {
    to_i128(&(0..w).map(|i| v >> i & 1 == 1).collect::<Vec<_>>())
}

#[test]
fn unsigned_operators_match_native_arithmetic() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(9);
    let ctx = Ctx::new(Plain::default());
    for w in [1u32, 7, 8, 16, 31, 32, 63, 64, 65, 128] {
        for _ in 0..20 {
            let (x, y) = (wrap(rng.gen(), w), wrap(rng.gen(), w));
            let (a, b) = (plain_uint(&ctx, w, x), plain_uint(&ctx, w, y));
            let val = |u: UInt<Plain>| to_u128(&u.reveal().unwrap().unwrap());
            assert_eq!(val(&a + &b), wrap(x.wrapping_add(y), w));
            assert_eq!(val(&a - &b), wrap(x.wrapping_sub(y), w));
            assert_eq!(val(-&a), wrap(x.wrapping_neg(), w));
            assert_eq!(val(&a * &b), wrap(x.wrapping_mul(y), w));
            assert_eq!(val(&a / &b), x.checked_div(y).unwrap_or(wrap(u128::MAX, w)));
            assert_eq!(val(&a % &b), x.checked_rem(y).unwrap_or(x));
            assert_eq!(val(&a ^ &b), x ^ y);
            assert_eq!(val(&a & &b), x & y);
            assert_eq!(val(&a | &b), x | y);
            assert_eq!(val(!&a), wrap(!x, w));
            let n = rng.gen_range(0..=w);
            assert_eq!(val(&a << n), if n >= 128 { 0 } else { wrap(x << n, w) });
            assert_eq!(val(&a >> n), if n >= 128 { 0 } else { x >> n });
            assert_eq!(a.less_than(&b).reveal().unwrap(), Some(x < y));
            assert_eq!(a.greater_than(&b).reveal().unwrap(), Some(x > y));
            assert_eq!(a.at_most(&b).reveal().unwrap(), Some(x <= y));
            assert_eq!(a.equals(&b).reveal().unwrap(), Some(x == y));
            assert_eq!(a.equals(&a.clone()).reveal().unwrap(), Some(true));
            assert_eq!(val(a.max(&b)), x.max(y));
            assert_eq!(val(a.min(&b)), x.min(y));
            let s = a.less_than(&b);
            assert_eq!(val(s.select(&a, &b)), if x < y { x } else { y });
        }
    }
}

#[test]
fn signed_operators_and_width_extension_follow_the_documented_rules() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(10);
    let ctx = Ctx::new(Plain::default());
    for w in [2u32, 7, 8, 16, 31, 32, 63, 64, 65, 127] {
        for _ in 0..20 {
            let (x, y) = (wrap(rng.gen(), w), wrap(rng.gen(), w));
            let (sx, sy) = (sign(x, w), sign(y, w));
            let a: SInt<Plain> = plain_uint(&ctx, w, x).as_signed();
            let b: SInt<Plain> = plain_uint(&ctx, w, y).as_signed();
            assert_eq!(
                a.less_than(&b).reveal().unwrap(),
                Some(sx < sy),
                "w={w} {sx} < {sy}"
            );
            let shifted = to_i128(&(&a >> 1).reveal().unwrap().unwrap());
            assert_eq!(shifted, sx >> 1, "arithmetic shift");
            let wide = to_i128(&a.resize(w + 9).reveal().unwrap().unwrap());
            assert_eq!(wide, sx, "sign extension keeps the value");
        }
    }
    // Mismatched widths: the narrower operand is extended to the wider width first.
    let small = plain_uint(&ctx, 8, 0xff);
    let big = plain_uint(&ctx, 16, 0x0100);
    assert_eq!(
        to_u128(&(&small + &big).reveal().unwrap().unwrap()),
        0x01ff,
        "zero extension for unsigned"
    );
    assert_eq!((&small + &big).width(), 16);
    let minus_one = small.as_signed();
    let s16 = big.as_signed();
    assert_eq!(
        to_i128(&(&minus_one + &s16).reveal().unwrap().unwrap()),
        0x00ff,
        "sign extension: -1 + 256 = 255"
    );
    let c = ctx.sint(12, -5);
    assert_eq!(to_i128(&c.reveal().unwrap().unwrap()), -5);
}

#[test]
fn wrong_input_widths_are_errors_not_panics() {
    let ctx = Ctx::new(Plain::default());
    assert!(
        ctx.input_uint(PartyId::EVALUATOR, 8, None).is_err(),
        "plaintext needs the value"
    );
    let mut p = Plain::default();
    let err = p.input(PartyId::GARBLER, 8, Some(&[true; 7])).unwrap_err();
    assert!(err.to_string().contains("must be 8 bits, got 7"), "{err}");
}
