//! MPCircuits' n-party applications as AND-minimal circuits: a sealed-bid auction and a
//! plurality vote (TinyGarble2 thesis §3.6, Tables 3.5 and 3.6). Each takes one value per
//! party; [`crate::apps`] declares the inputs and bounds the parameters.

use super::bits::{at_least, count_bits, popcount};
use super::select::{argmax, argmax_with_max, index_bits};
use super::{eq, lt_unsigned, mux};
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
/// More: [`count_candidates`] (n_c = 4: 4 voters 32 ANDs, 8: 57, 16: 102; n_c = 8,
/// 16 voters: 253), or [`count_voters`] where its estimate is lower (many candidates, few
/// voters: n_c = 2^16, 64 voters, about 37,000 ANDs instead of 8·10^6).
pub fn voting<B: Backend>(b: &mut B, votes: &[Vec<B::Wire>], candidates: usize) -> Vec<B::Wire> {
    let width = id_bits(candidates);
    assert!(
        votes.iter().all(|v| v.len() == width),
        "each vote must be {width} bits"
    );
    let n = votes.len();
    if candidates <= 1 || n == 0 {
        return vec![b.constant(false); width];
    }
    if candidates == 2 {
        let for_one: Vec<B::Wire> = votes.iter().map(|v| v[0]).collect();
        return vec![at_least(b, &for_one, n / 2 + 1)];
    }
    if by_voters_estimate(n, candidates) < by_candidates_estimate(n, candidates) {
        count_voters(b, votes)
    } else {
        count_candidates(b, votes, candidates)
    }
}

/// n − H(n): the ANDs of a popcount of n bits.
fn popcount_ands(n: usize) -> usize {
    n - n.count_ones() as usize
}

/// The ANDs of [`count_candidates`], at most (the argmax's index muxes bounded by one a
/// match).
fn by_candidates_estimate(n: usize, candidates: usize) -> usize {
    let products = (0..candidates).filter(|s| s.count_ones() >= 2).count();
    let count_width = count_bits(n);
    n * products + candidates * popcount_ands(n) + (candidates - 1) * (2 * count_width + 1)
}

/// The ANDs of [`count_voters`], at most.
fn by_voters_estimate(n: usize, candidates: usize) -> usize {
    let k = id_bits(candidates);
    let key = count_bits(n - 1) + k;
    n * (n - 1) / 2 * (k - 1) + n * popcount_ands(n - 1) + (n - 1) * 2 * key
}

/// Plurality by counting each candidate's votes: each vote decoded to one-hot
/// ([`one_hot`]), the n ballots of each candidate counted ([`popcount`], n − H(n) ANDs),
/// the counts through the index-only [`argmax`] tournament (ties to the lower candidate).
/// About n·n_c + n_c·n ANDs: for few candidates.
pub fn count_candidates<B: Backend>(b: &mut B, votes: &[Vec<B::Wire>], candidates: usize) -> Vec<B::Wire> {
    let decoded: Vec<Vec<B::Wire>> = votes.iter().map(|v| one_hot(b, v, candidates)).collect();
    let counts: Vec<Vec<B::Wire>> = (0..candidates)
        .map(|c| {
            let ballots: Vec<B::Wire> = decoded.iter().map(|d| d[c]).collect();
            popcount(b, &ballots)
        })
        .collect();
    let mut elected = argmax(b, &counts);
    elected.resize(id_bits(candidates), b.constant(false));
    elected
}

/// Plurality by counting, for each voter, the voters who agree with it: [vote_i = vote_j]
/// for each pair (k − 1 ANDs, k = vote bits), each voter's agreements counted
/// ([`popcount`]), then the largest key (agreements, ¬vote) by a tournament (ties of
/// counts go to the lower vote), whose vote is elected; the final match muxes only the
/// vote. About n²·k/2 + n² ANDs, independent of n_c: for many candidates.
pub fn count_voters<B: Backend>(b: &mut B, votes: &[Vec<B::Wire>]) -> Vec<B::Wire> {
    let n = votes.len();
    assert!(n > 0, "a vote needs a voter");
    let width = votes[0].len();
    let mut agree: Vec<Vec<B::Wire>> = vec![Vec::with_capacity(n - 1); n];
    for i in 0..n {
        for j in i + 1..n {
            let same = eq(b, &votes[i], &votes[j])[0];
            agree[i].push(same);
            agree[j].push(same);
        }
    }
    // Key: ¬vote in the low bits, the count of agreeing voters above.
    let mut round: Vec<Vec<B::Wire>> = votes
        .iter()
        .zip(&agree)
        .map(|(v, a)| {
            let mut key: Vec<B::Wire> = v.iter().map(|&x| b.not(x)).collect();
            key.extend(popcount(b, a));
            key
        })
        .collect();
    while round.len() > 1 {
        let last_round = round.len() == 2;
        let mut next = Vec::with_capacity(round.len().div_ceil(2));
        let mut it = round.into_iter();
        while let Some(left) = it.next() {
            match it.next() {
                None => next.push(left),
                Some(right) => {
                    let right_wins = lt_unsigned(b, &left, &right)[0];
                    let keep = if last_round { width } else { left.len() };
                    next.push(mux(b, right_wins, &left[..keep], &right[..keep]));
                }
            }
        }
        round = next;
    }
    round[0][..width].iter().map(|&x| b.not(x)).collect()
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

    /// `method` on plaintext and recorded (replayed): the winner.
    fn run_method(
        votes: &[u64],
        candidates: usize,
        method: fn(&mut Plain, &[Vec<bool>], usize) -> Vec<bool>,
        recorded: fn(&mut Recorder, &[Vec<u32>], usize) -> Vec<u32>,
    ) -> u128 {
        let w = id_bits(candidates);
        let inputs: Vec<Vec<bool>> = votes.iter().map(|&v| bits(v as u128, w)).collect();
        let mut p = Plain::default();
        let xs: Vec<Vec<bool>> = inputs
            .iter()
            .map(|v| p.input(PartyId::GARBLER, w as u32, Some(v)).unwrap())
            .collect();
        let plain = method(&mut p, &xs, candidates);
        let mut r = Recorder::default();
        let xs: Vec<Vec<u32>> = votes
            .iter()
            .map(|_| r.input(PartyId::GARBLER, w as u32, None).unwrap())
            .collect();
        let out = recorded(&mut r, &xs, candidates);
        r.output(&out).unwrap();
        let rec = r.finish();
        assert_eq!(rec.circuit.eval_plain(&inputs).unwrap(), vec![plain.clone()]);
        assert_eq!(plain.len(), w);
        value(&plain)
    }

    #[test]
    fn both_counting_methods_elect_the_same_candidate() {
        fn by_voters<B: Backend>(b: &mut B, votes: &[Vec<B::Wire>], _: usize) -> Vec<B::Wire> {
            count_voters(b, votes)
        }
        let mut rng = rand::rngs::StdRng::seed_from_u64(63);
        for n in [1usize, 2, 3, 5, 8, 16] {
            for candidates in [2usize, 3, 4, 6, 8, 13, 300] {
                let nc = candidates as u64;
                let mut cases: Vec<Vec<u64>> = (0..5)
                    .map(|_| (0..n).map(|_| rng.gen::<u64>() % nc).collect())
                    .collect();
                // Few distinct votes, so that counts tie.
                cases.push((0..n).map(|_| [nc - 1, 1, nc / 2][rng.gen_range(0..3)]).collect());
                cases.push(vec![nc - 1; n]);
                cases.push((0..n as u64).rev().map(|i| i % nc).collect());
                for votes in cases {
                    let want = plurality(&votes, candidates);
                    let got = run_method(&votes, candidates, by_voters, by_voters);
                    assert_eq!(got, want, "by voters n_c={candidates} {votes:?}");
                    if candidates <= 13 {
                        let got = run_method(&votes, candidates, count_candidates, count_candidates);
                        assert_eq!(got, want, "by candidates n_c={candidates} {votes:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_cheaper_method_is_chosen_and_the_estimates_bound_it() {
        for n in [1usize, 2, 3, 4, 5, 8, 16, 30] {
            for candidates in [3usize, 4, 5, 8, 16, 33, 100] {
                let w = id_bits(candidates);
                let count = |f: &dyn Fn(&mut Counter, &[Vec<u32>])| {
                    let mut c = Counter::default();
                    let xs: Vec<Vec<u32>> = (0..n)
                        .map(|_| c.input(PartyId::GARBLER, w as u32, None).unwrap())
                        .collect();
                    f(&mut c, &xs);
                    c.cost().ands as usize
                };
                let by_candidates = count(&|c, xs| {
                    count_candidates(c, xs, candidates);
                });
                let by_voters = count(&|c, xs| {
                    count_voters(c, xs);
                });
                let chosen = count(&|c, xs| {
                    voting(c, xs, candidates);
                });
                assert!(
                    by_candidates <= by_candidates_estimate(n, candidates),
                    "n={n} n_c={candidates}"
                );
                assert!(
                    by_voters <= by_voters_estimate(n, candidates),
                    "n={n} n_c={candidates}"
                );
                assert!(chosen == by_voters || chosen == by_candidates);
                // The choice is never worse than the better method by more than a few ANDs.
                assert!(
                    chosen <= by_voters.min(by_candidates) + n + candidates,
                    "n={n} n_c={candidates}"
                );
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
