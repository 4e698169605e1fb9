//! Sequential netlists as functions of a program (TinyGarble, thesis §3.3.1, Eq. 3.1: the
//! same function for C cycles): the combinational core is called once a cycle and the
//! flip-flops carry its next-state wires into the next call, so on a two-party backend the
//! state passes as labels from cycle to cycle, never decoded. Memory is the core's wires,
//! whatever the number of cycles.
//!
//! Public values are propagated as constants (thesis §3.2: public inputs and constant
//! propagation keep what is public free): the registers start from their public initial
//! values, and a gate whose inputs are known is computed, not garbled; an AND with a known
//! input is a wire or a constant. So a round counter, the round constants it selects and
//! the multiplexers it drives (AES's first-round load, its last round without MixColumns)
//! cost no AND, cycle after cycle.

use mixgc_circuit::sequential::{FlopInit, InputMode, Sequential};
use mixgc_circuit::PartyId;

use mixgc_circuit::GateKind;

use crate::{Backend, ProgramError};

/// A bit of the core: known to both parties (public), or a backend wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val<W> {
    Known(bool),
    Wire(W),
}

impl<W: Copy> Val<W> {
    /// The bit as a backend wire (a constant if known).
    pub fn wire<B: Backend<Wire = W>>(self, b: &mut B) -> W {
        match self {
            Val::Known(v) => b.constant(v),
            Val::Wire(w) => w,
        }
    }
}

/// One cycle's result: the output ports' bits and the next state.
pub type Cycle<W> = (Vec<Vec<Val<W>>>, Vec<Val<W>>);

/// The state of cycle 0: the registers' public initial values, and the wires of the `init`
/// ports' bits (`init_wires[port]`, given for every init port) where a party gives them.
pub fn initial_state<W: Copy>(net: &Sequential, init_wires: &[Option<Vec<W>>]) -> Vec<Val<W>> {
    net.initial_state()
        .into_iter()
        .map(|init| match init {
            FlopInit::Value(v) => Val::Known(v),
            FlopInit::Input { port, bit } => Val::Wire(
                init_wires[port]
                    .as_ref()
                    .expect("validated: an init port's wires")[bit as usize],
            ),
        })
        .collect()
}

fn xor<B: Backend>(b: &mut B, x: Val<B::Wire>, y: Val<B::Wire>) -> Val<B::Wire> {
    match (x, y) {
        (Val::Known(p), Val::Known(q)) => Val::Known(p ^ q),
        (Val::Known(false), w) | (w, Val::Known(false)) => w,
        (Val::Known(true), Val::Wire(w)) | (Val::Wire(w), Val::Known(true)) => Val::Wire(b.not(w)),
        (Val::Wire(p), Val::Wire(q)) => Val::Wire(b.xor(p, q)),
    }
}

/// The AND folded if an input is known; `Err` with both wires if it must be garbled.
fn and<W>(x: Val<W>, y: Val<W>) -> Result<Val<W>, (W, W)> {
    match (x, y) {
        (Val::Known(p), Val::Known(q)) => Ok(Val::Known(p & q)),
        (Val::Known(false), _) | (_, Val::Known(false)) => Ok(Val::Known(false)),
        (Val::Known(true), w) | (w, Val::Known(true)) => Ok(w),
        (Val::Wire(p), Val::Wire(q)) => Err((p, q)),
    }
}

fn not<B: Backend>(b: &mut B, x: Val<B::Wire>) -> Val<B::Wire> {
    match x {
        Val::Known(v) => Val::Known(!v),
        Val::Wire(w) => Val::Wire(b.not(w)),
    }
}

/// The core's gates by AND level (thesis §3.3: the gates of one level are independent):
/// each level's ANDs, then the free gates that follow them, so a cycle hashes a level's
/// ANDs as one batch ([`Backend::and_many`]). Computed once per netlist.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// Gate indices, level by level.
    order: Vec<u32>,
    /// For each level, the end of its ANDs and the end of its free gates in `order`.
    levels: Vec<(usize, usize)>,
}

impl Schedule {
    pub fn new(net: &Sequential) -> Schedule {
        let c = &net.core;
        let mut level = vec![0u32; c.num_wires as usize];
        let mut gate_level = Vec::with_capacity(c.num_gates());
        for g in 0..c.num_gates() {
            let (x, y) = (c.a[g] as usize, c.b[g] as usize);
            let l = match c.kind[g] {
                GateKind::And => level[x].max(level[y]) + 1,
                GateKind::Xor => level[x].max(level[y]),
                GateKind::Not | GateKind::Copy => level[x],
                GateKind::Const => 0,
            };
            level[c.out[g] as usize] = l;
            gate_level.push(l);
        }
        let depth = gate_level.iter().copied().max().unwrap_or(0) as usize;
        let mut ands: Vec<Vec<u32>> = vec![Vec::new(); depth + 1];
        let mut free: Vec<Vec<u32>> = vec![Vec::new(); depth + 1];
        for (g, &l) in gate_level.iter().enumerate() {
            let bucket = if c.kind[g] == GateKind::And {
                &mut ands
            } else {
                &mut free
            };
            bucket[l as usize].push(g as u32);
        }
        let mut order = Vec::with_capacity(c.num_gates());
        let mut levels = Vec::with_capacity(depth + 1);
        for (a, f) in ands.into_iter().zip(free) {
            order.extend(a);
            let ands_end = order.len();
            order.extend(f);
            levels.push((ands_end, order.len()));
        }
        Schedule { order, levels }
    }
}

/// One clock cycle: the core on the ports' bits `inputs` (one vector per core input port,
/// in port order, the `init` ports left out) and `state`, with known bits folded. Returns the output ports' bits (the
/// values just before the rising edge) and the state after the edge.
pub fn step<B: Backend>(
    b: &mut B,
    net: &Sequential,
    inputs: &[Vec<Val<B::Wire>>],
    state: &[Val<B::Wire>],
) -> Result<Cycle<B::Wire>, ProgramError> {
    step_scheduled(b, net, &Schedule::new(net), inputs, state)
}

/// [`step`] with the netlist's [`Schedule`] computed beforehand.
pub fn step_scheduled<B: Backend>(
    b: &mut B,
    net: &Sequential,
    schedule: &Schedule,
    inputs: &[Vec<Val<B::Wire>>],
    state: &[Val<B::Wire>],
) -> Result<Cycle<B::Wire>, ProgramError> {
    let c = &net.core;
    // The netlist was validated when it was read; only the widths given here are checked.
    let widths_ok = inputs.len() == net.core_ports().count()
        && inputs
            .iter()
            .zip(net.core_ports())
            .all(|(v, p)| v.len() == net.inputs[p].width as usize)
        && state.len() == net.flops.len();
    if !widths_ok {
        return Err(ProgramError::OutOfRange(format!(
            "sequential netlist called on {} input value(s) and {} state bits; it takes {} and {}",
            inputs.len(),
            state.len(),
            net.core_ports().count(),
            net.flops.len()
        )));
    }
    let mut wires: Vec<Option<Val<B::Wire>>> = vec![None; c.num_wires as usize];
    for (slot, &v) in wires.iter_mut().zip(inputs.iter().flatten().chain(state)) {
        *slot = Some(v);
    }
    // Validated core: every wire is defined before it is read.
    let get = |wires: &[Option<Val<B::Wire>>], w: u32| wires[w as usize].expect("validated core");
    let mut pairs = Vec::new();
    let mut pending = Vec::new();
    let mut start = 0;
    for &(ands_end, free_end) in &schedule.levels {
        pairs.clear();
        pending.clear();
        for &g in &schedule.order[start..ands_end] {
            let g = g as usize;
            match and(get(&wires, c.a[g]), get(&wires, c.b[g])) {
                Ok(v) => wires[c.out[g] as usize] = Some(v),
                Err(pair) => {
                    pairs.push(pair);
                    pending.push(c.out[g]);
                }
            }
        }
        if !pairs.is_empty() {
            for (out, w) in pending.iter().zip(b.and_many(&pairs)) {
                wires[*out as usize] = Some(Val::Wire(w));
            }
        }
        for &g in &schedule.order[ands_end..free_end] {
            let g = g as usize;
            let (x, y) = (c.a[g], c.b[g]);
            let out = match c.kind[g] {
                GateKind::Xor => xor(b, get(&wires, x), get(&wires, y)),
                GateKind::Not => not(b, get(&wires, x)),
                GateKind::Copy => get(&wires, x),
                GateKind::Const => Val::Known(x == 1),
                GateKind::And => unreachable!("ANDs come first in a level"),
            };
            wires[c.out[g] as usize] = Some(out);
        }
        start = free_end;
    }
    let mut flat = c.output_wires.iter().map(|&w| get(&wires, w));
    let mut outs: Vec<Vec<Val<B::Wire>>> = c
        .output_widths
        .iter()
        .map(|&w| flat.by_ref().take(w as usize).collect())
        .collect();
    if net.flops.is_empty() {
        return Ok((outs, Vec::new()));
    }
    let next = outs.pop().expect("a validated netlist has a next-state value");
    let state = net.next_state_sources().iter().map(|&s| next[s]).collect();
    Ok((outs, state))
}

/// Runs `net` for `cycles` cycles from its initial state. `input(b, port, cycle)` gives the
/// wires of an input port: every cycle for a per-cycle port, at cycle 0 only for a `once`
/// port (its wires are reused), and before cycle 0 (asked with cycle 0) for an `init` port. `each_cycle(b, cycle, outputs)` receives each cycle's
/// output wires (reveal them, or drop them). Returns the final state's wires. Known bits
/// are folded (see the module docs); outputs and the final state come out as wires.
pub fn run_cycles<B: Backend>(
    b: &mut B,
    net: &Sequential,
    cycles: u64,
    mut input: impl FnMut(&mut B, usize, u64) -> Result<Vec<B::Wire>, ProgramError>,
    mut each_cycle: impl FnMut(&mut B, u64, Vec<Vec<B::Wire>>) -> Result<(), ProgramError>,
) -> Result<Vec<B::Wire>, ProgramError> {
    let schedule = Schedule::new(net);
    let mut init_wires = vec![None; net.inputs.len()];
    for (port, p) in net.inputs.iter().enumerate() {
        if p.mode == InputMode::Init {
            init_wires[port] = Some(input(b, port, 0)?);
        }
    }
    let mut state = initial_state(net, &init_wires);
    let mut held: Vec<Option<Vec<Val<B::Wire>>>> = vec![None; net.inputs.len()];
    let mut wires = Vec::with_capacity(net.inputs.len());
    for t in 0..cycles {
        wires.clear();
        for port in net.core_ports() {
            let p = &net.inputs[port];
            let w = match &held[port] {
                Some(w) => w.clone(),
                None => {
                    let w: Vec<Val<B::Wire>> = input(b, port, t)?.into_iter().map(Val::Wire).collect();
                    if p.mode == InputMode::Once {
                        held[port] = Some(w.clone());
                    }
                    w
                }
            };
            wires.push(w);
        }
        let (outs, next) = step_scheduled(b, net, &schedule, &wires, &state)?;
        state = next;
        let outs = outs
            .into_iter()
            .map(|o| o.into_iter().map(|v| v.wire(b)).collect())
            .collect();
        each_cycle(b, t, outs)?;
    }
    Ok(state.into_iter().map(|v| v.wire(b)).collect())
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
        let v = if p.owner == me {
            Some(value(port, t)?)
        } else {
            None
        };
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
            let en = |t: u64| !(t * 7 + 3).is_multiple_of(5);
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
                .eval_plain(
                    cycles,
                    |port, t| if port == 0 { bits(step_v, 4) } else { vec![en(t)] },
                )
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
    fn cost_is_the_core_times_the_cycles_less_what_is_public() {
        let net = accumulator();
        let per_cycle = net.core.stats().ands as u64;
        let mut c = Counter::default();
        let input =
            |b: &mut Counter, port: usize, _| b.input(net.inputs[port].owner, net.inputs[port].width, None);
        run_cycles(&mut c, &net, 10, input, |_, _, _| Ok(())).unwrap();
        // Cycle 0 adds to a known accumulator (1): some of its ANDs fold away.
        assert!(
            c.cost().ands < 10 * per_cycle,
            "{} vs {}",
            c.cost().ands,
            10 * per_cycle
        );
        assert!(c.cost().ands >= 9 * per_cycle);
    }

    #[test]
    fn known_state_costs_nothing() {
        // A free-running 4-bit counter: all of it is public, so no AND is garbled.
        let mut r = crate::Recorder::default();
        let x = r.input(PartyId::GARBLER, 4, None).unwrap();
        let one = [true, false, false, false].map(|v| r.constant(v));
        let next = crate::gadgets::add(&mut r, &x, &one);
        r.output(&x).unwrap();
        r.output(&next).unwrap();
        let core = r.finish().circuit;
        let mut text = Vec::new();
        bristol::write_fashion(&core, &mut text).unwrap();
        let header = "mixgc-sequential 1\ninputs 0\noutputs 1\noutput n 4\nflops 4\n\
                      flop 4 0 0 n0\nflop 5 1 0 n1\nflop 6 2 0 n2\nflop 7 3 0 n3\ncore\n";
        let net =
            Sequential::parse(&(header.to_string() + std::str::from_utf8(&text).unwrap()), "n").unwrap();
        assert!(net.core.stats().ands > 0);
        let mut c = Counter::default();
        let mut last = Vec::new();
        run_cycles(
            &mut c,
            &net,
            21,
            |_, _, _| unreachable!("no inputs"),
            |_, _, o| {
                last = o;
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(c.cost().ands, 0);
        let mut p = Plain::default();
        let mut got = 0;
        run_cycles(
            &mut p,
            &net,
            21,
            |_, _, _| unreachable!("no inputs"),
            |_, _, o| {
                got = value(&o[0]);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(got, 20 % 16);
    }

    #[test]
    fn netlists_chain_through_their_state() {
        // Thesis Eq. 3.2, a chain: the accumulator runs 5 cycles, then its final state
        // starts another 3 cycles through `step`, as if one run of 8 cycles.
        let net = accumulator();
        let step_v = bits_of(5, 4);
        let en = |t: u64| t % 3 != 1;
        let mut p = Plain::default();
        let input = |_: &mut Plain, port: usize, t: u64| -> Result<Vec<bool>, ProgramError> {
            Ok(if port == 0 { step_v.clone() } else { vec![en(t)] })
        };
        let state = run_cycles(&mut p, &net, 5, input, |_, _, _| Ok(())).unwrap();
        let mut state: Vec<Val<bool>> = state.into_iter().map(Val::Wire).collect();
        let schedule = Schedule::new(&net);
        let mut last = Vec::new();
        for t in 5..8 {
            let ports = vec![
                step_v.iter().map(|&v| Val::Wire(v)).collect(),
                vec![Val::Wire(en(t))],
            ];
            let (outs, next) = step_scheduled(&mut p, &net, &schedule, &ports, &state).unwrap();
            last = outs[0].iter().map(|v| v.wire(&mut p)).collect::<Vec<bool>>();
            state = next;
        }
        let whole = net
            .eval_plain(8, |port, t| if port == 0 { step_v.clone() } else { vec![en(t)] })
            .unwrap();
        assert_eq!(last, whole[7][0]);
        // Wrong widths are an error, not a panic.
        assert!(step(&mut p, &net, &[vec![Val::Known(true)]], &state).is_err());
    }

    fn bits_of(v: u64, w: usize) -> Vec<bool> {
        (0..w).map(|i| v >> i & 1 == 1).collect()
    }
}
