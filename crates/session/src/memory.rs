//! Both parties of the CRT gadgets in one process, without a channel: [`MemoryGarbler`]
//! garbles onto [`Tables`], [`MemoryEvaluator`] evaluates them later, in the same order
//! (their gate indices run on together). The primitives are those of the session's
//! program backends (`program/crt.rs`): the arithmetic garbling core for mod-p and ring
//! wires, and `mixgc-garble`'s half-gates for every AND. For profiling and testing gadgets
//! label by label: inputs are labels the caller makes ([`MemoryGarbler::new_bundle`],
//! [`MemoryGarbler::encode`]), and the evaluator's outputs are decoded with the garbler's
//! zero-labels.

use mixgc_arith::{
    table_bytes, term_sizes, ArithError, ArithEvaluator, ArithGarbler, Label, Modulus, RingLabel,
    TableReader, Term,
};
use mixgc_core::{new_rng, AnyHash, Block, HashKind};
use mixgc_garble::{HalfGateEvaluator, HalfGateGarbler, MAX_AND_GROUP};
use mixgc_program::{ArithBackend, Backend, PartyId, PrimeSet, ProgramError};

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
            self.error = Some(e.into());
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
        bytes: usize,
        fallback: impl FnOnce() -> T,
        primitive: impl FnOnce(&mut ArithEvaluator, &mut TableReader) -> Result<T, ArithError>,
    ) -> T {
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

/// The primitives that are the same label arithmetic on both sides.
macro_rules! free_primitives {
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

        fn mod_add(&mut self, a: &Label, b: &Label) -> Label {
            a.add(b).unwrap_or_else(|e| {
                self.error.get_or_insert(e.into());
                Label::zero(a.modulus())
            })
        }

        fn mod_sub(&mut self, a: &Label, b: &Label) -> Label {
            a.sub(b).unwrap_or_else(|e| {
                self.error.get_or_insert(e.into());
                Label::zero(a.modulus())
            })
        }

        fn mod_scale(&mut self, a: &Label, c: u64) -> Label {
            a.scale(c)
        }

        fn bit_to_mod2(&mut self, bit: Block) -> Label {
            Label::from_block(bit)
        }

        fn mod2_to_bit(&mut self, a: &Label) -> Block {
            a.to_block().unwrap_or_else(|e| {
                self.error.get_or_insert(e.into());
                Block::ZERO
            })
        }

        fn ring_zero(&mut self, bits: u32) -> RingLabel {
            RingLabel::zero(bits)
        }

        fn ring_add_shifted(&mut self, acc: &mut RingLabel, x: &RingLabel, c: u128, shift: u32) {
            acc.add_shifted_assign(x, c, shift);
        }

        fn ring_slice(&mut self, a: &RingLabel, i: u32) -> Block {
            a.slice(i)
        }

        fn gadget_error(&mut self, e: ProgramError) {
            self.error.get_or_insert(SessionError::of_gadget(e));
        }
    };
}

impl ArithBackend for MemoryGarbler {
    type ModWire = Label;
    type RingWire = RingLabel;

    free_primitives!();

    /// −value·Δ_m, so that the evaluator's label is all zeros.
    fn mod_constant(&mut self, m: Modulus, value: u64) -> Label {
        let p = m.value() as u64;
        self.arith.delta(m).scale((p - value % p) % p)
    }

    fn mod_project(&mut self, a: &Label, out: Modulus, table: &[u64]) -> Label {
        self.garble(|| Label::zero(out), |g, rows| g.project(a, out, table, rows))
    }

    fn mod_to_bit(&mut self, a: &Label, table: &[u64]) -> Block {
        self.garble(|| Block::ZERO, |g, rows| g.project_to_bit(a, table, rows))
    }

    fn bits_to_mod(&mut self, terms: &[Term]) -> Vec<Label> {
        let fallback = || terms.iter().map(|&(_, m)| Label::zero(m)).collect();
        self.garble(fallback, |g, rows| g.compose_powers(terms, rows))
    }

    fn mod_mul(&mut self, pairs: &[(&Label, &Label)]) -> Vec<Label> {
        let fallback = || pairs.iter().map(|(a, _)| Label::zero(a.modulus())).collect();
        self.garble(fallback, |g, rows| {
            pairs.iter().map(|(a, b)| g.mul(a, b, rows)).collect()
        })
    }

    fn ring_lift(&mut self, bit: Block, bits: u32) -> RingLabel {
        self.garble(|| RingLabel::zero(bits), |g, rows| g.lift(bit, bits, rows))
    }
}

impl ArithBackend for MemoryEvaluator {
    type ModWire = Label;
    type RingWire = RingLabel;

    free_primitives!();

    fn mod_constant(&mut self, m: Modulus, _: u64) -> Label {
        Label::zero(m)
    }

    fn mod_project(&mut self, a: &Label, out: Modulus, _: &[u64]) -> Label {
        let bytes = table_bytes::projection(a.modulus(), out).bytes;
        self.evaluate(bytes, || Label::zero(out), |ev, t| ev.project(a, out, t))
    }

    fn mod_to_bit(&mut self, a: &Label, _: &[u64]) -> Block {
        let bytes = table_bytes::projection(a.modulus(), Modulus::BOOLEAN).bytes;
        self.evaluate(bytes, || Block::ZERO, |ev, t| ev.project_to_bit(a, t))
    }

    fn bits_to_mod(&mut self, terms: &[Term]) -> Vec<Label> {
        let bytes = table_bytes::compose_powers(term_sizes(terms)).bytes;
        let fallback = || terms.iter().map(|&(_, m)| Label::zero(m)).collect();
        self.evaluate(bytes, fallback, |ev, t| ev.compose_powers(terms, t))
    }

    fn mod_mul(&mut self, pairs: &[(&Label, &Label)]) -> Vec<Label> {
        let bytes = pairs
            .iter()
            .map(|(a, _)| table_bytes::product(a.modulus()).bytes)
            .sum();
        let fallback = || pairs.iter().map(|(a, _)| Label::zero(a.modulus())).collect();
        self.evaluate(bytes, fallback, |ev, t| ev.mul_many(pairs, t))
    }

    fn ring_lift(&mut self, bit: Block, bits: u32) -> RingLabel {
        let bytes = table_bytes::lift(bits).bytes;
        self.evaluate(bytes, || RingLabel::zero(bits), |ev, t| ev.lift(bit, bits, t))
    }
}
