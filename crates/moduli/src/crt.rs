//! CRT prime sets: N a product of distinct primes below 2^128, and the residues of x ∈ Z_N.

use std::fmt;
use std::sync::Arc;

use crate::{ArithError, Modulus};

/// A set of distinct primes, ascending, with product N < 2^128. Cloning is cheap (the
/// primes are shared): every CRT value and bundle holds its set.
#[derive(Clone)]
pub struct PrimeSet(Arc<Primes>);

/// The contents of a [`PrimeSet`].
struct Primes {
    primes: Vec<u64>,
    moduli: Vec<Modulus>,
    product: u128,
}

impl PartialEq for PrimeSet {
    fn eq(&self, other: &PrimeSet) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.primes == other.0.primes
    }
}

impl Eq for PrimeSet {}

impl fmt::Debug for PrimeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrimeSet")
            .field("primes", &self.0.primes)
            .field("moduli", &self.0.moduli)
            .field("product", &self.0.product)
            .finish()
    }
}

impl PrimeSet {
    /// The set of `primes` (any order); refuses an empty set, repeats, non-primes and
    /// products of 2^128 or more.
    pub fn new(primes: &[u64]) -> Result<PrimeSet, ArithError> {
        let invalid = |why: String| Err(ArithError::InvalidPrimeSet(why));
        let mut sorted = primes.to_vec();
        sorted.sort_unstable();
        if sorted.is_empty() {
            return invalid("no primes".into());
        }
        if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
            return invalid(format!("{} appears twice", w[0]));
        }
        let mut moduli = Vec::with_capacity(sorted.len());
        let mut product = 1u128;
        for &p in &sorted {
            let m = match Modulus::new(p) {
                Ok(m) if p == 2 || p % 2 == 1 => m,
                Ok(_) => return invalid(format!("{p} is not prime")),
                Err(e) => return invalid(e.to_string()),
            };
            moduli.push(m);
            product = match product.checked_mul(p as u128) {
                Some(n) => n,
                None => return invalid("the product needs more than 128 bits".into()),
            };
        }
        Ok(PrimeSet(Arc::new(Primes {
            primes: sorted,
            moduli,
            product,
        })))
    }

    /// The primes, ascending.
    pub fn primes(&self) -> &[u64] {
        &self.0.primes
    }

    /// The wire modulus of each prime.
    pub fn moduli(&self) -> &[Modulus] {
        &self.0.moduli
    }

    /// N, the product of the primes.
    pub fn product(&self) -> u128 {
        self.0.product
    }

    /// The sum of the primes (the garbling cost measure of ABLE §3.1).
    pub fn sum(&self) -> u64 {
        self.primes().iter().sum()
    }

    /// The residues of x ∈ Z_N.
    pub fn encode(&self, x: u128) -> Result<Vec<u64>, ArithError> {
        if x >= self.product() {
            return Err(ArithError::InvalidPrimeSet(format!(
                "{x} is not below the product {}",
                self.product()
            )));
        }
        Ok(self.primes().iter().map(|&p| (x % p as u128) as u64).collect())
    }

    /// The x ∈ Z_N with these residues (Garner's mixed-radix algorithm: every partial sum
    /// stays below N, so nothing overflows 128 bits).
    pub fn decode(&self, residues: &[u64]) -> Result<u128, ArithError> {
        if residues.len() != self.primes().len() {
            return Err(ArithError::InvalidPrimeSet(format!(
                "{} residues for {} primes",
                residues.len(),
                self.primes().len()
            )));
        }
        let (mut x, mut radix) = (0u128, 1u128);
        for ((&p, &m), &r) in self.primes().iter().zip(self.moduli()).zip(residues) {
            if r >= p {
                return Err(ArithError::OutOfRange {
                    what: "residue",
                    value: r as u128,
                    modulus: m,
                });
            }
            // x + v·radix ≡ r (mod p): v = (r − x)·radix⁻¹ mod p (radix is coprime to p).
            let radix_mod = m.reduce(radix);
            let inverse = m.inverse(radix_mod).unwrap_or(1);
            let v = m.mul(m.sub(r, m.reduce(x)), inverse);
            x += v as u128 * radix;
            radix *= p as u128;
        }
        Ok(x)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prime_sets_are_validated() {
        assert_eq!(PrimeSet::new(&[5, 2, 3]).unwrap().primes(), [2, 3, 5]);
        // Equality is by the primes, for clones and for sets built apart alike.
        let set = PrimeSet::new(&[5, 2, 3]).unwrap();
        assert_eq!(set, set.clone());
        assert_eq!(set, PrimeSet::new(&[2, 3, 5]).unwrap());
        assert_ne!(set, PrimeSet::new(&[2, 3, 7]).unwrap());
        for bad in [&[][..], &[2, 3, 3], &[2, 4], &[3, 9], &[1, 3], &[65_537]] {
            assert!(
                matches!(PrimeSet::new(bad), Err(ArithError::InvalidPrimeSet(_))),
                "{bad:?}"
            );
        }
        // 29 primes from 2 to 109: product above 2^128.
        let many: Vec<u64> = (2..110).filter(|&n| crate::primes::is_prime(n)).collect();
        assert!(PrimeSet::new(&many).is_err());
    }

    #[test]
    fn crt_round_trips() {
        let set = PrimeSet::new(&[2, 3, 5, 7, 11, 13, 17, 19, 23, 31, 41]).unwrap();
        let n = set.product();
        for x in [0, 1, 2, 12_345, n / 2, n - 1]
            .into_iter()
            .chain((0..200).map(|i| i * 7_919_993 % n))
        {
            assert_eq!(set.decode(&set.encode(x).unwrap()).unwrap(), x);
        }
        assert!(set.encode(n).is_err());
        assert!(set.decode(&[0; 3]).is_err());
        let mut residues = set.encode(5).unwrap();
        residues[1] = 3;
        assert!(matches!(
            set.decode(&residues),
            Err(ArithError::OutOfRange { .. })
        ));
        // The largest product supported: the first 26 primes (127.45 bits).
        let wide = crate::primes::first_primes(127).unwrap();
        let top = wide.product() - 1;
        assert_eq!(wide.decode(&wide.encode(top).unwrap()).unwrap(), top);
    }
}
