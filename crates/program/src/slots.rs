//! Wire slots with reference counts and scopes, for backends whose wires index per-wire
//! state (masks, MACs, labels): a slot is reused once nothing holds it, so that state is
//! O(live wires), not O(wires ever made) (TinyGarble2 thesis §3.3.2: memory bounded by the
//! live wires and the batch).
//!
//! Two kinds of holders keep a slot alive:
//! - **values** ([`crate::UInt`] and friends): [`SlotTable::retain`] when a value takes a
//!   wire (also a wire it shares with another value, e.g. a shift or a clone),
//!   [`SlotTable::release`] when it is dropped;
//! - **scopes**: a slot made while a scope is open belongs to the innermost one until it
//!   closes ([`SlotTable::close_scope`]); then the slots it keeps pass to the enclosing
//!   scope, the others are freed unless a value holds them. A gadget run in a scope frees
//!   its temporaries at its end.
//!
//! A slot made outside any scope and never taken by a value stays alive (raw wires, as a
//! gadget over wire slices uses them) until [`SlotTable::release`] names it.

/// What [`SlotTable::alloc`] refuses: every slot up to the cap is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the program holds more than {cap} live wires at once (the backend's slot cap)")]
pub struct SlotsExhausted {
    pub cap: u32,
}

/// The slots of a backend: `reserved` fixed slots (never freed), then slots handed out
/// by [`SlotTable::alloc`], at most `cap` in all.
#[derive(Debug, Clone)]
pub struct SlotTable {
    /// Values holding each slot; `FREE` for a free slot.
    holds: Vec<u32>,
    /// Whether an open scope lists the slot.
    scoped: Vec<bool>,
    free: Vec<u32>,
    /// The slots each open scope made, innermost last.
    frames: Vec<Vec<u32>>,
    reserved: u32,
    cap: u32,
    live: usize,
    peak: usize,
}

const FREE: u32 = u32::MAX;

impl SlotTable {
    /// A table whose slots `0..reserved` are always alive, with at most `cap` slots.
    pub fn new(reserved: u32, cap: u32) -> SlotTable {
        let reserved = reserved.min(cap);
        SlotTable {
            holds: vec![0; reserved as usize],
            scoped: vec![false; reserved as usize],
            free: Vec::new(),
            frames: Vec::new(),
            reserved,
            cap,
            live: reserved as usize,
            peak: reserved as usize,
        }
    }

    /// Slots alive now (the reserved ones included).
    pub fn live(&self) -> usize {
        self.live
    }

    /// The most slots alive at once so far.
    pub fn peak(&self) -> usize {
        self.peak
    }

    /// Slots ever handed out (the length per-slot arrays need).
    pub fn len(&self) -> usize {
        self.holds.len()
    }

    /// Whether no slot exists (not even a reserved one).
    pub fn is_empty(&self) -> bool {
        self.holds.is_empty()
    }

    /// The slot cap.
    pub fn cap(&self) -> u32 {
        self.cap
    }

    /// A free slot, a reused one first; it belongs to the innermost open scope.
    pub fn alloc(&mut self) -> Result<u32, SlotsExhausted> {
        let slot = match self.free.pop() {
            Some(s) => s,
            None => {
                let s = self.holds.len();
                if s >= self.cap as usize {
                    return Err(SlotsExhausted { cap: self.cap });
                }
                self.holds.push(FREE);
                self.scoped.push(false);
                s as u32
            }
        };
        self.holds[slot as usize] = 0;
        if let Some(frame) = self.frames.last_mut() {
            frame.push(slot);
            self.scoped[slot as usize] = true;
        }
        self.live += 1;
        self.peak = self.peak.max(self.live);
        Ok(slot)
    }

    fn is_managed(&self, slot: u32) -> bool {
        slot >= self.reserved && self.holds.get(slot as usize).is_some_and(|&h| h != FREE)
    }

    /// Values now hold `slots` once more each (a slot named twice, twice).
    pub fn retain(&mut self, slots: &[u32]) {
        for &s in slots {
            if self.is_managed(s) {
                let h = &mut self.holds[s as usize];
                *h = h.saturating_add(1).min(FREE - 1);
            }
        }
    }

    /// A value holding `slots` was dropped: each is freed when no value and no open scope
    /// holds it any more. Naming a raw wire (held by nothing) frees it; reserved and free
    /// slots are ignored.
    pub fn release(&mut self, slots: &[u32]) {
        for &s in slots {
            if self.is_managed(s) {
                let h = &mut self.holds[s as usize];
                *h = h.saturating_sub(1);
                if *h == 0 && !self.scoped[s as usize] {
                    self.free_slot(s);
                }
            }
        }
    }

    /// Opens a scope: slots made from now on belong to it.
    pub fn open_scope(&mut self) {
        self.frames.push(Vec::new());
    }

    /// Closes the innermost scope (none open: does nothing). Its slots in `keep` pass to
    /// the enclosing scope (or become raw wires at the top level); the others are freed
    /// unless a value holds them.
    pub fn close_scope(&mut self, keep: &[u32]) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        let mut kept: Vec<u32> = keep.to_vec();
        kept.sort_unstable();
        let has_parent = !self.frames.is_empty();
        for s in frame {
            let i = s as usize;
            if kept.binary_search(&s).is_ok() {
                if has_parent {
                    self.frames.last_mut().expect("a parent scope").push(s);
                } else {
                    self.scoped[i] = false;
                }
            } else {
                self.scoped[i] = false;
                if self.holds[i] == 0 {
                    self.free_slot(s);
                }
            }
        }
    }

    fn free_slot(&mut self, s: u32) {
        self.holds[s as usize] = FREE;
        self.free.push(s);
        self.live -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scope_frees_what_it_does_not_keep_and_slots_are_reused() {
        let mut t = SlotTable::new(1, 100);
        let input = t.alloc().unwrap();
        t.retain(&[input]);
        t.open_scope();
        let tmp: Vec<u32> = (0..10).map(|_| t.alloc().unwrap()).collect();
        assert_eq!(t.live(), 12);
        t.close_scope(&tmp[9..]);
        assert_eq!(t.live(), 3, "the reserved slot, the input and the kept output");
        // Freed slots come back before new ones.
        let again = t.alloc().unwrap();
        assert!(tmp[..9].contains(&again));
        assert_eq!(t.len(), 12);
        assert_eq!(t.peak(), 12);
    }

    #[test]
    fn a_slot_shared_by_two_values_lives_until_both_are_dropped() {
        let mut t = SlotTable::new(1, 100);
        let s = t.alloc().unwrap();
        t.retain(&[s]);
        t.retain(&[s]);
        t.release(&[s]);
        assert_eq!(t.live(), 2);
        t.release(&[s]);
        assert_eq!(t.live(), 1);
        // Releasing again, or a reserved slot, changes nothing.
        t.release(&[s, 0]);
        assert_eq!(t.live(), 1);
    }

    #[test]
    fn nested_scopes_pass_kept_slots_outward_and_values_outlive_scopes() {
        let mut t = SlotTable::new(0, 100);
        t.open_scope();
        t.open_scope();
        let inner: Vec<u32> = (0..4).map(|_| t.alloc().unwrap()).collect();
        t.close_scope(&inner[..2]);
        assert_eq!(t.live(), 2);
        let held = t.alloc().unwrap();
        t.retain(&[held]);
        t.close_scope(&[]);
        // The kept inner slots go with the outer scope; the value's slot stays.
        assert_eq!(t.live(), 1);
        t.release(&[held]);
        assert_eq!(t.live(), 0);
    }

    #[test]
    fn a_value_dropped_inside_its_scope_keeps_the_slot_until_the_scope_ends() {
        let mut t = SlotTable::new(0, 100);
        t.open_scope();
        let s = t.alloc().unwrap();
        t.retain(&[s]);
        t.release(&[s]);
        assert_eq!(t.live(), 1, "the scope still holds it");
        t.close_scope(&[]);
        assert_eq!(t.live(), 0);
    }

    #[test]
    fn the_cap_is_an_error_naming_it() {
        let mut t = SlotTable::new(1, 3);
        t.alloc().unwrap();
        t.alloc().unwrap();
        let e = t.alloc().unwrap_err();
        assert_eq!(e, SlotsExhausted { cap: 3 });
        assert!(e.to_string().contains("more than 3 live wires"));
        // Released slots can be handed out again.
        t.release(&[1]);
        assert_eq!(t.alloc(), Ok(1));
    }
}
