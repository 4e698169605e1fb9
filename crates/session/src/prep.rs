//! Preprocessing mode (ABLE §5.2.2, "preprocessing GC"): the circuit is garbled and the OTs
//! run ahead of time, and the garbled tables are stored on the evaluator's side. When the
//! inputs arrive, only input labels travel and the evaluator evaluates from storage.
//!
//! Offline ([`GarblerSession::preprocess`] / [`EvaluatorSession::preprocess`], on a normal
//! session): the garbler draws fresh zero-labels `A` for every input bit and garbles with
//! them; the evaluator runs correlated OT with *random* choice bits `r` and receives
//! `K_r = K⁰ ⊕ r·Δ`; the tables (and the evaluator's output decoding) go to the evaluator's
//! store. The garbler keeps `A ⊕ K⁰` for the evaluator's bits.
//!
//! Online ([`garbler_online`] / [`evaluator_online`], on a fresh connection without base
//! OT): the evaluator sends `d = x ⊕ r` (Beaver's derandomization of a precomputed OT);
//! the garbler answers with its own bits' labels `A ⊕ x·Δ`, the constants' labels, and
//! corrections `c = (A ⊕ K⁰) ⊕ d·Δ`, so that `K_r ⊕ c = A ⊕ (r ⊕ d)·Δ = A ⊕ x·Δ`: the
//! evaluator learns exactly one label per input bit. That is one round trip.
//!
//! A garbling's input labels may be released once only: with the labels of two input sets
//! the evaluator could learn both labels of a wire and so Δ. [`GarblerPrep`] is consumed by
//! [`garbler_online`], and each preprocessed garbling has a random id the evaluator must
//! name; a store that outlives its use (a file) must be destroyed before the labels leave
//! (the CLI renames the garbler's state file before it answers).

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use mixgc_compile::{GateStream, StreamHeader};
use mixgc_core::{AnyHash, Block, Reporter, Unit};
use mixgc_garble::{Evaluator, Scheme, BLOCKS_PER_AND};
use mixgc_net::{recv_frame, send_frame, send_heartbeat, Channel, PeerMisbehaved, Tag};
use rand::{Rng as _, RngCore};

use crate::bits::{pack, split, unpack};
use crate::codec::{Reader, Writer};
use crate::evaluator::{table_bytes, Consumer};
use crate::garbler::Producer;
use crate::handshake::{abort, abort_on_bad_input, agree_on_circuit, hex8};
use crate::outlet::Outbox;
use crate::pipe::{Direct, EvaluatorPlan, Inbox};
use crate::rows::RowWriter;
use crate::terms::{bits_of, check_inputs, phase};
use crate::{EvaluatorSession, GarblerSession, Outcome, PartyId, SessionError, Terms, PROTOCOL_VERSION};

mod state;

pub use state::{EvaluatorPrep, GarblerPrep};
use state::{GarblerPublic, GarblerSecrets, ReleaseKey};
use zeroize::Zeroize;

impl<C: Channel + 'static> GarblerSession<C> {
    /// Offline phase: garbles `circuit` once with fresh input labels, runs the OTs for the
    /// evaluator's input bits (random choices) and streams the tables to the evaluator.
    /// Returns what the garbler must keep, secretly, for [`garbler_online`].
    pub fn preprocess(
        &mut self,
        circuit: &mut dyn GateStream,
        terms: &Terms,
    ) -> Result<GarblerPrep, SessionError> {
        let result = self.preprocess_inner(circuit, terms);
        abort_on_bad_input(&mut self.ch, result)
    }

    fn preprocess_inner(
        &mut self,
        circuit: &mut dyn GateStream,
        terms: &Terms,
    ) -> Result<GarblerPrep, SessionError> {
        let header = circuit.header().clone();
        let widths = header.input_widths();
        let (mine, theirs) = terms.owners(widths).map_err(SessionError::Input)?;
        agree_on_circuit(&mut self.ch, &header, terms, 1)?;
        let mut id = [0u8; 32];
        self.rng.fill_bytes(&mut id);
        send_frame(&mut self.ch, Tag::Preprocessed, &id)?;
        self.ch.flush()?;

        let delta = self.core.delta();
        let their_bits = bits_of(&theirs, widths);
        let ot_zero = self.ot.send_correlated(&mut self.ch, delta, their_bits)?;
        let zero: Vec<Block> = (0..header.input_slots().len())
            .map(|_| Block::random(&mut self.rng))
            .collect();
        let consts = [Block::random(&mut self.rng), Block::random(&mut self.rng)];

        let mut producer = Producer {
            core: &mut self.core,
            rng: &mut self.rng,
            circuit,
            header: &header,
            mine: &mine,
            rows: RowWriter::new(self.batch_bytes),
            progress: &self.progress,
        };
        let learns = terms.reveal.contains(PartyId::EVALUATOR);
        let decoding = phase(
            &self.progress,
            "garbling",
            Some(header.num_ands()),
            Unit::Ands,
            || {
                let out = &mut self.ch;
                let decoding = producer.garble(&zero, consts, out)?;
                if learns {
                    out.push_frame(Tag::OutputDecoding, pack(&decoding))?;
                }
                out.flush()?;
                Ok::<_, SessionError>(decoding)
            },
        )?;

        // Exchange release keys: ours opens the evaluator's store online, theirs seals our
        // secrets now and is then forgotten.
        let mut store_key = [0u8; 32];
        self.rng.fill_bytes(&mut store_key);
        send_frame(&mut self.ch, Tag::ReleaseKey, &store_key)?;
        self.ch.flush()?;
        let mut state_key: ReleaseKey = recv_frame(&mut self.ch, Tag::ReleaseKey, 32)?
            .try_into()
            .map_err(|_| PeerMisbehaved::Malformed(Tag::ReleaseKey))?;

        let (mut own_zero, mut their_masks) = (Vec::new(), Vec::new());
        let mut ot_zero = ot_zero.iter();
        let mut labels = zero.iter();
        for (v, &w) in widths.iter().enumerate() {
            for a in labels.by_ref().take(w as usize) {
                if mine.contains(&v) {
                    own_zero.push(*a);
                } else {
                    their_masks.push(*a ^ *ot_zero.next().expect("one OT per evaluator bit"));
                }
            }
        }
        let public = GarblerPublic {
            id,
            stream_digest: header.stream_digest(),
            input_widths: widths.to_vec(),
            output_widths: header.output_widths().to_vec(),
            garbler_values: mine.len() as u32,
            reveal: terms.reveal,
            scheme: self.core.scheme(),
        };
        let secrets = GarblerSecrets {
            delta,
            own_zero,
            their_masks,
            consts,
            decoding,
            store_key,
        };
        let prep = GarblerPrep::seal(public, &secrets, &state_key);
        state_key.zeroize();
        Ok(prep)
    }
}

impl<C: Channel> EvaluatorSession<C> {
    /// Offline phase of a half-gates session: receives a garbling of `circuit` made ahead
    /// of time; its tables are written to `store` as they arrive (memory stays one frame).
    /// Returns what the evaluator keeps for [`evaluator_online`]. A three-halves session's
    /// table size depends on the circuit's AND runs: it takes
    /// [`EvaluatorSession::preprocess_stream`], and is refused here (on both sides).
    pub fn preprocess(
        &mut self,
        circuit: &StreamHeader,
        terms: &Terms,
        store: &mut dyn Write,
    ) -> Result<EvaluatorPrep, SessionError> {
        let result = match self.core.scheme() {
            Scheme::HalfGates => {
                let bytes = circuit.num_ands() as usize * BLOCKS_PER_AND * 16;
                self.preprocess_inner(circuit, bytes, terms, store)
            }
            scheme => Err(SessionError::Input(format!(
                "preprocessing from a circuit header alone takes half-gates, and this session \
                 uses {scheme}: give the evaluator the circuit's stream (preprocess_stream)"
            ))),
        };
        abort_on_bad_input(&mut self.ch, result)
    }

    /// [`EvaluatorSession::preprocess`] for either garbling scheme: reads `circuit`'s AND
    /// runs once to size the tables (three-halves garbles each run as one group).
    pub fn preprocess_stream(
        &mut self,
        circuit: &mut dyn GateStream,
        terms: &Terms,
        store: &mut dyn Write,
    ) -> Result<EvaluatorPrep, SessionError> {
        let header = circuit.header().clone();
        let result = table_bytes(self.core.scheme(), circuit, &header)
            .and_then(|bytes| self.preprocess_inner(&header, bytes, terms, store));
        abort_on_bad_input(&mut self.ch, result)
    }

    fn preprocess_inner(
        &mut self,
        header: &StreamHeader,
        all: usize,
        terms: &Terms,
        store: &mut dyn Write,
    ) -> Result<EvaluatorPrep, SessionError> {
        let widths = header.input_widths();
        let (garbler_owned, mine) = terms.owners(widths).map_err(SessionError::Input)?;
        agree_on_circuit(&mut self.ch, header, terms, 1)?;
        let id: [u8; 32] = recv_frame(&mut self.ch, Tag::Preprocessed, 32)?
            .try_into()
            .map_err(|_| PeerMisbehaved::Malformed(Tag::Preprocessed))?;
        let my_bits = bits_of(&mine, widths);
        let choices: Vec<bool> = (0..my_bits).map(|_| self.rng.gen()).collect();
        let labels = self.ot.receive_correlated(&mut self.ch, &choices)?;

        let mut inbox = Direct::new(&mut self.ch);
        let progress = &self.progress;
        let mut tables_digest = blake3::Hasher::new();
        phase(
            progress,
            "storing tables",
            Some(header.num_ands()),
            Unit::Ands,
            || {
                let mut left = all;
                while left > 0 {
                    let tables = inbox.recv_tables(left)?;
                    // The last frame of a three-halves garbling may end inside a block.
                    let bytes = &Block::slice_as_bytes(&tables)[..(tables.len() * 16).min(left)];
                    // ANDs whose tables are now complete, in proportion (exact for half-gates).
                    let complete = |left: usize| {
                        (u128::from(header.num_ands()) * (all - left) as u128 / all as u128) as u64
                    };
                    progress.advance(complete(left - bytes.len()) - complete(left));
                    left -= bytes.len();
                    tables_digest.update(bytes);
                    store
                        .write_all(bytes)
                        .map_err(|e| SessionError::Input(format!("cannot write the table store: {e}")))?;
                    inbox.recycle(tables);
                }
                Ok::<_, SessionError>(())
            },
        )?;
        let outputs = header.output_slots().len();
        let decoding = match terms.reveal.contains(PartyId::EVALUATOR) {
            true => Some(
                unpack(&inbox.recv(Tag::OutputDecoding, outputs.div_ceil(8))?, outputs)
                    .expect("length checked"),
            ),
            false => None,
        };
        store
            .flush()
            .map_err(|e| SessionError::Input(format!("cannot write the table store: {e}")))?;
        let mut store_key: ReleaseKey = inbox
            .recv(Tag::ReleaseKey, 32)?
            .try_into()
            .map_err(|_| PeerMisbehaved::Malformed(Tag::ReleaseKey))?;
        let mut state_key = [0u8; 32];
        self.rng.fill_bytes(&mut state_key);
        send_frame(&mut self.ch, Tag::ReleaseKey, &state_key)?;
        self.ch.flush()?;

        // The garbler's AND index moved past this garbling; ours follows, so the session's
        // tweaks stay in step for later executions.
        // (Skipped, not a new core: the session keeps its threads and settings.)
        let (hash, hash_seed) = self.hash;
        let first_and = self.core.ands_evaluated();
        self.core.skip_ands(header.num_ands());
        let mut prep = EvaluatorPrep {
            id,
            stream_digest: header.stream_digest(),
            input_widths: widths.to_vec(),
            garbler_values: garbler_owned.len() as u32,
            reveal: terms.reveal,
            hash,
            hash_seed,
            scheme: self.core.scheme(),
            table_bytes: all as u64,
            first_and,
            num_ands: header.num_ands(),
            choices,
            labels,
            decoding,
            tables_digest: *tables_digest.finalize().as_bytes(),
            state_key,
            mac: [0; 32],
        };
        prep.authenticate(&store_key);
        store_key.zeroize();
        state_key.zeroize();
        Ok(prep)
    }
}

/// The evaluator's online request: version, garbling id, stream digest, the key that opens
/// the garbler's state, `d = x ⊕ r`.
fn encode_request(prep: &EvaluatorPrep, d: &[bool]) -> Vec<u8> {
    let mut w = Writer::default();
    w.bytes(&PROTOCOL_VERSION.to_le_bytes())
        .bytes(&prep.id)
        .bytes(&prep.stream_digest)
        .bytes(&prep.state_key)
        .bits(d);
    w.0
}

/// Makes a stored state unusable a second time (the CLI renames and deletes its file).
/// Called once the peer has proven it holds the matching state, before anything that must
/// happen only once leaves this party; an error stops the run there.
pub type Claim<'a> = &'a mut dyn FnMut() -> Result<(), String>;

/// Online phase, garbler side, on a fresh connection: answers the evaluator's request for
/// `prep` with the labels of `inputs` (the garbler's values, as in
/// [`GarblerSession::execute`]). Consumes `prep`: its labels are released at most once.
pub fn garbler_online<C: Channel>(
    ch: &mut C,
    prep: GarblerPrep,
    inputs: &[Vec<bool>],
) -> Result<Outcome, SessionError> {
    garbler_online_claiming(ch, prep, inputs, &mut || Ok(()))
}

/// [`garbler_online`], calling `claim` once the evaluator's key has opened the state and
/// before any label leaves.
pub fn garbler_online_claiming<C: Channel>(
    ch: &mut C,
    prep: GarblerPrep,
    inputs: &[Vec<bool>],
    claim: Claim,
) -> Result<Outcome, SessionError> {
    let result = garbler_online_inner(ch, &prep, inputs, claim);
    if let Err(e @ (SessionError::Input(_) | SessionError::Mismatch(_))) = &result {
        abort(ch, e);
    }
    result
}

fn garbler_online_inner<C: Channel>(
    ch: &mut C,
    prep: &GarblerPrep,
    inputs: &[Vec<bool>],
    claim: Claim,
) -> Result<Outcome, SessionError> {
    let terms = prep.terms();
    let (mine, theirs) = terms.owners(&prep.input_widths).map_err(SessionError::Input)?;
    check_inputs("garbler", &mine, &prep.input_widths, inputs).map_err(SessionError::Input)?;
    let their_bits = bits_of(&theirs, &prep.input_widths);
    let max = 2 + 96 + 8 + their_bits.div_ceil(8);
    let request = recv_frame(ch, Tag::OnlineRequest, max)?;
    let mut r = Reader(&request);
    let malformed = || PeerMisbehaved::Malformed(Tag::OnlineRequest);
    let version = u16::from_le_bytes(r.array().ok_or_else(malformed)?);
    if version != PROTOCOL_VERSION {
        return Err(SessionError::Mismatch(format!(
            "protocol version differs: ours {PROTOCOL_VERSION}, the peer's {version}"
        )));
    }
    let id: [u8; 32] = r.array().ok_or_else(malformed)?;
    let digest: [u8; 32] = r.array().ok_or_else(malformed)?;
    if id != prep.id {
        return Err(SessionError::Mismatch(format!(
            "preprocessed garbling differs: ours {}…, the evaluator holds {}…",
            hex8(&prep.id),
            hex8(&id)
        )));
    }
    if digest != prep.stream_digest {
        return Err(SessionError::Mismatch(
            "compiled stream differs from the one preprocessed".into(),
        ));
    }
    let mut state_key: ReleaseKey = r.array().ok_or_else(malformed)?;
    let d = r
        .bits()
        .filter(|d| d.len() == their_bits && r.0.is_empty())
        .ok_or_else(malformed)?;
    let opened = prep.open(&state_key);
    state_key.zeroize();
    let prep_secrets = opened.ok_or_else(|| {
        SessionError::Mismatch(
            "the evaluator's store does not open this garbler state: the state file was modified \
             or corrupted, or the store is from another preprocessing"
                .into(),
        )
    })?;
    if bits_of(&mine, &prep.input_widths) != prep_secrets.own_zero.len() {
        return Err(SessionError::Input(
            "the preprocessing state does not match its own circuit widths (corrupted)".into(),
        ));
    }
    claim().map_err(SessionError::Input)?;

    let secrets = &prep_secrets;
    let delta = secrets.delta;
    let own_bits = inputs.iter().flatten();
    let mut labels: Vec<Block> = secrets
        .own_zero
        .iter()
        .zip(own_bits)
        .map(|(&a, &x)| a ^ delta.and_bit(x))
        .collect();
    labels.extend([secrets.consts[0], secrets.consts[1] ^ delta]);
    let corrections: Vec<Block> = secrets
        .their_masks
        .iter()
        .zip(&d)
        .map(|(&m, &d)| m ^ delta.and_bit(d))
        .collect();
    send_frame(ch, Tag::ReleaseKey, &secrets.store_key)?;
    send_frame(ch, Tag::GarblerLabels, Block::slice_as_bytes(&labels))?;
    send_frame(ch, Tag::LabelCorrections, Block::slice_as_bytes(&corrections))?;
    ch.flush()?;

    let outputs = if prep.reveal.contains(PartyId::GARBLER) {
        let n = secrets.decoding.len();
        let colours = recv_frame(ch, Tag::OutputColours, n.div_ceil(8))?;
        let colours = unpack(&colours, n).ok_or(PeerMisbehaved::WrongLength {
            tag: Tag::OutputColours,
            len: colours.len(),
            expected: n.div_ceil(8),
        })?;
        let bits: Vec<bool> = colours
            .iter()
            .zip(&secrets.decoding)
            .map(|(c, d)| c ^ d)
            .collect();
        Some(split(&bits, &prep.output_widths))
    } else {
        None
    };
    Ok(Outcome { outputs, ands: 0 })
}

/// Online phase, evaluator side, on a fresh connection: sends its masked inputs, receives
/// the labels and evaluates `circuit` with the tables read from `tables` (the store
/// written by [`EvaluatorSession::preprocess`]).
pub fn evaluator_online<C: Channel>(
    ch: &mut C,
    prep: &EvaluatorPrep,
    circuit: &mut dyn GateStream,
    tables: &mut dyn Read,
    inputs: &[Vec<bool>],
) -> Result<Outcome, SessionError> {
    evaluator_online_claiming(ch, prep, circuit, tables, inputs, &Reporter::none(), &mut || {
        Ok(())
    })
}

/// [`evaluator_online`], reporting the ANDs evaluated to `progress` and calling `claim`
/// just before its masked inputs leave (from then on the store is spent: a second request
/// with other inputs would tell the garbler their XOR).
pub fn evaluator_online_claiming<C: Channel>(
    ch: &mut C,
    prep: &EvaluatorPrep,
    circuit: &mut dyn GateStream,
    tables: &mut dyn Read,
    inputs: &[Vec<bool>],
    progress: &Reporter,
    claim: Claim,
) -> Result<Outcome, SessionError> {
    let result = evaluator_online_inner(ch, prep, circuit, tables, inputs, progress, claim);
    abort_on_bad_input(ch, result)
}

fn evaluator_online_inner<C: Channel>(
    ch: &mut C,
    prep: &EvaluatorPrep,
    circuit: &mut dyn GateStream,
    tables: &mut dyn Read,
    inputs: &[Vec<bool>],
    progress: &Reporter,
    claim: Claim,
) -> Result<Outcome, SessionError> {
    let header = circuit.header().clone();
    if header.stream_digest() != prep.stream_digest || header.input_widths() != prep.input_widths {
        return Err(SessionError::Input(
            "the circuit is not the one this store was preprocessed for".into(),
        ));
    }
    if table_bytes(prep.scheme, circuit, &header)? as u64 != prep.table_bytes {
        return Err(SessionError::Input(format!(
            "the preprocessing store's tables do not fit the circuit under {} garbling (corrupted)",
            prep.scheme
        )));
    }
    let terms = prep.terms();
    let (_, mine) = terms.owners(&prep.input_widths).map_err(SessionError::Input)?;
    if bits_of(&mine, &prep.input_widths) != prep.labels.len() {
        return Err(SessionError::Input(
            "the preprocessing store does not match its own circuit widths (corrupted)".into(),
        ));
    }
    check_inputs("evaluator", &mine, &prep.input_widths, inputs).map_err(SessionError::Input)?;
    let d: Vec<bool> = inputs
        .iter()
        .flatten()
        .zip(&prep.choices)
        .map(|(x, r)| x ^ r)
        .collect();
    claim().map_err(SessionError::Input)?;
    send_frame(ch, Tag::OnlineRequest, &encode_request(prep, &d))?;
    ch.flush()?;

    let mut store_key: ReleaseKey = Direct::new(&mut *ch)
        .recv(Tag::ReleaseKey, 32)?
        .try_into()
        .map_err(|_| PeerMisbehaved::Malformed(Tag::ReleaseKey))?;
    let authentic = prep.is_authentic(&store_key);
    store_key.zeroize();
    if !authentic {
        return Err(SessionError::Input(
            "the preprocessing store fails its integrity check under the garbler's key: it was \
             modified or corrupted"
                .into(),
        ));
    }
    let my_bits = prep.labels.len();
    let labels_bytes = (header.input_slots().len() - my_bits + 2) * 16;
    let garbler_labels = Direct::new(&mut *ch).recv(Tag::GarblerLabels, labels_bytes)?;
    let corrections = Direct::new(&mut *ch).recv(Tag::LabelCorrections, my_bits * 16)?;
    let my_labels: Vec<Block> = corrections
        .chunks_exact(16)
        .zip(&prep.labels)
        .map(|(c, &k)| k ^ Block::from_bytes(c.try_into().unwrap()))
        .collect();

    let mut core = Evaluator::with_scheme(
        AnyHash::new(prep.hash, prep.hash_seed),
        prep.scheme,
        prep.first_and,
    );
    let mut consumer = Consumer {
        core: &mut core,
        circuit,
        header: &header,
        mine: &mine,
        plan: EvaluatorPlan {
            instances: 1,
            labels_bytes,
            table_bytes: prep.table_bytes as usize,
            decoding_bytes: None,
        },
        progress,
    };
    let mut stored = Stored {
        labels: Some(garbler_labels),
        tables,
        digest: blake3::Hasher::new(),
        spare: Vec::new(),
        // Only a garbler that learns an output waits for the evaluation.
        peer: prep.reveal.contains(PartyId::GARBLER).then_some(&mut *ch),
        last_beat: Instant::now(),
    };
    phase(progress, "evaluating", Some(prep.num_ands), Unit::Ands, || {
        consumer.instance(&my_labels, &mut stored)
    })?;
    let digest = stored.digest.finalize();
    drop(stored);
    if blake3::Hash::from(prep.tables_digest) != digest {
        return Err(SessionError::Input(
            "the stored tables fail their integrity check: the store was modified or corrupted \
             (no output is given)"
                .into(),
        ));
    }
    let colours: Vec<bool> = core.output_labels(&header).iter().map(|l| l.lsb()).collect();
    if prep.reveal.contains(PartyId::GARBLER) {
        send_frame(ch, Tag::OutputColours, &pack(&colours))?;
        ch.flush()?;
    }
    let outputs = prep.decoding.as_ref().map(|d| {
        let bits: Vec<bool> = colours.iter().zip(d).map(|(c, d)| c ^ d).collect();
        split(&bits, header.output_widths())
    });
    Ok(Outcome {
        outputs,
        ands: prep.num_ands,
    })
}

/// Table frames served from storage (the garbler-labels frame from memory).
struct Stored<'r, C: Channel> {
    labels: Option<Vec<u8>>,
    tables: &'r mut dyn Read,
    /// BLAKE3 of the tables read so far.
    digest: blake3::Hasher,
    spare: Vec<Block>,
    /// The garbler, who waits for the outputs meanwhile: it gets a heartbeat every
    /// [`HEARTBEAT_EVERY`] so that a long evaluation is not mistaken for a dead evaluator.
    peer: Option<&'r mut C>,
    last_beat: Instant,
}

/// How often a party busy with a local evaluation tells its waiting peer it is alive: a
/// third of the shortest `--timeout` (1 s) or less.
const HEARTBEAT_EVERY: Duration = Duration::from_millis(250);

/// Blocks read from storage at a time.
const STORED_READ_BLOCKS: usize = 1 << 16;
/// Blocks read between two looks at the heartbeat clock.
const HEARTBEAT_READ_BLOCKS: usize = 1 << 12;

impl<C: Channel> Inbox for Stored<'_, C> {
    fn recv(&mut self, tag: Tag, _len: usize) -> Result<Vec<u8>, SessionError> {
        match (tag, self.labels.take()) {
            (Tag::GarblerLabels, Some(labels)) => Ok(labels),
            _ => Err(SessionError::Input(format!(
                "no {tag} frame in a preprocessed garbling"
            ))),
        }
    }

    fn recv_tables(&mut self, left: usize) -> Result<Vec<Block>, SessionError> {
        // Three-halves tables may end inside a block: the last read stops at `left` bytes.
        let len = left.min(STORED_READ_BLOCKS * 16);
        let mut buf = std::mem::take(&mut self.spare);
        buf.clear();
        buf.resize(len.div_ceil(16), Block::ZERO);
        // In pieces, so that a slow store still lets the heartbeat out in time.
        for bytes in Block::slice_as_bytes_mut(&mut buf)[..len].chunks_mut(HEARTBEAT_READ_BLOCKS * 16) {
            self.tables
                .read_exact(bytes)
                .map_err(|e| SessionError::Input(format!("reading the stored tables: {e}")))?;
            self.digest.update(bytes);
            if let Some(peer) = self.peer.as_deref_mut() {
                if self.last_beat.elapsed() >= HEARTBEAT_EVERY {
                    send_heartbeat(peer)?;
                    self.last_beat = Instant::now();
                }
            }
        }
        Ok(buf)
    }

    fn recycle(&mut self, buf: Vec<Block>) {
        self.spare = buf;
    }
}
