//! CRT values on the plaintext reference and the cost counter (two-party runs are tested
//! in the session crate against these).
//!
//! Plain computes on the integer mod N; the references here are native u128/i128 where
//! the values fit and, for products and powers, residue by residue in u64 recombined by
//! Garner's method ([`PrimeSet::decode`]), the garbled circuit's own route.

use mixgc_moduli::cost::{protocol, Gadget, TableCost};
use mixgc_moduli::primes::{first_primes, min_sum_primes};
use mixgc_program::crt::residue_to_signed;
use mixgc_program::{
    gadget_cost, to_i128, to_u128, ArithBackend, Audience, Bit, Counter, Crt, CrtOp, Ctx, PartyId, Plain,
    PrimeSet, ProgramError,
};
use rand::{Rng, SeedableRng};

/// Prime sets to test: both choices at every width 3..=64, and some wider ones up to
/// products above 2^127.
fn sets() -> Vec<PrimeSet> {
    let widths = (3..=64).chain([72, 80, 96, 100, 112, 120, 127]);
    widths
        .flat_map(|w| [min_sum_primes(w).unwrap(), first_primes(w).unwrap()])
        .collect()
}

/// `f(x_i, y_i, p)` residue by residue, recombined.
fn by_residues(set: &PrimeSet, x: u128, y: u128, f: impl Fn(u64, u64, u64) -> u64) -> u128 {
    let (xs, ys) = (set.encode(x).unwrap(), set.encode(y).unwrap());
    let residues: Vec<u64> = set
        .primes()
        .iter()
        .zip(xs.iter().zip(&ys))
        .map(|(&p, (&a, &b))| f(a, b, p))
        .collect();
    set.decode(&residues).unwrap()
}

fn pow_mod_u64(a: u64, e: u64, p: u64) -> u64 {
    let (mut acc, mut base, mut e) = (1 % p, a % p, e);
    while e > 0 {
        if e & 1 == 1 {
            acc = acc * base % p;
        }
        base = base * base % p;
        e >>= 1;
    }
    acc
}

fn reveal<B: ArithBackend>(x: &Crt<B>) -> u128 {
    x.reveal().unwrap().unwrap()
}

/// A secret bit of the evaluator's on plaintext.
fn secret_bit(ctx: &Ctx<Plain>, value: bool) -> Bit<Plain> {
    let x = ctx
        .input_uint(PartyId::EVALUATOR, 1, Some(value as u128))
        .unwrap();
    x.equals(&ctx.uint(1, 1))
}

/// Random x < min(2^bits, N).
fn random_below(rng: &mut impl Rng, bits: u32, n: u128) -> u128 {
    rng.gen::<u128>().checked_shr(128 - bits).unwrap_or(0) % n
}

#[test]
fn ops_match_native_arithmetic_at_every_width() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    for set in sets() {
        let n = set.product();
        let bits = 128 - (n - 1).leading_zeros();
        let ctx = Ctx::new(Plain::default());
        for _ in 0..6 {
            let (a, b) = (random_below(&mut rng, bits, n), random_below(&mut rng, bits, n));
            let x = ctx.input_crt(PartyId::GARBLER, &set, Some(a)).unwrap();
            let y = ctx.input_crt(PartyId::EVALUATOR, &set, Some(b)).unwrap();
            let tag = format!("{:?}: {a}, {b}", set.primes());
            // Sums and differences: native in u128 (a, b < N < 2^128 − N would overflow, so
            // go through a − (N − b)).
            let sum = if a >= n - b { a - (n - b) } else { a + b };
            assert_eq!(reveal(&(&x + &y)), sum, "{tag}");
            assert_eq!(
                reveal(&(&x - &y)),
                if a >= b { a - b } else { n - (b - a) },
                "{tag}"
            );
            assert_eq!(reveal(&-&x), (n - a) % n, "{tag}");
            // Products: native where they fit, residue by residue always.
            let product = by_residues(&set, a, b, |x, y, p| x * y % p);
            if let Some(native) = a.checked_mul(b) {
                assert_eq!(native % n, product, "{tag}");
            }
            assert_eq!(reveal(&(&x * &y)), product, "{tag}");
            let c: u128 = rng.gen();
            let scaled = by_residues(&set, a, c % n, |x, c, p| x * c % p);
            assert_eq!(reveal(&x.scale(c)), scaled, "{tag} scale {c}");
            for e in [0, 1, 2, 3, 17, rng.gen()] {
                let power = by_residues(&set, a, 0, |x, _, p| pow_mod_u64(x, e, p));
                assert_eq!(reveal(&x.pow(e)), power, "{tag} pow {e}");
            }
            for s in [false, true] {
                let selected = secret_bit(&ctx, s).select_crt(&x, &y);
                assert_eq!(reveal(&selected), if s { a } else { b }, "{tag}");
            }
            // Conversions: BD gives bitlen(N − 1) bits; BC of a width-w value is it mod N.
            let bd = x.to_uint();
            assert_eq!(bd.width(), bits, "{tag}");
            assert_eq!(to_u128(&bd.reveal().unwrap().unwrap()), a, "{tag}");
            let u = ctx.input_uint(PartyId::GARBLER, bits, Some(b)).unwrap();
            assert_eq!(reveal(&Crt::from_uint(&u, &set)), b, "{tag}");
            let wide: u128 = rng.gen();
            let u = ctx.input_uint(PartyId::GARBLER, 128, Some(wide)).unwrap();
            assert_eq!(reveal(&Crt::from_uint(&u, &set)), wide % n, "{tag}");
            // Signed: the offset convention, as a revealed value and through BD.
            let signed = residue_to_signed(n, a);
            assert_eq!(x.reveal_signed().unwrap(), Some(signed), "{tag}");
            assert_eq!(to_i128(&x.to_sint().reveal().unwrap().unwrap()), signed, "{tag}");
        }
    }
}

#[test]
fn compositions_of_more_than_128_bits_reduce_mod_n() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(2);
    for set in [min_sum_primes(20).unwrap(), first_primes(120).unwrap()] {
        let ctx = Ctx::new(Plain::default());
        for shift in [0, 1, 100, 172] {
            let a: u128 = rng.gen();
            // a·2^shift < 2^300: no wrap at the value's width.
            let u = &ctx.input_uint(PartyId::GARBLER, 300, Some(a)).unwrap() << shift;
            let want = by_residues(&set, a % set.product(), 0, |x, _, p| {
                x * pow_mod_u64(2, u64::from(shift), p) % p
            });
            assert_eq!(
                reveal(&Crt::from_uint(&u, &set)),
                want,
                "{:?} << {shift}",
                set.primes()
            );
        }
    }
}

#[test]
fn signed_edge_values_round_trip() {
    for set in sets() {
        let n = set.product();
        let low = -((n / 2) as i128);
        let high = (n - n / 2) as i128 - 1;
        let ctx = Ctx::new(Plain::default());
        for v in [low, high, -1, 0, 1] {
            let x = ctx.input_crt_signed(PartyId::EVALUATOR, &set, Some(v)).unwrap();
            let tag = format!("{:?}: {v}", set.primes());
            assert_eq!(x.reveal_signed().unwrap(), Some(v), "{tag}");
            assert_eq!(to_i128(&x.to_sint().reveal().unwrap().unwrap()), v, "{tag}");
            let residue = if v < 0 { n - v.unsigned_abs() } else { v as u128 };
            assert_eq!(reveal(&x), residue, "{tag}");
        }
        // −x wraps within the signed range except at the bottom, where −low = high + 1.
        let x = ctx.input_crt_signed(PartyId::GARBLER, &set, Some(high)).unwrap();
        assert_eq!((-&x).reveal_signed().unwrap(), Some(-high));
    }
}

#[test]
fn bad_inputs_are_errors() {
    let set = min_sum_primes(16).unwrap();
    let n = set.product();
    let ctx = Ctx::new(Plain::default());
    ctx.input_uint(PartyId::GARBLER, 8, Some(1)).unwrap();
    assert!(matches!(
        ctx.input_crt(PartyId::GARBLER, &set, Some(n)),
        Err(ProgramError::OutOfRange(msg)) if msg.contains("input #1")
    ));
    assert!(matches!(
        ctx.input_crt(PartyId::EVALUATOR, &set, Some(u128::MAX)),
        Err(ProgramError::OutOfRange(_))
    ));
    assert_eq!(
        ctx.input_crt(PartyId::EVALUATOR, &set, None).err(),
        Some(ProgramError::MissingInput {
            index: 3,
            owner: PartyId::EVALUATOR
        })
    );
    let high = (n - n / 2) as i128;
    for v in [high, -high - 1, i128::MAX, i128::MIN] {
        assert!(
            matches!(
                ctx.input_crt_signed(PartyId::GARBLER, &set, Some(v)),
                Err(ProgramError::OutOfRange(_))
            ),
            "{v}"
        );
    }
    assert_eq!(
        ctx.input_crt_signed(PartyId::GARBLER, &set, None).err(),
        Some(ProgramError::MissingInput {
            index: 4,
            owner: PartyId::GARBLER
        })
    );
    assert_eq!(
        ctx.input_crt(PartyId::GARBLER, &set, Some(n - 1))
            .unwrap()
            .reveal(),
        Ok(Some(n - 1))
    );
}

/// A small mixed program over 16-bit minimum-sum primes: a product, a power, a
/// multiplexer, a bit composition and a decomposition, with inputs of both parties.
fn mixed_program(ctx: &Ctx<Counter>, set: &PrimeSet) {
    let x = ctx.input_crt(PartyId::GARBLER, set, None).unwrap();
    let y = ctx.input_crt(PartyId::EVALUATOR, set, None).unwrap();
    let s = ctx.input_uint(PartyId::EVALUATOR, 1, None).unwrap();
    let u = ctx.input_uint(PartyId::GARBLER, 16, None).unwrap();
    let p = (&x * &y).pow(3);
    let m = s.equals(&ctx.uint(1, 1)).select_crt(&p, &x);
    let sum = &(&m + &Crt::from_uint(&u, set)) - &ctx.crt_constant(set, 5);
    assert_eq!(sum.to_uint().reveal().unwrap(), None);
    assert_eq!(m.reveal_to(Audience::only(PartyId::EVALUATOR)).unwrap(), None);
}

#[test]
fn counter_pins_a_mixed_program() {
    let set = min_sum_primes(16).unwrap();
    assert_eq!(set.primes(), [2, 3, 5, 11, 13, 17]);
    let ctx = Ctx::new(Counter::default());
    mixed_program(&ctx, &set);
    let counter = ctx.into_inner().unwrap();
    let cost = counter.cost();

    // Rows as ABLE counts them, Σ(p − 1) = 45: product 2·45, power 45, mux = 1-bit BC (one
    // row per odd prime) + product, BC of 16 bits 16·5, BD 841 (the arith crate's pin).
    let arith_rows = 90 + 45 + (5 + 90) + 80 + 841;
    assert_eq!(cost.table_rows, 2 * cost.ands + arith_rows);
    assert_eq!((cost.ands, cost.table_rows, cost.table_bytes), (0, 1151, 18_885));
    // Garbler: 16 Boolean labels and one CRT bundle; evaluator: one OT per Boolean bit and
    // per residue bit (1 + 2 + 3 + 4 + 4 + 5), and the lifting rows.
    assert_eq!(
        (
            cost.garbler_input_bits,
            cost.evaluator_input_bits,
            cost.output_bits
        ),
        (16, 1, 17)
    );
    assert_eq!(
        cost.garbler_input_bytes,
        16 * 16 + protocol::garbler_input_bytes(&set)
    );
    assert_eq!(cost.ots, 1 + 19);
    let (ots, lift) = protocol::evaluator_input_cost(&set);
    assert_eq!(cost.ot_bytes, (1 + ots) * protocol::OT_BYTES + lift);
    // 17 bits to both (3 bytes each way), 6 residues to the evaluator; each output frame
    // ends with the 8-byte structure digest.
    let digest = protocol::STRUCTURE_DIGEST_BYTES;
    assert_eq!(cost.output_bytes, 2 * (3 + digest) + (6 * 2 + digest));
    assert_eq!(
        (
            cost.garbler_input_bytes,
            cost.ots,
            cost.ot_bytes,
            cost.output_bytes
        ),
        (359, 20, 635, 42)
    );
    assert_eq!(cost.total_bytes(), 18_885 + 359 + 635 + 42);

    // The tally, and its gadgets' tables, give the arithmetic part of the cost.
    let primes = set.primes().to_vec();
    let tally = counter.crt_ops();
    let want = [
        (CrtOp::Input(PartyId::GARBLER), 1),
        (CrtOp::Input(PartyId::EVALUATOR), 1),
        (CrtOp::Constant, 1),
        (CrtOp::Add, 1),
        (CrtOp::Sub, 1),
        (CrtOp::Mul, 1),
        (CrtOp::Pow(3), 1),
        (CrtOp::Mux, 1),
        (CrtOp::Compose { bits: 16 }, 1),
        (CrtOp::Decompose, 1),
        (CrtOp::Output(Audience::only(PartyId::EVALUATOR)), 1),
    ];
    assert_eq!(
        tally,
        want.into_iter()
            .map(|(op, n)| ((op, primes.clone()), n))
            .collect()
    );
    let tables = tally
        .iter()
        .filter_map(|((op, _), &n)| Some(gadget_cost(op.gadget()?, &set).unwrap().times(n)))
        .fold(TableCost::default(), |a, b| a + b);
    assert_eq!(tables.rows, cost.table_rows - 2 * cost.ands);
    assert_eq!(tables.bytes as u64, cost.table_bytes - 32 * cost.ands);
    assert_eq!(
        gadget_cost(Gadget::Mux, &set).unwrap(),
        gadget_cost(Gadget::Compose { bits: 1 }, &set).unwrap() + gadget_cost(Gadget::Mul, &set).unwrap()
    );
}

#[test]
fn counter_costs_boolean_programs_as_before() {
    let ctx = Ctx::new(Counter::default());
    let x = ctx.input_uint(PartyId::GARBLER, 64, None).unwrap();
    let y = ctx.input_uint(PartyId::EVALUATOR, 64, None).unwrap();
    assert_eq!(x.greater_than(&y).reveal().unwrap(), None);
    assert_eq!(
        (&x * &y).reveal_to(Audience::only(PartyId::GARBLER)).unwrap(),
        None
    );
    drop((x, y));
    let counter = ctx.into_inner().unwrap();
    let cost = counter.cost();
    assert!(counter.crt_ops().is_empty());
    assert_eq!(cost.table_bytes, 32 * cost.ands);
    assert_eq!(cost.table_rows, 2 * cost.ands);
    assert_eq!(cost.garbler_input_bytes, 64 * 16);
    assert_eq!((cost.ots, cost.ot_bytes), (64, 64 * protocol::OT_BYTES));
    // One bit both ways, then 64 bits (8 bytes) of colours to the garbler; each output frame
    // ends with the 8-byte structure digest.
    let digest = protocol::STRUCTURE_DIGEST_BYTES;
    assert_eq!(
        (cost.output_bits, cost.output_bytes),
        (65, 2 * (1 + digest) + 8 + digest)
    );
    // A library op's cost fields are those `mixgc ops` prints.
    let aes = mixgc_program::library::cost("aes128", None, None).unwrap();
    assert_eq!(
        (aes.ands, aes.table_bytes, aes.table_rows),
        (6400, 6400 * 32, 12_800)
    );
}

#[test]
fn counter_reports_gadgets_it_cannot_cost() {
    // BD of a product near 2^128: the CRT sum needs more than 128 bits.
    let set = first_primes(127).unwrap();
    let ctx = Ctx::new(Counter::default());
    let x = ctx.input_crt(PartyId::GARBLER, &set, None).unwrap();
    let bits = x.to_uint();
    assert_eq!(bits.width(), 128);
    assert!(matches!(bits.reveal(), Err(ProgramError::Arith(msg)) if msg.contains("Decompose")));
    assert!(matches!(x.reveal(), Err(ProgramError::Arith(_))));
    assert!(ctx.input_crt(PartyId::GARBLER, &set, None).is_err());
    // A composition of no bits.
    let ctx = Ctx::new(Counter::default());
    let x = Crt::from_uint(&ctx.uint(0, 0), &set);
    assert!(matches!(x.reveal(), Err(ProgramError::Arith(msg)) if msg.contains("Compose")));
}
