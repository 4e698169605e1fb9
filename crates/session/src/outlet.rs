//! The garbler's one route to its channel (MEG §III: garbling overlaps with sending).
//!
//! An [`Outlet`] owns the session's channel. Frames go out directly on the calling thread
//! or, when the session has an I/O thread and a run sends more than [`DIRECT_FRAMES`]
//! full-size table frames without a round trip, through a writer thread that holds the
//! channel meanwhile: the compute thread hands it the channel
//! and queues frames, at most [`QUEUE_FRAMES`] of them, so a slow peer slows the producer
//! (backpressure) instead of growing memory; spent table buffers travel back for reuse.
//! Anything else (a read, a raw write, a flush) first takes the channel back, after the
//! writer has sent everything queued, so the bytes on the wire are the same either way and
//! short, interactive runs (a few frames between round trips) never pay for a hand-over.
//!
//! In a compiled batch ([`Outlet::bundle_until_read`]), while the writer holds the
//! channel, frames wait in a bundle until the producer [releases](Outbox::release) it
//! (before its next stretch of computing), a second table frame comes, or the channel is
//! taken back; the bundle travels as one job, so the writer is woken once per bundle, not
//! once per frame (an instance's last table frame, its output decoding and the next
//! instance's labels: one wake-up instead of three). The bytes on the wire are the same.
//! The queue holds [`QUEUE_FRAMES`] − 1 bundles, so with the one table frame a bundle may
//! hold back, at most [`QUEUE_FRAMES`] table frames wait, as before.
//!
//! A write that fails on the writer thread is reported at the next bundle queued (so a
//! producer stops at once, not at its next round trip) and whenever the channel is taken
//! back.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, SendError, Sender, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use mixgc_core::Block;
use mixgc_net::{send_frame, Channel, NetError, Tag};

use crate::frames::FIRST_FRAME_BYTES;
use crate::SessionError;

/// Frames a queue holds between the compute thread and the writer thread.
pub const QUEUE_FRAMES: usize = 4;

/// Full-size table frames sent directly before a run hands the channel to the writer thread
/// (64 + 128 KiB: shorter runs, e.g. a 64-bit product between two round trips, finish sooner
/// than a hand-over and back would take).
pub const DIRECT_FRAMES: usize = 2;

/// Where the garbler's frames go: an [`Outlet`], or a test's recorder.
pub(crate) trait Outbox {
    fn push_frame(&mut self, tag: Tag, payload: Vec<u8>) -> Result<(), SessionError>;
    /// Sends `blocks` as one table frame.
    fn send_tables(&mut self, blocks: Vec<Block>) -> Result<(), SessionError>;
    /// An empty buffer to fill next (a spent one when there is one).
    fn spare(&mut self) -> Vec<Block>;
    /// The frames pushed so far may go out now: the producer is about to compute for a
    /// while (frames held back until then travel together).
    fn release(&mut self) -> Result<(), SessionError> {
        Ok(())
    }
}

/// A frame for the writer thread.
enum Out {
    Frame(Tag, Vec<u8>),
    Tables(Vec<Block>),
}

/// A job for the writer thread.
enum Job<C> {
    /// Hold the channel and send what follows.
    Take(C),
    /// Frames to send in order.
    Bundle(Vec<Out>),
    /// Send the channel back, with the first error since it was taken.
    Return,
}

/// The writer thread, while it exists (it starts at the first hand-over).
struct Writer<C> {
    jobs: SyncSender<Job<C>>,
    returned: Receiver<(C, Result<(), NetError>)>,
    spares: Receiver<Vec<Block>>,
    failed: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// The session's channel, here or on the writer thread; see the module docs.
pub struct Outlet<C> {
    /// The channel when it is on this thread.
    here: Option<C>,
    io_thread: bool,
    writer: Option<Writer<C>>,
    spare: Vec<Block>,
    /// The channel's byte counts when it was handed over.
    counts: (u64, u64),
    /// Full-size table frames sent directly since the last read or flush.
    direct_frames: usize,
    /// Frames waiting for the writer thread, in order (see the module docs).
    held: Vec<Out>,
    /// Whether frames wait for a release (else each goes to the writer at once).
    bundling: bool,
}

impl<C: Channel + 'static> Outlet<C> {
    /// An outlet over `ch`; `io_thread` lets long runs send through a writer thread.
    pub(crate) fn new(ch: C, io_thread: bool) -> Self {
        Outlet {
            here: Some(ch),
            io_thread,
            writer: None,
            spare: Vec::new(),
            counts: (0, 0),
            direct_frames: 0,
            held: Vec::new(),
            bundling: false,
        }
    }

    /// Frames sent from now until the next read, raw write or flush wait
    /// for [`Outbox::release`]: for a producer that releases them before each stretch of
    /// computing (a compiled batch's instances), not for one that would leave a frame
    /// waiting while its peer needs it (a program, between its round trips).
    pub(crate) fn bundle_until_read(&mut self) {
        self.bundling = true;
    }

    /// The channel, taken back from the writer thread if it is there.
    fn ch(&mut self) -> Result<&mut C, NetError> {
        if self.here.is_none() {
            let writer = self.writer.as_mut().expect("a channel away is on the writer");
            if !self.held.is_empty() {
                // A writer gone shows as the channel not coming back, below.
                let _ = writer.jobs.send(Job::Bundle(std::mem::take(&mut self.held)));
            }
            let back = writer
                .jobs
                .send(Job::Return)
                .ok()
                .and_then(|()| writer.returned.recv().ok());
            let (ch, result) = back.expect("the writer thread returns the channel");
            writer.failed.store(false, Ordering::Relaxed);
            self.here = Some(ch);
            result?;
        }
        Ok(self.here.as_mut().expect("here"))
    }

    /// The channel, which is here between runs (every run takes it back before it ends).
    pub(crate) fn get_ref(&self) -> &C {
        self.here.as_ref().expect("the channel is back between runs")
    }

    /// Hands the channel to the writer thread (starting it on first use).
    fn hand_over(&mut self) -> Result<(), SessionError> {
        let ch = self.here.take().expect("here");
        self.counts = (ch.bytes_sent(), ch.bytes_received());
        let writer = self.writer.get_or_insert_with(start_writer);
        writer.jobs.send(Job::Take(ch)).map_err(|SendError(job)| {
            if let Job::Take(ch) = job {
                self.here = Some(ch);
            }
            SessionError::IoThreadStopped
        })
    }

    fn release_unless_bundling(&mut self) -> Result<(), SessionError> {
        if self.bundling {
            return Ok(());
        }
        self.queue_held()
    }

    /// Queues the held frames on the writer thread as one bundle; a failure there is
    /// reported now.
    fn queue_held(&mut self) -> Result<(), SessionError> {
        if self.held.is_empty() {
            return Ok(());
        }
        let writer = self.writer.as_mut().expect("queued while away");
        if writer.failed.load(Ordering::Relaxed) {
            self.held.clear();
            self.ch()?; // takes the channel back and reports the writer's error
            return Err(SessionError::IoThreadStopped);
        }
        let bundle = Job::Bundle(std::mem::take(&mut self.held));
        writer
            .jobs
            .send(bundle)
            .map_err(|_| SessionError::IoThreadStopped)
    }
}

fn start_writer<C: Channel + 'static>() -> Writer<C> {
    // One table frame may also wait in the held bundle: QUEUE_FRAMES in all.
    let (jobs, rx) = sync_channel(QUEUE_FRAMES - 1);
    let (returned_tx, returned) = channel();
    let (spares_tx, spares) = channel();
    let failed = Arc::new(AtomicBool::new(false));
    let flag = failed.clone();
    let thread = std::thread::Builder::new()
        .name("mixgc-writer".into())
        .spawn(move || write(rx, returned_tx, spares_tx, flag))
        .expect("spawning the writer thread");
    Writer {
        jobs,
        returned,
        spares,
        failed,
        thread: Some(thread),
    }
}

/// The writer thread: sends the frames queued while it holds the channel; after a failure
/// it drops them (so the producer never blocks on a full queue) until asked to return.
fn write<C: Channel>(
    jobs: Receiver<Job<C>>,
    returned: Sender<(C, Result<(), NetError>)>,
    spares: Sender<Vec<Block>>,
    failed: Arc<AtomicBool>,
) {
    let mut ch: Option<C> = None;
    let mut error: Option<NetError> = None;
    for job in jobs {
        match (job, ch.as_mut()) {
            (Job::Take(c), _) => ch = Some(c),
            (Job::Return, Some(_)) => {
                let result = error.take().map_or(Ok(()), Err);
                if returned.send((ch.take().expect("held"), result)).is_err() {
                    return;
                }
            }
            (Job::Bundle(frames), Some(c)) => {
                for frame in frames {
                    let sent = match frame {
                        _ if error.is_some() => Ok(()), // after a failure: dropped
                        Out::Frame(tag, payload) => send_frame(c, tag, &payload),
                        Out::Tables(mut blocks) => {
                            let sent = send_frame(c, Tag::Tables, Block::slice_as_bytes(&blocks));
                            blocks.clear();
                            let _ = spares.send(blocks);
                            sent
                        }
                    };
                    if let Err(e) = sent {
                        error = Some(e);
                        failed.store(true, Ordering::Relaxed);
                    }
                }
            }
            _ => {}
        }
    }
}

impl<C> Drop for Outlet<C> {
    /// Stops the writer thread (dropping the channel if it holds it).
    fn drop(&mut self) {
        if let Some(mut writer) = self.writer.take() {
            if !self.held.is_empty() {
                let _ = writer.jobs.send(Job::Bundle(std::mem::take(&mut self.held)));
            }
            drop(writer.jobs);
            if let Some(t) = writer.thread.take() {
                let _ = t.join();
            }
        }
    }
}

impl<C: Channel + 'static> Outbox for Outlet<C> {
    fn push_frame(&mut self, tag: Tag, payload: Vec<u8>) -> Result<(), SessionError> {
        if self.here.is_some() {
            Ok(send_frame(self.ch()?, tag, &payload)?)
        } else {
            self.held.push(Out::Frame(tag, payload));
            self.release_unless_bundling()
        }
    }

    /// A long run's full-size frames go through the writer thread when there is one.
    fn send_tables(&mut self, mut blocks: Vec<Block>) -> Result<(), SessionError> {
        if self.here.is_some() && blocks.len() * 16 >= FIRST_FRAME_BYTES {
            if self.io_thread && self.direct_frames >= DIRECT_FRAMES {
                self.hand_over()?;
            } else {
                self.direct_frames += 1;
            }
        }
        if self.here.is_some() {
            send_frame(self.ch()?, Tag::Tables, Block::slice_as_bytes(&blocks))?;
            blocks.clear();
            self.spare = blocks;
            Ok(())
        } else {
            // At most one table frame waits: a second sends the first (a long run's full
            // frames go out as they are made).
            if self.held.iter().any(|o| matches!(o, Out::Tables(_))) {
                self.queue_held()?;
            }
            self.held.push(Out::Tables(blocks));
            self.release_unless_bundling()
        }
    }

    fn spare(&mut self) -> Vec<Block> {
        let returned = self.writer.as_ref().and_then(|w| w.spares.try_recv().ok());
        returned.unwrap_or_else(|| std::mem::take(&mut self.spare))
    }

    fn release(&mut self) -> Result<(), SessionError> {
        if self.here.is_some() {
            return Ok(());
        }
        self.queue_held()
    }
}

/// Reads, raw writes and flushes take the channel back first.
impl<C: Channel + 'static> Channel for Outlet<C> {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        self.bundling = false;
        self.ch()?.send(data)
    }

    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        (self.direct_frames, self.bundling) = (0, false);
        self.ch()?.recv(buf)
    }

    fn flush(&mut self) -> Result<(), NetError> {
        (self.direct_frames, self.bundling) = (0, false);
        self.ch()?.flush()
    }

    /// While the writer holds the channel: the count when it was handed over.
    fn bytes_sent(&self) -> u64 {
        self.here.as_ref().map_or(self.counts.0, C::bytes_sent)
    }

    fn bytes_received(&self) -> u64 {
        self.here.as_ref().map_or(self.counts.1, C::bytes_received)
    }

    /// While the writer holds the channel, its frames name their own phase.
    fn set_phase(&mut self, phase: &'static str) {
        if let Some(ch) = self.here.as_mut() {
            ch.set_phase(phase);
        }
    }
}
