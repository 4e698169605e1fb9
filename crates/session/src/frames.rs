//! Sizes of garbled-table frames (MEG, §III): slow start, so the evaluator can begin as soon
//! as the first rows exist, then large frames, so system calls and headers stay rare.

use mixgc_net::{recv_frame_header, Channel, NetError, PeerMisbehaved, Tag};

/// The first frame of a stream: 64 KiB of rows.
pub const FIRST_FRAME_BYTES: usize = 64 << 10;
/// The largest target a session may ask for (and so the largest frame an evaluator accepts).
pub const MAX_TABLE_FRAME_BYTES: usize = 16 << 20;

/// Receives the header of a table frame (`tag`) of at most `limit` bytes that holds whole
/// rows of `row_bytes` (1 for byte-packed rows), and returns its length; an empty frame or
/// one that ends inside a row is the peer's deviation. Every reader of garbled rows checks
/// its frames here.
pub(crate) fn recv_table_frame_len<C: Channel + ?Sized>(
    ch: &mut C,
    tag: Tag,
    limit: usize,
    row_bytes: usize,
) -> Result<usize, NetError> {
    let len = recv_frame_header(ch, tag, limit)?;
    if len == 0 {
        return Err(PeerMisbehaved::EmptyFrame(tag).into());
    }
    if len % row_bytes != 0 {
        return Err(PeerMisbehaved::PartialRows { tag, len, row_bytes }.into());
    }
    Ok(len)
}

/// Frame sizes of one batch: 64 KiB, doubling up to the target; each instance's last frame
/// holds what is left of its tables. Frames are cut by size alone (a frame may end inside
/// an AND group), so transcripts are the same whatever the timing, the chunking of the
/// stream or the number of threads.
pub(crate) struct FrameSchedule {
    next: usize,
    target: usize,
}

impl FrameSchedule {
    /// A schedule towards `target_bytes` (already checked to be within the limits).
    pub(crate) fn new(target_bytes: usize) -> Self {
        FrameSchedule {
            next: FIRST_FRAME_BYTES.min(target_bytes),
            target: target_bytes,
        }
    }

    /// Table blocks the next frame may hold.
    pub(crate) fn blocks(&self) -> usize {
        self.next / 16
    }

    /// A frame went out: the next may be twice as large, up to the target.
    pub(crate) fn advance(&mut self) {
        self.next = (self.next * 2).min(self.target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_start_doubles_to_the_target() {
        let mut s = FrameSchedule::new(1 << 20);
        let mut sizes = Vec::new();
        for _ in 0..7 {
            sizes.push(s.blocks() * 16);
            s.advance();
        }
        assert_eq!(
            sizes,
            [
                64 << 10,
                128 << 10,
                256 << 10,
                512 << 10,
                1 << 20,
                1 << 20,
                1 << 20
            ]
        );
        assert_eq!(FrameSchedule::new(64 << 10).blocks() * 16, 64 << 10);
    }
}
