//! Bit vectors on the wire: packed eight to a byte, least significant bit first.

use mixgc_net::{Channel, NetError};

use crate::MaliciousError;

/// `bits` packed eight to a byte, least significant bit first.
pub(crate) fn pack(bits: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (i, &b) in bits.iter().enumerate() {
        out[i / 8] |= u8::from(b) << (i % 8);
    }
    out
}

pub(crate) fn send_bits<C: Channel + ?Sized>(ch: &mut C, bits: &[bool]) -> Result<(), NetError> {
    ch.send(&pack(bits))
}

/// Receives `n` packed bits (a count this party knows, never one read from the peer); a
/// set padding bit is a protocol violation named by `what`.
pub(crate) fn recv_bits<C: Channel + ?Sized>(
    ch: &mut C,
    n: usize,
    what: &str,
) -> Result<Vec<bool>, MaliciousError> {
    let mut bytes = vec![0u8; n.div_ceil(8)];
    ch.recv(&mut bytes)?;
    if !n.is_multiple_of(8) && bytes[n / 8] >> (n % 8) != 0 {
        return Err(MaliciousError::Protocol(format!(
            "the peer set padding bits after {what}"
        )));
    }
    Ok((0..n).map(|i| bytes[i / 8] >> (i % 8) & 1 == 1).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mixgc_net::memory_pair;

    #[test]
    fn bits_round_trip_and_padding_is_checked() {
        let (mut a, mut b) = memory_pair();
        let bits: Vec<bool> = (0..13).map(|i| i % 3 == 0).collect();
        send_bits(&mut a, &bits).unwrap();
        a.send(&[0x80]).unwrap();
        a.flush().unwrap();
        assert_eq!(recv_bits(&mut b, 13, "x").unwrap(), bits);
        let err = recv_bits(&mut b, 7, "the test bits").unwrap_err();
        assert!(
            err.to_string().contains("padding bits after the test bits"),
            "{err}"
        );
    }
}
