//! The B-form circuits of [`super::kmeans`], on any [`MixedBackend`]: subtraction with
//! borrow, selection, zero test, the one-hot minimum and restoring division, each a few
//! lane-wise AND layers.
//!
//! A number per lane is a [`Rows`] value: `rows[b]` holds bit b (least significant first) of
//! every lane, the layout of [`MixedBackend::to_bool`].

use super::{MixedBackend, MixedProgramError, Shaped};

/// One number per lane, by bit position.
pub(crate) type Rows<B> = Vec<<B as MixedBackend>::Bool>;

/// The lanes of `rows` (0 for no rows).
fn lanes_of<B: MixedBackend>(rows: &[B::Bool]) -> usize {
    rows.first().map_or(0, Shaped::lanes)
}

/// a − b over `a.len()` bit positions (b as wide): the difference mod 2^width and [a ≥ b]
/// per lane. a + ¬b + 1 by ripple carry, one AND layer per position (the carry
/// c' = c ⊕ ((x ⊕ c) ∧ (y ⊕ c))); its carry out is [a ≥ b].
pub(crate) fn subtract<B: MixedBackend>(
    b: &mut B,
    x: &[B::Bool],
    y: &[B::Bool],
) -> Result<(Rows<B>, B::Bool), MixedProgramError> {
    let mut carry = b.public_bits(&vec![true; lanes_of::<B>(x)]);
    let mut difference = Vec::with_capacity(x.len());
    for (xj, yj) in x.iter().zip(y) {
        let ny = b.not(yj);
        let sum = b.xor(xj, &ny)?;
        difference.push(b.xor(&sum, &carry)?);
        let left = b.xor(xj, &carry)?;
        let right = b.xor(&ny, &carry)?;
        let g = b.and(&left, &right)?;
        carry = b.xor(&carry, &g)?;
    }
    Ok((difference, carry))
}

/// Per lane, `if_true` where `choose` is 1, else `if_false`: f ⊕ choose·(f ⊕ t) on every
/// row in one AND layer.
pub(crate) fn select<B: MixedBackend>(
    b: &mut B,
    choose: &B::Bool,
    if_false: &[B::Bool],
    if_true: &[B::Bool],
) -> Result<Rows<B>, MixedProgramError> {
    let lanes = choose.lanes();
    let differences = if_false
        .iter()
        .zip(if_true)
        .map(|(f, t)| b.xor(f, t))
        .collect::<Result<Vec<_>, _>>()?;
    let difference = b.concat(&differences);
    let repeated = b.concat(&vec![choose.clone(); if_false.len()]);
    let picked = b.and(&repeated, &difference)?;
    if_false
        .iter()
        .enumerate()
        .map(|(r, f)| {
            let row: Vec<usize> = (r * lanes..(r + 1) * lanes).collect();
            let part = b.gather(&picked, &row)?;
            b.xor(f, &part)
        })
        .collect()
}

/// [every row is 0] per lane: ¬a_0 ∧ ¬a_1 ∧ …, rows − 1 AND layers.
pub(crate) fn is_zero<B: MixedBackend>(b: &mut B, rows: &[B::Bool]) -> Result<B::Bool, MixedProgramError> {
    let Some((first, rest)) = rows.split_first() else {
        return Err(MixedProgramError::Input("a zero test of a 0-bit value".into()));
    };
    let mut all = b.not(first);
    for r in rest {
        let nr = b.not(r);
        all = b.and(&all, &nr)?;
    }
    Ok(all)
}

/// The one-hot position of the minimum of `candidates` per lane (the lowest position among
/// equals): a tournament in ⌈log2 k⌉ rounds, the pairs of a round in one batch. Each
/// comparison costs `width` ANDs ([`subtract`]) and each selection `width + k` (value and
/// one-hot rows). `candidates[c]` holds candidate c of every lane; the result's row c is 1
/// in the lanes where c wins.
pub(crate) fn argmin_one_hot<B: MixedBackend>(
    b: &mut B,
    candidates: Vec<Rows<B>>,
) -> Result<Rows<B>, MixedProgramError> {
    let k = candidates.len();
    let Some(first) = candidates.first() else {
        return Err(MixedProgramError::Input("a minimum of no candidates".into()));
    };
    let (width, lanes) = (first.len(), lanes_of::<B>(first));
    // Each candidate carries its value rows, then k one-hot rows naming it.
    let mut round: Vec<Rows<B>> = Vec::with_capacity(k);
    for (c, mut value) in candidates.into_iter().enumerate() {
        for j in 0..k {
            value.push(b.public_bits(&vec![j == c; lanes]));
        }
        round.push(value);
    }
    while round.len() > 1 {
        let pairs = round.len() / 2;
        let carried = (round.len() % 2 == 1).then(|| round.pop()).flatten();
        // Row r of the batch: row r of every pair's left (resp. right), concatenated.
        let mut gather = |side: usize| -> Rows<B> {
            (0..width + k)
                .map(|r| {
                    let parts: Vec<B::Bool> = (0..pairs).map(|j| round[2 * j + side][r].clone()).collect();
                    b.concat(&parts)
                })
                .collect()
        };
        let (left, right) = (gather(0), gather(1));
        // The right one wins only if strictly smaller: ties keep the lower position.
        let (_, right_at_least_left) = subtract(b, &right[..width], &left[..width])?;
        let right_smaller = b.not(&right_at_least_left);
        let winners = select(b, &right_smaller, &left, &right)?;
        let mut next = Vec::with_capacity(pairs + 1);
        for j in 0..pairs {
            let part: Vec<usize> = (j * lanes..(j + 1) * lanes).collect();
            next.push(
                winners
                    .iter()
                    .map(|row| b.gather(row, &part))
                    .collect::<Result<Rows<B>, _>>()?,
            );
        }
        next.extend(carried);
        round = next;
    }
    let mut winner = round.pop().unwrap_or_default();
    Ok(winner.split_off(width))
}

/// ⌊num / den⌋ per lane by restoring division over `num.len()` quotient bits, with a
/// remainder of `den.len() + 1` bits (enough while the remainder stays below den): each
/// step shifts in one bit of num, subtracts den and keeps the difference where it did not
/// borrow. 2·(den.len() + 1) ANDs per quotient bit. A lane with den = 0 gets an all-ones
/// quotient (callers replace it).
pub(crate) fn divide<B: MixedBackend>(
    b: &mut B,
    num: &[B::Bool],
    den: &[B::Bool],
) -> Result<Rows<B>, MixedProgramError> {
    let lanes = lanes_of::<B>(num);
    let zero = b.public_bits(&vec![false; lanes]);
    let w = den.len() + 1;
    let mut divisor = den.to_vec();
    divisor.push(zero.clone());
    let mut remainder: Rows<B> = vec![zero; w];
    let mut quotient = Vec::with_capacity(num.len());
    for bit in num.iter().rev() {
        // remainder·2 + num[i]; the top row dropped is 0 while remainder < den.
        remainder.pop();
        remainder.insert(0, bit.clone());
        let (difference, fits) = subtract(b, &remainder, &divisor)?;
        remainder = select(b, &fits, &remainder, &difference)?;
        quotient.push(fits);
    }
    quotient.reverse();
    Ok(quotient)
}

#[cfg(test)]
mod tests {
    use super::super::{bit_rows, MixedCounter, MixedPlain};
    use super::*;

    /// The lanes of bit-position rows as numbers.
    fn numbers(rows: &[Vec<bool>]) -> Vec<u64> {
        (0..rows.first().map_or(0, Vec::len))
            .map(|i| (0..rows.len()).fold(0, |acc, r| acc | u64::from(rows[r][i]) << r))
            .collect()
    }

    #[test]
    fn restoring_division_equals_integer_division_and_marks_zero_divisors() {
        let num = vec![0u64, 1, 255, 1000, 4095, 4095, 17, 6];
        let den = vec![1u64, 1, 15, 7, 15, 1, 17, 0];
        let mut b = MixedPlain::new(2).unwrap();
        let q = divide(&mut b, &bit_rows(&num, 12), &bit_rows(&den, 5)).unwrap();
        let q = numbers(&q);
        for i in 0..7 {
            assert_eq!(q[i], num[i] / den[i], "{} / {}", num[i], den[i]);
        }
        assert_eq!(q[7], (1 << 12) - 1, "division by zero gives all ones");
        let z = is_zero(&mut b, &bit_rows(&den, 4)).unwrap();
        assert_eq!(z, den.iter().map(|&d| d == 0).collect::<Vec<_>>());
        let mut counter = MixedCounter::new(2).unwrap();
        let shape = |c: &mut MixedCounter, w| vec![c.public_bits(&[false; 8]); w];
        let (n, d) = (shape(&mut counter, 12), shape(&mut counter, 5));
        divide(&mut counter, &n, &d).unwrap();
        assert_eq!(counter.cost().and, 12 * 2 * 6 * num.len());
    }

    #[test]
    fn the_one_hot_minimum_keeps_the_lowest_position_among_equals() {
        // Five candidates (an odd count carried a round), four lanes.
        let candidates: Vec<Vec<u64>> = vec![
            vec![9, 3, 0, 15],
            vec![4, 3, 1, 15],
            vec![4, 8, 0, 15],
            vec![5, 2, 7, 15],
            vec![1, 9, 0, 15],
        ];
        let mut b = MixedPlain::new(3).unwrap();
        let rows = candidates.iter().map(|c| bit_rows(c, 4)).collect();
        // As numbers: bit c set for the winner c.
        let one_hot = numbers(&argmin_one_hot(&mut b, rows).unwrap());
        assert_eq!(one_hot, vec![1 << 4, 1 << 3, 1 << 0, 1 << 0]);
        let mut counter = MixedCounter::new(3).unwrap();
        let rows = (0..5)
            .map(|_| vec![counter.public_bits(&[false; 4]); 4])
            .collect();
        argmin_one_hot(&mut counter, rows).unwrap();
        assert_eq!(counter.cost().and, 4 * 4 * (4 + 4 + 5));
        assert!(argmin_one_hot(&mut b, Vec::new()).is_err());
        assert!(is_zero(&mut b, &[]).is_err());
    }

    #[test]
    fn subtraction_gives_the_difference_and_the_comparison() {
        let (x, y) = (vec![0u64, 5, 200, 255, 7], vec![0u64, 6, 100, 255, 0]);
        let mut b = MixedPlain::new(2).unwrap();
        let (d, at_least) = subtract(&mut b, &bit_rows(&x, 8), &bit_rows(&y, 8)).unwrap();
        let want: Vec<u64> = x.iter().zip(&y).map(|(a, c)| a.wrapping_sub(*c) & 255).collect();
        assert_eq!(numbers(&d), want);
        assert_eq!(at_least, vec![true, false, true, true, true]);
    }
}
