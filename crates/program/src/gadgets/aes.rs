//! AES-128 encryption (FIPS-197) with the key schedule inside the circuit: 6,400 ANDs.
//!
//! Every AND of AES sits in an S-box: 10 rounds × 16 S-boxes plus 10 × 4 in the key schedule
//! make 200 S-boxes. Each S-box is the Boyar–Peralta circuit (J. Boyar, R. Peralta, "A new
//! combinational logic minimization technique with applications to cryptology", SEA 2010;
//! and "A depth-16 circuit for the AES S-box", 2012): a linear top layer maps the input byte
//! to 22 linear forms, a nonlinear middle computes the inversion in GF(2^8) through the tower
//! field GF((2^4)^2) with 32 ANDs (9 for the GF(2^4) product of the halves, 5 for the
//! GF(2^4) inversion, 18 for the two products with the inverse), and a linear bottom layer
//! folds in the affine map. ShiftRows is wiring, MixColumns and AddRoundKey are XORs, all
//! free under free-XOR. Total: 200 × 32 = **6,400 ANDs** (AND depth 60), the same as the
//! reference circuit `circuits/aes_128.txt`.
//!
//! Value convention (that of `aes_128.txt` and Bristol Fashion): the key, the plaintext and
//! the ciphertext are each one 128-bit integer, wire 0 = least significant bit, and the hex
//! string written in FIPS-197 is that integer. So byte 0 of the FIPS byte string is the
//! *most* significant byte: byte `i` occupies wires `8·(15 − i) .. 8·(15 − i) + 8`, its
//! least significant bit first.

use crate::Backend;

/// One byte as wires, least significant bit first.
type Byte<W> = [W; 8];

/// AES-128 encryption of `plaintext` under `key` (128 wires each, see the module docs for
/// the bit order): 128 output wires, **6,400 ANDs**.
pub fn aes128<B: Backend>(b: &mut B, key: &[B::Wire], plaintext: &[B::Wire]) -> Vec<B::Wire> {
    assert_eq!(key.len(), 128, "AES-128 key must be 128 bits");
    assert_eq!(plaintext.len(), 128, "AES-128 plaintext must be 128 bits");
    let byte_at = |v: &[B::Wire], i: usize| -> Byte<B::Wire> { std::array::from_fn(|j| v[8 * (15 - i) + j]) };

    // State and round key as 16 bytes in FIPS order: byte r + 4c is row r, column c.
    let mut round_key: [Byte<B::Wire>; 16] = std::array::from_fn(|i| byte_at(key, i));
    let mut state: [Byte<B::Wire>; 16] =
        std::array::from_fn(|i| xor_byte(b, &byte_at(plaintext, i), &round_key[i]));

    const RCON: [u8; 10] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];
    for (round, &rcon) in RCON.iter().enumerate() {
        let sub: Vec<Byte<B::Wire>> = state.iter().map(|x| sbox(b, x)).collect();
        // ShiftRows: row r rotates left by r columns.
        let shifted: [Byte<B::Wire>; 16] = std::array::from_fn(|i| {
            let (r, c) = (i % 4, i / 4);
            sub[r + 4 * ((c + r) % 4)]
        });
        state = if round < 9 {
            mix_columns(b, &shifted)
        } else {
            shifted
        };
        round_key = next_round_key(b, &round_key, rcon);
        for (s, k) in state.iter_mut().zip(&round_key) {
            *s = xor_byte(b, s, k);
        }
    }

    let mut out = Vec::with_capacity(128);
    for i in (0..16).rev() {
        out.extend_from_slice(&state[i]);
    }
    out
}

/// The next round key of the key expansion (FIPS-197 §5.2): 4 S-boxes, 128 ANDs.
fn next_round_key<B: Backend>(b: &mut B, k: &[Byte<B::Wire>; 16], rcon: u8) -> [Byte<B::Wire>; 16] {
    // temp = SubWord(RotWord(w[3])) ⊕ Rcon.
    let mut temp: [Byte<B::Wire>; 4] = std::array::from_fn(|r| sbox(b, &k[12 + (r + 1) % 4]));
    for (j, bit) in temp[0].iter_mut().enumerate() {
        if rcon >> j & 1 == 1 {
            *bit = b.not(*bit);
        }
    }
    let mut next = *k;
    for c in 0..4 {
        for r in 0..4 {
            let prev = if c == 0 { temp[r] } else { next[4 * (c - 1) + r] };
            next[4 * c + r] = xor_byte(b, &k[4 * c + r], &prev);
        }
    }
    next
}

fn xor_byte<B: Backend>(b: &mut B, x: &Byte<B::Wire>, y: &Byte<B::Wire>) -> Byte<B::Wire> {
    std::array::from_fn(|j| b.xor(x[j], y[j]))
}

/// Multiplication by x in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1 (free).
fn xtime<B: Backend>(b: &mut B, x: &Byte<B::Wire>) -> Byte<B::Wire> {
    let top = x[7];
    [
        top,
        b.xor(x[0], top),
        x[1],
        b.xor(x[2], top),
        b.xor(x[3], top),
        x[4],
        x[5],
        x[6],
    ]
}

/// MixColumns (free): out_r = 2·a_r ⊕ 3·a_{r+1} ⊕ a_{r+2} ⊕ a_{r+3}
/// = xtime(a_r ⊕ a_{r+1}) ⊕ (a_0 ⊕ a_1 ⊕ a_2 ⊕ a_3) ⊕ a_r.
fn mix_columns<B: Backend>(b: &mut B, s: &[Byte<B::Wire>; 16]) -> [Byte<B::Wire>; 16] {
    let mut out = *s;
    for c in 0..4 {
        let a: [Byte<B::Wire>; 4] = std::array::from_fn(|r| s[4 * c + r]);
        let t01 = xor_byte(b, &a[0], &a[1]);
        let t23 = xor_byte(b, &a[2], &a[3]);
        let all = xor_byte(b, &t01, &t23);
        for r in 0..4 {
            let pair = xor_byte(b, &a[r], &a[(r + 1) % 4]);
            let doubled = xtime(b, &pair);
            let t = xor_byte(b, &doubled, &all);
            out[4 * c + r] = xor_byte(b, &t, &a[r]);
        }
    }
    out
}

/// The AES S-box with 32 ANDs and 83 XOR/XNORs (Boyar–Peralta). Inside, `x0` is the most
/// significant bit of the byte, as in the paper; the byte itself is least significant bit
/// first.
fn sbox<B: Backend>(b: &mut B, byte: &Byte<B::Wire>) -> Byte<B::Wire> {
    let x: [B::Wire; 8] = std::array::from_fn(|i| byte[7 - i]);
    macro_rules! xor {
        ($p:expr, $q:expr) => {
            b.xor($p, $q)
        };
    }
    macro_rules! and {
        ($p:expr, $q:expr) => {
            b.and($p, $q)
        };
    }
    macro_rules! xnor {
        ($p:expr, $q:expr) => {{
            let t = b.xor($p, $q);
            b.not(t)
        }};
    }

    // Top linear layer: 23 XORs give the 22 linear forms the middle multiplies.
    let y14 = xor!(x[3], x[5]);
    let y13 = xor!(x[0], x[6]);
    let y9 = xor!(x[0], x[3]);
    let y8 = xor!(x[0], x[5]);
    let t0 = xor!(x[1], x[2]);
    let y1 = xor!(t0, x[7]);
    let y4 = xor!(y1, x[3]);
    let y12 = xor!(y13, y14);
    let y2 = xor!(y1, x[0]);
    let y5 = xor!(y1, x[6]);
    let y3 = xor!(y5, y8);
    let t1 = xor!(x[4], y12);
    let y15 = xor!(t1, x[5]);
    let y20 = xor!(t1, x[1]);
    let y6 = xor!(y15, x[7]);
    let y10 = xor!(y15, t0);
    let y11 = xor!(y20, y9);
    let y7 = xor!(x[7], y11);
    let y17 = xor!(y10, y11);
    let y19 = xor!(y10, y8);
    let y16 = xor!(t0, y11);
    let y21 = xor!(y13, y16);
    let y18 = xor!(x[0], y16);

    // Nonlinear middle: GF(2^4) product of the two halves (9 ANDs) ...
    let t2 = and!(y12, y15);
    let t3 = and!(y3, y6);
    let t4 = xor!(t3, t2);
    let t5 = and!(y4, x[7]);
    let t6 = xor!(t5, t2);
    let t7 = and!(y13, y16);
    let t8 = and!(y5, y1);
    let t9 = xor!(t8, t7);
    let t10 = and!(y2, y7);
    let t11 = xor!(t10, t7);
    let t12 = and!(y9, y11);
    let t13 = and!(y14, y17);
    let t14 = xor!(t13, t12);
    let t15 = and!(y8, y10);
    let t16 = xor!(t15, t12);
    let t17 = xor!(t4, t14);
    let t18 = xor!(t6, t16);
    let t19 = xor!(t9, t14);
    let t20 = xor!(t11, t16);
    let t21 = xor!(t17, y20);
    let t22 = xor!(t18, y19);
    let t23 = xor!(t19, y21);
    let t24 = xor!(t20, y18);
    // ... inversion in GF(2^4) (5 ANDs) ...
    let t25 = xor!(t21, t22);
    let t26 = and!(t21, t23);
    let t27 = xor!(t24, t26);
    let t28 = and!(t25, t27);
    let t29 = xor!(t28, t22);
    let t30 = xor!(t23, t24);
    let t31 = xor!(t22, t26);
    let t32 = and!(t31, t30);
    let t33 = xor!(t32, t24);
    let t34 = xor!(t23, t33);
    let t35 = xor!(t27, t33);
    let t36 = and!(t24, t35);
    let t37 = xor!(t36, t34);
    let t38 = xor!(t27, t36);
    let t39 = and!(t29, t38);
    let t40 = xor!(t25, t39);
    let t41 = xor!(t40, t37);
    let t42 = xor!(t29, t33);
    let t43 = xor!(t29, t40);
    let t44 = xor!(t33, t37);
    let t45 = xor!(t42, t41);
    // ... and the two GF(2^4) products with the inverse (18 ANDs).
    let z0 = and!(t44, y15);
    let z1 = and!(t37, y6);
    let z2 = and!(t33, x[7]);
    let z3 = and!(t43, y16);
    let z4 = and!(t40, y1);
    let z5 = and!(t29, y7);
    let z6 = and!(t42, y11);
    let z7 = and!(t45, y17);
    let z8 = and!(t41, y10);
    let z9 = and!(t44, y12);
    let z10 = and!(t37, y3);
    let z11 = and!(t33, y4);
    let z12 = and!(t43, y13);
    let z13 = and!(t40, y5);
    let z14 = and!(t29, y2);
    let z15 = and!(t42, y9);
    let z16 = and!(t45, y14);
    let z17 = and!(t41, y8);

    // Bottom linear layer, with the affine constant 0x63 as XNORs.
    let t46 = xor!(z15, z16);
    let t47 = xor!(z10, z11);
    let t48 = xor!(z5, z13);
    let t49 = xor!(z9, z10);
    let t50 = xor!(z2, z12);
    let t51 = xor!(z2, z5);
    let t52 = xor!(z7, z8);
    let t53 = xor!(z0, z3);
    let t54 = xor!(z6, z7);
    let t55 = xor!(z16, z17);
    let t56 = xor!(z12, t48);
    let t57 = xor!(t50, t53);
    let t58 = xor!(z4, t46);
    let t59 = xor!(z3, t54);
    let t60 = xor!(t46, t57);
    let t61 = xor!(z14, t57);
    let t62 = xor!(t52, t58);
    let t63 = xor!(t49, t58);
    let t64 = xor!(z4, t59);
    let t65 = xor!(t61, t62);
    let t66 = xor!(z1, t63);
    let s0 = xor!(t59, t63);
    let s6 = xnor!(t56, t62);
    let s7 = xnor!(t48, t60);
    let t67 = xor!(t64, t65);
    let s3 = xor!(t53, t66);
    let s4 = xor!(t51, t66);
    let s5 = xor!(t47, t65);
    let s1 = xnor!(t64, s3);
    let s2 = xnor!(t55, t67);

    [s7, s6, s5, s4, s3, s2, s1, s0]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Counter, PartyId, Plain, Recorder};
    use mixgc_circuit::values::{parse_hex, to_hex};
    use rand::{Rng, SeedableRng};

    /// The AES S-box from its definition: inversion in GF(2^8) followed by the affine map.
    fn sbox_table() -> [u8; 256] {
        let mul = |mut a: u8, mut b: u8| {
            let mut r = 0u8;
            while b != 0 {
                if b & 1 == 1 {
                    r ^= a;
                }
                a = (a << 1) ^ if a & 0x80 != 0 { 0x1b } else { 0 };
                b >>= 1;
            }
            r
        };
        std::array::from_fn(|a| {
            let inv = (0..=255u8).find(|&x| mul(a as u8, x) == 1).unwrap_or(0);
            inv ^ inv.rotate_left(1) ^ inv.rotate_left(2) ^ inv.rotate_left(3) ^ inv.rotate_left(4) ^ 0x63
        })
    }

    #[test]
    fn sbox_circuit_matches_the_table_on_all_256_inputs_with_32_ands() {
        let table = sbox_table();
        assert_eq!(
            (table[0x00], table[0x01], table[0x53], table[0xff]),
            (0x63, 0x7c, 0xed, 0x16)
        );
        for (a, &want) in table.iter().enumerate() {
            let byte: Byte<bool> = std::array::from_fn(|j| a >> j & 1 == 1);
            let s = sbox(&mut Plain::default(), &byte);
            let v = s
                .iter()
                .enumerate()
                .map(|(j, &bit)| (bit as usize) << j)
                .sum::<usize>();
            assert_eq!(v, want as usize, "S-box({a:#04x})");
        }
        let mut c = Counter::default();
        let x = c.input(PartyId::GARBLER, 8, None).unwrap();
        sbox(&mut c, &std::array::from_fn(|j| x[j]));
        assert_eq!(c.cost().ands, 32);
    }

    fn encrypt_plain(key: &[bool], pt: &[bool]) -> Vec<bool> {
        let mut p = Plain::default();
        let k = p.input(PartyId::GARBLER, 128, Some(key)).unwrap();
        let x = p.input(PartyId::EVALUATOR, 128, Some(pt)).unwrap();
        aes128(&mut p, &k, &x)
    }

    #[test]
    fn fips_197_known_answer() {
        let key = parse_hex("000102030405060708090a0b0c0d0e0f", 128).unwrap();
        let pt = parse_hex("00112233445566778899aabbccddeeff", 128).unwrap();
        assert_eq!(
            to_hex(&encrypt_plain(&key, &pt)),
            "69c4e0d86a7b0430d8cdb78070b4c55a"
        );
        // FIPS-197 Appendix B.
        let key = parse_hex("2b7e151628aed2a6abf7158809cf4f3c", 128).unwrap();
        let pt = parse_hex("3243f6a8885a308d313198a2e0370734", 128).unwrap();
        assert_eq!(
            to_hex(&encrypt_plain(&key, &pt)),
            "3925841d02dc09fbdc118597196a0b32"
        );
    }

    #[test]
    fn recorded_circuit_matches_the_reference_bristol_file_with_6400_ands() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../circuits/aes_128.txt");
        let reference = mixgc_circuit::bristol::read_file(std::path::Path::new(path)).unwrap();

        let mut r = Recorder::default();
        let k = r.input(PartyId::GARBLER, 128, None).unwrap();
        let x = r.input(PartyId::EVALUATOR, 128, None).unwrap();
        let out = aes128(&mut r, &k, &x);
        r.output(&out).unwrap();
        let recorded = r.finish().circuit;
        assert_eq!(recorded.stats().ands, 6400);

        let mut c = Counter::default();
        let k = c.input(PartyId::GARBLER, 128, None).unwrap();
        let x = c.input(PartyId::EVALUATOR, 128, None).unwrap();
        aes128(&mut c, &k, &x);
        assert_eq!((c.cost().ands, c.cost().and_depth), (6400, 60));

        let mut rng = rand::rngs::StdRng::seed_from_u64(197);
        for _ in 0..20 {
            let key: Vec<bool> = (0..128).map(|_| rng.gen()).collect();
            let pt: Vec<bool> = (0..128).map(|_| rng.gen()).collect();
            let want = reference.eval_plain(&[key.clone(), pt.clone()]).unwrap();
            assert_eq!(recorded.eval_plain(&[key.clone(), pt.clone()]).unwrap(), want);
            assert_eq!(vec![encrypt_plain(&key, &pt)], want);
        }
    }
}
