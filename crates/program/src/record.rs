use mixgc_circuit::{Circuit, GateKind};

use crate::{Backend, PartyId, ProgramError};

/// Records a program as a circuit in mixgc's IR (and from there Bristol Fashion).
///
/// Wires get provisional ids as the program creates them; [`Recorder::finish`] renumbers
/// them so that the input values come first, ordered by owner (party 0's, then party 1's,
/// …; for two parties the garbler's before the evaluator's, the ownership rule of
/// `mixgc run`), each owner's in the order the program declared them.
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

/// A recorded program: its circuit, how many leading input values the garbler (party 0)
/// owns, and the owner of every input value.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub circuit: Circuit,
    pub garbler_values: usize,
    /// The owner of each input value, in circuit order (non-decreasing).
    pub owners: Vec<PartyId>,
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

    /// The circuit, with inputs renumbered first, by owner (party 0's values, then party
    /// 1's, …, each owner's in declaration order).
    pub fn finish(self) -> Recorded {
        let mut order: Vec<&(PartyId, Vec<u32>)> = self.inputs.iter().collect();
        // Stable: each owner's values keep their declaration order.
        order.sort_by_key(|(owner, _)| *owner);
        let owners: Vec<PartyId> = order.iter().map(|(owner, _)| *owner).collect();
        let garbler_values = owners.iter().take_while(|&&o| o == PartyId::GARBLER).count();

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
            owners,
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

    /// Inputs of any party ([`Recorded::owners`] says whose each value is).
    fn input(&mut self, owner: PartyId, width: u32, _: Option<&[bool]>) -> Result<Vec<u32>, ProgramError> {
        let wires: Vec<u32> = (0..width).map(|_| self.wire()).collect();
        self.inputs.push((owner, wires.clone()));
        Ok(wires)
    }

    fn output(&mut self, wires: &[u32]) -> Result<Option<Vec<bool>>, ProgramError> {
        self.outputs.push(wires.to_vec());
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn party(i: usize) -> PartyId {
        PartyId::new(i).unwrap()
    }

    #[test]
    fn inputs_are_ordered_by_owner_then_declaration() {
        // Declared as party 2, 0, 3, 1, 2, 0 with distinct widths; each output is one input.
        let declared = [(2, 1u32), (0, 2), (3, 3), (1, 4), (2, 5), (0, 6)];
        let mut r = Recorder::default();
        let wires: Vec<Vec<u32>> = declared
            .iter()
            .map(|&(p, w)| r.input(party(p), w, None).unwrap())
            .collect();
        for w in &wires {
            r.output(w).unwrap();
        }
        let rec = r.finish();
        // Circuit order: party 0's (widths 2, 6), party 1's (4), party 2's (1, 5), party 3's (3).
        assert_eq!(rec.circuit.input_widths, vec![2, 6, 4, 1, 5, 3]);
        assert_eq!(
            rec.owners,
            vec![party(0), party(0), party(1), party(2), party(2), party(3)]
        );
        assert_eq!(rec.garbler_values, 2);
        // Feed each circuit input a distinct pattern; each output must echo its own input.
        let inputs: Vec<Vec<bool>> = rec
            .circuit
            .input_widths
            .iter()
            .enumerate()
            .map(|(k, &w)| (0..w).map(|i| (k + i as usize).is_multiple_of(3)).collect())
            .collect();
        let outputs = rec.circuit.eval_plain(&inputs).unwrap();
        let circuit_index = [3, 0, 5, 2, 4, 1];
        for (declared_index, &k) in circuit_index.iter().enumerate() {
            assert_eq!(
                outputs[declared_index], inputs[k],
                "declared input {declared_index}"
            );
        }
    }

    #[test]
    fn two_owners_keep_the_garbler_first_order() {
        let mut r = Recorder::default();
        let e = r.input(PartyId::EVALUATOR, 3, None).unwrap();
        let g = r.input(PartyId::GARBLER, 2, None).unwrap();
        let s = r.and(e[0], g[0]);
        r.output(&[s]).unwrap();
        let rec = r.finish();
        assert_eq!(rec.circuit.input_widths, vec![2, 3]);
        assert_eq!(rec.owners, vec![PartyId::GARBLER, PartyId::EVALUATOR]);
        assert_eq!(rec.garbler_values, 1);
        let last = party(crate::MAX_PARTIES - 1);
        assert_eq!(Recorder::default().input(last, 1, None).unwrap().len(), 1);
    }
}
