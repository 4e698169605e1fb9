//! What each party keeps of a garbling made ahead of time, and its byte encoding (the
//! state files of the CLI).

use mixgc_core::{Block, HashKind};
use mixgc_garble::BLOCKS_PER_AND;

use crate::codec::{Reader, Writer};
use crate::terms::{reveal_code, reveal_of_code};
use crate::{Audience, Terms};

/// The code of a stored garbling's audience. Only the three a circuit header accepts reach
/// a state; any other is written as a code no reader accepts, never a panic.
fn stored_reveal_code(reveal: Audience) -> u32 {
    reveal_code(reveal).map_or(u32::MAX, u32::from)
}

/// What the garbler keeps of a garbling made ahead of time. Secret: it holds Δ.
pub struct GarblerPrep {
    pub(super) id: [u8; 32],
    pub(super) stream_digest: [u8; 32],
    pub(super) input_widths: Vec<u32>,
    pub(super) output_widths: Vec<u32>,
    pub(super) garbler_values: u32,
    pub(super) reveal: Audience,
    pub(super) delta: Block,
    /// Zero-labels of the garbler's input bits, in circuit order.
    pub(super) own_zero: Vec<Block>,
    /// `A ⊕ K⁰` for each of the evaluator's input bits.
    pub(super) their_masks: Vec<Block>,
    /// Zero-labels of the constant-0 and constant-1 wires.
    pub(super) consts: [Block; 2],
    /// lsb of each output zero-label.
    pub(super) decoding: Vec<bool>,
}

/// What the evaluator keeps of a garbling made ahead of time (besides the tables, which
/// went to the store given to [`crate::EvaluatorSession::preprocess`]).
pub struct EvaluatorPrep {
    pub(super) id: [u8; 32],
    pub(super) stream_digest: [u8; 32],
    pub(super) input_widths: Vec<u32>,
    pub(super) garbler_values: u32,
    pub(super) reveal: Audience,
    pub(super) hash: HashKind,
    pub(super) hash_seed: Block,
    /// Global index of the garbling's first AND gate.
    pub(super) first_and: u64,
    pub(super) num_ands: u64,
    /// Random OT choice bits and the labels they selected.
    pub(super) choices: Vec<bool>,
    pub(super) labels: Vec<Block>,
    /// Output decoding, if the evaluator learns the outputs.
    pub(super) decoding: Option<Vec<bool>>,
}

const GARBLER_MAGIC: &[u8; 8] = b"MIXGCPG1";
const EVALUATOR_MAGIC: &[u8; 8] = b"MIXGCPE1";

impl GarblerPrep {
    /// The id both parties name this garbling by.
    pub fn id(&self) -> [u8; 32] {
        self.id
    }

    /// Width in bits of each input value of the garbled circuit.
    pub fn input_widths(&self) -> &[u32] {
        &self.input_widths
    }

    /// Who owns which input and who learns the outputs, as preprocessed.
    pub fn terms(&self) -> Terms {
        Terms {
            garbler_values: Some(self.garbler_values as usize),
            reveal: self.reveal,
        }
    }

    /// The encoding a garbler stores between the phases.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(GARBLER_MAGIC)
            .bytes(&self.id)
            .bytes(&self.stream_digest)
            .u32s(&self.input_widths)
            .u32s(&self.output_widths)
            .u32(self.garbler_values)
            .u32(stored_reveal_code(self.reveal))
            .blocks(&[self.delta])
            .blocks(&self.own_zero)
            .blocks(&self.their_masks)
            .blocks(&self.consts)
            .bits(&self.decoding);
        w.0
    }

    pub fn from_bytes(b: &[u8]) -> Result<GarblerPrep, String> {
        let bad = || "not a mixgc garbler preprocessing state (or a corrupted one)".to_string();
        let mut r = Reader(b);
        if r.take(8) != Some(&GARBLER_MAGIC[..]) {
            return Err(bad());
        }
        let prep = (|| {
            let id = r.array()?;
            let stream_digest = r.array()?;
            let input_widths = r.u32s(MAX_VALUES)?;
            let output_widths = r.u32s(MAX_VALUES)?;
            let garbler_values = r.u32()?;
            let reveal = reveal_of_code(u8::try_from(r.u32()?).ok()?)?;
            let delta = *r.blocks()?.first()?;
            let own_zero = r.blocks()?;
            let their_masks = r.blocks()?;
            let consts = r.blocks()?.try_into().ok()?;
            let decoding = r.bits()?;
            Some(GarblerPrep {
                id,
                stream_digest,
                input_widths,
                output_widths,
                garbler_values,
                reveal,
                delta,
                own_zero,
                their_masks,
                consts,
                decoding,
            })
        })()
        .ok_or_else(bad)?;
        let bits = |w: &[u32]| w.iter().map(|&w| w as usize).sum::<usize>();
        let consistent = r.0.is_empty()
            && prep.delta.lsb()
            && prep.own_zero.len() + prep.their_masks.len() == bits(&prep.input_widths)
            && prep.decoding.len() == bits(&prep.output_widths);
        consistent.then_some(prep).ok_or_else(bad)
    }
}

impl EvaluatorPrep {
    /// The id both parties name this garbling by.
    pub fn id(&self) -> [u8; 32] {
        self.id
    }

    /// Width in bits of each input value of the garbled circuit.
    pub fn input_widths(&self) -> &[u32] {
        &self.input_widths
    }

    /// Bytes of garbled tables the store holds.
    pub fn table_bytes(&self) -> u64 {
        self.num_ands * BLOCKS_PER_AND as u64 * 16
    }

    /// The encoding an evaluator stores next to the tables.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(EVALUATOR_MAGIC)
            .bytes(&self.id)
            .bytes(&self.stream_digest)
            .u32s(&self.input_widths)
            .u32(self.garbler_values)
            .u32(stored_reveal_code(self.reveal))
            .u32(self.hash.code() as u32)
            .blocks(&[self.hash_seed])
            .u64(self.first_and)
            .u64(self.num_ands)
            .bits(&self.choices)
            .blocks(&self.labels);
        match &self.decoding {
            Some(d) => w.u32(1).bits(d),
            None => w.u32(0),
        };
        w.0
    }

    pub fn from_bytes(b: &[u8]) -> Result<EvaluatorPrep, String> {
        let bad = || "not a mixgc evaluator preprocessing store (or a corrupted one)".to_string();
        let mut r = Reader(b);
        if r.take(8) != Some(&EVALUATOR_MAGIC[..]) {
            return Err(bad());
        }
        let prep = (|| {
            Some(EvaluatorPrep {
                id: r.array()?,
                stream_digest: r.array()?,
                input_widths: r.u32s(MAX_VALUES)?,
                garbler_values: r.u32()?,
                reveal: reveal_of_code(u8::try_from(r.u32()?).ok()?)?,
                hash: HashKind::from_code(u8::try_from(r.u32()?).ok()?)?,
                hash_seed: *r.blocks()?.first()?,
                first_and: r.u64()?,
                num_ands: r.u64()?,
                choices: r.bits()?,
                labels: r.blocks()?,
                decoding: match r.u32()? {
                    0 => None,
                    1 => Some(r.bits()?),
                    _ => return None,
                },
            })
        })()
        .ok_or_else(bad)?;
        let consistent = r.0.is_empty() && prep.choices.len() == prep.labels.len();
        consistent.then_some(prep).ok_or_else(bad)
    }

    /// Who owns which input and who learns the outputs, as preprocessed.
    pub fn terms(&self) -> Terms {
        Terms {
            garbler_values: Some(self.garbler_values as usize),
            reveal: self.reveal,
        }
    }
}

/// Most input or output values a stored state may list.
const MAX_VALUES: usize = 1 << 20;
