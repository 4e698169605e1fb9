//! Opening authenticated shares (WRK17 §2.2): a party sends its bits with its MACs and the
//! receiver checks M = K ⊕ bit·Δ before it uses a bit. Inputs and outputs send every MAC;
//! the per-batch Beaver openings send one hash of the MACs instead (the receiver hashes
//! the MACs it expects), which binds the sender to every MAC at 32 bytes per batch.

use mixgc_core::Block;
use mixgc_net::{Channel, ChannelExt};

use super::bits::{recv_bits, send_bits};
use super::share::expected_mac;
use crate::auth::{AuthShare, Role};
use crate::MaliciousError;

/// Sends this party's bits of `shares` with their MACs (the peer runs [`receive_reveal`]).
/// `tamper` (tests: a cheating party) flips MAC `i` when it returns true for `i`.
pub(crate) fn send_reveal<C: Channel + ?Sized>(
    ch: &mut C,
    shares: &[AuthShare],
    tamper: impl Fn(usize) -> bool,
) -> Result<(), MaliciousError> {
    let bits: Vec<bool> = shares.iter().map(|s| s.bit).collect();
    let macs: Vec<Block> = shares
        .iter()
        .enumerate()
        .map(|(i, s)| s.mac ^ Block::from_u128(u128::from(tamper(i)) << 64))
        .collect();
    send_bits(ch, &bits)?;
    ch.send_blocks(&macs)?;
    Ok(())
}

/// Receives the peer's bits of `shares` sent by [`send_reveal`] and checks each MAC under
/// this party's Δ; a bad MAC fails `check`. Returns the peer's bits.
pub(crate) fn receive_reveal<C: Channel + ?Sized>(
    ch: &mut C,
    shares: &[AuthShare],
    delta: Block,
    check: &'static str,
) -> Result<Vec<bool>, MaliciousError> {
    let bits = recv_bits(ch, shares.len(), check)?;
    let macs = ch.recv_blocks(shares.len())?;
    for ((s, &bit), &mac) in shares.iter().zip(&bits).zip(&macs) {
        if mac != expected_mac(s, bit, delta) {
            return Err(MaliciousError::CheckFailed { check });
        }
    }
    Ok(bits)
}

/// Opens x = x_A ⊕ x_B of every share to both parties: the garbler sends first, the
/// evaluator checks and answers, the garbler checks (one-way traffic at each step, so no
/// deadlock whatever the channel buffers). Each side sends its bits and a hash of its MACs;
/// a mismatch fails `check`. `tamper` flips the hash a cheating party sends.
pub(crate) fn open_both<C: Channel + ?Sized>(
    ch: &mut C,
    role: Role,
    delta: Block,
    shares: &[AuthShare],
    check: &'static str,
    tamper: bool,
) -> Result<Vec<bool>, MaliciousError> {
    let send = |ch: &mut C| -> Result<(), MaliciousError> {
        let bits: Vec<bool> = shares.iter().map(|s| s.bit).collect();
        let mut digest = mac_digest(shares.iter().map(|s| s.mac));
        digest[0] ^= u8::from(tamper);
        send_bits(ch, &bits)?;
        ch.send(&digest)?;
        ch.flush()?;
        Ok(())
    };
    let receive = |ch: &mut C| -> Result<Vec<bool>, MaliciousError> {
        let theirs = recv_bits(ch, shares.len(), check)?;
        let mut digest = [0u8; 32];
        ch.recv(&mut digest)?;
        let expected = mac_digest(
            shares
                .iter()
                .zip(&theirs)
                .map(|(s, &b)| expected_mac(s, b, delta)),
        );
        if digest != expected {
            return Err(MaliciousError::CheckFailed { check });
        }
        Ok(theirs)
    };
    let theirs = match role {
        Role::Garbler => {
            send(ch)?;
            receive(ch)?
        }
        Role::Evaluator => {
            let theirs = receive(ch)?;
            send(ch)?;
            theirs
        }
    };
    Ok(shares.iter().zip(theirs).map(|(s, t)| s.bit ^ t).collect())
}

/// One hash of a sequence of MACs, domain-separated from every other use of BLAKE3.
/// The MACs are gathered 1,024 at a time so BLAKE3 hashes long inputs (a 16-byte update
/// per MAC would cost more than the hashing).
fn mac_digest(macs: impl Iterator<Item = Block>) -> [u8; 32] {
    let mut h = blake3::Hasher::new_derive_key("mixgc malicious: batched MAC check v1");
    let mut buf = Vec::with_capacity(1024);
    for m in macs {
        buf.push(m);
        if buf.len() == buf.capacity() {
            h.update(Block::slice_as_bytes(&buf));
            buf.clear();
        }
    }
    h.update(Block::slice_as_bytes(&buf));
    *h.finalize().as_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dealer::TrustedDealer;
    use crate::Preprocessor;
    use mixgc_net::memory_pair;

    #[test]
    fn open_both_reveals_the_values_and_catches_a_bad_hash() {
        for cheat in [false, true] {
            let (mut ga, mut ev) = TrustedDealer::pair(11);
            let (xs, ys) = (ga.random_shares(21).unwrap(), ev.random_shares(21).unwrap());
            let values: Vec<bool> = xs.iter().zip(&ys).map(|(x, y)| x.bit ^ y.bit).collect();
            let (mut ca, mut cb) = memory_pair();
            let da = ga.delta().0;
            let t = std::thread::spawn(move || open_both(&mut ca, Role::Garbler, da, &xs, "t", false));
            let got = open_both(&mut cb, Role::Evaluator, ev.delta().0, &ys, "t", cheat);
            let garbler = t.join().unwrap();
            assert_eq!(got.unwrap(), values);
            if cheat {
                assert!(matches!(garbler, Err(MaliciousError::CheckFailed { check: "t" })));
            } else {
                assert_eq!(garbler.unwrap(), values);
            }
        }
    }

    #[test]
    fn a_revealed_bit_with_a_wrong_mac_is_refused() {
        let (mut ga, mut ev) = TrustedDealer::pair(12);
        let (xs, ys) = (ga.random_shares(9).unwrap(), ev.random_shares(9).unwrap());
        let (mut ca, mut cb) = memory_pair();
        send_reveal(&mut ca, &xs, |_| false).unwrap();
        send_reveal(&mut ca, &xs, |i| i == 4).unwrap();
        ca.flush().unwrap();
        let bits = receive_reveal(&mut cb, &ys, ev.delta().0, "c").unwrap();
        assert_eq!(bits, xs.iter().map(|x| x.bit).collect::<Vec<_>>());
        let err = receive_reveal(&mut cb, &ys, ev.delta().0, "c").unwrap_err();
        assert!(matches!(err, MaliciousError::CheckFailed { check: "c" }));
    }
}
