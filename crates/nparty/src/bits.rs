//! Bits packed into bytes for the wire, least significant bit first.

/// `bits` packed 8 to a byte, bit t at byte t / 8, position t % 8.
pub fn pack(bits: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (t, &b) in bits.iter().enumerate() {
        out[t / 8] |= (b as u8) << (t % 8);
    }
    out
}

/// The first `m` bits of `bytes` (which must hold at least `m` bits).
pub fn unpack(bytes: &[u8], m: usize) -> Vec<bool> {
    (0..m).map(|t| bytes[t / 8] >> (t % 8) & 1 == 1).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn packing_round_trips() {
        let bits: Vec<bool> = (0..21).map(|t| t % 3 == 0).collect();
        let p = super::pack(&bits);
        assert_eq!(p.len(), 3);
        assert_eq!(super::unpack(&p, 21), bits);
    }
}
