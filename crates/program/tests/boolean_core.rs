//! The Boolean gadget tests (typed values, fixed point, tensors) on a backend that
//! implements only the Boolean core [`Backend`]: Boolean gadgets need nothing more, so the
//! n-party and malicious backends to come can run them as they are.

use mixgc_program::{Audience, Backend, PartyId, Plain, ProgramError};

/// [`Plain`] seen through [`Backend`] alone (no arithmetic extension).
#[derive(Debug, Default)]
pub struct BooleanOnly(Plain);

impl Backend for BooleanOnly {
    type Wire = bool;

    fn xor(&mut self, a: bool, b: bool) -> bool {
        self.0.xor(a, b)
    }
    fn and(&mut self, a: bool, b: bool) -> bool {
        self.0.and(a, b)
    }
    fn not(&mut self, a: bool) -> bool {
        self.0.not(a)
    }
    fn constant(&mut self, value: bool) -> bool {
        self.0.constant(value)
    }
    fn input(
        &mut self,
        owner: PartyId,
        width: u32,
        value: Option<&[bool]>,
    ) -> Result<Vec<bool>, ProgramError> {
        self.0.input(owner, width, value)
    }
    fn output(&mut self, wires: &[bool]) -> Result<Option<Vec<bool>>, ProgramError> {
        self.0.output(wires)
    }
    fn output_to(&mut self, wires: &[bool], to: Audience) -> Result<Option<Vec<bool>>, ProgramError> {
        self.0.output_to(wires, to)
    }
}

mod reference {
    pub type Plain = super::BooleanOnly;
}

#[path = "fixed_tensor.rs"]
mod fixed_tensor;
#[path = "typed.rs"]
mod typed;
