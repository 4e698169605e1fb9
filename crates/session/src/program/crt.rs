//! CRT values in two-party program runs: the primitives of [`ArithBackend`] for
//! [`ProgramGarbler`] and [`ProgramEvaluator`] (ABLE, Mo et al., §2–3; BMR16 "Garbling
//! gadgets"); the gadgets built on them (products, powers, mux, BC, BD) are the trait's
//! provided methods, written once in `mixgc_program::crt::gadgets`.
//!
//! A wire mod p is a [`Label`]: its zero-label at the garbler, its active label at the
//! evaluator. The mod-2 residue, the select bit of a mux and the bits of BC and BD are
//! ordinary session wires (the arithmetic garbler's Δ_2 is the session's free-XOR Δ), and
//! every AND inside a gadget is an AND of the session's half-gates.
//!
//! **Keys and gate indices.** One [`ArithGarbler`] per session, drawn from the session's
//! RNG at the first CRT value (input, constant or BC) of the first run that has one, kept in
//! [`GarblerSession`] and never restarted: its gate index runs on across program runs, so no
//! (key, tweak) pair repeats (the integration requirement of the ring-offset review in
//! docs/arithmetic.md). Its hash key goes to the evaluator once, in a 32-byte
//! [`Tag::ArithTables`] frame at that same point of the program; the evaluator keeps its
//! [`ArithEvaluator`] in [`EvaluatorSession`].
//!
//! **Framing.** Arithmetic rows travel in their own [`Tag::ArithTables`] frames, in program
//! order with the Boolean [`Tag::Tables`] frames: the garbler sends its pending Boolean rows
//! before an arithmetic gadget and its pending arithmetic rows before an AND, so the frames
//! arrive in the order the evaluator's copy of the program needs them. (One byte stream for
//! both would save a frame header where the kind switches, but would change the Boolean
//! frames, which are whole AND batches, and their pinned transcripts.) Arithmetic frames are
//! cut by size alone at the session's frame schedule (a gadget's rows may span frames; a
//! product mod 65,521 alone is 2.4 MB); the rest goes out at the next input, output, kind
//! switch or the end of the run. The evaluator reads exactly the bytes each primitive has
//! ([`mixgc_arith::table_bytes`], known to both parties from the moduli), reading frames
//! only while it lacks some of them: it never waits for rows the garbler still buffers,
//! because the garbler flushes before anything it waits for.
//!
//! **Costs** ([`mixgc_arith::cost::protocol`]): a garbler input sends the packed active label
//! of each residue ([`Tag::GarblerLabels`]); an evaluator input runs one correlated OT per
//! bit of each residue (bitlen(p − 1) bits) and lifts each bit to Z_p with a one-row
//! projection; a reveal sends one u16 per residue each way needed ([`Tag::OutputDecoding`],
//! [`Tag::OutputColours`]). Constants, +, −, negation and public scaling are free; the
//! primitives send their garbled rows and nothing else.
//!
//! **Errors.** An arithmetic error (a BD beyond its width limit, wires of different moduli)
//! or a network failure inside a gadget is recorded; later gadgets do nothing and the
//! next input, output or [`ProgramGarbler::finish`] reports it, as on the Boolean path.
//! Malformed rows or labels from the garbler are errors at the evaluator. A CRT input that
//! is missing or not below N is refused by its owner before anything of it is sent, and the
//! owner tells the peer with an abort frame.

use mixgc_arith::{
    residue_bit_counts, residue_choice_bits, table_bytes, ArithError, ArithEvaluator, ArithGarbler, Label,
    Modulus, RingLabel, TableReader,
};
use mixgc_core::{Block, Rng};
use mixgc_net::{recv_frame, send_abort, send_frame, Channel, Divergence, PeerMisbehaved, Tag};
use mixgc_program::{ArithBackend, Audience, PartyId, PrimeSet, ProgramError};
use rand::{Rng as _, SeedableRng};

use super::{audience_code, checked_output_frame, owner_code, peer, ProgramEvaluator, ProgramGarbler};
use crate::primitives::{evaluator_primitives, garbler_primitives, label_primitives};
use crate::structure::{Step, DIGEST_BYTES};
use crate::{EvaluatorSession, GarblerSession, SessionError};

/// Bytes of the arithmetic hash key frame.
const KEY_BYTES: usize = 32;

/// Bytes of one residue's decoding or colour in a reveal (primes are below 2^16).
const RESIDUE_BYTES: usize = 2;

/// Stand-in labels for the result of a failed gadget (the failure is reported at the next
/// input or output, so they are never decoded).
fn placeholder(set: &PrimeSet) -> Vec<Label> {
    set.moduli().iter().map(|&m| Label::zero(m)).collect()
}

/// The owner's CRT input value, checked: present and below N.
fn owned_value(
    index: usize,
    owner: PartyId,
    set: &PrimeSet,
    value: Option<u128>,
) -> Result<u128, ProgramError> {
    let v = value.ok_or(ProgramError::MissingInput { index, owner })?;
    if v >= set.product() {
        return Err(ProgramError::OutOfRange(format!(
            "CRT input #{index} of the {owner} is {v}, not below N = {}",
            set.product()
        )));
    }
    Ok(v)
}

/// Little-endian u16 per residue.
fn encode_residues(values: impl Iterator<Item = u64>) -> Vec<u8> {
    values.flat_map(|v| (v as u16).to_le_bytes()).collect()
}

/// The u16 per residue of a peer's reveal frame, each checked to be below its prime.
fn decode_residues(bytes: &[u8], set: &PrimeSet, tag: Tag) -> Result<Vec<u64>, ProgramError> {
    let expected = set.primes().len() * RESIDUE_BYTES;
    if bytes.len() != expected {
        return Err(peer(PeerMisbehaved::WrongLength {
            tag,
            len: bytes.len(),
            expected,
        }));
    }
    let values: Vec<u64> = bytes
        .chunks_exact(RESIDUE_BYTES)
        .map(|c| u64::from(u16::from_le_bytes([c[0], c[1]])))
        .collect();
    if values.iter().zip(set.primes()).any(|(&v, &p)| v >= p) {
        return Err(peer(PeerMisbehaved::OutOfRange(tag)));
    }
    Ok(values)
}

impl<C: Channel + 'static> GarblerSession<C> {
    /// The hash key of the session's arithmetic garbler, once a program has used CRT values.
    pub fn arith_session_key(&self) -> Option<[u8; 32]> {
        self.arith.as_ref().map(ArithGarbler::session_key)
    }

    /// Arithmetic gates garbled in the session so far (the next gate index).
    pub fn arith_gates(&self) -> u64 {
        self.arith.as_ref().map_or(0, ArithGarbler::gates_garbled)
    }
}

impl<C: Channel> EvaluatorSession<C> {
    /// Arithmetic gates evaluated in the session so far (the next gate index).
    pub fn arith_gates(&self) -> u64 {
        self.arith.as_ref().map_or(0, ArithEvaluator::gates_evaluated)
    }
}

impl<C: Channel + 'static> ProgramGarbler<'_, C> {
    /// Creates the session's arithmetic garbler on first use and sends its key (after the
    /// pending rows, which the evaluator needs first).
    fn start_arith(&mut self) {
        if self.s.arith.is_some() || self.error.is_some() {
            return;
        }
        let rng = Rng::from_seed(self.s.rng.gen());
        match ArithGarbler::new(rng, self.s.core.delta()) {
            Ok(g) => {
                let key = g.session_key();
                self.s.arith = Some(g);
                let sent = self.send_pending().and_then(|()| {
                    send_frame(&mut self.s.ch, Tag::ArithTables, &key)?;
                    Ok(self.s.ch.flush()?)
                });
                if let Err(e) = sent {
                    self.fail(e);
                }
            }
            Err(e) => self.fail(e),
        }
    }

    /// Runs one arithmetic gadget, its rows appended to the stream; on failure records the
    /// error, drops the gadget's partial rows and returns `fallback()`.
    fn garble<T>(
        &mut self,
        fallback: impl FnOnce() -> T,
        gadget: impl FnOnce(&mut ArithGarbler, &mut Vec<u8>) -> Result<T, ArithError>,
    ) -> T {
        self.start_arith();
        let garbler = match (&self.error, self.s.arith.as_mut()) {
            (None, Some(g)) => g,
            _ => return fallback(),
        };
        self.arith_rows.clear();
        match gadget(garbler, &mut self.arith_rows) {
            Ok(out) => {
                self.structure.note(Step::Gadget, self.arith_rows.len() as u64, 0);
                self.rows.push_bytes(&self.arith_rows);
                self.send_full();
                out
            }
            Err(e) => {
                self.fail(e);
                fallback()
            }
        }
    }

    /// Refuses a bad input of ours: records the error and tells the peer, who waits for it.
    fn refuse(&mut self, e: ProgramError) -> ProgramError {
        let msg = e.to_string();
        let _ = send_abort(&mut self.s.ch, &msg); // best effort: we fail either way
        self.fail(SessionError::Input(msg));
        e
    }

    /// Sync, then the session's arithmetic garbler (created if needed).
    fn arith_synced(&mut self) -> Result<&mut ArithGarbler, ProgramError> {
        self.start_arith();
        self.sync()?;
        // start_arith creates the garbler or records why it could not, which sync reports.
        let missing = || ProgramError::Unsupported("the arithmetic garbler could not start");
        self.s.arith.as_mut().ok_or_else(missing)
    }
}

impl<C: Channel + 'static> ArithBackend for ProgramGarbler<'_, C> {
    type ModWire = Label;
    type RingWire = RingLabel;

    label_primitives!();
    garbler_primitives!();

    /// Half gates with the garbler's tables ([`mixgc_garble::HalfGateGarbler::garble_private`]),
    /// their tweaks from the session's own counter; one 16-byte row each, as the default.
    fn bit_projections(&mut self, a: Block, tables: &[[bool; 2]]) -> Vec<Block> {
        let n = tables.len();
        self.structure.note(Step::Gadget, 16 * n as u64, 0);
        let mut out = vec![Block::ZERO; n];
        if self.error.is_some() {
            return out;
        }
        let first = self.s.private_projections;
        self.s.private_projections += n as u64;
        let core = &mut self.s.core;
        self.rows
            .append_blocks(|rows| core.half_gates().garble_private(first, a, tables, &mut out, rows));
        if self.rows.room() == 0 {
            self.send_full();
        }
        out
    }

    fn crt_input(
        &mut self,
        owner: PartyId,
        set: &PrimeSet,
        value: Option<u128>,
    ) -> Result<Vec<Label>, ProgramError> {
        let index = self.inputs;
        self.inputs += 1;
        self.structure
            .note(Step::Input, owner_code(owner) | 2, set.primes().len() as u64);
        self.sync()?;
        match owner {
            PartyId::GARBLER => {
                let v = owned_value(index, owner, set, value).map_err(|e| self.refuse(e))?;
                let g = self.arith_synced()?;
                let zero = g.new_bundle(set);
                let active = g.bundle_input_bytes(&zero, v).map_err(peer)?;
                send_frame(&mut self.s.ch, Tag::GarblerLabels, &active).map_err(peer)?;
                Ok(zero.wires().to_vec())
            }
            PartyId::EVALUATOR => {
                self.arith_synced()?;
                let delta = self.s.core.delta();
                let count = residue_bit_counts(set).sum::<u32>() as usize;
                let bits = self
                    .s
                    .ot
                    .send_correlated(&mut self.s.ch, delta, count)
                    .map_err(peer)?;
                let bundle = self.garble(
                    || placeholder(set),
                    |g, rows| Ok(g.residues_from_bits(&bits, set, rows)?.wires().to_vec()),
                );
                self.checked(bundle)
            }
            other => Err(ProgramError::NoSuchParty(other)),
        }
    }

    fn crt_output(&mut self, set: &PrimeSet, x: &[Label]) -> Result<Option<u128>, ProgramError> {
        self.crt_output_to(set, x, self.reveal)
    }

    /// Sends the decoding of each residue (its zero-label's colour) where the evaluator
    /// learns; reads the evaluator's colours where the garbler learns.
    fn crt_output_to(
        &mut self,
        set: &PrimeSet,
        x: &[Label],
        to: Audience,
    ) -> Result<Option<u128>, ProgramError> {
        self.structure
            .note(Step::Output, x.len() as u64 | 1 << 32, audience_code(to));
        self.sync()?;
        let decoding: Vec<u64> = x.iter().map(ArithGarbler::decoding).collect();
        if to.contains(PartyId::EVALUATOR) {
            let mut bytes = encode_residues(decoding.iter().copied());
            bytes.extend_from_slice(&self.structure.digest());
            send_frame(&mut self.s.ch, Tag::OutputDecoding, &bytes).map_err(peer)?;
            self.s.ch.flush().map_err(peer)?;
        }
        if !to.contains(PartyId::GARBLER) {
            return Ok(None);
        }
        let len = set.primes().len() * RESIDUE_BYTES;
        let frame = recv_frame(&mut self.s.ch, Tag::OutputColours, len + DIGEST_BYTES).map_err(peer)?;
        let payload = checked_output_frame(&mut self.s.ch, &self.structure, &frame, Tag::OutputColours, len)?;
        let colours = decode_residues(payload, set, Tag::OutputColours)?;
        let residues: Vec<u64> = colours
            .iter()
            .zip(&decoding)
            .zip(set.primes())
            .map(|((&c, &d), &p)| (c + p - d) % p)
            .collect();
        set.decode(&residues).map(Some).map_err(peer)
    }

    /// The zero-label −value·Δ_m, so that the evaluator's label is all zeros.
    fn mod_constant(&mut self, m: Modulus, value: u64) -> Label {
        self.start_arith();
        let p = m.value() as u64;
        match self.s.arith.as_mut() {
            Some(g) => g.delta(m).scale((p - value % p) % p),
            None => Label::zero(m),
        }
    }
}

impl<C: Channel> ProgramEvaluator<'_, C> {
    /// Reads the garbler's arithmetic key at the first CRT value of the session.
    fn start_arith(&mut self) {
        if self.s.arith.is_some() || self.error.is_some() {
            return;
        }
        let key = if !self.rows.is_drained() {
            Err(PeerMisbehaved::ProgramsDiverged(Divergence::RowsLeftOver).into())
        } else {
            recv_frame(&mut self.s.ch, Tag::ArithTables, KEY_BYTES)
        };
        match key.map(<[u8; KEY_BYTES]>::try_from) {
            Ok(Ok(key)) => self.s.arith = Some(ArithEvaluator::new(key)),
            Ok(Err(frame)) => self.fail(PeerMisbehaved::WrongLength {
                tag: Tag::ArithTables,
                len: frame.len(),
                expected: KEY_BYTES,
            }),
            Err(e) => self.fail(e),
        }
    }

    /// Evaluates one arithmetic gadget on exactly its `bytes` of rows (a count both parties
    /// know); on failure records the error and returns `fallback()`.
    fn evaluate<T>(
        &mut self,
        bytes: Result<usize, ArithError>,
        fallback: impl FnOnce() -> T,
        gadget: impl FnOnce(&mut ArithEvaluator, &mut TableReader) -> Result<T, ArithError>,
    ) -> T {
        self.start_arith();
        if self.error.is_some() {
            return fallback();
        }
        let Some(evaluator) = self.s.arith.as_mut() else {
            return fallback();
        };
        let out = bytes.map_err(SessionError::from).and_then(|n| {
            self.structure.note(Step::Gadget, n as u64, 0);
            let rows = self.rows.take_bytes(n, &mut self.s.ch)?;
            let mut reader = TableReader::new(rows);
            let out = gadget(evaluator, &mut reader).and_then(|out| reader.finish().map(|()| out));
            Ok(out?)
        });
        out.unwrap_or_else(|e| {
            self.fail(e);
            fallback()
        })
    }

    /// Refuses a bad input of ours: records the error and tells the peer, who waits for it.
    fn refuse(&mut self, e: ProgramError) -> ProgramError {
        let msg = e.to_string();
        let _ = send_abort(&mut self.s.ch, &msg); // best effort: we fail either way
        self.fail(SessionError::Input(msg));
        e
    }
}

impl<C: Channel> ArithBackend for ProgramEvaluator<'_, C> {
    type ModWire = Label;
    type RingWire = RingLabel;

    label_primitives!();
    evaluator_primitives!();

    /// Evaluates the garbler's [`ArithBackend::bit_projections`] on their rows.
    fn bit_projections(&mut self, a: Block, tables: &[[bool; 2]]) -> Vec<Block> {
        let n = tables.len();
        self.structure.note(Step::Gadget, 16 * n as u64, 0);
        let mut out = vec![Block::ZERO; n];
        if self.error.is_some() {
            return out;
        }
        let first = self.s.private_projections;
        self.s.private_projections += n as u64;
        match self.rows.take_blocks(n, &mut self.s.ch) {
            Ok(rows) => self
                .s
                .core
                .half_gates()
                .evaluate_private(first, a, rows, &mut out),
            Err(e) => self.fail(e),
        }
        out
    }

    fn crt_input(
        &mut self,
        owner: PartyId,
        set: &PrimeSet,
        value: Option<u128>,
    ) -> Result<Vec<Label>, ProgramError> {
        let index = self.inputs;
        self.inputs += 1;
        self.structure
            .note(Step::Input, owner_code(owner) | 2, set.primes().len() as u64);
        self.sync()?;
        match owner {
            PartyId::GARBLER => {
                self.start_arith();
                self.sync()?;
                let len = set
                    .moduli()
                    .iter()
                    .map(|&m| mixgc_arith::codec::label_bytes(m))
                    .sum();
                let bytes = recv_frame(&mut self.s.ch, Tag::GarblerLabels, len).map_err(peer)?;
                let bundle = ArithEvaluator::read_bundle(set, &bytes)
                    .map_err(|source| peer(SessionError::GarblerCrtInput { index, source }))?;
                Ok(bundle.wires().to_vec())
            }
            PartyId::EVALUATOR => {
                let v = owned_value(index, owner, set, value).map_err(|e| self.refuse(e))?;
                self.start_arith();
                self.sync()?;
                let choices = residue_choice_bits(set, v).map_err(peer)?;
                let bits = self
                    .s
                    .ot
                    .receive_correlated(&mut self.s.ch, &choices)
                    .map_err(peer)?;
                let bundle = self.evaluate(
                    Ok(table_bytes::residues_from_bits(set)),
                    || placeholder(set),
                    |ev, tables| Ok(ev.residues_from_bits(&bits, set, tables)?.wires().to_vec()),
                );
                self.checked(bundle)
            }
            other => Err(ProgramError::NoSuchParty(other)),
        }
    }

    fn crt_output(&mut self, set: &PrimeSet, x: &[Label]) -> Result<Option<u128>, ProgramError> {
        self.crt_output_to(set, x, self.reveal)
    }

    /// Decodes with the garbler's decodings where the evaluator learns; sends the residues'
    /// colours where the garbler learns.
    fn crt_output_to(
        &mut self,
        set: &PrimeSet,
        x: &[Label],
        to: Audience,
    ) -> Result<Option<u128>, ProgramError> {
        self.structure
            .note(Step::Output, x.len() as u64 | 1 << 32, audience_code(to));
        self.sync()?;
        let learned = if to.contains(PartyId::EVALUATOR) {
            let len = set.primes().len() * RESIDUE_BYTES;
            let frame = recv_frame(&mut self.s.ch, Tag::OutputDecoding, len + DIGEST_BYTES).map_err(peer)?;
            let payload =
                checked_output_frame(&mut self.s.ch, &self.structure, &frame, Tag::OutputDecoding, len)?;
            let decoding = decode_residues(payload, set, Tag::OutputDecoding)?;
            let residues: Vec<u64> = x
                .iter()
                .zip(&decoding)
                .map(|(w, &d)| ArithEvaluator::decode(w, d))
                .collect();
            Some(set.decode(&residues).map_err(peer)?)
        } else {
            None
        };
        if to.contains(PartyId::GARBLER) {
            let mut colours = encode_residues(x.iter().map(|w| w.colour()));
            colours.extend_from_slice(&self.structure.digest());
            send_frame(&mut self.s.ch, Tag::OutputColours, &colours).map_err(peer)?;
            self.s.ch.flush().map_err(peer)?;
        }
        Ok(learned)
    }

    /// The evaluator's label of a public constant: all zeros.
    fn mod_constant(&mut self, m: Modulus, _value: u64) -> Label {
        self.start_arith();
        Label::zero(m)
    }
}
