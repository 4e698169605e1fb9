//! The SHA-256 compression function (FIPS 180-4 §6.2.2), no padding: 22,573 ANDs.
//!
//! Construction and cost (every rotation, shift and σ/Σ function is wiring and XORs, free):
//! - message schedule W16..W63: three 32-bit ripple additions each, 48 × 3 × 31 = 4,464;
//! - each of the 64 rounds: Ch(e, f, g) = g ⊕ (e ∧ (f ⊕ g)) and
//!   Maj(a, b, c) = b ⊕ ((a ⊕ b) ∧ (b ⊕ c)), one AND per bit each (64); T1 = h + K_t + W_t +
//!   Σ1(e) + Ch, T2 = Σ0(a) + Maj, a' = T1 + T2, e' = d + T1: six ripple additions of 31
//!   ANDs and one addition of the public constant K_t, which costs 30 − p ANDs where p is the
//!   position of the lowest set bit of K_t (the carry is a known constant up to that bit and a
//!   plain wire right after it); over the 64 constants that saves 123 ANDs:
//!   64 × (64 + 6 × 31 + 31) − 123 = 17,861;
//! - the feed-forward H_i + (a..h): 8 × 31 = 248.
//!
//! Total **22,573 ANDs**, the count of the reference circuit `circuits/sha256.txt`.
//!
//! Value convention (that of `sha256.txt`, wire 0 = least significant bit): `block` is the
//! 512-bit message block as one big-endian integer (its first byte is the most significant
//! byte, so word W_t occupies wires `512 − 32(t + 1) ..`), `state` is H0‖H1‖…‖H7 as one
//! 256-bit big-endian integer (H_i at wires `256 − 32(i + 1) ..`), and the output is the new
//! state in the same form.

use crate::Backend;

/// Round constants: the first 32 bits of the fractional parts of the cube roots of the
/// first 64 primes.
const K: [u32; 64] = [
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
];

/// One 32-bit word, least significant bit first.
type Word<W> = Vec<W>;

/// SHA-256 compression of the 512-bit `block` into the 256-bit `state` (bit order in the
/// module docs): the 256-bit new state, **22,573 ANDs**.
pub fn sha256_compress<B: Backend>(b: &mut B, block: &[B::Wire], state: &[B::Wire]) -> Vec<B::Wire> {
    assert_eq!(block.len(), 512, "SHA-256 block must be 512 bits");
    assert_eq!(state.len(), 256, "SHA-256 state must be 256 bits");
    let word = |v: &[B::Wire], i: usize| -> Word<B::Wire> {
        let base = v.len() - 32 * (i + 1);
        v[base..base + 32].to_vec()
    };

    // Message schedule.
    let mut w: Vec<Word<B::Wire>> = (0..16).map(|t| word(block, t)).collect();
    for t in 16..64 {
        let s1 = small_sigma(b, &w[t - 2], 17, 19, 10);
        let s0 = small_sigma(b, &w[t - 15], 7, 18, 3);
        let x = super::add(b, &s1, &w[t - 7]);
        let y = super::add(b, &s0, &w[t - 16]);
        w.push(super::add(b, &x, &y));
    }

    let h_in: Vec<Word<B::Wire>> = (0..8).map(|i| word(state, i)).collect();
    let [mut a, mut bb, mut c, mut d, mut e, mut f, mut g, mut h] = std::array::from_fn(|i| h_in[i].clone());
    for t in 0..64 {
        let ch: Word<B::Wire> = (0..32)
            .map(|j| {
                let fg = b.xor(f[j], g[j]);
                let t = b.and(e[j], fg);
                b.xor(g[j], t)
            })
            .collect();
        let maj: Word<B::Wire> = (0..32)
            .map(|j| {
                let ab = b.xor(a[j], bb[j]);
                let bc = b.xor(bb[j], c[j]);
                let t = b.and(ab, bc);
                b.xor(bb[j], t)
            })
            .collect();
        let big_s1 = big_sigma(b, &e, 6, 11, 25);
        let big_s0 = big_sigma(b, &a, 2, 13, 22);

        let t1 = add_const(b, &h, K[t]);
        let t1 = super::add(b, &t1, &w[t]);
        let t1 = super::add(b, &t1, &big_s1);
        let t1 = super::add(b, &t1, &ch);
        let t2 = super::add(b, &big_s0, &maj);

        h = g;
        g = f;
        f = e;
        e = super::add(b, &d, &t1);
        d = c;
        c = bb;
        bb = a;
        a = super::add(b, &t1, &t2);
    }

    let out: [Word<B::Wire>; 8] = [a, bb, c, d, e, f, g, h];
    let mut result = Vec::with_capacity(256);
    for i in (0..8).rev() {
        result.extend(super::add(b, &h_in[i], &out[i]));
    }
    result
}

/// x + k mod 2^32 for a public k: 30 − p ANDs where p is the lowest set bit of k (0 for
/// k = 0). Up to bit p the carry is the constant 0; right after it the carry is x_p itself.
fn add_const<B: Backend>(b: &mut B, x: &[B::Wire], k: u32) -> Word<B::Wire> {
    let mut carry: Option<B::Wire> = None;
    let mut sum = Vec::with_capacity(x.len());
    for (i, &xi) in x.iter().enumerate() {
        let ki = k >> i & 1 == 1;
        let last = i + 1 == x.len();
        match carry {
            None => {
                sum.push(if ki { b.not(xi) } else { xi });
                if ki && !last {
                    carry = Some(xi);
                }
            }
            Some(c) => {
                let s = b.xor(xi, c);
                sum.push(if ki { b.not(s) } else { s });
                if !last {
                    // k_i = 0: carry x ∧ c; k_i = 1: carry x ∨ c = x ⊕ c ⊕ (x ∧ c).
                    let both = b.and(xi, c);
                    carry = Some(if ki { b.xor(s, both) } else { both });
                }
            }
        }
    }
    sum
}

fn rotr<W: Copy>(x: &[W], n: usize) -> Vec<W> {
    (0..32).map(|j| x[(j + n) % 32]).collect()
}

/// Σ(x) = ROTR^p(x) ⊕ ROTR^q(x) ⊕ ROTR^r(x) (free).
fn big_sigma<B: Backend>(b: &mut B, x: &[B::Wire], p: usize, q: usize, r: usize) -> Word<B::Wire> {
    let (x1, x2, x3) = (rotr(x, p), rotr(x, q), rotr(x, r));
    (0..32)
        .map(|j| {
            let t = b.xor(x1[j], x2[j]);
            b.xor(t, x3[j])
        })
        .collect()
}

/// σ(x) = ROTR^p(x) ⊕ ROTR^q(x) ⊕ SHR^s(x) (free).
fn small_sigma<B: Backend>(b: &mut B, x: &[B::Wire], p: usize, q: usize, s: usize) -> Word<B::Wire> {
    let (x1, x2) = (rotr(x, p), rotr(x, q));
    (0..32)
        .map(|j| {
            let t = b.xor(x1[j], x2[j]);
            if j + s < 32 {
                b.xor(t, x[j + s])
            } else {
                t
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Counter, PartyId, Plain, Recorder};
    use mixgc_circuit::values::{parse_hex, to_hex};
    use rand::{Rng, SeedableRng};

    const IV: &str = "6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19";

    fn compress_plain(block: &[bool], state: &[bool]) -> Vec<bool> {
        let mut p = Plain::default();
        let x = p.input(PartyId::GARBLER, 512, Some(block)).unwrap();
        let s = p.input(PartyId::EVALUATOR, 256, Some(state)).unwrap();
        sha256_compress(&mut p, &x, &s)
    }

    #[test]
    fn known_answers_for_one_block_messages() {
        let iv = parse_hex(IV, 256).unwrap();
        let empty = format!("80{}", "0".repeat(126));
        let out = compress_plain(&parse_hex(&empty, 512).unwrap(), &iv);
        assert_eq!(
            to_hex(&out),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let abc = format!("61626380{}18", "0".repeat(118));
        let out = compress_plain(&parse_hex(&abc, 512).unwrap(), &iv);
        assert_eq!(
            to_hex(&out),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn add_const_matches_native_addition() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(3);
        for k in K.iter().copied().chain([0, 1, 0x8000_0000, u32::MAX]) {
            let x: u32 = rng.gen();
            let bits: Vec<bool> = (0..32).map(|j| x >> j & 1 == 1).collect();
            let sum = add_const(&mut Plain::default(), &bits, k);
            let v = sum.iter().enumerate().map(|(j, &s)| (s as u32) << j).sum::<u32>();
            assert_eq!(v, x.wrapping_add(k));
            let mut c = Counter::default();
            let xs = c.input(PartyId::GARBLER, 32, None).unwrap();
            add_const(&mut c, &xs, k);
            let want = if k == 0 {
                0
            } else {
                30u64.saturating_sub(k.trailing_zeros() as u64)
            };
            assert_eq!(c.cost().ands, want, "k={k:#x}");
        }
    }

    #[test]
    fn recorded_circuit_matches_the_reference_bristol_file_with_22573_ands() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../circuits/sha256.txt");
        let reference = mixgc_circuit::bristol::read_file(std::path::Path::new(path)).unwrap();

        let mut r = Recorder::default();
        let x = r.input(PartyId::GARBLER, 512, None).unwrap();
        let s = r.input(PartyId::EVALUATOR, 256, None).unwrap();
        let out = sha256_compress(&mut r, &x, &s);
        r.output(&out).unwrap();
        let recorded = r.finish().circuit;
        assert_eq!(recorded.stats().ands, 22_573);

        let mut c = Counter::default();
        let x = c.input(PartyId::GARBLER, 512, None).unwrap();
        let s = c.input(PartyId::EVALUATOR, 256, None).unwrap();
        sha256_compress(&mut c, &x, &s);
        assert_eq!(c.cost().ands, 22_573);

        let mut rng = rand::rngs::StdRng::seed_from_u64(256);
        for _ in 0..10 {
            let block: Vec<bool> = (0..512).map(|_| rng.gen()).collect();
            let state: Vec<bool> = (0..256).map(|_| rng.gen()).collect();
            let want = reference.eval_plain(&[block.clone(), state.clone()]).unwrap();
            assert_eq!(
                recorded.eval_plain(&[block.clone(), state.clone()]).unwrap(),
                want
            );
            assert_eq!(vec![compress_plain(&block, &state)], want);
        }
    }
}
