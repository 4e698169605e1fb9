use crate::crt::{ArithBackend, Modulus, PrimeSet};
use crate::modular::{from_bits_mod, sub_mod};
use crate::{checked_input, Backend, PartyId, ProgramError};

/// Runs a program on cleartext bits: the reference every other backend is checked against.
///
/// CRT values are held residue by residue and run the gadgets of [`crate::crt::gadgets`],
/// except the bit decomposition, computed on the integer x mod N: an independent reference
/// for the garbled gadget, defined for every N (the gadget needs its CRT sum below 2^128).
/// A gadget error (a composition of no bits) is reported at the next input or output.
#[derive(Debug, Default)]
pub struct Plain {
    inputs: usize,
    error: Option<ProgramError>,
}

/// A wire mod p in plaintext: its value and p.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Residue {
    value: u64,
    modulus: u64,
}

impl Residue {
    /// The value, below the modulus.
    pub fn value(&self) -> u64 {
        self.value
    }

    pub fn modulus(&self) -> u64 {
        self.modulus
    }

    fn with(&self, value: u64) -> Residue {
        Residue {
            value: value % self.modulus,
            modulus: self.modulus,
        }
    }

    /// `f(a, b)` reduced, for two wires of the same modulus.
    fn zip(&self, other: &Residue, f: impl FnOnce(u64, u64) -> u64) -> Residue {
        assert_eq!(
            self.modulus, other.modulus,
            "wires of different moduli cannot be combined"
        );
        self.with(f(self.value, other.value))
    }
}

/// A wire mod 2^k in plaintext: its value and k.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RingValue {
    value: u128,
    bits: u32,
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
        self.check()?;
        let index = self.next_input();
        Ok(checked_input(index, owner, width, value)?.to_vec())
    }

    fn output(&mut self, wires: &[bool]) -> Result<Option<Vec<bool>>, ProgramError> {
        self.check()?;
        Ok(Some(wires.to_vec()))
    }
}

impl Plain {
    /// The index of the next input value (Boolean and CRT inputs share the numbering).
    fn next_input(&mut self) -> usize {
        self.inputs += 1;
        self.inputs - 1
    }

    /// The error of an earlier gadget, if any.
    fn check(&self) -> Result<(), ProgramError> {
        self.error.clone().map_or(Ok(()), Err)
    }
}

impl ArithBackend for Plain {
    type ModWire = Residue;
    type RingWire = RingValue;

    fn crt_input(
        &mut self,
        owner: PartyId,
        set: &PrimeSet,
        value: Option<u128>,
    ) -> Result<Vec<Residue>, ProgramError> {
        self.check()?;
        let index = self.next_input();
        let value = value.ok_or(ProgramError::MissingInput { index, owner })?;
        let modulus = set.product();
        if value >= modulus {
            return Err(ProgramError::OutOfRange(format!(
                "input #{index} of the {owner}: {value} is not below N = {modulus}"
            )));
        }
        Ok(self.crt_constant(set, value))
    }

    fn crt_output(&mut self, set: &PrimeSet, x: &[Residue]) -> Result<Option<u128>, ProgramError> {
        self.check()?;
        let residues: Vec<u64> = x.iter().map(Residue::value).collect();
        let value = set.decode(&residues).expect("residues below their primes");
        Ok(Some(value))
    }

    fn mod_constant(&mut self, m: Modulus, value: u64) -> Residue {
        let modulus = m.value() as u64;
        Residue {
            value: value % modulus,
            modulus,
        }
    }

    fn mod_add(&mut self, a: &Residue, b: &Residue) -> Residue {
        a.zip(b, |a, b| a + b)
    }

    fn mod_sub(&mut self, a: &Residue, b: &Residue) -> Residue {
        let p = a.modulus;
        a.zip(b, |a, b| sub_mod(a.into(), b.into(), p.into()) as u64)
    }

    fn mod_scale(&mut self, a: &Residue, c: u64) -> Residue {
        a.with(a.value * (c % a.modulus))
    }

    fn mod_project(&mut self, a: &Residue, out: Modulus, table: &[u64]) -> Residue {
        let value = table[a.value as usize];
        self.mod_constant(out, value)
    }

    fn mod_to_bit(&mut self, a: &Residue, table: &[u64]) -> bool {
        table[a.value as usize] & 1 == 1
    }

    fn bits_to_mod(&mut self, terms: &[(&[bool], Modulus)]) -> Vec<Residue> {
        let sum = |&(bits, m): &(&[bool], Modulus)| Residue {
            value: from_bits_mod(bits, m.value()) as u64,
            modulus: m.value() as u64,
        };
        terms.iter().map(sum).collect()
    }

    fn mod_mul(&mut self, pairs: &[(&Residue, &Residue)]) -> Vec<Residue> {
        pairs.iter().map(|(a, b)| a.zip(b, |a, b| a * b)).collect()
    }

    fn bit_to_mod2(&mut self, bit: bool) -> Residue {
        Residue {
            value: bit.into(),
            modulus: 2,
        }
    }

    fn mod2_to_bit(&mut self, a: &Residue) -> bool {
        a.value == 1
    }

    fn ring_lift(&mut self, bit: bool, bits: u32) -> RingValue {
        RingValue {
            value: bit.into(),
            bits,
        }
    }

    fn ring_zero(&mut self, bits: u32) -> RingValue {
        RingValue { value: 0, bits }
    }

    fn ring_add_shifted(&mut self, acc: &mut RingValue, x: &RingValue, c: u128, shift: u32) {
        let mask = u128::MAX >> (128 - acc.bits);
        acc.value = acc.value.wrapping_add(x.value.wrapping_mul(c) << shift) & mask;
    }

    fn ring_slice(&mut self, a: &RingValue, i: u32) -> bool {
        (a.value >> i) & 1 == 1
    }

    fn gadget_error(&mut self, e: ProgramError) {
        self.error.get_or_insert(e);
    }

    /// On the integer x mod N: defined for every N.
    fn crt_to_bits(&mut self, set: &PrimeSet, a: &[Residue]) -> Vec<bool> {
        let residues: Vec<u64> = a.iter().map(Residue::value).collect();
        let value = set.decode(&residues).expect("residues below their primes");
        let width = crate::crt::gadgets::decomposition_width(set);
        (0..width).map(|j| (value >> j) & 1 == 1).collect()
    }
}
