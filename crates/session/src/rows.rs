//! The table stream: the one framing rule for garbled rows of every kind.
//!
//! Rows are one byte stream per run: Boolean rows (two 16-byte blocks per AND) and
//! byte-packed rows (arithmetic gadgets) follow each other in program order, with nothing
//! between them. The stream goes out in [`Tag::Tables`] frames cut by size alone
//! ([`FrameSchedule`]: 64 KiB, doubling up to the session's target); at a sync point (an
//! input, an output, the end of an instance or of a run, an explicit flush) the garbler
//! sends what is left as a shorter frame. Where frames end means nothing to the evaluator,
//! which reads the exact number of bytes each gate needs, so a batch of rows may span
//! frames. Frames never depend on timing, chunking or thread counts, so transcripts do not
//! either. Both parties follow the same schedule, so the evaluator knows the largest frame
//! it may get next.

use std::mem;

use mixgc_core::Block;
use mixgc_net::{Channel, NetError, Tag};

use crate::frames::{recv_table_frame_len, FrameSchedule};
use crate::outlet::Outbox;
use crate::SessionError;

/// The garbler's end of the table stream.
pub(crate) struct RowWriter {
    /// Rows not sent yet.
    pending: Vec<Block>,
    /// Bytes used in the last pending block (0: it is full, or there is none).
    tail: usize,
    /// Whole-block rows that start inside a block, before they join the stream.
    unaligned: Vec<Block>,
    /// Byte-packed rows made by a core, before they join the stream.
    packed: Vec<u8>,
    frames: FrameSchedule,
}

impl RowWriter {
    pub(crate) fn new(target_bytes: usize) -> Self {
        let frames = FrameSchedule::new(target_bytes);
        RowWriter {
            pending: Vec::with_capacity(frames.blocks()),
            tail: 0,
            unaligned: Vec::new(),
            packed: Vec::new(),
            frames,
        }
    }

    /// Appends whole-block rows: `append` pushes them onto the buffer it is given (the
    /// stream itself, or a side buffer copied in where the stream is inside a block).
    pub(crate) fn append_blocks<R>(&mut self, append: impl FnOnce(&mut Vec<Block>) -> R) -> R {
        if self.tail == 0 {
            return append(&mut self.pending);
        }
        let mut side = mem::take(&mut self.unaligned);
        side.clear();
        let out = append(&mut side);
        self.push_bytes(Block::slice_as_bytes(&side));
        self.unaligned = side;
        out
    }

    /// Appends byte-packed rows that `append` pushes onto the (empty) buffer it is given.
    pub(crate) fn append_bytes<R>(&mut self, append: impl FnOnce(&mut Vec<u8>) -> R) -> R {
        let mut side = mem::take(&mut self.packed);
        side.clear();
        let out = append(&mut side);
        self.push_bytes(&side);
        self.packed = side;
        out
    }

    /// Appends byte-packed rows.
    pub(crate) fn push_bytes(&mut self, mut bytes: &[u8]) {
        if self.tail != 0 {
            let last = self.pending.last_mut().expect("a partly used block");
            let mut b = last.to_bytes();
            let n = bytes.len().min(16 - self.tail);
            b[self.tail..self.tail + n].copy_from_slice(&bytes[..n]);
            *last = Block::from_bytes(b);
            self.tail = (self.tail + n) % 16;
            bytes = &bytes[n..];
        }
        let mut chunks = bytes.chunks_exact(16);
        self.pending.extend(
            chunks
                .by_ref()
                .map(|c| Block::from_bytes(c.try_into().expect("16 bytes"))),
        );
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 16];
            b[..rest.len()].copy_from_slice(rest);
            self.pending.push(Block::from_bytes(b));
            self.tail = rest.len();
        }
    }

    /// Blocks the pending rows may grow by before the next frame is full.
    pub(crate) fn room(&self) -> usize {
        self.frames.blocks().saturating_sub(self.pending.len())
    }

    /// Sends every full frame of the schedule; the rest stays pending.
    pub(crate) fn send_full(&mut self, out: &mut dyn Outbox) -> Result<(), SessionError> {
        let complete = |w: &RowWriter| w.pending.len() - usize::from(w.tail != 0);
        let mut sent = 0;
        while complete(self) - sent >= self.frames.blocks() {
            let size = self.frames.blocks();
            let rest = self.pending.len() - sent - size;
            if sent == 0 && rest < size {
                // The usual case: move the frame out, keep the (short) rest.
                let mut next = out.spare();
                next.extend_from_slice(&self.pending[size..]);
                self.pending.truncate(size);
                out.send_tables(mem::replace(&mut self.pending, next))?;
            } else {
                let mut frame = out.spare();
                frame.extend_from_slice(&self.pending[sent..sent + size]);
                out.send_tables(frame)?;
                sent += size;
            }
            self.frames.advance();
        }
        self.pending.drain(..sent);
        Ok(())
    }

    /// A sync point: sends everything pending, the last frame as short as it is.
    pub(crate) fn flush(&mut self, out: &mut dyn Outbox) -> Result<(), SessionError> {
        self.send_full(out)?;
        if self.pending.is_empty() {
            return Ok(());
        }
        if self.tail == 0 {
            let next = out.spare();
            out.send_tables(mem::replace(&mut self.pending, next))?;
        } else {
            let len = self.pending.len() * 16 - (16 - self.tail);
            out.push_frame(Tag::Tables, Block::slice_as_bytes(&self.pending)[..len].to_vec())?;
            self.pending.clear();
            self.tail = 0;
        }
        self.frames.advance();
        Ok(())
    }
}

/// The evaluator's end of the table stream.
pub(crate) struct RowReader {
    /// The last frame received: `len` bytes, `used` of them used.
    frame: Vec<Block>,
    len: usize,
    used: usize,
    /// Rows of a request that spans frames or starts inside a block.
    gathered: Vec<Block>,
    gathered_bytes: Vec<u8>,
    frames: FrameSchedule,
}

impl RowReader {
    pub(crate) fn new(target_bytes: usize) -> Self {
        RowReader {
            frame: Vec::new(),
            len: 0,
            used: 0,
            gathered: Vec::new(),
            gathered_bytes: Vec::new(),
            frames: FrameSchedule::new(target_bytes),
        }
    }

    /// Every row received has been used (checked at a sync point).
    pub(crate) fn is_drained(&self) -> bool {
        self.used == self.len
    }

    /// Receives the next frame of the schedule (the current one must be used up).
    fn read_frame<C: Channel + ?Sized>(&mut self, ch: &mut C) -> Result<(), NetError> {
        let len = recv_table_frame_len(ch, Tag::Tables, self.frames.blocks() * 16, 1)?;
        self.frames.advance();
        self.frame.resize(len.div_ceil(16), Block::ZERO);
        ch.recv(&mut Block::slice_as_bytes_mut(&mut self.frame)[..len])?;
        (self.len, self.used) = (len, 0);
        Ok(())
    }

    /// Fills `out` with the next bytes of the stream, reading frames as needed.
    fn gather<C: Channel + ?Sized>(&mut self, out: &mut [u8], ch: &mut C) -> Result<(), NetError> {
        let mut filled = 0;
        while filled < out.len() {
            if self.used == self.len {
                self.read_frame(ch)?;
            }
            let n = (out.len() - filled).min(self.len - self.used);
            out[filled..filled + n]
                .copy_from_slice(&Block::slice_as_bytes(&self.frame)[self.used..self.used + n]);
            (filled, self.used) = (filled + n, self.used + n);
        }
        Ok(())
    }

    /// The next `n` whole-block rows.
    pub(crate) fn take_blocks<C: Channel + ?Sized>(
        &mut self,
        n: usize,
        ch: &mut C,
    ) -> Result<&[Block], NetError> {
        if self.used.is_multiple_of(16) && self.len - self.used >= 16 * n {
            let start = self.used / 16;
            self.used += 16 * n;
            return Ok(&self.frame[start..start + n]);
        }
        let mut gathered = mem::take(&mut self.gathered);
        gathered.resize(n, Block::ZERO);
        let read = self.gather(Block::slice_as_bytes_mut(&mut gathered), ch);
        self.gathered = gathered;
        read?;
        Ok(&self.gathered)
    }

    /// The next `n` byte-packed rows.
    pub(crate) fn take_bytes<C: Channel + ?Sized>(
        &mut self,
        n: usize,
        ch: &mut C,
    ) -> Result<&[u8], NetError> {
        if self.len - self.used >= n {
            self.used += n;
            return Ok(&Block::slice_as_bytes(&self.frame)[self.used - n..self.used]);
        }
        let mut gathered = mem::take(&mut self.gathered_bytes);
        gathered.resize(n, 0);
        let read = self.gather(&mut gathered, ch);
        self.gathered_bytes = gathered;
        read?;
        Ok(&self.gathered_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mixgc_net::memory_pair;
    use rand::{Rng, SeedableRng};

    /// Frames sent straight to a channel.
    struct Straight<C>(C);

    impl<C: Channel> Outbox for Straight<C> {
        fn push_frame(&mut self, tag: Tag, payload: Vec<u8>) -> Result<(), SessionError> {
            Ok(mixgc_net::send_frame(&mut self.0, tag, &payload)?)
        }
        fn send_tables(&mut self, blocks: Vec<Block>) -> Result<(), SessionError> {
            self.push_frame(Tag::Tables, Block::slice_as_bytes(&blocks).to_vec())
        }
        fn spare(&mut self) -> Vec<Block> {
            Vec::new()
        }
    }

    /// Random mixes of whole-block and byte-packed rows with sync points (some known to the
    /// garbler only) arrive intact, in frames of the schedule.
    #[test]
    fn mixed_rows_arrive_as_written() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let mut script = Vec::new();
        for _ in 0..400 {
            script.push(match rng.gen_range(0..4) {
                0 => {
                    let n = rng.gen_range(1..9000);
                    (
                        Some((0..n).map(|_| Block::random(&mut rng)).collect::<Vec<_>>()),
                        None,
                    )
                }
                1 => {
                    let n = rng.gen_range(1..70_000);
                    (None, Some((0..n).map(|_| rng.gen()).collect::<Vec<u8>>()))
                }
                2 => (None, None),
                // A flush the evaluator does not know of (e.g. before the garbler waits on
                // something outside the protocol): frame ends mean nothing to the reader.
                _ => (Some(Vec::new()), Some(Vec::new())),
            });
        }
        let (a, mut b) = memory_pair();
        let writer = std::thread::spawn({
            let script = script.clone();
            move || {
                let mut out = Straight(a);
                let mut w = RowWriter::new(64 << 10);
                for step in script {
                    match step {
                        (Some(rows), Some(_)) if rows.is_empty() => w.flush(&mut out).unwrap(),
                        (Some(rows), _) => w.append_blocks(|b| b.extend_from_slice(&rows)),
                        (_, Some(bytes)) => w.push_bytes(&bytes),
                        _ => w.flush(&mut out).unwrap(),
                    }
                    w.send_full(&mut out).unwrap();
                }
                w.flush(&mut out).unwrap();
                out.0.flush().unwrap();
            }
        });
        let mut r = RowReader::new(64 << 10);
        for step in script {
            match step {
                (Some(rows), Some(_)) if rows.is_empty() => {}
                (Some(rows), _) => assert_eq!(r.take_blocks(rows.len(), &mut b).unwrap(), rows),
                (_, Some(bytes)) => assert_eq!(r.take_bytes(bytes.len(), &mut b).unwrap(), bytes),
                _ => assert!(r.is_drained(), "a sync point ends a frame"),
            }
        }
        assert!(r.is_drained());
        writer.join().unwrap();
    }
}
