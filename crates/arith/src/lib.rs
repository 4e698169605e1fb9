//! Arithmetic garbling over prime moduli and CRT bundles (BMR16 "Garbling gadgets";
//! ABLE, Mo et al., §2–3), sans-IO like `mixgc-garble`.
//!
//! - [`Modulus`]: an odd prime or a power of two 2^k (the conversions' moduli); nothing
//!   else can be built, so no composite-modulus wire exists (SECURITY-NOTES).
//! - [`Label`]: W^x = W^0 + x·Δ_m ∈ Z_m^ℓ with ℓ = 1 + ⌈128/log2 p⌉ for odd p (128 for 2^k,
//!   mod-2 labels are the free-XOR blocks), colour digit 0, Δ's colour digit = 1.
//!   Addition, subtraction, negation and public multiplication are free.
//! - [`ArithHash`]: keyed BLAKE3 XOF over the whole label, tweaked by (domain, gate),
//!   reduced into Z_q^ℓ from ≥ ℓ·log2 q + 64 bits.
//! - [`ArithGarbler`] / [`ArithEvaluator`]: projections Z_p → Z_q of any function and
//!   public exponentiation (p − 1 rows), products of two mod-p wires (2(p − 1) rows),
//!   garbled-table bytes in [`codec`]'s packing.
//! - [`PrimeSet`], [`CrtBundle`]: values in Z_N over distinct primes; [`primes`] picks the
//!   set of minimum sum for a bit width, exactly (better than ABLE's Algorithm 1).
//!
//! Rows per gate (each row is one packed label of the output modulus,
//! [`codec::label_bytes`]: 16 B mod 2, 17 B mod 3, 5 and 7, 18 B mod 251):
//!
//! | gadget | rows | mod 3 | mod 251 |
//! |---|---|---|---|
//! | add, sub, neg, public mul | 0 | 0 B | 0 B |
//! | projection Z_p → Z_q, pow | p − 1 | 34 B (to Z_3) | 4,500 B (to Z_251) |
//! | product of two mod-p wires | 2(p − 1) | 68 B | 9,000 B |

mod convert;
mod crt;
mod error;
mod evaluator;
mod garbler;
mod hash;
mod label;
mod modulus;
mod ring;
mod side;

pub mod codec;
pub mod cost;
pub mod primes;

pub use codec::TableReader;
pub use crt::{CrtBundle, PrimeSet};
pub use error::ArithError;
pub use evaluator::ArithEvaluator;
pub use garbler::{ArithGarbler, MAX_ROWS_MODULUS};
pub use hash::{ArithHash, Domain, Tweak};
pub use label::Label;
pub use modulus::{Modulus, MAX_ODD_PRIME, MAX_POWER_OF_TWO_EXPONENT};
pub use ring::{row_bytes as ring_row_bytes, RingLabel, MAX_RING_BITS, RING_DIGITS};
