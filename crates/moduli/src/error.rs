use crate::modulus::Modulus;
use crate::primes::{MAX_WIDTH, MIN_WIDTH};

/// Why an arithmetic-garbling call failed. Bad moduli, labels, function tables, values and
/// garbled tables are all reported as values; nothing in this crate panics on them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArithError {
    /// A wire modulus that is neither an odd prime nor a power of two. Composite moduli
    /// are refused on purpose: a mod-86 label packed into 128 bits let the evaluator
    /// brute-force 43·Δ_86 (the 2024 "dicenet" break); composite values are CRT bundles.
    #[error("modulus {0} is composite and not a power of two: use a CRT bundle of prime wires")]
    CompositeModulus(u64),
    /// A modulus below 2 (no wire can carry a value in Z_0 or Z_1).
    #[error("modulus {0} is too small: a wire needs at least two values")]
    TrivialModulus(u64),
    /// A prime above [`crate::MAX_ODD_PRIME`], or a power of two above
    /// 2^[`crate::MAX_POWER_OF_TWO_EXPONENT`].
    #[error("modulus {0} is too large: {1}")]
    ModulusTooLarge(u128, &'static str),
    /// A label whose digit count is not the one its modulus requires.
    #[error("a label mod {modulus} needs {expected} digits, got {got}")]
    LabelLength {
        modulus: Modulus,
        expected: usize,
        got: usize,
    },
    /// A digit, value or table entry outside Z_m.
    #[error("{what} {value} is not in Z_{modulus}")]
    OutOfRange {
        what: &'static str,
        value: u128,
        modulus: Modulus,
    },
    /// Two operands of one operation live on different moduli.
    #[error("operands mod {0} and mod {1} cannot be combined")]
    ModulusMismatch(Modulus, Modulus),
    /// A projection function table with the wrong number of entries.
    #[error("a projection from Z_{modulus} needs a table of {expected} entries, got {got}")]
    TableLength {
        modulus: Modulus,
        expected: usize,
        got: usize,
    },
    /// A gate whose garbled table would have more rows than a projection allows.
    #[error("a gate on Z_{0} needs too many rows: gate inputs are limited to moduli up to {1}")]
    TooManyRows(Modulus, u64),
    /// The garbled-table bytes ended before the gate's rows did.
    #[error("garbled table truncated: needed {needed} more bytes, {left} left")]
    TruncatedTable { needed: usize, left: usize },
    /// Garbled-table bytes that decode to no label (a digit group out of range, or
    /// nonzero padding bits).
    #[error("garbled table is malformed: {0}")]
    MalformedTable(&'static str),
    /// Garbled-table bytes left over after the last gate.
    #[error("garbled table has {0} unread bytes after the last gate")]
    TrailingTable(usize),
    /// A free-XOR offset whose colour bit is 0.
    #[error("the Boolean offset Δ must have lsb(Δ) = 1 (point-and-permute)")]
    BooleanDeltaColour,
    /// A CRT prime set that is empty, repeats a prime, holds a non-prime, or whose
    /// product does not fit in 128 bits.
    #[error("invalid CRT prime set: {0}")]
    InvalidPrimeSet(String),
    /// A product of two mod-2 wires: an AND, garbled by the Boolean half-gates.
    #[error("a product of mod-2 wires is an AND of the Boolean half-gates")]
    BooleanProduct,
    /// Two bundles over different prime sets.
    #[error("bundles over different prime sets cannot be combined")]
    BundleMismatch,
    /// A ring label mod 2^k with k outside 1..=128.
    #[error("a ring label mod 2^k needs 1 <= k <= 128, got k = {0}")]
    RingBits(u32),
    /// Arguments of a Boolean ↔ arithmetic conversion that do not fit together.
    #[error("conversion: {0}")]
    Conversion(String),
    /// A bit width outside the range prime selection supports.
    #[error("bit width {0} is out of range: prime selection supports {MIN_WIDTH}..={MAX_WIDTH}")]
    WidthOutOfRange(u32),
}
