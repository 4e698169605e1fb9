//! Writing a stream file run by run, in bounded memory: for streams too long to hold as a
//! [`CompiledCircuit`](crate::CompiledCircuit) (a chain of 10^7 ANDs built by a program).
//! The file is the one [`super::write_stream`] would write for the same header and runs.

use std::io::{self, Seek, SeekFrom, Write};

use super::{encode_header, END_MARKER, GATE_BYTES, IO_BUFFER};
use crate::instr::{Gate, RunKind};
use crate::stream::StreamHasher;
use crate::{StreamHeader, MAX_AND_RUN};

/// A stream file being written: the header first (its stream digest patched in by
/// [`StreamWriter::finish`]), then runs as they come. Holds one I/O buffer.
pub struct StreamWriter<W: Write + Seek> {
    out: W,
    header: StreamHeader,
    hasher: StreamHasher,
    buf: Vec<u8>,
    /// Where the header starts in `out`.
    start: u64,
    gates: u64,
    ands: u64,
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

impl<W: Write + Seek> StreamWriter<W> {
    /// Starts a stream with `header`'s interface and slots, `digest` as its circuit digest
    /// and exactly `num_gates` gates of which `num_ands` ANDs to come.
    pub fn new(
        mut out: W,
        mut header: StreamHeader,
        digest: [u8; 32],
        num_gates: u64,
        num_ands: u64,
    ) -> io::Result<StreamWriter<W>> {
        if num_ands > num_gates {
            return Err(invalid(format!("{num_ands} ANDs among {num_gates} gates")));
        }
        // As the reader demands: every slot but NOT_SLOT holds an input bit or a gate output.
        if header.num_slots as u64 > 1 + header.input_slots.len() as u64 + num_gates {
            return Err(invalid(format!(
                "{} slots for {} input bits and {num_gates} gates",
                header.num_slots,
                header.input_slots.len()
            )));
        }
        header.digest = digest;
        header.num_gates = num_gates;
        header.num_ands = num_ands;
        header.check().map_err(invalid)?;
        let start = out.stream_position()?;
        let mut head = encode_header(&header);
        let checksum = blake3::hash(&head);
        head.extend_from_slice(checksum.as_bytes());
        out.write_all(&head)?;
        Ok(StreamWriter {
            out,
            hasher: StreamHasher::new(&header),
            header,
            buf: Vec::with_capacity(IO_BUFFER + GATE_BYTES),
            start,
            gates: 0,
            ands: 0,
        })
    }

    /// Appends a run of `gates` of `kind` (not [`RunKind::Parallel`]), checked as a reader
    /// checks it: slots in range, AND runs of 1..=[`MAX_AND_RUN`] gates, constants 0 or 1,
    /// no more gates than announced.
    pub fn run(&mut self, kind: RunKind, gates: &[Gate]) -> io::Result<()> {
        let n = self.header.num_slots;
        match kind {
            RunKind::Parallel => return Err(invalid("parallel blocks cannot be written run by run".into())),
            RunKind::And if !(1..=MAX_AND_RUN).contains(&gates.len()) => {
                return Err(invalid(format!("an AND run of {} gates", gates.len())))
            }
            _ => {}
        }
        let len = u32::try_from(gates.len()).map_err(|_| invalid("a run of more than 2^32 gates".into()))?;
        for g in gates {
            let operands_ok = match kind {
                RunKind::Const => g.a <= 1,
                _ => g.a < n && g.b < n,
            };
            if !operands_ok || g.out >= n {
                return Err(invalid(format!(
                    "gate {g:?} of a {kind:?} run is out of range ({n} slots)"
                )));
            }
        }
        let total = self.gates + len as u64;
        let ands = self.ands + if kind == RunKind::And { len as u64 } else { 0 };
        if total > self.header.num_gates || ands > self.header.num_ands {
            return Err(invalid(format!(
                "more than the announced {} gates ({} ANDs)",
                self.header.num_gates, self.header.num_ands
            )));
        }
        (self.gates, self.ands) = (total, ands);
        let at = self.buf.len();
        self.buf.push(kind as u8);
        self.buf.extend_from_slice(&len.to_le_bytes());
        self.hasher.encoded(&self.buf[at..]);
        for g in gates {
            let at = self.buf.len();
            for v in [g.a, g.b, g.out] {
                self.buf.extend_from_slice(&v.to_le_bytes());
            }
            self.hasher.encoded(&self.buf[at..]);
            if self.buf.len() >= IO_BUFFER {
                self.out.write_all(&self.buf)?;
                self.buf.clear();
            }
        }
        Ok(())
    }

    /// Ends the stream: checks that every announced gate came, writes the end marker and
    /// the final header (with the stream digest), and gives the output back.
    pub fn finish(mut self) -> io::Result<W> {
        if self.gates != self.header.num_gates || self.ands != self.header.num_ands {
            return Err(invalid(format!(
                "{} gates ({} ANDs) written, {} ({}) announced",
                self.gates, self.ands, self.header.num_gates, self.header.num_ands
            )));
        }
        self.buf.push(END_MARKER);
        self.out.write_all(&self.buf)?;
        self.header.stream_digest = self.hasher.finish();
        let mut head = encode_header(&self.header);
        let checksum = blake3::hash(&head);
        head.extend_from_slice(checksum.as_bytes());
        let end = self.out.stream_position()?;
        self.out.seek(SeekFrom::Start(self.start))?;
        self.out.write_all(&head)?;
        self.out.seek(SeekFrom::Start(end))?;
        self.out.flush()?;
        Ok(self.out)
    }

    /// The header as it will be once finished (stream digest aside).
    pub fn header(&self) -> &StreamHeader {
        &self.header
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{compile, write_stream};
    use mixgc_circuit::Circuit;
    use rand::SeedableRng;
    use std::io::Cursor;

    /// The runs of a compiled circuit written run by run give the very file
    /// [`write_stream`] writes.
    #[test]
    fn a_stream_written_run_by_run_is_the_same_file() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        for gates in [0, 1, 50, 500] {
            let c = Circuit::random(&mut rng, &[5, 3], gates, 6);
            let compiled = compile(&c);
            let mut want = Vec::new();
            write_stream(&compiled, &mut want).unwrap();
            let h = compiled.header();
            let header = StreamHeader::new(
                h.input_widths().to_vec(),
                h.output_widths().to_vec(),
                h.num_slots(),
                h.input_slots().to_vec(),
                h.output_slots().to_vec(),
            )
            .unwrap();
            let mut w = StreamWriter::new(
                Cursor::new(Vec::new()),
                header,
                h.digest(),
                h.num_gates(),
                h.num_ands(),
            )
            .unwrap();
            let mut next = 0;
            for run in compiled.runs() {
                let k = run.kind.gates_in(run.len);
                w.run(run.kind, &compiled.gates()[next..next + k]).unwrap();
                next += k;
            }
            assert_eq!(w.finish().unwrap().into_inner(), want, "{gates} gates");
        }
    }

    #[test]
    fn bad_runs_and_wrong_counts_are_errors() {
        let header = StreamHeader::new(vec![2], vec![1], 4, vec![1, 2], vec![3]).unwrap();
        let too_few = StreamWriter::new(Cursor::new(Vec::new()), header.clone(), [0; 32], 0, 0);
        assert!(too_few
            .err()
            .unwrap()
            .to_string()
            .contains("4 slots for 2 input bits and 0 gates"));
        let mut w = StreamWriter::new(Cursor::new(Vec::new()), header, [0; 32], 2, 1).unwrap();
        let and = Gate { a: 1, b: 2, out: 3 };
        assert!(w.run(RunKind::And, &[Gate { out: 4, ..and }]).is_err());
        assert!(w.run(RunKind::Const, &[Gate { a: 2, b: 0, out: 3 }]).is_err());
        assert!(w.run(RunKind::Parallel, &[]).is_err());
        assert!(
            w.run(RunKind::And, &[and, and]).is_err(),
            "more ANDs than announced"
        );
        w.run(RunKind::And, &[and]).unwrap();
        let e = w.finish().unwrap_err();
        assert!(
            e.to_string()
                .contains("1 gates (1 ANDs) written, 2 (1) announced"),
            "{e}"
        );
    }
}
