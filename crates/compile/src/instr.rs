//! The instructions of a compiled stream: gates as slot triples, grouped into runs.

/// Most AND gates in one run: 16 ANDs are 64 independent AES inputs per hash layer when
/// garbling, 32 when evaluating, enough to keep AES-NI's pipeline full. Part of the stream
/// format; engines hash a run as one batch (`mixgc_garble::MAX_AND_GROUP` ≥ this).
pub const MAX_AND_RUN: usize = 16;

/// What the gates of a run compute. Operands are slot indices, except where noted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum RunKind {
    /// slot[out] = slot[a] ⊕ slot[b], gate after gate in order. NOT gates are XORs with
    /// [`NOT_SLOT`].
    Xor = 0,
    /// slot[out] = slot[a] ∧ slot[b] for up to [`MAX_AND_RUN`] independent gates: all
    /// inputs of the run are read before any output is written.
    And = 1,
    /// slot[out] = the constant `a` (0 or 1; `a` is a value, not a slot; `b` unused).
    Const = 2,
    /// A marker with no gates: the next `len` runs form a *parallel block*. Their gates are
    /// mutually independent and no slot one of them writes is read or written by another,
    /// so they may run on several threads in any split. Engines running on one thread
    /// skip the marker.
    Parallel = 3,
}

impl RunKind {
    /// The kind with this [`RunKind`] code (`kind as u8`).
    pub fn from_code(code: u8) -> Option<RunKind> {
        [RunKind::Xor, RunKind::And, RunKind::Const, RunKind::Parallel]
            .get(code as usize)
            .copied()
    }

    /// Gates of a run of this kind and length (a [`RunKind::Parallel`] marker has none).
    pub fn gates_in(self, len: u32) -> usize {
        if self == RunKind::Parallel {
            0
        } else {
            len as usize
        }
    }
}

/// `len` consecutive gates of one kind (or, for [`RunKind::Parallel`], a marker over the
/// next `len` runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    pub kind: RunKind,
    pub len: u32,
}

/// One gate: input slots `a`, `b` and output slot `out`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct Gate {
    pub a: u32,
    pub b: u32,
    pub out: u32,
}

/// The slot that turns XOR into NOT: it holds the label of the constant 1 under free-XOR
/// (Δ for the garbler, 0 for the evaluator, `true` in plaintext), so ¬x = x ⊕ slot[0].
pub const NOT_SLOT: u32 = 0;
