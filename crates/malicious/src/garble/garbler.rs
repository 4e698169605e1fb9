//! The garbler's side (party A) of WRK17 Fig. 2, one batch of AND gates at a time.

use mixgc_circuit::{Circuit, GateKind, PartyId};
use mixgc_core::{new_rng, Block, Rng, Tccr};
use mixgc_net::{Channel, ChannelExt};

use super::bits::{recv_bits, send_bits};
use super::checks::{GARBLER_INPUT_MASK, GARBLER_OUTPUT_LABEL, GARBLER_OUTPUT_MASK};
use super::masks::{and_masks, mask_gates, next_batch};
use super::open::{receive_reveal, send_reveal};
use super::table::{garble, AndGate, TABLE_BLOCKS};
use super::terms::{check_inputs, Deviation, Settings, Terms};
use crate::auth::{AuthShare, Preprocessor, Role};
use crate::MaliciousError;

/// What the garbler holds per wire: its view of ⟨λ_w⟩ and the zero label L_w,0.
struct Wires {
    masks: Vec<AuthShare>,
    label0: Vec<Block>,
}

/// Runs the garbler of `circuit` with its `inputs` (the values `0..terms.garbler_values`),
/// against [`super::run_evaluator`] on the other end of `ch`. Returns the outputs when the
/// garbler learns them. Any failed check returns [`MaliciousError::CheckFailed`] before an
/// output is produced.
pub fn run_garbler<C: Channel + ?Sized, P: Preprocessor>(
    ch: &mut C,
    prep: &mut P,
    circuit: &Circuit,
    terms: &Terms,
    inputs: &[Vec<bool>],
    settings: &Settings,
) -> Result<Option<Vec<Vec<bool>>>, MaliciousError> {
    let garbler_bits = terms.check(circuit)?;
    let x = check_inputs(circuit, 0..terms.garbler_values, inputs)?;
    if prep.role() != Role::Garbler {
        return Err(MaliciousError::Input("the garbler needs a garbler's preprocessor".into()));
    }
    let delta = prep.delta().0;
    if !delta.lsb() {
        return Err(MaliciousError::Input("the garbler's Δ_A must have lsb 1".into()));
    }
    terms.agree(ch, circuit, true)?;
    let mut g = Garbler {
        rng: new_rng(settings.insecure_seed, 0x6761_7262),
        delta,
        deviation: settings.deviation,
        hash: Tccr::default(),
        wires: Wires {
            masks: vec![AuthShare::default(); circuit.num_wires as usize],
            label0: vec![Block::ZERO; circuit.num_wires as usize],
        },
        zero_label: Block::ZERO,
        ands_done: 0,
    };
    g.inputs(ch, prep, circuit, garbler_bits, &x)?;
    let mut start = 0;
    while start < circuit.num_gates() {
        let (gates, n) = next_batch(circuit, start, terms.batch_ands);
        g.batch(ch, prep, circuit, gates.clone(), n)?;
        start = gates.end;
    }
    g.outputs(ch, circuit, terms)
}

struct Garbler {
    rng: Rng,
    delta: Block,
    deviation: Deviation,
    hash: Tccr,
    wires: Wires,
    /// L_zero: the zero label of every constant wire (whose masked value is always 0).
    zero_label: Block,
    ands_done: u64,
}

impl Garbler {
    /// Fig. 2 step 5: input processing for both parties' inputs.
    fn inputs<C: Channel + ?Sized, P: Preprocessor>(
        &mut self,
        ch: &mut C,
        prep: &mut P,
        circuit: &Circuit,
        garbler_bits: usize,
        x: &[bool],
    ) -> Result<(), MaliciousError> {
        ch.set_phase("input processing");
        let total = circuit.total_input_bits() as usize;
        let shares = prep.random_shares(total).map_err(Into::into)?;
        self.wires.masks[..total].copy_from_slice(&shares);
        for l in &mut self.wires.label0[..total] {
            *l = Block::random(&mut self.rng);
        }
        self.zero_label = Block::random(&mut self.rng);
        // Reveal r_w of the evaluator's input wires to the evaluator.
        let tamper = |i| self.deviation == Deviation::WrongInputMaskMac { bit: i };
        send_reveal(ch, &shares[garbler_bits..], tamper)?;
        ch.flush()?;
        // The evaluator's shares s_w of our input wires, then its masked inputs.
        let s = receive_reveal(ch, &shares[..garbler_bits], self.delta, GARBLER_INPUT_MASK)?;
        let their_masked = recv_bits(ch, total - garbler_bits, "the evaluator's masked inputs")?;
        let ours_masked: Vec<bool> = (0..garbler_bits)
            .map(|w| x[w] ^ shares[w].bit ^ s[w])
            .collect();
        let mut labels = Vec::with_capacity(total + 1);
        for (w, &z) in ours_masked.iter().chain(&their_masked).enumerate() {
            let mut l = self.wires.label0[w] ^ self.delta.and_bit(z);
            let wrong = match self.deviation {
                Deviation::WrongGarblerInputLabel { bit } => bit == w,
                Deviation::WrongEvaluatorLabelOnZero { bit } => bit + garbler_bits == w && !z,
                _ => false,
            };
            if wrong {
                l ^= Block::from_u128(1 << 100);
            }
            labels.push(l);
        }
        labels.push(self.zero_label);
        send_bits(ch, &ours_masked)?;
        ch.send_blocks(&labels)?;
        ch.flush()?;
        Ok(())
    }

    /// Preprocesses, garbles and sends one batch of `n` AND gates (Fig. 2 steps 2–4).
    fn batch<C: Channel + ?Sized, P: Preprocessor>(
        &mut self,
        ch: &mut C,
        prep: &mut P,
        circuit: &Circuit,
        gates: std::ops::Range<usize>,
        n: usize,
    ) -> Result<(), MaliciousError> {
        let (fresh, triples) = if n > 0 {
            (
                prep.random_shares(n).map_err(Into::into)?,
                prep.and_triples(n).map_err(Into::into)?,
            )
        } else {
            (Vec::new(), Vec::new())
        };
        let ands = mask_gates(circuit, gates.clone(), &mut self.wires.masks, &fresh, Role::Garbler, self.delta);
        self.label_gates(circuit, gates);
        if n == 0 {
            return Ok(());
        }
        let tamper = self.deviation == Deviation::WrongAndMaskMac;
        let sigma = and_masks(ch, circuit, &ands, &self.wires.masks, &triples, Role::Garbler, self.delta, tamper)?;
        let w = &self.wires;
        let and_gates: Vec<AndGate> = ands
            .iter()
            .zip(&sigma)
            .map(|(&g, &mask_ab)| {
                let (a, b, o) = (circuit.a[g] as usize, circuit.b[g] as usize, circuit.out[g] as usize);
                AndGate {
                    label_a: w.label0[a],
                    label_b: w.label0[b],
                    label_out: w.label0[o],
                    mask_a: w.masks[a],
                    mask_b: w.masks[b],
                    mask_out: w.masks[o],
                    mask_ab,
                }
            })
            .collect();
        let mut tables = Vec::with_capacity(TABLE_BLOCKS * n);
        garble(&self.hash, self.delta, self.ands_done, &and_gates, &mut tables);
        if let Deviation::FlipRows { gate, rows } = self.deviation {
            if (self.ands_done..self.ands_done + n as u64).contains(&gate) {
                let base = (gate - self.ands_done) as usize * TABLE_BLOCKS;
                for row in (0..4).filter(|r| rows >> r & 1 == 1) {
                    tables[base + 2 * row] ^= Block::from_u128(1 << 7);
                }
            }
        }
        self.ands_done += n as u64;
        ch.set_phase("the authenticated garbled tables");
        ch.send_blocks(&tables)?;
        ch.flush()?;
        Ok(())
    }

    /// The zero labels of the gates' output wires (free XOR; fresh for AND outputs).
    fn label_gates(&mut self, circuit: &Circuit, gates: std::ops::Range<usize>) {
        let l = &mut self.wires.label0;
        for g in gates {
            let (a, b, out) = (circuit.a[g] as usize, circuit.b[g] as usize, circuit.out[g] as usize);
            l[out] = match circuit.kind[g] {
                GateKind::Xor => l[a] ^ l[b],
                GateKind::Not | GateKind::Copy => l[a],
                GateKind::Const => self.zero_label,
                GateKind::And => Block::random(&mut self.rng),
            };
        }
    }

    /// Fig. 2 step 7 and output to the garbler.
    fn outputs<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        circuit: &Circuit,
        terms: &Terms,
    ) -> Result<Option<Vec<Vec<bool>>>, MaliciousError> {
        ch.set_phase("output decoding");
        let outs: Vec<AuthShare> = circuit.output_wires.iter().map(|&w| self.wires.masks[w as usize]).collect();
        if terms.reveal.contains(PartyId::EVALUATOR) {
            let tamper = |i| self.deviation == Deviation::WrongOutputMaskMac { bit: i };
            send_reveal(ch, &outs, tamper)?;
            ch.flush()?;
        }
        if !terms.reveal.contains(PartyId::GARBLER) {
            return Ok(None);
        }
        let masked = recv_bits(ch, outs.len(), "the evaluator's masked outputs")?;
        let labels = ch.recv_blocks(outs.len())?;
        for ((&w, &z), &l) in circuit.output_wires.iter().zip(&masked).zip(&labels) {
            if l != self.wires.label0[w as usize] ^ self.delta.and_bit(z) {
                return Err(MaliciousError::CheckFailed { check: GARBLER_OUTPUT_LABEL });
            }
        }
        let s = receive_reveal(ch, &outs, self.delta, GARBLER_OUTPUT_MASK)?;
        let bits: Vec<bool> = outs
            .iter()
            .zip(masked.iter().zip(&s))
            .map(|(r, (&z, &s))| z ^ r.bit ^ s)
            .collect();
        Ok(Some(super::split_outputs(circuit, &bits)))
    }
}
