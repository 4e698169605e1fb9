//! What each party keeps of a garbling made ahead of time, and its byte encoding (the
//! state files of the CLI).
//!
//! Each file is useless without a key that only the other party holds and releases once,
//! online (`docs/security.md`, "Preprocessing mode"):
//! - the garbler's secrets (Δ, label masks) are sealed with ChaCha20-Poly1305 under a key
//!   derived from the evaluator's *state key*, which the evaluator keeps in its store and
//!   sends in its online request; the garbler forgets it after sealing;
//! - the evaluator's store (its OT results and a digest of the tables) is authenticated
//!   with keyed BLAKE3 under the garbler's *store key*, which the garbler keeps inside its
//!   sealed secrets and sends in its online answer; the evaluator forgets it after the MAC.
//!
//! So a flipped byte in either file is caught, and a copy of the garbler's state cannot be
//! answered twice unless the evaluator also reuses a store it has consumed.

use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::ChaCha20Poly1305;
use mixgc_core::{Block, HashKind};
use mixgc_garble::{three_halves_group_bytes, Scheme, BLOCKS_PER_AND, MAX_AND_GROUP};
use zeroize::Zeroize;

use crate::codec::{Reader, Writer};
use crate::handshake::{scheme_code, scheme_of_code};
use crate::terms::{reveal_code, reveal_of_code};
use crate::{Audience, Terms};

/// A key released by one party to open the other's stored state.
pub(crate) type ReleaseKey = [u8; 32];

/// The code of a stored garbling's audience. Only the three a circuit header accepts reach
/// a state; any other is written as a code no reader accepts, never a panic.
fn stored_reveal_code(reveal: Audience) -> u32 {
    reveal_code(reveal).map_or(u32::MAX, u32::from)
}

/// What the garbler keeps of a garbling made ahead of time: public terms in clear, its
/// secrets sealed (see the module docs). Opening needs the evaluator's state key.
pub struct GarblerPrep {
    pub(super) id: [u8; 32],
    pub(super) stream_digest: [u8; 32],
    pub(super) input_widths: Vec<u32>,
    pub(super) output_widths: Vec<u32>,
    pub(super) garbler_values: u32,
    pub(super) reveal: Audience,
    /// How the garbling's ANDs were garbled (agreed in the preprocessing session's hello).
    pub(super) scheme: Scheme,
    /// [`GarblerSecrets`], encrypted and authenticated together with the fields above.
    sealed: Vec<u8>,
}

/// The garbler's secrets of one preprocessed garbling; wiped when dropped.
pub(crate) struct GarblerSecrets {
    pub(crate) delta: Block,
    /// Zero-labels of the garbler's input bits, in circuit order.
    pub(crate) own_zero: Vec<Block>,
    /// `A ⊕ K⁰` for each of the evaluator's input bits.
    pub(crate) their_masks: Vec<Block>,
    /// Zero-labels of the constant-0 and constant-1 wires.
    pub(crate) consts: [Block; 2],
    /// lsb of each output zero-label.
    pub(crate) decoding: Vec<bool>,
    /// Opens the evaluator's store; released in the online answer.
    pub(crate) store_key: ReleaseKey,
}

impl Drop for GarblerSecrets {
    fn drop(&mut self) {
        self.delta = Block::ZERO;
        wipe_blocks(&mut self.own_zero);
        wipe_blocks(&mut self.their_masks);
        wipe_blocks(&mut self.consts);
        self.decoding.zeroize();
        self.store_key.zeroize();
    }
}

pub(crate) fn wipe_blocks(blocks: &mut [Block]) {
    Block::slice_as_bytes_mut(blocks).zeroize();
}

/// What the evaluator keeps of a garbling made ahead of time (besides the tables, which
/// went to the store given to [`crate::EvaluatorSession::preprocess`]). Its fields are
/// checked against the garbler's store key online, before anything is evaluated.
pub struct EvaluatorPrep {
    pub(super) id: [u8; 32],
    pub(super) stream_digest: [u8; 32],
    pub(super) input_widths: Vec<u32>,
    pub(super) garbler_values: u32,
    pub(super) reveal: Audience,
    pub(super) hash: HashKind,
    pub(super) hash_seed: Block,
    /// How the garbling's ANDs were garbled, and the bytes of tables the store holds.
    pub(super) scheme: Scheme,
    pub(super) table_bytes: u64,
    /// Global index of the garbling's first AND gate.
    pub(super) first_and: u64,
    pub(super) num_ands: u64,
    /// Random OT choice bits and the labels they selected.
    pub(super) choices: Vec<bool>,
    pub(super) labels: Vec<Block>,
    /// Output decoding, if the evaluator learns the outputs.
    pub(super) decoding: Option<Vec<bool>>,
    /// BLAKE3 of the stored tables.
    pub(super) tables_digest: [u8; 32],
    /// Opens the garbler's state; released in the online request.
    pub(super) state_key: ReleaseKey,
    /// Keyed BLAKE3 of everything above under the garbler's store key.
    pub(super) mac: [u8; 32],
}

impl Drop for EvaluatorPrep {
    fn drop(&mut self) {
        self.choices.zeroize();
        wipe_blocks(&mut self.labels);
        self.state_key.zeroize();
    }
}

/// Format 3 added the garbling scheme (and, in the evaluator's store, its table bytes).
const GARBLER_MAGIC: &[u8; 8] = b"MIXGCPG3";
const EVALUATOR_MAGIC: &[u8; 8] = b"MIXGCPE3";
/// Earlier formats, recognised only to say so.
const OLD_MAGICS: [&[u8; 8]; 2] = [b"MIXGCPG2", b"MIXGCPE2"];

/// The error for a state whose magic is not `magic`: an older format is named as such.
fn unreadable(b: &[u8], what: &str) -> String {
    if OLD_MAGICS.iter().any(|m| b.starts_with(&m[..])) {
        format!(
            "a mixgc {what} written by an older version (format 2, which does not record the \
             garbling scheme): preprocess again"
        )
    } else {
        format!("not a mixgc {what} (or a corrupted one)")
    }
}

/// The code of `scheme` in a stored state.
fn stored_scheme_code(scheme: Scheme) -> u32 {
    u32::from(scheme_code(scheme))
}

fn stored_scheme(code: u32) -> Option<Scheme> {
    scheme_of_code(u8::try_from(code).ok()?)
}

/// Whether `bytes` can be the tables of `ands` ANDs under `scheme`: half-gates takes 32
/// bytes per AND; three-halves' groups of 1 to [`MAX_AND_GROUP`] ANDs take 24 bytes per
/// AND plus ⌈5n/8⌉ per group of n, so between the sizes of all-full and all-single groups.
fn plausible_table_bytes(scheme: Scheme, ands: u64, bytes: u64) -> bool {
    let Ok(ands) = usize::try_from(ands) else {
        return false;
    };
    match scheme {
        Scheme::HalfGates => ands.checked_mul(BLOCKS_PER_AND * 16).map(|b| b as u64) == Some(bytes),
        Scheme::ThreeHalves => {
            let full = ands / MAX_AND_GROUP;
            let least = full
                .checked_mul(three_halves_group_bytes(MAX_AND_GROUP))
                .map(|b| b + three_halves_group_bytes(ands % MAX_AND_GROUP));
            let most = ands.checked_mul(three_halves_group_bytes(1));
            matches!((least, most), (Some(l), Some(m)) if (l as u64..=m as u64).contains(&bytes))
        }
    }
}

/// The AEAD key of a garbler's sealed secrets: one key per garbling, so the fixed nonce
/// is never reused.
fn seal_key(state_key: &ReleaseKey, id: &[u8; 32]) -> ChaCha20Poly1305 {
    let mut material = [0u8; 64];
    material[..32].copy_from_slice(state_key);
    material[32..].copy_from_slice(id);
    let mut key = blake3::derive_key("mixgc/prep-garbler-seal/v1", &material);
    material.zeroize();
    let cipher = ChaCha20Poly1305::new(&key.into());
    key.zeroize();
    cipher
}

const SEAL_NONCE: [u8; 12] = [0; 12];

impl GarblerPrep {
    /// Seals `secrets` under `state_key` (which the caller then forgets).
    pub(crate) fn seal(
        public: GarblerPublic,
        secrets: &GarblerSecrets,
        state_key: &ReleaseKey,
    ) -> GarblerPrep {
        let mut prep = GarblerPrep {
            id: public.id,
            stream_digest: public.stream_digest,
            input_widths: public.input_widths,
            output_widths: public.output_widths,
            garbler_values: public.garbler_values,
            reveal: public.reveal,
            scheme: public.scheme,
            sealed: Vec::new(),
        };
        let mut plain = Writer::default();
        plain
            .blocks(&[secrets.delta])
            .blocks(&secrets.own_zero)
            .blocks(&secrets.their_masks)
            .blocks(&secrets.consts)
            .bits(&secrets.decoding)
            .bytes(&secrets.store_key);
        let aad = prep.public_bytes();
        prep.sealed = seal_key(state_key, &prep.id)
            .encrypt(
                &SEAL_NONCE.into(),
                Payload {
                    msg: &plain.0,
                    aad: &aad,
                },
            )
            .expect("sealing a state in memory cannot fail");
        plain.0.zeroize();
        prep
    }

    /// Opens the secrets with the evaluator's `state_key`; `None` if the key is not the
    /// one this state was sealed under or any byte of the state changed.
    pub(crate) fn open(&self, state_key: &ReleaseKey) -> Option<GarblerSecrets> {
        let aad = self.public_bytes();
        let mut plain = seal_key(state_key, &self.id)
            .decrypt(
                &SEAL_NONCE.into(),
                Payload {
                    msg: &self.sealed,
                    aad: &aad,
                },
            )
            .ok()?;
        let mut r = Reader(&plain);
        let secrets = (|| {
            let secrets = GarblerSecrets {
                delta: *r.blocks()?.first()?,
                own_zero: r.blocks()?,
                their_masks: r.blocks()?,
                consts: r.blocks()?.try_into().ok()?,
                decoding: r.bits()?,
                store_key: r.array()?,
            };
            r.0.is_empty().then_some(secrets)
        })();
        plain.zeroize();
        let bits = |w: &[u32]| w.iter().map(|&w| w as usize).sum::<usize>();
        secrets.filter(|s| {
            s.delta.lsb()
                && s.own_zero.len() + s.their_masks.len() == bits(&self.input_widths)
                && s.decoding.len() == bits(&self.output_widths)
        })
    }

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

    /// How the garbling's ANDs were garbled.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// The fields stored in clear (and authenticated by the seal).
    fn public_bytes(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(GARBLER_MAGIC)
            .bytes(&self.id)
            .bytes(&self.stream_digest)
            .u32s(&self.input_widths)
            .u32s(&self.output_widths)
            .u32(self.garbler_values)
            .u32(stored_reveal_code(self.reveal))
            .u32(stored_scheme_code(self.scheme));
        w.0
    }

    /// The encoding a garbler stores between the phases: the public fields, then the
    /// sealed secrets.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer(self.public_bytes());
        w.u64(self.sealed.len() as u64).bytes(&self.sealed);
        w.0
    }

    /// Reads a stored state. Only its structure is checked here: whether it is intact and
    /// belongs to the evaluator's store shows when the evaluator's state key opens it.
    pub fn from_bytes(b: &[u8]) -> Result<GarblerPrep, String> {
        let bad = || unreadable(b, "garbler preprocessing state");
        let mut r = Reader(b);
        if r.take(8) != Some(&GARBLER_MAGIC[..]) {
            return Err(bad());
        }
        let prep = (|| {
            Some(GarblerPrep {
                id: r.array()?,
                stream_digest: r.array()?,
                input_widths: r.u32s(MAX_VALUES)?,
                output_widths: r.u32s(MAX_VALUES)?,
                garbler_values: r.u32()?,
                reveal: reveal_of_code(u8::try_from(r.u32()?).ok()?)?,
                scheme: stored_scheme(r.u32()?)?,
                sealed: {
                    let n = usize::try_from(r.u64()?).ok()?;
                    r.take(n)?.to_vec()
                },
            })
        })()
        .ok_or_else(bad)?;
        r.0.is_empty().then_some(prep).ok_or_else(bad)
    }
}

/// The public terms of a garbler's state, before sealing.
pub(crate) struct GarblerPublic {
    pub(crate) id: [u8; 32],
    pub(crate) stream_digest: [u8; 32],
    pub(crate) input_widths: Vec<u32>,
    pub(crate) output_widths: Vec<u32>,
    pub(crate) garbler_values: u32,
    pub(crate) reveal: Audience,
    pub(crate) scheme: Scheme,
}

/// The MAC key of an evaluator's store under the garbler's `store_key`.
fn store_mac(store_key: &ReleaseKey, id: &[u8; 32], body: &[u8]) -> [u8; 32] {
    let mut material = [0u8; 64];
    material[..32].copy_from_slice(store_key);
    material[32..].copy_from_slice(id);
    let mut key = blake3::derive_key("mixgc/prep-store-mac/v1", &material);
    material.zeroize();
    let mac = *blake3::keyed_hash(&key, body).as_bytes();
    key.zeroize();
    mac
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
        self.table_bytes
    }

    /// How the garbling's ANDs were garbled.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// Who owns which input and who learns the outputs, as preprocessed.
    pub fn terms(&self) -> Terms {
        Terms {
            garbler_values: Some(self.garbler_values as usize),
            reveal: self.reveal,
        }
    }

    /// Everything the MAC covers, in stored order.
    fn body(&self) -> Vec<u8> {
        let mut w = Writer::default();
        w.bytes(EVALUATOR_MAGIC)
            .bytes(&self.id)
            .bytes(&self.stream_digest)
            .u32s(&self.input_widths)
            .u32(self.garbler_values)
            .u32(stored_reveal_code(self.reveal))
            .u32(self.hash.code() as u32)
            .blocks(&[self.hash_seed])
            .u32(stored_scheme_code(self.scheme))
            .u64(self.table_bytes)
            .u64(self.first_and)
            .u64(self.num_ands)
            .bits(&self.choices)
            .blocks(&self.labels);
        match &self.decoding {
            Some(d) => w.u32(1).bits(d),
            None => w.u32(0),
        };
        w.bytes(&self.tables_digest).bytes(&self.state_key);
        w.0
    }

    /// Authenticates the store under the garbler's `store_key` (offline; the caller then
    /// forgets the key).
    pub(crate) fn authenticate(&mut self, store_key: &ReleaseKey) {
        let mut body = self.body();
        self.mac = store_mac(store_key, &self.id, &body);
        body.zeroize();
    }

    /// Whether the store is intact under the garbler's `store_key` (online).
    pub(crate) fn is_authentic(&self, store_key: &ReleaseKey) -> bool {
        let mut body = self.body();
        let want = store_mac(store_key, &self.id, &body);
        body.zeroize();
        // Constant time, like every comparison of a secret-keyed tag.
        blake3::Hash::from(want) == blake3::Hash::from(self.mac)
    }

    /// The encoding an evaluator stores next to the tables.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer(self.body());
        w.bytes(&self.mac);
        w.0
    }

    /// Reads a stored state. Only its structure is checked here; its integrity is checked
    /// online under the key the garbler releases, before anything is evaluated.
    pub fn from_bytes(b: &[u8]) -> Result<EvaluatorPrep, String> {
        let bad = || unreadable(b, "evaluator preprocessing store");
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
                scheme: stored_scheme(r.u32()?)?,
                table_bytes: r.u64()?,
                first_and: r.u64()?,
                num_ands: r.u64()?,
                choices: r.bits()?,
                labels: r.blocks()?,
                decoding: match r.u32()? {
                    0 => None,
                    1 => Some(r.bits()?),
                    _ => return None,
                },
                tables_digest: r.array()?,
                state_key: r.array()?,
                mac: r.array()?,
            })
        })()
        .ok_or_else(bad)?;
        let consistent = r.0.is_empty()
            && prep.choices.len() == prep.labels.len()
            && plausible_table_bytes(prep.scheme, prep.num_ands, prep.table_bytes);
        consistent.then_some(prep).ok_or_else(bad)
    }
}

/// Most input or output values a stored state may list.
const MAX_VALUES: usize = 1 << 20;
