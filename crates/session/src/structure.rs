//! A running digest of a program run's structure, so that two parties running different
//! program code (another mixgc build, a changed gadget) stop at the first output instead of
//! computing garbage (`docs/security.md`, "Handshake and session id").
//!
//! Each party's backend notes every AND batch, input, output and arithmetic gadget in
//! order, and counts the free gates; the party that sends an output's decoding or colours
//! appends its digest, and the receiver compares. The program's structure is public (both
//! parties run the same code on public parameters), so the digest reveals nothing.

/// Bytes of the digest appended to an output frame.
pub(crate) const DIGEST_BYTES: usize = 8;

/// What a step of the run was.
#[derive(Clone, Copy)]
pub(crate) enum Step {
    Ands = 1,
    Input = 2,
    Output = 3,
    Gadget = 4,
}

#[derive(Default)]
pub(crate) struct Structure {
    state: u64,
    free: u64,
}

/// SplitMix64's finaliser: a cheap, well-mixed step (not a cryptographic hash; the digest
/// catches accidents, and the structure is public anyway).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Structure {
    /// One free gate (XOR, NOT or constant).
    #[inline(always)]
    pub(crate) fn free(&mut self) {
        self.free += 1;
    }

    /// A step of the run with its size (`a`, `b`: widths, counts, owners).
    pub(crate) fn note(&mut self, step: Step, a: u64, b: u64) {
        self.state = mix(self.state ^ mix((step as u64) << 56 ^ a) ^ b.rotate_left(17));
    }

    /// The digest of the run so far.
    pub(crate) fn digest(&self) -> [u8; DIGEST_BYTES] {
        mix(self.state ^ mix(self.free)).to_le_bytes()
    }

    /// Checks the digest a peer appended to an output frame against ours.
    pub(crate) fn check(&self, theirs: &[u8]) -> Result<(), crate::SessionError> {
        if theirs == self.digest() {
            return Ok(());
        }
        Err(crate::SessionError::Mismatch(
            "the peer's program differs from ours: the two runs reached this output by different \
             operations (another mixgc version or changed program code on one side)"
                .into(),
        ))
    }
}

/// Splits an output frame into its payload and the structure digest at its end.
pub(crate) fn split_digest(frame: &[u8]) -> Option<(&[u8], &[u8])> {
    frame.len().checked_sub(DIGEST_BYTES).map(|n| frame.split_at(n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_sizes_and_free_gates_all_count() {
        let run = |steps: &[(Step, u64, u64)], free: u64| {
            let mut s = Structure::default();
            steps.iter().for_each(|&(k, a, b)| s.note(k, a, b));
            (0..free).for_each(|_| s.free());
            s.digest()
        };
        let base = run(
            &[(Step::Input, 0, 8), (Step::Ands, 16, 0), (Step::Output, 8, 0)],
            5,
        );
        assert_eq!(
            base,
            run(
                &[(Step::Input, 0, 8), (Step::Ands, 16, 0), (Step::Output, 8, 0)],
                5
            )
        );
        assert_ne!(
            base,
            run(
                &[(Step::Ands, 16, 0), (Step::Input, 0, 8), (Step::Output, 8, 0)],
                5
            )
        );
        assert_ne!(
            base,
            run(
                &[(Step::Input, 0, 8), (Step::Ands, 15, 0), (Step::Output, 8, 0)],
                5
            )
        );
        assert_ne!(
            base,
            run(
                &[(Step::Input, 1, 8), (Step::Ands, 16, 0), (Step::Output, 8, 0)],
                5
            )
        );
        assert_ne!(
            base,
            run(
                &[(Step::Input, 0, 8), (Step::Ands, 16, 0), (Step::Output, 8, 0)],
                6
            )
        );
    }
}
