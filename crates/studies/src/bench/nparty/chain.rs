//! A long AND chain written as a compiled-stream file run by run (never a `Circuit` in
//! memory), for the n-party memory figure: 16 lanes of state s (input value 0), keys k
//! (value 1) and m (value 2); round r computes t_i = s_i ∧ s_{i+1}, t_i ⊕= s_{i+3},
//! s_i = t_i ⊕ (k_i for even r, m_i for odd r), lanes mod 16: 16 ANDs and 32 XORs a round.
//! The output is s.

use std::fs::File;
use std::io::BufWriter;
use std::path::Path;

use mixgc_compile::{Gate, RunKind, StreamHeader, StreamWriter};

/// Lanes of the state, and bits of each input value.
pub const LANES: u32 = 16;
/// Slots: 0 the constant 1, then s, k, m and t, 16 each.
const S: u32 = 1;
const K: u32 = S + LANES;
const M: u32 = K + LANES;
const T: u32 = M + LANES;
const SLOTS: u32 = T + LANES;

/// Rounds of a chain of at least `ands` ANDs.
fn rounds(ands: u64) -> u64 {
    ands.max(1).div_ceil(LANES as u64)
}

/// The chain's answer in plaintext, lane i as bit i.
fn plaintext(s: u16, k: u16, m: u16, rounds: u64) -> u16 {
    let mut s = s;
    for r in 0..rounds {
        let t = (s & s.rotate_right(1)) ^ s.rotate_right(3);
        s = t ^ if r % 2 == 0 { k } else { m };
    }
    s
}

/// The plaintext output bits of a chain of `rounds` rounds on input values `inputs` (s, k, m).
pub fn plaintext_bits(inputs: &[Vec<bool>], rounds: u64) -> Result<Vec<bool>, String> {
    let word = |v: &Vec<bool>| -> Result<u16, String> {
        if v.len() != LANES as usize {
            return Err(format!("a chain input is {LANES} bits, not {}", v.len()));
        }
        Ok(v.iter().rev().fold(0u16, |a, &b| a << 1 | b as u16))
    };
    let [s, k, m] = inputs else {
        return Err(format!("the chain has 3 input values, not {}", inputs.len()));
    };
    let out = plaintext(word(s)?, word(k)?, word(m)?, rounds);
    Ok((0..LANES).map(|i| out >> i & 1 == 1).collect())
}

/// Writes a chain of at least `ands` ANDs to `path`; returns its rounds.
pub fn write(path: &Path, ands: u64) -> std::io::Result<u64> {
    let rounds = rounds(ands);
    let lanes = |base: u32| (base..base + LANES).collect::<Vec<u32>>();
    let header = StreamHeader::new(
        vec![LANES; 3],
        vec![LANES],
        SLOTS,
        [lanes(S), lanes(K), lanes(M)].concat(),
        lanes(S),
    )
    .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    // The "circuit digest" of a stream with no Bristol source: its name and length.
    let mut digest = [0u8; 32];
    digest[..9].copy_from_slice(b"and-chain");
    digest[9..17].copy_from_slice(&rounds.to_le_bytes());
    let out = BufWriter::new(File::create(path)?);
    let mut w = StreamWriter::new(
        out,
        header,
        digest,
        rounds * 3 * LANES as u64,
        rounds * LANES as u64,
    )?;
    let next = |i: u32, by: u32| (i + by) % LANES;
    let gates = |f: &dyn Fn(u32) -> Gate| (0..LANES).map(f).collect::<Vec<Gate>>();
    let ands = gates(&|i| Gate {
        a: S + i,
        b: S + next(i, 1),
        out: T + i,
    });
    let mix = gates(&|i| Gate {
        a: T + i,
        b: S + next(i, 3),
        out: T + i,
    });
    let with_k = [
        mix.clone(),
        gates(&|i| Gate {
            a: T + i,
            b: K + i,
            out: S + i,
        }),
    ]
    .concat();
    let with_m = [
        mix,
        gates(&|i| Gate {
            a: T + i,
            b: M + i,
            out: S + i,
        }),
    ]
    .concat();
    for r in 0..rounds {
        w.run(RunKind::And, &ands)?;
        w.run(RunKind::Xor, if r % 2 == 0 { &with_k } else { &with_m })?;
    }
    let mut out = w.finish()?;
    std::io::Write::flush(&mut out)?;
    Ok(rounds)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mixgc_compile::{eval_stream_plain, StreamFile};

    #[test]
    fn the_stream_computes_the_plaintext_chain() {
        let path = std::env::temp_dir().join(format!("mixgc-chain-test-{}.mixgcs", std::process::id()));
        let rounds = write(&path, 100).unwrap();
        assert_eq!(rounds, 7);
        let bits = |x: u16| (0..LANES).map(|i| x >> i & 1 == 1).collect::<Vec<bool>>();
        for (s, k, m) in [(0xB5C3, 0x6E29, 0x1F84), (0, 0, 0), (0xFFFF, 0xFFFF, 0xFFFF)] {
            let inputs = [bits(s), bits(k), bits(m)];
            let mut file = StreamFile::open(&path).unwrap();
            let got = eval_stream_plain(&mut file, &inputs.concat()).unwrap();
            assert_eq!(got, plaintext_bits(&inputs, rounds).unwrap());
        }
        std::fs::remove_file(&path).unwrap();
        assert!(plaintext_bits(&[bits(1)], 1).is_err());
    }
}
