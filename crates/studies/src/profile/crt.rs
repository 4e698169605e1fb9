//! CRT (arithmetic) GC profiles: the program interface's CRT gadgets ([`ArithBackend`]) run
//! by both parties in memory ([`MemoryGarbler`], [`MemoryEvaluator`]; ABLE §2–3).
//!
//! Workloads, over a [`PrimeSet`]: the garbler's x and the evaluator's y (values < 2^w);
//! Add x + y, Sub x − y, Pub Mul C·y and Pub Exp y^E (free scaling; one projection per
//! prime), Mul x·y (one BMR16 product per prime), Mux s ? x : y with the garbler's Boolean
//! selector s (ABLE: y + s·(x − y), the bit composed into the bundle, then one product),
//! BC of the evaluator's w Boolean bits, BD of the evaluator's y. One output, revealed to
//! both parties.

use mixgc_arith::cost::protocol::{evaluator_input_cost, garbler_input_bytes, output_bytes, OT_BYTES};
use mixgc_arith::{ArithEvaluator, ArithGarbler, Label, PrimeSet};
use mixgc_core::{new_rng, Block};
use mixgc_program::ArithBackend;
use mixgc_session::memory::{MemoryEvaluator, MemoryGarbler, Tables};
use rand::Rng;

use super::timing::{time, Instance};
use super::workload::{Measured, Op, PUB_EXP, PUB_MUL_CONST};
use crate::common::CliError;

/// One side's input labels (zero-labels for the garbler, active ones for the evaluator).
struct Inputs {
    /// Mux's Boolean selector.
    s: Block,
    x: Vec<Label>,
    y: Vec<Label>,
    /// BC's Boolean input bits, least significant first.
    y_bits: Vec<Block>,
}

/// An op's output labels.
enum Output {
    Bundle(Vec<Label>),
    Bits(Vec<Block>),
}

/// Runs `op` on one side.
fn run<B: ArithBackend<Wire = Block, ModWire = Label>>(
    b: &mut B,
    op: Op,
    set: &PrimeSet,
    i: &Inputs,
) -> Output {
    Output::Bundle(match op {
        Op::Add => b.crt_add(set, &i.x, &i.y),
        Op::Sub => b.crt_sub(set, &i.x, &i.y),
        Op::PubMul => b.crt_scale(set, &i.y, PUB_MUL_CONST),
        Op::Mul => b.crt_mul(set, &i.x, &i.y),
        Op::PubExp => b.crt_pow(set, &i.y, PUB_EXP),
        Op::Mux => b.crt_mux(set, i.s, &i.x, &i.y),
        Op::Bc => b.crt_from_bits(&i.y_bits, set),
        Op::Bd => return Output::Bits(b.crt_to_bits(set, &i.y)),
        Op::Xor | Op::And | Op::Div | Op::Mod | Op::Geq => unreachable!("Boolean-only op"),
    })
}

/// b^e mod p.
fn pow_mod(b: u64, e: u64, p: u64) -> u64 {
    (0..e).fold(1, |acc, _| acc * b % p)
}

/// The plaintext answer of `op` on (s, x, y), residue by residue.
fn expected(op: Op, set: &PrimeSet, s: bool, x: u128, y: u128) -> Result<u128, CliError> {
    let residues: Vec<u64> = set
        .primes()
        .iter()
        .map(|&p| {
            let (xr, yr) = ((x % p as u128) as u64, (y % p as u128) as u64);
            match op {
                Op::Add => (xr + yr) % p,
                Op::Sub => (xr + p - yr) % p,
                Op::PubMul => yr * (PUB_MUL_CONST % p as u128) as u64 % p,
                Op::Mul => xr * yr % p,
                Op::PubExp => pow_mod(yr, PUB_EXP, p),
                Op::Mux if s => xr,
                _ => yr,
            }
        })
        .collect();
    Ok(set.decode(&residues)?)
}

/// Both parties of one CRT op with fixed random inputs.
struct CrtInstance {
    op: Op,
    set: PrimeSet,
    garbler: MemoryGarbler,
    evaluator: MemoryEvaluator,
    zero: Inputs,
    active: Inputs,
    /// Mux's selector and the two values.
    values: (bool, u128, u128),
    /// One instance's rows (as ABLE counts them) and table bytes, set by `check`.
    table: (u64, u64),
    output_bits: u64,
}

impl CrtInstance {
    fn new(op: Op, set: PrimeSet, w: u32, seed: u64) -> Result<CrtInstance, CliError> {
        let mut rng = new_rng(Some(seed), 2);
        let mut garbler = MemoryGarbler::new(seed)?;
        let evaluator = garbler.evaluator();
        let delta = garbler.delta();
        let mask = (1u128 << w) - 1;
        let (s, x, y) = (
            rng.gen::<bool>(),
            rng.gen::<u128>() & mask,
            rng.gen::<u128>() & mask,
        );
        let (x0, y0) = (garbler.new_bundle(&set), garbler.new_bundle(&set));
        let mut encode = |zero: &[Label], v: u128| -> Result<Vec<Label>, CliError> {
            let residues = set.encode(v % set.product())?;
            let labels = zero.iter().zip(residues).map(|(z, r)| garbler.encode(z, r));
            Ok(labels.collect::<Result<_, _>>()?)
        };
        let (x1, y1) = (encode(&x0, x)?, encode(&y0, y)?);
        let s0 = Block::random(&mut rng);
        let bits0: Vec<Block> = (0..w).map(|_| Block::random(&mut rng)).collect();
        let bits1 = bits0
            .iter()
            .enumerate()
            .map(|(j, &b)| b ^ delta.and_bit(y >> j & 1 == 1))
            .collect();
        Ok(CrtInstance {
            op,
            garbler,
            evaluator,
            zero: Inputs {
                s: s0,
                x: x0,
                y: y0,
                y_bits: bits0,
            },
            active: Inputs {
                s: s0 ^ delta.and_bit(s),
                x: x1,
                y: y1,
                y_bits: bits1,
            },
            values: (s, x, y),
            table: (0, 0),
            output_bits: 0,
            set,
        })
    }
}

impl Instance for CrtInstance {
    type Tables = Tables;

    fn check(&mut self) -> Result<(), CliError> {
        let before = self.garbler.table_rows();
        let zero = run(&mut self.garbler, self.op, &self.set, &self.zero);
        let tables = self.garbler.take_tables()?;
        self.table = (self.garbler.table_rows() - before, tables.bytes() as u64);
        self.evaluator.read(tables);
        let active = run(&mut self.evaluator, self.op, &self.set, &self.active);
        self.evaluator.finish()?;
        let (s, x, y) = self.values;
        let correct = match (zero, active) {
            (Output::Bundle(z), Output::Bundle(a)) => {
                let decode = |(a, z): (&Label, &Label)| ArithEvaluator::decode(a, ArithGarbler::decoding(z));
                let residues: Vec<u64> = a.iter().zip(&z).map(decode).collect();
                self.set.decode(&residues)? == expected(self.op, &self.set, s, x, y)?
            }
            (Output::Bits(z), Output::Bits(a)) => {
                self.output_bits = a.len() as u64;
                let got = a.iter().zip(&z).enumerate();
                got.fold(0u128, |v, (j, (a, z))| v | u128::from(a.lsb() ^ z.lsb()) << j) == y
            }
            _ => false,
        };
        if !correct {
            return Err(format!("CRT {} decoded to a wrong output", self.op.title()).into());
        }
        Ok(())
    }

    fn garble(&mut self, n: usize) -> Result<Tables, CliError> {
        for _ in 0..n {
            run(&mut self.garbler, self.op, &self.set, &self.zero);
        }
        Ok(self.garbler.take_tables()?)
    }

    fn evaluate(&mut self, tables: Tables, n: usize) -> Result<Tables, CliError> {
        self.evaluator.read(tables);
        for _ in 0..n {
            run(&mut self.evaluator, self.op, &self.set, &self.active);
        }
        self.evaluator.finish()?;
        Ok(self.evaluator.take_tables())
    }
}

/// Profiles CRT `op` over `set` at `w` bits over `reps` samples.
pub fn profile(op: Op, set: &PrimeSet, w: u32, reps: usize) -> Result<Measured, CliError> {
    let mut instance = CrtInstance::new(op, set.clone(), w, u64::from(w))?;
    let timing = time(&mut instance, reps)?;
    let garbler_inputs = match op {
        Op::Add | Op::Sub | Op::Mul => garbler_input_bytes(set),
        // The selector's Boolean label and x.
        Op::Mux => 16 + garbler_input_bytes(set),
        _ => 0,
    };
    let ot_bytes = match op {
        Op::Bc => u64::from(w) * OT_BYTES,
        _ => {
            let (ots, lift_bytes) = evaluator_input_cost(set);
            ots * OT_BYTES + lift_bytes
        }
    };
    let outputs = match op {
        Op::Bd => 2 * instance.output_bits.div_ceil(8),
        _ => output_bytes(set, true),
    };
    let (table_rows, table_bytes) = instance.table;
    Ok(Measured {
        ands: None,
        table_rows,
        table_bytes,
        garbler_input_bytes: garbler_inputs,
        ot_bytes,
        output_bytes: outputs,
        timing,
    })
}
