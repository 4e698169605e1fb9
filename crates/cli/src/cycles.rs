//! `mixgc run --cycles C` on a sequential netlist (TinyGarble's sequential garbling, thesis
//! §3.3.1): the combinational core is garbled once a cycle, gate by gate on the program
//! session, and the flip-flops pass their labels from one cycle to the next
//! (`mixgc_program::gadgets::sequential`). Memory is the core's wire labels, independent of
//! C; outputs stream to stdout as they are revealed.

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use mixgc_circuit::sequential::{InputMode, Sequential};
use mixgc_circuit::values;
use mixgc_compile::LABEL_BYTES;
use mixgc_program::gadgets::sequential::{party_input, run_cycles};
use mixgc_program::{Backend, ProgramError};
use mixgc_session::{stop_at_failure, Audience, EvaluatorSession, GarblerSession, PartyId, PartyReport};

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
    fn at(&self, cycle: u64) -> Vec<bool> {
        match self {
            PortValues::Held(v) => v.clone(),
            PortValues::PerCycle(vs) => vs[cycle as usize].clone(),
        }
    }
}

/// Parses `--input` for the ports `me` owns, in port order: a hex value held for every
/// cycle, or `V0:V1:…:V(C−1)`, one per cycle (not for a `once` port). Indexed by port;
/// `None` for the peer's ports.
pub fn parse_cycle_inputs(
    net: &Sequential,
    me: PartyId,
    arg: Option<&str>,
    cycles: u64,
) -> Result<Vec<Option<PortValues>>, CliError> {
    let owned: Vec<usize> = (0..net.inputs.len())
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
        } else if p.mode == InputMode::Once {
            return Err(format!(
                "--input for port `{}`: it is read once (at cycle 0), so it takes one value, not {parts}",
                p.name
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

/// What the two parties must agree on: the netlist's digest, the cycles and when outputs
/// are revealed (`key=value` words, so a mismatch names the differing one on both sides).
pub fn run_description(net: &Sequential, cycles: u64, every_cycle: bool) -> String {
    let digest: String = net.digest()[..12].iter().map(|b| format!("{b:02x}")).collect();
    format!("sequential netlist={digest} cycles={cycles} reveal-every-cycle={every_cycle}")
}

/// Memory of a sequential run besides the frame buffer: the core's wire labels (one slot
/// each while a cycle runs) and the state's.
pub fn estimate(net: &Sequential) -> Estimate {
    Estimate::new(1).with(
        "core wire labels",
        (u64::from(net.core.num_wires) + net.flops.len() as u64) * 2 * LABEL_BYTES,
    )
}

/// Reveals `outs` to `reveal` and writes the values this party learns, a hex line each; a
/// failed write is kept in `error` (the protocol goes on, so the peer is not left waiting).
fn reveal_values<B: Backend>(
    b: &mut B,
    outs: &[Vec<B::Wire>],
    reveal: Audience,
    out: &mut impl Write,
    error: &mut Option<std::io::Error>,
) -> Result<(), ProgramError> {
    for o in outs {
        if let Some(bits) = b.output_to(o, reveal)? {
            if let Err(e) = writeln!(out, "{}", values::to_hex(&bits)) {
                error.get_or_insert(e);
            }
        }
    }
    Ok(())
}

/// What [`run`] needs beyond the channel.
pub struct CycleRun<'a> {
    pub net: &'a Sequential,
    pub role: PartyId,
    pub cycles: u64,
    pub every_cycle: bool,
    pub reveal: Audience,
    pub values: Vec<Option<PortValues>>,
}

/// Runs the cycles on an open channel, printing the revealed outputs on stdout: after the
/// last cycle one hex line per output port, or with `every_cycle` those lines for every
/// cycle in turn.
pub fn run<C: mixgc_net::Channel + 'static>(
    ch: C,
    cfg: &mixgc_session::SessionConfig,
    r: CycleRun<'_>,
) -> Result<PartyReport, CliError> {
    let start = Instant::now();
    let description = run_description(r.net, r.cycles, r.every_cycle);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut write_error: Option<std::io::Error> = None;
    let (net, cycles, every, reveal, values) = (r.net, r.cycles, r.every_cycle, r.reveal, &r.values);
    macro_rules! run_on {
        ($session:ty) => {{
            let mut s = <$session>::setup(ch, cfg)?;
            let mut backend = s.program(&description, reveal)?;
            let ands = stop_at_failure(|| -> Result<u64, CliError> {
                let value = |port: usize, t: u64| -> Result<Vec<bool>, ProgramError> {
                    Ok(values[port].as_ref().expect("own port has a value").at(t))
                };
                let input = party_input(net, r.role, value);
                run_cycles(&mut backend, net, cycles, input, |b, t, outs| {
                    if every || t + 1 == cycles {
                        reveal_values(b, &outs, reveal, &mut out, &mut write_error)?;
                    }
                    Ok(())
                })?;
                Ok(backend.finish()?)
            })?;
            let ch = s.channel();
            (ands, ch.bytes_sent(), ch.bytes_received(), s.base_ot_time())
        }};
    }
    let (ands, sent, received, base_ot) = if r.role == PartyId::GARBLER {
        run_on!(GarblerSession<C>)
    } else {
        run_on!(EvaluatorSession<C>)
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
        let g = parse_cycle_inputs(&n, PartyId::GARBLER, Some("1:2:3,ff"), 3).unwrap();
        assert!(matches!(&g[0], Some(PortValues::PerCycle(v)) if v.len() == 3));
        assert!(matches!(&g[1], Some(PortValues::Held(_))));
        assert!(g[2].is_none());
        let err = |arg, c| {
            parse_cycle_inputs(&n, PartyId::GARBLER, Some(arg), c)
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
