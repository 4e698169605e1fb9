//! `mixgc preprocess` and `mixgc online`: preprocessing mode (ABLE §5.2.2). Offline, the
//! circuit is garbled and the OTs run; the evaluator stores the tables. Online, only input
//! labels travel (one round trip) and the evaluator evaluates from its store.

use std::fs::{self, File, OpenOptions};
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use mixgc_net::{Channel, PeerChannel};
use mixgc_session::{
    evaluator_online_claiming, garbler_online_claiming, Audience, EvaluatorPrep, EvaluatorSession,
    GarblerPrep, GarblerSession, Outcome, PartyId, Scheme, SessionError,
};

use crate::load::{parse_inputs, ScheduleOptions};
use crate::party::{default_terms, open, owned_values, role_parser, Connection, SessionOptions};
use crate::progress::Feedback;
use crate::run::parse_reveal;
use crate::summary::{bytes, thousands};
use crate::{write_stdout, CliError};
use mixgc_studies::common::parse_garbling;

#[derive(Args, Debug)]
#[command(
    after_help = "Offline phase of preprocessing mode. The garbler writes its state to --state \
(its secrets, Δ among them, sealed under a key only the evaluator's store holds); the evaluator \
writes the garbled tables and its OT results to --state (authenticated under a key only the \
garbler's state holds). Files are created with mode 0600; neither may exist yet, and a failed run \
leaves none behind. Then run `mixgc online` with the same --state when the inputs are known. Example:\n  mixgc preprocess --circuit circuits/aes_128.txt --role garbler --listen 127.0.0.1:7000 --state g.prep\n  mixgc preprocess --circuit circuits/aes_128.txt --role evaluator --connect 127.0.0.1:7000 --state e.prep"
)]
pub struct PreprocessArgs {
    /// Circuit file.
    #[arg(long, value_name = "FILE")]
    circuit: PathBuf,
    #[arg(long, value_parser = role_parser())]
    role: PartyId,
    #[command(flatten)]
    connection: Connection,
    /// Where to store this party's side of the garbling (must not exist).
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
    /// Who will learn the outputs.
    #[arg(long, default_value = "both", value_parser = parse_reveal)]
    reveal: Audience,
    /// Number of input values the garbler owns (default ⌈n/2⌉).
    #[arg(long, value_name = "K")]
    garbler_values: Option<usize>,
    #[command(flatten)]
    session: SessionOptions,
    #[command(flatten)]
    schedule: ScheduleOptions,
    #[command(flatten)]
    feedback: Feedback,
}

#[derive(Args, Debug)]
#[command(
    after_help = "Online phase of preprocessing mode, on a fresh connection (no base OT): \
the evaluator sends its inputs masked by the preprocessed OT choices, the garbler answers with \
input labels, the evaluator evaluates from its store. A garbling is used once: the evaluator \
consumes its store as its masked inputs leave, and the garbler consumes its state once the \
evaluator's key has opened it and before any label leaves; a second `online` is refused \
(preprocess again). A mistake before that point (bad --input, no peer, another store) leaves \
both files as they were. Reports the online latency (connection to outputs). Example:\n  mixgc online --role garbler --listen 127.0.0.1:7000 --state g.prep --input 000102030405060708090a0b0c0d0e0f\n  mixgc online --circuit circuits/aes_128.txt --role evaluator --connect 127.0.0.1:7000 --state e.prep --input 00112233445566778899aabbccddeeff"
)]
pub struct OnlineArgs {
    /// Circuit file (the evaluator's; the garbler needs only its state).
    #[arg(long, value_name = "FILE")]
    circuit: Option<PathBuf>,
    #[arg(long, value_parser = role_parser())]
    role: PartyId,
    #[command(flatten)]
    connection: Connection,
    /// This party's state from `mixgc preprocess`.
    #[arg(long, value_name = "FILE")]
    state: PathBuf,
    /// This party's input values in circuit order, hex without 0x.
    #[arg(long, value_name = "HEX[,HEX...]")]
    input: Option<String>,
    /// The garbling scheme the state must have been preprocessed with (the state records
    /// it; by default whichever it is): a state of the other scheme is refused.
    #[arg(long, value_name = "SCHEME", value_parser = parse_garbling)]
    garbling: Option<Scheme>,
    /// Seconds to wait for a silent peer (1 to 86400).
    #[arg(long, default_value_t = 30, value_name = "SECS", value_parser = crate::party::parse_timeout)]
    timeout: u64,
    /// Seconds the whole online phase may take once connected, however the peer paces its
    /// bytes (1 to 604800).
    #[arg(long, default_value_t = 86_400, value_name = "SECS", value_parser = crate::party::parse_deadline)]
    deadline: u64,
    #[command(flatten)]
    schedule: ScheduleOptions,
    #[command(flatten)]
    feedback: Feedback,
}

/// Marks the start and end of an evaluator's store: tables, then its state, its length, and
/// this magic again.
const STORE_MAGIC: &[u8; 8] = b"MIXGCST1";

pub fn preprocess(mut args: PreprocessArgs) -> Result<(), CliError> {
    let mut circuit = args.schedule.open(&args.circuit)?;
    let header = circuit.header().clone();
    let terms = default_terms(args.garbler_values, args.reveal);
    terms.owners(header.input_widths())?;
    let mut pending = PendingState::create(&args.state)?;
    let file = &mut pending.file;
    args.connection.quiet = args.feedback.quiet;
    let ch = args.session.open(&args.connection)?;
    let cfg = args
        .session
        .config()
        .for_command(mixgc_session::Command::Preprocess)
        .with_progress(args.feedback.reporter());
    let start = Instant::now();
    let (id, stored, sent, received) = if args.role == PartyId::GARBLER {
        let mut s = GarblerSession::setup(ch, &cfg)?;
        let prep = circuit.with_stream(|stream| s.preprocess(stream, &terms))?;
        let state = prep.to_bytes();
        file.write_all(&state).and_then(|()| file.sync_all())?;
        let (sent, received) = ch_bytes(s.channel());
        (prep.id(), state.len() as u64, sent, received)
    } else {
        let mut s = EvaluatorSession::setup(ch, &cfg)?;
        let mut w = BufWriter::new(&mut *file);
        w.write_all(STORE_MAGIC)?;
        let prep = circuit.with_stream(|stream| s.preprocess_stream(stream, &terms, &mut w))?;
        let state = prep.to_bytes();
        w.write_all(&state)?;
        w.write_all(&(state.len() as u64).to_le_bytes())?;
        w.write_all(STORE_MAGIC)?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        let (sent, received) = ch_bytes(s.channel());
        (prep.id(), prep.table_bytes(), sent, received)
    };
    pending.commit()?;
    args.feedback.summary(&format!(
        "{}: preprocessed garbling {} of {} ANDs, stored {} in {}, sent {}, received {}, {:.2} ms",
        args.role,
        hex8(&id),
        thousands(header.num_ands()),
        bytes(stored),
        args.state.display(),
        bytes(sent),
        bytes(received),
        start.elapsed().as_secs_f64() * 1e3
    ));
    Ok(())
}

pub fn online(mut args: OnlineArgs) -> Result<(), CliError> {
    let timeout = std::time::Duration::from_secs(args.timeout);
    let deadline = std::time::Duration::from_secs(args.deadline);
    args.connection.quiet = args.feedback.quiet;
    let connection = &args.connection;
    let state = &args.state;
    let (outcome, latency, sent, received) = if args.role == PartyId::GARBLER {
        let bytes = fs::read(state).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!(
                "{} does not exist (a preprocessed garbling is used once, and its online phase \
                 consumes the state; preprocess again)",
                state.display()
            ),
            _ => format!("cannot read {}: {e}", state.display()),
        })?;
        let prep = GarblerPrep::from_bytes(&bytes).map_err(|e| format!("{}: {e}", state.display()))?;
        check_scheme(state, prep.scheme(), args.garbling)?;
        let inputs = party_inputs(
            PartyId::GARBLER,
            prep.input_widths(),
            &prep.terms(),
            args.input.as_deref(),
        )?;
        timed(connection, timeout, deadline, |ch| {
            garbler_online_claiming(ch, prep, &inputs, &mut || consume(state))
        })?
    } else {
        let path = args
            .circuit
            .as_ref()
            .ok_or("the evaluator needs --circuit (the circuit it preprocessed)")?;
        let mut circuit = args.schedule.open(path)?;
        let (prep, mut tables) = open_store(state)?;
        check_scheme(state, prep.scheme(), args.garbling)?;
        let progress = args.feedback.reporter();
        let inputs = party_inputs(
            PartyId::EVALUATOR,
            prep.input_widths(),
            &prep.terms(),
            args.input.as_deref(),
        )?;
        timed(connection, timeout, deadline, |ch| {
            circuit.with_stream(|stream| {
                evaluator_online_claiming(ch, &prep, stream, &mut tables, &inputs, &progress, &mut || {
                    consume(state)
                })
            })
        })?
    };
    if let Some(outputs) = &outcome.outputs {
        let text: String = outputs
            .iter()
            .map(|v| mixgc_circuit::values::to_hex(v) + "\n")
            .collect();
        write_stdout(&text)?;
    }
    args.feedback.summary(&format!(
        "{}: online {:.3} ms (connection to outputs), {} ANDs evaluated from storage, sent {}, received {}",
        args.role,
        latency.as_secs_f64() * 1e3,
        thousands(outcome.ands),
        bytes(sent),
        bytes(received)
    ));
    Ok(())
}

/// Refuses a state preprocessed with another scheme than `--garbling` asks for, before
/// anything connects.
fn check_scheme(state: &Path, stored: Scheme, wanted: Option<Scheme>) -> Result<(), CliError> {
    match wanted {
        Some(wanted) if wanted != stored => Err(format!(
            "{} was preprocessed with {stored} garbling, and --garbling says {wanted}: give the \
             state of a {wanted} preprocessing, or leave out --garbling",
            state.display()
        )
        .into()),
        _ => Ok(()),
    }
}

/// Connects, then runs one online phase: (outcome, time from connection to outputs, bytes
/// sent, bytes received).
fn timed(
    connection: &Connection,
    timeout: std::time::Duration,
    deadline: std::time::Duration,
    phase: impl FnOnce(&mut PeerChannel) -> Result<Outcome, SessionError>,
) -> Result<(Outcome, std::time::Duration, u64, u64), CliError> {
    let mut ch = open(connection, timeout, deadline)?;
    let start = Instant::now();
    let outcome = phase(&mut ch)?;
    let (sent, received) = ch_bytes(&ch);
    Ok((outcome, start.elapsed(), sent, received))
}

fn ch_bytes(ch: &impl Channel) -> (u64, u64) {
    (ch.bytes_sent(), ch.bytes_received())
}

/// Parses this party's `--input` against the widths and ownership of the preprocessed
/// garbling.
fn party_inputs(
    role: PartyId,
    widths: &[u32],
    terms: &mixgc_session::Terms,
    input: Option<&str>,
) -> Result<Vec<Vec<bool>>, CliError> {
    let owned = owned_values(role, terms, widths)?;
    parse_inputs(role, input, &owned, widths)
}

/// A state file being written: a private temporary file beside `path`, moved into place
/// only when the phase succeeded (so a failed `preprocess` leaves nothing behind).
struct PendingState {
    file: File,
    temp: PathBuf,
    path: PathBuf,
}

impl PendingState {
    /// Refuses an existing `path` (a state file holds a single-use garbling) before
    /// anything connects.
    fn create(path: &Path) -> Result<PendingState, CliError> {
        if path.exists() {
            return Err(format!("{} already exists: give a new --state file", path.display()).into());
        }
        let temp = path.with_extension(format!("partial-{}", std::process::id()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options
            .open(&temp)
            .map_err(|e| format!("cannot create {}: {e}", temp.display()))?;
        Ok(PendingState {
            file,
            temp,
            path: path.to_path_buf(),
        })
    }

    /// Moves the finished state into place, never over an existing file.
    fn commit(self) -> Result<(), CliError> {
        self.file.sync_all()?;
        fs::hard_link(&self.temp, &self.path).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => {
                format!(
                    "{} appeared meanwhile: the state stays in {}",
                    self.path.display(),
                    self.temp.display()
                )
            }
            _ => format!("cannot create {}: {e}", self.path.display()),
        })?;
        // The state now lives at `path`; dropping removes the temporary name.
        Ok(())
    }
}

impl Drop for PendingState {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.temp);
    }
}

/// Makes a state file unusable a second time, once the peer has proven it holds the
/// matching state: renamed (atomic, so of two concurrent `online` runs only one gets it),
/// then deleted (an open reader keeps its data until it closes).
fn consume(path: &Path) -> Result<(), String> {
    let claimed = path.with_extension(format!("claimed-{}", std::process::id()));
    fs::rename(path, &claimed).map_err(|e| {
        format!(
            "cannot claim {}: {e} (a preprocessed garbling is used once; preprocess again)",
            path.display()
        )
    })?;
    fs::remove_file(&claimed)
        .map_err(|e| format!("cannot delete the claimed state {}: {e}", claimed.display()))
}

/// Opens an evaluator's store: reads its state from the end, returns a reader positioned
/// at the tables and limited to them.
fn open_store(path: &Path) -> Result<(EvaluatorPrep, impl Read), CliError> {
    let corrupt = || {
        format!(
            "{} is not a mixgc evaluator store (or is truncated)",
            path.display()
        )
    };
    let mut file = File::open(path).map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let len = file.metadata()?.len();
    if len < 32 {
        return Err(corrupt().into());
    }
    let mut tail = [0u8; 16];
    file.seek(SeekFrom::End(-16))?;
    file.read_exact(&mut tail)?;
    let state_len = u64::from_le_bytes(tail[..8].try_into().unwrap());
    if &tail[8..] != STORE_MAGIC || state_len > len - 32 {
        return Err(corrupt().into());
    }
    let mut state = vec![0u8; state_len as usize];
    file.seek(SeekFrom::Start(len - 16 - state_len))?;
    file.read_exact(&mut state)?;
    let prep = EvaluatorPrep::from_bytes(&state)?;
    let tables_len = len - 16 - state_len - 8;
    let mut head = [0u8; 8];
    file.seek(SeekFrom::Start(0))?;
    file.read_exact(&mut head)?;
    if &head != STORE_MAGIC || tables_len != prep.table_bytes() {
        return Err(corrupt().into());
    }
    Ok((prep, BufReader::with_capacity(1 << 20, file.take(tables_len))))
}

fn hex8(id: &[u8; 32]) -> String {
    id[..8].iter().map(|b| format!("{b:02x}")).collect()
}
