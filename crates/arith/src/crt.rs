//! CRT bundles: a value in Z_N, N a product of distinct primes, as one wire per prime
//! (the residue number system of BMR16 §6 and ABLE §2.2). Addition, subtraction, negation
//! and public multiplication are free per wire; the gadgets on bundles (products, powers,
//! conversions) are `mixgc_program::crt::gadgets`, over this crate's label-level primitives.
//! The mod-2 wire of a bundle is a Boolean (free-XOR) wire.

use crate::{ArithError, ArithEvaluator, ArithGarbler, Label, PrimeSet};

/// A value in Z_N as one label per prime of its [`PrimeSet`].
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CrtBundle {
    set: PrimeSet,
    wires: Vec<Label>,
}

impl CrtBundle {
    /// The bundle of `wires`, one per prime of `set`, in the set's order.
    pub fn new(set: &PrimeSet, wires: Vec<Label>) -> Result<CrtBundle, ArithError> {
        if wires.len() != set.moduli().len() {
            return Err(ArithError::InvalidPrimeSet(format!(
                "{} wires for {} primes",
                wires.len(),
                set.moduli().len()
            )));
        }
        if let Some((w, &m)) = wires.iter().zip(set.moduli()).find(|(w, &m)| w.modulus() != m) {
            return Err(ArithError::ModulusMismatch(w.modulus(), m));
        }
        Ok(CrtBundle {
            set: set.clone(),
            wires,
        })
    }

    pub fn set(&self) -> &PrimeSet {
        &self.set
    }

    pub fn wires(&self) -> &[Label] {
        &self.wires
    }

    /// Wire by wire, `f(self_i, other_i)`, for two bundles over the same set.
    fn zip_with(
        &self,
        other: &CrtBundle,
        mut f: impl FnMut(&Label, &Label) -> Result<Label, ArithError>,
    ) -> Result<CrtBundle, ArithError> {
        if other.set != self.set {
            return Err(ArithError::BundleMismatch);
        }
        let wires = self
            .wires
            .iter()
            .zip(&other.wires)
            .map(|(a, b)| f(a, b))
            .collect::<Result<_, _>>()?;
        Ok(CrtBundle {
            set: self.set.clone(),
            wires,
        })
    }

    /// Wire by wire, `f(p_i, self_i)`.
    fn map(&self, f: impl FnMut((&u64, &Label)) -> Label) -> CrtBundle {
        CrtBundle {
            set: self.set.clone(),
            wires: self.set.primes().iter().zip(&self.wires).map(f).collect(),
        }
    }

    /// self + other in Z_N (free).
    pub fn add(&self, other: &CrtBundle) -> Result<CrtBundle, ArithError> {
        self.zip_with(other, Label::add)
    }

    /// self − other in Z_N (free).
    pub fn sub(&self, other: &CrtBundle) -> Result<CrtBundle, ArithError> {
        self.zip_with(other, Label::sub)
    }

    /// −self in Z_N (free).
    pub fn neg(&self) -> CrtBundle {
        self.map(|(_, w)| w.neg())
    }

    /// c·self in Z_N for a public c (free).
    pub fn scale(&self, c: u128) -> CrtBundle {
        self.map(|(&p, w)| w.scale((c % p as u128) as u64))
    }
}

impl ArithGarbler {
    /// The zero-labels of a new input bundle over `set`.
    pub fn new_bundle(&mut self, set: &PrimeSet) -> CrtBundle {
        let wires = set.moduli().iter().map(|&m| self.new_wire(m)).collect();
        CrtBundle {
            set: set.clone(),
            wires,
        }
    }

    /// The labels of x ∈ Z_N on the bundle with zero-labels `zero`.
    pub fn encode_bundle(&mut self, zero: &CrtBundle, x: u128) -> Result<CrtBundle, ArithError> {
        let residues = zero.set.encode(x)?;
        let wires = zero
            .wires
            .iter()
            .zip(residues)
            .map(|(w, r)| self.encode(w, r))
            .collect::<Result<_, _>>()?;
        Ok(CrtBundle {
            set: zero.set.clone(),
            wires,
        })
    }

    /// The decoding information of each wire ([`ArithGarbler::decoding`]).
    pub fn bundle_decoding(zero: &CrtBundle) -> Vec<u64> {
        zero.wires.iter().map(ArithGarbler::decoding).collect()
    }
}

impl ArithEvaluator {
    /// The value in Z_N of the bundle `bundle`, from [`ArithGarbler::bundle_decoding`].
    pub fn decode_bundle(bundle: &CrtBundle, decoding: &[u64]) -> Result<u128, ArithError> {
        if decoding.len() != bundle.wires.len() {
            return Err(ArithError::InvalidPrimeSet(format!(
                "{} decodings for {} wires",
                decoding.len(),
                bundle.wires.len()
            )));
        }
        let residues: Vec<u64> = bundle
            .wires
            .iter()
            .zip(decoding)
            .map(|(w, &d)| ArithEvaluator::decode(w, d))
            .collect();
        bundle.set.decode(&residues)
    }
}
