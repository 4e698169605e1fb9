use mixgc_circuit::{Circuit, GateKind};

use crate::{Backend, PartyId, ProgramError};

/// Records a program as a circuit in mixgc's IR (and from there Bristol Fashion).
///
/// Wires get provisional ids as the program creates them; [`Recorder::finish`] renumbers
/// them so that the input values come first, the garbler's before the evaluator's (the
/// ownership rule of `mixgc run`), each in the order the program declared them.
#[derive(Debug, Default)]
pub struct Recorder {
    next_wire: u32,
    kind: Vec<GateKind>,
    a: Vec<u32>,
    b: Vec<u32>,
    out: Vec<u32>,
    inputs: Vec<(PartyId, Vec<u32>)>,
    outputs: Vec<Vec<u32>>,
    constants: [Option<u32>; 2],
}

/// A recorded program: its circuit and how many leading input values the garbler owns.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub circuit: Circuit,
    pub garbler_values: usize,
}

impl Recorder {
    fn wire(&mut self) -> u32 {
        self.next_wire += 1;
        self.next_wire - 1
    }

    fn gate(&mut self, kind: GateKind, a: u32, b: u32) -> u32 {
        let out = self.wire();
        self.kind.push(kind);
        self.a.push(a);
        self.b.push(b);
        self.out.push(out);
        out
    }

    /// The circuit, with inputs renumbered first (garbler's values, then evaluator's).
    pub fn finish(self) -> Recorded {
        let mut order: Vec<&(PartyId, Vec<u32>)> = self
            .inputs
            .iter()
            .filter(|(o, _)| *o == PartyId::GARBLER)
            .collect();
        let garbler_values = order.len();
        order.extend(self.inputs.iter().filter(|(o, _)| *o == PartyId::EVALUATOR));

        let mut new_id = vec![u32::MAX; self.next_wire as usize];
        let mut next = 0u32;
        for (_, wires) in &order {
            for &w in wires {
                new_id[w as usize] = next;
                next += 1;
            }
        }
        for &w in &self.out {
            new_id[w as usize] = next;
            next += 1;
        }
        let map = |w: &u32| new_id[*w as usize];
        let circuit = Circuit {
            num_wires: next,
            input_widths: order.iter().map(|(_, w)| w.len() as u32).collect(),
            output_widths: self.outputs.iter().map(|o| o.len() as u32).collect(),
            output_wires: self.outputs.iter().flatten().map(map).collect(),
            a: self
                .kind
                .iter()
                .zip(&self.a)
                .map(|(k, a)| if *k == GateKind::Const { *a } else { map(a) })
                .collect(),
            b: self
                .kind
                .iter()
                .zip(&self.b)
                .map(|(k, b)| {
                    if *k == GateKind::Xor || *k == GateKind::And {
                        map(b)
                    } else {
                        0
                    }
                })
                .collect(),
            out: self.out.iter().map(map).collect(),
            kind: self.kind,
        };
        debug_assert_eq!(circuit.validate(), Ok(()));
        Recorded {
            circuit,
            garbler_values,
        }
    }
}

impl Backend for Recorder {
    type Wire = u32;

    fn xor(&mut self, a: u32, b: u32) -> u32 {
        self.gate(GateKind::Xor, a, b)
    }
    fn and(&mut self, a: u32, b: u32) -> u32 {
        self.gate(GateKind::And, a, b)
    }
    fn not(&mut self, a: u32) -> u32 {
        self.gate(GateKind::Not, a, 0)
    }
    fn constant(&mut self, value: bool) -> u32 {
        if let Some(w) = self.constants[value as usize] {
            return w;
        }
        let w = self.gate(GateKind::Const, value as u32, 0);
        self.constants[value as usize] = Some(w);
        w
    }

    /// Inputs of the garbler or the evaluator (a recorded circuit is a two-party one).
    fn input(&mut self, owner: PartyId, width: u32, _: Option<&[bool]>) -> Result<Vec<u32>, ProgramError> {
        if owner != PartyId::GARBLER && owner != PartyId::EVALUATOR {
            return Err(ProgramError::NoSuchParty(owner));
        }
        let wires: Vec<u32> = (0..width).map(|_| self.wire()).collect();
        self.inputs.push((owner, wires.clone()));
        Ok(wires)
    }

    fn output(&mut self, wires: &[u32]) -> Result<Option<Vec<bool>>, ProgramError> {
        self.outputs.push(wires.to_vec());
        Ok(None)
    }
}
