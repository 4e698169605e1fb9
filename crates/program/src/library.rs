//! Named library ops as whole circuits: what `mixgc export` writes, `mixgc ops` counts and
//! the examples run.
//!
//! Every op declares its inputs in its natural order, the garbler's operands first (the
//! first ⌈n/2⌉ input values, as `mixgc run` assigns them), with the Bristol Fashion value
//! convention (wire 0 = least significant bit). Arithmetic ops are unsigned on w-bit
//! operands unless stated.

use std::collections::VecDeque;

use crate::gadgets;
use crate::{scoped, Backend, Cost, Counter, Lanes, PartyId, ProgramError, Recorded, Recorder, MAX_LANES};

/// A library op that can be exported or counted.
#[derive(Clone, Copy, Debug)]
pub struct OpInfo {
    pub name: &'static str,
    /// Inputs and outputs, in words.
    pub about: &'static str,
    /// Default operand width; `None` for fixed-width ops (like `aes128`), which ignore `--width`.
    pub default_width: Option<u32>,
    /// Whether `--size` applies, and its default.
    pub default_size: Option<usize>,
}

/// Every op `mixgc export` knows, in the order `mixgc ops` lists them.
pub const OPS: &[OpInfo] = &[
    op_info("add", "x + y mod 2^w", Some(32), None),
    op_info("sub", "x - y mod 2^w", Some(32), None),
    op_info("mul", "x * y mod 2^w (Booth radix-4)", Some(32), None),
    op_info(
        "div",
        "x / y, the quotient (y = 0 gives all ones)",
        Some(32),
        None,
    ),
    op_info(
        "sqrt",
        "floor(sqrt(x)) of the garbler's x, ceil(w/2) bits",
        Some(32),
        None,
    ),
    op_info("lt", "[x < y], one bit", Some(32), None),
    op_info("eq", "[x = y], one bit", Some(32), None),
    op_info(
        "hamming",
        "Hamming distance of x and y, ceil(log2(w+1)) bits",
        Some(32),
        None,
    ),
    op_info("relu", "max(x, 0) of the garbler's signed x", Some(32), None),
    op_info(
        "aes128",
        "AES-128 with key schedule: key (garbler), plaintext (evaluator)",
        None,
        None,
    ),
    op_info(
        "aes-chain",
        "AES-128 applied N times, x <- AES_k(x), 6,400 ANDs each: key (garbler), x (evaluator)",
        None,
        Some(2),
    ),
    op_info(
        "sha256",
        "SHA-256 compression: 512-bit block, 256-bit state (see circuits/README.md)",
        None,
        None,
    ),
    op_info(
        "edit-distance",
        "Levenshtein distance of two strings of N bytes, one 8-bit value per symbol, first string first",
        None,
        Some(16),
    ),
    op_info(
        "matmul",
        "N x N times N x N matrix product mod 2^w, one value per element, row-major, first matrix first",
        Some(64),
        Some(10),
    ),
    op_info(
        "millionaires",
        "example: [garbler's wealth > evaluator's wealth], one bit",
        Some(64),
        None,
    ),
    op_info(
        "auction",
        "example: sealed bids; outputs [garbler wins] (ties go to the garbler) and the winning bid",
        Some(32),
        None,
    ),
    op_info(
        "puf-auth",
        "example: [Hamming distance of enrolled and fresh w-bit PUF responses <= N], one bit",
        Some(128),
        Some(16),
    ),
];

const fn op_info(
    name: &'static str,
    about: &'static str,
    default_width: Option<u32>,
    default_size: Option<usize>,
) -> OpInfo {
    OpInfo {
        name,
        about,
        default_width,
        default_size,
    }
}

/// Why an op could not be built.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum LibraryError {
    #[error("unknown op '{name}'; known ops: {known}")]
    UnknownOp { name: String, known: String },
    #[error("op '{name}' needs a width between 1 and {max} bits, got {width}")]
    BadWidth { name: String, width: u32, max: u32 },
    #[error("op '{name}' needs a size between 1 and {max}, got {size}")]
    BadSize { name: String, size: usize, max: usize },
    #[error("op '{name}' has a fixed width: drop --width")]
    FixedWidth { name: String },
    #[error("op '{name}' takes no size: drop --size")]
    NoSize { name: String },
    #[error(transparent)]
    Program(#[from] ProgramError),
    /// An n-party application's parameters or inputs ([`crate::apps`]).
    #[error(transparent)]
    App(#[from] crate::apps::AppError),
}

/// Widest operand `--width` accepts.
pub const MAX_WIDTH: u32 = 4096;
/// Largest `--size` (matrix side, string length, threshold) accepted, so a typo cannot ask
/// for a circuit that exhausts memory when recorded.
pub const MAX_SIZE: usize = 1024;
/// Largest `--size` of `aes-chain` (encryptions, ≈ 6.7·10^9 ANDs): a two-party run streams
/// the chain gate by gate, so its length costs time, not memory (recording it does not).
pub const MAX_CHAIN: usize = 1 << 20;

/// Largest `--size` op `name` accepts.
fn max_size(name: &str) -> usize {
    match name {
        "aes-chain" => MAX_CHAIN,
        _ => MAX_SIZE,
    }
}

/// Refuses a width for a fixed-width op and a size for an op that takes none, rather than
/// ignoring them.
fn check_parameters(info: &OpInfo, width: Option<u32>, size: Option<usize>) -> Result<(), LibraryError> {
    let name = info.name.to_string();
    match (width, info.default_width, size, info.default_size) {
        (Some(_), None, _, _) => Err(LibraryError::FixedWidth { name }),
        (_, _, Some(_), None) => Err(LibraryError::NoSize { name }),
        _ => Ok(()),
    }
}

/// Looks up an op by name.
pub fn op(name: &str) -> Result<&'static OpInfo, LibraryError> {
    OPS.iter()
        .find(|o| o.name == name)
        .ok_or_else(|| LibraryError::UnknownOp {
            name: name.to_string(),
            known: OPS.iter().map(|o| o.name).collect::<Vec<_>>().join(", "),
        })
}

/// Builds op `name` on `b`: its inputs (garbler's first, values from `supply`), the
/// computation, its outputs. `width` `None` takes the op's default. Returns each output
/// value where this party learns it.
pub fn build<B: Backend>(
    b: &mut B,
    name: &str,
    width: Option<u32>,
    size: Option<usize>,
    supply: &mut Supply,
) -> Result<Vec<Option<Vec<bool>>>, LibraryError> {
    let info = op(name)?;
    check_parameters(info, width, size)?;
    let width = width.or(info.default_width).unwrap_or(0);
    if info.default_width.is_some() && !(1..=MAX_WIDTH).contains(&width) {
        return Err(LibraryError::BadWidth {
            name: name.into(),
            width,
            max: MAX_WIDTH,
        });
    }
    let size = size.or(info.default_size).unwrap_or(0);
    let max = max_size(name);
    if info.default_size.is_some() && !(1..=max).contains(&size) {
        return Err(LibraryError::BadSize {
            name: name.into(),
            size,
            max,
        });
    }
    let outputs = match name {
        "add" => {
            let [x, y] = pair(b, supply, width)?;
            vec![gadgets::add(b, &x, &y)]
        }
        "sub" => {
            let [x, y] = pair(b, supply, width)?;
            vec![gadgets::sub(b, &x, &y)]
        }
        "mul" => {
            let [x, y] = pair(b, supply, width)?;
            vec![gadgets::mul::mul(b, &x, &y)]
        }
        "div" => {
            let [x, y] = pair(b, supply, width)?;
            vec![gadgets::div::div_unsigned(b, &x, &y)]
        }
        "sqrt" => {
            let x = input(b, supply, PartyId::GARBLER, width)?;
            vec![gadgets::sqrt::sqrt(b, &x)]
        }
        "hamming" => {
            let [x, y] = pair(b, supply, width)?;
            vec![gadgets::bits::hamming(b, &x, &y)]
        }
        "relu" => {
            let x = input(b, supply, PartyId::GARBLER, width)?;
            vec![gadgets::select::relu(b, &x)]
        }
        "matmul" => matmul(b, supply, width, size)?,
        "puf-auth" => {
            // Accept when the responses differ in at most `size` of their `width` bits.
            let [x, y] = pair(b, supply, width)?;
            let d = gadgets::bits::hamming(b, &x, &y);
            if size + 1 >= 1 << d.len() {
                vec![vec![b.constant(true)]]
            } else {
                let bound: Vec<B::Wire> = (0..d.len())
                    .map(|i| b.constant((size + 1) >> i & 1 == 1))
                    .collect();
                vec![gadgets::lt_unsigned(b, &d, &bound)]
            }
        }
        "lt" => {
            let [x, y] = pair(b, supply, width)?;
            vec![gadgets::lt_unsigned(b, &x, &y)]
        }
        "eq" => {
            let [x, y] = pair(b, supply, width)?;
            vec![gadgets::eq(b, &x, &y)]
        }
        "millionaires" => {
            let [x, y] = pair(b, supply, width)?;
            vec![gadgets::lt_unsigned(b, &y, &x)]
        }
        "auction" => {
            // The garbler wins unless the evaluator bid strictly more: 2w ANDs.
            let [x, y] = pair(b, supply, width)?;
            let evaluator_wins = gadgets::lt_unsigned(b, &x, &y)[0];
            let garbler_wins = b.not(evaluator_wins);
            let price = gadgets::mux(b, evaluator_wins, &x, &y);
            vec![vec![garbler_wins], price]
        }
        "aes128" => {
            let key = input(b, supply, PartyId::GARBLER, 128)?;
            let plaintext = input(b, supply, PartyId::EVALUATOR, 128)?;
            vec![gadgets::aes::aes128(b, &key, &plaintext)]
        }
        "aes-chain" => {
            // A chain of dependent encryptions: ≥ 10^8 ANDs in constant memory when streamed.
            let key = input(b, supply, PartyId::GARBLER, 128)?;
            let mut x = input(b, supply, PartyId::EVALUATOR, 128)?;
            for _ in 0..size {
                x = gadgets::aes::aes128(b, &key, &x);
            }
            vec![x]
        }
        "sha256" => {
            let block = input(b, supply, PartyId::GARBLER, 512)?;
            let state = input(b, supply, PartyId::EVALUATOR, 256)?;
            vec![gadgets::sha256::sha256_compress(b, &block, &state)]
        }
        "edit-distance" => {
            let s = symbols(b, supply, PartyId::GARBLER, size)?;
            let t = symbols(b, supply, PartyId::EVALUATOR, size)?;
            vec![gadgets::edit::edit_distance(b, &s, &t)]
        }
        _ => unreachable!("every name in OPS is built above"),
    };
    let mut learned = Vec::with_capacity(outputs.len());
    for out in &outputs {
        learned.push(b.output(out)?);
    }
    Ok(learned)
}

/// The input values a party supplies to a library op: its own, in the op's order; inputs
/// of the other party (and all inputs on the recorder and counter) get none.
#[derive(Clone, Debug, Default)]
pub struct Supply {
    /// The values of each party, by party index.
    values: Vec<VecDeque<Vec<bool>>>,
}

impl Supply {
    /// Values of both parties (plaintext runs).
    pub fn both(garbler: Vec<Vec<bool>>, evaluator: Vec<Vec<bool>>) -> Supply {
        Supply {
            values: vec![garbler.into(), evaluator.into()],
        }
    }

    /// The values of one party.
    pub fn of(owner: PartyId, values: Vec<Vec<bool>>) -> Supply {
        let mut supply = Supply {
            values: vec![VecDeque::new(); owner.index() + 1],
        };
        supply.values[owner.index()] = values.into();
        supply
    }

    fn next(&mut self, owner: PartyId) -> Option<Vec<bool>> {
        self.values.get_mut(owner.index())?.pop_front()
    }
}

/// The next input of `owner`, with its value if `supply` has it.
fn input<B: Backend>(
    b: &mut B,
    supply: &mut Supply,
    owner: PartyId,
    width: u32,
) -> Result<Vec<B::Wire>, ProgramError> {
    b.input(owner, width, supply.next(owner).as_deref())
}

/// Two `width`-bit operands: the garbler's, then the evaluator's.
fn pair<B: Backend>(b: &mut B, supply: &mut Supply, width: u32) -> Result<[Vec<B::Wire>; 2], ProgramError> {
    Ok([
        input(b, supply, PartyId::GARBLER, width)?,
        input(b, supply, PartyId::EVALUATOR, width)?,
    ])
}

/// `n` 8-bit symbol inputs of `owner`.
fn symbols<B: Backend>(
    b: &mut B,
    supply: &mut Supply,
    owner: PartyId,
    n: usize,
) -> Result<Vec<Vec<B::Wire>>, ProgramError> {
    (0..n).map(|_| input(b, supply, owner, 8)).collect()
}

/// N×N matrix product mod 2^w: the garbler's matrix A times the evaluator's B, each
/// element its own input value (row-major, A first); N² outputs, row-major.
///
/// Winograd's inner product (IEEE Trans. Computers 1968): for each cell,
/// Σ_k a_k·b_k = Σ_l (a_{2l} + b_{2l+1})·(a_{2l+1} + b_{2l}) − ξ − η with
/// ξ = Σ_l a_{2l}·a_{2l+1} (one per row of A) and η = Σ_l b_{2l}·b_{2l+1} (one per column
/// of B), plus a_{N−1}·b_{N−1} when N is odd. It holds in any commutative ring, so exactly
/// mod 2^w, and needs ⌊N/2⌋·N² + 2·⌊N/2⌋·N (+ N² for odd N) products instead of N³.
/// Products run on SIMD [`Lanes`], 16 at a time, which a two-party backend hashes together.
/// Each product-and-sum step runs in a scope and replaces the accumulator, so the wires
/// alive are the inputs, ξ, η, the outputs so far and one step's temporaries, not every
/// wire made (a slot backend's memory then stays bounded at any N).
fn matmul<B: Backend>(
    b: &mut B,
    supply: &mut Supply,
    width: u32,
    n: usize,
) -> Result<Vec<Vec<B::Wire>>, ProgramError> {
    let a: Vec<Vec<B::Wire>> = (0..n * n)
        .map(|_| input(b, supply, PartyId::GARBLER, width))
        .collect::<Result<_, _>>()?;
    let m: Vec<Vec<B::Wire>> = (0..n * n)
        .map(|_| input(b, supply, PartyId::EVALUATOR, width))
        .collect::<Result<_, _>>()?;
    let (at, bt) = (
        |i: usize, k: usize| a[i * n + k].as_slice(),
        |k: usize, j: usize| m[k * n + j].as_slice(),
    );
    let pairs = n / 2;
    let xi = lane_sums(b, n, pairs, |i, l| [at(i, 2 * l), at(i, 2 * l + 1)]);
    let eta = lane_sums(b, n, pairs, |j, l| [bt(2 * l, j), bt(2 * l + 1, j)]);
    let mut out = Vec::with_capacity(n * n);
    for tile in (0..n * n).collect::<Vec<_>>().chunks(MAX_LANES) {
        let mut lanes = Lanes::new(b, tile.len());
        let (row, col) = (|c: usize| c / n, |c: usize| c % n);
        let mut acc: Option<LaneValue<B>> = None;
        for l in 0..pairs {
            acc = Some(step(&mut lanes, acc, |lanes, acc| {
                let x0 = lanes.pack(&gather(tile, |c| at(row(c), 2 * l)));
                let x1 = lanes.pack(&gather(tile, |c| at(row(c), 2 * l + 1)));
                let y0 = lanes.pack(&gather(tile, |c| bt(2 * l, col(c))));
                let y1 = lanes.pack(&gather(tile, |c| bt(2 * l + 1, col(c))));
                let u = gadgets::add(lanes, &x0, &y1);
                let v = gadgets::add(lanes, &x1, &y0);
                let p = gadgets::mul::mul(lanes, &u, &v);
                accumulate(lanes, acc, p)
            }));
        }
        if n % 2 == 1 {
            acc = Some(step(&mut lanes, acc, |lanes, acc| {
                let x = lanes.pack(&gather(tile, |c| at(row(c), n - 1)));
                let y = lanes.pack(&gather(tile, |c| bt(n - 1, col(c))));
                let p = gadgets::mul::mul(lanes, &x, &y);
                accumulate(lanes, acc, p)
            }));
        }
        let mut sum = acc.expect("n >= 1");
        if let (Some(xi), Some(eta)) = (&xi, &eta) {
            sum = step(&mut lanes, Some(sum), |lanes, sum| {
                let sum = sum.expect("a sum");
                let x = lanes.pack(&gather(tile, |c| xi[row(c)].as_slice()));
                let y = lanes.pack(&gather(tile, |c| eta[col(c)].as_slice()));
                let s = gadgets::sub(lanes, sum, &x);
                gadgets::sub(lanes, &s, &y)
            });
        }
        out.extend(lanes.unpack(&sum));
    }
    for sums in [xi, eta].into_iter().flatten() {
        for s in &sums {
            b.release(s);
        }
    }
    Ok(out)
}

/// A value on lanes.
type LaneValue<B> = Vec<[<B as Backend>::Wire; MAX_LANES]>;

/// One step of an accumulation on lanes: `f` of the accumulator so far, in a scope, then
/// the old accumulator released. Only the step's result stays alive.
fn step<B: Backend>(
    lanes: &mut Lanes<B>,
    acc: Option<LaneValue<B>>,
    f: impl FnOnce(&mut Lanes<B>, Option<&LaneValue<B>>) -> LaneValue<B>,
) -> LaneValue<B> {
    let next = scoped(lanes, |lanes| f(lanes, acc.as_ref()));
    if let Some(old) = acc {
        lanes.release(&old);
    }
    next
}

/// `f` of each index of a lane tile.
fn gather<'v, W>(tile: &[usize], f: impl Fn(usize) -> &'v [W]) -> Vec<&'v [W]> {
    tile.iter().map(|&c| f(c)).collect()
}

/// `acc + p` on lanes (`p` alone for the first term).
fn accumulate<B: Backend>(lanes: &mut Lanes<B>, acc: Option<&LaneValue<B>>, p: LaneValue<B>) -> LaneValue<B> {
    match acc {
        None => p,
        Some(s) => gadgets::add(lanes, s, &p),
    }
}

/// For each of `count` indices, Σ_{l < terms} u·v where `[u, v] = factors(index, l)`,
/// computed on lanes (16 indices at a time); `None` when there are no terms.
fn lane_sums<'v, B: Backend>(
    b: &mut B,
    count: usize,
    terms: usize,
    factors: impl Fn(usize, usize) -> [&'v [B::Wire]; 2],
) -> Option<Vec<Vec<B::Wire>>>
where
    B::Wire: 'v,
{
    if terms == 0 {
        return None;
    }
    let mut sums = Vec::with_capacity(count);
    for tile in (0..count).collect::<Vec<_>>().chunks(MAX_LANES) {
        let mut lanes = Lanes::new(b, tile.len());
        let mut acc: Option<LaneValue<B>> = None;
        for l in 0..terms {
            acc = Some(step(&mut lanes, acc, |lanes, acc| {
                let us = gather(tile, |i| factors(i, l)[0]);
                let vs = gather(tile, |i| factors(i, l)[1]);
                let (u, v) = (lanes.pack(&us), lanes.pack(&vs));
                let p = gadgets::mul::mul(lanes, &u, &v);
                accumulate(lanes, acc, p)
            }));
        }
        sums.extend(lanes.unpack(&acc.expect("terms >= 1")));
    }
    Some(sums)
}

/// The circuit of op `name`.
pub fn record(name: &str, width: Option<u32>, size: Option<usize>) -> Result<Recorded, LibraryError> {
    let mut r = Recorder::default();
    build(&mut r, name, width, size, &mut Supply::default())?;
    Ok(r.finish())
}

/// Op `name` run on the counter: its cost and the owners and widths of its inputs and
/// outputs, in constant memory.
pub fn shape(name: &str, width: Option<u32>, size: Option<usize>) -> Result<Counter, LibraryError> {
    let mut c = Counter::default();
    build(&mut c, name, width, size, &mut Supply::default())?;
    Ok(c)
}

/// The cost of op `name`.
pub fn cost(name: &str, width: Option<u32>, size: Option<usize>) -> Result<Cost, LibraryError> {
    Ok(shape(name, width, size)?.cost())
}

/// A name both parties of a two-party run of op `name` derive from the same arguments,
/// so a run where they disagree on the op, width or size stops at the start.
pub fn run_name(name: &str, width: Option<u32>, size: Option<usize>) -> Result<String, LibraryError> {
    let info = op(name)?;
    check_parameters(info, width, size)?;
    let w = width.or(info.default_width);
    let n = size.or(info.default_size);
    Ok(format!("mixgc library op {name} width {w:?} size {n:?}"))
}
