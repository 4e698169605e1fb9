//! CRT values (ABLE) in two-party program runs: every operation against native integer
//! arithmetic, the bytes on the wire against `mixgc_arith::cost::protocol`, the session's
//! arithmetic key and gate index, and failures on both sides.

use std::thread;
use std::time::Duration;

use mixgc_arith::cost::protocol;
use mixgc_arith::primes::{first_primes, min_sum_primes};
use mixgc_arith::{table_bytes, PrimeSet};
use mixgc_net::{memory_pair, Channel, Tag, TcpChannel};
use mixgc_program::crt::{gadgets, residue_to_signed};
use mixgc_program::{to_i128, to_u128, ArithBackend, Audience, Counter, Crt, Ctx, PartyId, ProgramError};
use rand::{Rng, SeedableRng};

use super::common;

use common::{bytes_per_tag, evaluate, garble, run, Tap};

/// `value` if `me` owns the input.
fn mine<T>(me: PartyId, owner: PartyId, value: T) -> Option<T> {
    (me == owner).then_some(value)
}

/// a·b mod n without overflow (n < 2^127).
fn mul_mod(a: u128, b: u128, n: u128) -> u128 {
    let (mut a, mut b, mut r) = (a % n, b, 0u128);
    while b > 0 {
        if b & 1 == 1 {
            r = (r + a) % n;
        }
        a = (a + a) % n;
        b >>= 1;
    }
    r
}

fn pow_mod(x: u128, e: u64, n: u128) -> u128 {
    (0..e).fold(1 % n, |acc, _| mul_mod(acc, x, n))
}

/// The inputs of one run of [`every_op`].
#[derive(Clone)]
struct Case {
    set: PrimeSet,
    width: u32,
    x: u128,
    y: u128,
    /// A `width`-bit Boolean value for BC.
    u: u128,
    select: bool,
    scale: u128,
    exponent: u64,
    constant: u128,
    /// Owners of x, y, u and the select bit.
    owners: [PartyId; 4],
}

const OPS: usize = 13;

/// Each output's audience: varies with the op and the case.
fn audience(op: usize, case: &Case) -> Audience {
    [
        Audience::BOTH,
        Audience::only(PartyId::GARBLER),
        Audience::only(PartyId::EVALUATOR),
    ][(op + case.width as usize) % 3]
}

/// Every CRT operation once, each result revealed to its audience (as a signed number).
fn every_op<B: ArithBackend>(ctx: &Ctx<B>, c: &Case, me: PartyId) -> Result<Vec<Option<i128>>, ProgramError> {
    let set = &c.set;
    let [ox, oy, ou, os] = c.owners;
    let x = ctx.input_crt(ox, set, mine(me, ox, c.x))?;
    let y = ctx.input_crt(oy, set, mine(me, oy, c.y))?;
    let u = ctx.input_uint(ou, c.width, mine(me, ou, c.u))?;
    let s = ctx.input_uint(os, 1, mine(me, os, c.select as u128))?;
    let s = s.equals(&ctx.uint(1, 1));
    let k = ctx.crt_constant(set, c.constant);
    let crt = |v: Crt<B>, op: usize| -> Result<Option<i128>, ProgramError> {
        Ok(v.reveal_to(audience(op, c))?.map(|v| v as i128))
    };
    let bits = |bits: Option<Vec<bool>>, signed: bool| {
        bits.map(|b| if signed { to_i128(&b) } else { to_u128(&b) as i128 })
    };
    let diff = &x - &y;
    Ok(vec![
        crt(&x + &y, 0)?,
        crt(diff.clone(), 1)?,
        crt(-&x, 2)?,
        crt(x.scale(c.scale), 3)?,
        crt(&x * &y, 4)?,
        crt(x.pow(c.exponent), 5)?,
        crt(s.select_crt(&x, &y), 6)?,
        crt(Crt::from_uint(&u, set), 7)?,
        bits(x.to_uint().reveal_to(audience(8, c))?, false),
        bits(diff.to_sint().reveal_to(audience(9, c))?, true),
        diff.reveal_to(audience(10, c))?
            .map(|r| residue_to_signed(set.product(), r)),
        crt(&(&x + &k) * &k, 11)?,
        diff.reveal_signed()?,
    ])
}

/// The answers of [`every_op`] in native arithmetic.
fn expected(c: &Case) -> Vec<i128> {
    let n = c.set.product();
    let (x, y) = (c.x, c.y);
    let diff = (x + n - y) % n;
    let k = c.constant % n;
    [
        (x + y) % n,
        diff,
        (n - x) % n,
        mul_mod(x, c.scale, n),
        mul_mod(x, y, n),
        pow_mod(x, c.exponent, n),
        if c.select { x } else { y },
        c.u % n,
        x,
    ]
    .into_iter()
    .map(|v| v as i128)
    .chain([
        residue_to_signed(n, diff),
        residue_to_signed(n, diff),
        mul_mod((x + k) % n, k, n) as i128,
        residue_to_signed(n, diff),
    ])
    .collect()
}

fn random_case(set: PrimeSet, width: u32, rng: &mut impl Rng) -> Case {
    let n = set.product();
    let owner = |rng: &mut dyn rand::RngCore| {
        if rng.gen() {
            PartyId::GARBLER
        } else {
            PartyId::EVALUATOR
        }
    };
    let (x, y) = match rng.gen_range(0..4) {
        0 => (n - 1, 0),
        1 => (0, n - 1),
        _ => (rng.gen_range(0..n), rng.gen_range(0..n)),
    };
    Case {
        x,
        y,
        u: rng.gen_range(0..1u128 << width),
        select: rng.gen(),
        scale: rng.gen(),
        exponent: rng.gen_range(0..6),
        constant: rng.gen(),
        owners: [owner(rng), owner(rng), owner(rng), owner(rng)],
        set,
        width,
    }
}

/// Checks what each party learned against the native answers and the audiences.
fn check(c: &Case, g: &[Option<i128>], e: &[Option<i128>]) {
    let want = expected(c);
    for op in 0..OPS {
        let to = if op == OPS - 1 {
            Audience::BOTH
        } else {
            audience(op, c)
        };
        let (g_learns, e_learns) = (to.contains(PartyId::GARBLER), to.contains(PartyId::EVALUATOR));
        let what = format!("op {op} over {:?} (x = {}, y = {})", c.set.primes(), c.x, c.y);
        assert_eq!(g[op], g_learns.then_some(want[op]), "garbler: {what}");
        assert_eq!(e[op], e_learns.then_some(want[op]), "evaluator: {what}");
    }
}

/// Runs every case in one session, one program run per case.
fn run_cases(cases: &[Case]) {
    let (g, e) = run(
        memory_pair(),
        |s| {
            let f = |c: &Case| garble(s, "ops", |ctx| every_op(ctx, c, PartyId::GARBLER));
            cases.iter().map(f).collect::<Result<Vec<_>, _>>()
        },
        |s| {
            let f = |c: &Case| evaluate(s, "ops", |ctx| every_op(ctx, c, PartyId::EVALUATOR));
            cases.iter().map(f).collect::<Result<Vec<_>, _>>()
        },
    );
    let (g, e) = (g.unwrap(), e.unwrap());
    for ((c, g), e) in cases.iter().zip(&g).zip(&e) {
        check(c, g, e);
    }
}

#[test]
fn every_op_at_every_width_matches_native_arithmetic() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(11);
    let mut cases: Vec<Case> = (3..=64)
        .map(|w| random_case(min_sum_primes(w).unwrap(), w, &mut rng))
        .collect();
    for w in [3, 5, 12, 17, 33, 48, 64] {
        cases.push(random_case(first_primes(w).unwrap(), w, &mut rng));
    }
    // Sets without the prime 2, and the smallest sets.
    for primes in [&[3, 5, 7][..], &[3], &[2], &[2, 3], &[251, 257]] {
        let set = PrimeSet::new(primes).unwrap();
        let width = 127 - (set.product() - 1).leading_zeros(); // 2^width ≤ N − 1
        cases.push(random_case(set, width.max(1), &mut rng));
    }
    run_cases(&cases);
}

/// The signed range's edges, from both parties, through reveal_signed, to_sint and wrapping
/// arithmetic.
#[test]
fn signed_edges_match_native_arithmetic() {
    fn program<B: ArithBackend>(
        ctx: &Ctx<B>,
        set: &PrimeSet,
        a: i128,
        b: i128,
        me: PartyId,
    ) -> Result<[Option<i128>; 5], ProgramError> {
        let x = ctx.input_crt_signed(PartyId::GARBLER, set, mine(me, PartyId::GARBLER, a))?;
        let y = ctx.input_crt_signed(PartyId::EVALUATOR, set, mine(me, PartyId::EVALUATOR, b))?;
        Ok([
            x.reveal_signed()?,
            y.reveal_signed()?,
            x.to_sint().reveal()?.map(|b| to_i128(&b)),
            (&x + &y).reveal_signed()?,
            (&x * &y).to_sint().reveal()?.map(|b| to_i128(&b)),
        ])
    }
    let mut cases = Vec::new();
    for set in [
        min_sum_primes(8).unwrap(),
        min_sum_primes(31).unwrap(),
        first_primes(64).unwrap(),
    ] {
        let n = set.product() as i128;
        let (low, high) = (-(n / 2), n - n / 2 - 1);
        for (a, b) in [
            (low, high),
            (high, low),
            (-1, 1),
            (0, low),
            (high, -1),
            (low, low),
        ] {
            cases.push((set.clone(), a, b));
        }
    }
    let (g, e) = run(
        memory_pair(),
        |s| {
            let f = |(set, a, b): &(PrimeSet, i128, i128)| {
                garble(s, "signed", |ctx| program(ctx, set, *a, *b, PartyId::GARBLER))
            };
            cases.iter().map(f).collect::<Result<Vec<_>, _>>()
        },
        |s| {
            let f = |(set, a, b): &(PrimeSet, i128, i128)| {
                evaluate(s, "signed", |ctx| program(ctx, set, *a, *b, PartyId::EVALUATOR))
            };
            cases.iter().map(f).collect::<Result<Vec<_>, _>>()
        },
    );
    for (((set, a, b), g), e) in cases.iter().zip(g.unwrap()).zip(e.unwrap()) {
        let n = set.product();
        let wrap = |v: i128| residue_to_signed(n, v.rem_euclid(n as i128) as u128);
        let product = mul_mod(
            a.rem_euclid(n as i128) as u128,
            b.rem_euclid(n as i128) as u128,
            n,
        );
        let want = [*a, *b, *a, wrap(a + b), residue_to_signed(n, product)].map(Some);
        assert_eq!(g, want, "garbler {a} {b} over {:?}", set.primes());
        assert_eq!(e, want, "evaluator {a} {b} over {:?}", set.primes());
    }
}

/// What each party learns from [`mixed`].
type Mixed = (Option<u128>, Option<u128>, Option<bool>);

/// A mixed program: BD, a Boolean comparison, a CRT mux on its result, a product, and BD
/// again. Returns (min(x, y) as CRT, min² as bits, x < y).
fn mixed<B: ArithBackend>(
    ctx: &Ctx<B>,
    set: &PrimeSet,
    x: Option<u128>,
    y: Option<u128>,
) -> Result<Mixed, ProgramError> {
    let a = ctx.input_crt(PartyId::GARBLER, set, x)?;
    let b = ctx.input_crt(PartyId::EVALUATOR, set, y)?;
    let less = a.to_uint().less_than(&b.to_uint());
    let min = less.select_crt(&a, &b);
    let square = (&min * &min).to_uint();
    Ok((
        min.reveal()?,
        square.reveal()?.map(|v| to_u128(&v)),
        less.reveal()?,
    ))
}

fn check_mixed(set: &PrimeSet, x: u128, y: u128, got: Mixed) {
    let min = x.min(y);
    assert_eq!(
        got,
        (Some(min), Some(mul_mod(min, min, set.product())), Some(x < y))
    );
}

#[test]
fn a_mixed_program_crosses_between_boolean_and_crt() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let sets = [min_sum_primes(16).unwrap(), min_sum_primes(40).unwrap()];
    let cases: Vec<(PrimeSet, u128, u128)> = (0..6)
        .map(|i| {
            let set = sets[i % 2].clone();
            let n = set.product();
            (set, rng.gen_range(0..n), rng.gen_range(0..n))
        })
        .collect();
    let (g, e) = run(
        memory_pair(),
        |s| {
            let f = |(set, x, _): &(PrimeSet, u128, u128)| {
                garble(s, "mixed", |ctx| mixed(ctx, set, Some(*x), None))
            };
            cases.iter().map(f).collect::<Result<Vec<_>, _>>()
        },
        |s| {
            let f = |(set, _, y): &(PrimeSet, u128, u128)| {
                evaluate(s, "mixed", |ctx| mixed(ctx, set, None, Some(*y)))
            };
            cases.iter().map(f).collect::<Result<Vec<_>, _>>()
        },
    );
    for (((set, x, y), g), e) in cases.iter().zip(g.unwrap()).zip(e.unwrap()) {
        check_mixed(set, *x, *y, g);
        check_mixed(set, *x, *y, e);
    }
}

#[test]
fn crt_programs_run_over_tcp_loopback() {
    let timeout = Duration::from_secs(10);
    let (listener, addr) = TcpChannel::bind("127.0.0.1:0").unwrap();
    let ech = thread::spawn(move || TcpChannel::connect(&addr.to_string(), timeout).unwrap());
    let gch = TcpChannel::accept(&listener, timeout).unwrap();
    let ech = ech.join().unwrap();
    let set = min_sum_primes(32).unwrap();
    let (x, y) = (3_000_000_017u128, 1_234_567u128);
    let (g, e) = run(
        (gch, ech),
        |s| garble(s, "tcp", |ctx| mixed(ctx, &set, Some(x), None)),
        |s| evaluate(s, "tcp", |ctx| mixed(ctx, &set, None, Some(y))),
    );
    check_mixed(&set, x, y, g.unwrap());
    check_mixed(&set, x, y, e.unwrap());
}

/// Two program runs in one session continue one arithmetic gate index under one key (no
/// tweak repeats); another session draws another key; Boolean-only runs send no key.
#[test]
fn one_arithmetic_key_and_gate_index_per_session() {
    fn product<B: ArithBackend>(
        ctx: &Ctx<B>,
        set: &PrimeSet,
        x: Option<u128>,
        y: Option<u128>,
    ) -> Result<Option<u128>, ProgramError> {
        let a = ctx.input_crt(PartyId::GARBLER, set, x)?;
        let b = ctx.input_crt(PartyId::EVALUATOR, set, y)?;
        (&a * &b).reveal()
    }
    let set = min_sum_primes(20).unwrap();
    let session = || {
        run(
            memory_pair(),
            |s| {
                let boolean = garble(s, "bool", |ctx| {
                    ctx.input_uint(PartyId::GARBLER, 4, Some(9))?.reveal()
                })?;
                assert_eq!(boolean, Some(vec![true, false, false, true]));
                assert_eq!((s.arith_session_key(), s.arith_gates()), (None, 0));
                let mut seen = Vec::new();
                for x in [6, 7] {
                    let z = garble(s, "mul", |ctx| product(ctx, &set, Some(x), None))?;
                    seen.push((z, s.arith_session_key().unwrap(), s.arith_gates()));
                }
                Ok(seen)
            },
            |s| {
                evaluate(s, "bool", |ctx| {
                    ctx.input_uint(PartyId::GARBLER, 4, None)?.reveal()
                })?;
                let mut gates = Vec::new();
                for _ in 0..2 {
                    evaluate(s, "mul", |ctx| product(ctx, &set, None, Some(100)))?;
                    gates.push(s.arith_gates());
                }
                Ok(gates)
            },
        )
    };
    let (g, e) = session();
    let (g, e) = (g.unwrap(), e.unwrap());
    assert_eq!((g[0].0, g[1].0), (Some(600), Some(700)));
    assert_eq!(g[0].1, g[1].1, "one key per session");
    // The evaluator input's lifts (one gate per bit of each odd residue) and the product
    // (one gate per odd prime; the mod-2 residue's is an AND of the session's half-gates),
    // twice, on one running index.
    let odd = || set.primes().iter().filter(|&&p| p != 2);
    let per_run = odd().map(|&p| u64::from(protocol::residue_bits(p))).sum::<u64>() + odd().count() as u64;
    assert_eq!((g[0].2, g[1].2), (per_run, 2 * per_run));
    assert_eq!(e, [per_run, 2 * per_run]);
    let (other, _) = session();
    assert_ne!(other.unwrap()[0].1, g[0].1, "sessions draw their own keys");
}

/// The bytes of each frame tag equal the protocol's input and output costs, the arithmetic
/// key, and the gadgets' tables as the arithmetic garbler emits them; OT traffic is 16 bytes per bit of
/// each evaluator-owned residue.
#[test]
fn bytes_on_the_wire_follow_the_protocol_costs() {
    fn program<B: ArithBackend>(
        ctx: &Ctx<B>,
        set: &PrimeSet,
        x: Option<u128>,
        y: Option<u128>,
    ) -> Result<(), ProgramError> {
        let a = ctx.input_crt(PartyId::GARBLER, set, x)?;
        let b = ctx.input_crt(PartyId::EVALUATOR, set, y)?;
        (&a * &b).reveal_to(Audience::BOTH)?;
        a.to_uint().reveal_to(Audience::only(PartyId::EVALUATOR))?;
        Ok(())
    }
    for set in [
        min_sum_primes(16).unwrap(),
        PrimeSet::new(&[2, 3, 5, 11]).unwrap(),
        first_primes(40).unwrap(),
    ] {
        // The gadgets' tables as the counter counts their primitives: the ANDs (a product's
        // mod-2 residue, the reduction mod N of BD) and the rest (and the lifts of the
        // evaluator's input), all on the one table stream.
        let mut counter = Counter::default();
        let a = gadgets::constant(&mut counter, &set, 0);
        gadgets::mul(&mut counter, &set, &a, &a);
        gadgets::to_bits(&mut counter, &set, &a);
        let (ots, _) = protocol::evaluator_input_cost(&set);
        let cost = counter.cost();
        let and_bytes = 32 * cost.ands as usize;
        let arith_bytes = table_bytes::residues_from_bits(&set) + cost.table_bytes as usize - and_bytes;

        let (gch, ech) = memory_pair();
        let (g, e) = run(
            (Tap::new(gch, usize::MAX), Tap::new(ech, usize::MAX)),
            |s| {
                let start = s.channel().writes.len();
                garble(s, "cost", |ctx| program(ctx, &set, Some(5), None))?;
                Ok(bytes_per_tag(&s.channel().writes[start..]))
            },
            |s| {
                let start = s.channel().writes.len();
                evaluate(s, "cost", |ctx| program(ctx, &set, None, Some(7)))?;
                Ok(bytes_per_tag(&s.channel().writes[start..]))
            },
        );
        let (g, e) = (g.unwrap(), e.unwrap());
        let n_bits = (128 - (set.product() - 1).leading_zeros()) as usize;
        let tag = |t: Tag| t as u8;
        let want_g = [
            (0, 16 * ots as usize),
            (
                tag(Tag::GarblerLabels),
                32 + protocol::garbler_input_bytes(&set) as usize,
            ),
            (
                tag(Tag::OutputDecoding),
                protocol::output_bytes(&set, false) as usize
                    + n_bits.div_ceil(8)
                    + protocol::STRUCTURE_DIGEST_BYTES as usize,
            ),
            (tag(Tag::ProgramHeader), 33),
            (tag(Tag::ArithTables), 32),
            (tag(Tag::Tables), and_bytes + arith_bytes),
        ];
        assert_eq!(g, want_g.into_iter().collect(), "garbler over {:?}", set.primes());
        assert_eq!(
            e[&tag(Tag::OutputColours)],
            protocol::output_bytes(&set, false) as usize
        );
        assert_eq!(e[&tag(Tag::ProgramHeader)], 33);
        assert_eq!(
            e.len(),
            3,
            "the evaluator sends OT messages, its header and colours: {e:?}"
        );
    }
}

/// Arithmetic gadgets and Boolean gates share one table stream: where they alternate, their
/// rows go out together in `Tables` frames cut by size (the arithmetic key is the only
/// other frame), and the evaluator reads them in program order.
#[test]
fn arithmetic_and_boolean_rows_share_one_table_stream() {
    fn program<B: ArithBackend>(
        ctx: &Ctx<B>,
        set: &PrimeSet,
        x: Option<u128>,
    ) -> Result<Option<u128>, ProgramError> {
        let a = ctx.input_crt(PartyId::GARBLER, set, x)?;
        let mut v = a.clone();
        for _ in 0..3 {
            let small = v.to_uint().less_than(&ctx.uint(8, 100));
            v = small.select_crt(&(&v * &a), &v);
        }
        v.reveal()
    }
    let set = min_sum_primes(24).unwrap();
    let (gch, ech) = memory_pair();
    let (g, e) = run(
        (Tap::new(gch, usize::MAX), Tap::new(ech, usize::MAX)),
        |s| {
            let z = garble(s, "alternate", |ctx| program(ctx, &set, Some(3)))?;
            Ok((z, s.channel().headers.iter().map(|h| h[0]).collect::<Vec<u8>>()))
        },
        |s| evaluate(s, "alternate", |ctx| program(ctx, &set, None)),
    );
    let (z, tags) = g.unwrap();
    assert_eq!((z, e.unwrap()), (Some(81), Some(81)));
    let (arith, boolean) = (Tag::ArithTables as u8, Tag::Tables as u8);
    let kinds: Vec<u8> = tags.into_iter().filter(|&t| t == arith || t == boolean).collect();
    // The key, then (BD | compare | mux) × 3 on the stream, frames cut by size alone.
    assert_eq!(kinds[0], arith, "{kinds:?}");
    assert!(kinds[1..].iter().all(|&k| k == boolean), "{kinds:?}");
}

/// A gadget larger than a frame (a product mod 65,521: 2.4 MB of rows) spans frames cut
/// at the session's schedule (64 KiB doubling to the 1 MiB target); the evaluator reads
/// exactly its bytes across them.
#[test]
fn a_large_gadget_spans_frames_of_the_schedule() {
    fn program<B: ArithBackend>(
        ctx: &Ctx<B>,
        x: Option<u128>,
        y: Option<u128>,
    ) -> Result<Option<u128>, ProgramError> {
        let set = PrimeSet::new(&[65_521]).unwrap();
        let a = ctx.input_crt(PartyId::GARBLER, &set, x)?;
        let b = ctx.input_crt(PartyId::EVALUATOR, &set, y)?;
        (&a * &b).reveal()
    }
    let (gch, ech) = memory_pair();
    let (g, e) = run(
        (Tap::new(gch, usize::MAX), Tap::new(ech, usize::MAX)),
        |s| {
            let z = garble(s, "large", |ctx| program(ctx, Some(65_000), None))?;
            let frames: Vec<usize> = s
                .channel()
                .headers
                .iter()
                .filter(|h| h[0] == Tag::Tables as u8)
                .map(|h| u32::from_le_bytes(h[1..].try_into().unwrap()) as usize)
                .collect();
            Ok((z, frames))
        },
        |s| evaluate(s, "large", |ctx| program(ctx, None, Some(60_000))),
    );
    let (z, frames) = g.unwrap();
    let want = 65_000 * 60_000 % 65_521;
    assert_eq!((z, e.unwrap()), (Some(want), Some(want)));
    let set = PrimeSet::new(&[65_521]).unwrap();
    let m = set.moduli()[0];
    let rows = table_bytes::residues_from_bits(&set) + table_bytes::product(m).bytes;
    assert!(rows > 2 << 20, "{rows}");
    let k = 1 << 10;
    let full = [64 * k, 128 * k, 256 * k, 512 * k, 1024 * k];
    let mut want_frames = full.to_vec();
    want_frames.push(rows - full.iter().sum::<usize>());
    assert_eq!(frames, want_frames);
}

#[test]
fn a_decomposition_beyond_its_width_is_an_error_on_both_sides() {
    let set = first_primes(127).unwrap();
    fn program<B: ArithBackend>(
        ctx: &Ctx<B>,
        set: &PrimeSet,
        x: Option<u128>,
    ) -> Result<Option<Vec<bool>>, ProgramError> {
        let a = ctx.input_crt(PartyId::GARBLER, set, x)?;
        a.to_uint().reveal()
    }
    let (g, e) = run(
        memory_pair(),
        |s| garble(s, "wide", |ctx| program(ctx, &set, Some(1))),
        |s| evaluate(s, "wide", |ctx| program(ctx, &set, None)),
    );
    for r in [g, e] {
        let err = r.unwrap_err();
        assert!(err.contains("more than 128 bits"), "{err}");
    }
}

#[test]
fn inputs_not_below_n_are_refused_by_their_owner() {
    let set = min_sum_primes(10).unwrap();
    fn program<B: ArithBackend>(
        ctx: &Ctx<B>,
        set: &PrimeSet,
        owner: PartyId,
        me: PartyId,
    ) -> Result<Option<u128>, ProgramError> {
        let _first = ctx.input_crt(PartyId::GARBLER, set, mine(me, PartyId::GARBLER, 1))?;
        ctx.input_crt(owner, set, mine(me, owner, set.product()))?
            .reveal()
    }
    for owner in [PartyId::GARBLER, PartyId::EVALUATOR] {
        let (g, e) = run(
            memory_pair(),
            |s| garble(s, "big", |ctx| program(ctx, &set, owner, PartyId::GARBLER)),
            |s| evaluate(s, "big", |ctx| program(ctx, &set, owner, PartyId::EVALUATOR)),
        );
        let (own, other) = if owner == PartyId::GARBLER {
            (g.unwrap_err(), e.unwrap_err())
        } else {
            (e.unwrap_err(), g.unwrap_err())
        };
        assert!(own.contains("not below N"), "{own}");
        // The peer learns the reason, even when the abort reaches the garbler inside its OT.
        assert!(
            other.contains("peer stopped") && other.contains("not below N"),
            "{other}"
        );
    }
}

#[test]
fn malformed_arithmetic_tables_are_an_error_at_the_evaluator() {
    fn program<B: ArithBackend>(ctx: &Ctx<B>, x: Option<u128>) -> Result<Option<u128>, ProgramError> {
        let set = PrimeSet::new(&[3, 5, 7]).unwrap();
        let a = ctx.input_crt(PartyId::GARBLER, &set, x)?;
        // Each product decodes the rows its operands' colours select: over several, some
        // colour is nonzero.
        let mut p = a.clone();
        for _ in 0..8 {
            p = &p * &a;
        }
        p.reveal()
    }
    let (gch, ech) = memory_pair();
    let (g, e) = run(
        (Tap::corrupting(gch, Tag::Tables as u8), Tap::new(ech, usize::MAX)),
        |s| garble(s, "bad", |ctx| program(ctx, Some(4))),
        |s| evaluate(s, "bad", |ctx| program(ctx, None)),
    );
    let err = e.unwrap_err();
    assert!(err.contains("malformed"), "{err}");
    assert!(g.is_err());
}

#[test]
fn a_peer_that_disconnects_mid_crt_program_gives_errors_on_both_sides() {
    fn program<B: ArithBackend>(
        ctx: &Ctx<B>,
        x: Option<u128>,
        y: Option<u128>,
    ) -> Result<Option<u128>, ProgramError> {
        let set = min_sum_primes(32).unwrap();
        let a = ctx.input_crt(PartyId::GARBLER, &set, x)?;
        let b = ctx.input_crt(PartyId::EVALUATOR, &set, y)?;
        let c = &(&a * &b) * &a;
        let bits = c.to_uint();
        Crt::from_uint(&bits, &set).reveal()
    }
    // The bytes of the setup, then budgets that end inside inputs, tables and outputs.
    let (gch, ech) = memory_pair();
    let (setup, _) = run(
        (Tap::new(gch, usize::MAX), Tap::new(ech, usize::MAX)),
        |s| Ok(s.channel().bytes_sent()),
        |_| Ok(()),
    );
    let setup = setup.unwrap() as usize;
    for extra in [40, 200, 3_000, 20_000, 45_000] {
        let (gch, ech) = memory_pair();
        let (g, e) = run(
            (Tap::new(gch, setup + extra), Tap::new(ech, usize::MAX)),
            |s| garble(s, "dying", |ctx| program(ctx, Some(12), None)),
            |s| evaluate(s, "dying", |ctx| program(ctx, None, Some(34))),
        );
        let (g, e) = (g.unwrap_err(), e.unwrap_err());
        assert!(e.contains("closed the connection"), "{extra}: {e}");
        assert!(!g.is_empty(), "{extra}");
    }
}

/// A seeded mixed program (CRT inputs, a product, BD, 64-bit products, BC back) has a
/// fixed transcript, the same with the I/O thread as without: long AND runs go through the
/// writer thread, the round trips around them do not. A change to the program wire format
/// must change this digest on purpose (and `PROTOCOL_VERSION`).
#[test]
fn seeded_program_transcript_is_pinned() {
    check_pinned_program_transcript(
        mixgc_session::Scheme::HalfGates,
        PINNED_PROGRAM_GARBLER,
        PINNED_PROGRAM_EVALUATOR,
    );
}

/// [`seeded_program_transcript_is_pinned`] in a three-halves session: the program's ANDs
/// go out as three-halves groups (bytes) between the CRT gadgets' rows, whose
/// garbler-private half gates stay blocks.
#[test]
fn seeded_three_halves_program_transcript_is_pinned() {
    check_pinned_program_transcript(
        mixgc_session::Scheme::ThreeHalves,
        PINNED_THREE_HALVES_PROGRAM_GARBLER,
        PINNED_THREE_HALVES_PROGRAM_EVALUATOR,
    );
}

fn check_pinned_program_transcript(garbling: mixgc_session::Scheme, garbler: &str, evaluator: &str) {
    use mixgc_net::TranscriptChannel;
    use mixgc_session::{EvaluatorSession, GarblerSession, SessionConfig};

    fn program<B: ArithBackend>(
        ctx: &Ctx<B>,
        x: Option<u128>,
        y: Option<u128>,
    ) -> Result<(Option<u128>, Option<u128>), ProgramError> {
        let set = min_sum_primes(32).unwrap();
        let a = ctx.input_crt(PartyId::GARBLER, &set, x)?;
        let b = ctx.input_crt(PartyId::EVALUATOR, &set, y)?;
        // Products of 64-bit integers: runs of thousands of ANDs between round trips.
        let mut v = (&a * &b).to_uint().resize(64);
        for k in 0..3 {
            v = &(&v * &v) + &ctx.uint(64, k);
        }
        let low = v.resize(32);
        let back = Crt::from_uint(&low, &set);
        Ok((low.reveal()?.map(|v| to_u128(&v)), (&back * &a).reveal()?))
    }
    let transcript = |io_thread: bool| -> ((String, String), (Option<u128>, Option<u128>)) {
        let (gch, ech) = memory_pair();
        let cfg = SessionConfig {
            insecure_seed: Some(42),
            io_thread,
            garbling,
            ..SessionConfig::default()
        };
        let e = thread::spawn({
            let cfg = cfg.clone();
            move || {
                let mut s = EvaluatorSession::setup(TranscriptChannel::new(ech), &cfg).unwrap();
                evaluate(&mut s, "pinned", |ctx| program(ctx, None, Some(77_777))).unwrap()
            }
        });
        let mut s = GarblerSession::setup(TranscriptChannel::new(gch), &cfg).unwrap();
        let out = garble(&mut s, "pinned", |ctx| program(ctx, Some(123_456), None)).unwrap();
        assert_eq!(out, e.join().unwrap(), "both parties learn the same");
        (s.channel().digests(), out)
    };
    let (with, out) = transcript(true);
    let (without, _) = transcript(false);
    assert_eq!(with, without, "the I/O thread must not change the bytes");
    // The plaintext model: the same program on the plaintext backend.
    let plain = Ctx::new(mixgc_program::Plain::default());
    assert_eq!(out, program(&plain, Some(123_456), Some(77_777)).unwrap());
    assert_eq!(
        with,
        (garbler.to_string(), evaluator.to_string()),
        "the program transcript changed ({garbling}); update on purpose"
    );
}

const PINNED_PROGRAM_GARBLER: &str = "53c996275ed06034b37045a985c6e55d02ffe9dc5a9a4a6b53a9394cff8e6615";
const PINNED_PROGRAM_EVALUATOR: &str = "9ab4aa3880e7a8bfd256f0d414edcd59864d222942e23db26f3c93687d4f063e";
const PINNED_THREE_HALVES_PROGRAM_GARBLER: &str =
    "d21c7f8c3d78b9431d2e41c41d49a25ecaca50819790e4ed0dce4ac4cf174c59";
const PINNED_THREE_HALVES_PROGRAM_EVALUATOR: &str =
    "1d401c4b823be5cf5705ee35bb6f9540d6abd110b50b3a252d74f075d5f681dc";
