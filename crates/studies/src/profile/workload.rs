//! What `mixgc profile` measures: ABLE's operations (§4) and the three representations.

use serde::Serialize;

/// x·C for Pub Mul. ABLE does not give its constant; x·7 = (x ≪ 3) − x costs two
/// shifted additions in Boolean GC, which is what ABLE's Tables 5–6 imply (Pub Mul ≈ 2 Adds).
pub const PUB_MUL_CONST: u128 = 7;

/// x^E for Pub Exp (Boolean: square-and-multiply, x → x² → x⁴ → x⁵, three products). ABLE
/// does not give its exponent; its Tables 5–6 put Pub Exp at about three Boolean Muls.
pub const PUB_EXP: u64 = 5;

/// One profiled operation (ABLE §4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    Xor,
    And,
    Add,
    Sub,
    PubMul,
    Mul,
    Mux,
    PubExp,
    Div,
    Mod,
    Geq,
    Bc,
    Bd,
}

impl Op {
    /// Every op, in ABLE's order.
    pub const ALL: [Op; 13] = [
        Op::Xor,
        Op::And,
        Op::Add,
        Op::Sub,
        Op::PubMul,
        Op::Mul,
        Op::Mux,
        Op::PubExp,
        Op::Div,
        Op::Mod,
        Op::Geq,
        Op::Bc,
        Op::Bd,
    ];

    /// Ops both Boolean and CRT GC run, whose equivalent ratios ABLE tabulates (§5.2; Mux
    /// is ours: ABLE plots it but leaves it out of Tables 5–6).
    pub const COMMON: [Op; 6] = [Op::Add, Op::Sub, Op::PubMul, Op::Mul, Op::PubExp, Op::Mux];

    /// The name ABLE's figures use.
    pub fn title(self) -> &'static str {
        match self {
            Op::Xor => "XOR",
            Op::And => "AND",
            Op::Add => "Add",
            Op::Sub => "Sub",
            Op::PubMul => "Pub Mul",
            Op::Mul => "Mul",
            Op::Mux => "Mux",
            Op::PubExp => "Pub Exp",
            Op::Div => "Div",
            Op::Mod => "Mod",
            Op::Geq => "Geq",
            Op::Bc => "BC",
            Op::Bd => "BD",
        }
    }

    /// The representations this op runs in: Boolean-only ops in `bool`, the conversions in
    /// the two CRT ones, common ops in all three.
    pub fn reprs(self) -> &'static [Repr] {
        match self {
            Op::Xor | Op::And | Op::Div | Op::Mod | Op::Geq => &[Repr::Bool],
            Op::Bc | Op::Bd => &[Repr::Crt, Repr::CrtOpt],
            _ => &[Repr::Bool, Repr::Crt, Repr::CrtOpt],
        }
    }
}

/// How values are garbled.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Repr {
    /// Boolean half-gates on w-bit two's-complement words.
    #[serde(rename = "bool")]
    Bool,
    /// CRT bundles over the first k primes with product ≥ 2^w (ABLE's "original" primes).
    #[serde(rename = "crt")]
    Crt,
    /// CRT bundles over the primes of minimum sum with product ≥ 2^w (ABLE §3.3).
    #[serde(rename = "crt-opt")]
    CrtOpt,
}

impl Repr {
    /// The name used in JSON and the report.
    pub fn name(self) -> &'static str {
        match self {
            Repr::Bool => "bool",
            Repr::Crt => "crt",
            Repr::CrtOpt => "crt-opt",
        }
    }
}

/// One measured (op, representation, width).
#[derive(Clone, Debug, Serialize)]
pub struct Record {
    pub op: Op,
    pub repr: Repr,
    pub width: u32,
    /// The CRT primes (empty for `bool`).
    pub primes: Vec<u64>,
    /// Boolean: AND gates of the op's circuit (`null` for CRT).
    pub ands: Option<u64>,
    /// Garbled-table rows as ABLE counts them (a half-gates AND is 2 rows).
    pub table_rows: u64,
    /// Bytes of the op's garbled tables.
    pub table_bytes: u64,
    /// The garbler's active input labels.
    pub garbler_input_bytes: u64,
    /// The evaluator's inputs: one IKNP column entry per OT'd bit, plus (CRT) the rows that
    /// lift each OT'd bit into its residue.
    pub ot_bytes: u64,
    /// Revealing the output to both parties: decodings one way, colours back.
    pub output_bytes: u64,
    /// The sum of the four parts.
    pub total_bytes: u64,
    /// Garbling one op instance, µs (median over `reps` samples).
    pub garble_us: f64,
    /// Evaluating one op instance, µs (median).
    pub eval_us: f64,
    /// Timed samples.
    pub reps: usize,
    /// Op instances per timed sample (each sample's time is divided by it).
    pub batch: usize,
}

/// What a measurement of one (op, repr, width) yields before the record is assembled.
pub struct Measured {
    pub ands: Option<u64>,
    pub table_rows: u64,
    pub table_bytes: u64,
    pub garbler_input_bytes: u64,
    pub ot_bytes: u64,
    pub output_bytes: u64,
    pub timing: Timing,
}

/// Median per-instance times.
pub struct Timing {
    pub garble_us: f64,
    pub eval_us: f64,
    pub reps: usize,
    pub batch: usize,
}

impl Record {
    /// The record of `m`.
    pub fn new(op: Op, repr: Repr, width: u32, primes: Vec<u64>, m: Measured) -> Record {
        Record {
            op,
            repr,
            width,
            primes,
            ands: m.ands,
            table_rows: m.table_rows,
            table_bytes: m.table_bytes,
            garbler_input_bytes: m.garbler_input_bytes,
            ot_bytes: m.ot_bytes,
            output_bytes: m.output_bytes,
            total_bytes: m.table_bytes + m.garbler_input_bytes + m.ot_bytes + m.output_bytes,
            garble_us: m.timing.garble_us,
            eval_us: m.timing.eval_us,
            reps: m.timing.reps,
            batch: m.timing.batch,
        }
    }

    /// Garbling plus evaluation, µs.
    pub fn total_us(&self) -> f64 {
        self.garble_us + self.eval_us
    }
}

/// The record of (op, repr, width) in `records`, if measured.
pub fn find(records: &[Record], op: Op, repr: Repr, width: u32) -> Option<&Record> {
    records
        .iter()
        .find(|r| r.op == op && r.repr == repr && r.width == width)
}
