//! Both directions of Δ-correlated OT at once between two parties that each hold an
//! extension sender (for the peer's choices) and an extension receiver (for their own):
//! the IKNP matrices of the two directions (§3 of the paper, as [`OtSender::send_delta_cot`]
//! and [`OtReceiver::receive_delta_cot`]) are made chunk by chunk in lockstep, so that each
//! party does its receiver work (2 PRG columns per base OT) and its sender work (1 PRG
//! column) in every chunk, instead of one party doing the heavier half of one direction
//! while the other waits, and then the reverse.
//!
//! Per chunk k: each side builds its u_k, then the two exchange them, the side with
//! `sends_first` sending before it reads and the other reading before it sends (so neither
//! waits on the other's read with a full socket: no deadlock over any [`Channel`]), then
//! each transposes its own t_k and computes q_k from the peer's u_k. The bytes each side
//! sends are exactly those of a [`OtReceiver::receive_delta_cot`] call (header, then the
//! u chunks), so each direction's transcript is that of the sequential protocol.

use mixgc_core::Block;
use mixgc_net::Channel;
use zeroize::Zeroize;

use super::{
    chunk_shape, header, zeroize_blocks, OtReceiver, OtSender, Scratch, CHUNK_ROWS, KAPPA, KIND_DELTA,
};
use crate::transpose::columns_to_rows;
use crate::OtError;

/// One party's side of both directions at once: as sender (correlation s of `sender`) sets
/// `q` to the `count` keys q_j for the peer's next `count` choices, and as receiver sets `t`
/// to t_j = q'_j ⊕ c_j·s' for `choices` under the peer's correlation s'. The peer calls
/// this with the counts swapped and the other value of `sends_first`. Either count may be
/// zero (that direction then exchanges nothing). After an error both halves refuse
/// further calls ([`OtError::Poisoned`]), as after a failed sequential call.
#[allow(clippy::too_many_arguments)]
pub fn duplex_delta_cot_into<C: Channel + ?Sized>(
    ch: &mut C,
    sends_first: bool,
    sender: &mut OtSender,
    count: usize,
    q: &mut Vec<Block>,
    receiver: &mut OtReceiver,
    choices: &[bool],
    t: &mut Vec<Block>,
) -> Result<(), OtError> {
    ch.set_phase("the oblivious-transfer extension");
    q.clear();
    t.clear();
    if sender.poisoned || receiver.poisoned {
        return Err(OtError::Poisoned);
    }
    let mut mine = std::mem::take(&mut receiver.scratch);
    let mut theirs = std::mem::take(&mut sender.scratch);
    let outcome = lockstep(
        ch,
        sends_first,
        sender,
        count,
        q,
        &mut theirs,
        receiver,
        choices,
        t,
        &mut mine,
    );
    mine.matrix.zeroize();
    mine.r.zeroize();
    theirs.matrix.zeroize();
    receiver.scratch = mine;
    sender.scratch = theirs;
    match outcome {
        Ok(()) => {
            sender.index += count as u64;
            receiver.index += choices.len() as u64;
            Ok(())
        }
        Err(e) => {
            zeroize_blocks(q);
            zeroize_blocks(t);
            q.clear();
            t.clear();
            sender.poisoned = true;
            receiver.poisoned = true;
            Err(e)
        }
    }
}

/// The chunk loop of [`duplex_delta_cot_into`]; `mine` and `theirs` are the receiver's and
/// the sender's working buffers.
#[allow(clippy::too_many_arguments)]
fn lockstep<C: Channel + ?Sized>(
    ch: &mut C,
    sends_first: bool,
    sender: &mut OtSender,
    count: usize,
    q: &mut Vec<Block>,
    theirs: &mut Scratch,
    receiver: &mut OtReceiver,
    choices: &[bool],
    t: &mut Vec<Block>,
    mine: &mut Scratch,
) -> Result<(), OtError> {
    // Room for each last chunk's padding rows, cut off at the end (as the sequential calls).
    t.resize(choices.len().next_multiple_of(KAPPA), Block::ZERO);
    q.resize(count.next_multiple_of(KAPPA), Block::ZERO);
    let chunks = choices.len().max(count).div_ceil(CHUNK_ROWS);
    for k in 0..chunks {
        let done = k * CHUNK_ROWS;
        let my_chunk = choices.get(done..choices.len().min(done + CHUNK_ROWS));
        let my_chunk = my_chunk.filter(|c| !c.is_empty());
        let their_n = CHUNK_ROWS.min(count.saturating_sub(done));
        if let Some(chunk) = my_chunk {
            receiver.chunk_columns(chunk, &mut mine.matrix, &mut mine.u, &mut mine.r);
        }
        let send = |ch: &mut C, mine: &Scratch| -> Result<(), OtError> {
            if let Some(_chunk) = my_chunk {
                if k == 0 {
                    ch.send(&header(receiver.index, choices.len(), KIND_DELTA))?;
                }
                ch.send(&mine.u)?;
                ch.flush()?;
            }
            Ok(())
        };
        let recv = |ch: &mut C, theirs: &mut Scratch| -> Result<(), OtError> {
            if their_n > 0 {
                if k == 0 {
                    sender.expect_header(ch, count, KIND_DELTA)?;
                }
                let (_, col_bytes) = chunk_shape(their_n);
                theirs.u.resize(KAPPA * col_bytes, 0);
                ch.recv(&mut theirs.u)?;
            }
            Ok(())
        };
        if sends_first {
            send(ch, mine)?;
            recv(ch, theirs)?;
        } else {
            recv(ch, theirs)?;
            send(ch, mine)?;
        }
        if let Some(chunk) = my_chunk {
            let (padded, _) = chunk_shape(chunk.len());
            columns_to_rows(&mine.matrix, &mut t[done..done + padded]);
        }
        if their_n > 0 {
            let (padded, col_bytes) = chunk_shape(their_n);
            theirs.matrix.resize(KAPPA * col_bytes, 0);
            sender.chunk_columns(&theirs.u, &mut theirs.matrix, col_bytes);
            columns_to_rows(&theirs.matrix, &mut q[done..done + padded]);
        }
    }
    zeroize_blocks(&mut t[choices.len()..]);
    zeroize_blocks(&mut q[count..]);
    t.truncate(choices.len());
    q.truncate(count);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mixgc_core::new_rng;
    use mixgc_net::memory_pair;
    use rand::RngCore;
    use std::thread;

    /// A sender/receiver pair of one direction, from the same random base-OT keys.
    fn direction(s: Block, seed: u64) -> (OtSender, OtReceiver) {
        let mut rng = new_rng(Some(seed), 0);
        let pairs: Vec<(Block, Block)> = (0..KAPPA)
            .map(|_| (Block::random(&mut rng), Block::random(&mut rng)))
            .collect();
        let keys: Vec<Block> = OtSender::base_choices(s)
            .iter()
            .zip(&pairs)
            .map(|(&c, &(k0, k1))| if c { k1 } else { k0 })
            .collect();
        (
            OtSender::from_base_keys(s, &keys),
            OtReceiver::from_base_pairs(&pairs),
        )
    }

    fn bits(n: usize, seed: u64) -> Vec<bool> {
        let mut rng = new_rng(Some(seed), 1);
        (0..n).map(|_| rng.next_u32() & 1 == 1).collect()
    }

    fn check(q: &[Block], t: &[Block], c: &[bool], s: Block) {
        assert_eq!((q.len(), t.len()), (c.len(), c.len()));
        for ((&q, &t), &c) in q.iter().zip(t).zip(c) {
            assert_eq!(t, q ^ s.and_bit(c));
        }
    }

    /// Both directions at once give the Δ-correlation in each, for counts around the
    /// chunk and padding boundaries, equal and unequal, and the parties' later
    /// sequential calls still agree (the OT indices advanced alike).
    #[test]
    fn both_directions_at_once_give_each_its_correlation() {
        let (s_a, s_b) = (
            Block::from_u128(0xabc << 64 | 5),
            Block::from_u128(0x1234567 << 40 | 2),
        );
        for (n_a, n_b) in [
            (1, 1),
            (0, 300),
            (300, 0),
            (127, 129),
            (CHUNK_ROWS, CHUNK_ROWS + 1),
            (40_000, 3),
        ] {
            // Direction A: A holds s_a, B chooses c_b (n_b of them); direction B the reverse.
            let (mut a_send, mut b_recv) = direction(s_a, 1);
            let (mut b_send, mut a_recv) = direction(s_b, 2);
            let (c_a, c_b) = (bits(n_a, 3), bits(n_b, 4));
            let (mut ch_a, mut ch_b) = memory_pair();
            let c = c_a.clone();
            let peer = thread::spawn(move || {
                let (mut q, mut t) = (Vec::new(), Vec::new());
                duplex_delta_cot_into(&mut ch_a, true, &mut a_send, n_b, &mut q, &mut a_recv, &c, &mut t)?;
                let later = a_send.send_delta_cot(&mut ch_a, 50)?;
                Ok::<_, OtError>((q, t, later))
            });
            let (mut q, mut t) = (Vec::new(), Vec::new());
            duplex_delta_cot_into(
                &mut ch_b,
                false,
                &mut b_send,
                n_a,
                &mut q,
                &mut b_recv,
                &c_b,
                &mut t,
            )
            .unwrap();
            let later_choices = bits(50, 5);
            let later = b_recv.receive_delta_cot(&mut ch_b, &later_choices).unwrap();
            let (q_a, t_a, later_q) = peer.join().unwrap().unwrap();
            check(&q_a, &t, &c_b, s_a);
            check(&q, &t_a, &c_a, s_b);
            check(&later_q, &later, &later_choices, s_a);
        }
    }

    /// Parties that disagree on a count get a desynchronisation error, not a hang or
    /// wrong keys, and both halves refuse further calls.
    #[test]
    fn a_count_mismatch_is_an_error_and_poisons_both_halves() {
        let (mut a_send, mut b_recv) = direction(Block::from_u128(9), 1);
        let (mut b_send, mut a_recv) = direction(Block::from_u128(6), 2);
        let (mut ch_a, mut ch_b) = memory_pair();
        let peer = thread::spawn(move || {
            let (mut q, mut t) = (Vec::new(), Vec::new());
            // A expects 100 choices of B, B makes 101.
            let r = duplex_delta_cot_into(
                &mut ch_a,
                true,
                &mut a_send,
                100,
                &mut q,
                &mut a_recv,
                &bits(10, 1),
                &mut t,
            );
            (r, q, a_send, a_recv)
        });
        let (mut q, mut t) = (Vec::new(), Vec::new());
        let _ = duplex_delta_cot_into(
            &mut ch_b,
            false,
            &mut b_send,
            10,
            &mut q,
            &mut b_recv,
            &bits(101, 2),
            &mut t,
        );
        drop(ch_b);
        let (r, q, mut a_send, mut a_recv) = peer.join().unwrap();
        assert!(matches!(r, Err(OtError::Desync(_))), "{r:?}");
        assert!(q.is_empty());
        let mut spare = memory_pair().0;
        assert!(matches!(
            a_send.send_delta_cot(&mut spare, 1),
            Err(OtError::Poisoned)
        ));
        assert!(matches!(
            a_recv.receive_delta_cot(&mut spare, &[true]),
            Err(OtError::Poisoned)
        ));
    }
}
