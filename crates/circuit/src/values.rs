//! Reading and writing values as hexadecimal integers.
//!
//! A value of width `w` is a `Vec<bool>` of `w` bits, least significant bit first, the
//! same order as the wires of a circuit's input and output values.

use crate::ValueError;

/// Longest value text quoted verbatim in an error message.
const QUOTE_MAX: usize = 80;

/// Parses a hexadecimal integer (no `0x` prefix, digits in either case, leading zeros
/// allowed, any length) into exactly `width` bits, least significant bit first.
///
/// Errors: an empty string, a character that is not a hex digit (the error names it and
/// its 0-based index), or a value that is not below `2^width`.
pub fn parse_hex(s: &str, width: u32) -> Result<Vec<bool>, ValueError> {
    if s.is_empty() {
        return Err(ValueError::Empty);
    }
    let mut digits = Vec::with_capacity(s.len());
    for (position, ch) in s.chars().enumerate() {
        match ch.to_digit(16) {
            Some(d) => digits.push(d as u8),
            None => return Err(ValueError::BadChar { ch, position }),
        }
    }
    let needed = match digits.iter().position(|&d| d != 0) {
        None => 0,
        Some(i) => 4 * (digits.len() - i - 1) as u64 + u64::from(8 - digits[i].leading_zeros()),
    };
    if needed > u64::from(width) {
        return Err(ValueError::TooLarge {
            value: quote(s),
            width,
        });
    }
    let width = width as usize;
    let mut bits = vec![false; width];
    for (k, &d) in digits.iter().rev().enumerate() {
        if 4 * k >= width {
            break;
        }
        for j in 0..4 {
            if (d >> j) & 1 == 1 {
                // In range: the value fits in `width` bits.
                bits[4 * k + j] = true;
            }
        }
    }
    Ok(bits)
}

/// Formats bits (least significant first) as exactly `ceil(bits.len() / 4)` lowercase
/// hex digits, most significant digit first, no prefix. No bits give `""`.
pub fn to_hex(bits: &[bool]) -> String {
    let digits = bits.len().div_ceil(4);
    (0..digits)
        .rev()
        .map(|d| {
            let nibble = bits[4 * d..bits.len().min(4 * d + 4)]
                .iter()
                .enumerate()
                .fold(0u32, |acc, (j, &b)| acc | (u32::from(b) << j));
            char::from_digit(nibble, 16).unwrap_or('?')
        })
        .collect()
}

/// `s`, shortened with an ellipsis if it is long.
fn quote(s: &str) -> String {
    if s.chars().count() <= QUOTE_MAX {
        s.to_string()
    } else {
        let head: String = s.chars().take(QUOTE_MAX).collect();
        format!("{head}… ({} digits)", s.chars().count())
    }
}
