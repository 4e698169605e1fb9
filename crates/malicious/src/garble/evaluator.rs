//! The evaluator's side (party B) of WRK17 Fig. 2, one batch of AND gates at a time.

use mixgc_circuit::{Circuit, GateKind, PartyId};
use mixgc_core::{Block, Tccr};
use mixgc_net::{Channel, ChannelExt};

use super::bits::{recv_bits, send_bits};
use super::checks::{EVALUATOR_INPUT_MASK, EVALUATOR_OUTPUT_MASK, GARBLED_ROW};
use super::masks::{and_masks, mask_gates, next_batch};
use super::open::{receive_reveal, send_reveal};
use super::table::{decrypt, row_share, TABLE_BLOCKS};
use super::terms::{check_inputs, Deviation, Settings, Terms};
use crate::auth::{AuthShare, Preprocessor, Role};
use crate::MaliciousError;

/// What the evaluator holds per wire: its view of ⟨λ_w⟩, the masked value ẑ_w = v_w ⊕ λ_w
/// and the label L_w,ẑ_w.
struct Wires {
    masks: Vec<AuthShare>,
    masked: Vec<bool>,
    labels: Vec<Block>,
}

/// Runs the evaluator of `circuit` with its `inputs` (the values from
/// `terms.garbler_values` on), against [`super::run_garbler`] on the other end of `ch`.
/// Returns the outputs when the evaluator learns them. Every decrypted row's MAC is
/// checked as it is used, so a cheating garbler makes this return
/// [`MaliciousError::CheckFailed`], never a wrong output.
pub fn run_evaluator<C: Channel + ?Sized, P: Preprocessor>(
    ch: &mut C,
    prep: &mut P,
    circuit: &Circuit,
    terms: &Terms,
    inputs: &[Vec<bool>],
    settings: &Settings,
) -> Result<Option<Vec<Vec<bool>>>, MaliciousError> {
    let garbler_bits = terms.check(circuit)?;
    let y = check_inputs(circuit, terms.garbler_values..circuit.input_widths.len(), inputs)?;
    if prep.role() != Role::Evaluator {
        return Err(MaliciousError::Input("the evaluator needs an evaluator's preprocessor".into()));
    }
    terms.agree(ch, circuit, false)?;
    let n = circuit.num_wires as usize;
    let mut e = Evaluator {
        delta: prep.delta().0,
        deviation: settings.deviation,
        hash: Tccr::default(),
        wires: Wires {
            masks: vec![AuthShare::default(); n],
            masked: vec![false; n],
            labels: vec![Block::ZERO; n],
        },
        zero_label: Block::ZERO,
        ands_done: 0,
    };
    e.inputs(ch, prep, circuit, garbler_bits, &y)?;
    let mut start = 0;
    while start < circuit.num_gates() {
        let (gates, n) = next_batch(circuit, start, terms.batch_ands);
        e.batch(ch, prep, circuit, gates.clone(), n)?;
        start = gates.end;
    }
    e.outputs(ch, circuit, terms)
}

struct Evaluator {
    delta: Block,
    deviation: Deviation,
    hash: Tccr,
    wires: Wires,
    zero_label: Block,
    ands_done: u64,
}

impl Evaluator {
    /// Fig. 2 step 5: input processing. The evaluator's masked inputs ẑ_w = y_w ⊕ λ_w are
    /// uniform to the garbler, so which label it could corrupt is independent of y (the
    /// selective-failure protection of the authenticated masks).
    fn inputs<C: Channel + ?Sized, P: Preprocessor>(
        &mut self,
        ch: &mut C,
        prep: &mut P,
        circuit: &Circuit,
        garbler_bits: usize,
        y: &[bool],
    ) -> Result<(), MaliciousError> {
        ch.set_phase("input processing");
        let total = circuit.total_input_bits() as usize;
        let shares = prep.random_shares(total).map_err(Into::into)?;
        self.wires.masks[..total].copy_from_slice(&shares);
        let r = receive_reveal(ch, &shares[garbler_bits..], self.delta, EVALUATOR_INPUT_MASK)?;
        let ours_masked: Vec<bool> = shares[garbler_bits..]
            .iter()
            .zip(&r)
            .zip(y)
            .map(|((s, &r), &y)| y ^ r ^ s.bit)
            .collect();
        let tamper = |i| self.deviation == Deviation::WrongInputMaskMac { bit: i };
        send_reveal(ch, &shares[..garbler_bits], tamper)?;
        send_bits(ch, &ours_masked)?;
        ch.flush()?;
        let theirs_masked = recv_bits(ch, garbler_bits, "the garbler's masked inputs")?;
        let labels = ch.recv_blocks(total + 1)?;
        self.wires.masked[..garbler_bits].copy_from_slice(&theirs_masked);
        self.wires.masked[garbler_bits..total].copy_from_slice(&ours_masked);
        self.wires.labels[..total].copy_from_slice(&labels[..total]);
        self.zero_label = labels[total];
        Ok(())
    }

    /// Preprocesses one batch of `n` AND gates, receives its tables and evaluates it.
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
        let ands = mask_gates(circuit, gates.clone(), &mut self.wires.masks, &fresh, Role::Evaluator, self.delta);
        let (sigma, tables) = if n > 0 {
            let tamper = self.deviation == Deviation::WrongAndMaskMac;
            let sigma =
                and_masks(ch, circuit, &ands, &self.wires.masks, &triples, Role::Evaluator, self.delta, tamper)?;
            ch.set_phase("the authenticated garbled tables");
            (sigma, ch.recv_blocks(TABLE_BLOCKS * n)?)
        } else {
            (Vec::new(), Vec::new())
        };
        let w = &mut self.wires;
        let mut and_index = 0;
        for g in gates {
            let (a, b, out) = (circuit.a[g] as usize, circuit.b[g] as usize, circuit.out[g] as usize);
            let (z, label) = match circuit.kind[g] {
                GateKind::Xor => (w.masked[a] ^ w.masked[b], w.labels[a] ^ w.labels[b]),
                GateKind::Not | GateKind::Copy => (w.masked[a], w.labels[a]),
                GateKind::Const => (false, self.zero_label),
                GateKind::And => {
                    let (za, zb) = (w.masked[a], w.masked[b]);
                    let row = row_share(w.masks[a], w.masks[b], w.masks[out], sigma[and_index], za, zb, Role::Evaluator, self.delta);
                    let table = &tables[TABLE_BLOCKS * and_index..TABLE_BLOCKS * (and_index + 1)];
                    let gate = self.ands_done + and_index as u64;
                    and_index += 1;
                    let (r, label) = decrypt(&self.hash, self.delta, gate, table, w.labels[a], w.labels[b], za, zb, row)
                        .ok_or(MaliciousError::CheckFailed { check: GARBLED_ROW })?;
                    (r ^ row.bit, label)
                }
            };
            w.masked[out] = z;
            w.labels[out] = label;
        }
        self.ands_done += n as u64;
        Ok(())
    }

    /// Fig. 2 step 7 (output to the evaluator) and output to the garbler.
    fn outputs<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        circuit: &Circuit,
        terms: &Terms,
    ) -> Result<Option<Vec<Vec<bool>>>, MaliciousError> {
        ch.set_phase("output decoding");
        let w = &self.wires;
        let outs: Vec<AuthShare> = circuit.output_wires.iter().map(|&o| w.masks[o as usize]).collect();
        let masked: Vec<bool> = circuit.output_wires.iter().map(|&o| w.masked[o as usize]).collect();
        let mine = if terms.reveal.contains(PartyId::EVALUATOR) {
            let r = receive_reveal(ch, &outs, self.delta, EVALUATOR_OUTPUT_MASK)?;
            let bits: Vec<bool> = outs
                .iter()
                .zip(masked.iter().zip(&r))
                .map(|(s, (&z, &r))| z ^ r ^ s.bit)
                .collect();
            Some(super::split_outputs(circuit, &bits))
        } else {
            None
        };
        if terms.reveal.contains(PartyId::GARBLER) {
            let mut labels: Vec<Block> = circuit.output_wires.iter().map(|&o| w.labels[o as usize]).collect();
            if let Deviation::WrongOutputLabel { bit } = self.deviation {
                if let Some(l) = labels.get_mut(bit) {
                    *l ^= Block::from_u128(1 << 90);
                }
            }
            send_bits(ch, &masked)?;
            ch.send_blocks(&labels)?;
            let tamper = |i| self.deviation == Deviation::WrongOutputMaskMac { bit: i };
            send_reveal(ch, &outs, tamper)?;
            ch.flush()?;
        }
        Ok(mine)
    }
}
