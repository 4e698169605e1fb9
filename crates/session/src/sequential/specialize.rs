//! The combinational core of a sequential netlist specialized to what is public at the
//! start of a cycle (thesis §3.2: public inputs and constant propagation keep what is
//! public free), compiled once and run as a compiled stream.
//!
//! Which state bits are public, and their values, depend on public data only (the netlist,
//! the public initial values, the cycle count), never on a party's input: an AND with a
//! public 0 is public whatever its other input. So both parties derive the same sequence of
//! [`Key`]s cycle after cycle, and the same compiled [`Spec`] for each, without talking. A
//! key's spec is compiled on first use and kept in a bounded [`Specializer`] cache (AES's
//! round counter gives 10 keys; a design whose public state never repeats compiles a spec a
//! cycle, still in memory bounded by the cache).

use std::collections::HashMap;
use std::rc::Rc;

use mixgc_circuit::sequential::{FlopInit, Sequential};
use mixgc_compile::{compile, CompiledCircuit};
use mixgc_program::gadgets::sequential::{step_scheduled, Schedule, Val};
use mixgc_program::{Backend, PartyId, Recorder};

use crate::SessionError;

/// Specs a [`Specializer`] keeps; when full, it starts over.
pub const MAX_CACHED_SPECS: usize = 64;

/// A state bit at the start of a cycle: public with its value, or a secret (a label).
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
pub enum StateBit {
    Known(bool),
    Secret,
}

/// What is public at the start of a cycle: one [`StateBit`] per register, in state order.
pub type Key = Vec<StateBit>;

/// Where an input value of a spec's circuit comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A core input port (index into the netlist's ports).
    Port(usize),
    /// The secret bits of the state, in state order ([`Spec::secret_in`]).
    State,
}

/// The core compiled for one [`Key`].
pub struct Spec {
    pub compiled: CompiledCircuit,
    /// The circuit's input values, in circuit order (the garbler's ports, the secret state,
    /// the evaluator's ports).
    pub values: Vec<Source>,
    /// The state bits that are secret in this key (the bits of the state value).
    pub secret_in: Vec<usize>,
    /// Output bits of the ports (the first output bits of the circuit); the next-state
    /// value's bits follow.
    pub port_output_bits: usize,
    /// For each register, the next state: public, or `Secret` taken from the next-state
    /// value's bits in order.
    pub next_key: Key,
}

impl Spec {
    /// For each secret bit of the next key, its output bit in the circuit.
    pub fn next_secret_outputs(&self) -> impl Iterator<Item = usize> + '_ {
        self.port_output_bits
            ..self.port_output_bits + self.next_key.iter().filter(|b| **b == StateBit::Secret).count()
    }
}

/// The key of cycle 0: public initial values known, party-given ones secret.
pub fn initial_key(net: &Sequential) -> Key {
    net.initial_state()
        .into_iter()
        .map(|init| match init {
            FlopInit::Value(v) => StateBit::Known(v),
            FlopInit::Input { .. } => StateBit::Secret,
        })
        .collect()
}

/// Compiles and caches the specs of one netlist, and walks them cycle by cycle
/// ([`Specializer::next_spec`]). Each cached spec remembers which spec follows it, so a
/// run that revisits its keys (AES's 16 rounds of a 4-bit counter) looks nothing up.
pub struct Specializer<'n> {
    net: &'n Sequential,
    schedule: Schedule,
    /// Cached specs, their index by key, and the index of the spec that follows each.
    arena: Vec<Rc<Spec>>,
    index: HashMap<Key, usize>,
    follow: Vec<Option<usize>>,
    /// The spec of the cycle before the next one asked (`None` before cycle 0).
    last: Option<usize>,
}

impl<'n> Specializer<'n> {
    pub fn new(net: &'n Sequential) -> Self {
        Specializer {
            net,
            schedule: Schedule::new(net),
            arena: Vec::new(),
            index: HashMap::new(),
            follow: Vec::new(),
            last: None,
        }
    }

    /// The netlist this specializer compiles.
    pub fn net(&self) -> &'n Sequential {
        self.net
    }

    /// Specs cached so far.
    pub fn cached(&self) -> usize {
        self.arena.len()
    }

    /// Starts the walk over: the next [`Specializer::next_spec`] is cycle 0's.
    pub fn restart(&mut self) {
        self.last = None;
    }

    /// Compiles ahead the specs of cycles 0 … `cycles` − 1 (each distinct key once, at most
    /// [`MAX_CACHED_SPECS`]), then restarts the walk: a run can then start streaming at
    /// once, as the unrolled circuit's run does after compiling it before connecting. Keys
    /// depend on public data only, so this needs no peer. Stops early once the walk
    /// follows a step it knows (the key sequence is a function of the key, so the rest of
    /// the run repeats cached specs).
    pub fn prepare(&mut self, cycles: u64) -> Result<(), SessionError> {
        self.restart();
        for _ in 0..cycles {
            let known_step = self.last.is_some_and(|i| self.follow[i].is_some());
            if known_step || self.arena.len() >= MAX_CACHED_SPECS {
                break;
            }
            self.next_spec()?;
        }
        self.restart();
        Ok(())
    }

    /// The spec of the next cycle (cycle 0 first).
    pub fn next_spec(&mut self) -> Result<Rc<Spec>, SessionError> {
        let next = match self.last {
            None => self.find(&initial_key(self.net))?,
            Some(i) => match self.follow[i] {
                Some(j) => j,
                None => {
                    let key = self.arena[i].next_key.clone();
                    let cached = self.arena.len();
                    let j = self.find(&key)?;
                    // Unless the cache started over (and `i` is gone), remember the step.
                    if self.arena.len() >= cached {
                        self.follow[i] = Some(j);
                    }
                    j
                }
            },
        };
        self.last = Some(next);
        Ok(self.arena[next].clone())
    }

    /// The index of `key`'s spec, compiled on first use (the cache starts over when full).
    fn find(&mut self, key: &Key) -> Result<usize, SessionError> {
        if let Some(&i) = self.index.get(key) {
            return Ok(i);
        }
        if self.arena.len() >= MAX_CACHED_SPECS {
            self.arena.clear();
            self.index.clear();
            self.follow.clear();
        }
        let spec = Rc::new(self.build(key)?);
        self.arena.push(spec);
        self.follow.push(None);
        self.index.insert(key.clone(), self.arena.len() - 1);
        Ok(self.arena.len() - 1)
    }

    /// Records the core with the key's public bits folded (the program gadget's
    /// [`step_scheduled`] on a [`Recorder`]) and compiles it.
    fn build(&self, key: &Key) -> Result<Spec, SessionError> {
        let net = self.net;
        let failed = |e: mixgc_program::ProgramError| SessionError::Input(format!("sequential core: {e}"));
        let mut r = Recorder::default();
        let mut inputs = Vec::new();
        let mut declared = Vec::new();
        for port in net.core_ports() {
            let p = &net.inputs[port];
            let wires = r.input(p.owner, p.width, None).map_err(failed)?;
            inputs.push(wires.into_iter().map(Val::Wire).collect::<Vec<_>>());
            declared.push((p.owner, Source::Port(port)));
        }
        let secret_in: Vec<usize> = (0..key.len()).filter(|&i| key[i] == StateBit::Secret).collect();
        let mut state: Vec<Val<u32>> = key
            .iter()
            .map(|b| match b {
                StateBit::Known(v) => Val::Known(*v),
                StateBit::Secret => Val::Known(false),
            })
            .collect();
        if !secret_in.is_empty() {
            // Declared last among the garbler's values: the recorder orders values by owner,
            // each owner's in declaration order.
            let wires = r
                .input(PartyId::GARBLER, secret_in.len() as u32, None)
                .map_err(failed)?;
            for (&i, w) in secret_in.iter().zip(wires) {
                state[i] = Val::Wire(w);
            }
            declared.push((PartyId::GARBLER, Source::State));
        }
        let (outs, next) = step_scheduled(&mut r, net, &self.schedule, &inputs, &state).map_err(failed)?;
        let mut port_output_bits = 0;
        for o in outs {
            port_output_bits += o.len();
            let wires: Vec<u32> = o.into_iter().map(|v| v.wire(&mut r)).collect();
            r.output(&wires).map_err(failed)?;
        }
        let mut next_key = Vec::with_capacity(next.len());
        let mut secret_next = Vec::new();
        for v in next {
            next_key.push(match v {
                Val::Known(b) => StateBit::Known(b),
                Val::Wire(w) => {
                    secret_next.push(w);
                    StateBit::Secret
                }
            });
        }
        if !secret_next.is_empty() {
            r.output(&secret_next).map_err(failed)?;
        }
        declared.sort_by_key(|(owner, _)| *owner);
        let recorded = r.finish();
        Ok(Spec {
            compiled: compile(&recorded.circuit),
            values: declared.into_iter().map(|(_, s)| s).collect(),
            secret_in,
            port_output_bits,
            next_key,
        })
    }
}

/// The [`Specializer`]s of the netlists of a run or a chain, one per netlist (found by
/// its address, so a chain's repeated stage reuses its specs).
#[derive(Default)]
pub struct Specializers<'n> {
    list: Vec<Specializer<'n>>,
}

impl<'n> Specializers<'n> {
    pub fn new() -> Self {
        Specializers::default()
    }

    /// The specializer of `net`, created on first use.
    pub fn of(&mut self, net: &'n Sequential) -> &mut Specializer<'n> {
        let i = match self.list.iter().position(|s| std::ptr::eq(s.net, net)) {
            Some(i) => i,
            None => {
                self.list.push(Specializer::new(net));
                self.list.len() - 1
            }
        };
        &mut self.list[i]
    }

    /// Compiles `net`'s specs for a run of `cycles` cycles ahead ([`Specializer::prepare`]).
    pub fn prepare(&mut self, net: &'n Sequential, cycles: u64) -> Result<(), SessionError> {
        self.of(net).prepare(cycles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mixgc_circuit::sequential::Sequential;

    /// A public 1-bit counter and acc' = x ⊕ (x ∧ acc) of a garbler input x: the AND folds
    /// in cycle 0 only (acc = 0), the counter is public in every cycle.
    const NET: &str = "mixgc-sequential 1\ninputs 1\ninput g_x 1 garbler cycle\noutputs 1\n\
        output acc 1\nflops 2\nflop 2 1 0 cnt\nflop 1 2 0 acc\ncore\n\
        4 7\n2 1 2\n2 1 2\n\n2 1 0 2 3 AND\n1 1 2 4 EQW\n2 1 0 3 5 XOR\n1 1 1 6 INV\n";

    #[test]
    fn public_state_is_folded_and_specs_are_cached() {
        let net = Sequential::parse(NET, "t").unwrap();
        assert_eq!(initial_key(&net), vec![StateBit::Known(false); 2]);
        let mut s = Specializer::new(&net);
        let first = s.next_spec().unwrap();
        assert_eq!(first.compiled.num_ands(), 0, "cycle 0: x AND 0 folds");
        assert!(first.values.iter().all(|v| *v == Source::Port(0)));
        // Next: the counter stays public, the accumulator becomes secret.
        assert_eq!(first.next_key, vec![StateBit::Known(true), StateBit::Secret]);
        let second = s.next_spec().unwrap();
        assert_eq!(second.values, vec![Source::Port(0), Source::State]);
        assert_eq!(second.secret_in, vec![1]);
        assert_eq!(second.compiled.num_ands(), 1);
        assert_eq!(second.next_key, vec![StateBit::Known(false), StateBit::Secret]);
        // From cycle 1 on the keys alternate: two more cycles build one more spec, then
        // the cached ones come back.
        let third = s.next_spec().unwrap();
        let fourth = s.next_spec().unwrap();
        assert!(Rc::ptr_eq(&second, &fourth));
        assert_eq!(s.arena.len(), 3);
        assert!(Rc::ptr_eq(&third, &s.next_spec().unwrap()));
    }

    #[test]
    fn prepare_compiles_ahead_and_restarts_the_walk() {
        let net = Sequential::parse(NET, "t").unwrap();
        let mut all = Specializers::new();
        all.prepare(&net, 1000).unwrap();
        let s = all.of(&net);
        // Three keys, found in four steps; the walk starts again at cycle 0.
        assert_eq!(s.cached(), 3);
        let first = s.next_spec().unwrap();
        assert_eq!(first.compiled.num_ands(), 0);
        assert_eq!(s.cached(), 3, "nothing more compiled");
        // One cycle prepares one spec.
        let mut one = Specializer::new(&net);
        one.prepare(1).unwrap();
        assert_eq!(one.cached(), 1);
        assert!(std::ptr::eq(all.of(&net).net(), &net));
    }
}
