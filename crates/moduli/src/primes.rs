//! CRT prime selection: which distinct primes carry a `w`-bit value.
//!
//! Garbling cost over a CRT bundle grows with the sum of its primes (a projection or a
//! product on Z_p costs p − 1 or 2(p − 1) rows), so the set should have product ≥ 2^w and
//! the smallest possible sum. The classic choice is the first k primes ([`first_primes`]);
//! ABLE (§3.1, Algorithm 1, Table 7) removes primes from that set. Removing is not optimal:
//! [`min_sum_primes`] solves the problem exactly as a 0/1 knapsack over prime sums and beats
//! ABLE's Table 7 at ten widths (e.g. 38 bits: sum 172 instead of 174).

use crate::crt::PrimeSet;
use crate::ArithError;

/// The smallest supported bit width.
pub const MIN_WIDTH: u32 = 1;

/// The largest supported bit width: every chosen set's product then fits in 128 bits.
pub const MAX_WIDTH: u32 = 127;

/// Whether `n` is prime (trial division; the numbers here are small).
pub fn is_prime(n: u64) -> bool {
    n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| !n.is_multiple_of(d))
}

/// All primes up to `limit`, ascending.
fn primes_up_to(limit: u64) -> Vec<u64> {
    (2..=limit).filter(|&n| is_prime(n)).collect()
}

fn check_width(width: u32) -> Result<(), ArithError> {
    if (MIN_WIDTH..=MAX_WIDTH).contains(&width) {
        Ok(())
    } else {
        Err(ArithError::WidthOutOfRange(width))
    }
}

/// The baseline: the first k primes 2, 3, 5, … with the smallest k whose product is ≥ 2^w.
pub fn first_primes(width: u32) -> Result<PrimeSet, ArithError> {
    check_width(width)?;
    let target = 1u128 << width;
    let mut chosen = Vec::new();
    let mut product = 1u128;
    for p in (2..).filter(|&n| is_prime(n)) {
        if product >= target {
            break;
        }
        chosen.push(p);
        product *= p as u128;
    }
    PrimeSet::new(&chosen)
}

/// The set of distinct primes with product ≥ 2^w and the smallest sum; among sets with that
/// sum, the one with the largest product (unique: distinct products of distinct primes
/// are distinct sets).
///
/// Exact 0/1 knapsack: after considering each prime p (ascending), `best[s]` is the
/// largest product of distinct primes summing to exactly s. Multiplying by p is monotone,
/// so `best[s] = max(best[s], best[s − p]·p)` is the usual knapsack recurrence with a
/// product in place of a sum. Sums are capped by the baseline's sum (the optimum is never
/// worse), which bounds the primes considered.
///
/// Products saturate at 2^128 − 1, which is above every 2^w; a saturated state still counts
/// as large enough, and the chosen set's product is then recomputed exactly by
/// [`PrimeSet::new`] (which refuses products beyond 128 bits, so a saturated choice could
/// not pass unnoticed; none occurs for w ≤ 127).
pub fn min_sum_primes(width: u32) -> Result<PrimeSet, ArithError> {
    let baseline = first_primes(width)?;
    let cap = baseline.sum() as usize;
    let primes = primes_up_to(cap as u64);
    let mut best: Vec<Option<u128>> = vec![None; cap + 1];
    best[0] = Some(1);
    // took[i][s]: prime i raised best[s] when it was considered (for reconstruction).
    let mut took = vec![vec![false; cap + 1]; primes.len()];
    for (i, &p) in primes.iter().enumerate() {
        let p = p as usize;
        for s in (p..=cap).rev() {
            let Some(rest) = best[s - p] else { continue };
            let candidate = rest.saturating_mul(p as u128);
            if best[s].is_none_or(|b| candidate > b) {
                best[s] = Some(candidate);
                took[i][s] = true;
            }
        }
    }
    let target = 1u128 << width;
    // The baseline itself has sum `cap` and product ≥ 2^w, so a sum ≤ cap qualifies.
    let mut sum = (0..=cap)
        .find(|&s| best[s].is_some_and(|b| b >= target))
        .unwrap_or(cap);
    let mut chosen = Vec::new();
    for (i, &p) in primes.iter().enumerate().rev() {
        if took[i][sum] {
            chosen.push(p);
            sum -= p as usize;
        }
    }
    PrimeSet::new(&chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ABLE Table 7 (appendix), optimized sums for widths 3..=127, transcribed with the
    /// primes each row removes from the first k. The paper text is mis-converted in places;
    /// rows were placed by their k and "Excess" columns: the rows labelled 2^33–2^38 hold
    /// 2^32–2^37 (sums 129, 137, 149, 155, 158, 160; 174 at 2^38), the right column's rows
    /// labelled 2^97–2^101 hold 2^96–2^100, and garbled digits (e.g. "704" for 772 at 2^97,
    /// "700" for 709 at 2^93) were read from Rm and Imp. `table7_is_self_consistent`
    /// re-derives every sum from its removed primes.
    const ABLE_TABLE7: [(u32, &[u64], u64); 125] = [
        (3, &[3], 7),
        (4, &[], 10),
        (5, &[2, 3], 12),
        (6, &[3], 14),
        (7, &[], 17),
        (8, &[7], 21),
        (9, &[3], 25),
        (10, &[2], 26),
        (11, &[], 28),
        (12, &[7], 34),
        (13, &[3], 38),
        (14, &[], 41),
        (15, &[13], 45),
        (16, &[7], 51),
        (17, &[3], 55),
        (18, &[], 58),
        (19, &[17], 60),
        (20, &[7], 70),
        (21, &[3], 74),
        (22, &[2], 75),
        (23, &[], 77),
        (24, &[13], 87),
        (25, &[2, 3], 95),
        (26, &[3], 97),
        (27, &[], 100),
        (28, &[23], 106),
        (29, &[11], 118),
        (30, &[2, 3], 124),
        (31, &[3], 126),
        (32, &[], 129),
        (33, &[23], 137),
        (34, &[11], 149),
        (35, &[5], 155),
        (36, &[2], 158),
        (37, &[], 160),
        (38, &[23], 174),
        (39, &[13], 184),
        (40, &[2, 3], 192),
        (41, &[3], 194),
        (42, &[], 197),
        (43, &[31], 207),
        (44, &[17], 221),
        (45, &[7], 231),
        (46, &[3], 235),
        (47, &[2], 236),
        (48, &[], 238),
        (49, &[23], 258),
        (50, &[11], 270),
        (51, &[5], 276),
        (52, &[2], 279),
        (53, &[], 281),
        (54, &[31], 297),
        (55, &[17], 311),
        (56, &[7], 321),
        (57, &[3], 325),
        (58, &[2], 326),
        (59, &[], 328),
        (60, &[23], 358),
        (61, &[13], 368),
        (62, &[7], 374),
        (63, &[3], 378),
        (64, &[], 381),
        (65, &[47], 393),
        (66, &[23], 417),
        (67, &[13], 427),
        (68, &[2, 3], 435),
        (69, &[3], 437),
        (70, &[], 440),
        (71, &[47], 454),
        (72, &[23], 478),
        (73, &[11], 490),
        (74, &[2, 3], 496),
        (75, &[3], 498),
        (76, &[], 501),
        (77, &[47], 521),
        (78, &[23], 545),
        (79, &[13], 555),
        (80, &[2, 3], 563),
        (81, &[3], 565),
        (82, &[], 568),
        (83, &[53], 586),
        (84, &[23], 616),
        (85, &[13], 626),
        (86, &[7], 632),
        (87, &[3], 636),
        (88, &[], 639),
        (89, &[61], 651),
        (90, &[31], 681),
        (91, &[13], 699),
        (92, &[7], 705),
        (93, &[3], 709),
        (94, &[2], 710),
        (95, &[], 712),
        (96, &[37], 754),
        (97, &[19], 772),
        (98, &[7], 784),
        (99, &[5], 786),
        (100, &[2], 789),
        (101, &[], 791),
        (102, &[47], 827),
        (103, &[23], 851),
        (104, &[13], 861),
        (105, &[2, 3], 869),
        (106, &[3], 871),
        (107, &[], 874),
        (108, &[73], 890),
        (109, &[31], 932),
        (110, &[17], 946),
        (111, &[7], 956),
        (112, &[3], 960),
        (113, &[2], 961),
        (114, &[], 963),
        (115, &[53], 1007),
        (116, &[23], 1037),
        (117, &[13], 1047),
        (118, &[2, 3], 1055),
        (119, &[3], 1057),
        (120, &[], 1060),
        (121, &[83], 1078),
        (122, &[43], 1118),
        (123, &[19], 1142),
        (124, &[7], 1154),
        (125, &[5], 1156),
        (126, &[2], 1159),
        (127, &[], 1161),
    ];

    fn product(primes: &[u64]) -> u128 {
        primes.iter().map(|&p| p as u128).product()
    }

    #[test]
    fn table7_is_self_consistent() {
        for &(w, removed, sum) in &ABLE_TABLE7 {
            let baseline = first_primes(w).unwrap();
            let kept: Vec<u64> = baseline
                .primes()
                .iter()
                .copied()
                .filter(|p| !removed.contains(p))
                .collect();
            assert_eq!(
                kept.iter().sum::<u64>(),
                sum,
                "width {w}: first k minus {removed:?}"
            );
            assert!(product(&kept) >= 1u128 << w, "width {w}: ABLE's set is too small");
        }
    }

    #[test]
    fn every_width_fits_and_beats_or_ties_table7() {
        let mut better = Vec::new();
        for &(w, _, able_sum) in &ABLE_TABLE7 {
            let set = min_sum_primes(w).unwrap();
            assert!(set.product() >= 1u128 << w, "width {w}");
            assert!(
                set.sum() <= able_sum,
                "width {w}: {} > ABLE's {able_sum}",
                set.sum()
            );
            if set.sum() < able_sum {
                better.push((w, set.sum(), able_sum));
            }
        }
        for known in [(38, 172, 174), (60, 356, 358), (65, 389, 393)] {
            assert!(better.contains(&known), "{known:?} not among {better:?}");
        }
        assert_eq!(better.len(), 10, "{better:?}");
    }

    #[test]
    fn known_sets() {
        assert_eq!(
            min_sum_primes(38).unwrap().primes(),
            [2, 3, 5, 7, 11, 13, 17, 19, 23, 31, 41]
        );
        assert_eq!(min_sum_primes(16).unwrap().primes(), [2, 3, 5, 11, 13, 17]);
        assert_eq!(first_primes(16).unwrap().primes(), [2, 3, 5, 7, 11, 13, 17]);
        assert_eq!(first_primes(127).unwrap().primes().len(), 26);
        assert_eq!(min_sum_primes(1).unwrap().primes(), [2]);
        // Sum 5 either way; {2, 3} has the larger product.
        assert_eq!(min_sum_primes(2).unwrap().primes(), [2, 3]);
    }

    #[test]
    fn widths_out_of_range_are_refused() {
        for w in [0, 128, 1000] {
            assert_eq!(min_sum_primes(w), Err(ArithError::WidthOutOfRange(w)));
            assert_eq!(first_primes(w), Err(ArithError::WidthOutOfRange(w)));
        }
    }

    /// Best (smallest sum, then largest product) over every set of distinct primes up to
    /// `cap` with sum ≤ `cap`, by depth-first enumeration.
    fn brute_force(width: u32, cap: u64) -> (u64, u128) {
        fn walk(primes: &[u64], sum: u64, prod: u128, cap: u64, target: u128, best: &mut (u64, u128)) {
            if prod >= target && (sum < best.0 || (sum == best.0 && prod > best.1)) {
                *best = (sum, prod);
            }
            for (i, &p) in primes.iter().enumerate() {
                if sum + p > cap {
                    break;
                }
                walk(&primes[i + 1..], sum + p, prod * p as u128, cap, target, best);
            }
        }
        let mut best = (u64::MAX, 0);
        walk(&primes_up_to(cap), 0, 1, cap, 1u128 << width, &mut best);
        best
    }

    #[test]
    fn knapsack_matches_brute_force_at_small_widths() {
        for w in MIN_WIDTH..=30 {
            let set = min_sum_primes(w).unwrap();
            let cap = first_primes(w).unwrap().sum();
            assert_eq!((set.sum(), set.product()), brute_force(w, cap), "width {w}");
        }
    }
}
