//! MPCircuits' n-party applications as whole programs (TinyGarble2 thesis §3.6): a sealed-bid
//! auction (Table 3.5) and a plurality vote (Table 3.6), written once on [`Backend`] with
//! party i owning input value i, so a runtime can run them as programs or record them
//! ([`record_auction`], [`record_voting`]) and run the circuits. The circuits themselves are
//! [`crate::gadgets::nparty`].

use crate::{Backend, PartyId, ProgramError, Recorded, Recorder, MAX_PARTIES};

pub use crate::gadgets::nparty::{auction, id_bits, voting};

/// Fewest parties of an application.
pub const MIN_PARTIES: usize = 2;
/// Widest bid, in bits.
pub const MAX_BID_BITS: u32 = 64;
/// Fewest and most candidates of a vote.
pub const MIN_CANDIDATES: usize = 2;
pub const MAX_CANDIDATES: usize = 1 << 16;

/// The thesis's optimized AND counts for the auction (Table 3.5): (bid bits, parties, ANDs).
pub const THESIS_AUCTION_ANDS: [(u32, usize, u64); 6] = [
    (16, 4, 97),
    (16, 8, 228),
    (16, 16, 492),
    (32, 4, 194),
    (32, 8, 454),
    (32, 16, 975),
];

/// The thesis's optimized AND counts for voting (Table 3.6): (candidates, voters, ANDs).
pub const THESIS_VOTING_ANDS: [(usize, usize, u64); 6] = [
    (2, 8, 8),
    (2, 16, 16),
    (4, 4, 37),
    (4, 8, 79),
    (4, 16, 147),
    (8, 16, 388),
];

/// Why an application could not be built or run.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum AppError {
    #[error("an n-party application needs {MIN_PARTIES} to {MAX_PARTIES} parties, got {0}")]
    Parties(usize),
    #[error("bids must be 1 to {MAX_BID_BITS} bits wide, got {0}")]
    BidBits(u32),
    #[error("a vote needs {MIN_CANDIDATES} to {MAX_CANDIDATES} candidates, got {0}")]
    Candidates(usize),
    #[error("{got} input values given for {parties} parties (one entry per party, None where unknown)")]
    ValueCount { parties: usize, got: usize },
    #[error("the bid of party {party}, {bid}, does not fit in {bits} bits")]
    BidTooWide { party: usize, bid: u64, bits: u32 },
    #[error("the vote of party {party}: {reason}")]
    BadVote { party: usize, reason: String },
    #[error(transparent)]
    Program(#[from] ProgramError),
}

/// The outcome of an auction: the highest bidder (the lowest index among equal highest
/// bids) and the highest bid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AuctionOutcome {
    pub winner: usize,
    pub bid: u64,
}

/// Checks a vote before it is input: the voting circuit assumes votes below `candidates`.
pub fn check_vote(vote: u64, candidates: usize) -> Result<(), String> {
    check_candidates(candidates).map_err(|e| e.to_string())?;
    if vote >= candidates as u64 {
        return Err(format!(
            "vote {vote} names no candidate: candidates are numbered 0 to {}",
            candidates - 1
        ));
    }
    Ok(())
}

/// The sealed-bid auction among `n` parties, party i bidding the `bits`-bit `bids[i]`
/// (`None` where this backend does not know it: other parties' bids, or all on the
/// recorder and counter). Outputs the winner ([`id_bits`]`(n)` bits) and the highest bid
/// (`bits` bits), and returns them where this party learns them.
pub fn auction_program<B: Backend>(
    b: &mut B,
    n: usize,
    bits: u32,
    bids: &[Option<u64>],
) -> Result<Option<AuctionOutcome>, AppError> {
    check_parties(n)?;
    if !(1..=MAX_BID_BITS).contains(&bits) {
        return Err(AppError::BidBits(bits));
    }
    check_values(n, bids)?;
    let mut inputs = Vec::with_capacity(n);
    for (party, &bid) in bids.iter().enumerate() {
        if let Some(bid) = bid {
            if bits < 64 && bid >> bits != 0 {
                return Err(AppError::BidTooWide { party, bid, bits });
            }
        }
        inputs.push(input(b, party, bits, bid)?);
    }
    let (winner, bid) = auction(b, &inputs);
    let winner = b.output(&winner)?;
    let bid = b.output(&bid)?;
    Ok(winner.zip(bid).map(|(w, v)| AuctionOutcome {
        winner: to_u64(&w) as usize,
        bid: to_u64(&v),
    }))
}

/// The plurality vote of `n` parties among `candidates`, party i voting for `votes[i]`
/// (`None` where unknown; each known vote is checked with [`check_vote`]), input as
/// [`id_bits`]`(candidates)` bits. Outputs the elected candidate (the lowest index among
/// ties, [`id_bits`]`(candidates)` bits) and returns it where this party learns it.
pub fn voting_program<B: Backend>(
    b: &mut B,
    n: usize,
    candidates: usize,
    votes: &[Option<u64>],
) -> Result<Option<usize>, AppError> {
    check_parties(n)?;
    check_candidates(candidates)?;
    check_values(n, votes)?;
    let width = id_bits(candidates) as u32;
    let mut inputs = Vec::with_capacity(n);
    for (party, &vote) in votes.iter().enumerate() {
        if let Some(vote) = vote {
            check_vote(vote, candidates).map_err(|reason| AppError::BadVote { party, reason })?;
        }
        inputs.push(input(b, party, width, vote)?);
    }
    let elected = voting(b, &inputs, candidates);
    Ok(b.output(&elected)?.map(|v| to_u64(&v) as usize))
}

/// The auction's circuit for `n` parties and `bits`-bit bids; input value i is party i's.
pub fn record_auction(n: usize, bits: u32) -> Result<Recorded, AppError> {
    let mut r = Recorder::default();
    auction_program(&mut r, n, bits, &vec![None; n])?;
    Ok(r.finish())
}

/// The vote's circuit for `n` voters and `candidates`; input value i is party i's.
pub fn record_voting(n: usize, candidates: usize) -> Result<Recorded, AppError> {
    let mut r = Recorder::default();
    voting_program(&mut r, n, candidates, &vec![None; n])?;
    Ok(r.finish())
}

fn check_parties(n: usize) -> Result<(), AppError> {
    if (MIN_PARTIES..=MAX_PARTIES).contains(&n) {
        Ok(())
    } else {
        Err(AppError::Parties(n))
    }
}

fn check_candidates(candidates: usize) -> Result<(), AppError> {
    if (MIN_CANDIDATES..=MAX_CANDIDATES).contains(&candidates) {
        Ok(())
    } else {
        Err(AppError::Candidates(candidates))
    }
}

fn check_values(parties: usize, values: &[Option<u64>]) -> Result<(), AppError> {
    if values.len() == parties {
        Ok(())
    } else {
        Err(AppError::ValueCount {
            parties,
            got: values.len(),
        })
    }
}

/// Party `party`'s input of `width` bits, with its value where known.
fn input<B: Backend>(
    b: &mut B,
    party: usize,
    width: u32,
    value: Option<u64>,
) -> Result<Vec<B::Wire>, AppError> {
    let owner = PartyId::new(party).ok_or(AppError::Parties(party + 1))?;
    let bits: Option<Vec<bool>> = value.map(|v| (0..width).map(|i| i < 64 && v >> i & 1 == 1).collect());
    Ok(b.input(owner, width, bits.as_deref())?)
}

/// The value of at most 64 bits, least significant first.
fn to_u64(bits: &[bool]) -> u64 {
    bits.iter()
        .take(64)
        .enumerate()
        .map(|(i, &b)| (b as u64) << i)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Counter, Plain};
    use rand::{Rng, SeedableRng};

    /// The highest bid and its first bidder (the plaintext model).
    fn highest(bids: &[u64]) -> AuctionOutcome {
        let bid = *bids.iter().max().unwrap();
        AuctionOutcome {
            winner: bids.iter().position(|&b| b == bid).unwrap(),
            bid,
        }
    }

    fn plurality(votes: &[u64], candidates: usize) -> usize {
        let mut counts = vec![0usize; candidates];
        for &v in votes {
            counts[v as usize] += 1;
        }
        let most = *counts.iter().max().unwrap();
        counts.iter().position(|&c| c == most).unwrap()
    }

    fn bits_of(v: u64, w: u32) -> Vec<bool> {
        (0..w).map(|i| i < 64 && v >> i & 1 == 1).collect()
    }

    /// ANDs of a recorded circuit.
    fn ands(rec: &Recorded) -> u64 {
        rec.circuit.stats().ands as u64
    }

    #[test]
    fn auctions_agree_with_the_model_in_plaintext_and_recorded() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(71);
        for n in [2usize, 3, 5, 8, 16, 64] {
            for bits in [1u32, 7, 16, 32, 64] {
                let rec = record_auction(n, bits).unwrap();
                assert_eq!(
                    rec.owners,
                    (0..n).map(|i| PartyId::new(i).unwrap()).collect::<Vec<_>>()
                );
                assert_eq!(rec.circuit.input_widths, vec![bits; n]);
                assert_eq!(rec.circuit.output_widths, vec![id_bits(n) as u32, bits]);
                let top = if bits == 64 { u64::MAX } else { (1 << bits) - 1 };
                let mut cases: Vec<Vec<u64>> = (0..3)
                    .map(|_| (0..n).map(|_| rng.gen::<u64>() & top).collect())
                    .collect();
                cases.push(vec![top; n]);
                let mut far = vec![0; n];
                far[1] = top;
                far[n - 1] = top;
                cases.push(far);
                for bids in cases {
                    let want = highest(&bids);
                    let known: Vec<Option<u64>> = bids.iter().map(|&b| Some(b)).collect();
                    let got = auction_program(&mut Plain::default(), n, bits, &known).unwrap();
                    assert_eq!(got, Some(want), "n={n} bits={bits} {bids:?}");
                    let inputs: Vec<Vec<bool>> = bids.iter().map(|&b| bits_of(b, bits)).collect();
                    let out = rec.circuit.eval_plain(&inputs).unwrap();
                    assert_eq!(out[0], bits_of(want.winner as u64, id_bits(n) as u32));
                    assert_eq!(out[1], bits_of(want.bid, bits));
                }
            }
        }
    }

    #[test]
    fn votes_agree_with_the_model_in_plaintext_and_recorded() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(72);
        for n in [2usize, 3, 5, 8, 16, 64] {
            for candidates in [2usize, 3, 4, 5, 8, 11] {
                let rec = record_voting(n, candidates).unwrap();
                let w = id_bits(candidates) as u32;
                assert_eq!(rec.circuit.input_widths, vec![w; n]);
                assert_eq!(rec.circuit.output_widths, vec![w]);
                assert_eq!(rec.owners.last(), PartyId::new(n - 1).as_ref());
                let nc = candidates as u64;
                let mut cases: Vec<Vec<u64>> = (0..4)
                    .map(|_| (0..n).map(|_| rng.gen::<u64>() % nc).collect())
                    .collect();
                cases.push(vec![nc - 1; n]);
                cases.push(
                    (0..n as u64)
                        .map(|i| if i % 2 == 0 { nc - 1 } else { 0 })
                        .collect(),
                );
                for votes in cases {
                    let want = plurality(&votes, candidates);
                    let known: Vec<Option<u64>> = votes.iter().map(|&v| Some(v)).collect();
                    let got = voting_program(&mut Plain::default(), n, candidates, &known).unwrap();
                    assert_eq!(got, Some(want), "n={n} n_c={candidates} {votes:?}");
                    let inputs: Vec<Vec<bool>> = votes.iter().map(|&v| bits_of(v, w)).collect();
                    assert_eq!(
                        rec.circuit.eval_plain(&inputs).unwrap(),
                        vec![bits_of(want as u64, w)]
                    );
                }
            }
        }
    }

    #[test]
    fn and_counts_meet_the_thesis() {
        for (bits, n, thesis) in THESIS_AUCTION_ANDS {
            let got = ands(&record_auction(n, bits).unwrap());
            assert!(got <= thesis, "auction b={bits} n={n}: {got} > {thesis}");
        }
        for (candidates, n, thesis) in THESIS_VOTING_ANDS {
            let got = ands(&record_voting(n, candidates).unwrap());
            assert!(got <= thesis, "voting n_c={candidates} n={n}: {got} > {thesis}");
        }
        // The Counter agrees on the two-party sizes (it counts two-party programs only).
        let mut c = Counter::default();
        auction_program(&mut c, 2, 16, &[None, None]).unwrap();
        assert_eq!(c.cost().ands, ands(&record_auction(2, 16).unwrap()));
        assert_eq!(c.cost().ands, 32);
        // And exactly, on the gadgets with every input the garbler's.
        let counted = |n: usize, width: usize, f: &dyn Fn(&mut Counter, &[Vec<u32>])| {
            let mut c = Counter::default();
            let xs: Vec<Vec<u32>> = (0..n)
                .map(|_| c.input(PartyId::GARBLER, width as u32, None).unwrap())
                .collect();
            f(&mut c, &xs);
            c.cost().ands
        };
        let auction = |c: &mut Counter, xs: &[Vec<u32>]| {
            auction(c, xs);
        };
        let expected_auction = [97, 228, 491, 193, 452, 971];
        for ((bits, n, _), want) in THESIS_AUCTION_ANDS.iter().zip(expected_auction) {
            assert_eq!(
                counted(*n, *bits as usize, &auction),
                want,
                "auction b={bits} n={n}"
            );
            assert_eq!(ands(&record_auction(*n, *bits).unwrap()), want);
        }
        let expected_voting = [7, 15, 32, 57, 102, 253];
        for ((candidates, n, _), want) in THESIS_VOTING_ANDS.iter().zip(expected_voting) {
            let vote = |c: &mut Counter, xs: &[Vec<u32>]| {
                voting(c, xs, *candidates);
            };
            assert_eq!(
                counted(*n, id_bits(*candidates), &vote),
                want,
                "voting n_c={candidates} n={n}"
            );
            assert_eq!(ands(&record_voting(*n, *candidates).unwrap()), want);
        }
    }

    #[test]
    fn many_candidates_cost_by_voters_not_by_candidates() {
        // 2^16 candidates: the pairwise count, about n²·k/2 + n² ANDs.
        let rec = record_voting(64, MAX_CANDIDATES).unwrap();
        assert!(ands(&rec) < 40_000, "{}", ands(&rec));
        let rec = record_voting(5, MAX_CANDIDATES).unwrap();
        let mut rng = rand::rngs::StdRng::seed_from_u64(73);
        for trial in 0..20 {
            let votes: Vec<u64> = (0..5)
                .map(|i| match trial % 3 {
                    0 => rng.gen_range(0..MAX_CANDIDATES as u64),
                    1 => [65_535, 7, 65_535, 7, 300][i],
                    _ => rng.gen_range(0..3) * 30_000,
                })
                .collect();
            let want = plurality(&votes, MAX_CANDIDATES) as u64;
            let inputs: Vec<Vec<bool>> = votes.iter().map(|&v| bits_of(v, 16)).collect();
            assert_eq!(
                rec.circuit.eval_plain(&inputs).unwrap(),
                vec![bits_of(want, 16)],
                "{votes:?}"
            );
        }
    }

    #[test]
    fn bad_parameters_and_inputs_are_clear_errors() {
        let mut p = Plain::default();
        assert_eq!(record_auction(1, 8).unwrap_err(), AppError::Parties(1));
        assert_eq!(record_auction(65, 8).unwrap_err(), AppError::Parties(65));
        assert_eq!(record_auction(4, 0).unwrap_err(), AppError::BidBits(0));
        assert_eq!(record_auction(4, 65).unwrap_err(), AppError::BidBits(65));
        assert_eq!(record_voting(4, 1).unwrap_err(), AppError::Candidates(1));
        assert_eq!(
            record_voting(4, (1 << 16) + 1).unwrap_err(),
            AppError::Candidates(65537)
        );
        assert_eq!(
            record_voting(0, 4).unwrap_err().to_string(),
            "an n-party application needs 2 to 64 parties, got 0"
        );
        assert_eq!(
            auction_program(&mut p, 3, 8, &[Some(1), None]).unwrap_err(),
            AppError::ValueCount { parties: 3, got: 2 }
        );
        let err = auction_program(&mut p, 2, 8, &[Some(1), Some(256)]).unwrap_err();
        assert_eq!(err.to_string(), "the bid of party 1, 256, does not fit in 8 bits");
        let err = voting_program(&mut p, 3, 3, &[Some(0), Some(2), Some(3)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the vote of party 2: vote 3 names no candidate: candidates are numbered 0 to 2"
        );
        assert_eq!(check_vote(4, 5), Ok(()));
        assert!(check_vote(0, 1)
            .unwrap_err()
            .contains("2 to 65536 candidates, got 1"));
        // The plaintext backend needs every value.
        let err = voting_program(&mut p, 2, 2, &[Some(0), None]).unwrap_err();
        assert!(
            matches!(err, AppError::Program(ProgramError::MissingInput { index: _, owner }) if owner.index() == 1)
        );
        // The two-party counter refuses a third party.
        let err = auction_program(&mut Counter::default(), 3, 8, &[None; 3]).unwrap_err();
        assert_eq!(
            err,
            AppError::Program(ProgramError::NoSuchParty(PartyId::new(2).unwrap()))
        );
    }

    #[test]
    fn a_party_knowing_only_its_own_value_records_the_same_circuit() {
        // A runtime's party i supplies Some at i only; on the recorder that changes nothing.
        let mut r = Recorder::default();
        voting_program(&mut r, 5, 3, &[None, None, Some(2), None, None]).unwrap();
        let mine = r.finish();
        let all = record_voting(5, 3).unwrap();
        assert_eq!(mine.circuit.stats(), all.circuit.stats());
        assert_eq!(mine.owners, all.owners);
    }
}
