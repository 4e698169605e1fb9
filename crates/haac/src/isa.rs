//! The HAAC instruction set (HAAC §3.1.3 "Instruction Encoding", §3.1.4, §4.2.2) as an
//! in-memory program.
//!
//! Wires are numbered from 1; 0 is reserved, as the SWW address 0 is reserved for "read the
//! out-of-range wire queue" (§3.1.4). The program's `inputs` input wires are `1..=inputs`;
//! instruction `i` (in program order, after reordering and renaming, §4.2.2) writes wire
//! `inputs + 1 + i`, so output addresses are implicit. Operands hold whole wire ids here;
//! the SWW address of wire `w` is `w % window`, and [`in_window`] says whether an operand is
//! read from the SWW or from the out-of-range wire (OoRW) queue.

/// What one instruction computes (2 bits in the encoding, HAAC §3.1.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[repr(u8)]
pub enum Op {
    /// Free XOR of `a` and `b`.
    Xor = 0,
    /// Half-gates AND of `a` and `b`; pops one table (two labels) off the engine's table queue.
    And = 1,
    /// Free NOT of `a` (XOR with the constant-one offset); `b` is unused (0).
    Not = 2,
    /// No operation; writes no wire that is ever read. `a` and `b` are unused (0).
    Nop = 3,
}

impl Instruction {
    /// The wires the instruction reads, `a` first (§3.1.4: if both are out of range, the
    /// first is served first).
    pub fn reads(&self) -> impl Iterator<Item = u32> {
        [self.a, self.b].into_iter().take(self.op.arity())
    }
}

impl Op {
    /// How many operands the op reads: `a` then `b`.
    pub fn arity(self) -> usize {
        match self {
            Op::Xor | Op::And => 2,
            Op::Not => 1,
            Op::Nop => 0,
        }
    }
}

/// One instruction: the op, its input wires and the live bit (§4.2.3: the output must be
/// written back to memory because some read of it falls outside the window, or it is an
/// output of the program).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Instruction {
    pub op: Op,
    pub a: u32,
    pub b: u32,
    pub live: bool,
}

/// The gate order the compiler used (HAAC §4.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Schedule {
    /// Program order (the "baseline" of HAAC §4.1).
    Program,
    /// Program order cut into segments of half the window, each sorted by level.
    Segment,
    /// All instructions sorted by dependence level.
    Full,
}

/// A HAAC program: the instructions in program order and which gate engine (GE) runs each.
/// Each GE's instruction, table and OoRW queues are the program's streams filtered by
/// `engine` (HAAC §4.3).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct HaacProgram {
    /// Number of gate engines the queues were assigned for.
    pub ges: u16,
    /// Sliding wire window size in wires (even, at least 4; HAAC's 2 MB of 16-byte labels
    /// is 131,072).
    pub window: u32,
    pub schedule: Schedule,
    /// Input wires: `1..=inputs`.
    pub inputs: u32,
    pub instructions: Vec<Instruction>,
    /// The GE of each instruction (`engine.len() == instructions.len()`, each `< ges`).
    pub engine: Vec<u16>,
    /// The program's output wires, in order (inputs or instruction outputs).
    pub outputs: Vec<u32>,
}

/// Why a program is not a valid HAAC program.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum HaacError {
    #[error("the window must be even and at least 4 wires, not {0}")]
    Window(u32),
    #[error("the program needs at least one gate engine")]
    NoEngines,
    #[error("{engines} engine entries for {instructions} instructions")]
    EngineCount { engines: usize, instructions: usize },
    #[error("instruction {index} runs on engine {engine}, but there are {ges}")]
    Engine { index: usize, engine: u16, ges: u16 },
    #[error("instruction {index} reads wire {wire}, which is not written before it")]
    Operand { index: usize, wire: u32 },
    #[error("output {index} is wire {wire}, which the program never writes")]
    Output { index: usize, wire: u32 },
    #[error("the program has more than 2^32 - 1 wires")]
    TooManyWires,
}

/// Whether `wire` is in the sliding wire window while the instruction writing wire `out`
/// runs. The window advances by halves (HAAC §3.1.4: with a window of n wires, the range
/// [0.5n, n − 1] stays valid for the instructions writing [0.5n, 1.5n − 1]): with
/// h = window / 2, an instruction writing a wire of half s = out / h sees the wires of halves
/// s − 1 and s. Wires whose SWW address `wire % window` is the reserved 0 never sit in the
/// window.
pub fn in_window(wire: u32, out: u32, window: u32) -> bool {
    let h = window / 2;
    let s = out / h;
    let lo = u64::from(s.saturating_sub(1)) * u64::from(h);
    let hi = (u64::from(s) + 1) * u64::from(h);
    !wire.is_multiple_of(window) && (lo..hi).contains(&u64::from(wire))
}

/// Bits of an SWW address for `window` wires (17 for HAAC's 131,072).
pub fn address_bits(window: u32) -> u32 {
    32 - (window.max(2) - 1).leading_zeros()
}

/// Bits of one encoded instruction: op (2), two SWW addresses, live (1) (HAAC §3.1.3).
pub fn instruction_bits(window: u32) -> u32 {
    2 + 2 * address_bits(window) + 1
}

/// Bytes of one wire label, and of one AND's half-gates table (two labels).
pub const LABEL_BYTES: u64 = 16;
pub const TABLE_BYTES: u64 = 32;
/// Bytes of one out-of-range wire address in the OoRW address stream (HAAC §3.1.4: 32 bits).
pub const OORW_ADDRESS_BYTES: u64 = 4;

impl HaacProgram {
    /// The wire instruction `index` writes.
    pub fn output_wire(&self, index: usize) -> u32 {
        self.inputs + 1 + index as u32
    }

    /// Every out-of-range read in program order: (instruction index, wire). Filtered by
    /// `engine`, this is each GE's OoRW queue (HAAC §4.3).
    pub fn oor_reads(&self) -> Vec<(usize, u32)> {
        let mut reads = Vec::new();
        for i in 0..self.instructions.len() {
            let out = self.output_wire(i);
            for w in self.instructions[i].reads() {
                if !in_window(w, out, self.window) {
                    reads.push((i, w));
                }
            }
        }
        reads
    }

    /// Checks the invariants the other parts rely on, before anything runs.
    pub fn validate(&self) -> Result<(), HaacError> {
        if self.window < 4 || !self.window.is_multiple_of(2) {
            return Err(HaacError::Window(self.window));
        }
        if self.ges == 0 {
            return Err(HaacError::NoEngines);
        }
        if self.engine.len() != self.instructions.len() {
            return Err(HaacError::EngineCount {
                engines: self.engine.len(),
                instructions: self.instructions.len(),
            });
        }
        let last = u64::from(self.inputs) + self.instructions.len() as u64;
        if last >= u64::from(u32::MAX) {
            return Err(HaacError::TooManyWires);
        }
        for (index, &engine) in self.engine.iter().enumerate() {
            if engine >= self.ges {
                return Err(HaacError::Engine {
                    index,
                    engine,
                    ges: self.ges,
                });
            }
            let out = self.output_wire(index);
            for wire in self.instructions[index].reads() {
                if wire == 0 || wire >= out {
                    return Err(HaacError::Operand { index, wire });
                }
            }
        }
        for (index, &wire) in self.outputs.iter().enumerate() {
            if wire == 0 || u64::from(wire) > last {
                return Err(HaacError::Output { index, wire });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn and(a: u32, b: u32) -> Instruction {
        Instruction {
            op: Op::And,
            a,
            b,
            live: false,
        }
    }

    #[test]
    fn window_slides_by_halves_and_skips_address_zero() {
        // window 8, h = 4: writing wire 9 (half 2) sees halves 1 and 2, wires 4..12, not 8.
        assert!(!in_window(3, 9, 8));
        assert!(in_window(4, 9, 8));
        assert!(in_window(7, 9, 8));
        assert!(!in_window(8, 9, 8));
        assert!(in_window(11, 9, 8));
        // The first half sees only itself (and the next, which nothing reads yet).
        assert!(in_window(1, 2, 8));
        assert!(!in_window(0, 2, 8));
    }

    #[test]
    fn address_and_instruction_sizes_follow_the_seed() {
        assert_eq!(address_bits(131_072), 17);
        assert_eq!(instruction_bits(131_072), 37);
        assert_eq!(address_bits(8), 3);
        assert_eq!(address_bits(6), 3);
    }

    #[test]
    fn oor_reads_and_validation() {
        // 2 inputs (wires 1, 2), window 4 (h = 2): instruction 1 writes wire 4 (half 2) and
        // sees 2, 3 (and 5): wire 1 is out of range; wire 4 (address 0) never is in range;
        // instruction 3 writes wire 6 (half 3) and sees 5, 6, 7.
        let p = HaacProgram {
            ges: 2,
            window: 4,
            schedule: Schedule::Program,
            inputs: 2,
            instructions: vec![and(1, 2), and(1, 3), and(3, 4), and(1, 5)],
            engine: vec![0, 1, 0, 1],
            outputs: vec![6],
        };
        p.validate().unwrap();
        assert_eq!(p.output_wire(3), 6);
        assert_eq!(p.oor_reads(), vec![(1, 1), (2, 4), (3, 1)]);
        let mut bad = p.clone();
        bad.instructions[1].b = 4;
        assert_eq!(bad.validate(), Err(HaacError::Operand { index: 1, wire: 4 }));
        let mut bad = p.clone();
        bad.engine[0] = 2;
        assert!(matches!(bad.validate(), Err(HaacError::Engine { .. })));
        let mut bad = p;
        bad.window = 5;
        assert_eq!(bad.validate(), Err(HaacError::Window(5)));
    }
}
