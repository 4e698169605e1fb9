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
///
/// On x86-64 this is the `movemask` transpose of emp-toolkit's `sse_trans` (a byte of each
/// of 16 columns per vector, eight `movemask`s give eight rows' 16 bits), with AVX-512
/// (64 columns per vector, 64 bits per row and mask) where the CPU has it, else SSE2:
/// several times faster than the portable block swap, which stays as the fallback
/// elsewhere and as the tests' reference. Where the CPU also has GFNI and AVX-512 VBMI,
/// the same byte transpose is followed by one `vgf2p8affineqb` per vector (eight 8×8 bit
/// transposes) and two byte permutes per eight rows instead of 64 `movemask`s.
pub(crate) fn columns_to_rows(cols: &[u8], rows: &mut [Block]) {
    let n = rows.len();
    assert!(n.is_multiple_of(128), "rows must come in blocks of 128");
    assert_eq!(cols.len(), 128 * (n / 8), "128 columns of n bits");
    #[cfg(target_arch = "x86_64")]
    {
        if gfni::detected() {
            // SAFETY: the CPU has GFNI and AVX-512 F, BW and VBMI; the shapes were checked above.
            unsafe { gfni::columns_to_rows(cols, rows) }
        } else if std::arch::is_x86_feature_detected!("avx512bw") {
            // SAFETY: the CPU has AVX-512 F and BW; the shapes were checked above.
            unsafe { avx512::columns_to_rows(cols, rows) }
        } else {
            // SAFETY: SSE2 is part of the x86-64 baseline; the shapes were checked above.
            unsafe { sse2::columns_to_rows(cols, rows) }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    columns_to_rows_portable(cols, rows)
}

/// The portable transpose: [`transpose_128`] on each 128×128 block.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(crate) fn columns_to_rows_portable(cols: &[u8], rows: &mut [Block]) {
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

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use std::arch::x86_64::{
        __m512i, _mm512_castsi128_si512, _mm512_inserti32x4, _mm512_movepi8_mask, _mm512_slli_epi64,
        _mm512_unpackhi_epi16, _mm512_unpackhi_epi32, _mm512_unpackhi_epi64, _mm512_unpackhi_epi8,
        _mm512_unpacklo_epi16, _mm512_unpacklo_epi32, _mm512_unpacklo_epi64, _mm512_unpacklo_epi8,
        _mm_loadu_si128,
    };

    use super::sse2::BIT_REVERSED;
    use mixgc_core::Block;

    /// [`super::sse2`]'s byte transpose in each of the four 128-bit lanes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) fn transpose_bytes(m: &mut [__m512i; 16]) {
        let mut t = [m[0]; 16];
        for i in 0..8 {
            t[2 * i] = _mm512_unpacklo_epi8(m[i], m[i + 8]);
            t[2 * i + 1] = _mm512_unpackhi_epi8(m[i], m[i + 8]);
        }
        for i in 0..8 {
            m[2 * i] = _mm512_unpacklo_epi16(t[i], t[i + 8]);
            m[2 * i + 1] = _mm512_unpackhi_epi16(t[i], t[i + 8]);
        }
        for i in 0..8 {
            t[2 * i] = _mm512_unpacklo_epi32(m[i], m[i + 8]);
            t[2 * i + 1] = _mm512_unpackhi_epi32(m[i], m[i + 8]);
        }
        for i in 0..8 {
            m[2 * i] = _mm512_unpacklo_epi64(t[i], t[i + 8]);
            m[2 * i + 1] = _mm512_unpackhi_epi64(t[i], t[i + 8]);
        }
    }

    /// As [`super::sse2::columns_to_rows`] with 64 columns per tile: lane L of vector i
    /// holds column 64·half + 16·L + bitrev(i), so one mask gives a row's 64 bits.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn columns_to_rows(cols: &[u8], rows: &mut [Block]) {
        let n = rows.len();
        let col_bytes = n / 8;
        let src = cols.as_ptr();
        let dst = rows.as_mut_ptr() as *mut u8;
        let load = |column: usize, at: usize| {
            // SAFETY: column < 128 and at + 16 <= col_bytes.
            unsafe { _mm_loadu_si128(src.add(column * col_bytes + at) as *const _) }
        };
        let mut m = [_mm512_castsi128_si512(load(0, 0)); 16];
        for at in (0..col_bytes).step_by(16) {
            for half in 0..2 {
                for (i, v) in m.iter_mut().enumerate() {
                    let c = 64 * half + BIT_REVERSED[i];
                    let w = _mm512_castsi128_si512(load(c, at));
                    let w = _mm512_inserti32x4::<1>(w, load(c + 16, at));
                    let w = _mm512_inserti32x4::<2>(w, load(c + 32, at));
                    *v = _mm512_inserti32x4::<3>(w, load(c + 48, at));
                }
                transpose_bytes(&mut m);
                for (k, &v) in m.iter().enumerate() {
                    let mut v = v;
                    for b in (0..8).rev() {
                        let bits = _mm512_movepi8_mask(v);
                        let row = 8 * (at + k) + b;
                        // SAFETY: row < n; bytes 8·half .. 8·half + 8 of its block.
                        unsafe {
                            std::ptr::write_unaligned(dst.add(16 * row + 8 * half) as *mut u64, bits.to_le())
                        };
                        v = _mm512_slli_epi64::<1>(v);
                    }
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod gfni {
    use std::arch::x86_64::{
        _mm512_castsi128_si512, _mm512_gf2p8affine_epi64_epi8, _mm512_inserti32x4, _mm512_loadu_si512,
        _mm512_permutex2var_epi8, _mm512_set1_epi64, _mm512_storeu_si512, _mm_loadu_si128,
    };

    use super::sse2::BIT_REVERSED;
    use mixgc_core::Block;
    use zeroize::Zeroize;

    /// Whether the CPU has what [`columns_to_rows`] needs.
    pub(super) fn detected() -> bool {
        std::arch::is_x86_feature_detected!("gfni")
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
    }

    /// Byte j of each qword is `1 << j`: `vgf2p8affineqb` with this as the data operand and
    /// a qword M as the matrix gives byte j, bit i = bit j of M's byte 7 − i, i.e. M's 8×8
    /// bit transpose with the bit order of each result byte reversed.
    const UNIT_BYTES: i64 = 0x8040_2010_0804_0201_u64 as i64;

    /// `vpermt2b` indices: output vector `o` holds rows 4o .. 4o + 4 of eight (16 bytes
    /// each); byte b of row r is byte r of qword b % 8 of the half b / 8 (bit 6 of an index
    /// picks the second source).
    const ROW_INDEX: [[u8; 64]; 2] = {
        let mut idx = [[0u8; 64]; 2];
        let mut o = 0;
        while o < 2 {
            let mut p = 0;
            while p < 64 {
                let (r, b) = (4 * o + p / 16, p % 16);
                idx[o][p] = (((b / 8) << 6) | (8 * (b % 8) + r)) as u8;
                p += 1;
            }
            o += 1;
        }
        idx
    };

    /// Bytes of each column copied per pass into a contiguous stage: one cache line.
    const STAGE: usize = 64;

    /// See [`super::columns_to_rows`]; the caller checked the shapes and the CPU.
    ///
    /// The columns lie `n / 8` bytes apart (2 KiB in IKNP's 2^14-row chunk), so the 128
    /// columns' loads at one offset fall in one or two L1 sets, on 64 or 128 pages: the
    /// run-wise loads below fetched each line again for each of its four 16-byte runs.
    /// So each column's next 64 bytes are first copied into an 8 KiB stage (one line load
    /// per column), the runs are transposed from there, and the stage is wiped at the end.
    #[target_feature(enable = "gfni,avx512f,avx512bw,avx512vbmi")]
    pub(super) unsafe fn columns_to_rows(cols: &[u8], rows: &mut [Block]) {
        let n = rows.len();
        let col_bytes = n / 8;
        let src = cols.as_ptr();
        let dst = rows.as_mut_ptr() as *mut u8;
        let mut stage = [0u128; 128 * STAGE / 16];
        let staged = stage.as_mut_ptr() as *mut u8;
        let whole = col_bytes - col_bytes % STAGE;
        for at in (0..whole).step_by(STAGE) {
            for c in 0..128 {
                // SAFETY: at + 64 <= col_bytes, c < 128; the stage has 128 · 64 bytes.
                unsafe {
                    let line = _mm512_loadu_si512(src.add(c * col_bytes + at) as *const _);
                    _mm512_storeu_si512(staged.add(c * STAGE) as *mut _, line);
                }
            }
            // SAFETY: the stage holds 128 columns of STAGE bytes; rows 8·at .. 8·(at + 64).
            unsafe { runs(staged, STAGE, STAGE, dst.add(16 * 8 * at)) };
        }
        // SAFETY: the last col_bytes − whole bytes of each column, and their rows.
        unsafe {
            runs(
                src.add(whole),
                col_bytes,
                col_bytes - whole,
                dst.add(16 * 8 * whole),
            )
        };
        stage.zeroize();
    }

    /// Transposes `len / 16` runs of 128 rows: column c's bytes at `src + c · stride`
    /// .. `+ len`, the rows' blocks from `dst` on.
    ///
    /// As [`super::avx512::columns_to_rows`] up to the byte transpose, loaded so that the
    /// columns run backwards in each qword (byte p of a qword holds column 8q + 7 − p): then
    /// `vgf2p8affineqb` turns qword q of vector k into bytes 8 q .. 8 q + 8 of rows
    /// 8k .. 8k + 8 of the 128-row run, one byte per row, and two `vpermt2b` of the two
    /// halves' vectors give those eight rows' 128 bytes.
    #[inline]
    #[target_feature(enable = "gfni,avx512f,avx512bw,avx512vbmi")]
    unsafe fn runs(src: *const u8, stride: usize, len: usize, dst: *mut u8) {
        let load = |column: usize, at: usize| {
            // SAFETY: column < 128 and at + 16 <= len (the caller's promise).
            unsafe { _mm_loadu_si128(src.add(column * stride + at) as *const _) }
        };
        let unit = _mm512_set1_epi64(UNIT_BYTES);
        // SAFETY: 64 bytes each.
        let index = ROW_INDEX.map(|i| unsafe { _mm512_loadu_si512(i.as_ptr() as *const _) });
        let mut m = [unit; 16];
        let mut halves = [m; 2];
        for at in (0..len).step_by(16) {
            for (half, out) in halves.iter_mut().enumerate() {
                for (i, v) in m.iter_mut().enumerate() {
                    let c = 64 * half + (BIT_REVERSED[i] ^ 7);
                    let w = _mm512_castsi128_si512(load(c, at));
                    let w = _mm512_inserti32x4::<1>(w, load(c + 16, at));
                    let w = _mm512_inserti32x4::<2>(w, load(c + 32, at));
                    *v = _mm512_inserti32x4::<3>(w, load(c + 48, at));
                }
                super::avx512::transpose_bytes(&mut m);
                for (o, &v) in out.iter_mut().zip(m.iter()) {
                    *o = _mm512_gf2p8affine_epi64_epi8::<0>(unit, v);
                }
            }
            let [first, second] = &halves;
            for (k, (&lo, &hi)) in first.iter().zip(second).enumerate() {
                for (o, &idx) in index.iter().enumerate() {
                    let row = 8 * (at + k) + 4 * o;
                    let v = _mm512_permutex2var_epi8(lo, idx, hi);
                    // SAFETY: rows row .. row + 4 of this call's 8 · len, 64 bytes.
                    unsafe { _mm512_storeu_si512(dst.add(16 * row) as *mut _, v) };
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_loadu_si128, _mm_movemask_epi8, _mm_slli_epi64, _mm_unpackhi_epi16, _mm_unpackhi_epi32,
        _mm_unpackhi_epi64, _mm_unpackhi_epi8, _mm_unpacklo_epi16, _mm_unpacklo_epi32, _mm_unpacklo_epi64,
        _mm_unpacklo_epi8,
    };

    use mixgc_core::Block;

    /// i with its four bits reversed.
    pub(super) const BIT_REVERSED: [usize; 16] = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15];

    /// Interleaves the 16 vectors of `m` in four rounds (bytes, then 2, 4 and 8 bytes, each
    /// vector i with vector i + 8): afterwards byte p of vector k is byte k of the vector
    /// that was at index bitrev(p), i.e. a 16×16 byte transpose up to that row order.
    #[inline(always)]
    unsafe fn transpose_bytes(m: &mut [__m128i; 16]) {
        // Four rounds of interleaving at widths 8, 16, 32 and 64 bits.
        let mut t = [m[0]; 16];
        for i in 0..8 {
            t[2 * i] = _mm_unpacklo_epi8(m[i], m[i + 8]);
            t[2 * i + 1] = _mm_unpackhi_epi8(m[i], m[i + 8]);
        }
        for i in 0..8 {
            m[2 * i] = _mm_unpacklo_epi16(t[i], t[i + 8]);
            m[2 * i + 1] = _mm_unpackhi_epi16(t[i], t[i + 8]);
        }
        for i in 0..8 {
            t[2 * i] = _mm_unpacklo_epi32(m[i], m[i + 8]);
            t[2 * i + 1] = _mm_unpackhi_epi32(m[i], m[i + 8]);
        }
        for i in 0..8 {
            m[2 * i] = _mm_unpacklo_epi64(t[i], t[i + 8]);
            m[2 * i + 1] = _mm_unpackhi_epi64(t[i], t[i + 8]);
        }
    }

    /// See [`super::columns_to_rows`]; the caller checked the shapes.
    ///
    /// Per tile of 16 columns × 128 rows: 16 loads of 16 bytes (one per column), a byte
    /// transpose in registers (vector k then holds byte k of every column, i.e. the bits
    /// of rows 8k..8k+8), and per vector eight `movemask`s (bit 7 of each byte, shifted
    /// down the bits) give eight rows' 16 bits.
    pub(super) unsafe fn columns_to_rows(cols: &[u8], rows: &mut [Block]) {
        let n = rows.len();
        let col_bytes = n / 8;
        let src = cols.as_ptr();
        let dst = rows.as_mut_ptr() as *mut u8;
        let mut m = [unsafe { std::mem::zeroed::<__m128i>() }; 16];
        // Rows in runs of 128 (16 bytes of each column), columns in groups of 16.
        for at in (0..col_bytes).step_by(16) {
            for group in 0..8 {
                for (i, v) in m.iter_mut().enumerate() {
                    // Loaded in bit-reversed order: the four unpack rounds of
                    // `transpose_bytes` leave byte i at position bitrev(i).
                    let column = 16 * group + BIT_REVERSED[i];
                    // SAFETY: column < 128 and at + 16 <= col_bytes.
                    *v = unsafe { _mm_loadu_si128(src.add(column * col_bytes + at) as *const __m128i) };
                }
                unsafe { transpose_bytes(&mut m) };
                // m[k] byte i = byte `at + k` of column 16·group + i: bit b is row
                // 8·(at + k) + b's bit of that column.
                for (k, &v) in m.iter().enumerate() {
                    let mut v = v;
                    for b in (0..8).rev() {
                        let bits = _mm_movemask_epi8(v) as u16;
                        let row = 8 * (at + k) + b;
                        // SAFETY: row < n; bytes 2·group, 2·group + 1 of its block.
                        unsafe {
                            std::ptr::write_unaligned(dst.add(16 * row + 2 * group) as *mut u16, bits.to_le())
                        };
                        v = _mm_slli_epi64(v, 1);
                    }
                }
            }
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
    fn the_simd_transpose_equals_the_portable_one() {
        let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(3);
        // Below, at and above one 512-row stage of the GFNI path, with a partial last stage;
        // 2^14 rows is IKNP's chunk.
        for n in [128usize, 256, 384, 512, 1024, 128 * 129, 1 << 14, (1 << 14) + 384] {
            let cols: Vec<u8> = (0..128 * (n / 8)).map(|_| rng.gen()).collect();
            let mut fast = vec![Block::ZERO; n];
            let mut portable = vec![Block::ZERO; n];
            columns_to_rows(&cols, &mut fast);
            columns_to_rows_portable(&cols, &mut portable);
            assert_eq!(fast, portable, "n = {n}");
            #[cfg(target_arch = "x86_64")]
            {
                let mut sse = vec![Block::ZERO; n];
                // SAFETY: SSE2 is part of x86-64; the shapes are those of the call above.
                unsafe { sse2::columns_to_rows(&cols, &mut sse) };
                assert_eq!(sse, portable, "SSE2, n = {n}");
                if std::arch::is_x86_feature_detected!("avx512bw") {
                    let mut wide = vec![Block::ZERO; n];
                    // SAFETY: the CPU has AVX-512 F and BW; the shapes are as above.
                    unsafe { avx512::columns_to_rows(&cols, &mut wide) };
                    assert_eq!(wide, portable, "AVX-512, n = {n}");
                }
                if gfni::detected() {
                    let mut affine = vec![Block::ZERO; n];
                    // SAFETY: the CPU has what the GFNI path needs; the shapes are as above.
                    unsafe { gfni::columns_to_rows(&cols, &mut affine) };
                    assert_eq!(affine, portable, "GFNI, n = {n}");
                }
            }
        }
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
