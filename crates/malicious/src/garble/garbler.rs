//! The garbler's side (party A) of authenticated garbling (WRK17 Fig. 2 with KRRW18's
//! half-size garbling), one batch of AND gates at a time.

use mixgc_circuit::{Audience, Circuit, PartyId};
use mixgc_compile::{GateStream, RunKind, NOT_SLOT};
use mixgc_core::{new_rng, Block, Rng, Tccr};
use mixgc_net::{Channel, ChannelExt};

use super::batch::{Batch, Batches};
use super::bits::{recv_bits, send_bits};
use super::checks::{EVALUATOR_AND_LABELS, GARBLER_INPUT_MASK, GARBLER_OUTPUT_LABEL, GARBLER_OUTPUT_MASK};
use super::digest::{BlockDigest, AND_LABELS, CONSISTENCY};
use super::masks::{and_masks, mask_batch, AndMasks};
use super::open::{receive_reveal, send_reveal};
use super::share::constant;
use super::table::{check_block, garble, AndGate, TABLE_BLOCKS};
use super::terms::{check_inputs, compiled, Deviation, Settings, Terms};
use crate::auth::{AuthShare, Preprocessor, Role};
use crate::MaliciousError;

/// Runs the garbler of `circuit` with its `inputs` (the values `0..terms.garbler_values`),
/// against [`super::run_evaluator`] on the other end of `ch`. Returns the outputs when the
/// garbler learns them. Any failed check returns [`MaliciousError::CheckFailed`] before an
/// output is produced. The circuit is compiled (`mixgc_compile::compile`) first, so the
/// per-wire state is O(live wires); see [`run_garbler_stream`] for a stream read from disk.
pub fn run_garbler<C: Channel + ?Sized, P: Preprocessor>(
    ch: &mut C,
    prep: &mut P,
    circuit: &Circuit,
    terms: &Terms,
    inputs: &[Vec<bool>],
    settings: &Settings,
) -> Result<Option<Vec<Vec<bool>>>, MaliciousError> {
    let compiled = compiled(circuit)?;
    run_garbler_stream(ch, prep, &mut compiled.stream(), terms, inputs, settings)
}

/// [`run_garbler`] over any compiled gate stream (in memory or a stream file); the
/// evaluator must run the same stream (the header exchange compares stream digests).
pub fn run_garbler_stream<C: Channel + ?Sized, P: Preprocessor>(
    ch: &mut C,
    prep: &mut P,
    stream: &mut dyn GateStream,
    terms: &Terms,
    inputs: &[Vec<bool>],
    settings: &Settings,
) -> Result<Option<Vec<Vec<bool>>>, MaliciousError> {
    let header = stream.header().clone();
    let garbler_bits = terms.check(&header)?;
    let x = check_inputs(header.input_widths(), 0..terms.garbler_values, inputs)?;
    if prep.role() != Role::Garbler {
        return Err(MaliciousError::Input(
            "the garbler needs a garbler's preprocessor".into(),
        ));
    }
    let delta = prep.delta().0;
    if !delta.lsb() {
        return Err(MaliciousError::Input("the garbler's Δ_A must have lsb 1".into()));
    }
    terms.agree(ch, &header, true)?;
    // The circuit's triples are announced up to one `--batch-ands` batch (both parties hold
    // the same header now): the batch bounds the preprocessing's memory as the garbling's
    // (thesis §3.3.2); B = 3 from 280,000 triples (WRK17's table) takes a batch that large.
    prep.plan_triples(header.num_ands().min(terms.batch_ands as u64));
    let mut g = Garbler::new(delta, settings, header.num_slots() as usize);
    g.start(ch)?;
    g.inputs(ch, prep, header.input_slots(), garbler_bits, &x)?;
    // Pipelined: batch k+1 is garbled (its Beaver opening answered by the evaluator
    // before it evaluates batch k) while the evaluator evaluates batch k; the evaluator's
    // masked outputs of batch k are taken after batch k+1 is sent.
    let mut batches = Batches::new(stream, terms.batch_ands)?;
    let mut sent: Option<Sent> = None;
    while let Some(batch) = batches.next_batch()? {
        let next = g.garble_and_send(ch, prep, batch)?;
        if let Some(previous) = sent.replace(next) {
            g.finish(ch, previous)?;
        }
    }
    if let Some(last) = sent {
        g.finish(ch, last)?;
    }
    let bits = g.outputs(ch, header.output_slots(), terms.reveal)?;
    Ok(bits.map(|b| super::split_outputs(header.output_widths(), &b)))
}

/// A garbled and sent batch, kept until the evaluator's masked outputs for it arrive.
struct Sent {
    batch: Batch,
    masks: Vec<AndMasks>,
    sigma: Vec<AuthShare>,
    /// L_γ,0 of each AND gate.
    out0: Vec<Block>,
}

/// The garbler's state between batches (shared by circuits and programs).
pub(crate) struct Garbler {
    rng: Rng,
    delta: Block,
    deviation: Deviation,
    hash: Tccr,
    /// Per slot: this party's view of ⟨λ_w⟩ and the zero label L_w,0.
    masks: Vec<AuthShare>,
    label0: Vec<Block>,
    /// Per slot: the masked value ẑ_w, as the evaluator reported it for AND outputs.
    masked: Vec<bool>,
    /// L_zero: the zero label of every constant wire (whose masked value is always 0).
    zero_label: Block,
    ands_done: u64,
    /// This party's blocks of the AND consistency check since the last output.
    consistency: BlockDigest,
    bufs: BatchBuffers,
}

/// The per-batch vectors the garbler fills and uses within one batch, kept between
/// batches so that their allocations (and pages) serve every batch.
#[derive(Default)]
struct BatchBuffers {
    fresh: Vec<AuthShare>,
    tables: Vec<Block>,
    bits: Vec<bool>,
}

impl Garbler {
    /// A garbler with Δ_A = `delta` and `slots` wire slots.
    pub(crate) fn new(delta: Block, settings: &Settings, slots: usize) -> Garbler {
        Garbler {
            rng: new_rng(settings.insecure_seed, 0x6761_7262),
            delta,
            deviation: settings.deviation,
            hash: Tccr::default(),
            masks: vec![AuthShare::default(); slots.max(1)],
            label0: vec![Block::ZERO; slots.max(1)],
            masked: vec![false; slots.max(1)],
            zero_label: Block::ZERO,
            ands_done: 0,
            consistency: BlockDigest::new(CONSISTENCY),
            bufs: BatchBuffers::default(),
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
            self.label0.resize(slots, Block::ZERO);
            self.masked.resize(slots, false);
        }
    }

    /// Draws L_zero, the label of every constant (whose masked value is always 0), sets
    /// the NOT slot to the constant 1 (λ = 1, masked value 0, label L_zero) and sends
    /// L_zero to the evaluator.
    pub(crate) fn start<C: Channel + ?Sized>(&mut self, ch: &mut C) -> Result<(), MaliciousError> {
        self.zero_label = Block::random(&mut self.rng);
        self.masks[NOT_SLOT as usize] = constant(true, Role::Garbler, self.delta);
        self.label0[NOT_SLOT as usize] = self.zero_label;
        ch.send_blocks(&[self.zero_label])?;
        // Flushed: the next step may be a preprocessing call that waits on the evaluator,
        // which itself waits for this label.
        ch.flush()?;
        Ok(())
    }

    /// Fig. 2 step 5: input processing of the input bits in `input_slots`, the first
    /// `garbler_bits` the garbler's (values `x`), the rest the evaluator's.
    pub(crate) fn inputs<C: Channel + ?Sized, P: Preprocessor>(
        &mut self,
        ch: &mut C,
        prep: &mut P,
        input_slots: &[u32],
        garbler_bits: usize,
        x: &[bool],
    ) -> Result<(), MaliciousError> {
        ch.set_phase("input processing");
        let total = input_slots.len();
        let shares = prep.random_shares(total).map_err(Into::into)?;
        let mut label0 = Vec::with_capacity(total);
        for (&slot, &share) in input_slots.iter().zip(&shares) {
            let l = Block::random(&mut self.rng);
            self.masks[slot as usize] = share;
            self.label0[slot as usize] = l;
            label0.push(l);
        }
        // Reveal r_w of the evaluator's input wires to the evaluator.
        let tamper = |i| self.deviation == Deviation::WrongInputMaskMac { bit: i };
        send_reveal(ch, &shares[garbler_bits..], tamper)?;
        ch.flush()?;
        // The evaluator's shares s_w of our input wires, then its masked inputs.
        let s = receive_reveal(ch, &shares[..garbler_bits], self.delta, GARBLER_INPUT_MASK)?;
        let their_masked = recv_bits(ch, total - garbler_bits, "the evaluator's masked inputs")?;
        let ours_masked: Vec<bool> = (0..garbler_bits).map(|w| x[w] ^ shares[w].bit ^ s[w]).collect();
        let mut labels = Vec::with_capacity(total);
        for (w, &z) in ours_masked.iter().chain(&their_masked).enumerate() {
            self.masked[input_slots[w] as usize] = z;
            let mut l = label0[w] ^ self.delta.and_bit(z);
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
        send_bits(ch, &ours_masked)?;
        ch.send_blocks(&labels)?;
        ch.flush()?;
        Ok(())
    }

    /// Preprocesses, garbles and sends one batch, then takes the evaluator's masked AND
    /// outputs for it (the program path: no pipelining).
    pub(crate) fn batch<C: Channel + ?Sized, P: Preprocessor>(
        &mut self,
        ch: &mut C,
        prep: &mut P,
        batch: Batch,
    ) -> Result<(), MaliciousError> {
        let sent = self.garble_and_send(ch, prep, batch)?;
        self.finish(ch, sent)
    }

    /// Preprocesses, garbles and sends one batch (WRK17 Fig. 2 steps 2–3, KRRW18's
    /// half-size garbling); [`Garbler::finish`] completes it.
    fn garble_and_send<C: Channel + ?Sized, P: Preprocessor>(
        &mut self,
        ch: &mut C,
        prep: &mut P,
        batch: Batch,
    ) -> Result<Sent, MaliciousError> {
        let n = batch.ands;
        let bufs = &mut self.bufs;
        bufs.fresh.clear();
        if n > 0 {
            prep.random_shares_into(n, &mut bufs.fresh).map_err(Into::into)?;
        }
        let masks = mask_batch(&batch, &mut self.masks, &bufs.fresh, Role::Garbler, self.delta);
        let sigma = if n > 0 {
            let (tamper, delta) = (self.deviation == Deviation::WrongAndMaskMac, self.delta);
            // The triples are lent in place by the preprocessor (no copy out of its batch).
            prep.with_and_triples(n, |triples| {
                and_masks(ch, &masks, triples, Role::Garbler, delta, tamper)
            })?
        } else {
            Vec::new()
        };
        let (mut tables, mut bits) = (std::mem::take(&mut bufs.tables), std::mem::take(&mut bufs.bits));
        tables.clear();
        bits.clear();
        let out0 = self.garble_batch(&batch, &masks, &sigma, &mut tables, &mut bits);
        if n > 0 {
            if let Deviation::FlipGarbledGate { gate, parts } = self.deviation {
                if let Some(k) = gate
                    .checked_sub(self.ands_done)
                    .map(|k| k as usize)
                    .filter(|&k| k < n)
                {
                    bits[k] ^= parts & 1 == 1;
                    tables[TABLE_BLOCKS * k] ^= Block::from_u128(u128::from(parts >> 1 & 1));
                    tables[TABLE_BLOCKS * k + 1] ^= Block::from_u128(u128::from(parts >> 2 & 1));
                }
            }
            ch.set_phase("the authenticated garbled gates");
            ch.send_blocks(&tables)?;
            send_bits(ch, &bits)?;
            ch.flush()?;
        }
        (self.bufs.tables, self.bufs.bits) = (tables, bits);
        self.ands_done += n as u64;
        Ok(Sent {
            batch,
            masks,
            sigma,
            out0,
        })
    }

    /// Takes the evaluator's masked AND outputs of a sent batch, checks them against its
    /// hash of their labels, and adds this party's blocks to the AND consistency check.
    fn finish<C: Channel + ?Sized>(&mut self, ch: &mut C, sent: Sent) -> Result<(), MaliciousError> {
        let n = sent.batch.ands;
        let theirs = if n > 0 {
            ch.set_phase("the evaluator's masked AND outputs");
            let theirs = recv_bits(ch, n, "the evaluator's masked AND outputs")?;
            let mut digest = [0u8; 32];
            ch.recv(&mut digest)?;
            let mut expected = BlockDigest::new(AND_LABELS);
            for (&l, &z) in sent.out0.iter().zip(&theirs) {
                expected.push(l ^ self.delta.and_bit(z));
            }
            // (A garbler that deviates on purpose, in tests, skips this check as a real
            // cheater would, so the test sees what the honest evaluator catches.)
            if expected.take() != digest && self.deviation == Deviation::Honest {
                return Err(MaliciousError::CheckFailed {
                    check: EVALUATOR_AND_LABELS,
                });
            }
            theirs
        } else {
            Vec::new()
        };
        self.mask_walk(&sent.batch, &sent.masks, &sent.sigma, &theirs);
        Ok(())
    }

    /// The garbling walk: zero labels of the batch's slots (free XOR; half-gates for AND
    /// runs, hashed run by run); returns L_γ,0 of each AND gate.
    fn garble_batch(
        &mut self,
        batch: &Batch,
        masks: &[AndMasks],
        sigma: &[AuthShare],
        tables: &mut Vec<Block>,
        bits: &mut Vec<bool>,
    ) -> Vec<Block> {
        let l = &mut self.label0;
        let mut out0 = Vec::with_capacity(batch.ands);
        let mut gates = Vec::new();
        for (kind, run) in batch.runs() {
            match kind {
                RunKind::Xor => run
                    .iter()
                    .for_each(|g| l[g.out as usize] = l[g.a as usize] ^ l[g.b as usize]),
                RunKind::Const => run.iter().for_each(|g| l[g.out as usize] = self.zero_label),
                RunKind::And => {
                    let first = out0.len();
                    gates.clear();
                    for (k, g) in run.iter().enumerate() {
                        gates.push(AndGate {
                            labels: [l[g.a as usize], l[g.b as usize]],
                            masks: &masks[first + k],
                            mask_ab: &sigma[first + k],
                        });
                    }
                    let outs = garble(
                        &self.hash,
                        self.delta,
                        self.ands_done + first as u64,
                        &gates,
                        tables,
                        bits,
                    );
                    for (g, &o) in run.iter().zip(&outs) {
                        l[g.out as usize] = o;
                    }
                    out0.extend(outs);
                }
                RunKind::Parallel => {}
            }
        }
        out0
    }

    /// The masked values of the batch's slots, the AND outputs' from the evaluator
    /// (`theirs`), and this party's blocks of the AND consistency check.
    fn mask_walk(&mut self, batch: &Batch, masks: &[AndMasks], sigma: &[AuthShare], theirs: &[bool]) {
        let z = &mut self.masked;
        let mut i = 0;
        for (kind, run) in batch.runs() {
            match kind {
                RunKind::Xor => run
                    .iter()
                    .for_each(|g| z[g.out as usize] = z[g.a as usize] ^ z[g.b as usize]),
                RunKind::Const => run.iter().for_each(|g| z[g.out as usize] = false),
                RunKind::And => {
                    for (k, g) in run.iter().enumerate() {
                        let zs = [z[g.a as usize], z[g.b as usize], theirs[i + k]];
                        self.consistency.push(check_block(
                            &masks[i + k],
                            sigma[i + k],
                            zs,
                            Role::Garbler,
                            self.delta,
                        ));
                    }
                    for (k, g) in run.iter().enumerate() {
                        z[g.out as usize] = theirs[i + k];
                    }
                    i += run.len();
                }
                RunKind::Parallel => {}
            }
        }
    }

    /// Fig. 2 step 7 and output to the garbler: reveals the bits in `slots` to `reveal`;
    /// returns them if the garbler is in it.
    pub(crate) fn outputs<C: Channel + ?Sized>(
        &mut self,
        ch: &mut C,
        slots: &[u32],
        reveal: Audience,
    ) -> Result<Option<Vec<bool>>, MaliciousError> {
        // The garbler's half of the AND consistency check, before any output.
        ch.set_phase("the AND consistency check");
        ch.send(&self.consistency.take())?;
        ch.flush()?;
        ch.set_phase("output decoding");
        let outs: Vec<AuthShare> = slots.iter().map(|&w| self.masks[w as usize]).collect();
        if reveal.contains(PartyId::EVALUATOR) {
            let tamper = |i| self.deviation == Deviation::WrongOutputMaskMac { bit: i };
            send_reveal(ch, &outs, tamper)?;
            ch.flush()?;
        }
        if !reveal.contains(PartyId::GARBLER) {
            return Ok(None);
        }
        let masked = recv_bits(ch, outs.len(), "the evaluator's masked outputs")?;
        let labels = ch.recv_blocks(outs.len())?;
        for ((&w, &z), &l) in slots.iter().zip(&masked).zip(&labels) {
            if l != self.label0[w as usize] ^ self.delta.and_bit(z) {
                return Err(MaliciousError::CheckFailed {
                    check: GARBLER_OUTPUT_LABEL,
                });
            }
        }
        let s = receive_reveal(ch, &outs, self.delta, GARBLER_OUTPUT_MASK)?;
        let bits: Vec<bool> = outs
            .iter()
            .zip(masked.iter().zip(&s))
            .map(|(r, (&z, &s))| z ^ r.bit ^ s)
            .collect();
        Ok(Some(bits))
    }
}
