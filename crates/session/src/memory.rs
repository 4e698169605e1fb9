//! Both parties of the CRT gadgets in one process, without a channel: [`MemoryGarbler`]
//! garbles onto [`Tables`], [`MemoryEvaluator`] evaluates them later, in the same order
//! (their gate indices run on together). The primitives are those of the session's
//! program backends (`program/crt.rs`): the arithmetic garbling core for mod-p and ring
//! wires, and `mixgc-garble`'s half-gates for every AND. For profiling and testing gadgets
//! label by label: inputs are labels the caller makes ([`MemoryGarbler::new_bundle`],
//! [`MemoryGarbler::encode`]), and the evaluator's outputs are decoded with the garbler's
//! zero-labels.

use mixgc_arith::{ArithError, ArithEvaluator, ArithGarbler, Label, Modulus, RingLabel, TableReader};
use mixgc_core::{new_rng, AnyHash, Block, HashKind};
use mixgc_garble::{HalfGateEvaluator, HalfGateGarbler, MAX_AND_GROUP};
use mixgc_program::{ArithBackend, Backend, PartyId, PrimeSet, ProgramError};

use crate::primitives::{evaluator_primitives, garbler_primitives, label_primitives};
use crate::SessionError;

/// Garbled tables: the arithmetic rows and the half-gates rows, each in gate order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tables {
    pub arith: Vec<u8>,
    pub ands: Vec<Block>,
}

impl Tables {
    /// Bytes of all rows.
    pub fn bytes(&self) -> usize {
        self.arith.len() + 16 * self.ands.len()
    }
}

const NO_INPUTS: ProgramError =
    ProgramError::Unsupported("in-memory gadgets take the caller's labels, not program inputs or outputs");

/// The first error of a run, as a program error.
fn reported(error: &Option<SessionError>) -> Result<(), ProgramError> {
    match error {
        Some(e) => Err(ProgramError::Arith(e.to_string())),
        None => Ok(()),
    }
}

/// The garbler: zero-labels in and out, rows appended to its [`Tables`].
pub struct MemoryGarbler {
    arith: ArithGarbler,
    ands: HalfGateGarbler<AnyHash>,
    delta: Block,
    consts: [Block; 2],
    and_key: Block,
    tables: Tables,
    error: Option<SessionError>,
}

impl Drop for MemoryGarbler {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        self.delta.zeroize();
        self.and_key.zeroize();
    }
}

impl MemoryGarbler {
    /// A garbler with keys drawn from `seed`.
    pub fn new(seed: u64) -> Result<MemoryGarbler, ProgramError> {
        let mut rng = new_rng(Some(seed), 2);
        let delta = Block::random(&mut rng).with_lsb_set();
        let and_key = Block::random(&mut rng);
        let arith = ArithGarbler::new(new_rng(Some(seed), 3), delta)
            .map_err(|e| ProgramError::Arith(e.to_string()))?;
        Ok(MemoryGarbler {
            arith,
            ands: HalfGateGarbler::new(AnyHash::new(HashKind::Tccr, and_key), delta),
            delta,
            consts: [Block::random(&mut rng), Block::random(&mut rng)],
            and_key,
            tables: Tables::default(),
            error: None,
        })
    }

    /// The evaluator of this garbler's gadgets, at its first gate.
    pub fn evaluator(&self) -> MemoryEvaluator {
        MemoryEvaluator {
            arith: ArithEvaluator::new(self.arith.session_key()),
            ands: HalfGateEvaluator::new(AnyHash::new(HashKind::Tccr, self.and_key)),
            consts: [self.consts[0], self.consts[1] ^ self.delta],
            tables: Tables::default(),
            used: (0, 0),
            error: None,
        }
    }

    /// The free-XOR offset (the Δ of the mod-2 wires).
    pub fn delta(&self) -> Block {
        self.delta
    }

    /// The zero-labels of a new value over `set`.
    pub fn new_bundle(&mut self, set: &PrimeSet) -> Vec<Label> {
        self.arith.new_bundle(set).wires().to_vec()
    }

    /// The label of `x` on the wire with zero-label `zero`.
    pub fn encode(&mut self, zero: &Label, x: u64) -> Result<Label, ArithError> {
        self.arith.encode(zero, x)
    }

    /// Rows garbled so far as ABLE counts them: the arithmetic core's count, and 2 per AND.
    pub fn table_rows(&self) -> u64 {
        self.arith.table_rows() + 2 * self.ands.ands_garbled()
    }

    /// The garbled rows so far, taken (the garbler goes on with empty tables), or the first
    /// error of a primitive.
    pub fn take_tables(&mut self) -> Result<Tables, ProgramError> {
        reported(&self.error)?;
        Ok(std::mem::take(&mut self.tables))
    }

    fn fail(&mut self, e: impl Into<SessionError>) {
        self.error.get_or_insert(e.into());
    }

    /// Runs one arithmetic primitive; on failure records the error and returns `fallback()`.
    fn garble<T>(
        &mut self,
        fallback: impl FnOnce() -> T,
        primitive: impl FnOnce(&mut ArithGarbler, &mut Vec<u8>) -> Result<T, ArithError>,
    ) -> T {
        if self.error.is_some() {
            return fallback();
        }
        primitive(&mut self.arith, &mut self.tables.arith).unwrap_or_else(|e| {
            self.fail(e);
            fallback()
        })
    }
}

impl Backend for MemoryGarbler {
    type Wire = Block;

    fn xor(&mut self, a: Block, b: Block) -> Block {
        a ^ b
    }

    fn and(&mut self, a: Block, b: Block) -> Block {
        self.and_many(&[(a, b)])[0]
    }

    fn and_many(&mut self, pairs: &[(Block, Block)]) -> Vec<Block> {
        let mut out = vec![Block::ZERO; pairs.len()];
        for (ins, outs) in pairs.chunks(MAX_AND_GROUP).zip(out.chunks_mut(MAX_AND_GROUP)) {
            self.ands.garble(ins, outs, &mut self.tables.ands);
        }
        out
    }

    fn not(&mut self, a: Block) -> Block {
        a ^ self.delta
    }

    fn constant(&mut self, value: bool) -> Block {
        self.consts[value as usize]
    }

    fn input(&mut self, _: PartyId, _: u32, _: Option<&[bool]>) -> Result<Vec<Block>, ProgramError> {
        Err(NO_INPUTS)
    }

    fn output(&mut self, _: &[Block]) -> Result<Option<Vec<bool>>, ProgramError> {
        Err(NO_INPUTS)
    }
}

/// The evaluator: active labels in and out, rows read from the [`Tables`] it was given.
pub struct MemoryEvaluator {
    arith: ArithEvaluator,
    ands: HalfGateEvaluator<AnyHash>,
    consts: [Block; 2],
    tables: Tables,
    /// Arithmetic bytes and AND rows used.
    used: (usize, usize),
    error: Option<SessionError>,
}

impl MemoryEvaluator {
    /// Reads the rows of `tables` from now on (the garbler's, taken after it garbled the
    /// gadgets this evaluator will run).
    pub fn read(&mut self, tables: Tables) {
        self.tables = tables;
        self.used = (0, 0);
    }

    /// The tables given to [`MemoryEvaluator::read`], taken back.
    pub fn take_tables(&mut self) -> Tables {
        std::mem::take(&mut self.tables)
    }

    /// Checks that every row was used and no primitive failed.
    pub fn finish(&mut self) -> Result<(), ProgramError> {
        reported(&self.error)?;
        let all = (self.tables.arith.len(), self.tables.ands.len());
        if self.used != all {
            return Err(ProgramError::Arith("garbled rows left unused".into()));
        }
        Ok(())
    }

    fn fail(&mut self, e: impl Into<SessionError>) {
        self.error.get_or_insert(e.into());
    }

    /// Evaluates one arithmetic primitive on its `bytes` of rows; on failure records the
    /// error and returns `fallback()`.
    fn evaluate<T>(
        &mut self,
        bytes: Result<usize, ArithError>,
        fallback: impl FnOnce() -> T,
        primitive: impl FnOnce(&mut ArithEvaluator, &mut TableReader) -> Result<T, ArithError>,
    ) -> T {
        let bytes = match bytes {
            Ok(bytes) => bytes,
            Err(e) => {
                self.fail(e);
                return fallback();
            }
        };
        let start = self.used.0;
        let Some(rows) = self
            .tables
            .arith
            .get(start..start + bytes)
            .filter(|_| self.error.is_none())
        else {
            self.fail(ArithError::Conversion("fewer garbled rows than gadgets".into()));
            return fallback();
        };
        self.used.0 += bytes;
        let mut reader = TableReader::new(rows);
        let out = primitive(&mut self.arith, &mut reader).and_then(|out| reader.finish().map(|()| out));
        out.unwrap_or_else(|e| {
            self.fail(e);
            fallback()
        })
    }
}

impl Backend for MemoryEvaluator {
    type Wire = Block;

    fn xor(&mut self, a: Block, b: Block) -> Block {
        a ^ b
    }

    fn and(&mut self, a: Block, b: Block) -> Block {
        self.and_many(&[(a, b)])[0]
    }

    fn and_many(&mut self, pairs: &[(Block, Block)]) -> Vec<Block> {
        let mut out = vec![Block::ZERO; pairs.len()];
        for (ins, outs) in pairs.chunks(MAX_AND_GROUP).zip(out.chunks_mut(MAX_AND_GROUP)) {
            let start = self.used.1;
            match self.tables.ands.get(start..start + 2 * ins.len()) {
                Some(rows) => self.ands.evaluate(ins, rows, outs),
                None => {
                    self.fail(ArithError::Conversion("fewer AND rows than ANDs".into()));
                    break;
                }
            }
            self.used.1 += 2 * ins.len();
        }
        out
    }

    fn not(&mut self, a: Block) -> Block {
        a
    }

    fn constant(&mut self, value: bool) -> Block {
        self.consts[value as usize]
    }

    fn input(&mut self, _: PartyId, _: u32, _: Option<&[bool]>) -> Result<Vec<Block>, ProgramError> {
        Err(NO_INPUTS)
    }

    fn output(&mut self, _: &[Block]) -> Result<Option<Vec<bool>>, ProgramError> {
        Err(NO_INPUTS)
    }
}

/// Program inputs and outputs, which the in-memory pair does not take.
macro_rules! no_program_io {
    () => {
        fn crt_input(
            &mut self,
            _: PartyId,
            _: &PrimeSet,
            _: Option<u128>,
        ) -> Result<Vec<Label>, ProgramError> {
            Err(NO_INPUTS)
        }

        fn crt_output(&mut self, _: &PrimeSet, _: &[Label]) -> Result<Option<u128>, ProgramError> {
            Err(NO_INPUTS)
        }
    };
}

impl ArithBackend for MemoryGarbler {
    type ModWire = Label;
    type RingWire = RingLabel;

    no_program_io!();
    label_primitives!();
    garbler_primitives!();

    /// −value·Δ_m, so that the evaluator's label is all zeros.
    fn mod_constant(&mut self, m: Modulus, value: u64) -> Label {
        let p = m.value() as u64;
        self.arith.delta(m).scale((p - value % p) % p)
    }
}

impl ArithBackend for MemoryEvaluator {
    type ModWire = Label;
    type RingWire = RingLabel;

    no_program_io!();
    label_primitives!();
    evaluator_primitives!();

    fn mod_constant(&mut self, m: Modulus, _: u64) -> Label {
        Label::zero(m)
    }
}
