//! The `.haac` file: a [`HaacCircuit`] as the per-GE queue streams HAAC executes (HAAC §3.1.3
//! instruction encoding, §3.1.4 OoRW addresses, §4.3 queue streams). The byte layout is
//! documented in docs/haac.md, "The .haac format".
//!
//! [`read`] checks the magic, version and BLAKE3 checksum, bounds every count by the bytes
//! present before allocating, and rebuilds the program's wire ids from the SWW addresses and
//! OoRW queues, so `read(&write(hc)) == hc`.

use std::path::Path;

use crate::bits::{packed_bytes, BitReader, BitWriter};
use crate::io::{HaacCircuit, HaacIo, IoError};
use crate::isa::{address_bits, in_window, instruction_bits, HaacProgram, Instruction, Op, Schedule};

/// The first 8 bytes of every `.haac` file.
pub const MAGIC: [u8; 8] = *b"MGC-HAAC";
/// The format version this crate writes and reads.
pub const VERSION: u16 = 1;
const CHECKSUM_BYTES: usize = 32;
/// The largest `.haac` file [`read_file`] reads into memory (4 GiB: about 800 million
/// instructions with a 2 MB window).
pub const MAX_FILE_BYTES: u64 = 4 << 30;

/// Why a `.haac` file could not be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FileError {
    #[error("cannot read {path}: {message}")]
    Io { path: String, message: String },
    #[error("{path} is {bytes} bytes, more than the {max} bytes a .haac file may have")]
    TooLarge { path: String, bytes: u64, max: u64 },
    #[error("not a .haac file (it does not start with the magic `MGC-HAAC`)")]
    Magic,
    #[error(".haac format version {0}, but this mixgc reads version {VERSION}")]
    Version(u16),
    #[error("the file is truncated: {what} needs {needed} bytes, {left} left")]
    Truncated {
        what: &'static str,
        needed: u64,
        left: u64,
    },
    #[error("checksum mismatch: the file is corrupted or truncated")]
    Checksum,
    #[error("{what}: a count of {count} needs more bytes than the {left} left in the file")]
    Count {
        what: &'static str,
        count: u64,
        left: u64,
    },
    #[error("{what} is {value}: {why}")]
    Field {
        what: &'static str,
        value: u64,
        why: &'static str,
    },
    #[error("gate engine {ge} has {stored} instructions, but the engine map gives it {mapped}")]
    EngineCount { ge: u16, stored: u64, mapped: u64 },
    #[error("instruction {index}: SWW address {address} names no wire inside the window")]
    Address { index: usize, address: u32 },
    #[error("instruction {index}: its OoRW queue (engine {ge}) is empty")]
    OorwEmpty { index: usize, ge: u16 },
    #[error("instruction {index}: OoRW wire {wire} is not out of range (it must be read from the SWW)")]
    OorwInWindow { index: usize, wire: u32 },
    #[error("gate engine {ge}: {left} OoRW addresses are never read")]
    OorwUnused { ge: u16, left: u64 },
    #[error("{0} bytes after the checksum")]
    Trailing(u64),
    #[error("the program is invalid: {0}")]
    Invalid(#[from] IoError),
}

/// Writes `hc` (a valid circuit) in the `.haac` format.
pub fn write(hc: &HaacCircuit) -> Vec<u8> {
    let p = &hc.program;
    let mut out = Vec::new();
    out.extend_from_slice(&MAGIC);
    put16(&mut out, VERSION);
    put16(&mut out, p.ges);
    put32(&mut out, p.window);
    out.push(schedule_code(p.schedule));
    out.push(address_bits(p.window) as u8);
    put32(&mut out, p.inputs);
    put32(&mut out, p.instructions.len() as u32);
    put32(&mut out, p.outputs.len() as u32);
    put_words(&mut out, &hc.io.input_widths);
    put32(&mut out, hc.io.garbler_values);
    put32(&mut out, hc.io.constants.len() as u32);
    out.extend(hc.io.constants.iter().map(|&v| u8::from(v)));
    put_words(&mut out, &hc.io.output_widths);
    let engine_bits = address_bits(u32::from(p.ges));
    let mut map = BitWriter::default();
    for &e in &p.engine {
        map.put(u32::from(e), engine_bits);
    }
    out.extend(map.finish());
    let abits = address_bits(p.window);
    let mut streams: Vec<(u32, BitWriter, Vec<u32>)> = (0..p.ges)
        .map(|_| (0, BitWriter::default(), Vec::new()))
        .collect();
    for (i, ins) in p.instructions.iter().enumerate() {
        let (count, bits, oorw) = &mut streams[usize::from(p.engine[i])];
        *count += 1;
        let out_wire = p.output_wire(i);
        let mut address = [0u32; 2];
        for (k, w) in ins.reads().enumerate() {
            if in_window(w, out_wire, p.window) {
                address[k] = w % p.window;
            } else {
                oorw.push(w);
            }
        }
        bits.put(ins.op as u32, 2);
        bits.put(address[0], abits);
        bits.put(address[1], abits);
        bits.put(u32::from(ins.live), 1);
    }
    for (count, bits, oorw) in streams {
        put32(&mut out, count);
        out.extend(bits.finish());
        put32(&mut out, oorw.len() as u32);
        for w in oorw {
            put32(&mut out, w);
        }
    }
    for &w in &p.outputs {
        put32(&mut out, w);
    }
    let checksum = blake3::hash(&out);
    out.extend_from_slice(checksum.as_bytes());
    out
}

/// Reads a `.haac` file's bytes (see the module docs for what is checked).
pub fn read(bytes: &[u8]) -> Result<HaacCircuit, FileError> {
    let mut r = Reader { bytes, pos: 0 };
    if r.left() < MAGIC.len() as u64 || r.take(MAGIC.len() as u64, "magic")? != MAGIC {
        return Err(FileError::Magic);
    }
    let version = r.u16("version")?;
    if version != VERSION {
        return Err(FileError::Version(version));
    }
    if r.left() < CHECKSUM_BYTES as u64 {
        return Err(FileError::Truncated {
            what: "the checksum",
            needed: CHECKSUM_BYTES as u64,
            left: r.left(),
        });
    }
    let body_end = bytes.len() - CHECKSUM_BYTES;
    if blake3::hash(&bytes[..body_end]).as_bytes() != &bytes[body_end..] {
        return Err(FileError::Checksum);
    }
    let mut r = Reader {
        bytes: &bytes[..body_end],
        pos: r.pos,
    };
    let hc = read_body(&mut r)?;
    if r.left() > 0 {
        return Err(FileError::Trailing(r.left()));
    }
    hc.validate()?;
    Ok(hc)
}

/// Writes `hc` to `path`.
pub fn write_file(path: &Path, hc: &HaacCircuit) -> Result<(), FileError> {
    std::fs::write(path, write(hc)).map_err(|e| io_error(path, e))
}

/// Reads the `.haac` file at `path`: at most [`MAX_FILE_BYTES`] (a larger file is refused
/// before anything is allocated for it), then [`read`].
pub fn read_file(path: &Path) -> Result<HaacCircuit, FileError> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| io_error(path, e))?;
    let too_large = |bytes: u64| FileError::TooLarge {
        path: path.display().to_string(),
        bytes,
        max: MAX_FILE_BYTES,
    };
    let len = file.metadata().map_err(|e| io_error(path, e))?.len();
    if len > MAX_FILE_BYTES {
        return Err(too_large(len));
    }
    // The length may change while reading: read at most one byte past the bound.
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io_error(path, e))?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    read(&bytes)
}

/// Whether the file at `path` starts with the `.haac` magic (false if it cannot be read).
pub fn is_haac_file(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; MAGIC.len()];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == MAGIC)
}

fn io_error(path: &Path, e: std::io::Error) -> FileError {
    FileError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

fn read_body(r: &mut Reader) -> Result<HaacCircuit, FileError> {
    let ges = r.u16("the GE count")?;
    if ges == 0 {
        return Err(field("the GE count", 0, "at least one gate engine is needed"));
    }
    let window = r.u32("the window")?;
    if window < 4 || !window.is_multiple_of(2) {
        return Err(field(
            "the window",
            window.into(),
            "it must be even and at least 4",
        ));
    }
    let schedule = match r.u8("the schedule")? {
        0 => Schedule::Program,
        1 => Schedule::Segment,
        2 => Schedule::Full,
        s => return Err(field("the schedule", s.into(), "expected 0, 1 or 2")),
    };
    let abits = r.u8("the address width")?;
    if u32::from(abits) != address_bits(window) {
        return Err(field(
            "the address width",
            abits.into(),
            "it does not match the window",
        ));
    }
    let inputs = r.u32("the input wire count")?;
    let count = r.u32("the instruction count")?;
    let engine_bits = address_bits(u32::from(ges));
    // Each instruction takes at least its engine-map bits and its encoded bits.
    let min_bits = u64::from(engine_bits) + u64::from(instruction_bits(window));
    if packed_bytes(u64::from(count), min_bits as u32) > r.left() {
        return Err(FileError::Count {
            what: "the instruction count",
            count: count.into(),
            left: r.left(),
        });
    }
    let output_wires = r.count("the output wire count", 4)?;
    let input_widths = r.words("the input value count")?;
    let garbler_values = r.u32("the garbler's value count")?;
    let constants = r.count("the constant count", 1)?;
    let constants = r
        .take(constants, "the constants")?
        .iter()
        .map(|&v| match v {
            0 | 1 => Ok(v == 1),
            v => Err(field("a constant", v.into(), "expected 0 or 1")),
        })
        .collect::<Result<Vec<bool>, _>>()?;
    let output_widths = r.words("the output value count")?;
    // Each GE's section holds at least its two counts.
    if u64::from(ges) * 8 > r.left() {
        return Err(FileError::Count {
            what: "the GE count",
            count: ges.into(),
            left: r.left(),
        });
    }
    let map_bytes = packed_bytes(count.into(), engine_bits);
    let mut map = BitReader::new(r.take(map_bytes, "the engine map")?);
    let mut engine = Vec::with_capacity(count as usize);
    let mut mapped = vec![0u64; usize::from(ges)];
    for _ in 0..count {
        let e = map.get(engine_bits);
        if e >= u32::from(ges) {
            return Err(field("an engine map entry", e.into(), "it names no gate engine"));
        }
        mapped[e as usize] += 1;
        engine.push(e as u16);
    }
    let ibits = instruction_bits(window);
    let mut streams = Vec::with_capacity(usize::from(ges));
    for (ge, &mapped) in mapped.iter().enumerate() {
        let stored = u64::from(r.u32("a GE's instruction count")?);
        if stored != mapped {
            return Err(FileError::EngineCount {
                ge: ge as u16,
                stored,
                mapped,
            });
        }
        let bits = BitReader::new(r.take(packed_bytes(stored, ibits), "a GE's instruction stream")?);
        let oorw = r.count("a GE's OoRW count", 4)?;
        let oorw = r.take(oorw * 4, "a GE's OoRW addresses")?;
        streams.push((bits, oorw.chunks_exact(4)));
    }
    let mut outputs = Vec::with_capacity(output_wires as usize);
    for _ in 0..output_wires {
        outputs.push(r.u32("an output wire")?);
    }
    let mut instructions = Vec::with_capacity(count as usize);
    for (index, &ge) in engine.iter().enumerate() {
        let (bits, oorw) = &mut streams[usize::from(ge)];
        let op = match bits.get(2) {
            0 => Op::Xor,
            1 => Op::And,
            2 => Op::Not,
            _ => Op::Nop,
        };
        let address = [bits.get(u32::from(abits)), bits.get(u32::from(abits))];
        let live = bits.get(1) == 1;
        let out = u64::from(inputs) + 1 + index as u64;
        let out =
            u32::try_from(out).map_err(|_| field("the input wire count", inputs.into(), "too many wires"))?;
        if let Some(&address) = address
            .get(op.arity()..)
            .and_then(|unused| unused.iter().find(|&&a| a != 0))
        {
            return Err(FileError::Address { index, address });
        }
        let mut wires = [0u32; 2];
        for k in 0..op.arity() {
            wires[k] = if address[k] != 0 {
                window_wire(address[k], out, window).ok_or(FileError::Address {
                    index,
                    address: address[k],
                })?
            } else {
                let word = oorw.next().ok_or(FileError::OorwEmpty { index, ge })?;
                let wire = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
                if in_window(wire, out, window) {
                    return Err(FileError::OorwInWindow { index, wire });
                }
                wire
            };
        }
        instructions.push(Instruction {
            op,
            a: wires[0],
            b: wires[1],
            live,
        });
    }
    for (ge, (_, oorw)) in streams.iter().enumerate() {
        if oorw.len() > 0 {
            return Err(FileError::OorwUnused {
                ge: ge as u16,
                left: oorw.len() as u64,
            });
        }
    }
    Ok(HaacCircuit {
        program: HaacProgram {
            ges,
            window,
            schedule,
            inputs,
            instructions,
            engine,
            outputs,
        },
        io: HaacIo {
            input_widths,
            garbler_values,
            constants,
            output_widths,
        },
    })
}

/// The wire below `out` inside the window at `out` whose SWW address is `address`, if any.
fn window_wire(address: u32, out: u32, window: u32) -> Option<u32> {
    let h = window / 2;
    let lo = (out / h).saturating_sub(1) * h;
    // The one wire ≡ address (mod window) in [lo, lo + window).
    let wire =
        u64::from(lo) + (u64::from(address) + u64::from(window) - u64::from(lo % window)) % u64::from(window);
    let wire = u32::try_from(wire).ok()?;
    (wire < out && in_window(wire, out, window)).then_some(wire)
}

fn schedule_code(s: Schedule) -> u8 {
    match s {
        Schedule::Program => 0,
        Schedule::Segment => 1,
        Schedule::Full => 2,
    }
}

fn field(what: &'static str, value: u64, why: &'static str) -> FileError {
    FileError::Field { what, value, why }
}

fn put16(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// A count, then that many 32-bit words.
fn put_words(out: &mut Vec<u8>, words: &[u32]) {
    put32(out, words.len() as u32);
    for &w in words {
        put32(out, w);
    }
}

/// Reads fields off the body, every length checked against the bytes left.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn left(&self) -> u64 {
        (self.bytes.len() - self.pos) as u64
    }

    fn take(&mut self, n: u64, what: &'static str) -> Result<&'a [u8], FileError> {
        if n > self.left() {
            return Err(FileError::Truncated {
                what,
                needed: n,
                left: self.left(),
            });
        }
        let start = self.pos;
        self.pos += n as usize;
        Ok(&self.bytes[start..self.pos])
    }

    fn u8(&mut self, what: &'static str) -> Result<u8, FileError> {
        Ok(self.take(1, what)?[0])
    }

    fn u16(&mut self, what: &'static str) -> Result<u16, FileError> {
        let b = self.take(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self, what: &'static str) -> Result<u32, FileError> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// A 32-bit count of items of `item_bytes` bytes each, checked against the bytes left.
    fn count(&mut self, what: &'static str, item_bytes: u64) -> Result<u64, FileError> {
        let count = u64::from(self.u32(what)?);
        if count * item_bytes > self.left() {
            return Err(FileError::Count {
                what,
                count,
                left: self.left(),
            });
        }
        Ok(count)
    }

    /// A count, then that many 32-bit words.
    fn words(&mut self, what: &'static str) -> Result<Vec<u32>, FileError> {
        let n = self.count(what, 4)?;
        let mut words = Vec::with_capacity(n as usize);
        for _ in 0..n {
            words.push(self.u32(what)?);
        }
        Ok(words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{compile, CompileOptions};

    /// out = (a & b) ^ ¬c, and a copy of a; window 4 forces OoRW reads.
    fn sample(ges: u16) -> HaacCircuit {
        let text = "4 7\n3 1 1 1\n2 1 1\n\n2 1 0 1 3 AND\n1 1 2 4 INV\n2 1 3 4 5 XOR\n1 1 0 6 EQW\n";
        let c = mixgc_circuit::bristol::parse(text, "sample").unwrap();
        let opts = CompileOptions {
            schedule: Schedule::Full,
            window: 4,
            ges,
        };
        compile(&c, 2, opts).unwrap()
    }

    /// `bytes` with its checksum recomputed (a file a buggy writer could produce).
    fn reseal(mut bytes: Vec<u8>) -> Vec<u8> {
        let end = bytes.len() - CHECKSUM_BYTES;
        let sum = blake3::hash(&bytes[..end]);
        bytes[end..].copy_from_slice(sum.as_bytes());
        bytes
    }

    #[test]
    fn round_trip() {
        for ges in [1, 2, 3, 16] {
            let hc = sample(ges);
            assert!(
                !hc.program.oor_reads().is_empty(),
                "the sample must exercise the OoRW queues"
            );
            assert_eq!(read(&write(&hc)), Ok(hc));
        }
    }

    #[test]
    fn files_round_trip_and_oversized_ones_are_refused_before_reading() {
        let dir = std::env::temp_dir().join(format!("mixgc-haac-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("sample.haac");
        let hc = sample(3);
        write_file(&path, &hc).unwrap();
        assert_eq!(read_file(&path), Ok(hc));
        // A sparse file one byte over the bound: refused from its length, nothing read.
        let big = dir.join("big.haac");
        std::fs::File::create(&big)
            .and_then(|f| f.set_len(MAX_FILE_BYTES + 1))
            .unwrap();
        match read_file(&big) {
            Err(FileError::TooLarge { bytes, max, .. }) => {
                assert_eq!((bytes, max), (MAX_FILE_BYTES + 1, MAX_FILE_BYTES));
            }
            other => panic!("expected TooLarge, got {other:?}"),
        }
        assert!(matches!(
            read_file(&dir.join("missing.haac")),
            Err(FileError::Io { .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The summary's counts equal the program's own, per engine and in total.
    #[test]
    fn summary_counts_match_the_program() {
        for ges in [1, 2, 3] {
            let hc = sample(ges);
            let s = crate::summarize(&hc);
            let p = &hc.program;
            assert_eq!(s.instructions, p.instructions.len() as u64);
            assert_eq!(s.ands + s.xors + s.nots + s.nops, s.instructions);
            assert_eq!((s.ands, s.xors, s.nots), (1, 1, 1));
            assert_eq!(
                s.live_wires,
                p.instructions.iter().filter(|i| i.live).count() as u64
            );
            assert_eq!(s.oorw_reads, p.oor_reads().len() as u64);
            assert_eq!(s.engines.len(), usize::from(ges));
            for (g, e) in s.engines.iter().enumerate() {
                let mine: Vec<usize> = (0..p.instructions.len())
                    .filter(|&i| usize::from(p.engine[i]) == g)
                    .collect();
                assert_eq!(e.instructions, mine.len() as u64);
                let oor = p.oor_reads().iter().filter(|(i, _)| mine.contains(i)).count();
                assert_eq!(e.oorw, oor as u64);
                assert_eq!(
                    e.instruction_bytes,
                    packed_bytes(e.instructions, instruction_bits(4))
                );
            }
            assert_eq!(s.table_bytes, 32);
            assert_eq!((s.window, s.address_bits, s.instruction_bits), (4, 2, 7));
        }
    }

    #[test]
    fn damaged_files_are_named_errors() {
        let good = write(&sample(2));
        assert_eq!(read(b"MIXGCCS1 not haac"), Err(FileError::Magic));
        assert_eq!(read(b"MGC"), Err(FileError::Magic));
        let mut v = good.clone();
        v[8] = 9;
        assert_eq!(read(&v), Err(FileError::Version(9)));
        assert!(matches!(
            read(&good[..20]),
            Err(FileError::Truncated {
                what: "the checksum",
                ..
            })
        ));
        assert_eq!(read(&good[..good.len() - 1]), Err(FileError::Checksum));
        for i in [10, 20, 40, good.len() - 40, good.len() - 1] {
            let mut v = good.clone();
            v[i] ^= 0x10;
            assert_eq!(read(&v), Err(FileError::Checksum), "flipped byte {i}");
        }
        let mut v = good.clone();
        v.splice(good.len() - CHECKSUM_BYTES..good.len() - CHECKSUM_BYTES, [0u8; 3]);
        assert_eq!(read(&reseal(v)), Err(FileError::Trailing(3)));
    }

    #[test]
    fn resealed_bad_fields_are_named_errors() {
        let good = write(&sample(2));
        let patch = |offset: usize, bytes: &[u8]| {
            let mut v = good.clone();
            v[offset..offset + bytes.len()].copy_from_slice(bytes);
            read(&reseal(v))
        };
        assert!(matches!(
            patch(10, &[0, 0]),
            Err(FileError::Field {
                what: "the GE count",
                ..
            })
        ));
        assert!(matches!(
            patch(12, &5u32.to_le_bytes()),
            Err(FileError::Field {
                what: "the window",
                ..
            })
        ));
        assert!(matches!(
            patch(16, &[7]),
            Err(FileError::Field {
                what: "the schedule",
                ..
            })
        ));
        assert!(matches!(
            patch(17, &[9]),
            Err(FileError::Field {
                what: "the address width",
                ..
            })
        ));
        // Huge counts are refused before anything is allocated.
        assert!(matches!(
            patch(22, &u32::MAX.to_le_bytes()),
            Err(FileError::Count {
                what: "the instruction count",
                ..
            })
        ));
        assert!(matches!(
            patch(26, &u32::MAX.to_le_bytes()),
            Err(FileError::Count {
                what: "the output wire count",
                ..
            })
        ));
        assert!(matches!(
            patch(30, &u32::MAX.to_le_bytes()),
            Err(FileError::Count {
                what: "the input value count",
                ..
            })
        ));
        // More input wires than the values and constants account for.
        assert!(patch(18, &9u32.to_le_bytes()).is_err());
        // The garbler owning more values than there are.
        let garbler_at = 30 + 4 + 3 * 4;
        assert!(matches!(
            patch(garbler_at, &7u32.to_le_bytes()),
            Err(FileError::Invalid(IoError::GarblerValues { garbler: 7, .. }))
        ));
        // The engine map (right after the two output widths) sending every instruction to GE 0
        // disagrees with the per-GE counts.
        let map_at = garbler_at + 4 + 4 + 4 + 2 * 4;
        assert!(matches!(
            patch(map_at, &[0]),
            Err(FileError::EngineCount { ge: 0, .. })
        ));
    }

    #[test]
    fn addresses_and_oorw_queues_are_checked() {
        let hc = sample(1);
        let p = &hc.program;
        // With one GE the stream is the program: the first OoRW address serves the first
        // out-of-range read.
        let (oor_index, _) = p.oor_reads()[0];
        let bytes = write(&hc);
        // Dropping the last OoRW address (count − 1, words shifted) leaves a read unserved.
        let total_oor = p.oor_reads().len() as u32;
        let count_at = bytes.len() - CHECKSUM_BYTES - 4 * p.outputs.len() - 4 * total_oor as usize - 4;
        let mut v = bytes.clone();
        v[count_at..count_at + 4].copy_from_slice(&(total_oor - 1).to_le_bytes());
        v.drain(count_at + 4..count_at + 8);
        assert!(matches!(read(&reseal(v)), Err(FileError::OorwEmpty { .. })));
        // One address too many is never read.
        let mut v = bytes.clone();
        v[count_at..count_at + 4].copy_from_slice(&(total_oor + 1).to_le_bytes());
        v.splice(count_at + 4..count_at + 4, 1u32.to_le_bytes());
        assert!(matches!(
            read(&reseal(v)),
            Err(FileError::OorwUnused { ge: 0, left: 1 })
        ));
        // An OoRW address that is in the window.
        let out = p.output_wire(oor_index);
        let inside = (1..out).find(|&w| in_window(w, out, p.window)).unwrap();
        let first_oor = count_at + 4;
        let mut v = bytes;
        v[first_oor..first_oor + 4].copy_from_slice(&inside.to_le_bytes());
        assert_eq!(
            read(&reseal(v)),
            Err(FileError::OorwInWindow {
                index: oor_index,
                wire: inside
            })
        );
    }

    #[test]
    fn window_wires_are_found_from_their_addresses() {
        // window 8 (h = 4): writing wire 9 sees 4..=7 and (not 8) and nothing above 8 yet.
        assert_eq!(window_wire(4, 9, 8), Some(4));
        assert_eq!(window_wire(7, 9, 8), Some(7));
        assert_eq!(
            window_wire(3, 9, 8),
            None,
            "wire 11 is not written yet, wire 3 is out of range"
        );
        assert_eq!(window_wire(1, 2, 8), Some(1));
        // Writing wire 13 (half 3) sees 9..16: address 2 is wire 10, address 5 would be
        // wire 13 itself, not written yet.
        assert_eq!(window_wire(2, 13, 8), Some(10));
        assert_eq!(window_wire(5, 13, 8), None);
    }
}
