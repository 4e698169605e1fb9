//! Bit vectors packed 8 to a byte, least significant bit first, for output frames.

pub(crate) fn pack(bits: &[bool]) -> Vec<u8> {
    let mut out = vec![0u8; bits.len().div_ceil(8)];
    for (i, &b) in bits.iter().enumerate() {
        out[i / 8] |= (b as u8) << (i % 8);
    }
    out
}

pub(crate) fn unpack(bytes: &[u8], n: usize) -> Option<Vec<bool>> {
    (bytes.len() == n.div_ceil(8)).then(|| (0..n).map(|i| bytes[i / 8] >> (i % 8) & 1 == 1).collect())
}

/// Splits a flat bit vector into values of the given widths.
pub(crate) fn split(bits: &[bool], widths: &[u32]) -> Vec<Vec<bool>> {
    let mut rest = bits;
    widths
        .iter()
        .map(|&w| {
            let (head, tail) = rest.split_at(w as usize);
            rest = tail;
            head.to_vec()
        })
        .collect()
}

/// Splits `items` into `n` consecutive slices of `each` items (empty slices when `each` is 0).
pub(crate) fn per_instance<T>(items: &[T], each: usize, n: usize) -> impl Iterator<Item = &[T]> {
    (0..n).map(move |i| &items[i * each..(i + 1) * each])
}

#[cfg(test)]
mod tests {
    #[test]
    fn pack_unpack_round_trip() {
        let bits: Vec<bool> = (0..19).map(|i| i % 3 == 0).collect();
        assert_eq!(super::unpack(&super::pack(&bits), 19).unwrap(), bits);
        assert!(super::unpack(&[0], 19).is_none());
    }
}
