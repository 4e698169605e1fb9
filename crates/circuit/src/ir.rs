//! The flat circuit IR: gates as a structure of arrays over `u32` wire ids.

/// What a gate computes. `a`, `b` are input wires, `out` the output wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum GateKind {
    /// out = a ⊕ b (free with free-XOR).
    Xor = 0,
    /// out = a ∧ b (two ciphertexts with half-gates).
    And = 1,
    /// out = ¬a (free). `b` is unused (0).
    Not = 2,
    /// out = a, Bristol `EQW` (free; the compiler aliases it away). `b` unused.
    Copy = 3,
    /// out = the constant `a` (0 or 1), Bristol `EQ`. `b` unused.
    Const = 4,
}

/// A Boolean circuit.
///
/// Wires `0..total_input_bits()` are the inputs, value by value, each value least
/// significant bit first. `output_wires` lists the wires of the outputs, value by value,
/// least significant bit first. Gates are stored in a valid evaluation order
/// (every input wire of a gate is an input or the output of an earlier gate) once
/// [`Circuit::validate`] has accepted the circuit.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Circuit {
    pub num_wires: u32,
    /// Width in bits of each input value, in order.
    pub input_widths: Vec<u32>,
    /// Width in bits of each output value, in order.
    pub output_widths: Vec<u32>,
    /// The wires of the output values, concatenated.
    pub output_wires: Vec<u32>,
    pub kind: Vec<GateKind>,
    pub a: Vec<u32>,
    pub b: Vec<u32>,
    pub out: Vec<u32>,
}

impl GateKind {
    /// All gate kinds, in `repr(u8)` order.
    pub const ALL: [GateKind; 5] = [
        GateKind::Xor,
        GateKind::And,
        GateKind::Not,
        GateKind::Copy,
        GateKind::Const,
    ];

    /// How many wires the gate reads: 2 for `Xor`/`And`, 1 for `Not`/`Copy`, 0 for
    /// `Const` (its `a` is the constant, not a wire).
    pub fn arity(self) -> usize {
        match self {
            GateKind::Xor | GateKind::And => 2,
            GateKind::Not | GateKind::Copy => 1,
            GateKind::Const => 0,
        }
    }
}

impl Circuit {
    /// Number of gates.
    pub fn num_gates(&self) -> usize {
        self.kind.len()
    }

    /// Total number of input bits, the sum of `input_widths` (saturating at `u32::MAX`;
    /// [`Circuit::validate`] rejects circuits where the sum exceeds `num_wires`).
    pub fn total_input_bits(&self) -> u32 {
        u32::try_from(self.input_bits_u64()).unwrap_or(u32::MAX)
    }

    /// The wires of each input value: value `i` occupies `ranges[i]`, least significant
    /// bit first. The ranges are consecutive and start at wire 0.
    pub fn input_wire_ranges(&self) -> Vec<std::ops::Range<u32>> {
        let mut start = 0u32;
        self.input_widths
            .iter()
            .map(|&w| {
                let end = start.saturating_add(w);
                let range = start..end;
                start = end;
                range
            })
            .collect()
    }

    /// The exact sum of `input_widths`.
    pub(crate) fn input_bits_u64(&self) -> u64 {
        self.input_widths.iter().map(|&w| u64::from(w)).sum()
    }
}
