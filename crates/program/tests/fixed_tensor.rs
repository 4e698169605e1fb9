//! Fixed-point numbers and tensors on the plaintext backend, checked against exact integer
//! formulas for the documented rules (module docs of `mixgc_program::fixed`) and against f64
//! and plain Rust matrix products; AND counts on the counter.

use mixgc_program::{
    to_f64, Counter, Ctx, Fixed, FixedError, FixedFormat, PartyId, SInt, Tensor, TensorError, UInt,
};
// The reference backend: `Plain` here; `tests/boolean_core.rs` runs these tests again on a
// backend with only the Boolean core.
use crate::reference::Plain;

#[allow(unused_imports)]
mod reference {
    pub use mixgc_program::Plain;
}
use rand::{rngs::StdRng, Rng, SeedableRng};

fn fmt(w: u32, f: u32) -> FixedFormat {
    FixedFormat::new(w, f).unwrap()
}

fn plain() -> Ctx<Plain> {
    Ctx::new(Plain::default())
}

/// `v` wrapped to a `w`-bit two's-complement value.
fn wrap_s(v: i128, w: u32) -> i128 {
    if w >= 128 {
        v
    } else {
        let s = 128 - w;
        (v << s) >> s
    }
}

/// The rounding rule: ⌊(p + 2^(d−1)) / 2^d⌋.
fn round_rule(p: i128, d: u32) -> i128 {
    if d == 0 {
        p
    } else {
        (p + (1i128 << (d - 1))) >> d
    }
}

fn rand_raw(rng: &mut StdRng, w: u32) -> i128 {
    wrap_s(rng.gen::<u128>() as i128, w)
}

fn input(ctx: &Ctx<Plain>, f: FixedFormat, v: f64) -> Fixed<Plain> {
    ctx.input_fixed(PartyId::GARBLER, f, Some(v)).unwrap()
}

fn input_raw(ctx: &Ctx<Plain>, f: FixedFormat, raw: i128) -> Fixed<Plain> {
    Fixed::from_raw(
        ctx.input_sint(PartyId::GARBLER, f.width(), Some(raw)).unwrap(),
        f.frac(),
    )
    .unwrap()
}

fn raw(x: &Fixed<Plain>) -> i128 {
    x.reveal_raw().unwrap().unwrap()
}

fn val(x: &Fixed<Plain>) -> f64 {
    x.reveal().unwrap().unwrap()
}

const FORMATS: [(u32, u32); 9] = [
    (8, 4),
    (16, 8),
    (32, 16),
    (64, 32),
    (24, 0),
    (12, 12),
    (7, 3),
    (33, 1),
    (65, 20),
];

#[test]
fn encode_decode_round_trip() {
    let mut rng = StdRng::seed_from_u64(1);
    let ctx = plain();
    for (w, f) in FORMATS {
        let format = fmt(w, f);
        for _ in 0..50 {
            // Every representable value with at most 53 significant bits round-trips exactly.
            let r = wrap_s(rand_raw(&mut rng, w), w.min(53));
            let v = r as f64 / 2f64.powi(f as i32);
            assert_eq!(format.encode(v).unwrap(), r);
            assert_eq!(format.decode(r), v);
            let x = input(&ctx, format, v);
            assert_eq!((x.width(), x.frac()), (w, f));
            assert_eq!(raw(&x), r);
            assert_eq!(val(&x), v);
            let c = ctx.fixed(format, v).unwrap();
            assert_eq!(raw(&c), r);
            let bits: Vec<bool> = (0..w).map(|i| (r as u128) >> i & 1 == 1).collect();
            assert_eq!(to_f64(&bits, f), v);
        }
        // Extremes of the range.
        assert_eq!(format.encode(format.min()).unwrap(), wrap_s(1i128 << (w - 1), w));
        if w <= 53 {
            assert_eq!(format.encode(format.max()).unwrap(), (1i128 << (w - 1)) - 1);
        }
    }
    // 128-bit format: the raw integer is exact even when the f64 is not.
    let ctx = plain();
    let x = input_raw(&ctx, fmt(128, 64), i128::MIN + 3);
    assert_eq!(raw(&x), i128::MIN + 3);
    assert_eq!(val(&x), -(2f64.powi(63)));
}

#[test]
fn encoding_rounds_to_nearest_ties_away_from_zero() {
    let q0 = fmt(16, 0);
    assert_eq!(q0.encode(2.5).unwrap(), 3);
    assert_eq!(q0.encode(-2.5).unwrap(), -3);
    assert_eq!(q0.encode(3.5).unwrap(), 4);
    assert_eq!(q0.encode(-0.5).unwrap(), -1);
    assert_eq!(q0.encode(0.49).unwrap(), 0);
    assert_eq!(q0.encode(-2.51).unwrap(), -3);
    let q2 = fmt(8, 2);
    assert_eq!(q2.encode(0.125).unwrap(), 1); // 0.5 ulp → 1 ulp
    assert_eq!(q2.encode(-0.125).unwrap(), -1);
    assert_eq!(q2.encode(0.1).unwrap(), 0); // 0.4 ulp
    assert_eq!(q2.encode(-0.2).unwrap(), -1); // −0.8 ulp
    let ctx = plain();
    assert_eq!(val(&input(&ctx, q2, 1.375)), 1.5);
    assert_eq!(val(&input(&ctx, q2, -1.375)), -1.5);
}

#[test]
fn inputs_that_do_not_fit_are_errors() {
    let q = fmt(8, 4); // −8 ..= 7.9375
    assert_eq!((q.min(), q.max()), (-8.0, 7.9375));
    assert!(q.encode(7.9375).is_ok());
    assert!(q.encode(7.96).is_ok()); // 127.36 → 127
    assert!(matches!(q.encode(7.96875), Err(FixedError::Overflow { .. }))); // tie → 128
    assert!(matches!(q.encode(8.0), Err(FixedError::Overflow { .. })));
    assert_eq!(q.encode(-8.0).unwrap(), -128);
    assert_eq!(q.encode(-8.03).unwrap(), -128); // −128.48 → −128
    assert!(matches!(q.encode(-8.04), Err(FixedError::Overflow { .. })));
    assert!(matches!(q.encode(f64::NAN), Err(FixedError::NotFinite { .. })));
    assert!(matches!(
        q.encode(f64::INFINITY),
        Err(FixedError::NotFinite { .. })
    ));
    assert!(matches!(
        fmt(128, 0).encode(1e40),
        Err(FixedError::Overflow { .. })
    ));
    let e = q.encode(100.0).unwrap_err().to_string();
    assert!(
        e.contains("100") && e.contains("-8") && e.contains("7.9375"),
        "{e}"
    );

    let ctx = plain();
    assert!(matches!(
        ctx.input_fixed(PartyId::EVALUATOR, q, Some(9.0)),
        Err(FixedError::Overflow { .. })
    ));
    assert!(matches!(ctx.fixed(q, -9.0), Err(FixedError::Overflow { .. })));
    // The plaintext backend still needs the owner's value.
    assert!(matches!(
        ctx.input_fixed(PartyId::EVALUATOR, q, None),
        Err(FixedError::Program(_))
    ));

    assert!(matches!(FixedFormat::new(0, 0), Err(FixedError::Format { .. })));
    assert!(matches!(FixedFormat::new(129, 0), Err(FixedError::Format { .. })));
    assert!(matches!(FixedFormat::new(8, 9), Err(FixedError::Format { .. })));
    assert!(FixedFormat::new(8, 8).is_ok());
    let s = ctx.input_sint(PartyId::GARBLER, 8, Some(1)).unwrap();
    assert!(matches!(Fixed::from_raw(s, 9), Err(FixedError::Format { .. })));
}

#[test]
fn add_sub_neg_mul_follow_the_rules() {
    let mut rng = StdRng::seed_from_u64(2);
    let ctx = plain();
    for (w, f) in FORMATS {
        let format = fmt(w, f);
        for _ in 0..40 {
            let (x, y) = (rand_raw(&mut rng, w), rand_raw(&mut rng, w));
            let (a, b) = (input_raw(&ctx, format, x), input_raw(&ctx, format, y));
            assert_eq!(raw(&(&a + &b)), wrap_s(x + y, w));
            assert_eq!(raw(&(&a - &b)), wrap_s(x - y, w));
            assert_eq!(raw(&-&a), wrap_s(-x, w));
            let prod = &a * &b;
            assert_eq!(prod.format(), format);
            if w <= 64 {
                assert_eq!(
                    raw(&prod),
                    wrap_s(round_rule(x * y, f), w),
                    "{x} * {y} in Q({w},{f})"
                );
            }
        }
    }
    // 128-bit operands: products of small values (no wrapping) are still exact.
    let q = fmt(128, 40);
    for _ in 0..20 {
        let (x, y) = (rand_raw(&mut rng, 80), rand_raw(&mut rng, 80));
        let p = &input_raw(&ctx, q, x) * &input_raw(&ctx, q, y);
        // x·y may need 159 bits: split y to stay within i128.
        let (yh, yl) = (y >> 40, y & ((1i128 << 40) - 1));
        let expect = x * yh + round_rule(x * yl, 40);
        assert_eq!(raw(&p), expect);
    }
}

#[test]
fn arithmetic_matches_f64_within_half_an_ulp() {
    let mut rng = StdRng::seed_from_u64(3);
    let ctx = plain();
    let q = fmt(32, 16);
    let ulp = 2f64.powi(-16);
    for _ in 0..200 {
        let (x, y): (f64, f64) = (rng.gen_range(-150.0..150.0), rng.gen_range(-150.0..150.0));
        let (a, b) = (input(&ctx, q, x), input(&ctx, q, y));
        let (xq, yq) = (val(&a), val(&b));
        assert!((xq - x).abs() <= ulp / 2.0);
        // Sums of representable values are exact.
        assert_eq!(val(&(&a + &b)), xq + yq);
        assert_eq!(val(&(&a - &b)), xq - yq);
        // Products are rounded to the nearest representable value.
        assert!((val(&(&a * &b)) - xq * yq).abs() <= ulp / 2.0);
        assert!((val(&(&a * &b)) - x * y).abs() <= ulp * 160.0);
    }
}

#[test]
fn product_rounding_is_half_up_on_ties_and_negatives() {
    let ctx = plain();
    let q = fmt(16, 1); // ulp 0.5: products of halves land on quarter ties
    let m = |x: f64, y: f64| val(&(&input(&ctx, q, x) * &input(&ctx, q, y)));
    assert_eq!(m(0.5, 0.5), 0.5); // 0.25 → up
    assert_eq!(m(-0.5, 0.5), 0.0); // −0.25 → toward +∞
    assert_eq!(m(1.5, 0.5), 1.0); // 0.75 → up
    assert_eq!(m(-1.5, 0.5), -0.5); // −0.75 → toward +∞
    assert_eq!(m(-1.5, -0.5), 1.0);
    assert_eq!(m(2.5, 1.5), 4.0); // 3.75: not a tie, nearest
    assert_eq!(m(-2.5, 1.5), -3.5); // −3.75 → −3.5 (tie toward +∞)
                                    // A non-tie below half rounds to nearest for negatives too.
    let q = fmt(16, 2);
    let m = |x: f64, y: f64| val(&(&input(&ctx, q, x) * &input(&ctx, q, y)));
    assert_eq!(m(-0.25, 0.25), 0.0); // −1/16: nearest is 0
    assert_eq!(m(-0.75, 0.75), -0.5); // −9/16 → −0.5
    assert_eq!(m(-1.25, 0.25), -0.25); // −5/16 → −0.25
                                       // Products wrap modulo 2^w.
    let q = fmt(8, 4);
    let p = &input(&ctx, q, 4.0) * &input(&ctx, q, 3.0);
    assert_eq!(raw(&p), wrap_s(12 * 16, 8));
    // Rescaling to fewer fraction bits uses the same rule.
    let x = input(&ctx, fmt(16, 4), -0.3125); // −5/16
    assert_eq!(raw(&x.rescale(fmt(16, 1))), round_rule(-5, 3));
    assert_eq!(val(&x.rescale(fmt(16, 1))), -0.5);
    assert_eq!(val(&input(&ctx, fmt(16, 4), 0.1875).rescale(fmt(12, 2))), 0.25);
    assert_eq!(val(&input(&ctx, fmt(16, 4), 1.5).rescale(fmt(24, 10))), 1.5);
}

#[test]
fn mixed_formats_use_the_common_format() {
    let mut rng = StdRng::seed_from_u64(4);
    let ctx = plain();
    let (fa, fb) = (fmt(16, 4), fmt(12, 8));
    let common = fa.common(&fb);
    assert_eq!((common.width(), common.frac()), (20, 8));
    assert_eq!(fmt(100, 10).common(&fmt(100, 60)), fmt(128, 60)); // capped
    for _ in 0..100 {
        let (x, y) = (rand_raw(&mut rng, 16), rand_raw(&mut rng, 12));
        let (a, b) = (input_raw(&ctx, fa, x), input_raw(&ctx, fb, y));
        let xs = x << 4; // a in the common format, exactly
        for r in [&a + &b, &b + &a] {
            assert_eq!(r.format(), common);
            assert_eq!(raw(&r), xs + y);
        }
        assert_eq!(raw(&(&a - &b)), xs - y);
        assert_eq!(val(&(&a - &b)), val(&a) - val(&b));
        assert_eq!(raw(&(&a * &b)), wrap_s(round_rule(xs * y, 8), 20));
        assert_eq!(a.less_than(&b).reveal().unwrap(), Some(val(&a) < val(&b)));
        assert_eq!(a.equals(&b).reveal().unwrap(), Some(val(&a) == val(&b)));
        let s = ctx
            .input_uint(PartyId::EVALUATOR, 1, Some(rng.gen_range(0..2)))
            .unwrap();
        let bit = s.equals(&ctx.uint(1, 1));
        let pick = bit.select(&a, &b);
        assert_eq!(pick.format(), common);
        let want = if bit.reveal().unwrap().unwrap() {
            val(&a)
        } else {
            val(&b)
        };
        assert_eq!(val(&pick), want);
    }
    let one = input(&ctx, fmt(8, 0), 1.0);
    let half = input(&ctx, fmt(8, 7), 0.5);
    assert_eq!(val(&(&one + &half)), 1.5);
    assert!(one.greater_than(&half).reveal().unwrap().unwrap());
}

#[test]
fn comparisons_select_relu_abs_min_max() {
    let mut rng = StdRng::seed_from_u64(5);
    let ctx = plain();
    let q = fmt(16, 6);
    for _ in 0..100 {
        let (x, y) = (rand_raw(&mut rng, 16), rand_raw(&mut rng, 16));
        let (a, b) = (input_raw(&ctx, q, x), input_raw(&ctx, q, y));
        let bit = |v: mixgc_program::Bit<Plain>| v.reveal().unwrap().unwrap();
        assert_eq!(bit(a.less_than(&b)), x < y);
        assert_eq!(bit(a.greater_than(&b)), x > y);
        assert_eq!(bit(a.at_most(&b)), x <= y);
        assert_eq!(bit(a.at_least(&b)), x >= y);
        assert_eq!(bit(a.equals(&b)), x == y);
        assert!(bit(a.equals(&a)));
        assert_eq!(raw(&a.relu()), x.max(0));
        assert_eq!(raw(&a.abs()), wrap_s(x.abs(), 16));
        assert_eq!(raw(&a.max(&b)), x.max(y));
        assert_eq!(raw(&a.min(&b)), x.min(y));
        assert_eq!(raw(&a.less_than(&b).select(&a, &b)), if x < y { x } else { y });
    }
}

#[test]
fn fixed_point_and_counts() {
    let cost = |f: &dyn Fn(&Ctx<Counter>)| {
        let ctx = Ctx::new(Counter::default());
        f(&ctx);
        ctx.into_inner().unwrap().cost().ands
    };
    let q = fmt(32, 16);
    let two = |c: &Ctx<Counter>| {
        (
            c.input_fixed(PartyId::GARBLER, q, None).unwrap(),
            c.input_fixed(PartyId::EVALUATOR, q, None).unwrap(),
        )
    };
    assert_eq!(
        cost(&|c| drop(c.input_fixed(PartyId::GARBLER, q, None).unwrap().relu())),
        31
    );
    assert_eq!(
        cost(&|c| drop(c.input_fixed(PartyId::GARBLER, q, None).unwrap().abs())),
        31
    );
    assert_eq!(
        cost(&|c| {
            let (a, b) = two(c);
            drop(&a + &b)
        }),
        31
    );
    assert_eq!(
        cost(&|c| {
            let (a, b) = two(c);
            drop(a.less_than(&b))
        }),
        32
    );
    // Truncated Booth multiplier at w + f = 48 bits (5·48·50/8 = 1,500) plus w − 1 for rounding.
    assert_eq!(
        cost(&|c| {
            let (a, b) = two(c);
            drop(&a * &b)
        }),
        1500 + 31
    );
    // Integer format: the plain truncated product.
    let q0 = fmt(32, 0);
    assert_eq!(
        cost(&|c| {
            let a = c.input_fixed(PartyId::GARBLER, q0, None).unwrap();
            let b = c.input_fixed(PartyId::EVALUATOR, q0, None).unwrap();
            drop(&a * &b)
        }),
        680
    );
    // A public constant costs nothing to make.
    assert_eq!(cost(&|c| drop(c.fixed(q, 3.25).unwrap())), 0);
}

// ---------------------------------------------------------------------------------------
// Tensors

fn uints(ctx: &Ctx<Plain>, shape: &[usize], w: u32, v: &[u128]) -> Tensor<UInt<Plain>> {
    Tensor::input(ctx, PartyId::GARBLER, shape, w, Some(v)).unwrap()
}

fn reveal<T: mixgc_program::Element>(t: &Tensor<T>) -> Vec<T::Clear> {
    t.reveal().unwrap().unwrap()
}

#[test]
fn reshape_slice_get_transpose() {
    let ctx = plain();
    let v: Vec<u128> = (0..24).collect();
    let t = uints(&ctx, &[2, 3, 4], 8, &v);
    assert_eq!((t.shape(), t.ndim(), t.len()), (&[2, 3, 4][..], 3, 24));
    // Row-major: index (i, j, k) is 12i + 4j + k.
    for i in 0..2 {
        for j in 0..3 {
            for k in 0..4 {
                let e = t.get(&[i, j, k]).unwrap();
                assert_eq!(
                    mixgc_program::to_u128(&e.reveal().unwrap().unwrap()),
                    (12 * i + 4 * j + k) as u128
                );
            }
        }
    }
    let r = t.reshape(&[4, 6]).unwrap();
    assert_eq!(r.shape(), &[4, 6]);
    assert_eq!(reveal(&r), v);
    assert_eq!(
        reveal(
            r.get(&[3, 5])
                .map(|e| Tensor::from_vec(&[1], vec![e.clone()]).unwrap())
                .as_ref()
                .unwrap()
        ),
        vec![23]
    );
    let r4 = t.reshape(&[1, 2, 3, 4]).unwrap();
    assert_eq!(r4.ndim(), 4);
    assert_eq!(reveal(&r4.reshape(&[24]).unwrap()), v);

    // Slices on every axis.
    let s = t.slice(1, 1..3).unwrap();
    assert_eq!(s.shape(), &[2, 2, 4]);
    assert_eq!(
        reveal(&s),
        vec![4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 18, 19, 20, 21, 22, 23]
    );
    let s = t.slice(2, 3..4).unwrap();
    assert_eq!(s.shape(), &[2, 3, 1]);
    assert_eq!(reveal(&s), vec![3, 7, 11, 15, 19, 23]);
    let s = t.slice(0, 1..2).unwrap();
    assert_eq!(reveal(&s), (12..24).collect::<Vec<_>>());
    // 4-D: slice the last axis, then index.
    let s4 = r4.slice(3, 1..3).unwrap().slice(2, 2..3).unwrap();
    assert_eq!(s4.shape(), &[1, 2, 1, 2]);
    assert_eq!(reveal(&s4), vec![9, 10, 21, 22]);

    let m = t.reshape(&[6, 4]).unwrap().transpose().unwrap();
    assert_eq!(m.shape(), &[4, 6]);
    assert_eq!(reveal(&m)[..6], [0, 4, 8, 12, 16, 20]);

    // map: element-wise unary operations.
    let doubled = t.map(|x| x + x);
    assert_eq!(reveal(&doubled), v.iter().map(|x| 2 * x).collect::<Vec<_>>());
    let ctx_c = Ctx::new(Counter::default());
    let tc = Tensor::<UInt<Counter>>::input(&ctx_c, PartyId::GARBLER, &[3, 4], 16, None).unwrap();
    let moved = tc
        .reshape(&[2, 6])
        .unwrap()
        .slice(1, 2..5)
        .unwrap()
        .reshape(&[3, 2])
        .unwrap();
    drop((tc, moved));
    assert_eq!(
        ctx_c.into_inner().unwrap().cost().ands,
        0,
        "shape operations are free"
    );
}

#[test]
fn shape_mistakes_are_errors_not_panics() {
    let ctx = plain();
    let t = uints(&ctx, &[2, 3], 8, &[1, 2, 3, 4, 5, 6]);
    let u = uints(&ctx, &[3, 2], 8, &[1, 2, 3, 4, 5, 6]);
    let shape_err = |r: Result<Tensor<UInt<Plain>>, TensorError>| match r {
        Err(TensorError::Shape(m)) => m,
        Err(e) => panic!("wrong error {e}"),
        Ok(_) => panic!("accepted"),
    };
    assert!(shape_err(t.add(&u)).contains("[2, 3] and [3, 2]"));
    shape_err(t.sub(&u));
    shape_err(t.mul(&u));
    assert!(shape_err(t.matmul(&t)).contains("inner dimensions"));
    shape_err(t.reshape(&[6]).unwrap().matmul(&u));
    assert!(shape_err(t.reshape(&[4, 2])).contains("6 elements"));
    shape_err(t.reshape(&[]));
    shape_err(t.reshape(&[1, 1, 1, 2, 3])); // 5-D
    shape_err(t.reshape(&[0, 6]));
    shape_err(t.slice(2, 0..1));
    shape_err(t.slice(1, 2..4));
    shape_err(t.slice(1, 2..2));
    shape_err(t.reshape(&[6]).unwrap().transpose());
    assert!(matches!(t.get(&[2, 0]), Err(TensorError::Shape(_))));
    assert!(matches!(t.get(&[0]), Err(TensorError::Shape(_))));
    shape_err(Tensor::input(
        &ctx,
        PartyId::GARBLER,
        &[2, 2],
        8,
        Some(&[1, 2, 3][..]),
    ));
    shape_err(Tensor::constant(&ctx, &[2, 2], 8, &[1, 2, 3]));
    shape_err(Tensor::from_vec(&[3], vec![ctx.uint(4, 1)]));
    // Values that do not fit their format.
    assert!(matches!(
        Tensor::<UInt<Plain>>::input(&ctx, PartyId::GARBLER, &[2], 8, Some(&[1, 256])),
        Err(TensorError::Value(_))
    ));
    assert!(matches!(
        Tensor::<SInt<Plain>>::constant(&ctx, &[2], 8, &[-128, 128]),
        Err(TensorError::Value(_))
    ));
    assert!(matches!(
        Tensor::<Fixed<Plain>>::input(&ctx, PartyId::GARBLER, &[1], fmt(8, 4), Some(&[8.0])),
        Err(TensorError::Fixed(FixedError::Overflow { .. }))
    ));
}

#[test]
fn element_wise_operations() {
    let mut rng = StdRng::seed_from_u64(6);
    let ctx = plain();
    let shape = [2, 2, 3, 2];
    let (x, y): (Vec<i128>, Vec<i128>) = (0..24)
        .map(|_| (rand_raw(&mut rng, 12), rand_raw(&mut rng, 12)))
        .unzip();
    let a = Tensor::<SInt<Plain>>::input(&ctx, PartyId::GARBLER, &shape, 12, Some(&x)).unwrap();
    let b = Tensor::<SInt<Plain>>::input(&ctx, PartyId::EVALUATOR, &shape, 12, Some(&y)).unwrap();
    let z = |f: fn(i128, i128) -> i128| {
        x.iter()
            .zip(&y)
            .map(|(&p, &q)| wrap_s(f(p, q), 12))
            .collect::<Vec<_>>()
    };
    assert_eq!(reveal(&a.add(&b).unwrap()), z(|p, q| p + q));
    assert_eq!(reveal(&a.sub(&b).unwrap()), z(|p, q| p - q));
    assert_eq!(reveal(&a.mul(&b).unwrap()), z(|p, q| p * q));
    assert_eq!(a.add(&b).unwrap().shape(), &shape);

    let q = fmt(20, 8);
    let xf: Vec<f64> = x.iter().map(|&r| r as f64 / 64.0).collect();
    let yf: Vec<f64> = y.iter().map(|&r| r as f64 / 128.0).collect();
    let a = Tensor::<Fixed<Plain>>::input(&ctx, PartyId::GARBLER, &[4, 6], q, Some(&xf)).unwrap();
    let b = Tensor::<Fixed<Plain>>::constant(&ctx, &[4, 6], q, &yf).unwrap();
    let sum: Vec<f64> = xf.iter().zip(&yf).map(|(p, q)| p + q).collect();
    assert_eq!(reveal(&a.add(&b).unwrap()), sum);
    let prod: Vec<f64> = xf
        .iter()
        .zip(&yf)
        .map(|(p, q)| round_rule((p * 256.0) as i128 * (q * 256.0) as i128, 8) as f64 / 256.0)
        .collect();
    assert_eq!(reveal(&a.mul(&b).unwrap()), prod);
    assert_eq!(
        reveal(&a.map(|e| e.relu())),
        xf.iter().map(|v| v.max(0.0)).collect::<Vec<_>>()
    );
}

fn plain_matmul(a: &[i128], b: &[i128], m: usize, k: usize, n: usize) -> Vec<i128> {
    let mut c = vec![0i128; m * n];
    for i in 0..m {
        for j in 0..n {
            for t in 0..k {
                c[i * n + j] += a[i * k + t] * b[t * n + j];
            }
        }
    }
    c
}

#[test]
fn matmul_matches_plain_rust() {
    let mut rng = StdRng::seed_from_u64(7);
    let ctx = plain();
    for (m, k, n) in [(1, 1, 1), (3, 4, 5), (5, 5, 5), (2, 7, 1)] {
        // Unsigned 32-bit, wrapping.
        let a: Vec<u128> = (0..m * k).map(|_| rng.gen::<u32>() as u128).collect();
        let b: Vec<u128> = (0..k * n).map(|_| rng.gen::<u32>() as u128).collect();
        let ta = Tensor::<UInt<Plain>>::input(&ctx, PartyId::GARBLER, &[m, k], 32, Some(&a)).unwrap();
        let tb = Tensor::<UInt<Plain>>::input(&ctx, PartyId::EVALUATOR, &[k, n], 32, Some(&b)).unwrap();
        let c = ta.matmul(&tb).unwrap();
        assert_eq!(c.shape(), &[m, n]);
        let ai: Vec<i128> = a.iter().map(|&v| v as i128).collect();
        let bi: Vec<i128> = b.iter().map(|&v| v as i128).collect();
        let want: Vec<u128> = plain_matmul(&ai, &bi, m, k, n)
            .into_iter()
            .map(|v| v as u128 & 0xffff_ffff)
            .collect();
        assert_eq!(reveal(&c), want);

        // Signed 16-bit.
        let a: Vec<i128> = (0..m * k).map(|_| rand_raw(&mut rng, 16)).collect();
        let b: Vec<i128> = (0..k * n).map(|_| rand_raw(&mut rng, 16)).collect();
        let ta = Tensor::<SInt<Plain>>::input(&ctx, PartyId::GARBLER, &[m, k], 16, Some(&a)).unwrap();
        let tb = Tensor::<SInt<Plain>>::input(&ctx, PartyId::EVALUATOR, &[k, n], 16, Some(&b)).unwrap();
        let want: Vec<i128> = plain_matmul(&a, &b, m, k, n)
            .into_iter()
            .map(|v| wrap_s(v, 16))
            .collect();
        assert_eq!(reveal(&ta.matmul(&tb).unwrap()), want);

        // Fixed point Q(32, 12): exact products summed, rounded once.
        let q = fmt(32, 12);
        let a: Vec<i128> = (0..m * k).map(|_| rand_raw(&mut rng, 20)).collect();
        let b: Vec<i128> = (0..k * n).map(|_| rand_raw(&mut rng, 20)).collect();
        let af: Vec<f64> = a.iter().map(|&r| q.decode(r)).collect();
        let bf: Vec<f64> = b.iter().map(|&r| q.decode(r)).collect();
        let ta = Tensor::<Fixed<Plain>>::input(&ctx, PartyId::GARBLER, &[m, k], q, Some(&af)).unwrap();
        let tb = Tensor::<Fixed<Plain>>::input(&ctx, PartyId::EVALUATOR, &[k, n], q, Some(&bf)).unwrap();
        let c = ta.matmul(&tb).unwrap();
        let want: Vec<f64> = plain_matmul(&a, &b, m, k, n)
            .into_iter()
            .map(|p| q.decode(wrap_s(round_rule(p, 12), 32)))
            .collect();
        assert_eq!(reveal(&c), want);
        // Within half an ulp of the f64 matrix product.
        for (i, got) in reveal(&c).into_iter().enumerate() {
            let (r, col) = (i / n, i % n);
            let exact: f64 = (0..k).map(|t| af[r * k + t] * bf[t * n + col]).sum();
            assert!((got - exact).abs() <= 2f64.powi(-13) + 1e-9, "{got} vs {exact}");
        }
    }
}

#[test]
fn matmul_and_count() {
    // 5×5 by 5×5, 32-bit unsigned: 125 truncated products (680 ANDs) and 100 additions (31).
    let ctx = Ctx::new(Counter::default());
    let a = Tensor::<UInt<Counter>>::input(&ctx, PartyId::GARBLER, &[5, 5], 32, None).unwrap();
    let b = Tensor::<UInt<Counter>>::input(&ctx, PartyId::EVALUATOR, &[5, 5], 32, None).unwrap();
    let c = a.matmul(&b).unwrap();
    c.reveal().unwrap();
    drop((a, b, c));
    let cost = ctx.into_inner().unwrap().cost();
    assert_eq!(cost.ands, 125 * 680 + 100 * 31);
    assert!(cost.ands < 127_225, "TinyGarble's MatrixMult 5×5 32-bit");
    assert_eq!(cost.output_bits, 25 * 32);
}

#[test]
fn recorded_fixed_point_circuit_agrees_with_plaintext() {
    use mixgc_program::Recorder;
    let mut rng = StdRng::seed_from_u64(8);
    let q = fmt(16, 8);
    let program = |ctx: &Ctx<Recorder>| {
        let a = ctx.input_fixed(PartyId::GARBLER, q, None).unwrap();
        let b = ctx.input_fixed(PartyId::EVALUATOR, q, None).unwrap();
        let c = ctx.fixed(q, -0.75).unwrap();
        (&(&a * &b) + &c).relu().reveal().unwrap();
    };
    let ctx = Ctx::new(Recorder::default());
    program(&ctx);
    let rec = ctx.into_inner().unwrap().finish();
    for _ in 0..50 {
        let (x, y) = (rand_raw(&mut rng, 16), rand_raw(&mut rng, 16));
        let bits = |v: i128| (0..16).map(|i| (v as u128) >> i & 1 == 1).collect::<Vec<bool>>();
        let out = rec.circuit.eval_plain(&[bits(x), bits(y)]).unwrap();
        let want = wrap_s(round_rule(x * y, 8) - 192, 16).max(0);
        assert_eq!(out, vec![bits(want)]);
    }
}
