//! Long vectors of blocks and bits sent as several frames (each below the frame limit),
//! in chunks whose sizes both ends derive from the count they already agree on.

use mixgc_core::Block;
use mixgc_net::{recv_frame, send_frame, Channel, PeerMisbehaved, Tag};

use crate::bits::{pack, unpack};
use crate::{peer, Mesh, NpartyError};

/// Blocks per frame (4 MiB).
const FRAME_BLOCKS: usize = 1 << 18;
/// Bits per frame (4 MiB packed).
const FRAME_BITS: usize = 1 << 25;

/// Queues `blocks` to `to` (no frame at all when empty).
pub(super) fn send_blocks(mesh: &mut Mesh, to: usize, tag: Tag, blocks: &[Block]) -> Result<(), NpartyError> {
    for chunk in blocks.chunks(FRAME_BLOCKS) {
        mesh.send(to, tag, Block::slice_as_bytes(chunk))?;
    }
    Ok(())
}

/// Receives exactly `into.len()` blocks from `from` (sent by [`send_blocks`]) and XORs them
/// into `into`.
pub(super) fn recv_xor_blocks(
    mesh: &mut Mesh,
    from: usize,
    tag: Tag,
    into: &mut [Block],
) -> Result<(), NpartyError> {
    for chunk in into.chunks_mut(FRAME_BLOCKS) {
        let got = mesh.recv_exact(from, tag, chunk.len() * Block::BYTES)?;
        for (x, b) in chunk.iter_mut().zip(got.chunks_exact(Block::BYTES)) {
            *x ^= Block::from_bytes(b.try_into().expect("a chunk of 16 bytes"));
        }
    }
    Ok(())
}

/// Receives exactly `count` blocks from `from`.
pub(super) fn recv_blocks(
    mesh: &mut Mesh,
    from: usize,
    tag: Tag,
    count: usize,
) -> Result<Vec<Block>, NpartyError> {
    let mut out = vec![Block::ZERO; count];
    recv_xor_blocks(mesh, from, tag, &mut out)?;
    Ok(out)
}

/// Queues `bits`, packed, to `to` (no frame at all when empty).
pub(super) fn send_bits(mesh: &mut Mesh, to: usize, tag: Tag, bits: &[bool]) -> Result<(), NpartyError> {
    for chunk in bits.chunks(FRAME_BITS) {
        mesh.send(to, tag, &pack(chunk))?;
    }
    Ok(())
}

/// Receives exactly `count` bits from `from` (sent by [`send_bits`]).
pub(super) fn recv_bits(
    mesh: &mut Mesh,
    from: usize,
    tag: Tag,
    count: usize,
) -> Result<Vec<bool>, NpartyError> {
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let m = (count - out.len()).min(FRAME_BITS);
        let got = mesh.recv_exact(from, tag, m.div_ceil(8))?;
        out.extend(unpack(&got, m));
    }
    Ok(out)
}

/// Sends `mine` to every other party and returns the XOR of what they send (as long as
/// `mine`), each pair in turns on its own thread (the lower id sends first), so that no
/// two parties ever block writing long messages to each other over sockets. Each frame
/// received is XORed into a running total at once: memory is that total and one frame per
/// peer, not a copy of every peer's message.
pub(super) fn exchange_xor_blocks(
    mesh: &mut Mesh,
    tag: Tag,
    mine: &[Block],
) -> Result<Vec<Block>, NpartyError> {
    let me = mesh.me();
    let count = mine.len();
    let theirs = std::sync::Mutex::new(vec![Block::ZERO; count]);
    mesh.pairwise(|j, ch| {
        let send = |ch: &mut dyn Channel| -> Result<(), NpartyError> {
            for chunk in mine.chunks(FRAME_BLOCKS) {
                send_frame(ch, tag, Block::slice_as_bytes(chunk)).map_err(peer(j))?;
            }
            ch.flush().map_err(peer(j))
        };
        let recv = |ch: &mut dyn Channel| -> Result<(), NpartyError> {
            for start in (0..count).step_by(FRAME_BLOCKS) {
                let blocks = (count - start).min(FRAME_BLOCKS);
                let len = blocks * Block::BYTES;
                let bytes = recv_frame(ch, tag, len).map_err(peer(j))?;
                if bytes.len() != len {
                    return Err(NpartyError::Peer {
                        party: j,
                        source: PeerMisbehaved::WrongLength {
                            tag,
                            len: bytes.len(),
                            expected: len,
                        }
                        .into(),
                    });
                }
                let mut total = theirs.lock().unwrap_or_else(|e| e.into_inner());
                for (x, b) in total[start..start + blocks]
                    .iter_mut()
                    .zip(bytes.chunks_exact(Block::BYTES))
                {
                    *x ^= Block::from_bytes(b.try_into().expect("a chunk of 16 bytes"));
                }
            }
            Ok(())
        };
        if me < j {
            send(ch)?;
            recv(ch)
        } else {
            recv(ch)?;
            send(ch)
        }
    })?;
    Ok(theirs.into_inner().unwrap_or_else(|e| e.into_inner()))
}
