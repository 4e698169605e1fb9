//! A bounded reader of NumPy `.npy` files of unsigned bytes (format versions 1–3, dtype
//! `|u1` or `<u1`, C order): the images `mixgc infer` takes and the test set the tests use.
//! The header is parsed by hand, its length and the shape's element count capped before
//! anything is allocated.

use super::model::CnnError;

/// Largest header accepted (bytes).
const MAX_HEADER: usize = 4096;
/// Most elements accepted.
pub const MAX_ELEMENTS: usize = 1 << 26;

fn bad<T>(msg: impl Into<String>) -> Result<T, CnnError> {
    Err(CnnError::Image(format!("not a uint8 .npy file: {}", msg.into())))
}

/// The shape and the bytes of a uint8 `.npy` file.
pub fn parse_u8(bytes: &[u8]) -> Result<(Vec<usize>, Vec<u8>), CnnError> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return bad("no \\x93NUMPY magic");
    }
    let (header_len, start) = match bytes[6] {
        1 => (usize::from(u16::from_le_bytes([bytes[8], bytes[9]])), 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return bad(format!("format version {v}")),
    };
    if header_len > MAX_HEADER || start + header_len > bytes.len() {
        return bad(format!(
            "a {header_len}-byte header in a {}-byte file",
            bytes.len()
        ));
    }
    let header = std::str::from_utf8(&bytes[start..start + header_len])
        .map_err(|_| CnnError::Image("not a uint8 .npy file: the header is not text".into()))?;
    let field = |key: &str| -> Result<&str, CnnError> {
        let at = header
            .find(&format!("'{key}'"))
            .ok_or_else(|| CnnError::Image(format!("not a uint8 .npy file: no '{key}' in the header")))?;
        let rest = &header[at + key.len() + 2..];
        let colon = rest
            .find(':')
            .ok_or_else(|| CnnError::Image(format!("not a uint8 .npy file: '{key}' has no value")))?;
        Ok(rest[colon + 1..].trim_start())
    };
    let descr = field("descr")?;
    if !(descr.starts_with("'|u1'") || descr.starts_with("'<u1'") || descr.starts_with("'u1'")) {
        let shown: String = descr.chars().take(12).collect();
        return Err(CnnError::Image(format!(
            "dtype {shown}… is not uint8 (|u1); convert with .astype(numpy.uint8)"
        )));
    }
    if !field("fortran_order")?.starts_with("False") {
        return bad("Fortran order (save a C-ordered array)");
    }
    let shape_text = field("shape")?;
    let close = shape_text
        .find(')')
        .filter(|_| shape_text.starts_with('('))
        .ok_or_else(|| CnnError::Image("not a uint8 .npy file: the shape is not a tuple".into()))?;
    let mut shape = Vec::new();
    for part in shape_text[1..close]
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        if shape.len() == 4 {
            return bad("more than 4 dimensions");
        }
        let d: usize = part
            .parse()
            .map_err(|_| CnnError::Image(format!("not a uint8 .npy file: dimension '{part}'")))?;
        shape.push(d);
    }
    let count = shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|&n| n <= MAX_ELEMENTS)
        .ok_or_else(|| CnnError::Image(format!("shape {shape:?} has more than {MAX_ELEMENTS} elements")))?;
    let data = &bytes[start + header_len..];
    if data.len() != count {
        return bad(format!(
            "shape {shape:?} needs {count} bytes of data, the file has {}",
            data.len()
        ));
    }
    Ok((shape, data.to_vec()))
}

/// One image of `side`×`side` pixels from a `.npy` file of shape (side, side) or (side²,).
pub fn parse_image(bytes: &[u8], side: usize) -> Result<Vec<u8>, CnnError> {
    let (shape, data) = parse_u8(bytes)?;
    if shape != [side, side] && shape != [side * side] {
        return Err(CnnError::Image(format!(
            "shape {shape:?}, expected ({side}, {side}) or ({},)",
            side * side
        )));
    }
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}\n");
        let mut v = b"\x93NUMPY\x01\x00".to_vec();
        v.extend((header.len() as u16).to_le_bytes());
        v.extend(header.as_bytes());
        v.extend(data);
        v
    }

    #[test]
    fn reads_shapes_and_refuses_the_rest() {
        let ok = npy("|u1", "(2, 2)", &[1, 2, 3, 4]);
        assert_eq!(parse_u8(&ok).unwrap(), (vec![2, 2], vec![1, 2, 3, 4]));
        assert_eq!(
            parse_image(&npy("|u1", "(4,)", &[1, 2, 3, 4]), 2).unwrap(),
            vec![1, 2, 3, 4]
        );
        let err = |b: &[u8]| parse_image(b, 2).unwrap_err().to_string();
        assert!(err(&npy("<f8", "(2, 2)", &[0; 32])).contains("not uint8"));
        assert!(err(&npy("|u1", "(3, 3)", &[0; 9])).contains("expected (2, 2)"));
        assert!(err(&npy("|u1", "(2, 2)", &[0; 3])).contains("needs 4 bytes"));
        assert!(err(&npy("|u1", "(99999999999, 99999999999)", &[])).contains("more than"));
        assert!(err(b"PK\x03\x04 not numpy").contains("magic"));
        let mut long = npy("|u1", "(2, 2)", &[0; 4]);
        long[8] = 0xff;
        long[9] = 0xff;
        assert!(err(&long).contains("header"));
    }
}
