//! `mixgc run --cycles C` on a sequential netlist (TinyGarble's sequential garbling, thesis
//! §3.3.1): the combinational core, specialized to the public state and compiled, is garbled
//! once a cycle as a compiled stream, and the flip-flops pass their labels from one cycle to
//! the next (`mixgc_session::sequential`). The specializations are compiled before
//! connecting ([`Specializers::prepare`]), as a combinational circuit is. Memory is the
//! core's wire slots and one OT segment's labels, independent of C; outputs are printed as
//! they are revealed.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use mixgc_circuit::sequential::{InputMode, Sequential};
use mixgc_circuit::values;
use mixgc_compile::LABEL_BYTES;
use mixgc_session::sequential::MAX_SEGMENT_OT_BITS;
use mixgc_session::{
    Audience, EvaluatorSession, GarblerSession, PartyId, PartyReport, SequentialRun, Specializers,
};

use crate::memory::Estimate;
use crate::CliError;

/// Most cycles one run may take.
pub const MAX_CYCLES: u64 = 1 << 32;

/// Whether `path` holds a sequential netlist (its first line is the format's magic).
pub fn is_sequential(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 32];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    std::str::from_utf8(&head[..n]).is_ok_and(Sequential::detect)
}

/// Checks `--cycles`: present, at least 1, at most [`MAX_CYCLES`].
pub fn checked_cycles(cycles: Option<u64>, path: &Path) -> Result<u64, CliError> {
    match cycles {
        None => Err(format!(
            "{} is a sequential netlist: give the number of clock cycles with --cycles C",
            path.display()
        )
        .into()),
        Some(0) => Err("--cycles 0: a sequential run needs at least one cycle".into()),
        Some(c) if c > MAX_CYCLES => Err(format!("--cycles {c}: at most {MAX_CYCLES} cycles").into()),
        Some(c) => Ok(c),
    }
}

/// One party's values for its ports: one value held for every cycle, or one per cycle.
#[derive(Debug)]
pub enum PortValues {
    Held(Vec<bool>),
    PerCycle(Vec<Vec<bool>>),
}

impl PortValues {
    pub fn at(&self, cycle: u64) -> Vec<bool> {
        match self {
            PortValues::Held(v) => v.clone(),
            PortValues::PerCycle(vs) => vs[cycle as usize].clone(),
        }
    }
}

/// Parses `--input` for the ports `me` owns, in port order, from port `fed` on (the ports
/// before it are fed by a chain's previous stage): a hex value held for every cycle, or
/// `V0:V1:…:V(C−1)`, one per cycle (not for a `once` or `init` port). Indexed by port;
/// `None` for the peer's ports and the fed ones.
pub fn parse_cycle_inputs(
    net: &Sequential,
    me: PartyId,
    arg: Option<&str>,
    cycles: u64,
    fed: usize,
) -> Result<Vec<Option<PortValues>>, CliError> {
    let owned: Vec<usize> = (fed..net.inputs.len())
        .filter(|&i| net.inputs[i].owner == me)
        .collect();
    let given: Vec<&str> = match arg {
        None | Some("") => Vec::new(),
        Some(s) => s.split(',').map(str::trim).collect(),
    };
    if given.len() != owned.len() {
        let names: Vec<String> = owned
            .iter()
            .map(|&i| format!("{} ({} bits)", net.inputs[i].name, net.inputs[i].width))
            .collect();
        return Err(format!(
            "the {me} owns {} input port(s) ({}) but --input gave {} value(s)",
            owned.len(),
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            },
            given.len()
        )
        .into());
    }
    let mut out: Vec<Option<PortValues>> = (0..net.inputs.len()).map(|_| None).collect();
    for (&port, text) in owned.iter().zip(given) {
        let p = &net.inputs[port];
        let hex = |s: &str| {
            values::parse_hex(s, p.width).map_err(|e| format!("--input for port `{}`: {e}", p.name))
        };
        let parts = text.split(':').count() as u64;
        out[port] = Some(if parts == 1 {
            PortValues::Held(hex(text)?)
        } else if p.mode != InputMode::PerCycle {
            return Err(format!(
                "--input for port `{}`: it is read once (at cycle 0{}), so it takes one value, not {parts}",
                p.name,
                if p.mode == InputMode::Init {
                    ", as registers' initial values"
                } else {
                    ""
                }
            )
            .into());
        } else if parts != cycles {
            return Err(format!(
                "--input for port `{}`: {parts} per-cycle values for --cycles {cycles} (give one \
                 value to hold it, or exactly {cycles} separated by `:`)",
                p.name
            )
            .into());
        } else {
            PortValues::PerCycle(text.split(':').map(hex).collect::<Result<_, _>>()?)
        });
    }
    Ok(out)
}

/// Memory of a sequential run besides the frame buffer: the core's wire labels (at most one
/// slot each while a cycle runs, and its compiled specializations) and one segment's
/// evaluator input labels.
pub fn estimate(net: &Sequential) -> Estimate {
    let evaluator_bits: u64 = net
        .inputs
        .iter()
        .filter(|p| p.owner == PartyId::EVALUATOR && p.mode == InputMode::PerCycle)
        .map(|p| u64::from(p.width))
        .sum();
    let segment = (MAX_SEGMENT_OT_BITS as u64).max(evaluator_bits) * LABEL_BYTES;
    Estimate::new(1)
        .with(
            "core wire labels",
            (u64::from(net.core.num_wires) + net.flops.len() as u64) * 2 * LABEL_BYTES,
        )
        .with("evaluator input labels of one segment", segment)
}

/// What [`run`] needs beyond the channel.
pub struct CycleRun<'a> {
    pub net: &'a Sequential,
    pub role: PartyId,
    pub cycles: u64,
    pub every_cycle: bool,
    pub reveal: Audience,
    pub values: Vec<Option<PortValues>>,
    /// The core's specializations, compiled ahead ([`Specializers::prepare`]) or not.
    pub specs: Specializers<'a>,
}

/// Runs the cycles on an open channel, printing the revealed outputs on stdout: after the
/// last cycle one hex line per output port, or with `every_cycle` those lines for every
/// cycle in turn.
pub fn run<C: mixgc_net::Channel + 'static>(
    ch: C,
    cfg: &mixgc_session::SessionConfig,
    mut r: CycleRun<'_>,
) -> Result<PartyReport, CliError> {
    let start = Instant::now();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut write_error: Option<std::io::Error> = None;
    let run = SequentialRun {
        net: r.net,
        cycles: r.cycles,
        every_cycle: r.every_cycle,
        reveal: r.reveal,
    };
    let values = &r.values;
    let mut input = |port: usize, t: u64| values[port].as_ref().expect("own port has a value").at(t);
    let mut output = |_t: u64, ports: Vec<Vec<bool>>| {
        for bits in ports {
            if let Err(e) = writeln!(out, "{}", values::to_hex(&bits)) {
                write_error.get_or_insert(e);
            }
        }
    };
    let (ands, sent, received, base_ot) = if r.role == PartyId::GARBLER {
        let mut s = GarblerSession::setup(ch, cfg)?;
        let ands = s.run_sequential_prepared(&run, &mut r.specs, &mut input, &mut output)?;
        let ch = s.channel();
        (ands, ch.bytes_sent(), ch.bytes_received(), s.base_ot_time())
    } else {
        let mut s = EvaluatorSession::setup(ch, cfg)?;
        let ands = s.run_sequential_prepared(&run, &mut r.specs, &mut input, &mut output)?;
        let ch = s.channel();
        (ands, ch.bytes_sent(), ch.bytes_received(), s.base_ot_time())
    };
    out.flush().map_err(|e| write_error.take().unwrap_or(e))?;
    if let Some(e) = write_error {
        return Err(e.into());
    }
    Ok(PartyReport {
        role: r.role,
        outputs: None,
        ands,
        bytes_sent: sent,
        bytes_received: received,
        elapsed: start.elapsed(),
        base_ot,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mixgc_circuit::sequential::{SeqInput, SeqOutput};
    use mixgc_circuit::Circuit;

    fn net() -> Sequential {
        let port = |name: &str, owner, mode| SeqInput {
            name: name.into(),
            width: 8,
            owner,
            mode,
        };
        Sequential {
            inputs: vec![
                port("g_a", PartyId::GARBLER, InputMode::PerCycle),
                port("g_k", PartyId::GARBLER, InputMode::Once),
                port("e_b", PartyId::EVALUATOR, InputMode::PerCycle),
            ],
            outputs: vec![SeqOutput {
                name: "y".into(),
                width: 8,
            }],
            flops: Vec::new(),
            core: Circuit::default(),
        }
    }

    #[test]
    fn cycle_inputs_are_checked() {
        let n = net();
        let g = parse_cycle_inputs(&n, PartyId::GARBLER, Some("1:2:3,ff"), 3, 0).unwrap();
        assert!(matches!(&g[0], Some(PortValues::PerCycle(v)) if v.len() == 3));
        assert!(matches!(&g[1], Some(PortValues::Held(_))));
        assert!(g[2].is_none());
        let err = |arg, c| {
            parse_cycle_inputs(&n, PartyId::GARBLER, Some(arg), c, 0)
                .unwrap_err()
                .to_string()
        };
        assert!(err("1:2,ff", 3).contains("2 per-cycle values for --cycles 3"));
        assert!(err("1,1:2:3", 3).contains("`g_k`: it is read once"));
        assert!(err("1", 3).contains("owns 2 input port(s)"));
        assert!(err("1,fff", 3).contains("port `g_k`"));
        assert!(checked_cycles(Some(0), Path::new("x")).is_err());
        assert!(checked_cycles(Some(MAX_CYCLES + 1), Path::new("x")).is_err());
        assert!(checked_cycles(None, Path::new("x"))
            .unwrap_err()
            .to_string()
            .contains("--cycles C"));
    }
}
