//! Garbler side of the arithmetic gadgets, sans-IO: zero-labels in, zero-labels and
//! garbled-table bytes out (the session layer moves the bytes).
//!
//! Gadgets (BMR16 "Garbling gadgets", Ball–Malkin–Rosulek CCS 2016; ABLE §2.2), one module
//! each:
//! - `projection`: projection Z_p → Z_q of any function φ, row-reduced to p − 1 rows
//!   ([`ArithGarbler::project`]), and public exponentiation x ↦ x^e, a projection
//!   Z_p → Z_p ([`ArithGarbler::pow`]);
//! - `product`: product of two mod-p wires by the generalized half gate, 2(p − 1) rows
//!   ([`ArithGarbler::mul`]);
//! - `composition`: the garbler's half of bit compositions into odd primes.
//!
//! This module holds the garbler's state: its Δ per modulus, wires, encoding and the gate
//! counter.
//!
//! Every gated call takes the next global gate index g; its hashes use the tweak
//! (domain, g), and the two halves of a product use different domains, so x·x (both
//! inputs from one wire) never hashes one label twice under one tweak (`docs/security.md`,
//! "Tweaks of arithmetic gadgets").

use std::collections::BTreeMap;

use mixgc_core::{Block, Rng};
use rand::{Rng as _, RngCore};

use crate::grouped::GroupedDelta;
use crate::hash::ArithHash;
use crate::ring::{check_bits, RingLabel, MAX_RING_BITS, RING_DIGITS};
use crate::tweak::{Domain, Tweak};
use crate::{ArithError, Label, Modulus};

mod composition;
mod product;
mod projection;

/// The largest input modulus of a projection or a product (their tables have m − 1 rows
/// per half).
pub const MAX_ROWS_MODULUS: u64 = 1 << 16;

/// The number of values of `m` when it is small enough to index a garbled table.
pub(crate) fn table_size(m: Modulus) -> Result<u64, ArithError> {
    match m.value_u64() {
        Some(v) if v <= MAX_ROWS_MODULUS => Ok(v),
        _ => Err(ArithError::TooManyRows(m, MAX_ROWS_MODULUS)),
    }
}

/// The garbler: its Δ per modulus, the session hash and the global gate index.
pub struct ArithGarbler {
    rng: Rng,
    pub(crate) hash: ArithHash,
    session_key: [u8; 32],
    deltas: BTreeMap<Modulus, Label>,
    /// Each odd-prime Δ_p as a grouped label ([`GroupedLabel::add_step`]), for stepping
    /// labels through the colours.
    delta_steps: BTreeMap<Modulus, GroupedDelta>,
    /// Δ_2 as its free-XOR block.
    pub(crate) boolean_delta: Block,
    /// The master ring offset ([`crate::ring`]): every Δ_{2^k} is its truncation mod 2^k.
    ring_delta: Option<RingLabel>,
    next_gate: u64,
    pub(crate) table_rows: u64,
}

/// No offset outlives the garbler: the Boolean Δ, every Δ_m (as labels and as grouped
/// steps with their multiples), the ring Δ and the hash key are overwritten with zeros when
/// it is dropped (its RNG wipes itself). Copies handed out by [`ArithGarbler::delta`] and
/// [`ArithGarbler::ring_delta`] are the caller's.
impl Drop for ArithGarbler {
    fn drop(&mut self) {
        self.wipe();
    }
}

impl ArithGarbler {
    /// A garbler whose mod-2 offset is the Boolean free-XOR `boolean_delta` (so Boolean
    /// and arithmetic gadgets share wires); the other Δ_m are drawn from `rng` when first
    /// used, as is the session's hash key.
    pub fn new(mut rng: Rng, boolean_delta: Block) -> Result<ArithGarbler, ArithError> {
        if !boolean_delta.lsb() {
            return Err(ArithError::BooleanDeltaColour);
        }
        let mut session_key = [0u8; 32];
        rng.fill_bytes(&mut session_key);
        let deltas = BTreeMap::from([(Modulus::BOOLEAN, Label::from_block(boolean_delta))]);
        Ok(ArithGarbler {
            rng,
            hash: ArithHash::new(session_key),
            session_key,
            deltas,
            delta_steps: BTreeMap::new(),
            boolean_delta,
            ring_delta: None,
            next_gate: 0,
            table_rows: 0,
        })
    }

    /// The hash key the evaluator needs ([`crate::ArithEvaluator::new`]); public.
    pub fn session_key(&self) -> [u8; 32] {
        self.session_key
    }

    /// Gated calls so far (the next gate's index).
    pub fn gates_garbled(&self) -> u64 {
        self.next_gate
    }

    /// Garbled-table rows emitted so far, counted as ABLE (Table 1) counts them: a label
    /// mod 2 or mod p is one row, a ring label mod 2^k is k rows (k·128 bits).
    pub fn table_rows(&self) -> u64 {
        self.table_rows
    }

    /// Δ_{2^bits} (1 ≤ bits ≤ 128): the master ring offset mod 2^bits, drawn on first use
    /// with colour digit 1 and digit-wise low bits equal to the Boolean Δ ([`RingLabel`]).
    pub fn ring_delta(&mut self, bits: u32) -> Result<RingLabel, ArithError> {
        check_bits(bits)?;
        self.ring_master_delta().truncate(bits)
    }

    /// The master ring offset Δ_{2^128} (every Δ_{2^k} is it mod 2^k), drawn on first use.
    pub(crate) fn ring_master_delta(&mut self) -> &RingLabel {
        let (boolean, rng) = (self.boolean_delta.to_u128(), &mut self.rng);
        self.ring_delta.get_or_insert_with(|| {
            let words = (0..RING_DIGITS).map(|d| match d {
                0 => 1,
                _ => (rng.gen::<u128>() << 1) | (boolean >> d) & 1,
            });
            RingLabel::from_words(MAX_RING_BITS, words)
        })
    }

    /// The zero-label of a new ring wire mod 2^bits.
    pub fn new_ring_wire(&mut self, bits: u32) -> Result<RingLabel, ArithError> {
        check_bits(bits)?;
        let rng = &mut self.rng;
        Ok(RingLabel::from_words(bits, (0..RING_DIGITS).map(|_| rng.gen())))
    }

    /// The label of `x` mod 2^k on the ring wire with zero-label `zero`.
    pub fn encode_ring(&mut self, zero: &RingLabel, x: u128) -> Result<RingLabel, ArithError> {
        let bits = zero.bits();
        if bits < 128 && x >> bits != 0 {
            return Err(ArithError::Conversion(format!("value {x} is not below 2^{bits}")));
        }
        zero.add_scaled(&self.ring_delta(bits)?, x)
    }

    /// Overwrites every offset and the hash key with zeros (see the `Drop` impl).
    fn wipe(&mut self) {
        use zeroize::Zeroize;
        self.boolean_delta.zeroize();
        self.session_key.zeroize();
        self.deltas.values_mut().for_each(Label::wipe);
        self.delta_steps.values_mut().for_each(GroupedDelta::wipe);
        if let Some(ring) = self.ring_delta.as_mut() {
            ring.wipe();
        }
    }

    /// Δ_m, drawn on first use.
    pub fn delta(&mut self, m: Modulus) -> Label {
        self.delta_ref(m).clone()
    }

    /// Δ_m by reference, drawn on first use (and kept as a step too for an odd prime).
    fn delta_ref(&mut self, m: Modulus) -> &Label {
        let (rng, steps) = (&mut self.rng, &mut self.delta_steps);
        self.deltas.entry(m).or_insert_with(|| {
            let delta = Label::random_delta(m, rng);
            if m.odd_prime_value().is_some() {
                steps.insert(m, GroupedDelta::new(&delta));
            }
            delta
        })
    }

    /// The zero-label W^0 of a new input wire mod m.
    pub fn new_wire(&mut self, m: Modulus) -> Label {
        Label::random(m, &mut self.rng)
    }

    /// The label W^x = W^0 + x·Δ of value `x` on the wire with zero-label `zero`.
    pub fn encode(&mut self, zero: &Label, x: u64) -> Result<Label, ArithError> {
        let m = zero.modulus();
        if x as u128 >= m.value() {
            return Err(ArithError::OutOfRange {
                what: "value",
                value: x as u128,
                modulus: m,
            });
        }
        Ok(zero.plus_scaled(self.delta_ref(m), x))
    }

    /// What the evaluator needs to decode the wire with zero-label `zero`: its colour.
    /// Revealing it reveals the wire's value and nothing else.
    pub fn decoding(zero: &Label) -> u64 {
        zero.colour()
    }

    /// c·Δ_2 as a block (c ∈ {0, 1}).
    fn times_boolean_delta(&self, c: u64) -> Block {
        if c & 1 == 1 {
            self.boolean_delta
        } else {
            Block::ZERO
        }
    }

    /// The first of `n` consecutive global gate indices, taken together.
    fn take_gates(&mut self, n: u64) -> u64 {
        let first = self.next_gate;
        self.next_gate += n;
        first
    }

    /// The next global gate index (each gated call takes one).
    pub(crate) fn take_gate(&mut self) -> u64 {
        let gate = self.next_gate;
        self.next_gate += 1;
        gate
    }

    fn next_tweak(&mut self, domain: Domain) -> Tweak {
        Tweak {
            domain,
            gate: self.take_gate(),
        }
    }
}

#[cfg(test)]
mod tests {
    use mixgc_core::new_rng;

    use super::*;

    /// Products and projections garble to the same bytes, labels and row counts whether
    /// odd-prime labels are stepped with their group values or digit by digit (the grouped
    /// path switched off by dropping the Δ steps after the Δs are drawn).
    #[test]
    fn grouped_steps_garble_the_same_bytes_as_digit_steps() {
        let run = |grouped: bool| {
            let delta = Block::from_u128(0x1234_5678_9abc_def1);
            let mut g = ArithGarbler::new(new_rng(Some(7), 0), delta).unwrap();
            let (mut rows, mut labels) = (Vec::new(), Vec::new());
            for p in [3u64, 5, 17, 251, 257, 65_521] {
                let m = Modulus::new(p).unwrap();
                g.delta_ref(m);
                if !grouped {
                    g.delta_steps.clear();
                }
                let (a0, b0) = (g.new_wire(m), g.new_wire(m));
                labels.push(g.mul(&a0, &b0, &mut rows).unwrap());
                labels.push(g.mul(&a0, &a0, &mut rows).unwrap());
                let table: Vec<u64> = (0..p).map(|x| x * x % p).collect();
                labels.push(g.project(&a0, m, &table, &mut rows).unwrap());
            }
            (rows, labels, g.table_rows())
        };
        let (grouped, digits) = (run(true), run(false));
        assert!(!grouped.0.is_empty());
        assert_eq!(grouped, digits);
        // Two products of 2(p − 1) rows and a projection of p − 1 per prime, on both paths.
        assert_eq!(
            grouped.2,
            [3u64, 5, 17, 251, 257, 65_521]
                .iter()
                .map(|p| 5 * (p - 1))
                .sum::<u64>()
        );
    }

    /// What the destructor runs leaves every offset zero: Δ_2, odd-prime Δs (as labels and
    /// as grouped steps with their multiples, small and large p), powers of two, the ring Δ
    /// and the hash key.
    #[test]
    fn wiping_zeroes_every_offset() {
        let mut g = ArithGarbler::new(new_rng(None, 0), Block::from_u128(0xfeed_beef | 1)).unwrap();
        let moduli = [2u64, 3, 251, 65_521, 1 << 8];
        for &m in &moduli {
            g.delta(Modulus::new(m).unwrap());
        }
        g.delta(Modulus::power_of_two(64).unwrap());
        g.ring_delta(128).unwrap();
        assert!(g.deltas.values().all(|d| d.digits().iter().any(|&x| x != 0)));
        assert!(g.delta_steps.values().all(|s| !s.is_wiped()));
        assert_eq!(g.delta_steps.len(), 3);
        g.wipe();
        assert_eq!(g.deltas.len(), moduli.len() + 1);
        assert!(g.deltas.values().all(|d| d.digits().iter().all(|&x| x == 0)));
        assert!(g.delta_steps.values().all(GroupedDelta::is_wiped));
        assert!(g.ring_delta.as_ref().unwrap().digits().iter().all(|&x| x == 0));
        assert_eq!((g.boolean_delta, g.session_key), (Block::ZERO, [0; 32]));
    }
}
