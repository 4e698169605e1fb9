use crate::crt::{CrtBackend, PrimeSet};
use crate::modular::{add_mod, from_bits_mod, mul_mod, pow_mod, sub_mod};
use crate::{checked_input, Backend, PartyId, ProgramError};

/// Runs a program on cleartext bits: the reference every other backend is checked against.
///
/// CRT values are computed on the integer x mod N (not residue by residue), so they are an
/// independent reference for the garbled per-prime computation.
#[derive(Debug, Default)]
pub struct Plain {
    inputs: usize,
}

/// A CRT value in plaintext: x ∈ [0, N) and N.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlainCrt {
    value: u128,
    modulus: u128,
}

impl PlainCrt {
    /// x ∈ [0, N).
    pub fn value(&self) -> u128 {
        self.value
    }

    /// N, the product of the value's primes.
    pub fn modulus(&self) -> u128 {
        self.modulus
    }

    fn with(&self, value: u128) -> PlainCrt {
        PlainCrt {
            value,
            modulus: self.modulus,
        }
    }

    /// `f(a, b, N)` for two values of the same N.
    fn zip(&self, other: &PlainCrt, f: impl FnOnce(u128, u128, u128) -> u128) -> PlainCrt {
        assert_eq!(
            self.modulus, other.modulus,
            "CRT values of different moduli cannot be combined"
        );
        self.with(f(self.value, other.value, self.modulus))
    }
}

impl Backend for Plain {
    type Wire = bool;

    fn xor(&mut self, a: bool, b: bool) -> bool {
        a ^ b
    }
    fn and(&mut self, a: bool, b: bool) -> bool {
        a & b
    }
    fn not(&mut self, a: bool) -> bool {
        !a
    }
    fn constant(&mut self, value: bool) -> bool {
        value
    }

    fn input(
        &mut self,
        owner: PartyId,
        width: u32,
        value: Option<&[bool]>,
    ) -> Result<Vec<bool>, ProgramError> {
        let index = self.next_input();
        Ok(checked_input(index, owner, width, value)?.to_vec())
    }

    fn output(&mut self, wires: &[bool]) -> Result<Option<Vec<bool>>, ProgramError> {
        Ok(Some(wires.to_vec()))
    }
}

impl Plain {
    /// The index of the next input value (Boolean and CRT inputs share the numbering).
    fn next_input(&mut self) -> usize {
        self.inputs += 1;
        self.inputs - 1
    }
}

impl CrtBackend for Plain {
    type Bundle = PlainCrt;

    fn crt_input(
        &mut self,
        owner: PartyId,
        set: &PrimeSet,
        value: Option<u128>,
    ) -> Result<PlainCrt, ProgramError> {
        let index = self.next_input();
        let value = value.ok_or(ProgramError::MissingInput { index, owner })?;
        let modulus = set.product();
        if value >= modulus {
            return Err(ProgramError::OutOfRange(format!(
                "input #{index} of the {owner}: {value} is not below N = {modulus}"
            )));
        }
        Ok(PlainCrt { value, modulus })
    }

    fn crt_constant(&mut self, set: &PrimeSet, value: u128) -> PlainCrt {
        let modulus = set.product();
        PlainCrt {
            value: value % modulus,
            modulus,
        }
    }

    fn crt_add(&mut self, a: &PlainCrt, b: &PlainCrt) -> PlainCrt {
        a.zip(b, add_mod)
    }

    fn crt_sub(&mut self, a: &PlainCrt, b: &PlainCrt) -> PlainCrt {
        a.zip(b, sub_mod)
    }

    fn crt_scale(&mut self, a: &PlainCrt, c: u128) -> PlainCrt {
        a.with(mul_mod(a.value, c % a.modulus, a.modulus))
    }

    fn crt_mul(&mut self, a: &PlainCrt, b: &PlainCrt) -> PlainCrt {
        a.zip(b, mul_mod)
    }

    fn crt_pow(&mut self, a: &PlainCrt, e: u64) -> PlainCrt {
        a.with(pow_mod(a.value, e, a.modulus))
    }

    fn crt_mux(&mut self, select: bool, yes: &PlainCrt, no: &PlainCrt) -> PlainCrt {
        yes.zip(no, |y, n, _| if select { y } else { n })
    }

    fn crt_from_bits(&mut self, bits: &[bool], set: &PrimeSet) -> PlainCrt {
        let modulus = set.product();
        PlainCrt {
            value: from_bits_mod(bits, modulus),
            modulus,
        }
    }

    fn crt_to_bits(&mut self, a: &PlainCrt) -> Vec<bool> {
        let width = u128::BITS - (a.modulus - 1).leading_zeros();
        (0..width).map(|j| (a.value >> j) & 1 == 1).collect()
    }

    fn crt_output(&mut self, a: &PlainCrt) -> Result<Option<u128>, ProgramError> {
        Ok(Some(a.value))
    }
}
