//! Any circuit as a function inside a program (TinyGarble2's "blank wrapper"): its gates
//! are replayed on the program's backend, so a Bristol file from another framework runs in
//! plaintext, is counted, recorded, or garbled gate by gate like native code.

use mixgc_circuit::{Circuit, CircuitError, GateKind};

use crate::Backend;

/// Applies `circuit` to `inputs` (one wire vector per input value, least significant bit
/// first) and returns its output values. An invalid circuit or wrong input widths give an
/// error.
pub fn call_circuit<B: Backend>(
    b: &mut B,
    circuit: &Circuit,
    inputs: &[Vec<B::Wire>],
) -> Result<Vec<Vec<B::Wire>>, CircuitError> {
    circuit.check_inputs(inputs.iter().map(Vec::len))?;
    let mut wires: Vec<Option<B::Wire>> = vec![None; circuit.num_wires as usize];
    for (slot, &w) in wires.iter_mut().zip(inputs.iter().flatten()) {
        *slot = Some(w);
    }
    // Validated: every wire is defined before it is read.
    let get = |wires: &[Option<B::Wire>], w: u32| wires[w as usize].expect("validated circuit");
    for g in 0..circuit.num_gates() {
        let (a, bw) = (circuit.a[g], circuit.b[g]);
        let out = match circuit.kind[g] {
            GateKind::Xor => b.xor(get(&wires, a), get(&wires, bw)),
            GateKind::And => b.and(get(&wires, a), get(&wires, bw)),
            GateKind::Not => b.not(get(&wires, a)),
            GateKind::Copy => get(&wires, a),
            GateKind::Const => b.constant(a == 1),
        };
        wires[circuit.out[g] as usize] = Some(out);
    }
    let mut flat = circuit.output_wires.iter().map(|&w| get(&wires, w));
    Ok(circuit
        .output_widths
        .iter()
        .map(|&w| flat.by_ref().take(w as usize).collect())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gadgets::testing::bits;
    use crate::{Counter, PartyId, Plain};

    fn shipped(name: &str) -> Circuit {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../circuits")
            .join(name);
        mixgc_circuit::bristol::read_file(&path).unwrap()
    }

    #[test]
    fn a_bristol_aes_runs_inside_a_program() {
        let aes = shipped("aes_128.txt");
        let hex = |h: &str| mixgc_circuit::values::parse_hex(h, 128).unwrap();
        let mut p = Plain::default();
        let key = p
            .input(
                PartyId::GARBLER,
                128,
                Some(&hex("000102030405060708090a0b0c0d0e0f")),
            )
            .unwrap();
        let pt = p
            .input(
                PartyId::EVALUATOR,
                128,
                Some(&hex("00112233445566778899aabbccddeeff")),
            )
            .unwrap();
        let out = call_circuit(&mut p, &aes, &[key, pt]).unwrap();
        assert_eq!(
            mixgc_circuit::values::to_hex(&out[0]),
            "69c4e0d86a7b0430d8cdb78070b4c55a"
        );
        let mut c = Counter::default();
        let k = c.input(PartyId::GARBLER, 128, None).unwrap();
        let q = c.input(PartyId::EVALUATOR, 128, None).unwrap();
        call_circuit(&mut c, &aes, &[k, q]).unwrap();
        assert_eq!(c.cost().ands, 6400);
    }

    #[test]
    fn composes_with_native_code_and_checks_widths() {
        // (a + b) with the shipped adder, then compared natively: a + b > a for b > 0.
        let adder = shipped("adder64.txt");
        let mut p = Plain::default();
        let a = p.input(PartyId::GARBLER, 64, Some(&bits(40, 64))).unwrap();
        let b = p.input(PartyId::EVALUATOR, 64, Some(&bits(2, 64))).unwrap();
        let sum = call_circuit(&mut p, &adder, &[a.clone(), b]).unwrap().remove(0);
        assert_eq!(crate::gadgets::testing::value(&sum), 42);
        assert_eq!(crate::gadgets::lt_unsigned(&mut p, &a, &sum), vec![true]);
        let err = call_circuit(&mut p, &adder, std::slice::from_ref(&a)).unwrap_err();
        assert!(err.to_string().contains("2"), "{err}");
        let short = a[..63].to_vec();
        assert!(call_circuit(&mut p, &adder, &[a, short]).is_err());
    }
}
