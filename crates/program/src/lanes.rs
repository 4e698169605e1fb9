//! SIMD lanes: one program run on several independent instances at once.
//!
//! A [`Lanes`] wire is one wire per instance. Every gate of the program becomes one gate per
//! active lane of the inner backend, and every AND becomes one [`Backend::and_many`] call,
//! which a two-party backend hashes as one batch. Gadgets need no change: running
//! `mul(a, b)` on lanes multiplies up to [`MAX_LANES`] pairs with the AND count of that many
//! separate multiplications, but in a fraction of the time when garbling gate by gate.

use crate::{Backend, PartyId, ProgramError};

/// Most instances one lane wire carries.
pub const MAX_LANES: usize = 16;

/// Runs gadgets over `active` independent instances of the inner backend `B`.
pub struct Lanes<'b, B: Backend> {
    inner: &'b mut B,
    active: usize,
}

impl<'b, B: Backend> Lanes<'b, B> {
    /// Lanes over `active` (1..=[`MAX_LANES`]) instances.
    pub fn new(inner: &'b mut B, active: usize) -> Self {
        assert!((1..=MAX_LANES).contains(&active), "1 to {MAX_LANES} lanes");
        Lanes { inner, active }
    }

    /// Packs `active` values of equal width into lane wires (lane i holds `values[i]`).
    pub fn pack(&mut self, values: &[&[B::Wire]]) -> Vec<[B::Wire; MAX_LANES]> {
        assert_eq!(values.len(), self.active, "one value per active lane");
        let width = values[0].len();
        assert!(
            values.iter().all(|v| v.len() == width),
            "lane values must have equal widths"
        );
        let filler = self.inner.constant(false);
        (0..width)
            .map(|bit| std::array::from_fn(|lane| values.get(lane).map_or(filler, |v| v[bit])))
            .collect()
    }

    /// The same value in every lane.
    pub fn broadcast(&mut self, value: &[B::Wire]) -> Vec<[B::Wire; MAX_LANES]> {
        value.iter().map(|&w| [w; MAX_LANES]).collect()
    }

    /// The value of each active lane.
    pub fn unpack(&self, wires: &[[B::Wire; MAX_LANES]]) -> Vec<Vec<B::Wire>> {
        (0..self.active)
            .map(|lane| wires.iter().map(|w| w[lane]).collect())
            .collect()
    }

    /// The inner wires of the active lanes of `wires`.
    fn active_wires(&self, wires: &[[B::Wire; MAX_LANES]]) -> Vec<B::Wire> {
        wires
            .iter()
            .flat_map(|w| w[..self.active].iter().copied())
            .collect()
    }

    fn map(
        &mut self,
        a: [B::Wire; MAX_LANES],
        mut f: impl FnMut(&mut B, B::Wire) -> B::Wire,
    ) -> [B::Wire; MAX_LANES] {
        let mut out = a;
        for w in &mut out[..self.active] {
            *w = f(self.inner, *w);
        }
        out
    }
}

impl<B: Backend> Backend for Lanes<'_, B> {
    type Wire = [B::Wire; MAX_LANES];

    fn xor(&mut self, a: Self::Wire, b: Self::Wire) -> Self::Wire {
        let mut out = a;
        for i in 0..self.active {
            out[i] = self.inner.xor(a[i], b[i]);
        }
        out
    }

    fn and(&mut self, a: Self::Wire, b: Self::Wire) -> Self::Wire {
        let pairs: Vec<(B::Wire, B::Wire)> = (0..self.active).map(|i| (a[i], b[i])).collect();
        let products = self.inner.and_many(&pairs);
        let mut out = a;
        out[..self.active].copy_from_slice(&products);
        out
    }

    fn not(&mut self, a: Self::Wire) -> Self::Wire {
        self.map(a, |b, w| b.not(w))
    }

    fn constant(&mut self, value: bool) -> Self::Wire {
        [self.inner.constant(value); MAX_LANES]
    }

    /// Lanes carry values packed from the inner backend; inputs are declared there.
    fn input(&mut self, _: PartyId, _: u32, _: Option<&[bool]>) -> Result<Vec<Self::Wire>, ProgramError> {
        Err(ProgramError::Unsupported(
            "declare inputs on the inner backend, then pack them into lanes",
        ))
    }

    /// Lanes are unpacked to the inner backend to become outputs.
    fn output(&mut self, _: &[Self::Wire]) -> Result<Option<Vec<bool>>, ProgramError> {
        Err(ProgramError::Unsupported(
            "unpack lanes and output them on the inner backend",
        ))
    }

    fn release(&mut self, wires: &[Self::Wire]) {
        let inner = self.active_wires(wires);
        self.inner.release(&inner);
    }

    fn retain(&mut self, wires: &[Self::Wire]) {
        let inner = self.active_wires(wires);
        self.inner.retain(&inner);
    }

    /// Scopes are the inner backend's: a gadget run on lanes in a scope frees its
    /// temporaries in every lane.
    fn open_scope(&mut self) {
        self.inner.open_scope();
    }

    fn close_scope(&mut self, keep: &[Self::Wire]) {
        let inner = self.active_wires(keep);
        self.inner.close_scope(&inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gadgets::testing::{bits, value};
    use crate::gadgets::{add, mul::mul};
    use crate::{Counter, Plain};

    #[test]
    fn lanes_compute_each_instance_with_the_same_and_count() {
        let mut p = Plain::default();
        let xs: Vec<Vec<bool>> = (0..10u128).map(|i| bits(i * 1234 + 7, 32)).collect();
        let ys: Vec<Vec<bool>> = (0..10u128).map(|i| bits(i * 99 + 1, 32)).collect();
        let mut lanes = Lanes::new(&mut p, 10);
        let x = lanes.pack(&xs.iter().map(Vec::as_slice).collect::<Vec<_>>());
        let y = lanes.pack(&ys.iter().map(Vec::as_slice).collect::<Vec<_>>());
        let prod = mul(&mut lanes, &x, &y);
        let sum = add(&mut lanes, &prod, &x);
        for (i, v) in lanes.unpack(&sum).iter().enumerate() {
            let (a, b) = (i as u128 * 1234 + 7, i as u128 * 99 + 1);
            assert_eq!(value(v), (a * b + a) & 0xffff_ffff, "lane {i}");
        }
        // Ten lanes cost exactly ten separate products and sums.
        let mut c = Counter::default();
        let w: Vec<u32> = vec![0; 32];
        let mut lanes = Lanes::new(&mut c, 10);
        let x = lanes.broadcast(&w);
        let prod = mul(&mut lanes, &x, &x);
        add(&mut lanes, &prod, &x);
        assert_eq!(c.cost().ands, 10 * (680 + 31));
    }
}
