//! Arithmetic in Z_N for any modulus 2 ≤ N < 2^128 (CRT products reach 2^127.5), without
//! overflow: the plaintext reference of CRT values ([`crate::Plain`]) computes its residues
//! and LeNet's reference convolution with these.

/// a + b mod n, for a, b < n.
pub(crate) fn add_mod(a: u128, b: u128, n: u128) -> u128 {
    // a + b may overflow 128 bits; a − (n − b) may not.
    if a >= n - b {
        a - (n - b)
    } else {
        a + b
    }
}

/// a − b mod n, for a, b < n.
pub(crate) fn sub_mod(a: u128, b: u128, n: u128) -> u128 {
    if a >= b {
        a - b
    } else {
        a + (n - b)
    }
}

/// a·b mod n, for a, b < n: the native product where it fits in 128 bits, else
/// double-and-add over the bits of b (each step stays below n).
pub(crate) fn mul_mod(a: u128, b: u128, n: u128) -> u128 {
    if let Some(product) = a.checked_mul(b) {
        return product % n;
    }
    (0..u128::BITS - b.leading_zeros()).rev().fold(0, |acc, i| {
        let doubled = add_mod(acc, acc, n);
        if (b >> i) & 1 == 1 {
            add_mod(doubled, a, n)
        } else {
            doubled
        }
    })
}

/// a^e mod n (0^0 = 1), for a < n, by square-and-multiply.
pub(crate) fn pow_mod(a: u128, e: u64, n: u128) -> u128 {
    (0..u64::BITS - e.leading_zeros()).rev().fold(1 % n, |acc, i| {
        let squared = mul_mod(acc, acc, n);
        if (e >> i) & 1 == 1 {
            mul_mod(squared, a, n)
        } else {
            squared
        }
    })
}

/// Σ 2^j·bits_j mod n (bits least significant first, any number of them), by Horner's
/// rule from the top bit.
pub(crate) fn from_bits_mod(bits: &[bool], n: u128) -> u128 {
    bits.iter().rev().fold(0, |acc, &bit| {
        let doubled = add_mod(acc, acc, n);
        if bit {
            add_mod(doubled, 1, n)
        } else {
            doubled
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// a·b mod n by a route that shares nothing with [`mul_mod`]: the 256-bit product from
    /// 64-bit limbs, then binary long division.
    fn slow_mul_mod(a: u128, b: u128, n: u128) -> u128 {
        let limbs = |x: u128| [x as u64 as u128, x >> 64];
        let (a, b) = (limbs(a), limbs(b));
        let mut wide = [0u128; 4]; // 64-bit limbs of the product, in u128 cells
        for (i, &x) in a.iter().enumerate() {
            for (j, &y) in b.iter().enumerate() {
                let mut carry = x * y; // < 2^128
                let mut k = i + j;
                while carry != 0 {
                    let sum = wide[k] + (carry as u64 as u128);
                    wide[k] = sum as u64 as u128;
                    carry = (carry >> 64) + (sum >> 64);
                    k += 1;
                }
            }
        }
        let mut r = 0u128;
        for bit in (0..256).rev() {
            let top = r >> 127;
            r = (r << 1) | ((wide[bit / 64] >> (bit % 64)) & 1);
            // The true value 2r + bit is below 2n: one subtraction, wrapping past 2^128.
            if top == 1 || r >= n {
                r = r.wrapping_sub(n);
            }
        }
        r
    }

    #[test]
    fn products_match_a_long_division() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let moduli = [
            2,
            3,
            1 << 64,
            (1 << 64) + 13,
            u128::MAX,
            u128::MAX - 158,
            1 << 127,
            (1 << 127) + 1,
        ];
        let random: Vec<u128> = (0..200)
            .map(|_| rng.gen::<u128>() >> rng.gen_range(0..126))
            .collect();
        for n in moduli.into_iter().chain(random) {
            let n = n.max(2);
            for (a, b) in [(n - 1, n - 1), (0, n - 1), (1, n - 1), (n / 2, n - 2)]
                .into_iter()
                .chain((0..50).map(|_| (rng.gen::<u128>() % n, rng.gen::<u128>() % n)))
            {
                assert_eq!(mul_mod(a, b, n), slow_mul_mod(a, b, n), "{a}·{b} mod {n}");
            }
        }
        assert_eq!(mul_mod(u128::MAX - 1, u128::MAX - 1, u128::MAX), 1);
        assert_eq!(slow_mul_mod(u128::MAX - 1, u128::MAX - 1, u128::MAX), 1);
    }

    #[test]
    fn sums_powers_and_bits_wrap_at_n() {
        let n = u128::MAX - 158;
        assert_eq!(add_mod(n - 1, n - 1, n), n - 2);
        assert_eq!(sub_mod(0, 1, n), n - 1);
        assert_eq!(pow_mod(0, 0, n), 1);
        assert_eq!(pow_mod(n - 1, 3, n), n - 1);
        assert_eq!(pow_mod(2, 130, n), mul_mod(4 * 159, 1, n)); // 2^128 ≡ 159
        assert_eq!(pow_mod(5, 0, 2), 1);
        assert_eq!(pow_mod(1, 7, 2), 1);
        let mut bits = vec![false; 130];
        bits[129] = true;
        assert_eq!(from_bits_mod(&bits, n), pow_mod(2, 129, n));
        assert_eq!(from_bits_mod(&[true; 200], 3), (pow_mod(2, 200, 3) + 2) % 3);
        assert_eq!(from_bits_mod(&[], 7), 0);
    }
}
