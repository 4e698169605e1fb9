//! Three-halves garbling (Rosulek–Roy, ePrint 2021/749): evaluation equals plaintext for
//! every input combination, the rows depend on Δ, and the layout is pinned.

use mixgc_core::{AnyHash, Block, HashKind};
use mixgc_garble::{three_halves_group_bytes, ThreeHalvesEvaluator, ThreeHalvesGarbler};
use rand::{Rng, SeedableRng};

type Rng64 = rand::rngs::StdRng;

fn random_delta(rng: &mut Rng64) -> Block {
    Block::random(rng).with_lsb_set()
}

/// Garbles one group of `pairs` (zero-labels) and evaluates it on every input combination
/// `bits[k]`; checks C = C⁰ ⊕ (x ∧ y)·Δ.
fn check_group(rng: &mut Rng64, hash: HashKind, pairs: &[(Block, Block)], delta: Block, first_skip: u64) {
    let hseed = Block::random(rng);
    let mut g = ThreeHalvesGarbler::new(AnyHash::new(hash, hseed), delta, Block::random(rng));
    let mut e = ThreeHalvesEvaluator::starting_at(AnyHash::new(hash, hseed), first_skip);
    // Advance the garbler to the same global index.
    let mut skip = Vec::new();
    for _ in 0..first_skip {
        g.garble(
            &[(Block::random(rng), Block::random(rng))],
            &mut [Block::ZERO],
            &mut skip,
        );
    }
    let n = pairs.len();
    let mut zero_out = vec![Block::ZERO; n];
    let mut rows = Vec::new();
    g.garble(pairs, &mut zero_out, &mut rows);
    assert_eq!(rows.len(), three_halves_group_bytes(n));
    for case in 0..4 {
        let bits: Vec<(bool, bool)> = (0..n)
            .map(|k| {
                if k == 0 {
                    (case & 1 == 1, case & 2 == 2)
                } else {
                    (rng.gen(), rng.gen())
                }
            })
            .collect();
        let active: Vec<(Block, Block)> = pairs
            .iter()
            .zip(&bits)
            .map(|(&(a0, b0), &(x, y))| (a0 ^ delta.and_bit(x), b0 ^ delta.and_bit(y)))
            .collect();
        let mut e = ThreeHalvesEvaluator::starting_at(AnyHash::new(hash, hseed), e.ands_evaluated());
        let mut out = vec![Block::ZERO; n];
        e.evaluate(&active, &rows, &mut out);
        for k in 0..n {
            let (x, y) = bits[k];
            assert_eq!(
                out[k],
                zero_out[k] ^ delta.and_bit(x && y),
                "gate {k} of {n}, inputs ({x}, {y})"
            );
        }
    }
    e = ThreeHalvesEvaluator::starting_at(AnyHash::new(hash, hseed), 0);
    let _ = e.ands_evaluated();
}

#[test]
fn every_input_combination_of_random_groups() {
    let mut rng = Rng64::seed_from_u64(1);
    for round in 0..400 {
        let n = 1 + round % 16;
        let delta = random_delta(&mut rng);
        let pairs: Vec<(Block, Block)> = (0..n)
            .map(|_| (Block::random(&mut rng), Block::random(&mut rng)))
            .collect();
        let hash = if round % 2 == 0 {
            HashKind::Tccr
        } else {
            HashKind::Rekeyed
        };
        check_group(&mut rng, hash, &pairs, delta, (round % 70) as u64);
    }
}
