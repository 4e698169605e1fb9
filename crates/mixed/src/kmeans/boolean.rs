//! The B-form part of Kmeans: lane-wise circuits on XOR shares (GMW, [`BooleanEngine::and`]),
//! every AND counted so that a run can be checked against [`super::KmeansSize::cost`].
//!
//! Values are bit-position lanes: `lanes[b][i]` is this party's share of bit b (least
//! significant first) of value i.

use mixgc_nparty::Mesh;

use crate::a2b::{not, public_bits, xor, BooleanEngine};
use crate::MixedError;

/// XOR shares of one value per lane, by bit position.
pub(crate) type Lanes = Vec<Vec<u8>>;

/// The engine and mesh the ANDs run on, and how many ANDs ran.
pub(crate) struct Gates<'a> {
    pub engine: &'a mut BooleanEngine,
    pub mesh: &'a mut Mesh,
    pub ands: usize,
}

impl Gates<'_> {
    fn me(&self) -> usize {
        self.mesh.me()
    }

    /// x ∧ y lane-wise, counted.
    fn and(&mut self, x: &[u8], y: &[u8]) -> Result<Vec<u8>, MixedError> {
        self.ands += x.len();
        self.engine.and(self.mesh, x, y)
    }

    /// a − b over `a.len()` bit positions (b as wide as a): the difference mod 2^width and
    /// [a ≥ b] per lane. a + ¬b + 1 by ripple carry, one AND per position (the carry
    /// c' = c ⊕ ((x ⊕ c) ∧ (y ⊕ c))); its carry out is [a ≥ b].
    pub fn subtract(&mut self, a: &[Vec<u8>], b: &[Vec<u8>]) -> Result<(Lanes, Vec<u8>), MixedError> {
        let me = self.me();
        let lanes = a.first().map_or(0, Vec::len);
        let mut carry = public_bits(me, |_| 1, lanes);
        let mut difference = Vec::with_capacity(a.len());
        for (aj, bj) in a.iter().zip(b) {
            let nb = not(me, bj);
            difference.push(xor(&xor(aj, &nb), &carry));
            let g = self.and(&xor(aj, &carry), &xor(&nb, &carry))?;
            carry = xor(&carry, &g);
        }
        Ok((difference, carry))
    }

    /// Per lane, `if_true` where `choose` is 1, else `if_false`: f ⊕ choose·(f ⊕ t) on
    /// every row in one AND layer.
    pub fn select(
        &mut self,
        choose: &[u8],
        if_false: &[Vec<u8>],
        if_true: &[Vec<u8>],
    ) -> Result<Lanes, MixedError> {
        let k = choose.len();
        let difference: Vec<u8> = if_false
            .iter()
            .zip(if_true)
            .flat_map(|(f, t)| xor(f, t))
            .collect();
        let repeated: Vec<u8> = (0..if_false.len()).flat_map(|_| choose.iter().copied()).collect();
        let picked = self.and(&repeated, &difference)?;
        Ok(if_false
            .iter()
            .zip(picked.chunks(k.max(1)))
            .map(|(f, p)| xor(f, p))
            .collect())
    }

    /// [every row is 0] per lane: ¬a_0 ∧ ¬a_1 ∧ …, rows − 1 ANDs per lane.
    pub fn is_zero(&mut self, a: &Lanes) -> Result<Vec<u8>, MixedError> {
        let me = self.me();
        let mut rows = a.iter().map(|r| not(me, r));
        let Some(mut all) = rows.next() else {
            return Err(MixedError::Usage("a zero test of a 0-bit value".into()));
        };
        for r in rows {
            all = self.and(&all, &r)?;
        }
        Ok(all)
    }

    /// The one-hot position of the minimum of `candidates` per lane (the lowest position
    /// among equals): a tournament in ⌈log2 k⌉ rounds, the pairs of a round in one batch.
    /// Each comparison costs `width` ANDs ([`Gates::subtract`]) and each selection
    /// `width + k` (value and one-hot rows). `candidates[c]` holds candidate c of every lane.
    pub fn argmin_one_hot(&mut self, candidates: Vec<Lanes>) -> Result<Lanes, MixedError> {
        let me = self.me();
        let k = candidates.len();
        let Some(lanes) = candidates.first().and_then(|c| c.first()).map(Vec::len) else {
            return Err(MixedError::Usage("a minimum of no candidates".into()));
        };
        let width = candidates[0].len();
        // Each candidate carries its value rows, then k one-hot rows naming it.
        let mut round: Vec<Lanes> = candidates
            .into_iter()
            .enumerate()
            .map(|(c, mut value)| {
                value.extend((0..k).map(|j| public_bits(me, |_| u8::from(j == c), lanes)));
                value
            })
            .collect();
        while round.len() > 1 {
            let pairs = round.len() / 2;
            let carried = (round.len() % 2 == 1).then(|| round.pop()).flatten();
            // Row r of the batch: row r of every pair's left (resp. right), concatenated.
            let gather = |side: usize| -> Lanes {
                (0..width + k)
                    .map(|r| {
                        (0..pairs)
                            .flat_map(|j| round[2 * j + side][r].iter().copied())
                            .collect()
                    })
                    .collect()
            };
            let (left, right) = (gather(0), gather(1));
            // The right one wins only if strictly smaller: ties keep the lower position.
            let (_, right_at_least_left) = self.subtract(&right[..width], &left[..width])?;
            let right_smaller = not(me, &right_at_least_left);
            let winners = self.select(&right_smaller, &left, &right)?;
            round = (0..pairs)
                .map(|j| {
                    winners
                        .iter()
                        .map(|row| row[j * lanes..(j + 1) * lanes].to_vec())
                        .collect()
                })
                .collect();
            round.extend(carried);
        }
        let mut winner = round.pop().unwrap_or_default();
        Ok(winner.split_off(width))
    }

    /// ⌊num / den⌋ per lane by restoring division over `num.len()` quotient bits, with a
    /// remainder of `den.len() + 1` bits (enough while num's lanes have den > remainder):
    /// each step shifts in one bit of num, subtracts den and keeps the difference where it
    /// did not borrow. 2·(den.len() + 1) ANDs per quotient bit. A lane with den = 0 gets an
    /// all-ones quotient (callers replace it).
    pub fn divide(&mut self, num: &Lanes, den: &Lanes) -> Result<Lanes, MixedError> {
        let lanes = num.first().map_or(0, Vec::len);
        let w = den.len() + 1;
        let mut divisor = den.clone();
        divisor.push(vec![0; lanes]);
        let mut remainder: Lanes = vec![vec![0; lanes]; w];
        let mut quotient: Lanes = vec![Vec::new(); num.len()];
        for i in (0..num.len()).rev() {
            // remainder·2 + num[i]; the top row dropped is 0 while remainder < den.
            remainder.pop();
            remainder.insert(0, num[i].clone());
            let (difference, fits) = self.subtract(&remainder, &divisor)?;
            remainder = self.select(&fits, &remainder, &difference)?;
            quotient[i] = fits;
        }
        Ok(quotient)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2b::BooleanEngine;
    use mixgc_nparty::memory_mesh;

    /// Runs `f` on XOR shares of `values` (one lane each, `width` bits; party 0 holds them,
    /// the other party zeros) between two parties; the XORed outputs as numbers.
    fn two_party(
        values: &[Vec<u64>],
        width: usize,
        f: impl Fn(&mut Gates, Vec<Lanes>) -> Lanes + Sync,
    ) -> (Vec<u64>, usize) {
        let f = &f;
        let results: Vec<(Lanes, usize)> = std::thread::scope(|s| {
            let handles: Vec<_> = memory_mesh(2)
                .into_iter()
                .map(|mut mesh| {
                    s.spawn(move || {
                        let mut rng = crate::rng_from_seed([mesh.me() as u8; 32]);
                        let mut engine = BooleanEngine::setup(&mut mesh, &[5; 32], &mut rng).unwrap();
                        let me = mesh.me();
                        let inputs: Vec<Lanes> = values
                            .iter()
                            .map(|v| {
                                (0..width)
                                    .map(|b| {
                                        v.iter()
                                            .map(|x| if me == 0 { ((x >> b) & 1) as u8 } else { 0 })
                                            .collect()
                                    })
                                    .collect()
                            })
                            .collect();
                        let mut gates = Gates {
                            engine: &mut engine,
                            mesh: &mut mesh,
                            ands: 0,
                        };
                        let out = f(&mut gates, inputs);
                        (out, gates.ands)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let lanes = results[0].0.first().map_or(0, Vec::len);
        let numbers = (0..lanes)
            .map(|i| {
                (0..results[0].0.len()).fold(0u64, |acc, b| {
                    acc | (u64::from(results[0].0[b][i] ^ results[1].0[b][i]) << b)
                })
            })
            .collect();
        (numbers, results[0].1)
    }

    #[test]
    fn restoring_division_equals_integer_division_and_marks_zero_divisors() {
        let num = vec![0u64, 1, 255, 1000, 4095, 4095, 17, 6];
        let den = vec![1u64, 1, 15, 7, 15, 1, 17, 0];
        let (q, ands) = two_party(&[num.clone(), den.clone()], 12, |g, mut v| {
            let den: Lanes = v.pop().unwrap()[..5].to_vec();
            g.divide(&v[0], &den).unwrap()
        });
        for i in 0..7 {
            assert_eq!(q[i], num[i] / den[i], "{} / {}", num[i], den[i]);
        }
        assert_eq!(q[7], (1 << 12) - 1, "division by zero gives all ones");
        assert_eq!(ands, 12 * 2 * 6 * num.len());
        let (z, _) = two_party(std::slice::from_ref(&den), 4, |g, v| {
            vec![g.is_zero(&v[0]).unwrap()]
        });
        assert_eq!(z, den.iter().map(|&d| u64::from(d == 0)).collect::<Vec<_>>());
    }

    #[test]
    fn the_one_hot_minimum_keeps_the_lowest_position_among_equals() {
        // Five candidates (an odd count carried a round), four lanes.
        let candidates = vec![
            vec![9, 3, 0, 15],
            vec![4, 3, 1, 15],
            vec![4, 8, 0, 15],
            vec![5, 2, 7, 15],
            vec![1, 9, 0, 15],
        ];
        // As numbers: bit c set for the winner c.
        let (one_hot, ands) = two_party(&candidates, 4, |g, v| g.argmin_one_hot(v).unwrap());
        assert_eq!(one_hot, vec![1 << 4, 1 << 3, 1 << 0, 1 << 0]);
        assert_eq!(ands, 4 * 4 * (4 + 4 + 5));
    }
}
