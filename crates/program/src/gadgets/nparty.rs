//! MPCircuits' n-party applications as AND-minimal circuits: a sealed-bid auction and a
//! plurality vote (TinyGarble2 thesis §3.6, Tables 3.5 and 3.6). Each takes one value per
//! party; [`crate::apps`] declares the inputs and bounds the parameters.

use super::bits::{at_least, popcount};
use super::select::{argmax, argmax_with_max, index_bits};
use crate::Backend;

/// Bits of an index into `n` things: ⌈log2 n⌉, at least 1.
pub fn id_bits(n: usize) -> usize {
    index_bits(n).max(1)
}

/// The highest of `bids` (unsigned, equal widths): `(winner, bid)`, the winner's index
/// ([`id_bits`]`(n)` bits, the lowest index among equal highest bids) and the highest bid.
///
/// The tournament tree of [`argmax_with_max`] (thesis §3.6.1), the lower-index player
/// winning ties: 2b(n − 1) ANDs for the comparisons and bid muxes, plus a mux for each
/// index bit not decided by the match itself (n = 2^k: n − 1 − k). n = 4, b = 16:
/// 2·(16 + 16) + (16 + 16 + 1) = 97, as the thesis's optimized circuit.
pub fn auction<B: Backend>(b: &mut B, bids: &[Vec<B::Wire>]) -> (Vec<B::Wire>, Vec<B::Wire>) {
    assert!(!bids.is_empty(), "an auction needs a bid");
    let (mut winner, bid) = argmax_with_max(b, bids);
    if winner.is_empty() {
        winner.push(b.constant(false));
    }
    (winner, bid)
}

/// The candidate with the most `votes` ([`id_bits`]`(candidates)` bits, the lowest index
/// among ties); each vote is a candidate's index in [`id_bits`]`(candidates)` bits, assumed
/// below `candidates` (the caller checks its inputs, see [`crate::apps::check_vote`]).
/// No votes, or one candidate, elect candidate 0.
///
/// Two candidates (thesis Table 3.6, n_c = 2): candidate 1 wins iff it has a strict
/// majority, [`at_least`]`(votes, ⌊n/2⌋ + 1)`, at most n − 1 ANDs (8 voters: 7, 16: 15).
/// More: each vote is decoded to one-hot ([`one_hot`]), each candidate's votes are counted
/// ([`popcount`], n − H(n) ANDs each), and the counts go through the index-only
/// [`argmax`] tournament. n_c = 4: 4 voters 32 ANDs, 8: 57, 16: 102; n_c = 8, 16 voters: 253.
pub fn voting<B: Backend>(b: &mut B, votes: &[Vec<B::Wire>], candidates: usize) -> Vec<B::Wire> {
    let width = id_bits(candidates);
    assert!(
        votes.iter().all(|v| v.len() == width),
        "each vote must be {width} bits"
    );
    if candidates <= 1 || votes.is_empty() {
        return vec![b.constant(false); width];
    }
    if candidates == 2 {
        let for_one: Vec<B::Wire> = votes.iter().map(|v| v[0]).collect();
        return vec![at_least(b, &for_one, votes.len() / 2 + 1)];
    }
    let decoded: Vec<Vec<B::Wire>> = votes.iter().map(|v| one_hot(b, v, candidates)).collect();
    let counts: Vec<Vec<B::Wire>> = (0..candidates)
        .map(|c| {
            let ballots: Vec<B::Wire> = decoded.iter().map(|d| d[c]).collect();
            popcount(b, &ballots)
        })
        .collect();
    argmax(b, &counts)
}

/// The one-hot decoding of `x`, a value below `n` (an out-of-range x gives an undefined
/// pattern): `n` wires, wire v set iff x = v.
///
/// Over GF(2), [x = v] = Σ_{S ⊇ v} Π_{i ∈ S} x_i (S over bit masks); a mask S ≥ n never
/// lies within an x < n, so its product is 0 and is left out. Each remaining product of
/// two or more bits is one AND on a smaller one, and the sums are a superset Möbius
/// transform of XORs: #{S < n : |S| ≥ 2} ANDs (n = 2^k: 2^k − k − 1; n = 4: 1, n = 8: 4).
pub fn one_hot<B: Backend>(b: &mut B, x: &[B::Wire], n: usize) -> Vec<B::Wire> {
    if n == 0 {
        return vec![];
    }
    let mut f: Vec<B::Wire> = Vec::with_capacity(n);
    f.push(b.constant(true));
    for s in 1..n {
        let high = usize::BITS as usize - 1 - s.leading_zeros() as usize;
        let rest = s & !(1 << high);
        let bit = x.get(high).copied().unwrap_or_else(|| b.constant(false));
        f.push(if rest == 0 { bit } else { b.and(f[rest], bit) });
    }
    for i in 0..x.len().min(index_bits(n)) {
        for s in 0..n {
            let up = s | 1 << i;
            if s & 1 << i == 0 && up < n {
                f[s] = b.xor(f[s], f[up]);
            }
        }
    }
    f
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gadgets::testing::{bits, value};
    use crate::{Counter, PartyId, Plain, Recorder};
    use rand::{Rng, SeedableRng};

    #[test]
    fn one_hot_decodes_every_value_in_range() {
        for n in 1..=40usize {
            let w = id_bits(n);
            let mut c = Counter::default();
            let x = c.input(PartyId::GARBLER, w as u32, None).unwrap();
            one_hot(&mut c, &x, n);
            let products = (0..n).filter(|s| s.count_ones() >= 2).count() as u64;
            assert_eq!(c.cost().ands, products, "n={n}");
            for v in 0..n {
                let mut p = Plain::default();
                let x = p
                    .input(PartyId::GARBLER, w as u32, Some(&bits(v as u128, w)))
                    .unwrap();
                let d = one_hot(&mut p, &x, n);
                let want: Vec<bool> = (0..n).map(|c| c == v).collect();
                assert_eq!(d, want, "n={n} v={v}");
            }
        }
    }

    /// The auction's (winner, bid) and ANDs, run in plaintext, recorded and replayed, and
    /// counted.
    fn run_auction(bids: &[u64], w: usize) -> (u128, u128, u64) {
        let mut p = Plain::default();
        let xs: Vec<Vec<bool>> = bids
            .iter()
            .map(|&v| {
                p.input(PartyId::GARBLER, w as u32, Some(&bits(v as u128, w)))
                    .unwrap()
            })
            .collect();
        let (pi, pb) = auction(&mut p, &xs);
        let mut r = Recorder::default();
        let xs: Vec<Vec<u32>> = bids
            .iter()
            .map(|_| r.input(PartyId::GARBLER, w as u32, None).unwrap())
            .collect();
        let (ri, rb) = auction(&mut r, &xs);
        r.output(&ri).unwrap();
        r.output(&rb).unwrap();
        let rec = r.finish();
        let inputs: Vec<Vec<bool>> = bids.iter().map(|&v| bits(v as u128, w)).collect();
        assert_eq!(
            rec.circuit.eval_plain(&inputs).unwrap(),
            vec![pi.clone(), pb.clone()]
        );
        let mut c = Counter::default();
        let xs: Vec<Vec<u32>> = bids
            .iter()
            .map(|_| c.input(PartyId::GARBLER, w as u32, None).unwrap())
            .collect();
        auction(&mut c, &xs);
        assert_eq!(c.cost().ands, rec.circuit.stats().ands as u64);
        assert_eq!(pi.len(), id_bits(bids.len()));
        (value(&pi), value(&pb), c.cost().ands)
    }

    #[test]
    fn auction_finds_the_first_highest_bid() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(61);
        for n in [1usize, 2, 3, 5, 8, 16] {
            for w in [1usize, 3, 16, 64] {
                let top = if w == 64 { u64::MAX } else { (1 << w) - 1 };
                let mut cases: Vec<Vec<u64>> = (0..4)
                    .map(|_| (0..n).map(|_| rng.gen::<u64>() & top).collect())
                    .collect();
                cases.push(vec![top; n]);
                cases.push(vec![0; n]);
                // Ties between non-adjacent parties: the first and the last highest.
                let mut far = vec![top / 3; n];
                far[0] = top / 2;
                far[n - 1] = top / 2;
                cases.push(far);
                // The highest bid last, and ties below it.
                let mut last = vec![1 & top; n];
                last[n - 1] = top;
                cases.push(last);
                for bids in cases {
                    let max = *bids.iter().max().unwrap();
                    let first = bids.iter().position(|&v| v == max).unwrap();
                    let (i, m, _) = run_auction(&bids, w);
                    assert_eq!((i, m), (first as u128, max as u128), "w={w} {bids:?}");
                }
            }
        }
    }

    /// The candidate with the most votes, the lowest on ties (the plaintext model).
    fn plurality(votes: &[u64], candidates: usize) -> u128 {
        let mut counts = vec![0usize; candidates];
        for &v in votes {
            counts[v as usize] += 1;
        }
        let most = counts.iter().copied().max().unwrap_or(0);
        counts.iter().position(|&c| c == most).unwrap_or(0) as u128
    }

    /// The vote's winner and ANDs, run in plaintext, recorded and replayed, and counted.
    fn run_voting(votes: &[u64], candidates: usize) -> (u128, u64) {
        let w = id_bits(candidates);
        let mut p = Plain::default();
        let xs: Vec<Vec<bool>> = votes
            .iter()
            .map(|&v| {
                p.input(PartyId::GARBLER, w as u32, Some(&bits(v as u128, w)))
                    .unwrap()
            })
            .collect();
        let plain = voting(&mut p, &xs, candidates);
        let mut r = Recorder::default();
        let xs: Vec<Vec<u32>> = votes
            .iter()
            .map(|_| r.input(PartyId::GARBLER, w as u32, None).unwrap())
            .collect();
        let out = voting(&mut r, &xs, candidates);
        r.output(&out).unwrap();
        let rec = r.finish();
        let inputs: Vec<Vec<bool>> = votes.iter().map(|&v| bits(v as u128, w)).collect();
        assert_eq!(rec.circuit.eval_plain(&inputs).unwrap(), vec![plain.clone()]);
        let mut c = Counter::default();
        let xs: Vec<Vec<u32>> = votes
            .iter()
            .map(|_| c.input(PartyId::GARBLER, w as u32, None).unwrap())
            .collect();
        voting(&mut c, &xs, candidates);
        assert_eq!(c.cost().ands, rec.circuit.stats().ands as u64);
        assert_eq!(plain.len(), w);
        (value(&plain), c.cost().ands)
    }

    #[test]
    fn voting_elects_the_first_most_voted_candidate() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(62);
        for n in [0usize, 1, 2, 3, 5, 8, 16] {
            for candidates in [1usize, 2, 3, 4, 5, 7, 8, 9] {
                let nc = candidates as u64;
                let mut cases: Vec<Vec<u64>> = (0..6)
                    .map(|_| (0..n).map(|_| rng.gen::<u64>() % nc).collect())
                    .collect();
                // One candidate gets everything: the first, the last.
                cases.push(vec![0; n]);
                cases.push(vec![nc - 1; n]);
                // A tie between non-adjacent candidates: half for the last, half for 1.
                cases.push(
                    (0..n as u64)
                        .map(|i| if i % 2 == 0 { nc - 1 } else { 1 % nc })
                        .collect(),
                );
                // Every voter a different candidate (all tied at one where n ≤ n_c).
                cases.push((0..n as u64).map(|i| nc - 1 - i % nc).collect());
                for votes in cases {
                    let (winner, _) = run_voting(&votes, candidates);
                    assert_eq!(
                        winner,
                        plurality(&votes, candidates),
                        "n_c={candidates} {votes:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn two_candidates_tie_to_candidate_zero() {
        for n in 1..=20usize {
            for ones in 0..=n {
                let votes: Vec<u64> = (0..n).map(|i| (i < ones) as u64).collect();
                let (winner, ands) = run_voting(&votes, 2);
                assert_eq!(winner, (2 * ones > n) as u128, "n={n} ones={ones}");
                assert!(ands < n as u64);
            }
        }
    }
}
