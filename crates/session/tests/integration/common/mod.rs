//! Helpers shared by the session tests.
#![allow(dead_code)] // each test crate uses its own subset

use std::collections::BTreeMap;

use std::thread;

use mixgc_net::{Channel, MemoryChannel, NetError};
use mixgc_program::{Ctx, ProgramError};
use mixgc_session::{
    Audience, EvaluatorSession, GarblerSession, ProgramEvaluator, ProgramGarbler, SessionConfig,
};

/// One end of a memory channel, tapped: it records every write (a 5-byte write is taken
/// for a frame header: `send_frame` writes the header, then the payload), can overwrite the
/// payloads of frames with one tag (a peer sending malformed data), and, like a peer that
/// dies, closes itself once `budget` bytes have been sent.
pub struct Tap {
    inner: MemoryChannel,
    budget: usize,
    /// Every 5-byte write.
    pub headers: Vec<[u8; 5]>,
    /// Every write: its length and, for 5-byte writes, the bytes.
    pub writes: Vec<(usize, Option<[u8; 5]>)>,
    /// Frames with this tag (and a payload of other than 32 bytes) go out as all-ones bytes.
    corrupt: Option<u8>,
    corrupt_next: bool,
}

impl Tap {
    pub fn new(inner: MemoryChannel, budget: usize) -> Self {
        Tap {
            inner,
            budget,
            headers: Vec::new(),
            writes: Vec::new(),
            corrupt: None,
            corrupt_next: false,
        }
    }

    /// A tap that overwrites the payloads of `tag` frames (other than 32-byte ones).
    pub fn corrupting(inner: MemoryChannel, tag: u8) -> Self {
        Tap {
            corrupt: Some(tag),
            ..Tap::new(inner, usize::MAX)
        }
    }
}

/// Bytes sent per frame tag from the writes `writes` (a header write followed by a write
/// of its payload length), and the bytes sent outside frames (OT traffic) under key 0.
pub fn bytes_per_tag(writes: &[(usize, Option<[u8; 5]>)]) -> BTreeMap<u8, usize> {
    let mut tally = BTreeMap::new();
    let mut i = 0;
    while i < writes.len() {
        if let (Some(h), Some(&(len, _))) = (writes[i].1, writes.get(i + 1)) {
            if u32::from_le_bytes(h[1..].try_into().unwrap()) as usize == len {
                *tally.entry(h[0]).or_default() += len;
                i += 2;
                continue;
            }
        }
        *tally.entry(0).or_default() += writes[i].0;
        i += 1;
    }
    tally
}

impl Channel for Tap {
    fn send(&mut self, data: &[u8]) -> Result<(), NetError> {
        if data.len() > self.budget {
            self.inner.close();
            return Err(NetError::Disconnected);
        }
        self.budget -= data.len();
        let header = <[u8; 5]>::try_from(data).ok();
        self.writes.push((data.len(), header));
        if let Some(h) = header {
            self.headers.push(h);
        }
        if std::mem::take(&mut self.corrupt_next) {
            return self.inner.send(&vec![0xff; data.len()]);
        }
        if let (Some(h), Some(tag)) = (header, self.corrupt) {
            self.corrupt_next = h[0] == tag && u32::from_le_bytes(h[1..].try_into().unwrap()) != 32;
        }
        self.inner.send(data)
    }
    fn recv(&mut self, buf: &mut [u8]) -> Result<(), NetError> {
        self.inner.recv(buf)
    }
    fn flush(&mut self) -> Result<(), NetError> {
        self.inner.flush()
    }
    fn bytes_sent(&self) -> u64 {
        self.inner.bytes_sent()
    }
    fn bytes_received(&self) -> u64 {
        self.inner.bytes_received()
    }
}

/// Runs a session's garbler on this thread and its evaluator on another.
pub fn run<C: Channel + Send + 'static, RG: Send, RE: Send>(
    (gch, ech): (C, C),
    g: impl FnOnce(&mut GarblerSession<C>) -> Result<RG, String> + Send,
    e: impl FnOnce(&mut EvaluatorSession<C>) -> Result<RE, String> + Send,
) -> (Result<RG, String>, Result<RE, String>) {
    let cfg = SessionConfig::default();
    thread::scope(|s| {
        let ev = s.spawn(|| {
            let mut session = EvaluatorSession::setup(ech, &cfg).map_err(|e| e.to_string())?;
            e(&mut session)
        });
        let ga = GarblerSession::setup(gch, &cfg)
            .map_err(|e| e.to_string())
            .and_then(|mut session| g(&mut session));
        (ga, ev.join().unwrap())
    })
}

/// One program run of the garbler, finished.
pub fn garble<C: Channel + 'static, R>(
    s: &mut GarblerSession<C>,
    name: &str,
    f: impl FnOnce(&Ctx<ProgramGarbler<'_, C>>) -> Result<R, ProgramError>,
) -> Result<R, String> {
    let ctx = Ctx::new(s.program(name, Audience::BOTH).map_err(|e| e.to_string())?);
    let out = f(&ctx).map_err(|e| e.to_string())?;
    let backend = ctx.into_inner().expect("values dropped");
    backend.finish().map_err(|e| e.to_string())?;
    Ok(out)
}

/// One program run of the evaluator, finished.
pub fn evaluate<C: Channel, R>(
    s: &mut EvaluatorSession<C>,
    name: &str,
    f: impl FnOnce(&Ctx<ProgramEvaluator<'_, C>>) -> Result<R, ProgramError>,
) -> Result<R, String> {
    let ctx = Ctx::new(s.program(name, Audience::BOTH).map_err(|e| e.to_string())?);
    let out = f(&ctx).map_err(|e| e.to_string())?;
    let backend = ctx.into_inner().expect("values dropped");
    backend.finish().map_err(|e| e.to_string())?;
    Ok(out)
}
