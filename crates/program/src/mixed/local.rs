//! The local operations of the A form (seed "Scalable Mixed-Mode MPC" §3, Figure 2's
//! linear ABB operations): lane-wise arithmetic mod p that needs no communication, the same
//! on clear values ([`super::MixedPlain`]) and on one party's additive shares
//! (`mixgc_mixed::program`), written once here for both.

use super::{check_chunks, check_lengths, check_mod_p, MixedProgramError, Private, PLAINTEXT_MODULUS as P};

/// Lane-wise `f(a, b) mod p` of two vectors of as many lanes (`op` names the operation in
/// the error). `f` must not overflow on inputs below p (p < 2^32).
fn zip_mod_p(
    op: &'static str,
    a: &[u64],
    b: &[u64],
    f: impl Fn(u64, u64) -> u64,
) -> Result<Vec<u64>, MixedProgramError> {
    check_lengths(op, a.len(), b.len())?;
    Ok(a.iter().zip(b).map(|(&x, &y)| f(x, y) % P).collect())
}

/// Lane-wise a + b mod p (of values or of shares).
pub fn add_mod_p(a: &[u64], b: &[u64]) -> Result<Vec<u64>, MixedProgramError> {
    zip_mod_p("add", a, b, |x, y| x + y)
}

/// Lane-wise a − b mod p (of values or of shares).
pub fn sub_mod_p(a: &[u64], b: &[u64]) -> Result<Vec<u64>, MixedProgramError> {
    zip_mod_p("sub", a, b, |x, y| x + P - y)
}

/// Lane-wise a · k mod p by public factors `k`, each checked below p.
pub fn mul_public_mod_p(a: &[u64], k: &[u64]) -> Result<Vec<u64>, MixedProgramError> {
    check_mod_p("public factor", k)?;
    zip_mod_p("mul_public", a, k, |x, y| x * y)
}

/// Lane-wise a · b mod p of two clear vectors (a product of shares needs a protocol).
pub fn mul_mod_p(a: &[u64], b: &[u64]) -> Result<Vec<u64>, MixedProgramError> {
    zip_mod_p("mul", a, b, |x, y| x * y)
}

/// The sums mod p of consecutive chunks of `chunk` lanes (a linear map, so local on shares).
pub fn sum_chunks_mod_p(a: &[u64], chunk: usize) -> Result<Vec<u64>, MixedProgramError> {
    check_chunks("sum_chunks", a.len(), chunk)?;
    Ok(a.chunks(chunk)
        .map(|c| c.iter().fold(0, |s, v| (s + v) % P))
        .collect())
}

/// Party `me`'s additive share of public values (each checked below p): the value at
/// party 0, zero at every other party, so that the shares sum to the value.
pub fn public_share(values: &[u64], me: usize) -> Result<Vec<u64>, MixedProgramError> {
    check_mod_p("public value", values)?;
    let first = me == 0;
    Ok(values.iter().map(|&v| if first { v } else { 0 }).collect())
}

/// Party `me`'s additive share of a private vector: the values at their owner (who must
/// have them), zero at every other party.
pub fn private_share(value: &Private, me: usize) -> Result<Vec<u64>, MixedProgramError> {
    match value.owner() == me {
        true => Ok(value.known()?.to_vec()),
        false => Ok(vec![0; value.len()]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_match_u128_arithmetic_mod_p() {
        let a = [0, 1, P - 1, P / 2, 12345];
        let b = [P - 1, P - 1, P - 1, P / 2 + 7, 0];
        let wide = |f: fn(u128, u128) -> u128| -> Vec<u64> {
            a.iter()
                .zip(&b)
                .map(|(&x, &y)| (f(x.into(), y.into()) % u128::from(P)) as u64)
                .collect()
        };
        assert_eq!(add_mod_p(&a, &b).unwrap(), wide(|x, y| x + y));
        assert_eq!(sub_mod_p(&a, &b).unwrap(), wide(|x, y| x + u128::from(P) - y));
        assert_eq!(mul_mod_p(&a, &b).unwrap(), wide(|x, y| x * y));
        assert_eq!(mul_public_mod_p(&a, &b).unwrap(), wide(|x, y| x * y));
        assert_eq!(sum_chunks_mod_p(&b, 1).unwrap(), b.to_vec());
        assert_eq!(
            sum_chunks_mod_p(&[P - 1, P - 1, 3, 4], 2).unwrap(),
            vec![P - 2, 7]
        );
    }

    #[test]
    fn public_shares_sum_to_the_value() {
        let v = [5, P - 1, 0];
        assert_eq!(public_share(&v, 0).unwrap(), v.to_vec());
        assert_eq!(public_share(&v, 3).unwrap(), vec![0; 3]);
        let private = Private::new(1, 3, Some(v.to_vec())).unwrap();
        assert_eq!(private_share(&private, 1).unwrap(), v.to_vec());
        assert_eq!(private_share(&private, 0).unwrap(), vec![0; 3]);
        let elsewhere = Private::new(1, 2, None).unwrap();
        assert_eq!(private_share(&elsewhere, 0).unwrap(), vec![0; 2]);
        assert_eq!(
            private_share(&elsewhere, 1),
            Err(MixedProgramError::MissingInput { owner: 1 })
        );
    }

    #[test]
    fn bad_operands_are_named_errors() {
        assert_eq!(
            add_mod_p(&[1, 2], &[1]),
            Err(MixedProgramError::Lengths {
                op: "add",
                left: 2,
                right: 1
            })
        );
        assert!(matches!(
            mul_public_mod_p(&[1], &[P]),
            Err(MixedProgramError::NotModP {
                what: "public factor",
                index: 0,
                ..
            })
        ));
        assert!(matches!(
            public_share(&[P + 1], 1),
            Err(MixedProgramError::NotModP {
                what: "public value",
                ..
            })
        ));
        assert!(matches!(
            sum_chunks_mod_p(&[1, 2, 3], 2),
            Err(MixedProgramError::Chunks { op: "sum_chunks", .. })
        ));
        assert!(matches!(
            sum_chunks_mod_p(&[1], 0),
            Err(MixedProgramError::Chunks { .. })
        ));
    }
}
