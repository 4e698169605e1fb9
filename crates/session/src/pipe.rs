//! The evaluator's frames of a compiled batch, from the channel to the compute core (MEG
//! §III): either read directly on the compute thread, or by a reader thread through a
//! bounded queue of at most [`QUEUE_FRAMES`] bundles, so evaluating overlaps with receiving.
//! A bundle holds one table frame at most, with the small frames the garbler sends right
//! after it (an instance's output decoding and the next instance's labels), so the compute
//! thread is woken once per bundle, not once per frame.
//! (The garbler's side is [`crate::outlet`].)
//!
//! The reader knows every frame the batch will bring (see [`EvaluatorPlan`]) and checks
//! each one, so the compute side has nothing left to fail on and never waits on a reader
//! blocked in `recv`; when the reader fails (peer gone), the compute side reports its error.

use std::sync::mpsc::{channel, sync_channel, Receiver, Sender};

use mixgc_core::Block;
use mixgc_net::{recv_frame, Channel, PeerMisbehaved, Tag};

use crate::frames::{recv_table_frame_len, MAX_TABLE_FRAME_BYTES};
pub use crate::outlet::QUEUE_FRAMES;
use crate::SessionError;

/// One frame on its way from the channel to the compute core.
pub(crate) enum Frame {
    Bytes(Tag, Vec<u8>),
    Tables(Vec<Block>),
}

/// Where the evaluator's frames come from.
pub(crate) trait Inbox {
    /// A frame with `tag` and exactly `len` payload bytes.
    fn recv(&mut self, tag: Tag, len: usize) -> Result<Vec<u8>, SessionError>;
    /// A table frame of 1 to `left` bytes (of the instance's tables), as blocks: whole
    /// blocks, except that the instance's last frame may end inside one (byte-packed rows);
    /// it then holds `left` bytes, the last block padded with zeros.
    fn recv_tables(&mut self, left: usize) -> Result<Vec<Block>, SessionError>;
    /// Gives a spent table buffer back for reuse.
    fn recycle(&mut self, buf: Vec<Block>);
}

/// Frames straight to and from the channel, on the calling thread.
pub(crate) struct Direct<'c, C> {
    ch: &'c mut C,
    spare: Vec<Block>,
    /// Buffers given back from another thread (a reader thread's consumer).
    returns: Option<Receiver<Vec<Block>>>,
}

impl<'c, C: Channel> Direct<'c, C> {
    pub(crate) fn new(ch: &'c mut C) -> Self {
        Direct {
            ch,
            spare: Vec::new(),
            returns: None,
        }
    }
}

impl<C: Channel> Inbox for Direct<'_, C> {
    fn recv(&mut self, tag: Tag, len: usize) -> Result<Vec<u8>, SessionError> {
        let frame = recv_frame(self.ch, tag, len)?;
        if frame.len() != len {
            return Err(PeerMisbehaved::WrongLength {
                tag,
                len: frame.len(),
                expected: len,
            }
            .into());
        }
        Ok(frame)
    }

    fn recv_tables(&mut self, left: usize) -> Result<Vec<Block>, SessionError> {
        let limit = left.min(MAX_TABLE_FRAME_BYTES);
        let len = recv_table_frame_len(self.ch, Tag::Tables, limit, 1)?;
        if len % 16 != 0 && len != left {
            return Err(PeerMisbehaved::PartialRows {
                tag: Tag::Tables,
                len,
                row_bytes: 16,
            }
            .into());
        }
        let mut buf = std::mem::take(&mut self.spare);
        if let Some(returned) = self.returns.as_ref().and_then(|r| r.try_recv().ok()) {
            buf = returned;
        }
        // A spent buffer keeps its old rows: `recv` overwrites the first `len` bytes, so
        // only growth is zeroed (zeroing every frame cost 2 % of the evaluator end to end),
        // and only the padding of a last block that ends inside it.
        let blocks = len.div_ceil(16);
        if buf.len() > blocks {
            buf.truncate(blocks);
        } else {
            buf.resize(blocks, Block::ZERO);
        }
        if len % 16 != 0 {
            buf[blocks - 1] = Block::ZERO;
        }
        self.ch.recv(&mut Block::slice_as_bytes_mut(&mut buf)[..len])?;
        Ok(buf)
    }

    fn recycle(&mut self, buf: Vec<Block>) {
        self.spare = buf;
    }
}

/// Runs `consume` with an [`Inbox`] for the frames of `plan`: fed by a reader thread if
/// `io_thread`, else read directly on the calling thread.
pub(crate) fn receive_all<C: Channel, T>(
    ch: &mut C,
    io_thread: bool,
    plan: EvaluatorPlan,
    consume: impl FnOnce(&mut dyn Inbox) -> Result<T, SessionError>,
) -> Result<T, SessionError> {
    if io_thread {
        with_reader(ch, plan, |inbox| consume(inbox))
    } else {
        consume(&mut Direct::new(ch))
    }
}

/// Every frame the garbler sends the evaluator in one batch, in order.
#[derive(Clone, Copy)]
pub(crate) struct EvaluatorPlan {
    pub instances: usize,
    /// Bytes of each instance's garbler-labels frame (none is sent when 0).
    pub labels_bytes: usize,
    /// Table bytes of each instance (cut into frames by the garbler).
    pub table_bytes: usize,
    /// Bytes of each instance's output-decoding frame, if the evaluator learns outputs.
    pub decoding_bytes: Option<usize>,
}

impl EvaluatorPlan {
    /// Receives the whole batch from `inbox` in order, handing each frame to
    /// `deliver(frame, more)`, where `more` says that the garbler sends the next frame right
    /// after this one (without computing in between: an instance's last table frame, then
    /// its output decoding and the next instance's labels); stops early (with `Ok`) when
    /// `deliver` returns false.
    fn read(
        &self,
        inbox: &mut impl Inbox,
        mut deliver: impl FnMut(Frame, bool) -> bool,
    ) -> Result<(), SessionError> {
        for i in 0..self.instances {
            let labels_next = self.labels_bytes > 0 && i + 1 < self.instances;
            if self.labels_bytes > 0
                && !deliver(
                    Frame::Bytes(
                        Tag::GarblerLabels,
                        inbox.recv(Tag::GarblerLabels, self.labels_bytes)?,
                    ),
                    false,
                )
            {
                return Ok(());
            }
            let mut left = self.table_bytes;
            while left > 0 {
                let tables = inbox.recv_tables(left)?;
                left -= (tables.len() * 16).min(left);
                let more = left == 0 && (self.decoding_bytes.is_some() || labels_next);
                if !deliver(Frame::Tables(tables), more) {
                    return Ok(());
                }
            }
            if let Some(len) = self.decoding_bytes {
                let frame = Frame::Bytes(Tag::OutputDecoding, inbox.recv(Tag::OutputDecoding, len)?);
                if !deliver(frame, labels_next) {
                    return Ok(());
                }
            }
        }
        Ok(())
    }
}

/// The compute side of an evaluator's reader thread: frames arrive in bundles, already
/// checked against the plan.
pub(crate) struct Prefetched {
    bundles: Receiver<Result<Vec<Frame>, SessionError>>,
    /// The rest of the last bundle, in order.
    frames: std::vec::IntoIter<Frame>,
    spare: Sender<Vec<Block>>,
}

impl Prefetched {
    fn next(&mut self) -> Result<Frame, SessionError> {
        loop {
            if let Some(frame) = self.frames.next() {
                return Ok(frame);
            }
            let bundle = self
                .bundles
                .recv()
                .unwrap_or(Err(SessionError::IoThreadStopped))?;
            self.frames = bundle.into_iter();
        }
    }
}

impl Inbox for Prefetched {
    fn recv(&mut self, tag: Tag, _len: usize) -> Result<Vec<u8>, SessionError> {
        match self.next()? {
            Frame::Bytes(t, payload) if t == tag => Ok(payload),
            _ => unreachable!("the reader follows the same plan"),
        }
    }

    fn recv_tables(&mut self, _left: usize) -> Result<Vec<Block>, SessionError> {
        match self.next()? {
            Frame::Tables(blocks) => Ok(blocks),
            Frame::Bytes(..) => unreachable!("the reader follows the same plan"),
        }
    }

    fn recycle(&mut self, buf: Vec<Block>) {
        let _ = self.spare.send(buf);
    }
}

/// Runs `consume` with an [`Inbox`] fed by a reader thread that owns `ch` meanwhile and
/// reads exactly the frames of `plan`.
fn with_reader<C: Channel, T>(
    ch: &mut C,
    plan: EvaluatorPlan,
    consume: impl FnOnce(&mut Prefetched) -> Result<T, SessionError>,
) -> Result<T, SessionError> {
    std::thread::scope(|s| {
        let (tx, rx) = sync_channel(QUEUE_FRAMES);
        let (spare_tx, spare_rx) = channel::<Vec<Block>>();
        s.spawn(move || {
            let mut direct = Direct::new(ch);
            direct.returns = Some(spare_rx);
            let mut bundle = Vec::new();
            let read = plan.read(&mut direct, |frame, more| {
                bundle.push(frame);
                more || tx.send(Ok(std::mem::take(&mut bundle))).is_ok()
            });
            // What was read before a failure still goes first (the frames before it are
            // the peer's, and the consumer may finish an instance with them).
            if !bundle.is_empty() {
                let _ = tx.send(Ok(bundle));
            }
            if let Err(e) = read {
                let _ = tx.send(Err(e));
            }
        });
        let mut inbox = Prefetched {
            bundles: rx,
            frames: Vec::new().into_iter(),
            spare: spare_tx,
        };
        consume(&mut inbox)
    })
}

/// A compiled stream that could not be read or does not add up.
pub(crate) fn stream_failed(e: mixgc_compile::StreamError) -> SessionError {
    SessionError::Input(format!("reading the compiled stream: {e}"))
}
