//! The arithmetic of arithmetic garbling without its cryptography: the moduli a wire may
//! have ([`Modulus`]: an odd prime or a power of two, with its label shape), CRT prime sets
//! ([`PrimeSet`]) and their selection for a bit width ([`primes`], ABLE Algorithm 1 and
//! the exact minimum sum), the garbled-table size of each primitive ([`table_bytes`]) and
//! of CRT inputs and outputs ([`cost::protocol`]), and the errors of arithmetic garbling
//! ([`ArithError`]). `mixgc-arith` garbles on these; `mixgc-program` counts and runs CRT
//! programs with them without depending on the garbling core.

mod crt;
mod error;
mod modulus;
mod prime;

pub mod cost;
pub mod primes;
pub mod table_bytes;

pub use crt::PrimeSet;
pub use error::ArithError;
pub use modulus::{add_mod, GroupBuffer, Modulus, MAX_ODD_PRIME, MAX_POWER_OF_TWO_EXPONENT};
pub use prime::{OddPrime, ODD_GROUPS};
