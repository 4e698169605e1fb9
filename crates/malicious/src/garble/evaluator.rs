//! The evaluator's side (party B) of authenticated garbling (WRK17 Fig. 2 with KRRW18's
//! half-size garbling), one batch of AND gates at a time.

use mixgc_circuit::{Audience, Circuit, PartyId};
use mixgc_compile::{GateStream, RunKind, NOT_SLOT};
use mixgc_core::{Block, Tccr};
use mixgc_net::{Channel, ChannelExt};

use super::batch::{Batch, Batches};
use super::bits::{recv_bits, send_bits};
use super::checks::{AND_CONSISTENCY, EVALUATOR_INPUT_MASK, EVALUATOR_OUTPUT_MASK};
use super::digest::{BlockDigest, AND_LABELS, CONSISTENCY};
use super::masks::{and_masks, mask_batch, AndMasks};
use super::open::{receive_reveal, send_reveal};
use super::share::constant;
use super::table::{check_block, evaluate, AndInput, TABLE_BLOCKS};
use super::terms::{check_inputs, compiled, Deviation, Settings, Terms};
use crate::auth::{AuthShare, Preprocessor, Role};
use crate::MaliciousError;

/// Runs the evaluator of `circuit` with its `inputs` (the values from
/// `terms.garbler_values` on), against [`super::run_garbler`] on the other end of `ch`.
/// Returns the outputs when the evaluator learns them. The AND consistency check runs
/// before any output is decoded, so a cheating garbler makes this return
/// [`MaliciousError::CheckFailed`], never a wrong output.
pub fn run_evaluator<C: Channel + ?Sized, P: Preprocessor>(
    ch: &mut C,
    prep: &mut P,
    circuit: &Circuit,
    terms: &Terms,
    inputs: &[Vec<bool>],
    settings: &Settings,
) -> Result<Option<Vec<Vec<bool>>>, MaliciousError> {
    let compiled = compiled(circuit)?;
    run_evaluator_stream(ch, prep, &mut compiled.stream(), terms, inputs, settings)
}

/// [`run_evaluator`] over any compiled gate stream; the garbler must run the same stream.
pub fn run_evaluator_stream<C: Channel + ?Sized, P: Preprocessor>(
    ch: &mut C,
    prep: &mut P,
    stream: &mut dyn GateStream,
    terms: &Terms,
    inputs: &[Vec<bool>],
    settings: &Settings,
) -> Result<Option<Vec<Vec<bool>>>, MaliciousError> {
    let header = stream.header().clone();
    let garbler_bits = terms.check(&header)?;
    let widths = header.input_widths();
    let y = check_inputs(widths, terms.garbler_values..widths.len(), inputs)?;
    if prep.role() != Role::Evaluator {
        return Err(MaliciousError::Input(
            "the evaluator needs an evaluator's preprocessor".into(),
        ));
    }
    terms.agree(ch, &header, false)?;
    // The circuit's triples are announced up to one `--batch-ands` batch (both parties hold
    // the same header now): the batch bounds the preprocessing's memory as the garbling's
    // (thesis §3.3.2); B = 3 from 280,000 triples (WRK17's table) takes a batch that large.
    prep.plan_triples(header.num_ands().min(terms.batch_ands as u64));
    let mut e = Evaluator::new(prep.delta().0, settings, header.num_slots() as usize);
    e.start(ch)?;
    e.inputs(ch, prep, header.input_slots(), garbler_bits, &y)?;
    // Pipelined: the Beaver opening of batch k+1 is answered before batch k is evaluated,
    // so the garbler garbles batch k+1 while this party evaluates batch k.
    let mut batches = Batches::new(stream, terms.batch_ands)?;
    let mut current = match batches.next_batch()? {
        Some(b) => Some(e.prepare(ch, prep, b)?),
        None => None,
    };
    while let Some(prepared) = current.take() {
        let received = e.receive(ch, &prepared)?;
        if let Some(b) = batches.next_batch()? {
            current = Some(e.prepare(ch, prep, b)?);
        }
        e.evaluate(ch, prepared, received)?;
    }
    let bits = e.outputs(ch, header.output_slots(), terms.reveal)?;
    Ok(bits.map(|b| super::split_outputs(header.output_widths(), &b)))
}

/// A batch whose masks are set and whose AND masks ⟨λ_α λ_β⟩ are opened.
struct Prepared {
    batch: Batch,
    masks: Vec<AndMasks>,
    sigma: Vec<AuthShare>,
}

/// The evaluator's state between batches (shared by circuits and programs).
pub(crate) struct Evaluator {
    delta: Block,
    deviation: Deviation,
    hash: Tccr,
    /// Per slot: this party's view of ⟨λ_w⟩, the masked value ẑ_w = v_w ⊕ λ_w and the
    /// label L_w,ẑ_w.
    masks: Vec<AuthShare>,
    masked: Vec<bool>,
    labels: Vec<Block>,
    ands_done: u64,
    /// The evaluator's blocks of the AND consistency check since the last output.
    consistency: BlockDigest,
    /// A batch's fresh AND-output masks, used while it is prepared; kept between batches
    /// so that its allocation (and pages) serve every batch.
    fresh: Vec<AuthShare>,
}

impl Evaluator {
    /// An evaluator with Δ_B = `delta` and `slots` wire slots.
    pub(crate) fn new(delta: Block, settings: &Settings, slots: usize) -> Evaluator {
        Evaluator {
            delta,
            deviation: settings.deviation,
            hash: Tccr::default(),
            masks: vec![AuthShare::default(); slots.max(1)],
            masked: vec![false; slots.max(1)],
            labels: vec![Block::ZERO; slots.max(1)],
            ands_done: 0,
            consistency: BlockDigest::new(CONSISTENCY),
            fresh: Vec::new(),
        }
    }

    /// AND gates garbled (or evaluated) so far.
    pub(crate) fn ands_done(&self) -> u64 {
        self.ands_done
    }

    /// Grows the slots to at least `slots`.
    pub(crate) fn ensure_slots(&mut self, slots: usize) {
        if self.masks.len() < slots {
            self.masks.resize(slots, AuthShare::default());
            self.masked.resize(slots, false);
            self.labels.resize(slots, Block::ZERO);
        }
    }

    /// Receives L_zero and sets the NOT slot to the constant 1: λ = 1, masked value 0,
    /// label L_zero.
    pub(crate) fn start<C: Channel + ?Sized>(&mut self, ch: &mut C) -> Result<(), MaliciousError> {
        ch.flush()?;
        self.labels[NOT_SLOT as usize] = ch.recv_blocks(1)?[0];
        self.masks[NOT_SLOT as usize] = constant(true, Role::Evaluator, self.delta);
        Ok(())
    }

    /// Fig. 2 step 5: input processing of the input bits in `input_slots`, the first
    /// `garbler_bits` the garbler's, the rest the evaluator's (values `y`). The
    /// evaluator's masked inputs ẑ_w = y_w ⊕ λ_w are uniform to the garbler, so which label
    /// it could corrupt is independent of y (the selective-failure protection of the
    /// authenticated masks).
    pub(crate) fn inputs<C: Channel + ?Sized, P: Preprocessor>(
        &mut self,
        ch: &mut C,
        prep: &mut P,
        input_slots: &[u32],
        garbler_bits: usize,
        y: &[bool],
    ) -> Result<(), MaliciousError> {
        ch.set_phase("input processing");
        let total = input_slots.len();
        let shares = prep.random_shares(total).map_err(Into::into)?;
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
        let labels = ch.recv_blocks(total)?;
        for (i, &slot) in input_slots.iter().enumerate() {
            let slot = slot as usize;
            self.masks[slot] = shares[i];
            self.masked[slot] = theirs_masked
                .get(i)
                .copied()
                .unwrap_or_else(|| ours_masked[i - garbler_bits]);
            self.labels[slot] = labels[i];
        }
        Ok(())
    }

    /// Preprocesses one batch, receives its garbled gates, evaluates it and reports its
    /// masked AND outputs (the program path: no pipelining).
    pub(crate) fn batch<C: Channel + ?Sized, P: Preprocessor>(
        &mut self,
        ch: &mut C,
        prep: &mut P,
        batch: Batch,
    ) -> Result<(), MaliciousError> {
        let prepared = self.prepare(ch, prep, batch)?;
        let received = self.receive(ch, &prepared)?;
        self.evaluate(ch, prepared, received)
    }

    /// Function-dependent preprocessing of one batch: masks and the Beaver opening.
    fn prepare<C: Channel + ?Sized, P: Preprocessor>(
        &mut self,
        ch: &mut C,
        prep: &mut P,
        batch: Batch,
    ) -> Result<Prepared, MaliciousError> {
        let n = batch.ands;
        let fresh = &mut self.fresh;
        fresh.clear();
        if n > 0 {
            prep.random_shares_into(n, fresh).map_err(Into::into)?;
        }
        let masks = mask_batch(&batch, &mut self.masks, fresh, Role::Evaluator, self.delta);
        let sigma = if n > 0 {
            let (tamper, delta) = (self.deviation == Deviation::WrongAndMaskMac, self.delta);
            // The triples are lent in place by the preprocessor (no copy out of its batch).
            prep.with_and_triples(n, |triples| {
                and_masks(ch, &masks, triples, Role::Evaluator, delta, tamper)
            })?
        } else {
            Vec::new()
        };
        Ok(Prepared { batch, masks, sigma })
    }

    /// The garbled gates of a prepared batch: (G_0, G_1) blocks and b_γ bits.
    fn receive<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        p: &Prepared,
    ) -> Result<(Vec<Block>, Vec<bool>), MaliciousError> {
        let n = p.batch.ands;
        if n == 0 {
            return Ok((Vec::new(), Vec::new()));
        }
        ch.set_phase("the authenticated garbled gates");
        let tables = ch.recv_blocks(TABLE_BLOCKS * n)?;
        let bits = recv_bits(ch, n, "the garbled gates' bits")?;
        Ok((tables, bits))
    }

    /// Evaluates a batch (KRRW18 half-gates), then sends the garbler the masked values of
    /// its AND outputs with a hash of their labels (which binds them: no other label is
    /// known to the evaluator), for the garbler's half of the AND consistency check.
    fn evaluate<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        p: Prepared,
        (tables, bits): (Vec<Block>, Vec<bool>),
    ) -> Result<(), MaliciousError> {
        let Prepared { batch, masks, sigma } = p;
        let n = batch.ands;
        let mut outputs = Vec::with_capacity(n);
        let mut label_digest = BlockDigest::new(AND_LABELS);
        let mut i = 0;
        let mut inputs = Vec::new();
        for (kind, gates) in batch.runs() {
            match kind {
                RunKind::Xor => {
                    for g in gates {
                        let (a, b, o) = (g.a as usize, g.b as usize, g.out as usize);
                        self.masked[o] = self.masked[a] ^ self.masked[b];
                        self.labels[o] = self.labels[a] ^ self.labels[b];
                    }
                }
                RunKind::Const => {
                    for g in gates {
                        self.masked[g.out as usize] = false;
                        self.labels[g.out as usize] = self.labels[NOT_SLOT as usize];
                    }
                }
                // All inputs of an AND run are read before any output is written; the
                // run's gates are hashed together.
                RunKind::And => {
                    inputs.clear();
                    for (k, g) in gates.iter().enumerate() {
                        let (a, b) = (g.a as usize, g.b as usize);
                        inputs.push(AndInput {
                            labels: [self.labels[a], self.labels[b]],
                            masked: [self.masked[a], self.masked[b]],
                            masks: &masks[i + k],
                            mask_ab: &sigma[i + k],
                        });
                    }
                    let range = i..i + gates.len();
                    let tables = &tables[TABLE_BLOCKS * range.start..TABLE_BLOCKS * range.end];
                    let results = evaluate(
                        &self.hash,
                        self.ands_done + i as u64,
                        &inputs,
                        tables,
                        &bits[range],
                    );
                    for ((g, input), &(z, label)) in gates.iter().zip(&inputs).zip(&results) {
                        let [za, zb] = input.masked;
                        let block = check_block(
                            input.masks,
                            *input.mask_ab,
                            [za, zb, z],
                            Role::Evaluator,
                            self.delta,
                        );
                        self.consistency.push(block);
                        label_digest.push(label);
                        outputs.push(z);
                        self.masked[g.out as usize] = z;
                        self.labels[g.out as usize] = label;
                    }
                    i += gates.len();
                }
                RunKind::Parallel => {}
            }
        }
        if n > 0 {
            if let Deviation::FlipMaskedAndOutput { gate } = self.deviation {
                if let Some(z) = gate
                    .checked_sub(self.ands_done)
                    .and_then(|k| outputs.get_mut(k as usize))
                {
                    *z ^= true;
                }
            }
            send_bits(ch, &outputs)?;
            ch.send(&label_digest.take())?;
            ch.flush()?;
        }
        self.ands_done += n as u64;
        Ok(())
    }

    /// The AND consistency check (KRRW18): the garbler's hash of its blocks must equal
    /// ours, else some masked AND output was wrong.
    fn check_consistency<C: Channel + ?Sized>(&mut self, ch: &mut C) -> Result<(), MaliciousError> {
        ch.set_phase("the AND consistency check");
        let mut theirs = [0u8; 32];
        ch.recv(&mut theirs)?;
        if theirs != self.consistency.take() {
            return Err(MaliciousError::CheckFailed {
                check: AND_CONSISTENCY,
            });
        }
        Ok(())
    }

    /// Fig. 2 step 7 (output to the evaluator) and output to the garbler: reveals the bits
    /// in `slots` to `reveal`; returns them if the evaluator is in it.
    pub(crate) fn outputs<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        slots: &[u32],
        reveal: Audience,
    ) -> Result<Option<Vec<bool>>, MaliciousError> {
        ch.flush()?;
        self.check_consistency(ch)?;
        ch.set_phase("output decoding");
        let outs: Vec<AuthShare> = slots.iter().map(|&o| self.masks[o as usize]).collect();
        let masked: Vec<bool> = slots.iter().map(|&o| self.masked[o as usize]).collect();
        let mine = if reveal.contains(PartyId::EVALUATOR) {
            let r = receive_reveal(ch, &outs, self.delta, EVALUATOR_OUTPUT_MASK)?;
            let bits: Vec<bool> = outs
                .iter()
                .zip(masked.iter().zip(&r))
                .map(|(s, (&z, &r))| z ^ r ^ s.bit)
                .collect();
            Some(bits)
        } else {
            None
        };
        if reveal.contains(PartyId::GARBLER) {
            let mut labels: Vec<Block> = slots.iter().map(|&o| self.labels[o as usize]).collect();
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
