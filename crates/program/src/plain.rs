use crate::{checked_input, Backend, Owner, ProgramError};

/// Runs a program on cleartext bits: the reference every other backend is checked against.
#[derive(Debug, Default)]
pub struct Plain {
    inputs: usize,
}

impl Backend for Plain {
    type Wire = bool;

    fn xor(&mut self, a: bool, b: bool) -> bool {
        a ^ b
    }
    fn and(&mut self, a: bool, b: bool) -> bool {
        a & b
    }
    fn not(&mut self, a: bool) -> bool {
        !a
    }
    fn constant(&mut self, value: bool) -> bool {
        value
    }

    fn input(&mut self, owner: Owner, width: u32, value: Option<&[bool]>) -> Result<Vec<bool>, ProgramError> {
        let index = self.inputs;
        self.inputs += 1;
        Ok(checked_input(index, owner, width, value)?.to_vec())
    }

    fn output(&mut self, wires: &[bool]) -> Result<Option<Vec<bool>>, ProgramError> {
        Ok(Some(wires.to_vec()))
    }
}
