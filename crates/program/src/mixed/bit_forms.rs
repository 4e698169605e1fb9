//! The bit-vector operations the B and Y forms share, so that a gadget on bits (the
//! comparison, the selection, the minimum tree of the apps) is written once and runs in
//! either form: `F::and(b, x, y)` is [`MixedBackend::and`] for [`BoolForm`] and
//! [`MixedBackend::yao_and`] for [`YaoForm`].

use super::{MixedBackend, MixedProgramError, Shaped};

/// A form of bit vectors of backend `B`: B (XOR shares) or Y (garbled labels).
pub trait BitForm<B: MixedBackend> {
    /// A vector of bits in this form.
    type V: Shaped;
    /// Public bits in this form.
    fn public(b: &mut B, bits: &[bool]) -> Result<Self::V, MixedProgramError>;
    fn xor(b: &mut B, x: &Self::V, y: &Self::V) -> Result<Self::V, MixedProgramError>;
    fn and(b: &mut B, x: &Self::V, y: &Self::V) -> Result<Self::V, MixedProgramError>;
    fn not(b: &mut B, x: &Self::V) -> Result<Self::V, MixedProgramError>;
    fn gather(b: &mut B, x: &Self::V, lanes: &[usize]) -> Result<Self::V, MixedProgramError>;
    fn concat(b: &mut B, parts: &[Self::V]) -> Self::V;
    /// Prepares `count` ANDs ahead where the form has an offline phase of its own for them
    /// (B: Beaver triples; Y: none, its batches are garbled jointly when needed).
    fn stock_ands(b: &mut B, count: usize) -> Result<(), MixedProgramError>;
    /// Frees what `x` holds where the form keeps per-wire state (Y); `x` and every vector
    /// sharing its lanes must not be used afterwards.
    fn release(_b: &mut B, _x: &Self::V) {}
}

/// The B form: XOR-shared bits, ANDs by Beaver triples.
#[derive(Clone, Copy, Debug)]
pub struct BoolForm;

/// The Y form: BMR garbled labels, ANDs garbled in batches.
#[derive(Clone, Copy, Debug)]
pub struct YaoForm;

impl<B: MixedBackend> BitForm<B> for BoolForm {
    type V = B::Bool;

    fn public(b: &mut B, bits: &[bool]) -> Result<B::Bool, MixedProgramError> {
        Ok(b.public_bits(bits))
    }

    fn xor(b: &mut B, x: &B::Bool, y: &B::Bool) -> Result<B::Bool, MixedProgramError> {
        b.xor(x, y)
    }

    fn and(b: &mut B, x: &B::Bool, y: &B::Bool) -> Result<B::Bool, MixedProgramError> {
        b.and(x, y)
    }

    fn not(b: &mut B, x: &B::Bool) -> Result<B::Bool, MixedProgramError> {
        Ok(b.not(x))
    }

    fn gather(b: &mut B, x: &B::Bool, lanes: &[usize]) -> Result<B::Bool, MixedProgramError> {
        b.gather(x, lanes)
    }

    fn concat(b: &mut B, parts: &[B::Bool]) -> B::Bool {
        b.concat(parts)
    }

    fn stock_ands(b: &mut B, count: usize) -> Result<(), MixedProgramError> {
        b.stock_ands(count)
    }
}

impl<B: MixedBackend> BitForm<B> for YaoForm {
    type V = B::Yao;

    fn public(b: &mut B, bits: &[bool]) -> Result<B::Yao, MixedProgramError> {
        b.public_yao(bits)
    }

    fn xor(b: &mut B, x: &B::Yao, y: &B::Yao) -> Result<B::Yao, MixedProgramError> {
        b.yao_xor(x, y)
    }

    fn and(b: &mut B, x: &B::Yao, y: &B::Yao) -> Result<B::Yao, MixedProgramError> {
        b.yao_and(x, y)
    }

    fn not(b: &mut B, x: &B::Yao) -> Result<B::Yao, MixedProgramError> {
        b.yao_not(x)
    }

    fn gather(b: &mut B, x: &B::Yao, lanes: &[usize]) -> Result<B::Yao, MixedProgramError> {
        b.yao_gather(x, lanes)
    }

    fn concat(b: &mut B, parts: &[B::Yao]) -> B::Yao {
        b.yao_concat(parts)
    }

    fn stock_ands(_b: &mut B, _count: usize) -> Result<(), MixedProgramError> {
        Ok(())
    }

    fn release(b: &mut B, x: &B::Yao) {
        b.yao_release(x)
    }
}
