//! Bit-matrix transpose between the column view of IKNP (128 PRG streams, one bit per OT)
//! and the row view (one 128-bit block per OT).
//!
//! Bit convention, used on both sides of the protocol: bit `j` of a column is bit `j % 8`
//! of byte `j / 8`; bit `i` of a row block is bit `i` of its little-endian `u128` value.

use mixgc_core::Block;

/// `MASKS[k]` selects the bits `c` of a `u128` with `c & w == 0`, for `w = 64 >> k`.
const MASKS: [u128; 7] = {
    let mut masks = [0u128; 7];
    let mut k = 0;
    while k < 7 {
        let w = 64u32 >> k;
        let mut c = 0;
        while c < 128 {
            if c & w == 0 {
                masks[k] |= 1u128 << c;
            }
            c += 1;
        }
        k += 1;
    }
    masks
};

/// Transposes a 128×128 bit matrix in place: afterwards bit `i` of `m[j]` is what bit `j`
/// of `m[i]` was.
///
/// Recursive block swap: at width `w` (64, 32, …, 1), in each 2w×2w block swap the
/// top-right w×w quarter with the bottom-left one — element (r, c + w) with (r + w, c) —
/// with one masked XOR-swap per row pair. 7·64 row-pair steps in all.
#[inline]
pub(crate) fn transpose_128(m: &mut [u128; 128]) {
    for (k, &mask) in MASKS.iter().enumerate() {
        let w = 64usize >> k;
        let mut top = 0;
        while top < 128 {
            let (upper, lower) = m[top..top + 2 * w].split_at_mut(w);
            for (a, b) in upper.iter_mut().zip(lower.iter_mut()) {
                let t = ((*a >> w) ^ *b) & mask;
                *b ^= t;
                *a ^= t << w;
            }
            top += 2 * w;
        }
    }
}

/// Turns 128 columns of `rows.len()` bits each (`cols`, column `i` at bytes
/// `i·n/8 .. (i+1)·n/8`) into `rows.len()` row blocks. `rows.len()` must be a multiple
/// of 128.
pub(crate) fn columns_to_rows(cols: &[u8], rows: &mut [Block]) {
    let n = rows.len();
    assert!(n.is_multiple_of(128), "rows must come in blocks of 128");
    let col_bytes = n / 8;
    assert_eq!(cols.len(), 128 * col_bytes, "128 columns of n bits");
    let mut m = [0u128; 128];
    for (blk, out) in rows.chunks_exact_mut(128).enumerate() {
        let at = 16 * blk;
        for (i, word) in m.iter_mut().enumerate() {
            let start = i * col_bytes + at;
            *word = u128::from_le_bytes(cols[start..start + 16].try_into().expect("16 bytes"));
        }
        transpose_128(&mut m);
        for (row, &word) in out.iter_mut().zip(m.iter()) {
            *row = Block::from_u128(word);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn bit(bytes: &[u8], j: usize) -> bool {
        bytes[j / 8] >> (j % 8) & 1 == 1
    }

    #[test]
    fn masks_are_the_classic_patterns() {
        assert_eq!(MASKS[0], u64::MAX as u128);
        assert_eq!(MASKS[6], 0x5555_5555_5555_5555_5555_5555_5555_5555);
        assert_eq!(MASKS[5], 0x3333_3333_3333_3333_3333_3333_3333_3333);
    }

    #[test]
    fn transpose_128_matches_naive_and_is_an_involution() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(1);
        let orig: [u128; 128] = std::array::from_fn(|_| rng.gen());
        let mut m = orig;
        transpose_128(&mut m);
        for (i, &row) in orig.iter().enumerate() {
            for (j, &col) in m.iter().enumerate() {
                assert_eq!(col >> i & 1, row >> j & 1, "bit ({i},{j})");
            }
        }
        transpose_128(&mut m);
        assert_eq!(m, orig);
    }

    #[test]
    fn columns_to_rows_matches_naive_bit_by_bit() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(2);
        for n in [128usize, 256, 1024, 128 * 7] {
            let col_bytes = n / 8;
            let cols: Vec<u8> = (0..128 * col_bytes).map(|_| rng.gen()).collect();
            let mut rows = vec![Block::ZERO; n];
            columns_to_rows(&cols, &mut rows);
            for (j, row) in rows.iter().enumerate() {
                for i in 0..128 {
                    let want = bit(&cols[i * col_bytes..(i + 1) * col_bytes], j);
                    assert_eq!(row.to_u128() >> i & 1 == 1, want, "row {j} column {i}");
                }
            }
        }
    }
}
