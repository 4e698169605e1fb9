//! A trusted-dealer [`Preprocessor`]: **tests only, insecure**.
//!
//! Both parties build their dealer from the same seed, and each draws the whole of WRK17's
//! F_Pre output (Fig. 1 of ePrint 2017/030: Δ_A, Δ_B, random authenticated shares and
//! authenticated AND triples) from one ChaCha20 stream, keeping only its own view. Each
//! party therefore knows the other's Δ and shares implicitly (through the seed): this
//! stands in for the real preprocessing in `prep/` so that the garbling and online phase can
//! be tested and measured on their own. Never use it where the peer may be dishonest.

use mixgc_core::{new_rng, Block, Rng};
use rand::Rng as _;

use crate::auth::{AuthShare, AuthTriple, Delta, Preprocessor, Role};
use crate::MaliciousError;

/// Most shares or triples one call may ask for (a guard against a runaway count).
pub const MAX_DEALER_BATCH: usize = 1 << 26;

/// One party's end of an insecure trusted dealer (see the module documentation).
pub struct TrustedDealer {
    role: Role,
    delta_a: Block,
    delta_b: Block,
    rng: Rng,
}

impl TrustedDealer {
    /// The dealer of `role`; the peer's dealer must be built from the same `seed`.
    pub fn new(seed: u64, role: Role) -> TrustedDealer {
        let mut rng = new_rng(Some(seed), 0x6d61_6c64_6561_6c72);
        let delta_a = Block::random(&mut rng).with_lsb_set();
        let delta_b = Block::random(&mut rng);
        TrustedDealer {
            role,
            delta_a,
            delta_b,
            rng,
        }
    }

    /// Both parties' dealers from one seed (garbler, evaluator).
    pub fn pair(seed: u64) -> (TrustedDealer, TrustedDealer) {
        (
            TrustedDealer::new(seed, Role::Garbler),
            TrustedDealer::new(seed, Role::Evaluator),
        )
    }

    /// Both views of an authenticated share of x = x_a ⊕ x_b: (garbler's, evaluator's).
    fn share_of(&mut self, x_a: bool, x_b: bool) -> (AuthShare, AuthShare) {
        // K_b: the evaluator's key on x_a; K_a: the garbler's key on x_b.
        let key_b = Block::random(&mut self.rng);
        let key_a = Block::random(&mut self.rng);
        let garbler = AuthShare {
            bit: x_a,
            mac: key_b ^ self.delta_b.and_bit(x_a),
            key: key_a,
        };
        let evaluator = AuthShare {
            bit: x_b,
            mac: key_a ^ self.delta_a.and_bit(x_b),
            key: key_b,
        };
        (garbler, evaluator)
    }

    fn mine(&self, views: (AuthShare, AuthShare)) -> AuthShare {
        match self.role {
            Role::Garbler => views.0,
            Role::Evaluator => views.1,
        }
    }

    fn random_share(&mut self) -> AuthShare {
        let (x_a, x_b) = (self.rng.gen(), self.rng.gen());
        let views = self.share_of(x_a, x_b);
        self.mine(views)
    }

    fn checked(n: usize) -> Result<(), MaliciousError> {
        if n > MAX_DEALER_BATCH {
            return Err(MaliciousError::Input(format!(
                "the dealer deals at most {MAX_DEALER_BATCH} items per call, asked for {n}"
            )));
        }
        Ok(())
    }
}

impl Preprocessor for TrustedDealer {
    type Error = MaliciousError;

    fn role(&self) -> Role {
        self.role
    }

    fn delta(&self) -> Delta {
        Delta(match self.role {
            Role::Garbler => self.delta_a,
            Role::Evaluator => self.delta_b,
        })
    }

    fn random_shares(&mut self, n: usize) -> Result<Vec<AuthShare>, MaliciousError> {
        Self::checked(n)?;
        Ok((0..n).map(|_| self.random_share()).collect())
    }

    fn and_triples(&mut self, n: usize) -> Result<Vec<AuthTriple>, MaliciousError> {
        Self::checked(n)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let a = self.random_share_bits();
            let b = self.random_share_bits();
            let c_a: bool = self.rng.gen();
            let c_b = c_a ^ ((a.0 ^ a.1) & (b.0 ^ b.1));
            let a = self.share_of(a.0, a.1);
            let b = self.share_of(b.0, b.1);
            let c = self.share_of(c_a, c_b);
            out.push(AuthTriple {
                a: self.mine(a),
                b: self.mine(b),
                c: self.mine(c),
            });
        }
        Ok(out)
    }
}

impl TrustedDealer {
    fn random_share_bits(&mut self) -> (bool, bool) {
        (self.rng.gen(), self.rng.gen())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The MAC equation M\[x_P\] = K\[x_P\] ⊕ x_P·Δ_other holds both ways, and c = a ∧ b.
    #[test]
    fn dealt_shares_and_triples_are_consistent() {
        let (mut ga, mut ev) = TrustedDealer::pair(7);
        let (da, db) = (ga.delta().0, ev.delta().0);
        assert!(da.lsb(), "the garbler's Δ_A has lsb 1");
        let check = |a: &AuthShare, b: &AuthShare| {
            assert_eq!(a.mac, b.key ^ db.and_bit(a.bit));
            assert_eq!(b.mac, a.key ^ da.and_bit(b.bit));
        };
        for (a, b) in ga
            .random_shares(100)
            .unwrap()
            .iter()
            .zip(&ev.random_shares(100).unwrap())
        {
            check(a, b);
        }
        let (ta, tb) = (ga.and_triples(200).unwrap(), ev.and_triples(200).unwrap());
        let mut ones = 0;
        for (x, y) in ta.iter().zip(&tb) {
            check(&x.a, &y.a);
            check(&x.b, &y.b);
            check(&x.c, &y.c);
            let (a, b, c) = (x.a.bit ^ y.a.bit, x.b.bit ^ y.b.bit, x.c.bit ^ y.c.bit);
            assert_eq!(c, a & b);
            ones += usize::from(c);
        }
        assert!(
            (20..80).contains(&ones),
            "c = 1 in about a quarter of triples, got {ones}"
        );
    }

    #[test]
    fn runaway_counts_are_refused() {
        let mut d = TrustedDealer::new(1, Role::Garbler);
        assert!(matches!(
            d.random_shares(MAX_DEALER_BATCH + 1),
            Err(MaliciousError::Input(_))
        ));
    }
}
