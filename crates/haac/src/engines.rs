//! Which gate engine (GE) runs each instruction (HAAC §4.3, "Queue Streams").
//!
//! The seed assigns instructions by running its simulator: each cycle the next instructions
//! in program order go to the GEs that are not stalled, and the resulting order is replayed
//! in hardware ([`crate::sim::assign_engines`], what the compiler uses).
//! [`assign_round_robin`] is the static alternative: instruction `i` runs on GE `i mod ges`,
//! which balances the instruction count exactly but not stalls.

/// GE of each of `instructions` instructions: instruction `i` on GE `i mod ges` (`ges ≥ 1`;
/// 0 is treated as 1).
pub fn assign_round_robin(instructions: usize, ges: u16) -> Vec<u16> {
    let ges = usize::from(ges.max(1));
    (0..instructions).map(|i| (i % ges) as u16).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_cycles_through_the_engines() {
        assert_eq!(assign_round_robin(7, 3), vec![0, 1, 2, 0, 1, 2, 0]);
        assert_eq!(assign_round_robin(3, 1), vec![0, 0, 0]);
        assert!(assign_round_robin(0, 4).is_empty());
    }
}
