//! Compiled streams on disk: compile once, then run the stream many times, reading it in
//! bounded chunks (HAAC §4: the compiler's output is an instruction stream the engine
//! reads as it goes; TinyGarble2 §3.3.2: memory bounded by what is in flight, never the
//! whole circuit). The format is specified in `docs/compiled-stream.md`.
//!
//! A reader holds the header, a read buffer and one chunk of at most [`CHUNK_GATES`]
//! gates. Every chunk goes through [`Chunk::new`], so a corrupt file can never make an
//! engine touch a slot out of range; the stream digest, recomputed while reading, catches
//! any other alteration when the end marker is reached.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use mixgc_core::{Reporter, Unit};

use crate::instr::{Gate, Run, RunKind};
use crate::stream::{Chunk, CompiledCircuit, GateStream, StreamError, StreamHasher};
use crate::{StreamHeader, MAX_AND_RUN};

/// The first bytes of every compiled-stream file.
pub const MAGIC: [u8; 8] = *b"MIXGCCS\0";

/// The format version this build writes and reads.
pub const FORMAT_VERSION: u32 = 1;

/// Most gates (and most runs) in one chunk a [`StreamFile`] hands out: 768 KiB of gates.
pub const CHUNK_GATES: usize = 1 << 16;

/// The byte that follows the last run.
const END_MARKER: u8 = 0xFF;

/// Bytes of one encoded gate (`a`, `b`, `out`).
const GATE_BYTES: usize = 12;

/// Capacity of a reader's and a writer's buffer.
const IO_BUFFER: usize = 64 << 10;

/// Gates decoded per read from the buffer.
const SCRATCH_GATES: usize = 4096;

/// Body bytes handed to BLAKE3 at once: small updates would keep it off its SIMD path
/// (the digest then costs more than reading the file).
const HASH_BATCH: usize = 16 << 10;

/// Writes `c` in the compiled-stream format (magic, version, header, header checksum,
/// runs with their gates, end marker).
pub fn write_stream(c: &CompiledCircuit, w: &mut impl Write) -> io::Result<()> {
    write_stream_reporting(c, w, &Reporter::none())
}

/// [`write_stream`], reporting the gates written to `progress` (one phase, the total known).
pub fn write_stream_reporting(
    c: &CompiledCircuit,
    w: &mut impl Write,
    progress: &Reporter,
) -> io::Result<()> {
    progress.begin("writing the stream", Some(c.num_gates()), Unit::Gates);
    let mut head = encode_header(c.header());
    let checksum = blake3::hash(&head);
    head.extend_from_slice(checksum.as_bytes());
    w.write_all(&head)?;
    let mut buf = Vec::with_capacity(IO_BUFFER + GATE_BYTES);
    let gates = c.gates();
    let mut next = 0;
    for run in c.runs() {
        buf.push(run.kind as u8);
        buf.extend_from_slice(&run.len.to_le_bytes());
        let n = run.kind.gates_in(run.len);
        for g in &gates[next..next + n] {
            for v in [g.a, g.b, g.out] {
                buf.extend_from_slice(&v.to_le_bytes());
            }
            if buf.len() >= IO_BUFFER {
                w.write_all(&buf)?;
                buf.clear();
            }
        }
        next += n;
        progress.advance(n as u64);
    }
    buf.push(END_MARKER);
    w.write_all(&buf)?;
    progress.end();
    Ok(())
}

/// Writes `c` to a new file at `path` (replacing any file there).
pub fn save(c: &CompiledCircuit, path: &Path) -> io::Result<()> {
    save_reporting(c, path, &Reporter::none())
}

/// [`save`], reporting the gates written to `progress`.
pub fn save_reporting(c: &CompiledCircuit, path: &Path, progress: &Reporter) -> io::Result<()> {
    let with_path = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let mut w = BufWriter::with_capacity(IO_BUFFER, File::create(path).map_err(with_path)?);
    write_stream_reporting(c, &mut w, progress)
        .and_then(|()| w.flush())
        .map_err(with_path)
}

/// Whether the file at `path` starts with [`MAGIC`] (a compiled stream, not a circuit).
pub fn is_stream_file(path: &Path) -> io::Result<bool> {
    Ok(sniff(path)? == FileKind::Stream)
}

/// What a file is by its first bytes, before any text parsing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// Starts with [`MAGIC`].
    Stream,
    /// Its first bytes differ from [`MAGIC`] in one or two places: a damaged stream file.
    DamagedStream,
    /// Anything else (a Bristol circuit, or not a circuit at all).
    Other,
}

/// Reads the first bytes of `path` and says what the file is.
pub fn sniff(path: &Path) -> io::Result<FileKind> {
    let mut start = Vec::with_capacity(MAGIC.len());
    File::open(path)?
        .take(MAGIC.len() as u64)
        .read_to_end(&mut start)?;
    let differences = MAGIC.iter().zip(&start).filter(|(a, b)| a != b).count();
    Ok(match (start.len() == MAGIC.len(), differences) {
        (true, 0) => FileKind::Stream,
        (true, 1..=2) => FileKind::DamagedStream,
        _ => FileKind::Other,
    })
}

/// Recomputes the header checksum of a stream file image in place, as anyone can (it is
/// unkeyed): what a forger does, and what lets a fuzzer reach the body reader. Returns
/// false when the image is too short to hold a header.
#[doc(hidden)]
pub fn reseal_header(image: &mut [u8]) -> bool {
    let mut at = MAGIC.len() + 4;
    let skip = |at: &mut usize, n: usize| {
        *at = at.checked_add(n).filter(|&end| end <= image.len())?;
        Some(())
    };
    let list = |at: &mut usize| -> Option<()> {
        let len = u64::from_le_bytes(image.get(*at..*at + 8)?.try_into().ok()?);
        skip(at, 8)?;
        skip(at, usize::try_from(len).ok()?.checked_mul(4)?)
    };
    let end = (|| {
        list(&mut at)?; // input widths
        list(&mut at)?; // output widths
        at += 32 + 4; // circuit digest, slot count
        list(&mut at)?; // input slots
        list(&mut at)?; // output slots
        Some(at + 8 + 8 + 32) // gate and AND counts, stream digest
    })();
    match end {
        Some(end) if end + 32 <= image.len() => {
            let sum = blake3::hash(&image[..end]);
            image[end..end + 32].copy_from_slice(sum.as_bytes());
            true
        }
        _ => false,
    }
}

/// The header fields in file order, without the checksum.
fn encode_header(h: &StreamHeader) -> Vec<u8> {
    let mut b = Vec::new();
    let list = |b: &mut Vec<u8>, v: &[u32]| {
        b.extend_from_slice(&(v.len() as u64).to_le_bytes());
        v.iter().for_each(|x| b.extend_from_slice(&x.to_le_bytes()));
    };
    b.extend_from_slice(&MAGIC);
    b.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    list(&mut b, &h.input_widths);
    list(&mut b, &h.output_widths);
    b.extend_from_slice(&h.digest);
    b.extend_from_slice(&h.num_slots.to_le_bytes());
    list(&mut b, &h.input_slots);
    list(&mut b, &h.output_slots);
    b.extend_from_slice(&h.num_gates.to_le_bytes());
    b.extend_from_slice(&h.num_ands.to_le_bytes());
    b.extend_from_slice(&h.stream_digest);
    b
}

/// A buffered file with its read position, for error messages that say where.
struct Source {
    input: BufReader<File>,
    name: String,
    pos: u64,
    len: u64,
}

impl Source {
    fn corrupt(&self, at: u64, msg: impl std::fmt::Display) -> StreamError {
        StreamError::Malformed(format!(
            "{}: the compiled-stream file is corrupt at byte {at}: {msg}",
            self.name
        ))
    }

    /// Fills `buf`; the end of the file is a truncation inside `what`.
    fn read(&mut self, buf: &mut [u8], what: &str) -> Result<(), StreamError> {
        match self.input.read_exact(buf) {
            Ok(()) => {
                self.pos += buf.len() as u64;
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Err(StreamError::Malformed(format!(
                "{}: the compiled-stream file is truncated: it ends at byte {} inside {what}",
                self.name, self.len
            ))),
            Err(e) => Err(StreamError::Io(e)),
        }
    }

    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], StreamError> {
        let mut b = [0; N];
        self.read(&mut b, what)?;
        Ok(b)
    }
}

/// Reads the header fields, feeding every byte to the header checksum.
struct HeaderReader<'a> {
    src: &'a mut Source,
    sum: blake3::Hasher,
}

impl HeaderReader<'_> {
    fn array<const N: usize>(&mut self, what: &str) -> Result<[u8; N], StreamError> {
        let b = self.src.array::<N>(what)?;
        self.sum.update(&b);
        Ok(b)
    }

    fn u32(&mut self, what: &str) -> Result<u32, StreamError> {
        self.array(what).map(u32::from_le_bytes)
    }

    fn u64(&mut self, what: &str) -> Result<u64, StreamError> {
        self.array(what).map(u64::from_le_bytes)
    }

    /// A count, then that many `u32`s; a count the rest of the file cannot hold is
    /// refused before anything is allocated.
    fn list(&mut self, what: &str) -> Result<Vec<u32>, StreamError> {
        let at = self.src.pos;
        let n = self.u64(what)?;
        if n > (self.src.len - self.src.pos) / 4 {
            return Err(self.src.corrupt(
                at,
                format!("{n} {what} do not fit in the rest of the file (truncated or corrupt)"),
            ));
        }
        let mut v = Vec::with_capacity(n as usize);
        for _ in 0..n {
            v.push(self.u32(what)?);
        }
        Ok(v)
    }
}

/// A run whose header has been read and whose gates have not all been handed out.
#[derive(Clone, Copy)]
struct Pending {
    kind: RunKind,
    left: u32,
    /// Part of a parallel block.
    in_block: bool,
}

/// Where a pass over the body stands.
struct Pass {
    hasher: StreamHasher,
    /// Body bytes read but not yet hashed (fewer than [`HASH_BATCH`]).
    unhashed: Vec<u8>,
    gates: u64,
    ands: u64,
    /// Runs of the current parallel block whose headers are still to come.
    block_left: u32,
    pending: Option<Pending>,
    /// The end marker has been read and everything checked.
    done: bool,
}

impl Pass {
    fn new(header: &StreamHeader) -> Pass {
        Pass {
            hasher: StreamHasher::new(header),
            unhashed: Vec::with_capacity(HASH_BATCH),
            gates: 0,
            ands: 0,
            block_left: 0,
            pending: None,
            done: false,
        }
    }

    /// Feeds body bytes to the digest, in batches.
    fn hash(&mut self, bytes: &[u8]) {
        if bytes.len() >= HASH_BATCH {
            self.flush_hash();
            self.hasher.encoded(bytes);
        } else {
            self.unhashed.extend_from_slice(bytes);
            if self.unhashed.len() >= HASH_BATCH {
                self.flush_hash();
            }
        }
    }

    fn flush_hash(&mut self) {
        self.hasher.encoded(&self.unhashed);
        self.unhashed.clear();
    }

    /// The digest of everything hashed so far.
    fn digest(&mut self) -> [u8; 32] {
        self.flush_hash();
        self.hasher.finish()
    }
}

/// A compiled-stream file read chunk by chunk as a [`GateStream`]: memory is the header,
/// one chunk and small buffers ([`StreamFile::buffer_bytes`]), never the whole stream.
///
/// Chunks hold whole AND runs and at most [`CHUNK_GATES`] gates; long XOR and constant
/// runs are cut (their gates run in order, so a cut changes nothing), and a parallel block
/// that does not fit is cut into smaller parallel blocks (a part of a set of independent
/// runs is independent). The digest is computed over the file's own runs, so it equals
/// the one [`crate::compile_with`] gives.
pub struct StreamFile {
    header: StreamHeader,
    src: Source,
    body_start: u64,
    chunk_gates: usize,
    pass: Pass,
    chunk: Chunk,
    scratch: Vec<u8>,
}

impl StreamFile {
    /// Opens the file at `path` and checks its header: magic, version, checksum, sizes
    /// and slots.
    pub fn open(path: &Path) -> Result<StreamFile, StreamError> {
        StreamFile::open_chunked(path, CHUNK_GATES)
    }

    /// [`StreamFile::open`] with chunks of at most `chunk_gates` gates (at least two AND
    /// groups' worth).
    pub(crate) fn open_chunked(path: &Path, chunk_gates: usize) -> Result<StreamFile, StreamError> {
        let with_path =
            |e: io::Error| StreamError::Io(io::Error::new(e.kind(), format!("{}: {e}", path.display())));
        let file = File::open(path).map_err(with_path)?;
        let len = file.metadata().map_err(with_path)?.len();
        let mut src = Source {
            input: BufReader::with_capacity(IO_BUFFER, file),
            name: path.display().to_string(),
            pos: 0,
            len,
        };
        let header = read_header(&mut src)?;
        let body_start = src.pos;
        Ok(StreamFile {
            pass: Pass::new(&header),
            header,
            src,
            body_start,
            chunk_gates: chunk_gates.max(2 * MAX_AND_RUN),
            chunk: Chunk::default(),
            scratch: Vec::new(),
        })
    }

    /// Size of the file in bytes.
    pub fn file_len(&self) -> u64 {
        self.src.len
    }

    /// The most memory this reader holds besides the header, in bytes: its read buffer,
    /// one chunk (12 bytes a gate, up to the chunk size or the stream's gates; 8 bytes a
    /// run, up to the chunk size), its decoding scratch and the bytes waiting for the
    /// digest.
    pub fn buffer_bytes(&self) -> u64 {
        let gates = self.header.num_gates.min(self.chunk_gates as u64);
        let runs = self.chunk_gates as u64;
        (IO_BUFFER + SCRATCH_GATES * GATE_BYTES + HASH_BATCH) as u64
            + gates * GATE_BYTES as u64
            + runs * std::mem::size_of::<Run>() as u64
    }

    /// Reads the next record header: a run (becomes pending), a parallel marker (returns
    /// true: a new block starts) or the end marker (checks the whole pass).
    fn read_record(&mut self) -> Result<bool, StreamError> {
        let at = self.src.pos;
        let [code] = self.src.array::<1>("a run header")?;
        if code == END_MARKER {
            self.finish(at)?;
            return Ok(false);
        }
        let kind = RunKind::from_code(code)
            .ok_or_else(|| self.src.corrupt(at, format!("unknown run kind {code}")))?;
        let len_bytes = self.src.array::<4>("a run header")?;
        self.pass.hash(&[code]);
        self.pass.hash(&len_bytes);
        let len = u32::from_le_bytes(len_bytes);
        let p = &mut self.pass;
        match kind {
            RunKind::Parallel if p.block_left > 0 => {
                return Err(self.src.corrupt(at, "a parallel marker inside a parallel block"))
            }
            RunKind::Parallel => {
                p.block_left = len;
                return Ok(true);
            }
            RunKind::And if !(1..=MAX_AND_RUN as u32).contains(&len) => {
                return Err(self.src.corrupt(at, format!("an AND run of {len} gates")))
            }
            RunKind::And => p.ands += len as u64,
            RunKind::Xor | RunKind::Const => {}
        }
        p.gates += len as u64;
        if p.gates > self.header.num_gates || p.ands > self.header.num_ands {
            return Err(self.src.corrupt(
                at,
                format!(
                    "the runs hold more gates than the header's {} ({} ANDs)",
                    self.header.num_gates, self.header.num_ands
                ),
            ));
        }
        let in_block = p.block_left > 0;
        p.block_left -= in_block as u32;
        p.pending = Some(Pending {
            kind,
            left: len,
            in_block,
        });
        Ok(false)
    }

    /// At the end marker (at byte `at`): the counts and the digest must match the header,
    /// and nothing may follow.
    fn finish(&mut self, at: u64) -> Result<(), StreamError> {
        let digest = self.pass.digest();
        let (p, h) = (&self.pass, &self.header);
        if p.block_left > 0 {
            return Err(self.src.corrupt(at, "the stream ends inside a parallel block"));
        }
        if p.gates != h.num_gates || p.ands != h.num_ands {
            return Err(self.src.corrupt(
                at,
                format!(
                    "the runs hold {} gates ({} ANDs), the header says {} ({})",
                    p.gates, p.ands, h.num_gates, h.num_ands
                ),
            ));
        }
        if digest != h.stream_digest {
            return Err(self.src.corrupt(
                at,
                "the stream digest does not match the header's (runs or gates were altered)",
            ));
        }
        let mut extra = [0u8; 1];
        if self.src.input.read(&mut extra)? != 0 {
            return Err(self.src.corrupt(at + 1, "bytes after the end marker"));
        }
        self.pass.done = true;
        Ok(())
    }

    /// Appends `n` gates from the file to `out`.
    fn read_gates(&mut self, n: usize, out: &mut Vec<Gate>) -> Result<(), StreamError> {
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut left = n;
        while left > 0 {
            let k = left.min(SCRATCH_GATES);
            scratch.resize(k * GATE_BYTES, 0);
            self.src.read(&mut scratch, "the gates of a run")?;
            self.pass.hash(&scratch);
            out.extend(scratch.chunks_exact(GATE_BYTES).map(|g| {
                let word = |i: usize| u32::from_le_bytes([g[i], g[i + 1], g[i + 2], g[i + 3]]);
                Gate {
                    a: word(0),
                    b: word(4),
                    out: word(8),
                }
            }));
            left -= k;
        }
        self.scratch = scratch;
        Ok(())
    }

    /// The runs and gates of the next chunk (none once the end marker has been read), in
    /// the buffers of the last chunk.
    fn fill(&mut self) -> Result<(Vec<Run>, Vec<Gate>), StreamError> {
        let cap = self.chunk_gates;
        let (mut runs, mut gates) = std::mem::take(&mut self.chunk).into_parts();
        runs.clear();
        gates.clear();
        // The marker of the part of the current parallel block that is in this chunk.
        let mut marker: Option<usize> = None;
        // Room for a marker and a run.
        while runs.len() + 2 <= cap {
            let Some(p) = self.pass.pending else {
                if self.pass.done {
                    break;
                }
                if self.read_record()? {
                    marker = None;
                }
                continue;
            };
            let room = (cap - gates.len()) as u32;
            let take = match p.kind {
                RunKind::And if p.left > room => break,
                RunKind::And => p.left,
                _ => p.left.min(room),
            };
            if take == 0 && p.left > 0 {
                break;
            }
            if p.in_block {
                let m = *marker.get_or_insert_with(|| {
                    runs.push(Run {
                        kind: RunKind::Parallel,
                        len: 0,
                    });
                    runs.len() - 1
                });
                runs[m].len += 1;
            }
            self.read_gates(take as usize, &mut gates)?;
            runs.push(Run {
                kind: p.kind,
                len: take,
            });
            self.pass.pending = (p.left > take).then_some(Pending {
                left: p.left - take,
                ..p
            });
        }
        Ok((runs, gates))
    }
}

/// Reads and checks everything before the body.
fn read_header(src: &mut Source) -> Result<StreamHeader, StreamError> {
    if src.len < MAGIC.len() as u64 || src.array::<8>("the magic bytes")? != MAGIC {
        return Err(StreamError::Malformed(format!(
            "{}: not a mixgc compiled-stream file (it does not start with MIXGCCS)",
            src.name
        )));
    }
    let mut r = HeaderReader {
        src,
        sum: blake3::Hasher::new(),
    };
    r.sum.update(&MAGIC);
    let version = r.u32("the format version")?;
    if version != FORMAT_VERSION {
        return Err(StreamError::Malformed(format!(
            "{}: compiled-stream format version {version}; this build reads version {FORMAT_VERSION} \
             (compile the circuit again with `mixgc compile FILE --out OUT`)",
            r.src.name
        )));
    }
    let mut h = StreamHeader {
        input_widths: r.list("input widths")?,
        output_widths: r.list("output widths")?,
        digest: r.array("the circuit digest")?,
        num_slots: r.u32("the slot count")?,
        input_slots: r.list("input slots")?,
        output_slots: r.list("output slots")?,
        num_gates: r.u64("the gate count")?,
        num_ands: r.u64("the AND count")?,
        stream_digest: [0; 32],
    };
    h.stream_digest = r.array("the stream digest")?;
    let sum = *r.sum.finalize().as_bytes();
    let at = r.src.pos;
    if r.src.array::<32>("the header checksum")? != sum {
        return Err(src.corrupt(at, "the header checksum does not match"));
    }
    let at = src.pos;
    h.check().map_err(|e| src.corrupt(at, e))?;
    // Every gate takes GATE_BYTES of the body, so the file's length bounds the gate count
    // (and with it the slots) before anything is sized from the header.
    let most_gates = (src.len - src.pos) / GATE_BYTES as u64;
    if h.num_gates > most_gates {
        return Err(src.corrupt(
            at,
            format!(
                "the header declares {} gates, but the rest of the file holds at most {most_gates} \
                 (truncated or corrupt)",
                h.num_gates
            ),
        ));
    }
    // Every slot but NOT_SLOT holds an input bit or a gate output.
    let most_slots = 1 + h.input_slots.len() as u64 + h.num_gates;
    if h.num_ands > h.num_gates || h.num_slots as u64 > most_slots {
        return Err(src.corrupt(
            at,
            format!(
                "the header's counts are impossible ({} gates, {} ANDs, {} slots)",
                h.num_gates, h.num_ands, h.num_slots
            ),
        ));
    }
    Ok(h)
}

impl GateStream for StreamFile {
    fn header(&self) -> &StreamHeader {
        &self.header
    }

    fn rewind(&mut self) -> Result<(), StreamError> {
        self.src.input.seek(SeekFrom::Start(self.body_start))?;
        self.src.pos = self.body_start;
        self.pass = Pass::new(&self.header);
        Ok(())
    }

    fn next_chunk(&mut self) -> Result<Option<&Chunk>, StreamError> {
        let start = self.src.pos;
        let (runs, gates) = self.fill()?;
        if runs.is_empty() {
            return Ok(None);
        }
        self.chunk = Chunk::new(self.header.num_slots, runs, gates).map_err(|e| {
            self.src
                .corrupt(start, format!("in the chunk up to byte {}: {e}", self.src.pos))
        })?;
        Ok(Some(&self.chunk))
    }
}

mod writer;

pub use writer::StreamWriter;

#[cfg(test)]
mod tests;
