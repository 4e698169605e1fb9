//! The Bristol writers.
//!
//! Both formats require the inputs to be the first wires and the outputs to be the last
//! wires, in order and distinct. The IR has the first property but not the second: an
//! output may be an input wire, the same wire twice, or any gate's output. So the writers
//! renumber: a gate whose output is an output bit (its first occurrence) writes the final
//! wire of that bit directly; every other gate output gets the next free wire after the
//! inputs; each output bit that is an input wire or a repeat gets an `EQW` copy at the
//! end. The written circuit evaluates exactly like the original.

use std::io::{self, BufWriter, Write};

use crate::writers::Writers;
use crate::{Circuit, GateKind};

/// Writes `c` in Bristol Fashion (see the [module docs](super)). Gates are written as
/// `XOR`, `AND`, `INV`, `EQ` and `EQW` lines (no `MAND`). Wires are renumbered as the
/// format requires, adding `EQW` copies where needed.
///
/// Fails with [`io::ErrorKind::InvalidInput`] if `c` does not [validate](Circuit::validate).
pub fn write_fashion<W: Write>(c: &Circuit, w: W) -> io::Result<()> {
    let r = Renumbered::new(c)?;
    let mut w = BufWriter::new(w);
    writeln!(w, "{} {}", r.num_gates(), r.num_wires)?;
    write_counted(&mut w, &c.input_widths)?;
    write_counted(&mut w, &c.output_widths)?;
    writeln!(w)?;
    r.write_gates(&mut w)?;
    w.flush()
}

/// Writes `c` in the legacy Bristol format: header `n1 n2 n3`, so `c` must have one or
/// two input values (one is written with `n2 = 0`; reading it back gives a second,
/// zero-width input) and exactly one output value. Otherwise fails with
/// [`io::ErrorKind::InvalidInput`] saying why.
///
/// Wires are renumbered as in [`write_fashion`]. `Copy` and `Const` gates (and the
/// copies the renumbering adds) are written as `EQW` and `EQ` lines, which this crate
/// reads in both formats but some older legacy tools do not.
pub fn write_legacy<W: Write>(c: &Circuit, w: W) -> io::Result<()> {
    let (n1, n2) = match c.input_widths[..] {
        [n1] => (n1, 0),
        [n1, n2] => (n1, n2),
        ref other => {
            return Err(invalid(format!(
                "the legacy Bristol format has one or two input values, this circuit has {}",
                other.len()
            )))
        }
    };
    let [n3] = c.output_widths[..] else {
        return Err(invalid(format!(
            "the legacy Bristol format has exactly one output value, this circuit has {}",
            c.output_widths.len()
        )));
    };
    let r = Renumbered::new(c)?;
    let mut w = BufWriter::new(w);
    writeln!(w, "{} {}", r.num_gates(), r.num_wires)?;
    writeln!(w, "{n1} {n2} {n3}")?;
    writeln!(w)?;
    r.write_gates(&mut w)?;
    w.flush()
}

fn invalid(msg: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, msg)
}

/// Writes a Fashion `n w_1 .. w_n` line.
fn write_counted<W: Write>(w: &mut W, widths: &[u32]) -> io::Result<()> {
    write!(w, "{}", widths.len())?;
    for x in widths {
        write!(w, " {x}")?;
    }
    writeln!(w)
}

/// A circuit's gates with wires renumbered so that the outputs are the last wires.
struct Renumbered<'c> {
    c: &'c Circuit,
    writers: Writers,
    num_wires: u32,
    /// New output wire of each gate of `c`.
    new_out: Vec<u32>,
    /// `(from, to)` copies appended after the gates, new wire ids.
    copies: Vec<(u32, u32)>,
}

impl<'c> Renumbered<'c> {
    fn new(c: &'c Circuit) -> io::Result<Self> {
        c.validate()
            .map_err(|e| invalid(format!("cannot write an invalid circuit: {e}")))?;
        let base = c.total_input_bits();
        let n = c.num_gates();
        let n_out = c.output_wires.len();
        let writers = Writers::build(c, base);

        // Claim, for each output bit, the gate writing it (first occurrence only).
        const UNCLAIMED: u32 = u32::MAX;
        let mut claim = vec![UNCLAIMED; n];
        let mut needs_copy = Vec::new();
        for (k, &wire) in c.output_wires.iter().enumerate() {
            match writers.get(wire) {
                Some(g) if claim[g] == UNCLAIMED => claim[g] = k as u32,
                _ => needs_copy.push(k),
            }
        }

        let internal = n - (n_out - needs_copy.len());
        let total = u64::from(base) + internal as u64 + n_out as u64;
        let num_wires = u32::try_from(total)
            .map_err(|_| invalid(format!("the written circuit would need {total} wires")))?;
        let out_base = num_wires - n_out as u32;

        let mut next = base;
        let new_out: Vec<u32> = claim
            .iter()
            .map(|&k| {
                if k == UNCLAIMED {
                    next += 1;
                    next - 1
                } else {
                    out_base + k
                }
            })
            .collect();
        let mut r = Renumbered {
            c,
            writers,
            num_wires,
            new_out,
            copies: Vec::with_capacity(needs_copy.len()),
        };
        for k in needs_copy {
            let from = r.rename(c.output_wires[k]);
            r.copies.push((from, out_base + k as u32));
        }
        Ok(r)
    }

    fn num_gates(&self) -> usize {
        self.c.num_gates() + self.copies.len()
    }

    /// The new id of a wire the circuit reads: a gate output is renamed, an input wire
    /// keeps its id (validation rules out anything else).
    fn rename(&self, wire: u32) -> u32 {
        self.writers.get(wire).map_or(wire, |g| self.new_out[g])
    }

    fn write_gates<W: Write>(&self, w: &mut W) -> io::Result<()> {
        let c = self.c;
        for g in 0..c.num_gates() {
            let a = self.rename(c.a[g]);
            let b = self.rename(c.b[g]);
            let o = self.new_out[g];
            match c.kind[g] {
                GateKind::Xor => writeln!(w, "2 1 {a} {b} {o} XOR")?,
                GateKind::And => writeln!(w, "2 1 {a} {b} {o} AND")?,
                GateKind::Not => writeln!(w, "1 1 {a} {o} INV")?,
                GateKind::Copy => writeln!(w, "1 1 {a} {o} EQW")?,
                GateKind::Const => writeln!(w, "1 1 {} {o} EQ", c.a[g])?,
            }
        }
        for &(from, to) in &self.copies {
            writeln!(w, "1 1 {from} {to} EQW")?;
        }
        Ok(())
    }
}
