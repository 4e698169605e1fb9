use crate::{Backend, Owner, ProgramError};

/// What a program costs to garble.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    pub ands: u64,
    pub xors: u64,
    pub nots: u64,
    /// Longest chain of AND gates from an input to a wire (the rounds a pipelined
    /// garbler cannot overlap).
    pub and_depth: u32,
    /// Garbled-table bytes: 32 per AND with half-gates.
    pub table_bytes: u64,
    /// Input bits of each party (the evaluator's go through OT).
    pub garbler_input_bits: u64,
    pub evaluator_input_bits: u64,
    pub output_bits: u64,
}

/// Counts gates and AND depth without computing anything. A wire is its AND depth.
///
/// It also follows the wires alive: every gate output and input bit is one more, every
/// wire the program releases ([`Backend::release`], when a typed value is dropped) one
/// less. The peak bounds the labels a party holds when it runs the same program gate by
/// gate (16 bytes each). Gadgets over raw wire slices release nothing, so for them the
/// peak is every wire created: an upper bound.
#[derive(Debug, Default)]
pub struct Counter {
    cost: Cost,
    inputs: Vec<(Owner, u32)>,
    outputs: Vec<u32>,
    live_wires: u64,
    peak_live_wires: u64,
}

impl Counter {
    pub fn cost(&self) -> Cost {
        self.cost
    }

    /// Owner and width of each input value, in the order the program declared them.
    pub fn inputs(&self) -> &[(Owner, u32)] {
        &self.inputs
    }

    /// Width of each output value.
    pub fn outputs(&self) -> &[u32] {
        &self.outputs
    }

    /// The most wires alive at once (see the type's docs).
    pub fn peak_live_wires(&self) -> u64 {
        self.peak_live_wires
    }

    /// `n` new wires.
    fn created(&mut self, n: u64) {
        self.live_wires += n;
        self.peak_live_wires = self.peak_live_wires.max(self.live_wires);
    }
}

impl Backend for Counter {
    type Wire = u32;

    fn xor(&mut self, a: u32, b: u32) -> u32 {
        self.cost.xors += 1;
        self.created(1);
        a.max(b)
    }
    fn and(&mut self, a: u32, b: u32) -> u32 {
        self.cost.ands += 1;
        self.cost.table_bytes += 32;
        self.created(1);
        let d = a.max(b) + 1;
        self.cost.and_depth = self.cost.and_depth.max(d);
        d
    }
    fn not(&mut self, a: u32) -> u32 {
        self.cost.nots += 1;
        self.created(1);
        a
    }
    fn constant(&mut self, _: bool) -> u32 {
        self.created(1);
        0
    }

    fn input(&mut self, owner: Owner, width: u32, _: Option<&[bool]>) -> Result<Vec<u32>, ProgramError> {
        self.inputs.push((owner, width));
        self.created(width as u64);
        match owner {
            Owner::Garbler => self.cost.garbler_input_bits += width as u64,
            Owner::Evaluator => self.cost.evaluator_input_bits += width as u64,
        }
        Ok(vec![0; width as usize])
    }

    fn output(&mut self, wires: &[u32]) -> Result<Option<Vec<bool>>, ProgramError> {
        self.cost.output_bits += wires.len() as u64;
        self.outputs.push(wires.len() as u32);
        Ok(None)
    }

    fn release(&mut self, wires: &[u32]) {
        // A cloned value is released twice but created once: never below zero.
        self.live_wires = self.live_wires.saturating_sub(wires.len() as u64);
    }
}

#[cfg(test)]
mod tests {
    use crate::{Counter, Ctx, Owner};

    #[test]
    fn released_values_leave_the_live_count() {
        let ctx = Ctx::new(Counter::default());
        let x = ctx.input_uint(Owner::Garbler, 32, None).unwrap();
        let y = ctx.input_uint(Owner::Evaluator, 32, None).unwrap();
        let after_one = {
            let _ = &x ^ &y;
            ctx.with(|c| c.peak_live_wires())
        };
        // Inputs, the sum, and the two fill constants `gadgets::extend` makes (raw wires,
        // never released).
        assert_eq!(after_one, 64 + 32 + 2);
        // Each sum is dropped before the next: only the constants accumulate.
        for _ in 0..100 {
            let _ = &x ^ &y;
        }
        drop((x, y));
        let counter = ctx.into_inner().unwrap();
        assert_eq!(counter.peak_live_wires(), after_one + 100 * 2);
        assert_eq!(counter.cost().xors, 101 * 32);
    }

    #[test]
    fn raw_wires_stay_live() {
        use crate::Backend;
        let mut c = Counter::default();
        let x = c.input(Owner::Garbler, 8, None).unwrap();
        for &w in &x {
            c.and(w, w);
        }
        assert_eq!(c.peak_live_wires(), 16);
    }
}
