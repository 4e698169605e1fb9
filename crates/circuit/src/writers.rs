//! Which gate writes each wire: the lookup behind validation, evaluation, statistics and
//! the Bristol writer.
//!
//! Memory is proportional to the number of gates, never to `num_wires`, so a circuit
//! with a huge declared wire count but few gates costs little.

use crate::Circuit;

/// Marks "no gate" in the dense table.
const NONE: u32 = u32::MAX;

/// Maps each wire `>= base` (the input wires are below `base`) that some gate writes to
/// the index of the first gate that writes it.
pub(crate) struct Writers {
    base: u32,
    repr: Repr,
}

enum Repr {
    /// `table[w - base]` is the writer of wire `w`, or `NONE`.
    Dense(Vec<u32>),
    /// `(wire, gate)` pairs sorted by wire, one per wire.
    Sparse(Vec<(u32, u32)>),
}

impl Writers {
    /// Builds the map for the gate outputs of `c`; `base` is the number of input wires.
    /// Outputs below `base` are skipped. Gate indices are assumed to fit in a `u32`
    /// ([`Circuit::validate`] checks this before relying on the map).
    pub(crate) fn build(c: &Circuit, base: u32) -> Writers {
        let outs = &c.out;
        let max_out = outs.iter().copied().filter(|&w| w >= base).max();
        let Some(max_out) = max_out else {
            return Writers {
                base,
                repr: Repr::Sparse(Vec::new()),
            };
        };
        let span = (max_out - base) as usize + 1;
        let repr = if span <= outs.len().saturating_mul(2).saturating_add(1024) {
            let mut table = vec![NONE; span];
            for (g, &w) in outs.iter().enumerate() {
                if w >= base {
                    let slot = &mut table[(w - base) as usize];
                    if *slot == NONE {
                        *slot = g as u32;
                    }
                }
            }
            Repr::Dense(table)
        } else {
            let mut pairs: Vec<(u32, u32)> = outs
                .iter()
                .enumerate()
                .filter(|&(_, &w)| w >= base)
                .map(|(g, &w)| (w, g as u32))
                .collect();
            pairs.sort_unstable();
            pairs.dedup_by_key(|p| p.0);
            Repr::Sparse(pairs)
        };
        Writers { base, repr }
    }

    /// The index of the first gate writing `wire`, or `None` (also for input wires).
    pub(crate) fn get(&self, wire: u32) -> Option<usize> {
        if wire < self.base {
            return None;
        }
        match &self.repr {
            Repr::Dense(table) => match table.get((wire - self.base) as usize) {
                Some(&g) if g != NONE => Some(g as usize),
                _ => None,
            },
            Repr::Sparse(pairs) => pairs
                .binary_search_by_key(&wire, |p| p.0)
                .ok()
                .map(|i| pairs[i].1 as usize),
        }
    }
}
