//! Plaintext laid out as the TLS 1.3 records it will be sealed into (RFC 8446 §5.1–§5.2),
//! so a link's sends are copied once, into their final place, and sealed there: each
//! record is room for its header, up to [`MAX_PLAIN`] bytes of plaintext, then room for the
//! inner content type and the AEAD tag. Bulk data fills records of the largest size TLS 1.3
//! allows; a flush seals the last record as it is, so small frames are never delayed.
//! [`crate::record::Sealer::seal_laid_out`] fills in the headers and seals each record
//! where it lies.

use crate::record::{HEADER, MAX_PLAIN};
use crate::record_aead::TAG;

/// The room a record needs besides its plaintext: header, content type, tag.
pub(crate) const OVERHEAD: usize = HEADER + 1 + TAG;
/// The bytes of a full record, the stride of the layout.
pub(crate) const STRIDE: usize = MAX_PLAIN + OVERHEAD;

/// Unused room [`RecordBuf::shrink_to_fit`] leaves in place.
pub(crate) const SLACK: usize = 64 << 10;

/// The records' bytes on the wire for `plain` bytes of plaintext.
pub(crate) fn wire_len(plain: usize) -> usize {
    plain + plain.div_ceil(MAX_PLAIN) * OVERHEAD
}

/// Plaintext in record layout (see the module docs); the last record may be partial.
#[derive(Default)]
pub(crate) struct RecordBuf {
    /// Records, the last one without its trailing room until [`RecordBuf::finish`].
    buf: Vec<u8>,
    /// Plaintext bytes held.
    plain: usize,
    /// The last record's trailing room is there: nothing more may be pushed.
    finished: bool,
}

impl RecordBuf {
    /// Reserves room for the records of `plain` bytes in all, unless some is there already.
    pub(crate) fn reserve_once(&mut self, plain: usize) {
        if self.buf.capacity() == 0 {
            self.buf.reserve_exact(wire_len(plain));
        }
    }

    /// Whether the buffer holds the records of `plain` bytes without growing.
    pub(crate) fn has_room_for(&self, plain: usize) -> bool {
        self.buf.capacity() >= wire_len(plain)
    }

    /// Plaintext bytes held.
    pub(crate) fn len(&self) -> usize {
        self.plain
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.plain == 0
    }

    /// Empties the buffer, keeping its memory for the next records.
    pub(crate) fn clear(&mut self) {
        self.buf.clear();
        self.plain = 0;
        self.finished = false;
    }

    /// Appends `data` to the plaintext, starting a new record every [`MAX_PLAIN`] bytes.
    pub(crate) fn push(&mut self, mut data: &[u8]) {
        assert!(!self.finished, "no plaintext after the records are finished");
        while !data.is_empty() {
            let in_record = self.plain % MAX_PLAIN;
            if in_record == 0 {
                // The previous record's trailing room, then this one's header.
                let room = if self.plain > 0 { 1 + TAG } else { 0 } + HEADER;
                self.buf.resize(self.buf.len() + room, 0);
            }
            let take = data.len().min(MAX_PLAIN - in_record);
            self.buf.extend_from_slice(&data[..take]);
            self.plain += take;
            data = &data[take..];
        }
    }

    /// Gives back memory reserved beyond what the records need once finished (in place
    /// with the usual allocators: shrinking does not move the bytes), so a queue of small
    /// sends holds about what they need; a buffer within [`SLACK`] of that is left alone.
    pub(crate) fn shrink_to_fit(&mut self) {
        let need = wire_len(self.plain);
        if self.buf.capacity() > need + SLACK {
            self.buf.shrink_to(need);
        }
    }

    /// Adds the last record's trailing room; the records, [`STRIDE`] bytes each but the
    /// last, ready for [`crate::record::Sealer::seal_laid_out`] ([`wire_len`] bytes).
    pub(crate) fn finish(&mut self) -> &mut [u8] {
        if !self.finished && self.plain > 0 {
            self.buf.resize(self.buf.len() + 1 + TAG, 0);
        }
        self.finished = true;
        debug_assert_eq!(self.buf.len(), wire_len(self.plain));
        &mut self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layout holds each byte where its record's plaintext lies, for pushes of every
    /// size across record boundaries.
    #[test]
    fn plaintext_lands_in_its_records() {
        for pushes in [
            vec![0usize],
            vec![1],
            vec![MAX_PLAIN],
            vec![MAX_PLAIN + 1],
            vec![5, MAX_PLAIN - 5, 7],
            vec![3 * MAX_PLAIN + 17, 1, MAX_PLAIN - 2, 40_000],
        ] {
            let mut records = RecordBuf::default();
            records.reserve_once(10);
            let mut plain = Vec::new();
            for (i, &n) in pushes.iter().enumerate() {
                let data: Vec<u8> = (0..n).map(|j| (j * 7 + i) as u8).collect();
                records.push(&data);
                plain.extend_from_slice(&data);
            }
            assert_eq!(records.len(), plain.len());
            let wire = records.finish();
            assert_eq!(wire.len(), wire_len(plain.len()));
            let mut got = Vec::new();
            for record in wire.chunks(STRIDE) {
                got.extend_from_slice(&record[HEADER..record.len() - 1 - TAG]);
            }
            assert_eq!(got, plain, "{pushes:?}");
        }
    }

    /// The sending side of a queued TLS link per byte, before and after laying the
    /// plaintext out as records: 1 MiB chunks built from 33,000-byte sends (1,000 ANDs of
    /// tables and colours), sealed with AES-128-GCM and written 256 KiB at a time
    /// (the write itself left out; the AEAD as the record layer calls it). Before: the chunk
    /// a plain buffer, each piece sealed into the write buffer from it (with ring: a copy,
    /// then the cipher in place); after:
    /// the chunk in record layout, sealed where it lies. Best of 7 rounds of 256 MiB;
    /// buffers reused (as the link recycles them); prints ns per 33 B (one AND). Run with `--ignored --nocapture`.
    #[test]
    #[ignore]
    fn sealing_cost_before_and_after_the_layout() {
        use crate::record::{Records, Wire};
        use crate::record_aead::{RecordKey, Suite};
        use std::time::Instant;
        const CHUNK: usize = 1 << 20;
        const PIECE: usize = 256 << 10;
        const TOTAL: usize = 256 << 20;
        let key = RecordKey::new(Suite::Aes128Gcm, &[9u8; 16]).unwrap();
        let header = [23, 3, 3, 0x40, 0x11];
        let send = vec![0x5au8; 33_000];
        let (mut before, mut after) = (f64::MAX, f64::MAX);
        for _ in 0..7 {
            let mut wire = Wire::default();
            let mut chunk = Vec::with_capacity(CHUNK);
            let start = Instant::now();
            for seq in 0..TOTAL / CHUNK {
                chunk.clear();
                while chunk.len() < CHUNK {
                    let take = send.len().min(CHUNK - chunk.len());
                    chunk.extend_from_slice(&send[..take]);
                }
                for piece in chunk.chunks(PIECE) {
                    wire.clear();
                    for plain in piece.chunks(MAX_PLAIN) {
                        let record = wire.append(HEADER + plain.len() + 1 + TAG);
                        record[..HEADER].copy_from_slice(&header);
                        key.seal([seq as u8; 12], header, plain, 23, &mut record[HEADER..]);
                    }
                    std::hint::black_box(wire.bytes());
                }
            }
            before = before.min(start.elapsed().as_secs_f64());

            let mut chunk = RecordBuf::default();
            chunk.reserve_once(CHUNK);
            let start = Instant::now();
            for seq in 0..TOTAL / CHUNK {
                chunk.clear();
                while chunk.len() < CHUNK {
                    let take = send.len().min(CHUNK - chunk.len());
                    chunk.push(&send[..take]);
                }
                for piece in chunk.finish().chunks_mut(PIECE / MAX_PLAIN * STRIDE) {
                    for record in piece.chunks_mut(STRIDE) {
                        record[..HEADER].copy_from_slice(&header);
                        key.seal_in_place([seq as u8; 12], header, &mut record[HEADER..], 23);
                    }
                    std::hint::black_box(&piece[..]);
                }
            }
            after = after.min(start.elapsed().as_secs_f64());
        }
        let per_and = |t: f64| t / TOTAL as f64 * 33.0 * 1e9;
        let backend = if cfg!(feature = "aws-lc") {
            "aws-lc-rs"
        } else {
            "ring"
        };
        eprintln!(
            "{backend}: sending side of a TLS link, {:.2} ns/AND before (copy into the write buffer), \
             {:.2} ns/AND laid out and sealed in place ({:.2} GB/s → {:.2} GB/s)",
            per_and(before),
            per_and(after),
            TOTAL as f64 / before / 1e9,
            TOTAL as f64 / after / 1e9
        );
    }

    #[test]
    #[should_panic(expected = "no plaintext after the records are finished")]
    fn nothing_is_pushed_after_finishing() {
        let mut records = RecordBuf::default();
        records.push(b"frame");
        records.finish();
        records.push(b"late");
    }
}
