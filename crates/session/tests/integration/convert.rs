//! The CRT gadgets of `mixgc_program::crt::gadgets` garbled and evaluated label by label on
//! the session's primitives, in memory: BC and BD against plaintext (with the exact labels
//! of the outputs), round trips through arithmetic, gadget errors, malformed tables, and
//! every gadget's table against the counter's [`gadget_cost`].

use mixgc_arith::cost::Gadget;
use mixgc_arith::primes::{first_primes, min_sum_primes};
use mixgc_arith::{ArithEvaluator, ArithGarbler, Label, PrimeSet, RingLabel};
use mixgc_core::{new_rng, Block, Rng};
use mixgc_program::crt::gadgets;
use mixgc_program::{gadget_cost, ArithBackend, ProgramError};
use mixgc_session::memory::{MemoryEvaluator, MemoryGarbler, Tables};
use rand::Rng as _;

/// 2^bits − 1.
fn mask(bits: u32) -> u128 {
    u128::MAX >> (128 - bits)
}

fn bit_len(v: u128) -> u32 {
    128 - v.leading_zeros()
}

/// A garbler, its evaluator and a test RNG.
fn pair(seed: u64) -> (MemoryGarbler, MemoryEvaluator, Rng) {
    let g = MemoryGarbler::new(seed).unwrap();
    let e = g.evaluator();
    (g, e, new_rng(Some(seed), 9))
}

/// Fresh Boolean zero-labels and the active labels of the bits of `x`.
fn boolean_inputs(g: &MemoryGarbler, x: u128, width: u32, rng: &mut Rng) -> (Vec<Block>, Vec<Block>) {
    let zeros: Vec<Block> = (0..width).map(|_| Block::random(rng)).collect();
    let active = zeros
        .iter()
        .enumerate()
        .map(|(i, &z)| z ^ g.delta().and_bit((x >> i) & 1 == 1))
        .collect();
    (zeros, active)
}

/// Fresh zero-labels over `set` and the active labels of x on them.
fn bundle_inputs(g: &mut MemoryGarbler, set: &PrimeSet, x: u128) -> (Vec<Label>, Vec<Label>) {
    let zero = g.new_bundle(set);
    let residues = set.encode(x).unwrap();
    let active = zero
        .iter()
        .zip(residues)
        .map(|(z, r)| g.encode(z, r).unwrap())
        .collect();
    (zero, active)
}

/// The value of Boolean outputs, checking every active label is exactly W^0 ⊕ x_i·Δ.
fn boolean_value(g: &MemoryGarbler, zeros: &[Block], active: &[Block]) -> u128 {
    assert_eq!(zeros.len(), active.len());
    zeros
        .iter()
        .zip(active)
        .enumerate()
        .fold(0u128, |acc, (i, (&z, &a))| {
            assert!(a == z || a == z ^ g.delta(), "bit {i}: not a label of the wire");
            acc | ((a != z) as u128) << i
        })
}

/// The value of a bundle, checking every active label is exactly the garbler's encoding.
fn bundle_value(g: &mut MemoryGarbler, set: &PrimeSet, zeros: &[Label], active: &[Label]) -> u128 {
    let decode = |(a, z): (&Label, &Label)| ArithEvaluator::decode(a, ArithGarbler::decoding(z));
    let residues: Vec<u64> = active.iter().zip(zeros).map(decode).collect();
    for ((z, a), &r) in zeros.iter().zip(active).zip(&residues) {
        assert_eq!(&g.encode(z, r).unwrap(), a);
    }
    set.decode(&residues).unwrap()
}

/// Garbles `gadget` on the garbler's labels, then evaluates it on the active ones.
fn run<Z, A, T>(
    g: &mut MemoryGarbler,
    e: &mut MemoryEvaluator,
    zero: Z,
    active: A,
    gadget: impl Fn(&mut dyn Side, Either<&Z, &A>) -> T,
) -> (T, T, Tables) {
    let z = gadget(g, Either::Left(&zero));
    let tables = g.take_tables().unwrap();
    e.read(tables.clone());
    let a = gadget(e, Either::Right(&active));
    e.finish().unwrap();
    (z, a, tables)
}

/// Both parties' backends, as one object type for [`run`].
trait Side: ArithBackend<Wire = Block, ModWire = Label, RingWire = RingLabel> {}
impl Side for MemoryGarbler {}
impl Side for MemoryEvaluator {}

enum Either<L, R> {
    Left(L),
    Right(R),
}

impl<T> Either<&T, &T> {
    fn get(&self) -> &T {
        match self {
            Either::Left(x) | Either::Right(x) => x,
        }
    }
}

#[test]
fn crt_composition_matches_plaintext() {
    let (mut g, mut e, mut rng) = pair(24);
    for width in 1..=64 {
        let set = min_sum_primes(width).unwrap();
        let n = set.product();
        let edges = [0, 1, mask(width), mask(width) >> 1];
        let randoms: Vec<u128> = (0..3).map(|_| rng.gen::<u128>() & mask(width)).collect();
        for x in edges.into_iter().chain(randoms) {
            let (zeros, active) = boolean_inputs(&g, x, width, &mut rng);
            let (z, a, _) = run(&mut g, &mut e, zeros, active, |b, bits| {
                gadgets::from_bits(b, bits.get(), &set)
            });
            assert_eq!(bundle_value(&mut g, &set, &z, &a), x % n, "width {width}");
        }
    }
}

/// BD of x over `set`: the garbler's and the evaluator's output labels.
fn decompose_once(
    g: &mut MemoryGarbler,
    e: &mut MemoryEvaluator,
    set: &PrimeSet,
    x: u128,
) -> (Vec<Block>, Vec<Block>) {
    let (zero, active) = bundle_inputs(g, set, x);
    let (z, a, _) = run(g, e, zero, active, |b, x| gadgets::to_bits(b, set, x.get()));
    (z, a)
}

#[test]
fn crt_decomposition_matches_plaintext() {
    let (mut g, mut e, mut rng) = pair(25);
    for width in (1..=64).chain([80, 100, 120]) {
        let set = min_sum_primes(width).unwrap();
        let n = set.product();
        let edges = [0, 1, n - 1, n / 2, mask(width).min(n - 1)];
        let randoms: Vec<u128> = (0..3).map(|_| rng.gen::<u128>() % n).collect();
        for x in edges.into_iter().chain(randoms) {
            let (zeros, bits) = decompose_once(&mut g, &mut e, &set, x);
            assert_eq!(zeros.len() as u32, bit_len(n - 1), "width {width}");
            assert_eq!(boolean_value(&g, &zeros, &bits), x, "width {width}, x = {x}");
        }
    }
}

#[test]
fn crt_decomposition_of_other_prime_sets() {
    let (mut g, mut e, mut rng) = pair(26);
    // A single prime, sets without 2, and the largest prime a wire may use.
    for primes in [
        &[2u64][..],
        &[3],
        &[251],
        &[3, 5, 7],
        &[2, 65_521],
        &[5, 7, 11, 13],
    ] {
        let set = PrimeSet::new(primes).unwrap();
        let n = set.product();
        for x in [0, n - 1, rng.gen::<u128>() % n] {
            let (zeros, bits) = decompose_once(&mut g, &mut e, &set, x);
            assert_eq!(boolean_value(&g, &zeros, &bits), x, "{primes:?}, x = {x}");
        }
    }
}

#[test]
fn crt_round_trips_through_arithmetic() {
    // Boolean → bundle → (s ? x·y : x) + 5 in Z_N → Boolean.
    let (mut g, mut e, mut rng) = pair(27);
    for width in [3u32, 8, 16, 32] {
        let set = min_sum_primes(width).unwrap();
        let n = set.product();
        let (x, y) = (rng.gen::<u128>() & mask(width), rng.gen::<u128>() & mask(width));
        for s in [false, true] {
            let (zx, ax) = boolean_inputs(&g, x, width, &mut rng);
            let (zy, ay) = boolean_inputs(&g, y, width, &mut rng);
            let (zs, as_) = boolean_inputs(&g, s.into(), 1, &mut rng);
            let (z, a, _) = run(&mut g, &mut e, (zx, zy, zs), (ax, ay, as_), |b, inputs| {
                let (x, y, s) = inputs.get();
                let (bx, by) = (b.crt_from_bits(x, &set), b.crt_from_bits(y, &set));
                let product = b.crt_mul(&set, &bx, &by);
                let selected = b.crt_mux(&set, s[0], &product, &bx);
                let five = b.crt_constant(&set, 5);
                let sum = b.crt_add(&set, &selected, &five);
                b.crt_to_bits(&set, &sum)
            });
            let expected = (if s { x * y } else { x } + 5) % n;
            assert_eq!(boolean_value(&g, &z, &a), expected, "width {width}, s = {s}");
        }
    }
}

#[test]
fn gadget_errors_are_reported_by_both_parties() {
    let (mut g, mut e, _) = pair(28);
    let set = PrimeSet::new(&[3]).unwrap();
    gadgets::from_bits(&mut g, &[], &set);
    assert!(matches!(g.take_tables(), Err(ProgramError::Arith(msg)) if msg.contains("no bits")));
    gadgets::from_bits(&mut e, &[], &set);
    assert!(matches!(e.finish(), Err(ProgramError::Arith(_))));
    // The CRT sum of the 127-bit primes needs more than 128 bits.
    let (mut g, _, _) = pair(29);
    let wide = min_sum_primes(127).unwrap();
    let zero = g.new_bundle(&wide);
    let bits = gadgets::to_bits(&mut g, &wide, &zero);
    assert_eq!(bits.len(), 128);
    assert!(matches!(g.take_tables(), Err(ProgramError::Arith(msg)) if msg.contains("more than 128 bits")));
}

#[test]
fn malformed_tables_are_errors_never_panics() {
    let (mut g, _, mut rng) = pair(30);
    let set = min_sum_primes(16).unwrap();
    let (zero, active) = bundle_inputs(&mut g, &set, 12_345);
    gadgets::to_bits(&mut g, &set, &zero);
    let tables = g.take_tables().unwrap();
    let run = |tables: Tables| {
        let mut e = g.evaluator();
        e.read(tables);
        gadgets::to_bits(&mut e, &set, &active);
        e.finish()
    };
    assert!(run(tables.clone()).is_ok());
    let mut short = tables.clone();
    short.arith.pop();
    assert!(run(short).is_err());
    let mut short = tables.clone();
    short.ands.pop();
    assert!(run(short).is_err());
    let mut longer = tables.clone();
    longer.arith.push(0);
    assert!(run(longer).is_err());
    // Random bytes of the right length: an error or some labels, never a panic.
    for _ in 0..20 {
        let mut noise = tables.clone();
        noise.arith.iter_mut().for_each(|b| *b = rng.gen());
        let _ = run(noise);
    }
}

/// Every gadget garbled for real, over sets of many widths and shapes, sends exactly the
/// table the counter costs (rows as ABLE counts them, and bytes), the multiplexer exactly
/// a one-bit BC then a product.
#[test]
fn gadget_tables_match_the_counter() {
    let (mut g, _, mut rng) = pair(3);
    let mut sets: Vec<PrimeSet> = [1u32, 2, 3, 5, 8, 16, 31, 64, 100]
        .iter()
        .flat_map(|&w| [min_sum_primes(w).unwrap(), first_primes(w).unwrap()])
        .collect();
    sets.extend([[3].as_slice(), &[2], &[5, 7], &[65_521]].map(|p| PrimeSet::new(p).unwrap()));
    for set in sets {
        let (a, b) = (g.new_bundle(&set), g.new_bundle(&set));
        let select = Block::random(&mut rng);
        let bits: Vec<Block> = (0..64).map(|_| Block::random(&mut rng)).collect();
        let garbled = |g: &mut MemoryGarbler, gadget: Gadget| {
            let before = g.table_rows();
            match gadget {
                Gadget::Mul => drop(gadgets::mul(g, &set, &a, &b)),
                Gadget::Pow(e) => drop(gadgets::pow(g, &set, &a, e)),
                Gadget::Mux => drop(gadgets::mux(g, &set, select, &a, &b)),
                Gadget::Compose { bits: w } => drop(gadgets::from_bits(g, &bits[..w as usize], &set)),
                Gadget::Decompose => drop(gadgets::to_bits(g, &set, &a)),
            }
            let tables = g.take_tables().unwrap();
            (g.table_rows() - before, tables.bytes())
        };
        let mut gadgets = vec![Gadget::Mul, Gadget::Pow(3), Gadget::Mux];
        gadgets.extend([1, 7, 64].map(|bits| Gadget::Compose { bits }));
        if set.product() < 1 << 120 {
            gadgets.push(Gadget::Decompose);
        }
        for gadget in gadgets {
            let cost = gadget_cost(gadget, &set).unwrap();
            assert_eq!(
                garbled(&mut g, gadget),
                (cost.rows, cost.bytes),
                "{gadget:?} over {:?}",
                set.primes()
            );
        }
        let [mux, compose, mul] =
            [Gadget::Mux, Gadget::Compose { bits: 1 }, Gadget::Mul].map(|x| gadget_cost(x, &set).unwrap());
        assert_eq!(mux, compose + mul);
    }
}
