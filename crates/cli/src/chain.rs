//! `mixgc run --circuit CHAIN` on a chain file: thesis §3.3.1's composition of different
//! functions, F = f_n(… f_2(f_1(x))) (Eq. 3.2), and of one function repeated (Eq. 3.3),
//! over sequential netlists in two-party computation. Each stage runs for its cycles; the
//! output ports of its last cycle feed the first input ports of the next stage as labels,
//! never decoded; the last stage's outputs are revealed. The stages run on the
//! compiled-stream engine (`mixgc_session::sequential`, `run_chain`: each cycle a compiled
//! stream of the core specialized to the public state), their specs compiled before
//! connecting.
//!
//! The chain file (`docs/hdl.md`):
//!
//! ```text
//! mixgc-chain 1
//! stage FILE CYCLES [xN]   # a sequential netlist (path relative to the chain file), run
//!                          # CYCLES cycles; xN: N such stages in a row (Eq. 3.3)
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

use mixgc_circuit::sequential::{InputMode, Sequential};
use mixgc_circuit::values;
use mixgc_session::{
    Audience, ChainStage, EvaluatorSession, GarblerSession, PartyId, PartyReport, Specializers,
};

use crate::cycles::{checked_cycles, parse_cycle_inputs, PortValues};
use crate::CliError;

/// The first line of a chain file.
pub const MAGIC: &str = "mixgc-chain 1";
/// Most stages a chain may have (repeats included).
pub const MAX_STAGES: u64 = 1 << 16;
/// Largest chain file read.
const MAX_FILE_BYTES: u64 = 1 << 20;

/// One stage: a netlist, its cycles, and how many of its first input ports the previous
/// stage's outputs feed.
pub struct Stage {
    pub path: PathBuf,
    pub net: Rc<Sequential>,
    pub cycles: u64,
    pub fed: usize,
}

/// Whether `path` starts with the chain magic.
pub fn is_chain(path: &Path) -> bool {
    use std::io::Read;
    let mut head = [0u8; 16];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    head[..n].starts_with(b"mixgc-chain")
}

/// Reads a chain file and checks that each stage's outputs fit the next stage's inputs.
pub fn read(path: &Path) -> Result<Vec<Stage>, CliError> {
    let name = path.display().to_string();
    let len = std::fs::metadata(path)
        .map_err(|e| format!("{name}: cannot read: {e}"))?
        .len();
    if len > MAX_FILE_BYTES {
        return Err(
            format!("{name}: {len} bytes, more than a chain file's limit of {MAX_FILE_BYTES}").into(),
        );
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: cannot read: {e}"))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut stages: Vec<Stage> = Vec::new();
    let mut loaded: Vec<(PathBuf, Rc<Sequential>)> = Vec::new();
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split('#').next().unwrap_or("").trim()));
    match lines.find(|(_, l)| !l.is_empty()) {
        Some((_, MAGIC)) => {}
        _ => return Err(format!("{name}: expected `{MAGIC}` as the first line").into()),
    }
    for (line, content) in lines.filter(|(_, l)| !l.is_empty()) {
        let at = |why: String| CliError::from(format!("{name}:{line}: {why}"));
        let f: Vec<&str> = content.split_whitespace().collect();
        if f[0] != "stage" || !(3..=4).contains(&f.len()) {
            return Err(at(format!(
                "expected `stage FILE CYCLES [xN]`, found `{content}`"
            )));
        }
        let cycles: u64 = f[2]
            .parse()
            .map_err(|_| at(format!("`{}` is not a number of cycles", f[2])))?;
        let cycles = checked_cycles(Some(cycles), Path::new(f[1])).map_err(|e| at(e.to_string()))?;
        let repeat: u64 = match f.get(3) {
            None => 1,
            Some(r) => r
                .strip_prefix('x')
                .and_then(|n| n.parse().ok())
                .filter(|&n| n >= 1)
                .ok_or_else(|| at(format!("`{r}`: a repeat is xN with N ≥ 1")))?,
        };
        if stages.len() as u64 + repeat > MAX_STAGES {
            return Err(at(format!("more than {MAX_STAGES} stages")));
        }
        let file = dir.join(f[1]);
        let net = match loaded.iter().find(|(p, _)| *p == file) {
            Some((_, net)) => net.clone(),
            None => {
                let net = Rc::new(Sequential::read_file(&file).map_err(|e| at(e.to_string()))?);
                loaded.push((file.clone(), net.clone()));
                net
            }
        };
        for _ in 0..repeat {
            let fed = stages.last().map_or(0, |s| s.net.outputs.len());
            stages.push(Stage {
                path: file.clone(),
                net: net.clone(),
                cycles,
                fed,
            });
        }
    }
    if stages.is_empty() {
        return Err(format!("{name}: a chain needs at least one `stage` line").into());
    }
    for k in 1..stages.len() {
        check_link(&stages[k - 1], &stages[k], k)?;
    }
    Ok(stages)
}

/// Checks that stage `k − 1`'s output ports fit stage `k`'s first input ports (`k` from 0).
fn check_link(prev: &Stage, next: &Stage, k: usize) -> Result<(), CliError> {
    let (a, b) = (&prev.net, &next.net);
    let stage = |i: usize, s: &Stage| format!("stage {} ({})", i + 1, s.path.display());
    if b.inputs.len() < a.outputs.len() {
        return Err(format!(
            "{} has {} input port(s), but the {} output port(s) of {} feed it",
            stage(k, next),
            b.inputs.len(),
            a.outputs.len(),
            stage(k - 1, prev)
        )
        .into());
    }
    for (o, p) in a.outputs.iter().zip(&b.inputs) {
        if p.mode == InputMode::Init {
            return Err(format!(
                "{}: input port `{}` sets registers (an init port), so {}'s output `{}` cannot feed it",
                stage(k, next),
                p.name,
                stage(k - 1, prev),
                o.name
            )
            .into());
        }
        if o.width != p.width {
            return Err(format!(
                "width mismatch: {} output `{}` is {} bits, but {} input port `{}` it feeds is {} bits",
                stage(k - 1, prev),
                o.name,
                o.width,
                stage(k, next),
                p.name,
                p.width
            )
            .into());
        }
    }
    Ok(())
}

/// Parses `--input` for a chain: one group per stage, separated by `;`, each giving this
/// party's values for the stage's ports that the previous stage does not feed (as for
/// `--cycles`). Indexed by stage, then port.
pub fn parse_inputs(
    stages: &[Stage],
    me: PartyId,
    arg: Option<&str>,
) -> Result<Vec<Vec<Option<PortValues>>>, CliError> {
    let groups: Vec<&str> = match arg {
        None => vec![""; stages.len()],
        Some(s) => s.split(';').collect(),
    };
    if groups.len() != stages.len() {
        return Err(format!(
            "--input for a chain of {} stages needs {} groups separated by `;` (empty for a stage where the {me} owns no port), got {}",
            stages.len(),
            stages.len(),
            groups.len()
        )
        .into());
    }
    stages
        .iter()
        .zip(groups)
        .enumerate()
        .map(|(k, (s, g))| {
            parse_cycle_inputs(&s.net, me, Some(g), s.cycles, s.fed)
                .map_err(|e| CliError::from(format!("stage {} ({}): {e}", k + 1, s.path.display())))
        })
        .collect()
}

/// Compiles every stage's specializations before connecting (public data only).
pub fn prepare(stages: &[Stage]) -> Result<Specializers<'_>, CliError> {
    let mut specs = Specializers::new();
    for s in stages {
        specs.prepare(&s.net, s.cycles)?;
    }
    Ok(specs)
}

/// Runs the chain on an open channel and prints the last stage's outputs (its last
/// cycle's), one hex line per output port, if this party learns them.
pub fn run<'s, C: mixgc_net::Channel + 'static>(
    ch: C,
    cfg: &mixgc_session::SessionConfig,
    role: PartyId,
    reveal: Audience,
    stages: &'s [Stage],
    values: &[Vec<Option<PortValues>>],
    specs: &mut Specializers<'s>,
) -> Result<PartyReport, CliError> {
    let start = Instant::now();
    let chain: Vec<ChainStage<'s>> = stages
        .iter()
        .map(|s| ChainStage {
            net: &s.net,
            cycles: s.cycles,
        })
        .collect();
    let mut lines = Vec::new();
    let mut input =
        |k: usize, port: usize, t: u64| values[k][port].as_ref().expect("own port has a value").at(t);
    let mut output = |ports: Vec<Vec<bool>>| lines.extend(ports.iter().map(|b| values::to_hex(b)));
    let (ands, sent, received, base_ot) = if role == PartyId::GARBLER {
        let mut s = GarblerSession::setup(ch, cfg)?;
        let ands = s.run_chain(&chain, reveal, specs, &mut input, &mut output)?;
        let ch = s.channel();
        (ands, ch.bytes_sent(), ch.bytes_received(), s.base_ot_time())
    } else {
        let mut s = EvaluatorSession::setup(ch, cfg)?;
        let ands = s.run_chain(&chain, reveal, specs, &mut input, &mut output)?;
        let ch = s.channel();
        (ands, ch.bytes_sent(), ch.bytes_received(), s.base_ot_time())
    };
    let mut out = std::io::stdout().lock();
    for l in lines {
        writeln!(out, "{l}")?;
    }
    out.flush()?;
    Ok(PartyReport {
        role,
        outputs: None,
        ands,
        bytes_sent: sent,
        bytes_received: received,
        elapsed: start.elapsed(),
        base_ot,
    })
}
