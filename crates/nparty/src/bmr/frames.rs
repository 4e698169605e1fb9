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

/// Sends `mine` to every other party and XORs everything they send into `sum` (of the same
/// length), each pair in turns on its own thread (the lower id sends first), so that no
/// two parties ever block writing long messages to each other over sockets.
pub(super) fn exchange_xor_blocks(mesh: &mut Mesh, tag: Tag, mine: &[Block], sum: &mut [Block]) -> Result<(), NpartyError> {
    let me = mesh.me();
    let count = sum.len();
    let got = mesh.pairwise(|j, ch| {
        let send = |ch: &mut dyn Channel| -> Result<(), NpartyError> {
            for chunk in mine.chunks(FRAME_BLOCKS) {
                send_frame(ch, tag, Block::slice_as_bytes(chunk)).map_err(peer(j))?;
            }
            ch.flush().map_err(peer(j))
        };
        let recv = |ch: &mut dyn Channel| -> Result<Vec<Block>, NpartyError> {
            let mut out = vec![Block::ZERO; count];
            for chunk in out.chunks_mut(FRAME_BLOCKS) {
                let len = chunk.len() * Block::BYTES;
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
                for (x, b) in chunk.iter_mut().zip(bytes.chunks_exact(Block::BYTES)) {
                    *x = Block::from_bytes(b.try_into().expect("a chunk of 16 bytes"));
                }
            }
            Ok(out)
        };
        if me < j {
            send(ch)?;
            recv(ch)
        } else {
            let got = recv(ch)?;
            send(ch)?;
            Ok(got)
        }
    })?;
    for theirs in got.into_iter().flatten() {
        for (s, t) in sum.iter_mut().zip(theirs) {
            *s ^= t;
        }
    }
    Ok(())
}
