//! Named library ops as whole circuits: what `mixgc export` writes, `mixgc ops` counts and
//! the examples run.
//!
//! Every op declares its inputs in its natural order, the garbler's operands first (the
//! first ⌈n/2⌉ input values, as `mixgc run` assigns them), with the Bristol Fashion value
//! convention (wire 0 = least significant bit). Arithmetic ops are unsigned on w-bit
//! operands unless stated.

use crate::gadgets;
use crate::{Backend, Cost, Counter, Owner, ProgramError, Recorded, Recorder};

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
    op_info("lt", "[x < y], one bit", Some(32), None),
    op_info("eq", "[x = y], one bit", Some(32), None),
    op_info(
        "millionaires",
        "example: [garbler's wealth > evaluator's wealth], one bit",
        Some(64),
        None,
    ),
    op_info(
        "aes128",
        "AES-128 with key schedule: key (garbler), plaintext (evaluator)",
        None,
        None,
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
        "auction",
        "example: sealed bids; outputs [garbler wins] (ties go to the garbler) and the winning bid",
        Some(32),
        None,
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
pub enum LibraryError {
    #[error("unknown op '{name}'; known ops: {known}")]
    UnknownOp { name: String, known: String },
    #[error("op '{name}' needs a width between 1 and {max} bits, got {width}")]
    BadWidth { name: String, width: u32, max: u32 },
    #[error("op '{name}' needs a size of at least 1")]
    BadSize { name: String },
    #[error(transparent)]
    Program(#[from] ProgramError),
}

/// Widest operand `--width` accepts.
pub const MAX_WIDTH: u32 = 4096;

/// Looks up an op by name.
pub fn op(name: &str) -> Result<&'static OpInfo, LibraryError> {
    OPS.iter()
        .find(|o| o.name == name)
        .ok_or_else(|| LibraryError::UnknownOp {
            name: name.to_string(),
            known: OPS.iter().map(|o| o.name).collect::<Vec<_>>().join(", "),
        })
}

/// Builds op `name` on `b`: its inputs (garbler's first), the computation, its outputs.
/// `width` `None` takes the op's default.
pub fn build<B: Backend>(
    b: &mut B,
    name: &str,
    width: Option<u32>,
    size: Option<usize>,
) -> Result<(), LibraryError> {
    let info = op(name)?;
    let width = width.or(info.default_width).unwrap_or(0);
    if info.default_width.is_some() && !(1..=MAX_WIDTH).contains(&width) {
        return Err(LibraryError::BadWidth {
            name: name.into(),
            width,
            max: MAX_WIDTH,
        });
    }
    let size = size.or(info.default_size).unwrap_or(0);
    if info.default_size.is_some() && size == 0 {
        return Err(LibraryError::BadSize { name: name.into() });
    }
    let outputs = match name {
        "add" => {
            let [x, y] = pair(b, width)?;
            vec![gadgets::add(b, &x, &y)]
        }
        "sub" => {
            let [x, y] = pair(b, width)?;
            vec![gadgets::sub(b, &x, &y)]
        }
        "lt" => {
            let [x, y] = pair(b, width)?;
            vec![gadgets::lt_unsigned(b, &x, &y)]
        }
        "eq" => {
            let [x, y] = pair(b, width)?;
            vec![gadgets::eq(b, &x, &y)]
        }
        "millionaires" => {
            let [x, y] = pair(b, width)?;
            vec![gadgets::lt_unsigned(b, &y, &x)]
        }
        "auction" => {
            // The garbler wins unless the evaluator bid strictly more: 2w ANDs.
            let [x, y] = pair(b, width)?;
            let evaluator_wins = gadgets::lt_unsigned(b, &x, &y)[0];
            let garbler_wins = b.not(evaluator_wins);
            let price = gadgets::mux(b, evaluator_wins, &x, &y);
            vec![vec![garbler_wins], price]
        }
        "aes128" => {
            let key = b.input(Owner::Garbler, 128, None)?;
            let plaintext = b.input(Owner::Evaluator, 128, None)?;
            vec![gadgets::aes::aes128(b, &key, &plaintext)]
        }
        "sha256" => {
            let block = b.input(Owner::Garbler, 512, None)?;
            let state = b.input(Owner::Evaluator, 256, None)?;
            vec![gadgets::sha256::sha256_compress(b, &block, &state)]
        }
        "edit-distance" => {
            let s = symbols(b, Owner::Garbler, size)?;
            let t = symbols(b, Owner::Evaluator, size)?;
            vec![gadgets::edit::edit_distance(b, &s, &t)]
        }
        _ => unreachable!("every name in OPS is built above"),
    };
    for out in &outputs {
        b.output(out)?;
    }
    Ok(())
}

/// Two `width`-bit operands: the garbler's, then the evaluator's.
fn pair<B: Backend>(b: &mut B, width: u32) -> Result<[Vec<B::Wire>; 2], ProgramError> {
    Ok([
        b.input(Owner::Garbler, width, None)?,
        b.input(Owner::Evaluator, width, None)?,
    ])
}

/// `n` 8-bit symbol inputs of `owner`.
fn symbols<B: Backend>(b: &mut B, owner: Owner, n: usize) -> Result<Vec<Vec<B::Wire>>, ProgramError> {
    (0..n).map(|_| b.input(owner, 8, None)).collect()
}

/// The circuit of op `name`.
pub fn record(name: &str, width: Option<u32>, size: Option<usize>) -> Result<Recorded, LibraryError> {
    let mut r = Recorder::default();
    build(&mut r, name, width, size)?;
    Ok(r.finish())
}

/// The cost of op `name`.
pub fn cost(name: &str, width: Option<u32>, size: Option<usize>) -> Result<Cost, LibraryError> {
    let mut c = Counter::default();
    build(&mut c, name, width, size)?;
    Ok(c.cost())
}
