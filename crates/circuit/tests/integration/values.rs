//! Hex values: parsing and formatting.

use mixgc_circuit::values::{parse_hex, to_hex};
use mixgc_circuit::ValueError;
use proptest::prelude::*;

#[test]
fn bits_are_least_significant_first() {
    assert_eq!(parse_hex("1", 4).unwrap(), vec![true, false, false, false]);
    assert_eq!(parse_hex("8", 4).unwrap(), vec![false, false, false, true]);
    assert_eq!(parse_hex("6", 3).unwrap(), vec![false, true, true]);
    assert!(parse_hex("100", 9).unwrap()[8]);
}

#[test]
fn either_case_and_leading_zeros() {
    assert_eq!(parse_hex("aBcD", 16).unwrap(), parse_hex("ABCD", 16).unwrap());
    assert_eq!(parse_hex("abcd", 16).unwrap(), parse_hex("0000abcd", 16).unwrap());
    assert_eq!(parse_hex("0000000000000000000000001", 1).unwrap(), vec![true]);
    assert_eq!(to_hex(&parse_hex("DEADBEEF", 32).unwrap()), "deadbeef");
}

#[test]
fn too_large() {
    let e = parse_hex("10", 4).unwrap_err();
    assert_eq!(
        e,
        ValueError::TooLarge {
            value: "10".into(),
            width: 4
        }
    );
    assert_eq!(e.to_string(), "value 10 does not fit in 4 bits");
    assert!(parse_hex("7", 3).is_ok());
    assert!(parse_hex("8", 3).is_err());
    assert!(parse_hex("ffffffffffffffff", 64).is_ok());
    assert!(parse_hex("1ffffffffffffffff", 64).is_err());
    let long = "f".repeat(500);
    let shown = parse_hex(&long, 8).unwrap_err().to_string();
    assert!(shown.len() < 200 && shown.contains("500 digits"), "{shown}");
}

#[test]
fn bad_characters_are_named() {
    let e = parse_hex("12g4", 16).unwrap_err();
    assert_eq!(e, ValueError::BadChar { ch: 'g', position: 2 });
    assert!(e.to_string().contains("'g'"), "{e}");
    assert!(matches!(
        parse_hex("0x10", 16),
        Err(ValueError::BadChar { ch: 'x', position: 1 })
    ));
    assert!(matches!(
        parse_hex(" 1", 16),
        Err(ValueError::BadChar { ch: ' ', .. })
    ));
    assert!(matches!(
        parse_hex("1é", 16),
        Err(ValueError::BadChar {
            ch: 'é', position: 1
        })
    ));
}

#[test]
fn empty_and_zero_width() {
    assert_eq!(parse_hex("", 8), Err(ValueError::Empty));
    assert_eq!(parse_hex("", 0), Err(ValueError::Empty));
    assert_eq!(parse_hex("0", 0).unwrap(), Vec::<bool>::new());
    assert_eq!(parse_hex("000", 0).unwrap(), Vec::<bool>::new());
    assert!(parse_hex("1", 0).is_err());
    assert_eq!(to_hex(&[]), "");
}

#[test]
fn to_hex_pads_to_the_width() {
    assert_eq!(to_hex(&[true]), "1");
    assert_eq!(to_hex(&[false, false, false, false, true]), "10");
    assert_eq!(
        to_hex(&parse_hex("1", 128).unwrap()),
        format!("{}1", "0".repeat(31))
    );
    assert_eq!(to_hex(&parse_hex("0", 9).unwrap()), "000");
}

proptest! {
    #[test]
    fn round_trip(x in any::<u128>(), width in 0u32..140) {
        let fits = width >= 128 || x < (1u128 << width);
        let text = format!("{x:x}");
        match parse_hex(&text, width) {
            Ok(bits) => {
                prop_assert!(fits);
                prop_assert_eq!(bits.len(), width as usize);
                let back = to_hex(&bits);
                prop_assert_eq!(back.len(), (width as usize).div_ceil(4));
                prop_assert_eq!(u128::from_str_radix(&back, 16).unwrap_or(0), if width == 0 { 0 } else { x });
            }
            Err(e) => {
                prop_assert!(!fits);
                let is_too_large = matches!(e, ValueError::TooLarge { .. });
                prop_assert!(is_too_large);
            }
        }
    }
}
