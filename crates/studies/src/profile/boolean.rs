//! Boolean GC profiles: the op's circuit recorded from the program interface's gadgets,
//! compiled, then garbled and evaluated in memory by the half-gates cores.

use mixgc_arith::cost::protocol::OT_BYTES;
use mixgc_compile::{compile, CompiledCircuit, LABEL_BYTES};
use mixgc_core::{new_rng, AnyHash, Block, HashKind};
use mixgc_garble::{Evaluator, Garbler};
use mixgc_program::gadgets::{self, div, mul};
use mixgc_program::{Backend, PartyId, ProgramError, Recorder};
use rand::Rng;

use super::timing::{time, Instance};
use super::workload::{Measured, Op, PUB_EXP, PUB_MUL_CONST};
use crate::common::CliError;

/// Bytes of one half-gates AND table (two rows of 16 bytes).
const AND_BYTES: u64 = 32;

/// x^e mod 2^w by left-to-right square-and-multiply (e ≥ 1).
fn pow<B: Backend>(b: &mut B, x: &[B::Wire], e: u64) -> Vec<B::Wire> {
    let mut acc = x.to_vec();
    for i in (0..63 - e.leading_zeros()).rev() {
        acc = mul::mul(b, &acc, &acc);
        if e >> i & 1 == 1 {
            acc = mul::mul(b, &acc, x);
        }
    }
    acc
}

/// Builds `op`'s workload on `b`: the garbler's x and the evaluator's y (w bits each; the
/// unary Pub Mul and Pub Exp take the evaluator's y alone; Mux also takes the garbler's
/// selector bit s and gives s ? x : y), the op, one output.
fn build<B: Backend>(b: &mut B, op: Op, w: u32) -> Result<(), ProgramError> {
    let out = match op {
        Op::PubMul | Op::PubExp => {
            let y = b.input(PartyId::EVALUATOR, w, None)?;
            if op == Op::PubMul {
                mul::mul_const(b, &y, PUB_MUL_CONST)
            } else {
                pow(b, &y, PUB_EXP)
            }
        }
        Op::Mux => {
            let s = b.input(PartyId::GARBLER, 1, None)?;
            let x = b.input(PartyId::GARBLER, w, None)?;
            let y = b.input(PartyId::EVALUATOR, w, None)?;
            // gadgets::mux(s, no, yes)
            gadgets::mux(b, s[0], &y, &x)
        }
        _ => {
            let x = b.input(PartyId::GARBLER, w, None)?;
            let y = b.input(PartyId::EVALUATOR, w, None)?;
            match op {
                Op::Xor => gadgets::xor(b, &x, &y),
                Op::And => x.iter().zip(&y).map(|(&p, &q)| b.and(p, q)).collect(),
                Op::Add => gadgets::add(b, &x, &y),
                Op::Sub => gadgets::sub(b, &x, &y),
                Op::Mul => mul::mul(b, &x, &y),
                Op::Div => div::div_unsigned(b, &x, &y),
                Op::Mod => div::rem_unsigned(b, &x, &y),
                Op::Geq => {
                    let lt = gadgets::lt_unsigned(b, &x, &y);
                    vec![b.not(lt[0])]
                }
                Op::Bc | Op::Bd => unreachable!("conversions have no Boolean workload"),
                Op::PubMul | Op::PubExp | Op::Mux => unreachable!("built above"),
            }
        }
    };
    b.output(&out)?;
    Ok(())
}

/// One compiled op circuit with fixed random inputs, and both cores.
struct BoolInstance {
    circuit: CompiledCircuit,
    garbler: Garbler<AnyHash>,
    evaluator: Evaluator<AnyHash>,
    bits: Vec<bool>,
    zero: Vec<Block>,
    active: Vec<Block>,
    consts: [Block; 2],
    delta: Block,
}

impl BoolInstance {
    fn new(circuit: CompiledCircuit, seed: u64) -> BoolInstance {
        let mut rng = new_rng(Some(seed), 0);
        let delta = Block::random(&mut rng).with_lsb_set();
        let key = Block::random(&mut rng);
        let bits: Vec<bool> = (0..circuit.input_slots().len()).map(|_| rng.gen()).collect();
        let zero: Vec<Block> = bits.iter().map(|_| Block::random(&mut rng)).collect();
        let active = zero
            .iter()
            .zip(&bits)
            .map(|(&z, &b)| z ^ delta.and_bit(b))
            .collect();
        BoolInstance {
            garbler: Garbler::new(AnyHash::new(HashKind::Tccr, key), delta),
            evaluator: Evaluator::new(AnyHash::new(HashKind::Tccr, key)),
            consts: [Block::random(&mut rng), Block::random(&mut rng)],
            circuit,
            bits,
            zero,
            active,
            delta,
        }
    }
}

impl Instance for BoolInstance {
    type Tables = Vec<Block>;

    fn check(&mut self) -> Result<(), CliError> {
        let tables = self.garble(1)?;
        let zeros = self.garbler.output_zero_labels(&self.circuit);
        self.evaluate(tables, 1)?;
        let got: Vec<bool> = self
            .evaluator
            .output_labels(&self.circuit)
            .iter()
            .zip(&zeros)
            .map(|(l, z)| l.lsb() ^ z.lsb())
            .collect();
        if got != self.circuit.eval_plain(&self.bits) {
            return Err("a Boolean op garbled in memory decoded to a wrong output".into());
        }
        Ok(())
    }

    fn garble(&mut self, n: usize) -> Result<Vec<Block>, CliError> {
        let mut tables = Vec::with_capacity(n * 2 * self.circuit.num_ands() as usize);
        for _ in 0..n {
            self.garbler.start(&self.circuit, &self.zero, self.consts);
            self.garbler.garble(self.circuit.body(), &mut tables, usize::MAX);
        }
        Ok(tables)
    }

    fn evaluate(&mut self, tables: Vec<Block>, n: usize) -> Result<Vec<Block>, CliError> {
        let consts = [self.consts[0], self.consts[1] ^ self.delta];
        let mut at = 0;
        for _ in 0..n {
            self.evaluator.start(&self.circuit, &self.active, consts);
            let (used, _) = self.evaluator.evaluate(self.circuit.body(), &tables[at..]);
            at += used;
        }
        if at != tables.len() {
            return Err("the evaluator left garbled rows unused".into());
        }
        Ok(tables)
    }
}

/// Profiles Boolean `op` at `w` bits over `reps` samples.
pub fn profile(op: Op, w: u32, reps: usize) -> Result<Measured, CliError> {
    let mut recorder = Recorder::default();
    build(&mut recorder, op, w)?;
    let recorded = recorder.finish();
    let widths = &recorded.circuit.input_widths;
    let garbler_bits: u64 = widths[..recorded.garbler_values]
        .iter()
        .map(|&b| u64::from(b))
        .sum();
    let evaluator_bits: u64 = widths[recorded.garbler_values..]
        .iter()
        .map(|&b| u64::from(b))
        .sum();
    let output_bits: u64 = recorded.circuit.output_widths.iter().map(|&b| u64::from(b)).sum();
    let circuit = compile(&recorded.circuit);
    let ands = circuit.num_ands();
    let mut instance = BoolInstance::new(circuit, u64::from(w));
    let timing = time(&mut instance, reps)?;
    Ok(Measured {
        ands: Some(ands),
        table_rows: 2 * ands,
        table_bytes: AND_BYTES * ands,
        garbler_input_bytes: LABEL_BYTES * garbler_bits,
        ot_bytes: OT_BYTES * evaluator_bits,
        // The session's Boolean reveal to both: packed decoding bits, packed colours back.
        output_bytes: 2 * output_bits.div_ceil(8),
        timing,
    })
}
