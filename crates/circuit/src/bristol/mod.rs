//! Reading and writing circuits in the two Bristol text formats.
//!
//! # Bristol Fashion
//!
//! ```text
//! ngates nwires
//! niv w_1 ... w_niv          (number of input values, then the width of each)
//! nov w_1 ... w_nov          (number of output values, then the width of each)
//!
//! nin nout in_1 .. in_nin out_1 .. out_nout TYPE      (one gate per line)
//! ```
//!
//! Input value `i` occupies the next `w_i` wires, starting at wire 0; the outputs are the
//! last `sum(output widths)` wires, value by value. Wire 0 of a value is its least
//! significant bit (the reader never reorders bits). Gate types:
//!
//! | line | meaning |
//! |---|---|
//! | `2 1 a b o XOR` | `o = a ⊕ b` |
//! | `2 1 a b o AND` | `o = a ∧ b` |
//! | `1 1 a o INV` (or `NOT`) | `o = ¬a` |
//! | `1 1 c o EQ` | `o = c`, the constant `c ∈ {0, 1}` (not a wire) |
//! | `1 1 a o EQW` | `o = a` |
//! | `2k k a_1..a_k b_1..b_k o_1..o_k MAND` | `o_i = a_i ∧ b_i`: `k` ANDs in one line |
//! | `2 1 a b o OR` | `o = a ∨ b`, read as `a ⊕ b ⊕ (a ∧ b)` (one AND) |
//! | `2 1 a b o NAND` | `o = ¬(a ∧ b)` (one AND) |
//! | `2 1 a b o NOR` | `o = ¬a ∧ ¬b` (one AND) |
//! | `2 1 a b o XNOR` | `o = ¬(a ⊕ b)` (free) |
//!
//! The IR has XOR, AND and NOT only, so the last four are read as those gates through
//! new wires numbered after the declared ones, and written back decomposed. A UTF-8
//! byte-order mark at the start of the text is ignored.
//!
//! The MAND convention (first half of the inputs are the left operands) is the one of
//! SCALE-MAMBA's circuit documentation: `4 2 0 2 1 3 4 5 MAND` is `AND(0,1)→4` and
//! `AND(2,3)→5`. The reader expands MAND into `k` [`And`](crate::GateKind::And) gates.
//!
//! # Legacy Bristol format
//!
//! ```text
//! ngates nwires
//! n1 n2 n3                   (bits of input 1, bits of input 2, bits of the output)
//!
//! gates, same syntax
//! ```
//!
//! Read as two input values of widths `n1`, `n2` (a zero width is kept) and one output
//! value of `n3` bits, the last `n3` wires. The old circuits (e.g.
//! `AES-non-expanded.txt`) number their bits most significant first; the reader keeps
//! the wire order as it is, so a caller bit-reverses such values itself.
//!
//! # Shipped circuits
//!
//! `circuits/README.md` at the workspace root lists the reference circuits and their
//! conventions. Two worth repeating: `sha256.txt` (the SHA-256 compression function)
//! takes the 512-bit block as one big-endian integer (first byte most significant) and
//! the chaining state `H0‖…‖H7` as one 256-bit big-endian integer, and outputs the new
//! state the same way; the legacy `AES-non-expanded.txt` takes the plaintext first and
//! the key second, each with its bits reversed (wire 0 = most significant bit), and its
//! output is reversed too.
//!
//! # Robustness
//!
//! The reader never panics and never trusts the header's counts for allocation. Every
//! problem is a [`ParseError`](crate::ParseError) naming the file, the 1-based line and the reason. After
//! reading, the circuit is [validated](crate::Circuit::validate); a validation error is
//! reported at the line of the offending gate (or of the header line for the outputs).

mod detect;
mod gate;
mod lex;
mod parse;
mod write;

pub use detect::detect;
pub use parse::{parse, parse_as, read_file};
pub use write::{write_fashion, write_legacy};

/// Which of the two Bristol text formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// Bristol Fashion: any number of input and output values, `EQ`/`EQW`/`MAND` gates.
    Fashion,
    /// The legacy Bristol format: `n1 n2 n3` header, two inputs, one output.
    Legacy,
}
