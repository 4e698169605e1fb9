//! CRT (arithmetic) GC profiles: `mixgc-arith`'s gadgets called in memory (ABLE §2–3).
//!
//! Workloads, over a [`PrimeSet`]: the garbler's x and the evaluator's y (values < 2^w);
//! Add x + y, Sub x − y, Pub Mul C·y and Pub Exp y^E (free scaling; one projection per
//! prime), Mul x·y (one BMR16 product per prime), Mux s ? x : y with the garbler's Boolean
//! selector s (ABLE: y + s·(x − y), the bit composed into the bundle, then one product),
//! BC of the evaluator's w Boolean bits, BD of the evaluator's y. One output, revealed to
//! both parties.

use mixgc_arith::cost::protocol::{evaluator_input_cost, garbler_input_bytes, output_bytes, OT_BYTES};
use mixgc_arith::{ArithError, ArithEvaluator, ArithGarbler, CrtBundle, PrimeSet, TableReader};
use mixgc_core::{new_rng, Block};
use rand::Rng;

use super::timing::{time, Instance};
use super::workload::{Measured, Op, PUB_EXP, PUB_MUL_CONST};
use crate::common::CliError;

/// The gadgets with tables, on either side: the garbler appends rows, the evaluator reads
/// them in the same order. (Free operations are the same label arithmetic on both sides.)
trait Party<T> {
    fn mul(&mut self, a: &CrtBundle, b: &CrtBundle, t: &mut T) -> Result<CrtBundle, ArithError>;
    fn pow(&mut self, a: &CrtBundle, e: u64, t: &mut T) -> Result<CrtBundle, ArithError>;
    fn compose(&mut self, bits: &[Block], set: &PrimeSet, t: &mut T) -> Result<CrtBundle, ArithError>;
    fn decompose(&mut self, a: &CrtBundle, t: &mut T) -> Result<Vec<Block>, ArithError>;
}

impl Party<Vec<u8>> for ArithGarbler {
    fn mul(&mut self, a: &CrtBundle, b: &CrtBundle, t: &mut Vec<u8>) -> Result<CrtBundle, ArithError> {
        self.mul_bundle(a, b, t)
    }
    fn pow(&mut self, a: &CrtBundle, e: u64, t: &mut Vec<u8>) -> Result<CrtBundle, ArithError> {
        self.pow_bundle(a, e, t)
    }
    fn compose(&mut self, bits: &[Block], set: &PrimeSet, t: &mut Vec<u8>) -> Result<CrtBundle, ArithError> {
        self.crt_compose(bits, set, t)
    }
    fn decompose(&mut self, a: &CrtBundle, t: &mut Vec<u8>) -> Result<Vec<Block>, ArithError> {
        self.crt_decompose(a, t)
    }
}

impl<'a> Party<TableReader<'a>> for ArithEvaluator {
    fn mul(
        &mut self,
        a: &CrtBundle,
        b: &CrtBundle,
        t: &mut TableReader<'a>,
    ) -> Result<CrtBundle, ArithError> {
        self.mul_bundle(a, b, t)
    }
    fn pow(&mut self, a: &CrtBundle, _: u64, t: &mut TableReader<'a>) -> Result<CrtBundle, ArithError> {
        self.project_bundle(a, t)
    }
    fn compose(
        &mut self,
        bits: &[Block],
        set: &PrimeSet,
        t: &mut TableReader<'a>,
    ) -> Result<CrtBundle, ArithError> {
        self.crt_compose(bits, set, t)
    }
    fn decompose(&mut self, a: &CrtBundle, t: &mut TableReader<'a>) -> Result<Vec<Block>, ArithError> {
        self.crt_decompose(a, t)
    }
}

/// One side's input labels (zero-labels for the garbler, active ones for the evaluator).
struct Inputs {
    /// Mux's Boolean selector.
    s: Block,
    x: CrtBundle,
    y: CrtBundle,
    /// BC's Boolean input bits, least significant first.
    y_bits: Vec<Block>,
}

/// An op's output labels.
enum Output {
    Bundle(CrtBundle),
    Bits(Vec<Block>),
}

/// Runs `op` on one side.
fn run<T, P: Party<T>>(
    p: &mut P,
    op: Op,
    set: &PrimeSet,
    i: &Inputs,
    t: &mut T,
) -> Result<Output, ArithError> {
    Ok(Output::Bundle(match op {
        Op::Add => i.x.add(&i.y)?,
        Op::Sub => i.x.sub(&i.y)?,
        Op::PubMul => i.y.scale(PUB_MUL_CONST),
        Op::Mul => p.mul(&i.x, &i.y, t)?,
        Op::PubExp => p.pow(&i.y, PUB_EXP, t)?,
        Op::Mux => {
            let s = p.compose(&[i.s], set, t)?;
            p.mul(&s, &i.x.sub(&i.y)?, t)?.add(&i.y)?
        }
        Op::Bc => p.compose(&i.y_bits, set, t)?,
        Op::Bd => return Ok(Output::Bits(p.decompose(&i.y, t)?)),
        Op::Xor | Op::And | Op::Div | Op::Mod | Op::Geq => unreachable!("Boolean-only op"),
    }))
}

/// b^e mod p.
fn pow_mod(b: u64, e: u64, p: u64) -> u64 {
    (0..e).fold(1, |acc, _| acc * b % p)
}

/// The plaintext answer of `op` on (s, x, y), residue by residue.
fn expected(op: Op, set: &PrimeSet, s: bool, x: u128, y: u128) -> Result<u128, ArithError> {
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
    set.decode(&residues)
}

/// Both parties of one CRT op with fixed random inputs.
struct CrtInstance {
    op: Op,
    set: PrimeSet,
    garbler: ArithGarbler,
    evaluator: ArithEvaluator,
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
        let delta = Block::random(&mut rng).with_lsb_set();
        let mut garbler = ArithGarbler::new(new_rng(Some(seed), 3), delta)?;
        let evaluator = ArithEvaluator::new(garbler.session_key());
        let mask = (1u128 << w) - 1;
        let (s, x, y) = (
            rng.gen::<bool>(),
            rng.gen::<u128>() & mask,
            rng.gen::<u128>() & mask,
        );
        let (x0, y0) = (garbler.new_bundle(&set), garbler.new_bundle(&set));
        let (x1, y1) = (garbler.encode_bundle(&x0, x)?, garbler.encode_bundle(&y0, y)?);
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
    type Tables = Vec<u8>;

    fn check(&mut self) -> Result<(), CliError> {
        let before = self.garbler.table_rows();
        let mut rows = Vec::new();
        let zero = run(&mut self.garbler, self.op, &self.set, &self.zero, &mut rows)?;
        self.table = (self.garbler.table_rows() - before, rows.len() as u64);
        let mut reader = TableReader::new(&rows);
        let active = run(&mut self.evaluator, self.op, &self.set, &self.active, &mut reader)?;
        reader.finish()?;
        let (s, x, y) = self.values;
        let correct = match (zero, active) {
            (Output::Bundle(z), Output::Bundle(a)) => {
                let got = ArithEvaluator::decode_bundle(&a, &ArithGarbler::bundle_decoding(&z))?;
                got == expected(self.op, &self.set, s, x, y)?
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

    fn garble(&mut self, n: usize) -> Result<Vec<u8>, CliError> {
        let mut rows = Vec::with_capacity(n * self.table.1 as usize);
        for _ in 0..n {
            run(&mut self.garbler, self.op, &self.set, &self.zero, &mut rows)?;
        }
        Ok(rows)
    }

    fn evaluate(&mut self, rows: &Vec<u8>, n: usize) -> Result<(), CliError> {
        let mut reader = TableReader::new(rows);
        for _ in 0..n {
            run(&mut self.evaluator, self.op, &self.set, &self.active, &mut reader)?;
        }
        Ok(reader.finish()?)
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
