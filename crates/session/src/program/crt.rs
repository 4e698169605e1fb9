//! CRT values in two-party program runs: [`CrtBackend`] for [`ProgramGarbler`] and
//! [`ProgramEvaluator`] (ABLE, Mo et al., §2–3; gadgets of BMR16 "Garbling gadgets").
//!
//! A bundle is a [`CrtBundle`]: the residues' zero-labels at the garbler, their active
//! labels at the evaluator. The mod-2 residue, the select bit of a mux and the bits of BC and
//! BD are ordinary session wires: the arithmetic garbler's Δ_2 is the session's free-XOR Δ.
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
//! switch or the end of the run. The evaluator reads exactly the bytes each gadget has
//! ([`mixgc_arith::table_bytes`], known to both parties from the prime set), reading frames
//! only while it lacks some of them: it never waits for rows the garbler still buffers,
//! because the garbler flushes before anything it waits for.
//!
//! **Costs** ([`mixgc_arith::cost::protocol`]): a garbler input sends the packed active label
//! of each residue ([`Tag::GarblerLabels`]); an evaluator input runs one correlated OT per
//! bit of each residue (bitlen(p − 1) bits) and lifts each bit to Z_p with a one-row
//! projection; a reveal sends one u16 per residue each way needed ([`Tag::OutputDecoding`],
//! [`Tag::OutputColours`]). Constants, +, −, negation and public scaling are free; the
//! gadgets send their garbled rows and nothing else.
//!
//! **Errors.** An arithmetic error (a BD beyond its width limit, bundles over different
//! sets) or a network failure inside a gadget is recorded; later gadgets do nothing and the
//! next input, output or [`ProgramGarbler::finish`] reports it, as on the Boolean path.
//! Malformed rows or labels from the garbler are errors at the evaluator. A CRT input that
//! is missing or not below N is refused by its owner before anything of it is sent, and the
//! owner tells the peer with an abort frame.

use mixgc_arith::{
    residue_bit_counts, residue_choice_bits, table_bytes, ArithError, ArithEvaluator, ArithGarbler,
    CrtBundle, TableReader,
};
use mixgc_core::{Block, Rng};
use mixgc_net::{recv_frame, send_abort, send_frame, Channel, Divergence, PeerMisbehaved, Tag};
use mixgc_program::{Audience, CrtBackend, PartyId, PrimeSet, ProgramError};
use rand::{Rng as _, SeedableRng};

use super::{peer, record_first, FirstError, ProgramEvaluator, ProgramGarbler};
use crate::{EvaluatorSession, GarblerSession, SessionError};

/// Bytes of the arithmetic hash key frame.
const KEY_BYTES: usize = 32;

/// Bytes of one residue's decoding or colour in a reveal (primes are below 2^16).
const RESIDUE_BYTES: usize = 2;

/// Stand-in labels for the result of a failed gadget (the failure is reported at the next
/// input or output, so they are never decoded).
fn placeholder(set: &PrimeSet) -> CrtBundle {
    ArithEvaluator::constant_bundle(set)
}

/// bitlen(N − 1): the width of a bit decomposition.
fn decomposition_width(set: &PrimeSet) -> usize {
    (u128::BITS - (set.product() - 1).leading_zeros()) as usize
}

/// Both operands over one set, or the error both parties record alike.
fn same_set(a: &CrtBundle, b: &CrtBundle) -> Result<(), ArithError> {
    if a.set() == b.set() {
        Ok(())
    } else {
        Err(ArithError::BundleMismatch)
    }
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

/// Result of a free operation on bundles: recorded where it fails.
fn record(error: &mut FirstError, r: Result<CrtBundle, ArithError>, set: &PrimeSet) -> CrtBundle {
    r.unwrap_or_else(|e| {
        record_first(error, e);
        placeholder(set)
    })
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

impl<C: Channel + 'static> CrtBackend for ProgramGarbler<'_, C> {
    type Bundle = CrtBundle;

    fn crt_input(
        &mut self,
        owner: PartyId,
        set: &PrimeSet,
        value: Option<u128>,
    ) -> Result<CrtBundle, ProgramError> {
        let index = self.inputs;
        self.inputs += 1;
        self.sync()?;
        match owner {
            PartyId::GARBLER => {
                let v = owned_value(index, owner, set, value).map_err(|e| self.refuse(e))?;
                let g = self.arith_synced()?;
                let zero = g.new_bundle(set);
                let active = g.bundle_input_bytes(&zero, v).map_err(peer)?;
                send_frame(&mut self.s.ch, Tag::GarblerLabels, &active).map_err(peer)?;
                Ok(zero)
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
                    |g, rows| g.residues_from_bits(&bits, set, rows),
                );
                self.checked(bundle)
            }
            other => Err(ProgramError::NoSuchParty(other)),
        }
    }

    fn crt_constant(&mut self, set: &PrimeSet, value: u128) -> CrtBundle {
        self.start_arith();
        match self.s.arith.as_mut() {
            Some(g) => g.constant_bundle(set, value),
            None => placeholder(set),
        }
    }

    fn crt_add(&mut self, a: &CrtBundle, b: &CrtBundle) -> CrtBundle {
        record(&mut self.error, a.add(b), a.set())
    }

    fn crt_sub(&mut self, a: &CrtBundle, b: &CrtBundle) -> CrtBundle {
        record(&mut self.error, a.sub(b), a.set())
    }

    fn crt_scale(&mut self, a: &CrtBundle, c: u128) -> CrtBundle {
        a.scale(c)
    }

    fn crt_mul(&mut self, a: &CrtBundle, b: &CrtBundle) -> CrtBundle {
        self.garble(|| placeholder(a.set()), |g, rows| g.mul_bundle(a, b, rows))
    }

    fn crt_pow(&mut self, a: &CrtBundle, e: u64) -> CrtBundle {
        self.garble(|| placeholder(a.set()), |g, rows| g.pow_bundle(a, e, rows))
    }

    fn crt_mux(&mut self, select: Block, yes: &CrtBundle, no: &CrtBundle) -> CrtBundle {
        self.garble(
            || placeholder(no.set()),
            |g, rows| g.mux_bundle(select, yes, no, rows),
        )
    }

    fn crt_from_bits(&mut self, bits: &[Block], set: &PrimeSet) -> CrtBundle {
        self.garble(|| placeholder(set), |g, rows| g.crt_compose(bits, set, rows))
    }

    fn crt_to_bits(&mut self, a: &CrtBundle) -> Vec<Block> {
        let width = decomposition_width(a.set());
        self.garble(|| vec![Block::ZERO; width], |g, rows| g.crt_decompose(a, rows))
    }

    fn crt_output(&mut self, a: &CrtBundle) -> Result<Option<u128>, ProgramError> {
        self.crt_output_to(a, self.reveal)
    }

    /// Sends the decoding of each residue (its zero-label's colour) where the evaluator
    /// learns; reads the evaluator's colours where the garbler learns.
    fn crt_output_to(&mut self, a: &CrtBundle, to: Audience) -> Result<Option<u128>, ProgramError> {
        self.sync()?;
        let decoding = ArithGarbler::bundle_decoding(a);
        if to.contains(PartyId::EVALUATOR) {
            let bytes = encode_residues(decoding.iter().copied());
            send_frame(&mut self.s.ch, Tag::OutputDecoding, &bytes).map_err(peer)?;
            self.s.ch.flush().map_err(peer)?;
        }
        if !to.contains(PartyId::GARBLER) {
            return Ok(None);
        }
        let set = a.set();
        let len = set.primes().len() * RESIDUE_BYTES;
        let colours = recv_frame(&mut self.s.ch, Tag::OutputColours, len).map_err(peer)?;
        let colours = decode_residues(&colours, set, Tag::OutputColours)?;
        let residues: Vec<u64> = colours
            .iter()
            .zip(&decoding)
            .zip(set.primes())
            .map(|((&c, &d), &p)| (c + p - d) % p)
            .collect();
        set.decode(&residues).map(Some).map_err(peer)
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

impl<C: Channel> CrtBackend for ProgramEvaluator<'_, C> {
    type Bundle = CrtBundle;

    fn crt_input(
        &mut self,
        owner: PartyId,
        set: &PrimeSet,
        value: Option<u128>,
    ) -> Result<CrtBundle, ProgramError> {
        let index = self.inputs;
        self.inputs += 1;
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
                ArithEvaluator::read_bundle(set, &bytes)
                    .map_err(|source| peer(SessionError::GarblerCrtInput { index, source }))
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
                    |ev, tables| ev.residues_from_bits(&bits, set, tables),
                );
                self.checked(bundle)
            }
            other => Err(ProgramError::NoSuchParty(other)),
        }
    }

    fn crt_constant(&mut self, set: &PrimeSet, _value: u128) -> CrtBundle {
        self.start_arith();
        ArithEvaluator::constant_bundle(set)
    }

    fn crt_add(&mut self, a: &CrtBundle, b: &CrtBundle) -> CrtBundle {
        record(&mut self.error, a.add(b), a.set())
    }

    fn crt_sub(&mut self, a: &CrtBundle, b: &CrtBundle) -> CrtBundle {
        record(&mut self.error, a.sub(b), a.set())
    }

    fn crt_scale(&mut self, a: &CrtBundle, c: u128) -> CrtBundle {
        a.scale(c)
    }

    fn crt_mul(&mut self, a: &CrtBundle, b: &CrtBundle) -> CrtBundle {
        let bytes = same_set(a, b).map(|()| table_bytes::mul_bundle(a.set()));
        self.evaluate(bytes, || placeholder(a.set()), |ev, t| ev.mul_bundle(a, b, t))
    }

    fn crt_pow(&mut self, a: &CrtBundle, _e: u64) -> CrtBundle {
        let bytes = Ok(table_bytes::pow_bundle(a.set()));
        self.evaluate(bytes, || placeholder(a.set()), |ev, t| ev.project_bundle(a, t))
    }

    fn crt_mux(&mut self, select: Block, yes: &CrtBundle, no: &CrtBundle) -> CrtBundle {
        let bytes = same_set(yes, no).map(|()| table_bytes::mux_bundle(no.set()));
        self.evaluate(
            bytes,
            || placeholder(no.set()),
            |ev, t| ev.mux_bundle(select, yes, no, t),
        )
    }

    fn crt_from_bits(&mut self, bits: &[Block], set: &PrimeSet) -> CrtBundle {
        let bytes = Ok(table_bytes::crt_compose(bits.len(), set));
        self.evaluate(bytes, || placeholder(set), |ev, t| ev.crt_compose(bits, set, t))
    }

    fn crt_to_bits(&mut self, a: &CrtBundle) -> Vec<Block> {
        let width = decomposition_width(a.set());
        let bytes = table_bytes::crt_decompose(a.set());
        self.evaluate(bytes, || vec![Block::ZERO; width], |ev, t| ev.crt_decompose(a, t))
    }

    fn crt_output(&mut self, a: &CrtBundle) -> Result<Option<u128>, ProgramError> {
        self.crt_output_to(a, self.reveal)
    }

    /// Decodes with the garbler's decodings where the evaluator learns; sends the residues'
    /// colours where the garbler learns.
    fn crt_output_to(&mut self, a: &CrtBundle, to: Audience) -> Result<Option<u128>, ProgramError> {
        self.sync()?;
        let set = a.set();
        let learned = if to.contains(PartyId::EVALUATOR) {
            let len = set.primes().len() * RESIDUE_BYTES;
            let bytes = recv_frame(&mut self.s.ch, Tag::OutputDecoding, len).map_err(peer)?;
            let decoding = decode_residues(&bytes, set, Tag::OutputDecoding)?;
            Some(ArithEvaluator::decode_bundle(a, &decoding).map_err(peer)?)
        } else {
            None
        };
        if to.contains(PartyId::GARBLER) {
            let colours = encode_residues(a.wires().iter().map(|w| w.colour()));
            send_frame(&mut self.s.ch, Tag::OutputColours, &colours).map_err(peer)?;
            self.s.ch.flush().map_err(peer)?;
        }
        Ok(learned)
    }
}
