//! The mixed Boolean/arithmetic programs (ABLE §5.2's clipped dot product, §6's LeNet
//! layer) on the plaintext backend against their clear references, at several widths, and
//! their cost shapes on the counter.

use mixgc_moduli::primes::min_sum_primes;
use mixgc_program::clipdot::{self, ClipDot};
use mixgc_program::lenet::{self, ConvLayer, ConvShape, Realization};
use mixgc_program::{Counter, Ctx, Plain};
use rand::{Rng, SeedableRng};

fn rng(seed: u64) -> rand::rngs::StdRng {
    rand::rngs::StdRng::seed_from_u64(seed)
}

/// Uniform values in the signed range of `width` ≤ 64 bits.
fn signed_values(rng: &mut impl Rng, n: usize, width: u32) -> Vec<i64> {
    (0..n).map(|_| rng.gen::<i64>() >> (64 - width)).collect()
}

fn small_layer(width: u32) -> ConvLayer {
    ConvLayer {
        shape: ConvShape {
            input: 5,
            kernel: 3,
            filters: 2,
        },
        width,
        set: min_sum_primes(width).unwrap(),
    }
}

#[test]
fn lenet_realizations_match_the_reference() {
    for width in [4, 5, 8, 13, 16, 32] {
        let layer = small_layer(width);
        let mut rng = rng(u64::from(width));
        let image = signed_values(&mut rng, layer.shape.pixels(), width);
        let filters = signed_values(&mut rng, layer.shape.weights(), width);
        for r in Realization::ALL {
            let ctx = Ctx::new(Plain::default());
            let got: Vec<i128> = lenet::run(&ctx, &layer, r, Some(&image), Some(&filters))
                .unwrap()
                .into_iter()
                .map(Option::unwrap)
                .collect();
            let modulus = if r.is_arithmetic() {
                layer.set.product()
            } else {
                1 << width
            };
            let want = lenet::reference(&layer.shape, r, modulus, &image, &filters);
            assert_eq!(got, want, "{} at {width} bits", r.name());
        }
    }
}

#[test]
fn lenet_without_wrapping_is_an_integer_relu() {
    // Inputs small enough that no sum wraps: every non-polynomial realization gives the
    // integer convolution's ReLU.
    let layer = small_layer(16);
    let mut rng = rng(7);
    let image: Vec<i64> = (0..layer.shape.pixels())
        .map(|_| rng.gen_range(-20..20))
        .collect();
    let filters: Vec<i64> = (0..layer.shape.weights())
        .map(|_| rng.gen_range(-20..20))
        .collect();
    let mut seen = Vec::new();
    for r in [
        Realization::PureBoolean,
        Realization::FullConvert,
        Realization::SmartConvert,
    ] {
        let ctx = Ctx::new(Plain::default());
        let got = lenet::run(&ctx, &layer, r, Some(&image), Some(&filters)).unwrap();
        seen.push(got);
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]));
    let integer = lenet::reference(&layer.shape, Realization::PureBoolean, 1 << 40, &image, &filters);
    assert!(integer.iter().any(|&v| v > 0) && integer.contains(&0));
    assert_eq!(seen[0], integer.into_iter().map(Some).collect::<Vec<_>>());
}

#[test]
fn lenet_cost_shape_follows_table_2() {
    let layer = small_layer(8);
    let (outputs, products) = (layer.shape.outputs() as u64, layer.shape.products() as u64);
    let count = |r| {
        let ctx = Ctx::new(Counter::default());
        lenet::run(&ctx, &layer, r, None, None).unwrap();
        ctx.into_inner().unwrap()
    };
    let smart = count(Realization::SmartConvert);
    let ops = smart.crt_ops();
    let total = |name: &str| -> u64 {
        ops.iter()
            .filter(|((op, _), _)| format!("{op:?}").starts_with(name))
            .map(|(_, n)| n)
            .sum()
    };
    assert_eq!(total("Mul"), products);
    assert_eq!(total("Decompose"), outputs);
    assert_eq!(total("Compose"), 0);
    let full = count(Realization::FullConvert);
    assert!(full.cost().table_bytes > smart.cost().table_bytes);
    let poly = count(Realization::PureArithmetic).crt_ops();
    let pows: u64 = poly
        .iter()
        .filter(|((op, _), _)| format!("{op:?}").starts_with("Pow"))
        .map(|(_, n)| n)
        .sum();
    assert_eq!(pows, 54 * outputs);
    // Pure Boolean: no arithmetic gadget at all.
    assert!(count(Realization::PureBoolean)
        .crt_ops()
        .iter()
        .all(|((op, _), _)| {
            let name = format!("{op:?}");
            name.starts_with("Input") || name.starts_with("Output") || name.starts_with("Constant")
        }));
}

#[test]
fn clipdot_realizations_match_the_reference() {
    for width in [4, 8, 16, 31, 64] {
        let n = 9;
        let problem = ClipDot {
            n,
            width,
            clip: ClipDot::safe_clip(n, width),
            set: min_sum_primes(width).unwrap(),
        };
        let mut rng = rng(100 + u64::from(width));
        let x = signed_values(&mut rng, n, width);
        let y = signed_values(&mut rng, n, width);
        let mut values = Vec::new();
        for r in clipdot::Realization::ALL {
            let ctx = Ctx::new(Plain::default());
            let inputs = clipdot::inputs(&ctx, &problem, r, Some(&x), Some(&y)).unwrap();
            let got = clipdot::compute(&ctx, &problem, r, &inputs).unwrap().unwrap();
            assert_eq!(
                got,
                clipdot::reference(&problem, r, &x, &y),
                "{} at {width}",
                r.name()
            );
            values.push(got);
        }
        // Safe clipping: nothing wraps, all three realizations agree.
        assert!(values.windows(2).all(|w| w[0] == w[1]), "{width}: {values:?}");
    }
}

#[test]
fn wrong_input_lengths_are_errors() {
    let layer = small_layer(8);
    let ctx = Ctx::new(Plain::default());
    assert!(lenet::run(
        &ctx,
        &layer,
        Realization::SmartConvert,
        Some(&[1, 2]),
        Some(&[0; 18])
    )
    .is_err());
    let bad = ConvLayer {
        shape: ConvShape {
            input: 2,
            kernel: 3,
            filters: 1,
        },
        ..small_layer(8)
    };
    assert!(lenet::run(
        &Ctx::new(Plain::default()),
        &bad,
        Realization::PureBoolean,
        None,
        None
    )
    .is_err());
}

/// The README's mixed-program example, verbatim.
fn relu_of_product<B: mixgc_program::ArithBackend>(
    ctx: &Ctx<B>,
    set: &mixgc_program::PrimeSet,
    x: Option<i128>,
    y: Option<i128>,
) -> Result<Option<i128>, mixgc_program::ProgramError> {
    use mixgc_program::PartyId;
    let p = &ctx.input_crt_signed(PartyId::GARBLER, set, x)?
        * &ctx.input_crt_signed(PartyId::EVALUATOR, set, y)?;
    let s = p.to_sint(); // BD
    let zero = ctx.sint(s.width(), 0);
    s.less_than(&zero)
        .select(&zero, &s)
        .reveal()
        .map(|v| v.map(|b| mixgc_program::to_i128(&b)))
}

#[test]
fn readme_example_is_a_relu_of_the_product() {
    let set = min_sum_primes(16).unwrap();
    for (x, y) in [(3, 4), (-3, 4), (0, -9), (-100, -100), (150, -200), (-181, -201)] {
        let got = relu_of_product(&Ctx::new(Plain::default()), &set, Some(x), Some(y)).unwrap();
        assert_eq!(got, Some((x * y).max(0)), "{x}·{y}");
    }
}
