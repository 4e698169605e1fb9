use std::fmt;
use std::sync::Arc;

use mixgc_circuit::{Audience, PartyId};

/// Why a program could not run on a backend.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProgramError {
    #[error("input #{index} of the {owner} must be {expected} bits, got {got}")]
    InputWidth {
        index: usize,
        owner: PartyId,
        expected: u32,
        got: usize,
    },
    #[error("the plaintext backend needs the value of input #{index} of the {owner}")]
    MissingInput { index: usize, owner: PartyId },
    /// A value outside the range its type can hold (e.g. a CRT input ≥ N).
    #[error("{0}")]
    OutOfRange(String),
    /// An arithmetic gadget cannot be garbled over its operands (e.g. a bit decomposition
    /// of a product so near 2^128 that its CRT sum exceeds 128 bits).
    #[error("arithmetic gadget: {0}")]
    Arith(String),
    /// A two-party backend failed: the peer disconnected, disagreed or misbehaved. The
    /// backend's own error (a session error) is kept whole.
    #[error(transparent)]
    Peer(PeerError),
    /// A party a two-party backend does not have (an input owner beyond the garbler and
    /// the evaluator).
    #[error("a two-party run has no {0}")]
    NoSuchParty(PartyId),
    /// An operation this backend does not offer (e.g. an input declared on lanes).
    #[error("{0}")]
    Unsupported(&'static str),
}

/// The error of a two-party backend, shared by every report of it (a backend that failed
/// reports its first error again at each later input or output). [`PeerError::downcast_ref`]
/// gives back the backend's error type (e.g. `mixgc_session::SessionError`), which is also
/// the [`ProgramError`]'s source.
#[derive(Clone, Debug)]
pub struct PeerError(Arc<dyn std::error::Error + Send + Sync>);

impl PeerError {
    pub fn new(e: impl std::error::Error + Send + Sync + 'static) -> PeerError {
        PeerError(Arc::new(e))
    }

    /// The backend's error as `E`, if it is one.
    pub fn downcast_ref<E: std::error::Error + 'static>(&self) -> Option<&E> {
        self.0.downcast_ref()
    }
}

/// Another report of an error already shared.
impl<E: std::error::Error + Send + Sync + 'static> From<Arc<E>> for PeerError {
    fn from(e: Arc<E>) -> PeerError {
        PeerError(e)
    }
}

impl fmt::Display for PeerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// [`ProgramError::Peer`] is transparent: its source is the backend's error.
impl std::error::Error for PeerError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.0.as_ref())
    }
}

/// Reports of the same error are equal.
impl PartialEq for PeerError {
    fn eq(&self, other: &PeerError) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for PeerError {}

/// The value of input #`index` of `owner`, checked: present and `width` bits. For backends
/// that compute on the party's own values.
pub fn checked_input(
    index: usize,
    owner: PartyId,
    width: u32,
    value: Option<&[bool]>,
) -> Result<&[bool], ProgramError> {
    let value = value.ok_or(ProgramError::MissingInput { index, owner })?;
    if value.len() != width as usize {
        return Err(ProgramError::InputWidth {
            index,
            owner,
            expected: width,
            got: value.len(),
        });
    }
    Ok(value)
}

/// What a program runs on: Boolean gates over wires, inputs and outputs.
///
/// `Wire` is a cheap handle (a `bool` in plaintext, a wire id in the recorder). Free gates
/// (XOR, NOT, constants) cost nothing under free-XOR; each AND costs two ciphertexts.
pub trait Backend {
    type Wire: Copy + std::fmt::Debug;

    fn xor(&mut self, a: Self::Wire, b: Self::Wire) -> Self::Wire;
    fn and(&mut self, a: Self::Wire, b: Self::Wire) -> Self::Wire;

    /// Independent ANDs at once (no output feeds another input of the same call). Two-party
    /// backends hash them as one batch, which keeps AES-NI busy; the default runs them one
    /// by one.
    fn and_many(&mut self, pairs: &[(Self::Wire, Self::Wire)]) -> Vec<Self::Wire> {
        pairs.iter().map(|&(a, b)| self.and(a, b)).collect()
    }
    fn not(&mut self, a: Self::Wire) -> Self::Wire;
    fn constant(&mut self, value: bool) -> Self::Wire;

    /// A new input value of `width` bits supplied by `owner`. `value` (least significant bit
    /// first) is the owner's secret: backends that compute on values need it, others ignore it.
    fn input(
        &mut self,
        owner: PartyId,
        width: u32,
        value: Option<&[bool]>,
    ) -> Result<Vec<Self::Wire>, ProgramError>;

    /// Marks `wires` as one output value. Returns its bits where this party learns them
    /// (always in plaintext), `None` otherwise. Two-party backends reveal here, so this is
    /// where a failure of the peer (or of an earlier gate's network traffic) is reported.
    fn output(&mut self, wires: &[Self::Wire]) -> Result<Option<Vec<bool>>, ProgramError>;

    /// Like [`Backend::output`], revealing the value only to `to` on two-party backends
    /// (both parties' programs name the same audience). Backends without parties ignore it.
    fn output_to(&mut self, wires: &[Self::Wire], to: Audience) -> Result<Option<Vec<bool>>, ProgramError> {
        let _ = to;
        self.output(wires)
    }

    /// The program no longer needs `wires` (their value was dropped). A streaming garbler
    /// frees their label slots here; backends that keep everything ignore it.
    ///
    /// Backends over wire slots count holders (see `crate::SlotTable`): a slot is freed
    /// when every value that [`Backend::retain`]ed it released it and no open scope holds
    /// it. A wire no value and no scope holds (a raw wire) is freed at once.
    fn release(&mut self, _wires: &[Self::Wire]) {}

    /// A value now holds `wires` (one more holder each; a value that shares wires with
    /// another, a clone or a shift, retains them again). Backends that do not free wires
    /// ignore it.
    fn retain(&mut self, _wires: &[Self::Wire]) {}

    /// Opens a scope: wires made from now on belong to it until [`Backend::close_scope`].
    fn open_scope(&mut self) {}

    /// Closes the innermost scope: its wires in `keep` pass to the enclosing scope (or
    /// become raw wires at the top level); the others are freed unless a value holds them.
    /// Gadgets run in a scope ([`scoped`]) free their temporaries this way.
    fn close_scope(&mut self, _keep: &[Self::Wire]) {}
}

/// Runs gadget `f` in a scope of `b`: the wires it makes that are not in its result are
/// freed when it returns (on backends over wire slots; free elsewhere).
pub fn scoped<B: Backend + ?Sized>(b: &mut B, f: impl FnOnce(&mut B) -> Vec<B::Wire>) -> Vec<B::Wire> {
    b.open_scope();
    let out = f(b);
    b.close_scope(&out);
    out
}
