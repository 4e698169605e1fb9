//! Information-theoretic MACs and authenticated shares (WRK17 §2.2).
//!
//! Each party P holds a global key Δ_P. A bit x held by party B is *authenticated to A*
//! when B holds a MAC M[x] and A holds a key K[x] with M[x] = K[x] ⊕ x·Δ_A (and symmetrically
//! with the roles swapped). An *authenticated share* ⟨x⟩ of a secret bit x = x_A ⊕ x_B is
//! the pair of such authenticated bits: each party holds its bit, its MAC on that bit under
//! the other's Δ, and its key on the other's bit under its own Δ.

use mixgc_core::Block;

/// Which side of WRK17 a party plays: A garbles, B evaluates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Garbler,
    Evaluator,
}

/// A party's global MAC key Δ. The garbler's Δ_A is also its free-XOR offset, so its
/// least significant bit is 1 (point-and-permute); the evaluator's has no such constraint.
/// Overwritten with zeros when dropped.
#[derive(Clone, PartialEq, Eq)]
pub struct Delta(pub Block);

impl Drop for Delta {
    fn drop(&mut self) {
        // A volatile write, so the compiler cannot drop it as dead.
        unsafe { std::ptr::write_volatile(&mut self.0, Block::ZERO) };
    }
}

impl std::fmt::Debug for Delta {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Delta(…)")
    }
}

/// One party's view of an authenticated share ⟨x⟩ of x = x_A ⊕ x_B.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AuthShare {
    /// This party's share x_P.
    pub bit: bool,
    /// M[x_P] = K[x_P] ⊕ x_P·Δ_other, held by this party.
    pub mac: Block,
    /// K[x_other], this party's key on the other party's share: M[x_other] = K[x_other] ⊕ x_other·Δ_self.
    pub key: Block,
}

impl AuthShare {
    /// ⟨x⟩ ⊕ ⟨y⟩: shares, MACs and keys add (the MAC scheme is linear).
    #[inline(always)]
    pub fn xor(self, other: AuthShare) -> AuthShare {
        AuthShare {
            bit: self.bit ^ other.bit,
            mac: self.mac ^ other.mac,
            key: self.key ^ other.key,
        }
    }
}

/// One party's view of an authenticated AND triple ⟨a⟩, ⟨b⟩, ⟨c⟩ with c = a ∧ b.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AuthTriple {
    pub a: AuthShare,
    pub b: AuthShare,
    pub c: AuthShare,
}

/// WRK17's F_Pre, function independent: random authenticated shares and AND triples,
/// produced in batches over the party's channel. Both parties call the same methods with
/// the same counts in the same order.
pub trait Preprocessor {
    type Error: Into<crate::MaliciousError>;

    fn role(&self) -> Role;
    /// This party's global key Δ_P.
    fn delta(&self) -> Delta;
    /// `n` random authenticated shares ⟨r⟩ (uniform r, neither party knows it).
    fn random_shares(&mut self, n: usize) -> Result<Vec<AuthShare>, Self::Error>;
    /// `n` random authenticated AND triples.
    fn and_triples(&mut self, n: usize) -> Result<Vec<AuthTriple>, Self::Error>;
    /// [`Preprocessor::random_shares`] into `out` (replacing its contents): a caller that
    /// keeps `out` between batches reuses its allocation, so its pages are not faulted in
    /// and cleared again for every batch. The values are those `random_shares` would give.
    fn random_shares_into(&mut self, n: usize, out: &mut Vec<AuthShare>) -> Result<(), Self::Error> {
        *out = self.random_shares(n)?;
        Ok(())
    }
    /// [`Preprocessor::and_triples`] into `out` (replacing its contents), as
    /// [`Preprocessor::random_shares_into`].
    fn and_triples_into(&mut self, n: usize, out: &mut Vec<AuthTriple>) -> Result<(), Self::Error> {
        *out = self.and_triples(n)?;
        Ok(())
    }
    /// The `n` triples [`Preprocessor::and_triples`] would return, lent to `use_them` as one
    /// slice and consumed: a preprocessor that holds its triples in batches may lend them
    /// in place instead of copying them out. Errors of `use_them` are passed through.
    fn with_and_triples<R>(
        &mut self,
        n: usize,
        use_them: impl FnOnce(&[AuthTriple]) -> Result<R, crate::MaliciousError>,
    ) -> Result<R, crate::MaliciousError> {
        let triples = self.and_triples(n).map_err(Into::into)?;
        use_them(&triples)
    }
    /// A hint that about `n` more AND triples will be asked for in this session (e.g. the
    /// AND count of all `--executions` of a circuit): a preprocessor may then generate them
    /// in larger batches (fewer round trips, and WRK17's smaller bucket from 280,000 on).
    /// Both parties must give the same hints at the same points. Ignored by default.
    fn plan_triples(&mut self, n: u64) {
        let _ = n;
    }
}
