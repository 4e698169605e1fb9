//! Arithmetic garbling over prime moduli and CRT bundles (BMR16 "Garbling gadgets";
//! ABLE, Mo et al., §2–3), sans-IO like `mixgc-garble`.
//!
//! - [`Modulus`]: an odd prime or a power of two 2^k (the conversions' moduli); nothing
//!   else can be built, so no composite-modulus wire exists (`docs/security.md`, "Moduli:
//!   primes and powers of two only").
//! - [`Label`]: W^x = W^0 + x·Δ_m ∈ Z_m^ℓ with ℓ = 1 + ⌈128/log2 p⌉ for odd p (128 for 2^k,
//!   mod-2 labels are the free-XOR blocks), colour digit 0, Δ's colour digit = 1.
//!   Addition, subtraction, negation and public multiplication are free.
//! - [`ArithHash`]: hashes whole labels, tweaked by (domain, gate, moduli), reduced into
//!   Z_q^ℓ from ≥ ℓ·log2 q + 64 bits: rows between mod-2 and odd-prime labels use a
//!   two-block TCCR on AES with its security argument (`row_hash.rs`); lifts into Z_{2^k}
//!   and mod-2^k labels use keyed BLAKE3 XOF (`hash.rs`).
//! - [`ArithGarbler`] / [`ArithEvaluator`]: the label-level primitives, sans-IO:
//!   projections Z_p → Z_q of any function and public exponentiation (p − 1 rows),
//!   products of two wires mod an odd prime (2(p − 1) rows; mod 2 a product is an AND of
//!   the Boolean half-gates, `mixgc-garble`), bit compositions into odd primes and lifts of
//!   Boolean labels to Z_{2^k}, garbled-table bytes in [`codec`]'s packing and
//!   [`table_bytes`]. The CRT gadgets built on them (products of bundles, mux, BC, BD) are
//!   written once in `mixgc_program::crt::gadgets` and run by the session's backends.
//! - [`PrimeSet`], [`CrtBundle`]: values in Z_N over distinct primes; [`primes`] picks the
//!   set of minimum sum for a bit width, exactly (better than ABLE's Algorithm 1).
//! - [`RingLabel`]: labels mod 2^k for 1 ≤ k ≤ 128 (128 digits of k bits; every Δ_{2^k} is
//!   one master offset truncated, its low bits the Boolean Δ), the intermediate of the
//!   conversions (`Label` keeps 64-bit digits, so its 2^k wires stop at k = 64).
//! - Conversions (ABLE §3.2, Li–Liu): their primitives, [`ArithGarbler::lift`] and
//!   [`ArithGarbler::compose_powers`]; `mixgc_program::conversion_cost` counts the gadgets'
//!   tables against ABLE's Table 1 (BC equal, BD 3.1–4.0× smaller).
//!
//! Rows per gate (each row is one packed label of the output modulus, masked group by group
//! by the hash ([`codec`]), [`codec::label_bytes`]: 16 B mod 2, 17 B mod 3, 5 and 7, 18 B
//! mod 251):
//!
//! | gadget | rows | mod 3 | mod 251 |
//! |---|---|---|---|
//! | add, sub, neg, public mul | 0 | 0 B | 0 B |
//! | projection Z_p → Z_q, pow | p − 1 | 34 B (to Z_3) | 4,500 B (to Z_251) |
//! | product of two mod-p wires | 2(p − 1) | 68 B | 9,000 B |
//!
//! Conversions (rows as ABLE counts them: a ring row mod 2^k is k rows of 16 B; the mod-2^k
//! and CRT ones are the gadgets of `mixgc_program`, their ANDs 2 rows each):
//!
//! | gadget | rows | ABLE |
//! |---|---|---|
//! | lift a Boolean label to mod 2^k | k − 1 | k |
//! | mod-2^k composition of k bits (weights 2^j) | k(k − 1)/2 | k² |
//! | mod-2^k decomposition, k bits | k(k − 1)/2 | (k² + 3k − 2)/2 |
//! | CRT composition, w bits | w·(odd primes) | the same |
//! | CRT decomposition, 4/8/16/32/64 bits | 68 / 232 / 841 / 2,880 / 10,039 | 275 / 937 / 2,582 / 9,322 / 32,377 |

mod composition;
mod crt;
mod encoding;
mod evaluator;
mod garbler;
mod grouped;
mod hash;
mod inputs;
mod label;
mod lift;
mod ring;
mod row_hash;
mod tweak;

pub mod codec;

pub use codec::TableReader;
pub use composition::{term_sizes, Term};
pub use crt::CrtBundle;
pub use evaluator::ArithEvaluator;
pub use garbler::{ArithGarbler, MAX_ROWS_MODULUS};
pub use hash::ArithHash;
pub use inputs::{residue_bit_counts, residue_choice_bits};
pub use label::Label;
pub use mixgc_moduli::{
    cost, primes, table_bytes, ArithError, Modulus, PrimeSet, MAX_ODD_PRIME, MAX_POWER_OF_TWO_EXPONENT,
};
pub use ring::{ring_row_digits, row_bytes as ring_row_bytes, RingLabel, MAX_RING_BITS, RING_DIGITS};
pub use tweak::{Domain, Tweak};
