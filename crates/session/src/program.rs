//! Two-party execution of programs gate by gate: the garbler and the evaluator each run
//! the same program (see `mixgc_program`) on a backend whose wires are labels.
//!
//! Nothing is compiled or stored: each AND is garbled the moment the program asks for it,
//! in the session's scheme (half-gates: two rows of 16 bytes; three-halves: a group's
//! `three_halves_group_bytes` bytes, Rosulek–Roy 2021), and its rows go out on the table stream ([`crate::rows`]: frames cut by size, the
//! same rule as for compiled circuits, through the session's I/O thread when it has one);
//! the evaluator reads them as its copy of the program reaches the same gate. Memory is the labels the program keeps alive (16 bytes
//! a bit), plus one frame. Both parties must run the same program with the same inputs'
//! widths: they check a program name and reveal mode at the start, and any divergence
//! shows up as a frame out of place, which stops both sides.
//!
//! Inputs and outputs are synchronisation points: the garbler flushes its pending rows,
//! then sends its input labels (garbler inputs), runs correlated OT (evaluator inputs), or
//! sends decoding bits and reads colour bits (outputs), as the reveal mode says.
//!
//! Programs may also compute on CRT values (ABLE): their arithmetic rows share the same
//! stream (see [`crt`]).

mod crt;

use std::cell::Cell;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use mixgc_core::{Block, Unit};
use mixgc_garble::{three_halves_group_bytes, Scheme, BLOCKS_PER_AND, MAX_AND_GROUP};
use mixgc_net::{recv_frame, send_frame, Channel, Divergence, PeerMisbehaved, Tag};
use mixgc_program::{checked_input, Audience, Backend, PartyId, PeerError, ProgramError};

use crate::bits::{pack, unpack};
use crate::frames::MAX_TABLE_FRAME_BYTES;
use crate::handshake::agree_on_program;
use crate::rows::{RowReader, RowWriter};
use crate::structure::{split_digest, Step, Structure, DIGEST_BYTES};
use crate::{EvaluatorSession, GarblerSession, SessionError};

/// The code of a party in the structure digest.
fn owner_code(p: PartyId) -> u64 {
    u64::from(p == PartyId::EVALUATOR)
}

/// The code of an audience in the structure digest.
fn audience_code(to: Audience) -> u64 {
    u64::from(to.contains(PartyId::GARBLER)) | u64::from(to.contains(PartyId::EVALUATOR)) << 1
}

/// Checks the structure digest at the end of an output frame from the peer; on a mismatch
/// tells the peer why, so both parties name it. Returns the frame's payload.
fn checked_output_frame<'f, C: Channel>(
    ch: &mut C,
    structure: &Structure,
    frame: &'f [u8],
    tag: Tag,
    payload_len: usize,
) -> Result<&'f [u8], ProgramError> {
    let (payload, digest) = split_digest(frame)
        .filter(|(p, _)| p.len() == payload_len)
        .ok_or_else(|| {
            peer(PeerMisbehaved::WrongLength {
                tag,
                len: frame.len(),
                expected: payload_len + DIGEST_BYTES,
            })
        })?;
    if let Err(e) = structure.check(digest) {
        let _ = mixgc_net::send_abort(ch, &e.to_string());
        return Err(peer(e));
    }
    Ok(payload)
}

fn peer(e: impl Into<SessionError>) -> ProgramError {
    ProgramError::Peer(PeerError::new(e.into()))
}

/// The first failure of a run, recorded while later gates do nothing; each later input or
/// output reports it again.
type FirstError = Option<Arc<SessionError>>;

/// Records `e` unless an earlier failure was recorded. Inside [`stop_at_failure`], a
/// connection failure ends the run at once instead.
fn record_first(first: &mut FirstError, e: impl Into<SessionError>) {
    let e = first.get_or_insert_with(|| Arc::new(e.into())).clone();
    let lost = matches!(
        *e,
        SessionError::Net(_) | SessionError::Ot(_) | SessionError::IoThreadStopped
    );
    if lost && STOPPING.get() && !std::thread::panicking() {
        std::panic::resume_unwind(Box::new(Stopped(e)));
    }
}

thread_local! {
    /// Whether a [`stop_at_failure`] runs on this thread.
    static STOPPING: Cell<bool> = const { Cell::new(false) };
}

/// What unwinds a program run that [`stop_at_failure`] stops.
struct Stopped(Arc<SessionError>);

/// Runs `run`, a program run on this thread, so that a lost connection ends it at once
/// with that error. Without it a run records the failure and hurries on, garbling nothing,
/// to its next input or output, which reports it: a program with much work left (millions
/// of gates) would outlive the timeout by seconds while its peer is long gone.
pub fn stop_at_failure<T, E: From<Arc<SessionError>>>(run: impl FnOnce() -> Result<T, E>) -> Result<T, E> {
    let outer = STOPPING.replace(true);
    let result = std::panic::catch_unwind(AssertUnwindSafe(run));
    STOPPING.set(outer);
    match result {
        Ok(r) => r,
        Err(payload) => match payload.downcast::<Stopped>() {
            Ok(stopped) => Err(E::from(stopped.0)),
            Err(other) => std::panic::resume_unwind(other),
        },
    }
}

/// `Ok(out)`, or the recorded failure.
fn unless_failed<T>(first: &FirstError, out: T) -> Result<T, ProgramError> {
    match first {
        Some(e) => Err(ProgramError::Peer(e.clone().into())),
        None => Ok(out),
    }
}

/// The garbler's backend for one program run; see the module docs.
pub struct ProgramGarbler<'s, C: Channel + 'static> {
    s: &'s mut GarblerSession<C>,
    reveal: Audience,
    /// Zero-labels of the constants 0 and 1.
    consts: [Block; 2],
    /// Rows not sent yet, Boolean and arithmetic.
    rows: RowWriter,
    /// An arithmetic gadget's rows, before they join the stream ([`crt`]).
    arith_rows: Vec<u8>,
    /// The first network failure (or arithmetic gadget error); later gates do nothing and
    /// the next input or output reports it.
    error: FirstError,
    inputs: usize,
    /// The run's structure so far, compared with the peer's at each output.
    structure: Structure,
}

impl<C: Channel + 'static> GarblerSession<C> {
    /// Starts a program run named `program` (both parties pass the same name and reveal
    /// mode). The name may go on with the run's parameters as `key=value` words
    /// (`lenet width=8`); parties that differ in one are told which, with both values.
    /// The AND index and Δ continue from the session, so tweaks never repeat.
    pub fn program(
        &mut self,
        program: &str,
        reveal: Audience,
    ) -> Result<ProgramGarbler<'_, C>, SessionError> {
        agree_on_program(&mut self.ch, program, reveal)?;
        let delta = self.core.delta();
        let consts = [Block::random(&mut self.rng), Block::random(&mut self.rng)];
        let active = [consts[0], consts[1] ^ delta];
        send_frame(&mut self.ch, Tag::GarblerLabels, Block::slice_as_bytes(&active))?;
        let rows = RowWriter::new(self.batch_bytes);
        // A program's size is not known in advance: a running count, ended on drop.
        self.progress.begin("garbling", None, Unit::Ands);
        Ok(ProgramGarbler {
            s: self,
            reveal,
            consts,
            rows,
            arith_rows: Vec::new(),
            error: None,
            inputs: 0,
            structure: Structure::default(),
        })
    }
}

impl<C: Channel + 'static> ProgramGarbler<'_, C> {
    /// Records `e` as the run's failure, unless one was recorded before.
    fn fail(&mut self, e: impl Into<SessionError>) {
        record_first(&mut self.error, e);
    }

    /// `out`, unless a failure was recorded.
    fn checked<T>(&self, out: T) -> Result<T, ProgramError> {
        unless_failed(&self.error, out)
    }

    /// Sends the pending rows and everything buffered; reports any earlier failure (after
    /// delivering what was sent before it, so the evaluator meets the same failure).
    fn sync(&mut self) -> Result<(), ProgramError> {
        if self.error.is_some() {
            let _ = self.s.ch.flush();
            return self.checked(());
        }
        let sent = self.send_pending().and_then(|()| Ok(self.s.ch.flush()?));
        sent.map_err(peer)
    }

    /// Sends everything pending (rows and input labels) and flushes the channel; reports
    /// any earlier failure. Call it before waiting on something outside the protocol (e.g.
    /// a peer thread that first needs this party's input labels).
    pub fn flush(&mut self) -> Result<(), ProgramError> {
        self.sync()
    }

    /// Sends the pending rows, the last frame short (a sync point).
    fn send_pending(&mut self) -> Result<(), SessionError> {
        self.rows.flush(&mut self.s.ch)
    }

    /// Sends the full frames of the pending rows.
    fn send_full(&mut self) {
        if let Err(e) = self.rows.send_full(&mut self.s.ch) {
            self.fail(e);
        }
    }

    /// Ends the run: sends what is pending. Returns the ANDs garbled in the session so far.
    pub fn finish(mut self) -> Result<u64, ProgramError> {
        self.sync()?;
        Ok(self.s.core.ands_garbled())
    }
}

impl<C: Channel + 'static> Drop for ProgramGarbler<'_, C> {
    /// Rows of ANDs after the last output still belong to the evaluator's run. The
    /// channel comes back from the I/O thread either way.
    fn drop(&mut self) {
        if self.error.is_none() {
            let _ = self.send_pending();
        }
        let _ = self.s.ch.flush();
        self.s.progress.end();
    }
}

impl<C: Channel + 'static> Backend for ProgramGarbler<'_, C> {
    type Wire = Block;

    fn xor(&mut self, a: Block, b: Block) -> Block {
        self.structure.free();
        a ^ b
    }

    fn and(&mut self, a: Block, b: Block) -> Block {
        self.and_many(&[(a, b)])[0]
    }

    /// Garbles up to [`MAX_AND_GROUP`] ANDs per hash batch, sending full frames as they fill.
    fn and_many(&mut self, pairs: &[(Block, Block)]) -> Vec<Block> {
        self.structure.note(Step::Ands, pairs.len() as u64, 0);
        let mut out = vec![Block::ZERO; pairs.len()];
        // After a failure nothing is garbled (the run is lost, and rows that can no longer be
        // sent would pile up): the program hurries on to its next input or output, which
        // reports the failure.
        if self.error.is_some() {
            return out;
        }
        for (ins, outs) in pairs.chunks(MAX_AND_GROUP).zip(out.chunks_mut(MAX_AND_GROUP)) {
            let core = &mut self.s.core;
            match core.scheme() {
                Scheme::HalfGates => self
                    .rows
                    .append_blocks(|rows| core.half_gates().garble(ins, outs, rows)),
                Scheme::ThreeHalves => self
                    .rows
                    .append_bytes(|rows| core.garble_group_bytes(ins, outs, rows)),
            }
            if self.rows.room() == 0 {
                self.send_full();
                if self.error.is_some() {
                    break;
                }
            }
        }
        self.s.progress.advance(pairs.len() as u64);
        out
    }

    fn not(&mut self, a: Block) -> Block {
        self.structure.free();
        a ^ self.s.core.delta()
    }

    fn constant(&mut self, value: bool) -> Block {
        self.structure.free();
        self.consts[value as usize]
    }

    fn input(
        &mut self,
        owner: PartyId,
        width: u32,
        value: Option<&[bool]>,
    ) -> Result<Vec<Block>, ProgramError> {
        let index = self.inputs;
        self.inputs += 1;
        self.structure
            .note(Step::Input, owner_code(owner), u64::from(width));
        self.sync()?;
        let delta = self.s.core.delta();
        match owner {
            PartyId::GARBLER => {
                let value = checked_input(index, owner, width, value)?;
                let zero: Vec<Block> = (0..width).map(|_| Block::random(&mut self.s.rng)).collect();
                let active: Vec<Block> = zero
                    .iter()
                    .zip(value)
                    .map(|(&z, &v)| z ^ delta.and_bit(v))
                    .collect();
                send_frame(&mut self.s.ch, Tag::GarblerLabels, Block::slice_as_bytes(&active))
                    .map_err(peer)?;
                Ok(zero)
            }
            PartyId::EVALUATOR => self
                .s
                .ot
                .send_correlated(&mut self.s.ch, delta, width as usize)
                .map_err(peer),
            other => Err(ProgramError::NoSuchParty(other)),
        }
    }

    fn output(&mut self, wires: &[Block]) -> Result<Option<Vec<bool>>, ProgramError> {
        self.output_to(wires, self.reveal)
    }

    fn output_to(&mut self, wires: &[Block], to: Audience) -> Result<Option<Vec<bool>>, ProgramError> {
        self.structure
            .note(Step::Output, wires.len() as u64, audience_code(to));
        self.sync()?;
        let decoding: Vec<bool> = wires.iter().map(|w| w.lsb()).collect();
        if to.contains(PartyId::EVALUATOR) {
            let mut frame = pack(&decoding);
            frame.extend_from_slice(&self.structure.digest());
            send_frame(&mut self.s.ch, Tag::OutputDecoding, &frame).map_err(peer)?;
            self.s.ch.flush().map_err(peer)?;
        }
        if !to.contains(PartyId::GARBLER) {
            return Ok(None);
        }
        let n = decoding.len();
        let frame =
            recv_frame(&mut self.s.ch, Tag::OutputColours, n.div_ceil(8) + DIGEST_BYTES).map_err(peer)?;
        let payload = checked_output_frame(
            &mut self.s.ch,
            &self.structure,
            &frame,
            Tag::OutputColours,
            n.div_ceil(8),
        )?;
        let colours = unpack(payload, n).expect("length checked");
        Ok(Some(colours.iter().zip(&decoding).map(|(c, d)| c ^ d).collect()))
    }
}

/// The evaluator's backend for one program run; see the module docs.
pub struct ProgramEvaluator<'s, C: Channel> {
    s: &'s mut EvaluatorSession<C>,
    reveal: Audience,
    /// Active labels of the constants 0 and 1.
    consts: [Block; 2],
    /// The table stream, Boolean and arithmetic rows.
    rows: RowReader,
    error: FirstError,
    inputs: usize,
    /// The run's structure so far, compared with the peer's at each output.
    structure: Structure,
}

impl<C: Channel> EvaluatorSession<C> {
    /// Starts a program run named `program` (see [`GarblerSession::program`]).
    pub fn program(
        &mut self,
        program: &str,
        reveal: Audience,
    ) -> Result<ProgramEvaluator<'_, C>, SessionError> {
        agree_on_program(&mut self.ch, program, reveal)?;
        let frame = recv_frame(&mut self.ch, Tag::GarblerLabels, 32)?;
        if frame.len() != 32 {
            return Err(PeerMisbehaved::WrongLength {
                tag: Tag::GarblerLabels,
                len: frame.len(),
                expected: 32,
            }
            .into());
        }
        let consts = [
            Block::from_bytes(frame[..16].try_into().unwrap()),
            Block::from_bytes(frame[16..].try_into().unwrap()),
        ];
        self.progress.begin("evaluating", None, Unit::Ands);
        Ok(ProgramEvaluator {
            s: self,
            reveal,
            consts,
            // The garbler's frames follow its schedule, which never outgrows this one.
            rows: RowReader::new(MAX_TABLE_FRAME_BYTES),
            error: None,
            inputs: 0,
            structure: Structure::default(),
        })
    }
}

impl<C: Channel> ProgramEvaluator<'_, C> {
    /// Records `e` as the run's failure, unless one was recorded before.
    fn fail(&mut self, e: impl Into<SessionError>) {
        record_first(&mut self.error, e);
    }

    /// `out`, unless a failure was recorded.
    fn checked<T>(&self, out: T) -> Result<T, ProgramError> {
        unless_failed(&self.error, out)
    }

    /// At an input or output every row sent so far must have been used: otherwise the two
    /// programs took different paths.
    fn sync(&mut self) -> Result<(), ProgramError> {
        self.checked(())?;
        if !self.rows.is_drained() {
            return Err(peer(PeerMisbehaved::ProgramsDiverged(Divergence::RowsLeftOver)));
        }
        Ok(())
    }

    /// Ends the run, checking that every row the garbler sent was used. Returns the ANDs
    /// evaluated in the session so far.
    pub fn finish(mut self) -> Result<u64, ProgramError> {
        self.sync()?;
        Ok(self.s.core.ands_evaluated())
    }
}

impl<C: Channel> Drop for ProgramEvaluator<'_, C> {
    fn drop(&mut self) {
        self.s.progress.end();
    }
}

impl<C: Channel> Backend for ProgramEvaluator<'_, C> {
    type Wire = Block;

    fn xor(&mut self, a: Block, b: Block) -> Block {
        self.structure.free();
        a ^ b
    }

    fn and(&mut self, a: Block, b: Block) -> Block {
        self.and_many(&[(a, b)])[0]
    }

    /// Evaluates the same batches the garbler garbled (up to [`MAX_AND_GROUP`] ANDs each).
    fn and_many(&mut self, pairs: &[(Block, Block)]) -> Vec<Block> {
        self.structure.note(Step::Ands, pairs.len() as u64, 0);
        let mut out = vec![Block::ZERO; pairs.len()];
        if self.error.is_some() {
            return out;
        }
        for (ins, outs) in pairs.chunks(MAX_AND_GROUP).zip(out.chunks_mut(MAX_AND_GROUP)) {
            let core = &mut self.s.core;
            let evaluated = match core.scheme() {
                Scheme::HalfGates => self
                    .rows
                    .take_blocks(BLOCKS_PER_AND * ins.len(), &mut self.s.ch)
                    .map(|rows| core.half_gates().evaluate(ins, rows, outs)),
                Scheme::ThreeHalves => self
                    .rows
                    .take_bytes(three_halves_group_bytes(ins.len()), &mut self.s.ch)
                    .map(|rows| core.evaluate_group_bytes(ins, rows, outs)),
            };
            if let Err(e) = evaluated {
                self.fail(e);
                break;
            }
        }
        self.s.progress.advance(pairs.len() as u64);
        out
    }

    /// Under free-XOR the evaluator's ¬x is x's own label.
    fn not(&mut self, a: Block) -> Block {
        self.structure.free();
        a
    }

    fn constant(&mut self, value: bool) -> Block {
        self.structure.free();
        self.consts[value as usize]
    }

    fn input(
        &mut self,
        owner: PartyId,
        width: u32,
        value: Option<&[bool]>,
    ) -> Result<Vec<Block>, ProgramError> {
        let index = self.inputs;
        self.inputs += 1;
        self.structure
            .note(Step::Input, owner_code(owner), u64::from(width));
        self.sync()?;
        match owner {
            PartyId::GARBLER => {
                let frame =
                    recv_frame(&mut self.s.ch, Tag::GarblerLabels, width as usize * 16).map_err(peer)?;
                if frame.len() != width as usize * 16 {
                    return Err(peer(PeerMisbehaved::InputLabels {
                        index,
                        len: frame.len(),
                        expected: width as usize * 16,
                    }));
                }
                Ok(frame
                    .chunks_exact(16)
                    .map(|c| Block::from_bytes(c.try_into().unwrap()))
                    .collect())
            }
            PartyId::EVALUATOR => {
                let value = checked_input(index, owner, width, value)?;
                self.s.ot.receive_correlated(&mut self.s.ch, value).map_err(peer)
            }
            other => Err(ProgramError::NoSuchParty(other)),
        }
    }

    fn output(&mut self, wires: &[Block]) -> Result<Option<Vec<bool>>, ProgramError> {
        self.output_to(wires, self.reveal)
    }

    fn output_to(&mut self, wires: &[Block], to: Audience) -> Result<Option<Vec<bool>>, ProgramError> {
        self.structure
            .note(Step::Output, wires.len() as u64, audience_code(to));
        self.sync()?;
        let colours: Vec<bool> = wires.iter().map(|w| w.lsb()).collect();
        let n = colours.len();
        let learned = if to.contains(PartyId::EVALUATOR) {
            let frame = recv_frame(&mut self.s.ch, Tag::OutputDecoding, n.div_ceil(8) + DIGEST_BYTES)
                .map_err(peer)?;
            let payload = checked_output_frame(
                &mut self.s.ch,
                &self.structure,
                &frame,
                Tag::OutputDecoding,
                n.div_ceil(8),
            )?;
            let d = unpack(payload, n).expect("length checked");
            Some(colours.iter().zip(&d).map(|(c, d)| c ^ d).collect())
        } else {
            None
        };
        if to.contains(PartyId::GARBLER) {
            let mut frame = pack(&colours);
            frame.extend_from_slice(&self.structure.digest());
            send_frame(&mut self.s.ch, Tag::OutputColours, &frame).map_err(peer)?;
            self.s.ch.flush().map_err(peer)?;
        }
        Ok(learned)
    }
}
