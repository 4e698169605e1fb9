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
#[derive(Debug, Default)]
pub struct Counter {
    cost: Cost,
    inputs: Vec<(Owner, u32)>,
    outputs: Vec<u32>,
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
}

impl Backend for Counter {
    type Wire = u32;

    fn xor(&mut self, a: u32, b: u32) -> u32 {
        self.cost.xors += 1;
        a.max(b)
    }
    fn and(&mut self, a: u32, b: u32) -> u32 {
        self.cost.ands += 1;
        self.cost.table_bytes += 32;
        let d = a.max(b) + 1;
        self.cost.and_depth = self.cost.and_depth.max(d);
        d
    }
    fn not(&mut self, a: u32) -> u32 {
        self.cost.nots += 1;
        a
    }
    fn constant(&mut self, _: bool) -> u32 {
        0
    }

    fn input(&mut self, owner: Owner, width: u32, _: Option<&[bool]>) -> Result<Vec<u32>, ProgramError> {
        self.inputs.push((owner, width));
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
}
