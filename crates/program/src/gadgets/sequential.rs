//! Sequential netlists as functions of a program (TinyGarble, thesis §3.3.1, Eq. 3.1: the
//! same function for C cycles): the combinational core is called once a cycle and the
//! flip-flops carry its next-state wires into the next call, so on a two-party backend the
//! state passes as labels from cycle to cycle, never decoded. Memory is the core's wires,
//! whatever the number of cycles.

use mixgc_circuit::sequential::{InputMode, Sequential};
use mixgc_circuit::PartyId;

use crate::gadgets::circuit::call_circuit;
use crate::{Backend, ProgramError};

/// The state wires of cycle 0: the registers' public initial values, as constants.
pub fn initial_state<B: Backend>(b: &mut B, net: &Sequential) -> Vec<B::Wire> {
    net.initial_state().into_iter().map(|v| b.constant(v)).collect()
}

/// One clock cycle: the core on the ports' wires `inputs` (one vector per input port, in
/// port order) and `state`. Returns the output ports' wires (the values just before the
/// rising edge) and the state after the edge.
pub fn step<B: Backend>(
    b: &mut B,
    net: &Sequential,
    inputs: &[Vec<B::Wire>],
    state: &[B::Wire],
) -> Result<(Vec<Vec<B::Wire>>, Vec<B::Wire>), ProgramError> {
    let mut values = inputs.to_vec();
    if !net.flops.is_empty() {
        values.push(state.to_vec());
    }
    let mut outs = call_circuit(b, &net.core, &values).map_err(|e| {
        ProgramError::OutOfRange(format!("sequential netlist called on wrong inputs: {e}"))
    })?;
    if net.flops.is_empty() {
        return Ok((outs, Vec::new()));
    }
    let next = outs.pop().expect("a validated netlist has a next-state value");
    let state = net.next_state_sources().iter().map(|&s| next[s]).collect();
    Ok((outs, state))
}

/// Runs `net` for `cycles` cycles from its initial state. `input(b, port, cycle)` gives the
/// wires of an input port: every cycle for a per-cycle port, at cycle 0 only for a `once`
/// port (its wires are reused). `each_cycle(b, cycle, outputs)` receives each cycle's
/// output wires (reveal them, or drop them). Returns the final state's wires.
pub fn run_cycles<B: Backend>(
    b: &mut B,
    net: &Sequential,
    cycles: u64,
    mut input: impl FnMut(&mut B, usize, u64) -> Result<Vec<B::Wire>, ProgramError>,
    mut each_cycle: impl FnMut(&mut B, u64, Vec<Vec<B::Wire>>) -> Result<(), ProgramError>,
) -> Result<Vec<B::Wire>, ProgramError> {
    let mut state = initial_state(b, net);
    let mut held: Vec<Option<Vec<B::Wire>>> = vec![None; net.inputs.len()];
    let mut wires = Vec::with_capacity(net.inputs.len());
    for t in 0..cycles {
        wires.clear();
        for (port, p) in net.inputs.iter().enumerate() {
            let w = match &held[port] {
                Some(w) => w.clone(),
                None => {
                    let w = input(b, port, t)?;
                    if p.mode == InputMode::Once {
                        held[port] = Some(w.clone());
                    }
                    w
                }
            };
            wires.push(w);
        }
        let (outs, next) = step(b, net, &wires, &state)?;
        state = next;
        each_cycle(b, t, outs)?;
    }
    Ok(state)
}

/// The `input` of [`run_cycles`] for a party of a two-party run: each port is a
/// [`Backend::input`] of its owner, with the value `value(port, cycle)` where this party
/// (`me`) owns the port and `None` where the peer does.
pub fn party_input<'a, B: Backend>(
    net: &'a Sequential,
    me: PartyId,
    mut value: impl FnMut(usize, u64) -> Result<Vec<bool>, ProgramError> + 'a,
) -> impl FnMut(&mut B, usize, u64) -> Result<Vec<B::Wire>, ProgramError> + 'a {
    move |b, port, t| {
        let p = &net.inputs[port];
        let v = if p.owner == me { Some(value(port, t)?) } else { None };
        b.input(p.owner, p.width, v.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Counter, Plain};
    use mixgc_circuit::bristol;

    /// A 4-bit accumulator with a `once` step from the garbler and a per-cycle enable from
    /// the evaluator: acc += en ? step : 0; out = acc (before the edge).
    fn accumulator() -> Sequential {
        let mut r = crate::Recorder::default();
        let step_w = r.input(PartyId::GARBLER, 4, None).unwrap();
        let en = r.input(PartyId::EVALUATOR, 1, None).unwrap();
        let acc = r.input(PartyId::EVALUATOR, 4, None).unwrap();
        let gated: Vec<_> = step_w.iter().map(|&s| r.and(s, en[0])).collect();
        let sum = crate::gadgets::add(&mut r, &acc, &gated);
        r.output(&acc).unwrap();
        r.output(&sum).unwrap();
        let core = r.finish().circuit;
        let mut text = Vec::new();
        bristol::write_fashion(&core, &mut text).unwrap();
        let header = "mixgc-sequential 1\ninputs 2\ninput g_step 4 garbler once\n\
                      input e_en 1 evaluator cycle\noutputs 1\noutput acc 4\nflops 4\n\
                      flop 4 5 1 acc[0]\nflop 5 6 0 acc[1]\nflop 6 7 0 acc[2]\nflop 7 8 0 acc[3]\ncore\n";
        Sequential::parse(&(header.to_string() + std::str::from_utf8(&text).unwrap()), "acc").unwrap()
    }

    fn value(bits: &[bool]) -> u64 {
        bits.iter().rev().fold(0, |a, &b| a << 1 | u64::from(b))
    }

    #[test]
    fn accumulator_matches_the_model_and_the_plaintext_netlist() {
        let net = accumulator();
        for (step_v, cycles) in [(3u64, 1u64), (5, 2), (7, 1000)] {
            let en = |t: u64| (t * 7 + 3) % 5 != 0;
            let bits = |v: u64, w: usize| (0..w).map(|i| v >> i & 1 == 1).collect::<Vec<bool>>();
            let mut p = Plain::default();
            let mut got = Vec::new();
            let input = |_: &mut Plain, port: usize, t: u64| -> Result<Vec<bool>, ProgramError> {
                Ok(if port == 0 { bits(step_v, 4) } else { vec![en(t)] })
            };
            run_cycles(&mut p, &net, cycles, input, |_, _, outs| {
                got.push(value(&outs[0]));
                Ok(())
            })
            .unwrap();
            let mut model = 1u64;
            let reference = net
                .eval_plain(cycles, |port, t| if port == 0 { bits(step_v, 4) } else { vec![en(t)] })
                .unwrap();
            for t in 0..cycles {
                assert_eq!(got[t as usize], model, "cycle {t}");
                assert_eq!(value(&reference[t as usize][0]), model, "netlist, cycle {t}");
                if en(t) {
                    model = (model + step_v) % 16;
                }
            }
        }
    }

    #[test]
    fn cost_is_the_core_times_the_cycles() {
        let net = accumulator();
        let per_cycle = net.core.stats().ands as u64;
        let mut c = Counter::default();
        run_cycles(&mut c, &net, 10, |b, port, _| b.input(net.inputs[port].owner, net.inputs[port].width, None), |_, _, _| Ok(()))
            .unwrap();
        assert_eq!(c.cost().ands, 10 * per_cycle);
    }
}
